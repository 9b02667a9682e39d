"""Every accepted combination of the Space Attack challenge options, played to the end by bots in memory.

The options that change the game's course (the map, the Reactors, challenges #1 and #2, evolution,
blue tiles) are crossed completely; the others (colours, pods, memory, reactions, enclosed) are
rotated through, and the player count runs from 2 to 6.  For every game: the option check accepts
or refuses it in one line, the game ends, no piece appears or vanishes, and the public view hides
every crew value and tile back until the end.  Every 5th combination is replayed to check
determinism.
"""
from __future__ import annotations

import itertools
from typing import Any

import pytest
from atlantis_positions import piece_counts

from pbem.core.bots import CHOOSERS
from pbem.core.draws import setup_rng
from pbem.core.engine import action_rng
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import OPTION_REFUSALS

VARIANTS = {
    "map": ["standard", "starship-titanus", "jacobs-ladder", "asteroids"],
    "reactors": ["auto", "recommended", "random"],
    "overpopulated": ["no", "yes"],
    "end": ["core-breach", "to-the-last"],
    "evolve_attack": ["appear", "fighters-only"],
    "blue_tiles": ["one", "any"],
}
BASE_ROTATION = [
    {}, {"memory": "open"}, {"reactions": "ask"}, {"reactions": "never", "enclosed": "station"},
    {"pods": "per-colour"}, {"colours": "1"}, {"colours": "2"},
]
NAMES = ["red", "blue", "green", "yellow", "p5", "p6"]
SLICES = 6


def hides_everything(game: Any, state: Any) -> None:
    view = game.view(state, None)
    assert all(e["value"] is None for e in view["explorers"].values())
    assert all(t["back"] is None for t in view["tiles"].values() if t["where"] in ("island", "hand"))


def play(game: Any, players: list[str], options: dict[str, str], seed: bytes, bot: str) -> tuple[Any, int]:
    state = game.setup(players, game.full_options(options), setup_rng(seed, "matrix"))
    start = piece_counts(game.to_position(state))
    choose, rng = CHOOSERS[bot], Rng(seed, "bot")
    steps = 0
    while game.result(state) is None:
        pending = game.pending(state)
        assert pending and steps < 10000, f"stuck after {steps} actions"
        player = pending[0].player
        game.apply(state, player, choose(game, state, player, rng), action_rng(seed, "m", steps, 0))
        steps += 1
        if steps % 40 == 0:
            assert piece_counts(game.to_position(state)) == start
            if game.result(state) is None:
                hides_everything(game, state)
    assert piece_counts(game.to_position(state)) == start
    return state, steps


def combinations():
    keys = list(VARIANTS)
    for i, values in enumerate(itertools.product(*(VARIANTS[k] for k in keys))):
        options = dict(zip(keys, values))
        options.update(BASE_ROTATION[i % len(BASE_ROTATION)])
        yield i, options, NAMES[: 2 + i % 5]


def accepted(game: Any, options: dict[str, str], players: list[str]) -> bool:
    try:
        game.check_options(options, players)
    except OPTION_REFUSALS as exc:
        assert "\n" not in str(exc) and str(exc)
        return False
    return True


def test_most_combinations_are_accepted_and_the_impossible_ones_refused():
    game = load_game("space-attack")
    verdicts = [accepted(game, options, players) for _i, options, players in combinations()]
    assert verdicts.count(True) > 100 and verdicts.count(False) > 10


@pytest.mark.slow(seconds=8)
@pytest.mark.parametrize("part", range(SLICES), ids=[f"slice{k}of{SLICES}" for k in range(SLICES)])
def test_every_combination_plays_to_the_end(part):
    game = load_game("space-attack")
    played = 0
    for i, options, players in combinations():
        if (i // 2) % SLICES != part or not accepted(game, options, players):
            continue
        seed = f"sa-matrix-{i}".encode()
        bot = "greedy" if i % 2 else "random"
        state, steps = play(game, players, options, seed, bot)
        assert game.result(state) is not None
        if i % 5 == 0:
            again, steps_again = play(game, players, options, seed, bot)
            assert steps_again == steps and game.to_position(again) == game.to_position(state)
        played += 1
    assert played > 100 // SLICES
