"""Random partial positions (Hypothesis): every position the checks accept plays on with the bots.

A game of each kind is played some random steps from its set-up, written as a position, and
``partial: true`` positions are made from it by leaving pieces out at random (explorers, tiles,
ships, creatures; Space Swarm's cards and fleets), with the references to what was left out
mended where a player writing a position would mend them.  Then:

* the field check (``Game.check_position``) may refuse it: that is not this test's business;
* the playability check (:func:`pbem.core.playable.check_playable`) may refuse it with one line, but
  never through its trial game (:class:`pbem.core.playable.TrialFailed` is a rules bug or an
  unplayable kind the game's own check misses);
* an accepted position plays :data:`TURNS` bot move files (random and greedy, as ``pbem move
  --bot`` writes them, applied as ``pbem submit`` applies them) without an error, and every
  state on the way is over or offers the player to move a legal action.
"""
from __future__ import annotations

import copy
import random
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.bots import CHOOSERS, bot_actions
from pbem.core.draws import Draws
from pbem.core.engine import apply_actions
from pbem.core.playable import TrialFailed, check_playable, decisions_without_actions
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import PositionError

TURNS = 40
DROP = [0.0, 0.1, 0.3, 0.6, 0.9, 1.0]
#: (game, players, options)
CASES = [
    ("atlantis", ["red", "blue"], {}),
    ("atlantis", ["red", "blue", "green"], {"end": "submerged", "dolphins": "yes"}),
    ("atlantis", ["red", "blue", "green", "yellow"], {"end": "to-the-last", "squid": "yes", "overpopulated": "yes"}),
    ("atlantis", ["a", "b", "c", "d", "e"], {}),
    ("atlantis-1986", ["red", "blue", "green"], {}),
    ("atlantis-1986", ["red", "blue"], {"start_boats": "placed", "setup_limit": "three"}),
    ("space-attack", ["red", "blue", "green"], {}),
    ("space-attack", ["red", "blue"], {"end": "to-the-last", "map": "asteroids", "overpopulated": "yes"}),
    ("space-swarm", ["red", "blue", "green"], {}),
    ("space-swarm", ["red", "blue"], {"tech_phase": "research", "decks": "2"}),
]


def advance(game: Any, state: Any, steps: int, seed: bytes) -> Any:
    """``steps`` random actions from ``state`` (fewer if the game ends)."""
    for step in range(steps):
        if game.result(state) is not None:
            break
        player = game.pending(state)[0].player
        action = CHOOSERS["random"](game, state, player, Rng(seed, f"advance-choice/{step}"))
        game.apply(state, player, action, Rng(seed, f"advance/{step}"))
    return state


def _keep(records: dict[str, Any], rnd: random.Random, drop: float) -> dict[str, Any]:
    return {h: r for h, r in records.items() if rnd.random() >= drop}


def survive_partial(pos: dict[str, Any], rnd: random.Random, drops: list[float]) -> None:
    """Leave out Survive pieces at random and mend what referred to them."""
    pos["explorers"] = _keep(pos["explorers"], rnd, drops[0])
    pos["tiles"] = _keep(pos["tiles"], rnd, drops[1])
    pos["boats"] = _keep(pos["boats"], rnd, drops[2])
    pos["creatures"] = _keep(pos["creatures"], rnd, drops[3])
    land = {t["at"] for t in pos["tiles"].values() if t["where"] == "island"}
    pos["explorers"] = {h: e for h, e in pos["explorers"].items()
                        if not (e["where"] == "land" and e["at"] not in land)
                        and not (e["where"] == "boat" and e["at"] not in pos["boats"])}
    pos["turn"]["swum"] = [h for h in pos["turn"].get("swum") or [] if h in pos["explorers"]]
    if "captured" in pos:        # Space Attack: creatures held by players; fighters that flew
        pos["captured"] = {p: [h for h in hs if h in pos["creatures"]] for p, hs in pos["captured"].items()}
        pos["flown"] = [h for h in pos.get("flown") or [] if h in pos["boats"]]


def swarm_partial(pos: dict[str, Any], rnd: random.Random, drops: list[float]) -> None:
    """Leave out Space Swarm cards at random, and fleets (each race keeps at least one stack)."""
    kept = set(_keep(pos["cards"], rnd, drops[0]))
    pos["cards"] = {c: f for c, f in pos["cards"].items() if c in kept}
    pos["deck"] = [c for c in pos["deck"] if c in kept]
    pos["discard"] = [c for c in pos["discard"] if c in kept]
    pos["hands"] = {p: [c for c in cs if c in kept] for p, cs in pos["hands"].items()}
    pos["tech"] = {p: [c for c in cs if c in kept] for p, cs in pos["tech"].items()}
    pos["boosts"] = [b for b in pos["boosts"] if b.get("card") in kept]
    for player, stacks in pos["stacks"].items():
        if len(stacks) > 1:
            pos["stacks"][player] = _keep(stacks, rnd, drops[1]) or dict([next(iter(stacks.items()))])


PARTIAL: dict[str, Callable[[dict[str, Any], random.Random, list[float]], None]] = {
    "atlantis": survive_partial, "atlantis-1986": survive_partial, "space-attack": survive_partial,
    "space-swarm": swarm_partial}


def play_bot_turns(game: Any, state: Any, turns: int, seed: bytes) -> None:
    """Bot move files as `pbem move --bot` writes them, applied as `pbem submit` applies them."""
    for turn in range(turns):
        assert decisions_without_actions(game, state) == "", f"turn {turn}"
        if game.result(state) is not None:
            return
        player = game.pending(state)[0].player
        draws = Draws(seed, f"fuzz/{turn}")
        bot = "greedy" if turn % 2 else "random"
        actions = bot_actions(game, state, player, draws, Rng(seed, f"bot/{turn}"), bot)
        assert actions, f"turn {turn}: the {bot} bot wrote nothing for {player}"
        apply_actions(game, state, player, actions, draws)


@pytest.mark.slow(seconds=5)
@pytest.mark.parametrize("name, players, options", CASES, ids=[f"{c[0]}-{n}" for n, c in enumerate(CASES)])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.integers(0, 300), seed=st.binary(min_size=4, max_size=4),
       drops=st.lists(st.sampled_from(DROP), min_size=4, max_size=4), rnd=st.randoms(use_true_random=False))
def test_every_accepted_partial_position_plays_on(name, players, options, steps, seed, drops, rnd):
    game = load_game(name)
    state = advance(game, game.setup(players, game.full_options(options), Rng(seed, "setup")), steps, seed)
    pos = copy.deepcopy(game.to_position(state))
    pos["partial"] = True
    PARTIAL[name](pos, rnd, drops)
    try:
        game.check_position(pos)
    except PositionError:
        return
    start = game.from_position(pos)
    try:
        check_playable(game, start)
    except TrialFailed as exc:
        raise AssertionError(f"{name}: the trial game found what the checks missed: {exc}") from None
    except PositionError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("position: ")
        return
    play_bot_turns(game, start, TURNS, seed)
