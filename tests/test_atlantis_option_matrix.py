"""Every accepted combination of the Atlantis variant options, played to the end by bots in memory.

The variant options (challenges, 5-6 players, dolphins, squid, tie-breaks) are
crossed completely; the base game's own options are rotated through so that
each value appears many times.  For every game: `pbem new` accepts exactly the
combinations `check_options` accepts, the game ends, no piece appears or
vanishes, and the public view hides every explorer value and tile back until
the end.  Every 5th combination is replayed to check determinism.
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
    "overpopulated": ["no", "yes"],
    "end": ["volcano", "to-the-last", "submerged"],
    "scoring": ["values", "all-equal"],
    "dolphins": ["no", "yes"],
    "squid": ["no", "yes", "replace-whales"],
    "squid_take": ["yes", "no"],
    "ties": ["auto", "shared", "broken"],
}
BASE_ROTATION = [
    {}, {"memory": "open"}, {"defense": "ask"}, {"defense": "never", "lagoon": "land"},
    {"layout": "fixup"}, {"boats": "per-colour"}, {"colours": "1"},
]
NAMES = ["red", "blue", "green", "yellow", "p5", "p6"]


def hides_everything(game: Any, state: Any) -> None:
    view = game.view(state, None)
    if game.name != "atlantis-1986":   # 1986 villagers all count one point: nothing hidden about them
        assert all(e["value"] is None for e in view["explorers"].values())
    assert all(t["back"] is None for t in view["tiles"].values() if t["where"] in ("island", "hand"))


def play(game: Any, players: list[str], options: dict[str, str], seed: bytes, bot: str) -> tuple[Any, int]:
    state = game.setup(players, game.full_options(options), setup_rng(seed, "matrix"))
    start = piece_counts(game.to_position(state))
    choose, rng = CHOOSERS[bot], Rng(seed, "bot")
    steps = 0
    while game.result(state) is None:
        pending = game.pending(state)
        assert pending and steps < 10000, f"stuck after {steps} actions"  # random play in to-the-last games can be long
        player = pending[0].player
        game.apply(state, player, choose(game, state, player, rng), action_rng(seed, "m", steps, 0))
        steps += 1
        if steps % 40 == 0:
            assert piece_counts(game.to_position(state)) == start
            if game.result(state) is None:   # at the end saved explorers are flipped over
                hides_everything(game, state)
    assert piece_counts(game.to_position(state)) == start
    return state, steps


def combinations():
    keys = list(VARIANTS)
    for i, values in enumerate(itertools.product(*(VARIANTS[k] for k in keys))):
        options = dict(zip(keys, values))
        options.update(BASE_ROTATION[i % len(BASE_ROTATION)])
        players = NAMES[: 2 + i % 5]
        yield i, options, players


def accepted(game: Any, options: dict[str, str], players: list[str]) -> bool:
    """Whether `pbem new` takes this combination; a refusal is one line."""
    try:
        game.check_options(options, players)
    except OPTION_REFUSALS as exc:
        assert "\n" not in str(exc) and str(exc)
        return False
    return True


def test_most_variant_combinations_are_accepted_and_some_refused():
    game = load_game("atlantis")
    verdicts = [accepted(game, options, players) for _i, options, players in combinations()]
    assert verdicts.count(True) > 250 and verdicts.count(False) > 0


SLICES = 8   # the combinations are played in slices, so that parallel test workers share them


@pytest.mark.slow(seconds=8)
@pytest.mark.parametrize("part", range(SLICES), ids=[f"slice{k}of{SLICES}" for k in range(SLICES)])
def test_every_variant_combination_plays_to_the_end(part):
    game = load_game("atlantis")
    played = 0
    for i, options, players in combinations():
        if (i // 2) % SLICES != part or not accepted(game, options, players):   # greedy and random bots in each
            continue
        seed = f"matrix-{i}".encode()
        bot = "greedy" if i % 2 else "random"
        state, steps = play(game, players, options, seed, bot)
        if i % 5 == 0:
            again, steps_again = play(game, players, options, seed, bot)
            assert steps_again == steps and game.to_position(again) == game.to_position(state)
        played += 1
    assert played > 250 // SLICES


def test_refusals_name_the_conflict():
    game = load_game("atlantis")
    cases = [
        ({"squid_take": "no"}, NAMES[:3], "squid"),
        ({"boats": "per-colour"}, NAMES[:5], "5"),
        ({"colours": "2"}, NAMES[:3], "colours"),
    ]
    for options, players, word in cases:
        try:
            game.check_options(options, players)
        except OPTION_REFUSALS as exc:
            assert word in str(exc)
        else:
            raise AssertionError(f"{options} with {len(players)} players was accepted")


@pytest.mark.slow(seconds=2)
def test_every_1986_option_combination_plays_to_the_end():
    game = load_game("atlantis-1986")
    specs = list(game.option_specs())
    for i, values in enumerate(itertools.product(*(s.choices for s in specs))):
        options = {s.name: v for s, v in zip(specs, values)}
        players = NAMES[: 2 + i % 3]
        game.check_options(options, players)
        play(game, players, options, f"m1986-{i}".encode(), "greedy" if i % 2 else "random")
