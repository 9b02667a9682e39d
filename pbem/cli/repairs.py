"""`pbem mod ...`: the moderator's signed log entries (notes, pause, more time, a new key, a
seat handed on, an undo)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pbem.base.errors import PbemError
from pbem.cli.common import GAME_DIR


@click.group()
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
def pause(game_dir: Path, reason: str) -> None:
    """Pause the game: moves are refused until `pbem mod resume`.

    \b
    Example:  pbem mod pause game1 --reason "moderator away until 3 May"
    """
    _moderate(game_dir, "pause", reason)


@mod.command()
@GAME_DIR
@REASON
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
def extend(game_dir: Path, player: str, hours: float, reason: str) -> None:
    """Give a player more time for their pending decision.

    \b
    Example:  pbem mod extend game1 --player red --hours 48 --reason "travelling"
    """
    _moderate(game_dir, "extend", reason, player=player, hours=hours)


@mod.command()
@GAME_DIR
@click.option("--player", required=True)
@click.option("--days", type=float, required=True, help="days the player's clock stops, from now")
@REASON
def leave(game_dir: Path, player: str, days: float, reason: str) -> None:
    """Leave: stop a player's clock for some days (within the days a year the game gives,
    `pbem new --leave-days`); shown to everyone with the reason.

    \b
    Example:  pbem mod leave game1 --player red --days 7 --reason "holiday"
    """
    _moderate(game_dir, "leave", reason, player=player, days=days)


@mod.command()
@GAME_DIR
@click.option("--player", required=True)
@click.option("--daily", "cadence", flag_value="daily", help="one digest a day at most, with everything since the last")
@click.option("--game", "cadence", flag_value="game", help="back to the game's own cadence (mail settings)")
@REASON
def cadence(game_dir: Path, player: str, cadence: str | None, reason: str) -> None:
    """A player's mail cadence, as they asked: one digest a day, or the game's own; public in the log.

    \b
    Example:  pbem mod cadence game1 --player red --daily --reason "asked for one mail a day"
    """
    if cadence is None:
        raise PbemError("say --daily or --game")
    _moderate(game_dir, "cadence", reason, player=player, cadence=cadence)


@mod.command("replace-key")
@GAME_DIR
@click.option("--player", required=True)
@click.option("--key", "key_file", required=True, type=click.Path(path_type=Path), help="the new public key file")
@REASON
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
def seat(game_dir: Path, player: str, to_bot: bool, key_file: Path | None, reason: str) -> None:
    """Hand a seat to a bot or to a new player.

    \b
    Example:  pbem mod seat game1 --player blue --bot --reason "bob left the game"
    """
    _moderate(game_dir, "seat", reason, player=player, to="bot" if to_bot else "player",
              new_key=key_file.read_text() if key_file else None)


@mod.command("return")
@GAME_DIR
@click.option("--player", required=True)
@REASON
def return_seat(game_dir: Path, player: str, reason: str) -> None:
    """End a player's civil disorder: their seat is theirs again, and its decisions wait for them
    (deadlines as for everyone). A move they send while in disorder does the same by itself.

    \b
    Example:  pbem mod return game1 --player red --reason "red wrote: back from hospital"
    """
    _moderate(game_dir, "return", reason, player=player)


@mod.command()
@GAME_DIR
@REASON
def undo(game_dir: Path, reason: str) -> None:
    """Undo the last move; it stays in the log, marked undone.

    \b
    Example:  pbem mod undo game1 --reason "red's move was submitted by mistake"
    """
    _moderate(game_dir, "undo", reason)


#: the commands this module adds to `pbem`
COMMANDS = [mod]
