"""`pbem mail ...`: the turn exchange by e-mail (settings in GAME_DIR/moderator/mail.toml)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pbem.cli.common import GAME_DIR


def _echo(report: Any) -> None:
    for line in report.lines:
        click.echo(line)


def _not_hosted(game_dir: Path) -> None:
    """Reading the mailbox for one game of a host would take the other games' mail too: refused."""
    from pbem.base.errors import PbemError
    from pbem.transport.mail.hostconfig import is_host_folder
    parent = game_dir.resolve().parent
    if is_host_folder(parent):
        raise PbemError(f"{game_dir} is one of the games of the host {parent} (pbem-host.toml), whose mailbox "
                        f"all of them share: run `pbem mail run {parent}`")


def _setup(game_dir: Path) -> tuple[Any, Any]:
    from pbem.store.gamedir import GameDir
    from pbem.transport.mail.hostconfig import load_game_config
    gd = GameDir(game_dir)
    gd.require()
    return gd, load_game_config(gd)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def mail() -> None:
    """Exchange turns by e-mail: send digests, fetch signed moves, reply with receipts.

    Settings (server, login, the players' addresses) are read from
    GAME_DIR/moderator/mail.toml (or mail.yaml); passwords come from
    PBEM_SMTP_PASSWORD and PBEM_IMAP_PASSWORD.  See docs/email.md.

    \b
    Example (crontab, every 5 minutes; the tick applies the game's deadlines, if it has any):
      */5 * * * *  cd /srv/pbem && (pbem mail run game1 && pbem tick game1 --mail) >> game1-mail.log 2>&1
    """


@mail.command()
@GAME_DIR
@click.option("--player", "players", multiple=True, help="send only to this player (repeatable)")
@click.option("--if-changed", is_flag=True, help="skip players who already have the digest of the last log entry")
def send(game_dir: Path, players: tuple[str, ...], if_changed: bool) -> None:
    """Mail each player the current digest: text, HTML with a PNG board, the SVG
    board and their own encrypted secrets.  One message per player.

    \b
    Example:  PBEM_SMTP_PASSWORD=... pbem mail send game1
    """
    from pbem.transport.mail.cycle import send_digests
    gd, cfg = _setup(game_dir)
    _echo(send_digests(gd, cfg, players, only_changed=if_changed))


@mail.command()
@GAME_DIR
def fetch(game_dir: Path) -> None:
    """Read new messages (IMAP or Maildir), submit the signed moves in them, oldest
    first, and reply to each sender with a receipt.  Each message is handled once;
    messages without a move are left alone and listed.

    \b
    Example:  PBEM_IMAP_PASSWORD=... PBEM_SMTP_PASSWORD=... pbem mail fetch game1
    """
    from pbem.transport.mail.cycle import fetch_moves
    _not_hosted(game_dir)
    gd, cfg = _setup(game_dir)
    _echo(fetch_moves(gd, cfg))


@mail.command()
@click.argument("game_dir", metavar="GAME_DIR|HOST_DIR", type=click.Path(path_type=Path))
@click.option("--verbose", "-v", is_flag=True, help="also say so when there was nothing to do")
@click.option("--no-tick", "no_tick", is_flag=True, help="with a folder of games: do not apply the games' deadlines "
              "(by default each game is ticked, as `pbem tick --mail` does, when a deadline or reminder may be due)")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None,
              help="with a folder of games: how many games are worked on at once, each in a worker process "
                   "(default: the host's `jobs` setting, else the usable CPUs, at most 4)")
def run(game_dir: Path, verbose: bool, no_tick: bool, jobs: int | None) -> None:
    """One cycle for cron: fetch and submit moves, reply with receipts, then send
    the new digest to every player who does not have it yet.  Prints nothing
    when nothing happened (so cron sends no mail), unless --verbose.

    Given a folder of games with its host settings (HOST_DIR/pbem-host.toml: one
    mailbox, one SMTP login), one cycle serves every game in it: each message
    goes to the game its signed move names, each game's deadlines are applied
    (`pbem tick --mail`), and the report has a line per game (docs/moderating.md,
    "Hosting many games").

    \b
    Example:  */5 * * * *  cd /srv/pbem && (pbem mail run game1 && pbem tick game1 --mail) >> game1-mail.log 2>&1
              */5 * * * *  pbem mail run /srv/pbem/games >> /srv/pbem/host.log 2>&1
    """
    from pbem.transport.mail.hostconfig import is_host_folder
    if is_host_folder(game_dir) and not (game_dir / "log.yaml").exists():
        _host_run(game_dir, verbose, not no_tick, jobs)
        return
    if not (game_dir / "log.yaml").is_file():
        from pbem.base.errors import PbemError
        raise PbemError(f"{game_dir} is neither a game (no log.yaml) nor a folder of games (no pbem-host.toml); "
                        "see docs/email.md and docs/moderating.md")
    from pbem.transport.mail.cycle import run_cycle
    _not_hosted(game_dir)
    gd, cfg = _setup(game_dir)
    report = run_cycle(gd, cfg)
    if verbose or not report.idle:
        _echo(report)


def _host_run(folder: Path, verbose: bool, ticks: bool, jobs: int | None) -> None:
    from pbem.transport.mail.host import run_host
    report = run_host(folder, ticks=ticks, jobs=jobs)
    _echo(report)
    if verbose:
        click.echo(f"{report.games} game(s); {len(report.looked_at)} looked at (mail, or a log that moved); "
                   f"{len(report.failed)} not run; {report.accepted} move(s) accepted, {report.rejected} refused, "
                   f"{report.sent} digest(s) sent")
