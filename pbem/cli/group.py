"""The `pbem` command line: small commands over the shared core."""
from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any, Callable

import click

from pbem import __version__
from pbem.cli.console import INTERRUPTED, caused_by_ctrl_c


class UserError(click.ClickException):
    """Printed as one line `pbem: error: ...`, exit code 1."""

    def show(self, file: Any = None) -> None:
        from pbem.base.errors import one_line
        click.echo(f"pbem: error: {one_line(self.format_message())}", err=True)


def friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every expected failure into one line and a non-zero exit code.

    Expected failures are pbem's own errors (:class:`pbem.base.errors.PbemError`) and
    the machine's (a missing file, a full disk, a permission).  Anything else is
    a bug and keeps its traceback.
    """
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from pbem.base.errors import PbemError
        from pbem.core.engine import Rejected
        try:
            return fn(*args, **kwargs)
        except Rejected as exc:
            raise UserError(f"rejected: {exc}") from None
        except PbemError as exc:
            raise UserError(str(exc) or exc.__class__.__name__) from None
        except OSError as exc:
            raise UserError(os_error_line(exc)) from None
    return wrapper


def os_error_line(exc: OSError) -> str:
    """One line for an error of the machine, naming the file and what to do."""
    import errno
    where = f" {exc.filename}" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return (f"cannot write{where}: no space left on the device; nothing was committed: free some space "
                "and run the command again")
    if isinstance(exc, FileNotFoundError):
        return f"no such file:{where}"
    if isinstance(exc, PermissionError):
        return f"permission denied:{where}"
    return f"{exc.strerror or exc.__class__.__name__}:{where}"


GAME_DIR = click.argument("game_dir", type=click.Path(path_type=Path))


class PbemGroup(click.Group):
    """The top-level group: every failure is one `pbem: error:` line, click's own ones too
    (a usage mistake exits 2, Ctrl-C exits 130), never click's `Error:` or `Aborted!`."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            _deliver_held_interrupt()
            kwargs["standalone_mode"] = False
            return super().main(*args, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:   # `pbem` or `pbem mail` alone: the help, as usual
            click.echo(exc.ctx.get_help() if exc.ctx else "")
            sys.exit(0)
        except click.UsageError as exc:
            from pbem.base.errors import one_line
            command = exc.ctx.command_path if exc.ctx else "pbem"
            click.echo(f"pbem: error: {one_line(exc.format_message())} (see `{command} --help`)", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.Abort, KeyboardInterrupt):
            click.echo(INTERRUPTED, err=True)
            sys.exit(130)
        except BaseException as exc:
            if not caused_by_ctrl_c(exc):
                raise
            click.echo(INTERRUPTED, err=True)      # e.g. a Ctrl-C in a native module's import made it fail
            sys.exit(130)


def _deliver_held_interrupt() -> None:
    """Let a Ctrl-C through that came while the process was starting, now that it is caught.

    A process that holds SIGINT while it starts (a launcher that blocks it until pbem's
    handler is in place, as the crash tests do) gets it delivered here, inside the `try`
    that turns it into one line; for a process that holds nothing this changes nothing."""
    import signal
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbem")
def main() -> None:
    """pbem: hidden-information board games by email or git, with signed moves,
    a seeded rules engine, a hash-chained log and age-encrypted secrets.

    \b
    Example (moderator):
      pbem new game1 --game atlantis --player red=alice.pub --player blue=bob.pub
      pbem submit game1 red-move.yaml        # red-move.yaml.sig beside it
      pbem status game1
    """


# --- keys and signatures ---------------------------------------------------

@main.command()
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="private key path; NAME.pub is written too")
@click.option("--comment", default="", help="comment for the public key")
@friendly
def keygen(out: Path, comment: str) -> None:
    """Create an ed25519 SSH key pair (OpenSSH format, usable by ssh-keygen and age).

    \b
    Example:  pbem keygen --out keys/alice
    """
    from pbem.crypto.keys import generate_keypair
    pub = generate_keypair(out, comment or out.name)
    click.echo(f"wrote {out} (private, keep it) and {out}.pub (send this to the moderator)")
    click.echo(pub)


@main.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--key", required=True, type=click.Path(path_type=Path), help="your ed25519 private key")
@friendly
def sign(file: Path, key: Path) -> None:
    """Sign a move file: writes FILE.sig, exactly what
    `ssh-keygen -Y sign -n pbem-move -f KEY FILE` writes.

    \b
    Example:  pbem sign move.yaml --key ~/.ssh/id_ed25519
    """
    from pbem.base.fsutil import write_atomic
    from pbem.crypto import keys, sshsig
    signature = sshsig.sign(keys.load_private_key(key), file.read_bytes(), sshsig.MOVE_NAMESPACE)
    write_atomic(file.with_name(file.name + ".sig"), signature)
    click.echo(f"wrote {file}.sig")


@main.command()
@GAME_DIR
@click.argument("action")
@friendly
def seal(game_dir: Path, action: str) -> None:
    """Seal an action so that only the moderator can read it until the game ends
    (for orders that would give away what you hold, such as standing orders).
    Prints a line to paste under `actions:` in your move file.

    \b
    Example:  pbem seal game1 '{standing: {shark_defense: never}}'
    """
    from pbem.base import yamlio
    from pbem.core.sealed import seal_action
    from pbem.store.gamedir import GameDir
    parsed = yamlio.load_strict(action, "the action")
    if not isinstance(parsed, dict) or not parsed:
        raise UserError("the action must be a YAML mapping, e.g. '{standing: {shark_defense: never}}'")
    moderator_key = GameDir(game_dir).entries()[0]["moderator"]["key"]
    sealed = seal_action(parsed, moderator_key)
    click.echo("  - " + yamlio.dump_flow(sealed))


@main.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--key", required=True, type=click.Path(path_type=Path), help="your ed25519 private key")
@friendly
def decrypt(file: Path, key: Path) -> None:
    """Decrypt your secrets (same as `age -d -i KEY FILE`, and `| gunzip` for the HTML page).

    `red.age` is your own digest as text; `red.html.gz.age` the same as an HTML
    page with your private board (save it and open it in a browser).

    \b
    Example:  pbem decrypt game1/secrets/red.age --key ~/.ssh/id_ed25519
              pbem decrypt game1/secrets/red.html.gz.age --key ~/.ssh/id_ed25519 > red.html
    """
    from pbem.crypto.agecrypt import decrypt as age_decrypt
    from pbem.views.outputs import opened_bytes
    sys.stdout.write(opened_bytes(age_decrypt(file.read_bytes(), key)).decode("utf-8"))


# --- the moderator's commands ----------------------------------------------

@main.command()
@GAME_DIR
@click.option("--game", "game_name", required=True, help="which game, e.g. atlantis (see the README for the list)")
@click.option("--player", "players", multiple=True, required=True, help="NAME=PUBKEY_FILE, in seat order (first player first)")
@click.option("--option", "options", multiple=True, help="NAME=VALUE game option (see docs/games/)")
@click.option("--seed", default=None, help="the secret seed as hex (default: 32 random bytes)")
@click.option("--position", type=click.Path(path_type=Path), default=None, help="start from this position file (YAML), played with its options; --option overrides them")
@click.option("--moderator-key", type=click.Path(path_type=Path), default=None, help="moderator's ed25519 key (default: a new one in GAME_DIR/moderator/)")
@click.option("--id", "game_id", default=None, help="game id (default: derived from the seed)")
@click.option("--deadline-hours", type=float, default=None, help="time for each decision (default: no deadlines)")
@click.option("--on-expiry", type=click.Choice(["bot", "pass", "wait"]), default="bot",
              help="when a deadline passes: a bot decides, the decision is declined (pass), or only remind")
@click.option("--remind-hours", type=float, default=24.0, help="remind this many hours before a deadline")
@click.option("--contact", default="", help="the address players mail moves to (public; `pbem turn --mail` uses it)")
@friendly
def new(game_dir: Path, game_name: str, players: tuple[str, ...], options: tuple[str, ...], seed: str | None,
        position: Path | None, moderator_key: Path | None, game_id: str | None, deadline_hours: float | None,
        on_expiry: str, remind_hours: float, contact: str) -> None:
    """Create a game: header, set-up, first digests and encrypted secrets.

    \b
    Example:
      pbem new game1 --game atlantis --player red=alice.pub --player blue=bob.pub \\
           --player green=carol.pub --option memory=open
    """
    from pbem.base.yamlio import POSITION_LIMITS, load_strict
    from pbem.pipeline.newgame import create_game, parse_options, parse_player
    seed_bytes = None
    if seed is not None:
        try:
            seed_bytes = bytes.fromhex(seed)
        except ValueError:
            raise UserError("--seed must be hexadecimal, e.g. --seed 00112233445566778899aabbccddeeff") from None
    pos = None
    if position is not None:
        from pbem.base.safefile import read_regular_file
        pos = load_strict(read_regular_file(position, POSITION_LIMITS.max_bytes, "position file"),
                          f"position file {position}", POSITION_LIMITS)
        if not isinstance(pos, dict):
            raise UserError(f"position file {position} must be a YAML mapping (see docs/position-format.md)")
    from pbem.pipeline.deadlines import check_rules
    rules = check_rules(deadline_hours, on_expiry, remind_hours)
    table = create_game(game_dir, game_name, [parse_player(p) for p in players], parse_options(options),
                        seed_bytes, pos, moderator_key, game_id, rules.to_data() if rules else None, contact)
    click.echo(f"created {table.game_id} in {game_dir}")
    click.echo(f"  seed (PRIVATE, back it up): {game_dir / 'moderator' / 'seed'}")
    click.echo(f"  public digest: {game_dir / 'public' / 'digest.txt'}; secrets: {game_dir / 'secrets'}/")
    click.echo("  waiting for: " + ", ".join(sorted({d['player'] for d in table.header['pending']})))


@main.command()
@GAME_DIR
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("sigfile", required=False, type=click.Path(path_type=Path))
@click.option("--receipt", "receipt_out", type=click.Path(path_type=Path), default=None,
              help="also write the moderator-signed receipt to this file (and FILE.sig)")
@friendly
def submit(game_dir: Path, file: Path, sigfile: Path | None, receipt_out: Path | None) -> None:
    """Take one signed move file (SIGFILE defaults to FILE.sig).

    \b
    Example:  pbem submit game1 red-move.yaml --receipt red-receipt-12.yaml
    """
    from pbem.pipeline.submit import read_move_files
    from pbem.pipeline.submit import submit as do_submit
    from pbem.store import receipts
    from pbem.store.gamedir import GameDir
    raw, signature = read_move_files(file, sigfile)
    receipt = do_submit(GameDir(game_dir), raw, signature)
    click.echo("\n".join(receipt.lines()))
    if receipt_out is not None and receipt.signed is not None:
        receipts.write(receipt_out, *receipt.signed)
        click.echo(f"signed receipt: {receipt_out} and {receipt_out}.sig (send both to the player)")


@main.command()
@GAME_DIR
@click.option("--force", is_flag=True, help="reveal although the game is not over (abandons it; needs --reason)")
@click.option("--reason", default="", help="why an unfinished game is abandoned (shown to every player)")
@friendly
def reveal(game_dir: Path, force: bool, reason: str) -> None:
    """Publish the seed in the log once the game is over, so anyone can audit it.
    This closes the game: no move, tick or repair is taken afterwards.

    \b
    Example:  pbem reveal game1 && pbem audit game1
    """
    from pbem.pipeline.moderator import reveal as do_reveal
    from pbem.store.gamedir import GameDir
    entry = do_reveal(GameDir(game_dir), force, reason)
    click.echo(f"revealed the seed as log entry {entry['index']}; anyone can now run `pbem audit {game_dir}`")


@main.command()
@GAME_DIR
@click.option("--receipt", "receipt_paths", multiple=True, type=click.Path(path_type=Path),
              help="a signed receipt you kept (or a folder of them): the log must still hold its entry")
@friendly
def audit(game_dir: Path, receipt_paths: tuple[Path, ...]) -> None:
    """Check the log, every signature and, once the seed is known, replay everything.
    Also check that the log still holds every receipted entry (a rollback, fork or
    rewritten entry fails): the receipts kept with `pbem receipt keep` (in
    ~/.local/share/pbem/receipts/GAME_ID/), and those given with --receipt.
    Only reads: what an interrupted command left is reported, not repaired.

    \b
    Example:  pbem audit game1 --receipt ~/Downloads/receipt-entry12.yaml
    """
    from pbem.pipeline.audit import audit as do_audit
    from pbem.store.gamedir import GameDir
    report = do_audit(GameDir(game_dir), list(receipt_paths))
    for note in report.notes:
        click.echo(f"ok: {note}")
    for problem in report.problems:
        click.echo(f"FAIL: {problem}", err=True)
    if not report.ok:
        raise SystemExit(1)
    click.echo("audit passed")


@main.group()
def receipt() -> None:
    """Moderator-signed receipts: check one, keep them where a rollback cannot take them, or print
    the line OpenSSH needs to check them.

    \b
    Examples:
      pbem receipt verify red-receipt-12.yaml --game game1
      pbem receipt keep game1 --player red
    """


@receipt.command("verify")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--game", "game_dir", type=click.Path(path_type=Path), default=None,
              help="the game folder: check with its moderator key, and that its log holds the entry")
@click.option("--moderator-key", "key_file", type=click.Path(path_type=Path), default=None,
              help="the moderator's public key file, when you have no copy of the game")
@friendly
def receipt_verify(file: Path, game_dir: Path | None, key_file: Path | None) -> None:
    """Check a receipt's signature (FILE.sig beside it) and, with --game, the log.

    \b
    Example:  pbem receipt verify red-receipt-12.yaml --game game1
    """
    from pbem.crypto import keys
    from pbem.store import receipts
    from pbem.store.gamedir import GameDir
    if (game_dir is None) == (key_file is None):
        raise UserError("give --game GAME_DIR or --moderator-key FILE (one of them)")
    body, sig = receipts.read(file)
    if game_dir is not None:
        entries = GameDir(game_dir).entries()
        checked = receipts.verify(body, sig, entries[0]["moderator"]["key"], str(file))
        problem = receipts.check_against_log(checked, entries, str(file))
        if problem:
            raise receipts.ReceiptError(problem)
        click.echo(checked.line())
        click.echo(f"ok: signed by the moderator of {checked.game}, and the log holds entry {checked.entry} unchanged")
        return
    assert key_file is not None
    key = keys.normalise_public_key(key_file.read_text())
    checked = receipts.verify(body, sig, key, str(file))
    click.echo(checked.line())
    click.echo(f"ok: signed by {keys.fingerprint(key)}")


@receipt.command("keep")
@GAME_DIR
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--player", default=None, help="keep only this player's receipts from GAME_DIR/receipts/PLAYER/")
@click.option("--to", "store", type=click.Path(path_type=Path), default=None,
              help="the folder to keep them in (default: $XDG_DATA_HOME/pbem/receipts/GAME_ID, "
                   "i.e. ~/.local/share/pbem/receipts/GAME_ID, which `pbem audit` checks)")
@friendly
def receipt_keep(game_dir: Path, files: tuple[Path, ...], player: str | None, store: Path | None) -> None:
    """Keep the moderator-signed receipts outside the game folder, where a rollback cannot take them.

    Checks each receipt (FILES, with FILE.sig beside each; by default every
    GAME_DIR/receipts/*/*.receipt.yaml of a git clone) against the game's moderator
    key and copies the good ones into your own store.  A kept receipt is never
    overwritten; a different receipt for an entry already receipted is kept too and
    reported (the moderator signed two different entries: a fork).  `pbem audit
    GAME_DIR` checks the log against every receipt in the store.

    \b
    Examples:
      git pull --rebase && pbem receipt keep game1 --player red
      pbem receipt keep game1 ~/Downloads/receipt-entry12.yaml     # a receipt that came by mail
    """
    from pbem.store import receiptstore
    from pbem.store.gamedir import PLAYER_NAME_RE, GameDir
    gd = GameDir(game_dir)
    header = gd.entries()[0]
    if player is not None and not PLAYER_NAME_RE.match(player):
        raise UserError(f"--player {player!r} is not a player's name")
    sources = list(files) or [gd.root / "receipts" / (player or "")]
    if not files and not sources[0].is_dir():
        click.echo(f"no receipts in {sources[0]} yet")
        return
    result = receiptstore.keep(header, sources, store or receiptstore.default_store(str(header.get("id"))))
    for line in result.kept:
        click.echo(f"kept: {line}")
    for line in result.refused:
        click.echo(f"REFUSED: {line}", err=True)
    for line in result.forks:
        click.echo(f"FORK: {line}", err=True)
    click.echo(f"{len(result.kept)} receipt(s) kept in {result.store}"
               + (f" ({result.already} kept already)" if result.already else ""))
    if result.refused or result.forks:
        raise SystemExit(1)


@receipt.command("allowed-signers")
@GAME_DIR
@friendly
def receipt_allowed_signers(game_dir: Path) -> None:
    """Print the allowed_signers line that lets `ssh-keygen -Y verify` check this game's receipts.

    \b
    Example:
      pbem receipt allowed-signers game1 > allowed_signers
      ssh-keygen -Y verify -f allowed_signers -I moderator@GAME_ID -n pbem-receipt \\
          -s receipt.yaml.sig < receipt.yaml
    """
    from pbem.store import receipts
    from pbem.store.gamedir import GameDir
    click.echo(receipts.allowed_signers_line(GameDir(game_dir).entries()[0]))


# --- looking at a game -------------------------------------------------------

def _load_any(game_dir: Path, public_ok: bool = False) -> Any:
    """The moderator's table; on a player's copy (no seed) the public view, where that is enough."""
    from pbem.pipeline.repair import is_moderator_copy, load_repaired
    from pbem.store.gamedir import GameDir
    from pbem.store.table import Table
    gd = GameDir(game_dir)
    if is_moderator_copy(gd):
        return load_repaired(gd)
    if public_ok and gd.seed() is None:
        return Table.load_public(gd)
    return Table.load(gd)


@main.command()
@GAME_DIR
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@friendly
def status(game_dir: Path, as_json: bool) -> None:
    """Whose decision is pending, the turn, and whether the game is over.

    \b
    Example:  pbem status game1 --json
    """
    from pbem.pipeline.status import game_status
    info = game_status(game_dir)
    if as_json:
        click.echo(json.dumps(info, indent=1, sort_keys=True))
        return
    click.echo(f"{info['id']} ({info['game']}), log entry {info['index']}, turn {info['turn']}")
    if info["closed"] is not None:
        click.echo(f"  closed: the seed was revealed at log entry {info['closed']}; `pbem audit` checks everything")
        return
    for d in info["pending"]:
        click.echo(f"  waiting for {d['player']}: {d['kind']}")
    if info["over"]:
        click.echo("  game over; scores: " + (", ".join(f"{p} {s}" for p, s in info["scores"].items())
                                              if info.get("scores") else "hidden until `pbem reveal`"))


@main.command()
@GAME_DIR
@click.option("--as", "viewer", default=None,
              help="show one player's view, with their secrets (the moderator; a player with --key)")
@click.option("--key", type=click.Path(path_type=Path), default=None,
              help="on a player's copy: your SSH private key, to read your secrets (secrets/PLAYER.age) for --as")
@click.option("--format", "fmt", type=click.Choice(["text", "html", "json"]), default="text")
@click.option("--full", is_flag=True, help="the moderator's full position (the position-file format)")
@friendly
def show(game_dir: Path, viewer: str | None, key: Path | None, fmt: str, full: bool) -> None:
    """Render the public view, one player's view, or the full position.

    With --format html, a player's own page has the click-to-move panel when it is their decision.

    \b
    Example:  pbem show game1 --as red --format html > red.html
              pbem show game1 --as red --key ~/.ssh/id_ed25519 --format html > red.html   (a player's copy)
    """
    from pbem.base import yamlio
    from pbem.pipeline.turn import player_table
    from pbem.store.gamedir import GameDir
    from pbem.views.clickpage import SHOW_CAPS
    from pbem.views.outputs import digest_context
    from pbem.views.render.digest import render_digest
    if key is not None and viewer is not None and not full and GameDir(game_dir).seed() is None:
        table = player_table(GameDir(game_dir), viewer, key, None)[0]    # their private view, from their secrets
    else:
        table = _load_any(game_dir, public_ok=viewer is None and not full)
    if viewer is not None and viewer not in table.players:
        raise UserError(f"no player {viewer!r}; players: {', '.join(table.players)}")
    if full:
        pos = table.game.to_position(table.state)
        click.echo(json.dumps(pos, indent=1, sort_keys=True) if fmt == "json" else yamlio.dump(pos), nl=False)
        return
    if fmt == "json":
        click.echo(json.dumps(table.game.view(table.state, viewer), indent=1, sort_keys=True))
        return
    click.echo(render_digest(digest_context(table, viewer, clicks=SHOW_CAPS if fmt == "html" else None), fmt), nl=False)


@main.command()
@GAME_DIR
@click.option("--html", "html_out", required=True, type=click.Path(path_type=Path),
              help="where to write the page (one self-contained HTML file)")
@click.option("--with-hidden", is_flag=True,
              help="before the reveal, on the moderator's copy: add every hidden value (do not share that page)")
@friendly
def replay(game_dir: Path, html_out: Path, with_hidden: bool) -> None:
    """Write one HTML page that steps through the whole game, entry by entry.

    The board, what happened and the scores after each log entry, with a slider
    and the keyboard.  It needs the seed (the moderator's copy, or any copy after
    `pbem reveal`); after the reveal it can show every hidden value.

    \b
    Example:  pbem replay game1 --html game1-replay.html
    """
    from pbem.base.fsutil import write_atomic
    from pbem.store.gamedir import GameDir
    from pbem.views.replay import build_replay, render_replay
    page = render_replay(build_replay(GameDir(game_dir), with_hidden=with_hidden))
    write_atomic(html_out, page.encode("utf-8"), mode=0o644)
    click.echo(f"wrote {html_out} ({len(page.encode('utf-8')) // 1024} KB): open it in a browser")


@main.command()
@GAME_DIR
@click.option("--player", required=True, help="whose legal actions")
@friendly
def legal(game_dir: Path, player: str) -> None:
    """List the actions PLAYER may take now, in move-file syntax.

    \b
    Example:  pbem legal game1 --player red
    """
    from pbem.base import yamlio
    table = _load_any(game_dir, public_ok=True)
    if player not in table.players:
        raise UserError(f"no player {player!r}; players: {', '.join(table.players)}")
    if table.seed is None:
        click.echo("# from the public view: actions with your hand tiles are not listed (see your secrets)")
    from pbem.core.rng import NeedsSecret
    try:
        actions = table.game.legal_actions(table.state, player)
    except NeedsSecret as exc:
        click.echo(f"# the choices at this step depend on hidden information ({exc}); your decrypted "
                   "secrets and the digest's move template show your own options")
        return
    if not actions:
        click.echo(f"# {player} has no decision to make now")
    for action in actions:
        click.echo(f"- {yamlio.dump_flow(action)}")


@main.command()
@GAME_DIR
@click.option("--player", required=True, help="who moves")
@click.option("--bot", type=click.Choice(["random", "greedy"]), default="random",
              help="which bot writes the actions (greedy: the game's hints, e.g. head for the safe isles)")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="where to write the (unsigned) move file")
@click.option("--bot-seed", default="pbem-bot", help="the bot's own seed (its choices are not secret)")
@friendly
def move(game_dir: Path, player: str, bot: str, out: Path, bot_seed: str) -> None:
    """Let a bot write an unsigned move file for PLAYER's pending decisions.

    \b
    Example:  pbem move game1 --player red --bot random --out red.yaml && pbem sign red.yaml --key red_key
    """
    from pbem.base.fsutil import write_atomic
    from pbem.core.rng import Rng
    from pbem.pipeline.botmoves import bot_move_file
    from pbem.store.movefile import render_move
    table = _load_any(game_dir, public_ok=True)
    if player not in table.players:
        raise UserError(f"no player {player!r}; players: {', '.join(table.players)}")
    index = table.last["index"] + 1
    mv = bot_move_file(table, player, Rng(bot_seed.encode(), f"bot/{table.game_id}/{index}/{player}"), bot)
    if not mv.actions:
        from pbem.core.game import pending_players
        if player in pending_players(table.game, table.state):
            raise UserError(f"{player} has a decision to make, but its choices depend on hidden information the "
                            "public files do not hold (your tiles or cards): write the move from the template in your "
                            "decrypted digest, which lists your own options")
        raise UserError(f"{player} has no decision to make now")
    write_atomic(out, render_move(mv, f"move by the {bot} bot for {player}"))
    click.echo(f"wrote {out} ({len(mv.actions)} action(s)); sign it with `pbem sign {out} --key KEY`")


@main.command()
@GAME_DIR
@click.argument("file", type=click.Path(path_type=Path))
@friendly
def check(game_dir: Path, file: Path) -> None:
    """Preview a move file against the public state, without submitting it.

    Works on a player's copy of the game (no seed needed): it checks the
    format, the game and log position, whose turn it is, and every action up
    to the first die roll or hidden tile; the signature is checked too when
    FILE.sig exists.

    \b
    Example:  pbem check game1 move.yaml
    """
    from pbem.pipeline.preview import preview
    for line in preview(game_dir, file):
        click.echo(line)


@main.command()
@GAME_DIR
@click.option("--player", required=True, help="who you are in the game")
@click.option("--key", type=click.Path(path_type=Path), default=None,
              help="your SSH private key: reads your secrets (so your own tiles are choices) and signs the move")
@click.option("--secrets", "secrets_file", type=click.Path(path_type=Path), default=None,
              help="your secrets file (.age from the digest mail, or already decrypted), if not in GAME_DIR/secrets/")
@click.option("--out", "out", default="move.yaml", type=click.Path(path_type=Path), help="where to write the move")
@click.option("--mail", "by_mail", is_flag=True, help="send move and signature to the moderator with your mail command")
@click.option("--to", "to", default="", help="the moderator's address (default: the game's contact address)")
@click.option("--from", "sender", default="", help="your address, for --mail")
@click.option("--mail-command", default="sendmail -t -oi", help="how your machine sends mail (e.g. 'msmtp -t')")
@click.option("--json", "as_json", is_flag=True, help="for scripts: JSON lines out, one answer per line in")
@friendly
def turn(game_dir: Path, player: str, key: Path | None, secrets_file: Path | None, out: Path, by_mail: bool,
         to: str, sender: str, mail_command: str, as_json: bool) -> None:
    """Compose your turn by picking numbered choices; it is checked, written to move.yaml and
    signed with ssh-keygen (and mailed with --mail). Works on a player's copy of the game.

    \b
    Example:  pbem turn game1 --player red --key ~/.ssh/id_ed25519
    """
    from pbem.pipeline.turn import Io, run_turn
    run_turn(game_dir, player, key, secrets_file, out, Io(sys.stdout, sys.stdin, as_json),
             by_mail, to, sender, mail_command)


@main.command()
@click.option("--game", "game_name", required=True, help="which game (`pbem new --help` lists them)")
@click.option("--players", "n_players", default=4, help="number of players")
@click.option("--games", "n_games", default=10, help="how many games")
@click.option("--seed", default="simulate", help="base seed (text)")
@click.option("--option", "options", multiple=True, help="NAME=VALUE game option")
@click.option("--bot", type=click.Choice(["random", "greedy"]), default="random", help="which bot plays")
@friendly
def simulate(game_name: str, n_players: int, n_games: int, seed: str, options: tuple[str, ...], bot: str) -> None:
    """Play whole games in memory with random bots and print the results.

    \b
    Example:  pbem simulate --game atlantis --players 4 --games 100
    """
    from pbem.core.bots import simulate as sim
    from pbem.core.records import OptionError
    from pbem.core.registry import load_game
    from pbem.pipeline.newgame import parse_options
    game = load_game(game_name)
    opts = parse_options(options)
    names = ["red", "blue", "green", "yellow", "purple", "orange"][:n_players]
    try:
        opts = game.resolve_options(opts, names)
        game.check_options(opts, names)
    except ValueError as exc:   # a game's contract: check_options raises ValueError (OptionError)
        raise OptionError(str(exc)) from None
    for i in range(n_games):
        state, steps = sim(game, names, opts, f"{seed}/{i}".encode(), bot=bot)
        result = game.result(state)
        assert result is not None
        click.echo(f"game {i}: {steps} actions; scores " + ", ".join(f"{p} {s}" for p, s in result.scores.items())
                   + "; winner(s) " + ", ".join(result.winners))


@main.command()
@click.option("--dir", "directory", default="demo-game", type=click.Path(path_type=Path), help="where to play")
@click.option("--players", "n_players", default=4, help="number of players (the game's limits apply)")
@click.option("--game", "game_name", default=None, help="which game (default: the first known, by name)")
@click.option("--seed", default=None, help="seed as hex (default: random)")
@click.option("--bot", type=click.Choice(["random", "greedy"]), default="greedy", help="which bot plays")
@friendly
def demo(directory: Path, n_players: int, game_name: str | None, seed: str | None, bot: str) -> None:
    """Play a whole game with bots through the real pipeline: keys, signed
    move files, submit, digests, secrets, reveal and audit.

    \b
    Example:  pbem demo --dir /tmp/demo --game space-swarm --players 3
    """
    from pbem.core.registry import game_names
    from pbem.pipeline.demo import run_demo
    run_demo(directory, n_players, bytes.fromhex(seed) if seed else None, echo=click.echo,
             game_name=game_name or game_names()[0], bot=bot)


# --- moderator repairs and deadlines --------------------------------------------

@main.group()
def mod() -> None:
    """Moderator actions: signed log entries with a reason, shown in every digest.

    \b
    Example:  pbem mod pause game1 --reason "holiday until Monday"
    """


REASON = click.option("--reason", required=True, help="why (shown to every player)")


def _moderate(game_dir: Path, action: str, reason: str, **fields: Any) -> None:
    from pbem.pipeline.moderator import moderate
    from pbem.store.gamedir import GameDir
    entry = moderate(GameDir(game_dir), action, reason, **fields)
    click.echo(f"log entry {entry['index']}: {action} - {reason}")


@mod.command()
@GAME_DIR
@REASON
@friendly
def note(game_dir: Path, reason: str) -> None:
    """A signed note to every player, shown in the digests; changes nothing in the game
    (the only entry taken after the reveal).

    \b
    Example:  pbem mod note game1 --reason "congratulations, blue; thanks for playing"
    """
    _moderate(game_dir, "note", reason)


@mod.command()
@GAME_DIR
@REASON
@friendly
def pause(game_dir: Path, reason: str) -> None:
    """Pause the game: moves are refused until `pbem mod resume`.

    \b
    Example:  pbem mod pause game1 --reason "moderator away until 3 May"
    """
    _moderate(game_dir, "pause", reason)


@mod.command()
@GAME_DIR
@REASON
@friendly
def resume(game_dir: Path, reason: str) -> None:
    """Resume a paused game.

    \b
    Example:  pbem mod resume game1 --reason "back"
    """
    _moderate(game_dir, "resume", reason)


@mod.command()
@GAME_DIR
@click.option("--player", required=True)
@click.option("--hours", type=float, required=True, help="extra hours for the player's pending decision")
@REASON
@friendly
def extend(game_dir: Path, player: str, hours: float, reason: str) -> None:
    """Give a player more time for their pending decision.

    \b
    Example:  pbem mod extend game1 --player red --hours 48 --reason "travelling"
    """
    _moderate(game_dir, "extend", reason, player=player, hours=hours)


@mod.command("replace-key")
@GAME_DIR
@click.option("--player", required=True)
@click.option("--key", "key_file", required=True, type=click.Path(path_type=Path), help="the new public key file")
@REASON
@friendly
def replace_key(game_dir: Path, player: str, key_file: Path, reason: str) -> None:
    """Replace a player's key (a lost key): later moves are checked against the new one.

    \b
    Example:  pbem mod replace-key game1 --player red --key alice-new.pub --reason "laptop stolen"
    """
    _moderate(game_dir, "replace-key", reason, player=player, new_key=key_file.read_text())


@mod.command()
@GAME_DIR
@click.option("--player", required=True)
@click.option("--bot", "to_bot", is_flag=True, help="a random bot plays the seat from now on")
@click.option("--key", "key_file", type=click.Path(path_type=Path), default=None, help="a new player's public key")
@REASON
@friendly
def seat(game_dir: Path, player: str, to_bot: bool, key_file: Path | None, reason: str) -> None:
    """Hand a seat to a bot or to a new player.

    \b
    Example:  pbem mod seat game1 --player blue --bot --reason "bob left the game"
    """
    _moderate(game_dir, "seat", reason, player=player, to="bot" if to_bot else "player",
              new_key=key_file.read_text() if key_file else None)


@mod.command()
@GAME_DIR
@REASON
@friendly
def undo(game_dir: Path, reason: str) -> None:
    """Undo the last move; it stays in the log, marked undone.

    \b
    Example:  pbem mod undo game1 --reason "red's move was submitted by mistake"
    """
    _moderate(game_dir, "undo", reason)


@main.command()
@GAME_DIR
@click.option("--now", "now_iso", default=None, help="pretend it is this UTC time (ISO 8601), for testing")
@click.option("--mail", "by_mail", is_flag=True, help="also email the reminders (settings: docs/email.md)")
@friendly
def tick(game_dir: Path, now_iso: str | None, by_mail: bool) -> None:
    """Apply deadlines: remind before, let a bot decide after (per the game's rules),
    and let bot-held seats move. Run it from cron.

    \b
    Example:  */15 * * * *  pbem tick /srv/games/game1
    """
    import datetime as dt

    from pbem.pipeline.deadlines import tick as do_tick
    from pbem.store.gamedir import GameDir
    from pbem.transport.git.clock import restore_clock_if_shared
    now = dt.datetime.fromisoformat(now_iso).timestamp() if now_iso else None
    gd = GameDir(game_dir)
    gd.require()
    restored = restore_clock_if_shared(gd)          # a fresh clone of a git game: entry times from the history
    if restored:
        click.echo(f"took the times of {len(restored)} log entries from the git history (moderator/clock.json)")
    report = do_tick(gd, now)
    for entry in report.entries:
        click.echo(f"log entry {entry['index']}: {entry['action']} for {entry['player']} - {entry['reason']}")
    for d in report.reminders:
        due = dt.datetime.fromtimestamp(d.due, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        click.echo(f"reminder: {d.player}'s decision is due {due}")
    if by_mail and report.reminders:
        from pbem.transport.mail.remind import send_reminders
        for address in send_reminders(GameDir(game_dir), report.reminders):
            click.echo(f"  mailed the reminder to {address}")
    if not report.entries and not report.reminders:
        click.echo("nothing to do")
    elif report.entries and restored is not None:
        click.echo("this game is shared through git: commit and push these changes, or let "
                   "`pbem git sync --tick` do it next time")


def _add_transport_groups() -> None:
    from pbem.cli.git import git
    from pbem.cli.mail import mail
    main.add_command(git)
    main.add_command(mail)


_add_transport_groups()

if __name__ == "__main__":  # pragma: no cover
    main()
