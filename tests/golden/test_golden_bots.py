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

from golden_games import CONFIGS, Config, plain, recorded_moves, short, step_rng

from pbem.core.bots import CHOOSERS, simulate
from pbem.core.registry import load_game
from pbem.core.rng import Rng


@pytest.mark.parametrize("config", CONFIGS, ids=[f"game{c.game_no:02d}-{c.game}" for c in CONFIGS])
def test_the_bots_choose_the_recorded_actions(config: Config) -> None:
    options, steps = recorded_moves(config)      # (the moves alone, read once per process: not the snapshots)
    game = load_game(config.game)
    players = list(config.players)
    state = game.setup(players, options, step_rng(config, 0))
    choose, bot_rng = CHOOSERS[config.bot], Rng(config.seed, f"golden-bot/{config.game_no}")
    opening = len(config.opening)
    for number, step in enumerate(steps, start=1):
        if number > opening:
            pending = game.pending(state)
            chosen = plain(choose(game, state, pending[0].player, bot_rng))
            assert (pending[0].player, chosen) == (step["player"], step["action"]), \
                f"{config.describe()}: step {number}: the {config.bot} bot chose {short(chosen)} for " \
                f"{pending[0].player}, the recording has {short(step['action'])} for {step['player']}"
        game.apply(state, step["player"], step["action"], step_rng(config, number))
    assert game.result(state) is not None


#: game -> bot -> "actions:sha256 of the final position" for simulate(seed=b"pin/0", 4 players)
#: (Atlantis and Space Attack re-pinned when the colours default became 1, issue 23: the same actions, the
#: position's options say colours: '1'; with colours=auto given the old pins come back)
SIMULATED: dict[str, dict[str, str]] = {
    "atlantis": {"random": "265:c81c5c3ae3dbd933028bb126", "greedy": "265:5153791ba97c1daee00d1595"},
    "atlantis-1986": {"random": "220:5e6b7baaaea65239e561b20f", "greedy": "226:4f2f83a70a6f7ced860d957e"},
    "space-attack": {"random": "289:3b75d7d4a41ced30d10fc1b6", "greedy": "274:452a32a09d31721e5bfb34e3"},
    "space-swarm": {"random": "172:944cf9c030a8e3d1a257b95e", "greedy": "144:92f5b6b1ce2b31a1510483de"},   # event_phase joined the options
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
    options, steps = recorded_moves(config)
    game = load_game(config.game)
    state = game.setup(list(config.players), options, step_rng(config, 0))
    for number, step in enumerate(steps, start=1):
        for player in config.players:
            choices = game.legal_choices(state, player)
            listed = game.legal_actions(state, player)
            assert len(choices) == len(listed) and list(choices) == listed, f"{config.describe()}: step {number}"
            assert [choices[i] for i in range(len(choices))] == listed
        game.apply(state, step["player"], step["action"], step_rng(config, number))
