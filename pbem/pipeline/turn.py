"""`pbem turn`: compose a whole turn by picking numbered choices in a terminal, check it, sign it.

Plain prompts (no cursor tricks), so it works over ssh and in a basic terminal; with ``--json``
each prompt is one JSON line on stdout and each answer one line on stdin, for scripts.

The state comes from the player's copy of the game: the public view, or, with the player's key
(or a decrypted secrets file), their private view from the view block of their secrets, so that
their own hidden tiles and cards are choices too.  Signing runs ``ssh-keygen -Y sign``, so
passphrases and agents work as they always do.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any, Callable, TextIO

from pbem.base.errors import PbemError, one_line
from pbem.base.fsutil import public_mode, write_atomic
from pbem.base.mailpolicy import MAIL_POLICY
from pbem.base.yamlio import dump_flow
from pbem.core.engine import check_actions, game_for, with_header_options
from pbem.crypto import agecrypt
from pbem.store.gamedir import GameDir
from pbem.store.movefile import MoveFile, render_move
from pbem.store.table import Table
from pbem.views.compose import Composer
from pbem.views.outputs import read_private_view
from pbem.views.render.hexmap_text import render_text
from pbem.views.viewpatch import apply_patch

HELP = "number = take that choice, u = undo the last one, d = done (write the move), q = quit"
MENU_SIZE = 24     # longer lists are shown in groups first (e.g. by piece), then the group's choices


class TurnError(PbemError):
    """One line: why the turn cannot be composed, signed or sent."""


#: what a script may answer to each JSON line of `pbem turn --json`, beside a choice's number
JSON_ANSWERS = {"N": "take choice N", "u": "undo the last choice", "d": "done: write and sign the move",
                "q": "quit without writing"}


@dataclass
class Io:
    """Where prompts go and answers come from (a terminal, or JSON lines for scripts)."""

    out: TextIO
    inp: TextIO
    as_json: bool = False

    def say(self, text: str = "") -> None:
        if not self.as_json:
            self.out.write(text + "\n")
            self.out.flush()

    def emit(self, record: dict[str, Any]) -> None:
        if self.as_json:
            self.out.write(json.dumps(record, sort_keys=True) + "\n")
            self.out.flush()

    def ask(self, prompt: str) -> str:
        if not self.as_json:
            self.out.write(prompt)
            self.out.flush()
        line = self.inp.readline()
        if not line:
            raise TurnError("no more input: nothing was written")
        return line.strip()


@dataclass
class TurnResult:
    move: Path | None = None
    signature: Path | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    mailed_to: str = ""


def player_table(gd: GameDir, player: str, key: Path | None, secrets: Path | None,
                 opener: Callable[[bytes], bytes] | None = None) -> tuple[Table, bool]:
    """The table to compose on: the player's private view if their secrets can be read, else the
    public view.  Returns (table, private).  ``opener``: decrypts the secrets instead of ``key``'s
    file (a key a passphrase opened, held in memory)."""
    table = Table.load_public(gd)
    if player not in table.players:
        raise TurnError(f"no player {player!r} in this game; players: {', '.join(table.players)}")
    source = secrets if secrets is not None else gd.secrets_path(player)
    if key is None and secrets is None:
        return table, False
    try:
        raw = source.read_bytes()
    except OSError as exc:
        raise TurnError(f"cannot read your secrets {source}: {exc.strerror}") from None
    if not _is_age(raw):
        text = raw.decode("utf-8", errors="replace")
    elif opener is not None:
        text = opener(raw).decode("utf-8", errors="replace")
    else:
        text = _decrypt(raw, key, source)
    data = read_private_view(text)
    if data.get("game") != table.game_id or data.get("player") != player:
        raise TurnError(f"{source} holds the secrets of {data.get('player')} in game {data.get('game')}, "
                        f"not of {player} in {table.game_id}")
    if data.get("index") != table.last["index"]:
        raise TurnError(f"{source} is from log entry {data.get('index')} but the game is at entry "
                        f"{table.last['index']}; use the secrets of the latest digest")
    public = json.loads((gd.public_dir / "view.json").read_text())["view"]    # what the patch was made on
    view = data["view"] if "view" in data else apply_patch(public, data["patch"])
    table.state = table.game.from_position(with_header_options(table.game, table.header, view))
    return table, True


def _is_age(raw: bytes) -> bool:
    return raw.startswith(b"age-encryption.org/") or raw.lstrip().startswith(b"-----BEGIN AGE ENCRYPTED FILE-----")


def _decrypt(raw: bytes, key: Path | None, source: Path) -> str:
    if key is None:
        raise TurnError(f"{source} is encrypted; give --key (your SSH private key) to read it")
    return agecrypt.decrypt(raw, key).decode("utf-8", errors="replace")


def groups(choices: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Choices grouped by their first key and value (``{move: r7, ...}`` by r7), in the game's order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for action in choices:
        first = next(iter(action.items()), ("", ""))
        out.setdefault(dump_flow(dict([first])), []).append(action)
    return list(out.items())


def compose(table: Table, player: str, io: Io, private: bool) -> list[dict[str, Any]]:
    """The interactive part: returns the chosen actions ([] when the player quits)."""
    game = table.game
    composer = Composer(game, table.state, player)
    view = game.view(table.state, player if private else None)
    board = game.board_picture(view)
    if board is not None:
        io.say(render_text(board).rstrip("\n"))
    io.say("")
    io.say(f"{table.game_id}, log entry {table.last['index']}; you are {player}"
           + ("" if private else " (public view: choices that need your hidden tiles are not listed)"))
    group: list[dict[str, Any]] | None = None      # the group of choices being shown, in a long list
    while True:
        step = composer.step()
        io.emit({"step": len(composer.actions) + 1, "actions": composer.actions, "stop": step.stop,
                 "choices": [{"n": n, "action": a, "text": game.describe_action(a)}
                             for n, a in enumerate(step.choices, 1)],
                 "answers": JSON_ANSWERS})
        grouped = groups(step.choices)
        menu = not io.as_json and group is None and len(step.choices) > MENU_SIZE and 1 < len(grouped)
        shown = group if group is not None else step.choices
        if step.stop:
            io.say(f"-- {step.stop}")
        elif menu:
            io.say(f"\nchoice {len(composer.actions) + 1} (first pick one of these, then where or how):")
            for n, (label, members) in enumerate(grouped, 1):
                io.say(f"  {n:>3}) {label} ... ({len(members)} choices)")
        else:
            io.say(f"\nchoice {len(composer.actions) + 1}:" + ("  (b = back to the groups)" if group else ""))
            for n, action in enumerate(shown, 1):
                io.say(f"  {n:>3}) {game.describe_action(action)}")
        count = len(grouped) if menu else len(shown) if not step.stop else 0
        answer = io.ask(f"[{'1-' + str(count) + ', ' if count else ''}u, d, q] > ").lower()
        if answer in ("b", "back") and group is not None:
            group = None
            continue
        if answer in ("q", "quit"):
            return []
        if answer in ("d", "done"):
            if not composer.actions:
                io.say("pbem: nothing chosen yet; pick a number, or q to quit")
                continue
            return composer.actions
        if answer in ("u", "undo"):
            group = None
            if composer.actions:
                composer.undo()
                io.say("undone")
            else:
                io.say("pbem: nothing to undo")
            continue
        if not answer:
            io.say(f"pbem: type a number, or {HELP}")
            continue
        if not answer.isdigit() or not 1 <= int(answer) <= count:
            span = f"1-{count}" if count else "no number now"
            io.say(f"pbem: no choice {one_line(answer, 20)!r}; {span}, or u, d, q")
            continue
        if menu:
            group = grouped[int(answer) - 1][1]
            continue
        chosen, group = shown[int(answer) - 1], None
        for line in composer.choose(chosen):
            io.say(f"   {line}")


def write_and_sign(table: Table, player: str, actions: list[dict[str, Any]], out: Path, key: Path | None,
                   io: Io, sign: Callable[[Path, Path], None] | None = None) -> TurnResult:
    """Check the move against the public state (as `pbem check`), write it, and sign it."""
    move = MoveFile(table.game_id, player, table.last["index"], table.last["hash"], actions)
    text = render_move(move, f"written with `pbem turn` for {player}")
    public = Table.load_public(table.gd)
    applied = check_actions(public.game, public.state, player, actions)   # raises Rejected, as submit would
    io.say("\nthe move:\n" + text.rstrip("\n"))
    io.say(f"checked: {len(applied.actions)} action(s) legal"
           + (f"; the rest depends on what only the moderator knows ({applied.dropped_reason})"
              if applied.needs_secret else ""))
    write_atomic(out, text, mode=public_mode())
    result = TurnResult(move=out, actions=actions)
    if key is None:
        io.say(f"wrote {out} (not signed: give --key, or run `ssh-keygen -Y sign -n pbem-move -f KEY {out}`)")
        return result
    (sign or ssh_keygen_sign)(out, key)
    result.signature = out.with_name(out.name + ".sig")
    io.say(f"wrote {out} and {result.signature}")
    return result


def ssh_keygen_sign(path: Path, key: Path) -> None:
    """Sign with OpenSSH, in this terminal: its passphrase prompt and the ssh-agent work as usual."""
    tool = shutil.which("ssh-keygen")
    if tool is None:
        raise TurnError("ssh-keygen is not installed; install OpenSSH, or sign with `pbem sign`")
    sig = path.with_name(path.name + ".sig")
    if sig.exists():
        sig.unlink()
    proc = subprocess.run([tool, "-q", "-Y", "sign", "-n", "pbem-move", "-f", str(key), str(path)],
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 or not sig.is_file():
        raise TurnError(f"ssh-keygen could not sign {path}: {one_line(proc.stderr.strip() or 'no signature')}")


def mail_move(result: TurnResult, to: str, sender: str, command: str, game_id: str) -> None:
    """Send move.yaml and its signature with the player's own mail command (sendmail, msmtp...)."""
    assert result.move is not None and result.signature is not None
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = f"[{game_id}] my move"
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(f"{game_id}.move")
    msg.set_content(f"My move for {game_id}, written and signed with `pbem turn`.\n")
    msg.add_attachment(result.move.read_bytes(), "application", "x-yaml", filename=result.move.name)
    msg.add_attachment(result.signature.read_bytes(), "application", "octet-stream",
                       filename=result.signature.name)
    argv = command.split()
    if not argv or shutil.which(argv[0]) is None:
        raise TurnError(f"mail command {command!r} not found; give --mail-command (e.g. 'msmtp -t')")
    proc = subprocess.run(argv, input=msg.as_bytes(), stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise TurnError(f"{argv[0]} could not send the move: {one_line(proc.stderr.decode(errors='replace'))}")
    result.mailed_to = to


def contact_of(gd: GameDir) -> str:
    """The moderator's address for moves, from the game's public header (``pbem new --contact``)."""
    return str(gd.entries()[0].get("contact", ""))


def run_turn(game_dir: Path, player: str, key: Path | None, secrets: Path | None, out: Path, io: Io,
             mail: bool = False, to: str = "", sender: str = "", mail_command: str = "sendmail -t -oi"
             ) -> TurnResult:
    gd = GameDir(game_dir)
    gd.require()
    game_for(gd.entries()[0])
    table, private = player_table(gd, player, key, secrets)
    actions = compose(table, player, io, private)
    if not actions:
        io.say("nothing written")
        io.emit({"done": False})
        return TurnResult()
    result = write_and_sign(table, player, actions, out, key, io)
    if mail:
        address = to or contact_of(gd)
        if not address:
            raise TurnError("this game names no address for moves; give --to ADDRESS")
        if result.signature is None:
            raise TurnError("give --key to sign the move before it is mailed")
        mail_move(result, address, sender or player, mail_command, table.game_id)
        io.say(f"mailed the move to {address}")
    io.emit({"done": True, "move": str(result.move), "signature": str(result.signature or ""),
             "actions": [dump_flow(a) for a in actions], "mailed_to": result.mailed_to})
    return result
