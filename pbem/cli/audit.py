"""`pbem audit` and `pbem receipt ...`: checking a game and the moderator's receipts."""
from __future__ import annotations

from pathlib import Path

import click

from pbem.base.errors import PbemError
from pbem.cli.common import GAME_DIR


@click.command()
@GAME_DIR
@click.option("--receipt", "receipt_paths", multiple=True, type=click.Path(path_type=Path),
              help="a signed receipt you kept (or a folder of them): the log must still hold its entry")
@click.option("--log-only", is_flag=True,
              help="check the log, signatures, moves and replay, not the files made from the log (digests, "
                   "secrets): for a game an older pbem rendered, or a copy with only log.yaml and moves/")
def audit(game_dir: Path, receipt_paths: tuple[Path, ...], log_only: bool) -> None:
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
    report = do_audit(GameDir(game_dir), list(receipt_paths), derived=not log_only)
    for note in report.notes:
        click.echo(f"ok: {note}")
    for problem in report.problems:
        click.echo(f"FAIL: {problem}", err=True)
    if not report.ok:
        raise SystemExit(1)
    click.echo("audit passed")


@click.group()
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
def receipt_verify(file: Path, game_dir: Path | None, key_file: Path | None) -> None:
    """Check a receipt's signature (FILE.sig beside it) and, with --game, the log.

    \b
    Example:  pbem receipt verify red-receipt-12.yaml --game game1
    """
    from pbem.crypto import keys
    from pbem.store import receipts
    from pbem.store.gamedir import GameDir
    if (game_dir is None) == (key_file is None):
        raise PbemError("give --game GAME_DIR or --moderator-key FILE (one of them)")
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
        raise PbemError(f"--player {player!r} is not a player's name")
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


#: the commands this module adds to `pbem`
COMMANDS = [audit, receipt]
