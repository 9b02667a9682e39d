"""A player's commands: `pbem turn`, `check`, and `move --bot`."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from pbem.base.errors import PbemError
from pbem.cli.common import GAME_DIR, load_table


@click.command()
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


@click.command()
@GAME_DIR
@click.argument("file", type=click.Path(path_type=Path))
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


@click.command()
@GAME_DIR
@click.option("--player", required=True, help="who moves")
@click.option("--bot", type=click.Choice(["random", "greedy"]), default="random",
              help="which bot writes the actions (greedy: the game's hints, e.g. head for the safe isles)")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="where to write the (unsigned) move file")
@click.option("--bot-seed", default="pbem-bot", help="the bot's own seed (its choices are not secret)")
@click.option("--key", type=click.Path(path_type=Path), default=None,
              help="on a player's copy: your SSH private key, to read your secrets (so the bot may play your own "
                   "tiles or cards)")
def move(game_dir: Path, player: str, bot: str, out: Path, bot_seed: str, key: Path | None) -> None:
    """Let a bot write an unsigned move file for PLAYER's pending decisions.

    \b
    Example:  pbem move game1 --player red --bot random --out red.yaml && pbem sign red.yaml --key red_key
              pbem move game1 --player red --key ~/.ssh/id_ed25519 --out red.yaml   (a player's copy)
    """
    from pbem.base.fsutil import write_atomic
    from pbem.core.rng import Rng
    from pbem.pipeline.botmoves import bot_move_file
    from pbem.pipeline.turn import player_table
    from pbem.store.gamedir import GameDir
    from pbem.store.movefile import render_move
    if key is not None and GameDir(game_dir).seed() is None:
        table = player_table(GameDir(game_dir), player, key, None)[0]    # their own view, from their secrets
    else:
        table = load_table(game_dir, public_ok=True)
    if player not in table.players:
        raise PbemError(f"no player {player!r}; players: {', '.join(table.players)}")
    index = table.last["index"] + 1
    mv = bot_move_file(table, player, Rng(bot_seed.encode(), f"bot/{table.game_id}/{index}/{player}"), bot)
    if not mv.actions:
        from pbem.core.game import pending_players
        if player in pending_players(table.game, table.state):
            raise PbemError(f"{player} has a decision to make, but its choices depend on hidden information the "
                            "public files do not hold (your tiles or cards): give --key to read your secrets, or "
                            "write the move from the template in your decrypted digest")
        from pbem.store.missedturns import disorder_note
        note = disorder_note(table.entries, player)
        raise PbemError(f"{player} has no decision to make now" + (f": {note}" if note else ""))
    write_atomic(out, render_move(mv, f"move by the {bot} bot for {player}"))
    click.echo(f"wrote {out} ({len(mv.actions)} action(s)); sign it with `pbem sign {out} --key KEY`")


#: the commands this module adds to `pbem`
COMMANDS = [turn, check, move]
