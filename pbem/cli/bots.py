"""Games played by bots: `pbem simulate` (in memory) and `pbem demo` (through the real pipeline)."""
from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option("--game", "game_name", required=True, help="which game: atlantis, atlantis-1986, space-attack or space-swarm (and any installed plug-in game)")
@click.option("--players", "n_players", default=4, help="number of players")
@click.option("--games", "n_games", default=10, help="how many games")
@click.option("--seed", default="simulate", help="base seed (text)")
@click.option("--option", "options", multiple=True, help="NAME=VALUE game option")
@click.option("--bot", type=click.Choice(["random", "greedy"]), default="random", help="which bot plays")
def simulate(game_name: str, n_players: int, n_games: int, seed: str, options: tuple[str, ...], bot: str) -> None:
    """Play whole games in memory with random bots and print the results.

    \b
    Example:  pbem simulate --game atlantis --players 4 --games 100
    """
    from pbem.core.bots import simulate as sim
    from pbem.core.records import OPTION_REFUSALS, OptionError
    from pbem.core.registry import load_game
    from pbem.pipeline.newgame import parse_options
    game = load_game(game_name)
    opts = parse_options(options)
    names = ["red", "blue", "green", "yellow", "purple", "orange"][:n_players]
    try:
        opts = game.resolve_options(opts, names)
        game.check_options(opts, names)
    except OPTION_REFUSALS as exc:     # a game refusing its options: one line, as an OptionError
        raise OptionError(str(exc)) from None
    for i in range(n_games):
        state, steps = sim(game, names, opts, f"{seed}/{i}".encode(), bot=bot)
        result = game.result(state)
        assert result is not None
        click.echo(f"game {i}: {steps} actions; scores " + ", ".join(f"{p} {s}" for p, s in result.scores.items())
                   + "; winner(s) " + ", ".join(result.winners))


@click.command()
@click.option("--dir", "directory", default="demo-game", type=click.Path(path_type=Path), help="where to play")
@click.option("--players", "n_players", default=4, help="number of players (the game's limits apply)")
@click.option("--game", "game_name", default=None, help="which game (default: the first known, by name)")
@click.option("--seed", default=None, help="seed as hex (default: random)")
@click.option("--bot", type=click.Choice(["random", "greedy"]), default="greedy", help="which bot plays")
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


#: the commands this module adds to `pbem`
COMMANDS = [simulate, demo]
