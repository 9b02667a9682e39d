"""Everything the moderator sends out after an entry: public digests and per-player secrets.

All of it is made from ``game.view(state, viewer)`` (the one view function),
the public log entries, and for a player ``game.secrets(state, player)``.
"""
from __future__ import annotations

import base64
import gzip
import json
import textwrap
import zlib
from pathlib import Path
from typing import Any

from pbem import yamlio
from pbem.canonical import canonical
from pbem.crypto import agecrypt
from pbem.errors import PbemError
from pbem.fsutil import public_mode, write_atomic, write_if_changed
from pbem.movefile import MoveFile, render_move
from pbem.render.digest import DigestContext, render_digest
from pbem.render.hexmap_svg import render_svg
from pbem.render.hexmap_text import render_text
from pbem.table import Table


def events_since(table: Table, viewer: str | None) -> list[str]:
    """Public event lines since the viewer's last move (public: since the last move entry)."""
    entries = table.entries
    start = len(entries) - 1
    for i in range(len(entries) - 1, 0, -1):
        e = entries[i]
        if e.get("kind") != "move":
            continue
        if viewer is None or e.get("player") == viewer:
            start = i   # from the reader's own last move (its die roll and what followed)
            break
        start = i
    lines: list[str] = []
    for e in entries[max(start, 1):]:
        who = e.get("player", "moderator")
        lines.append(f"entry {e['index']} ({e['kind']}, {who}):")
        for ev in e.get("events", []):
            text = table.game.describe_event({k: v for k, v in ev.items() if k != "auto"})
            lines.append(f"  {text}" + (f"  [auto: {ev['auto']}]" if "auto" in ev else ""))
        if e.get("dropped"):
            lines.append(f"  orders dropped: {e['dropped']['reason']}")
    return lines


def moderator_lines(table: Table) -> list[str]:
    """Every moderator action so far, with its reason (shown in every digest)."""
    lines = []
    for e in table.entries:
        if e.get("kind") == "moderator" and e.get("action") not in ("bot-move",):
            who = f" {e['player']}" if "player" in e else ""
            extra = f" (entry {e['undoes']})" if "undoes" in e else ""
            lines.append(f"moderator, entry {e['index']}: {e['action']}{who}{extra} - {e.get('reason', '')}")
    if table.paused:
        lines.append(f"THE GAME IS PAUSED: {table.paused}")
    return lines


def template_for(table: Table, player: str, view: dict[str, Any]) -> str:
    skeleton = MoveFile(table.game_id, player, table.last["index"], table.last["hash"], [])
    head = render_move(skeleton).replace("actions: []\n", "")
    return head + fold_comments(table.game.move_template(view, player))


def fold_comments(template: str, width: int = 78) -> str:
    """A move template whose long trailing comments (``  - {...}   # yours: r1, r2...``) become
    wrapped comment lines above their line, so that no line is wider than ``width``."""
    out: list[str] = []
    for line in template.splitlines():
        code, sep, comment = line.partition("  # ")
        if len(line) <= width or not sep:
            out.append(line)
            continue
        indent = code[: len(code) - len(code.lstrip())]
        out.append(textwrap.fill(comment.strip(), width=width, initial_indent=indent + "# ",
                                 subsequent_indent=indent + "#   ", break_long_words=False, break_on_hyphens=False))
        out.append(code.rstrip())
    return "\n".join(out) + ("\n" if template.endswith("\n") else "")


def digest_context(table: Table, viewer: str | None, with_svg: bool = True) -> DigestContext:
    """Everything a digest shows, for the public (viewer None) or one player."""
    game, state = table.game, table.state
    view = game.view(state, viewer)
    board = game.board_picture(view)
    pending = game.pending(state)
    waiting = [f"{d.player}: {d.kind}" + (f" - {d.prompt}" if d.prompt else "") for d in pending]
    template_player = viewer if viewer is not None else (pending[0].player if pending else None)
    if viewer is not None and viewer not in {d.player for d in pending}:
        template_player = None
    events = events_since(table, viewer)
    if viewer is not None:
        events += [f"  (only you) {game.describe_event(ev)}" for ev in table.private.get(viewer, [])]
    result = game.result(state)
    result_lines: list[str] = []
    if result is not None:
        result_lines = [f"{p}: {s}" for p, s in result.scores.items()]
        result_lines.append("winner(s): " + ", ".join(result.winners))
    h = table.header
    return DigestContext(
        game_title=game.title, game_id=table.game_id, game_name=h["game"],
        options=game.display_options(h["options"]),
        players=table.players, viewer=viewer,
        turn_line=f"log entry {table.last['index']}, head hash {table.last['hash']}",
        summary=game.summary(view), pending=waiting, events=events,
        board_text=render_text(board), board_svg=render_svg(board, game.title) if with_svg else "",
        sections=game.sections(view),
        move_template=template_for(table, template_player, view) if template_player else "",
        secrets_yaml=yamlio.dump(player_secrets(table, viewer)) if viewer is not None else None,
        result=result_lines,
        footer=moderator_lines(table) + [f"seed commitment: {h['seed_commitment']}", f"rules: {h['game']} {h['rules']}"],
    )


def player_secrets(table: Table, player: str) -> dict[str, Any]:
    """What the player's secrets section shows: the game's secrets, and their preference list."""
    out = dict(table.game.secrets(table.state, player))
    remaining = table.prefs.of(player)
    if remaining:
        out["preference_list"] = [yamlio.dump_flow(a) for a in remaining]
    return out


def public_view_file(table: Table) -> dict[str, Any]:
    """public/view.json: what `pbem check` and `pbem legal` use on a player's machine."""
    return {"game": table.header["game"], "id": table.game_id, "index": table.last["index"],
            "hash": table.last["hash"],
            "pending": [{"player": d.player, "kind": d.kind} for d in table.game.pending(table.state)],
            "view": table.game.view(table.state, None)}


def public_outputs(table: Table) -> dict[str, bytes]:
    ctx = digest_context(table, None)
    return {
        "public/digest.txt": render_digest(ctx, "text").encode(),
        "public/digest.html": render_digest(ctx, "html").encode(),
        "public/board.svg": ctx.board_svg.encode(),
        "public/view.json": (json.dumps(public_view_file(table), sort_keys=True, indent=1) + "\n").encode(),
    }


def player_plaintext(table: Table, player: str) -> bytes:
    """The plaintext of secrets/PLAYER.age: that player's own digest with their secrets, and
    their view for `pbem turn` (the view block at the end)."""
    digest = render_digest(digest_context(table, player, with_svg=False), "text")
    return (digest + private_view_block(table, player)).encode()


VIEW_BEGIN, VIEW_END = "----- BEGIN view -----", "----- END view -----"


def private_view_block(table: Table, player: str) -> str:
    """The player's own view (public plus their secrets), gzip + base64, for `pbem turn`."""
    data = {"game": table.game_id, "index": table.last["index"], "hash": table.last["hash"], "player": player,
            "view": table.game.view(table.state, player)}
    payload = base64.b64encode(gzip.compress(canonical(data), mtime=0)).decode("ascii")
    return "\n".join(["", "Your view of the game, for `pbem turn` (nothing to read by eye):", VIEW_BEGIN,
                      *textwrap.wrap(payload, 76), VIEW_END, ""])


def read_private_view(plaintext: str) -> dict[str, Any]:
    """The view block of a decrypted secrets file (see :func:`private_view_block`)."""
    start, end = plaintext.find(VIEW_BEGIN), plaintext.find(VIEW_END)
    if start < 0 or end < start:
        raise PbemError("these secrets hold no view block (made by an older pbem?); use the public view")
    payload = "".join(plaintext[start + len(VIEW_BEGIN):end].split())
    try:
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)        # gzip, at most 16 MiB
        data = json.loads(inflate.decompress(base64.b64decode(payload, validate=True), 16 * 2**20))
    except (ValueError, OSError, EOFError, zlib.error):
        raise PbemError("the view block of these secrets is damaged; decrypt the file again") from None
    if not isinstance(data, dict) or not isinstance(data.get("view"), dict):
        raise PbemError("the view block of these secrets is damaged; decrypt the file again")
    return data


def write_outputs(table: Table, careful: bool = False) -> None:
    """The public files and every player's encrypted secrets.

    ``careful``: leave a file alone when it already holds the right content
    (for secrets: when it decrypts, with the moderator key, to the right text).
    """
    for rel, data in public_outputs(table).items():
        path = table.gd.root / rel
        if careful:
            write_if_changed(path, data, mode=public_mode())
        else:
            write_atomic(path, data, mode=public_mode())
    moderator_pub = table.header["moderator"]["key"]
    for player in table.players:
        plain = player_plaintext(table, player)
        path = table.gd.secrets_path(player)
        if careful and _holds(path, plain, table.gd.moderator_key_path):
            continue
        cipher = agecrypt.encrypt(plain, [table.player_keys(player)[0], moderator_pub])
        write_atomic(path, cipher, mode=0o600)   # encrypted, but still only the player's


def _holds(path: Path, plain: bytes, moderator_key: Path) -> bool:
    """Does the encrypted file at ``path`` hold exactly ``plain``?"""
    try:
        return agecrypt.decrypt(path.read_bytes(), moderator_key) == plain
    except (OSError, agecrypt.AgeError):
        return False
