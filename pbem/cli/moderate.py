"""The moderator's commands: `pbem new`, `submit`, `reveal`, `tick`."""
from __future__ import annotations

from pathlib import Path

import click

from pbem.base.errors import PbemError
from pbem.cli.common import GAME_DIR


@click.command()
@GAME_DIR
@click.option("--game", "game_name", required=True, help="which game: atlantis, atlantis-1986, space-attack or space-swarm (and any installed plug-in game)")
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
@click.option("--disorder-after", type=int, default=0,
              help="civil disorder after this many missed deadlines in a row: a bot decides for the seat until "
                   "the player moves again (default 0: never)")
@click.option("--leave-days", type=float, default=0,
              help="days of leave per player per year that stop their clock (`pbem mod leave`; default 0: none)")
@click.option("--contact", default="", help="the address players mail moves to (public; `pbem turn --mail` uses it)")
def new(game_dir: Path, game_name: str, players: tuple[str, ...], options: tuple[str, ...], seed: str | None,
        position: Path | None, moderator_key: Path | None, game_id: str | None, deadline_hours: float | None,
        on_expiry: str, remind_hours: float, disorder_after: int, leave_days: float, contact: str) -> None:
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
            raise PbemError("--seed must be hexadecimal, e.g. --seed 00112233445566778899aabbccddeeff") from None
    pos = None
    if position is not None:
        from pbem.base.safefile import read_regular_file
        pos = load_strict(read_regular_file(position, POSITION_LIMITS.max_bytes, "position file"),
                          f"position file {position}", POSITION_LIMITS)
        if not isinstance(pos, dict):
            raise PbemError(f"position file {position} must be a YAML mapping (see docs/position-format.md)")
    from pbem.store.missedturns import check_rules
    rules = check_rules(deadline_hours, on_expiry, remind_hours, disorder_after, leave_days)
    table = create_game(game_dir, game_name, [parse_player(p) for p in players], parse_options(options),
                        seed_bytes, pos, moderator_key, game_id, rules.to_data() if rules else None, contact)
    click.echo(f"created {table.game_id} in {game_dir}")
    click.echo(f"  seed (PRIVATE, back it up): {game_dir / 'moderator' / 'seed'}")
    click.echo(f"  public digest: {game_dir / 'public' / 'digest.txt'}; secrets: {game_dir / 'secrets'}/")
    click.echo("  waiting for: " + ", ".join(sorted({d['player'] for d in table.header['pending']})))


@click.command()
@GAME_DIR
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("sigfile", required=False, type=click.Path(path_type=Path))
@click.option("--receipt", "receipt_out", type=click.Path(path_type=Path), default=None,
              help="also write the moderator-signed receipt to this file (and FILE.sig)")
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


@click.command()
@GAME_DIR
@click.option("--force", is_flag=True, help="reveal although the game is not over (abandons it; needs --reason)")
@click.option("--reason", default="", help="why an unfinished game is abandoned (shown to every player)")
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


@click.command()
@GAME_DIR
@click.option("--now", "now_iso", default=None, help="pretend it is this UTC time (ISO 8601), for testing")
@click.option("--mail", "by_mail", is_flag=True, help="also email the reminders (settings: docs/email.md)")
@click.option("--verbose", is_flag=True, help="also say when there is nothing to do (by default a quiet run "
                                               "prints nothing, so cron mails nothing)")
def tick(game_dir: Path, now_iso: str | None, by_mail: bool, verbose: bool) -> None:
    """Apply deadlines: remind before, let a bot decide after (per the game's rules),
    and let bot-held seats move. Run it from cron: it prints nothing when nothing
    happened, and a closed game is nothing to do (exit 0).

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
    ready = None
    if by_mail:            # a reminder never overtakes the digest it reminds of
        from pbem.transport.mail.remind import digest_went_out
        ready = digest_went_out(gd)
    report = do_tick(gd, now, ready=ready)
    if report.closed is not None:
        if verbose:
            click.echo(f"nothing to do: the game is closed (the seed was revealed at log entry {report.closed}); "
                       "you may remove it from cron")
        return
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
        if verbose:
            last = next((e["pending"] for e in reversed(gd.entries()) if "pending" in e), None)
            over = last == []                    # nobody has a decision: the game is over, not yet revealed
            click.echo("nothing to do" + (f": the game is over; `pbem reveal {game_dir}` publishes the seed so "
                                          "that anyone can audit it" if over else ""))
    elif report.entries and restored is not None:
        click.echo("this game is shared through git: commit and push these changes, or let "
                   "`pbem git sync --tick` do it next time")


#: the commands this module adds to `pbem`
COMMANDS = [new, submit, reveal, tick]
