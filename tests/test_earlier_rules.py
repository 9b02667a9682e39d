"""A rule whose behaviour changes keeps its old reading for games begun under the old rules
(``Game.earlier_rules``): a toy game begun under rules toy-1 replays, audits and plays on under a
pbem whose toy game is at toy-2, where a new option changed what a rule does."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import pytest
from pipeline_helpers import bot_move, new_game
from toygame import ToyGame

from pbem.core import registry
from pbem.core.engine import Rejected, game_for
from pbem.game import Event, OptionSpec, Rng
from pbem.pipeline.audit import audit
from pbem.pipeline.moderator import reveal
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table


class ToyGameV2(ToyGame):
    """Rules toy-2: a stop scores a bonus card of 10 unless ``bonus: 'no'`` (the old reading)."""

    rules_version = "toy-2"
    earlier_rules: Mapping[str, Mapping[str, str]] = {"toy-1": {"bonus": "no"}}

    def option_specs(self) -> Sequence[OptionSpec]:
        return [*super().option_specs(), OptionSpec("bonus", "yes", ("yes", "no"), "a stop adds a 10")]

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> dict[str, Any]:
        return {**super().setup(players, options, rng), "bonus": options["bonus"]}

    def to_position(self, state: Any) -> dict[str, Any]:
        return {**super().to_position(state), "options": {"bonus": state["bonus"]}}

    def from_position(self, position: Mapping[str, Any]) -> Any:
        return {**ToyGame.to_position(self, position), "bonus": position["options"]["bonus"]}

    def view(self, state: Any, viewer: str | None) -> dict[str, Any]:
        return {**super().view(state, viewer), "options": {"bonus": state["bonus"]}}

    def position_options(self, position: Mapping[str, Any]) -> dict[str, str]:
        return {**super().position_options(position), "bonus": position["options"]["bonus"]}

    def apply(self, state: Any, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
        events = super().apply(state, player, action, rng)
        if "stop" in action and state["bonus"] == "yes":
            state["hands"][player].append(10)
        return events


class ToyGameV2Forgetful(ToyGameV2):
    earlier_rules: Mapping[str, Mapping[str, str]] = {}


def _play_to_the_end(gd: GameDir, key_pool: dict) -> None:
    while (move := bot_move(gd, key_pool)) is not None:
        submit(gd, *move)


def test_a_game_begun_under_earlier_rules_keeps_them(tmp_path, key_pool, monkeypatch, toy_registered):
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])      # rules toy-1
    for _ in range(2):
        submit(gd, *bot_move(gd, key_pool))
    monkeypatch.setitem(registry.GAMES, "toy", "test_earlier_rules:ToyGameV2")   # pbem upgraded: rules toy-2
    header = gd.entries()[0]
    assert header["rules"] == "toy-1" and "bonus" not in header["options"]
    assert game_for(header).rules_version == "toy-2"
    table = Table.load(gd)
    assert table.state["bonus"] == "no"                                   # the old reading, kept
    _play_to_the_end(gd, key_pool)                                        # plays on under the new pbem
    final = Table.load(gd)
    assert all(10 not in hand for hand in final.state["hands"].values())  # no bonus card: the old rule
    reveal(gd)
    report = audit(gd)
    assert report.ok, report.problems
    assert any(note.startswith("replayed") for note in report.notes)

    # a new game under the new pbem has the new rule
    fresh = new_game(tmp_path / "new", "toy", key_pool, ["red", "blue"])
    assert fresh.entries()[0]["rules"] == "toy-2" and fresh.entries()[0]["options"]["bonus"] == "yes"
    _play_to_the_end(fresh, key_pool)
    stopped = Table.load(fresh).state["stopped"]
    assert stopped and all(10 in Table.load(fresh).state["hands"][p] for p in stopped)   # the new rule is in effect
    reveal(fresh)
    assert audit(fresh).ok


def test_without_the_earlier_rules_entry_an_old_game_is_refused_in_one_line(tmp_path, key_pool, monkeypatch,
                                                                             toy_registered):
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])
    monkeypatch.setitem(registry.GAMES, "toy", "test_earlier_rules:ToyGameV2Forgetful")
    with pytest.raises(Rejected, match=r"^this game was created with rules 'toy-1' but this pbem has 'toy-2'; "
                                       r"use the pbem version that created it$"):
        game_for(gd.entries()[0])
