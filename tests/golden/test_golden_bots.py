"""The bots choose exactly what they chose when the golden games were recorded.

test_golden_games.py replays the recorded actions, so it pins the rules but not the bots.
Here the bots play each golden configuration again (as make_golden.py does) and must choose
the recorded action at every step; and every game, Space Swarm included, is played whole by
``pbem.core.bots.simulate`` with each bot to a pinned final position.  Speed work on legal-action
listing or on the bots (issue 12) must keep both.  A deliberate bot change regenerates the
golden files (README.md) and the pins below (``PRINT_PINS=1 pytest -s`` prints them).
"""
from __future__ import annotations

import hashlib
import json
import os

import pytest

from golden_games import CONFIGS, Config, plain, read, short, step_rng

from pbem.core.bots import CHOOSERS, simulate
from pbem.core.registry import load_game
from pbem.core.rng import Rng


@pytest.mark.parametrize("config", CONFIGS, ids=[f"game{c.game_no:02d}-{c.game}" for c in CONFIGS])
def test_the_bots_choose_the_recorded_actions(config: Config) -> None:
    record = read(config)
    game = load_game(config.game)
    players = list(config.players)
    state = game.setup(players, record["options"], step_rng(config, 0))
    choose, bot_rng = CHOOSERS[config.bot], Rng(config.seed, f"golden-bot/{config.game_no}")
    opening = len(config.opening)
    for number, step in enumerate(record["steps"], start=1):
        if number > opening:
            pending = game.pending(state)
            chosen = plain(choose(game, state, pending[0].player, bot_rng))
            assert (pending[0].player, chosen) == (step["player"], step["action"]), \
                f"{config.describe()}: step {number}: the {config.bot} bot chose {short(chosen)} for " \
                f"{pending[0].player}, the recording has {short(step['action'])} for {step['player']}"
        game.apply(state, step["player"], step["action"], step_rng(config, number))
    assert game.result(state) is not None


#: game -> bot -> "actions:sha256 of the final position" for simulate(seed=b"pin/0", 4 players)
SIMULATED: dict[str, dict[str, str]] = {
    "atlantis": {"random": "265:2baa494f5e3cf753bd81d4ea", "greedy": "265:a4fa5e338682b13e68e68d34"},
    "atlantis-1986": {"random": "220:5e6b7baaaea65239e561b20f", "greedy": "226:4f2f83a70a6f7ced860d957e"},
    "space-attack": {"random": "289:14a12acac80fd33b4051a7f1", "greedy": "274:116307308ef82998cf8dd1ba"},
    "space-swarm": {"random": "172:d23535a4fb9a99731f9f98f5", "greedy": "144:5942b5b2ccacefda360e0a61"},   # event_phase joined the options (space-swarm/2)
}


@pytest.mark.parametrize("name", ["atlantis", "atlantis-1986", "space-attack", "space-swarm"])
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_simulated_games_end_where_they_always_did(name: str, bot: str) -> None:
    game = load_game(name)
    state, steps = simulate(game, ["red", "blue", "green", "yellow"], {}, b"pin/0", bot=bot)
    position = json.dumps(game.to_position(state), sort_keys=True, separators=(",", ":"))
    got = f"{steps}:{hashlib.sha256(position.encode()).hexdigest()[:24]}"
    if os.environ.get("PRINT_PINS"):
        print(f"\nPIN {name} {bot} {got}")
    assert got == SIMULATED[name][bot]


@pytest.mark.parametrize("config", CONFIGS[::3], ids=[f"game{c.game_no:02d}-{c.game}" for c in CONFIGS[::3]])
def test_legal_choices_are_the_legal_actions_in_order(config: Config) -> None:
    """``Game.legal_choices`` (what the random bot samples from, made lazily) has exactly the
    legal actions, in order, at every step of a golden game, for every player."""
    record = read(config)
    game = load_game(config.game)
    state = game.setup(list(config.players), record["options"], step_rng(config, 0))
    for number, step in enumerate(record["steps"], start=1):
        for player in config.players:
            choices = game.legal_choices(state, player)
            listed = game.legal_actions(state, player)
            assert len(choices) == len(listed) and list(choices) == listed, f"{config.describe()}: step {number}"
            assert [choices[i] for i in range(len(choices))] == listed
        game.apply(state, step["player"], step["action"], step_rng(config, number))
