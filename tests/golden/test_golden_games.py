"""Golden games: today's Atlantis, 1986 and Space Attack behaviour, pinned at the Game interface.

Each recorded game (tests/golden/data/, made by make_golden.py) is replayed action by
action against today's rules; every event, every pending decision, and at sampled
steps the full position, every view, every player's secrets and legal actions, and
the result must be identical.  A failure names the game and the first step that
differs.  Regenerate only when a rule change is intended (README.md here).
"""
from __future__ import annotations

from typing import Any

import pytest

from golden_games import (
    CONFIGS,
    FORMAT,
    Config,
    difference,
    events_record,
    first_difference,
    pending_record,
    read,
    result_record,
    short,
    snapshot,
    step_rng,
)

from pbem.core.registry import load_game
from pbem.game import IllegalAction


def same(config: Config, where: str, what: str, expected: Any, actual: Any) -> None:
    diff = difference(expected, actual)
    if diff is not None:
        pytest.fail(f"{config.describe()}: {where}: the {what} differ at {diff}", pytrace=False)


def replay(config: Config) -> int:
    """Replay one recorded game; fail at the first step where anything differs."""
    record = read(config)
    assert record["format"] == FORMAT and record["game_no"] == config.game_no
    assert (record["game"], record["players"], record["seed"], record["bot"]) == \
        (config.game, list(config.players), config.seed.decode(), config.bot), \
        f"{config.file.name} was recorded for another configuration; regenerate it (README.md)"
    assert all(record["options"][k] == v for k, v in config.options.items())
    game = load_game(config.game)
    players = record["players"]
    state = game.setup(players, record["options"], step_rng(config, 0))
    same(config, "after set-up", "pending decisions", record["setup"]["pending"], pending_record(game, state))
    same(config, "after set-up", "snapshots", record["setup"]["snapshot"], snapshot(game, state, players))
    for number, step in enumerate(record["steps"], start=1):
        where = f"step {number} ({step['player']} {short(step['action'], 80)})"
        try:
            events = game.apply(state, step["player"], step["action"], step_rng(config, number))
        except IllegalAction as exc:
            pytest.fail(f"{config.describe()}: {where}: the recorded action is now refused: {exc}", pytrace=False)
        same(config, where, "events", step["events"], events_record(events))
        same(config, where, "pending decisions", step["pending"], pending_record(game, state))
        if "snapshot" in step:
            same(config, where, "snapshots (position, views, secrets, legal actions, result)",
                 step["snapshot"], snapshot(game, state, players))
    assert game.result(state) is not None, f"{config.describe()}: the game is not over after the last recorded step"
    same(config, "at the end", "results", record["result"], result_record(game, state))
    return len(record["steps"])


@pytest.mark.parametrize("config", CONFIGS, ids=[f"game{c.game_no:02d}-{c.game}" for c in CONFIGS])
def test_recorded_game_replays_identically(config: Config) -> None:
    assert replay(config) > 100


def test_golden_games_cover_every_option_value_and_player_count() -> None:
    """The configurations reach every value of every option of each game, and 2-6 players."""
    for name in ("atlantis", "atlantis-1986", "space-attack"):
        game = load_game(name)
        configs = [c for c in CONFIGS if c.game == name]
        for spec in game.option_specs():
            used = {c.options.get(spec.name, spec.default) for c in configs}
            assert used == set(spec.choices), f"{name} option {spec.name}: golden games never use " \
                f"{sorted(set(spec.choices) - used)}"
        counts = {len(c.players) for c in configs}
        assert counts == set(range(game.min_players, game.max_players + 1))
    assert {c.bot for c in CONFIGS} == {"random", "greedy"}


def test_a_changed_event_is_reported_with_its_step() -> None:
    """The comparison names the first difference (so a failing replay says where the rules changed)."""
    recorded = [[{"event": "move", "to": "G5"}, {}, False, ""]]
    changed = [[{"event": "move", "to": "G6"}, {}, False, ""]]
    assert first_difference(recorded, changed) == '[0][0].to: got "G6", expected "G5"'
    assert first_difference(recorded, recorded + recorded) == ": 2 items, expected 1"
    assert first_difference({"chance": True}, {"chance": 1}) == '.chance: got 1, expected true'
    assert difference(recorded, [(dict(recorded[0][0]), {}, False, "")]) is None   # compared as JSON
