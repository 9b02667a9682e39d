"""Games begun under rules space-swarm/1 keep its ruling on Event cards (issue 23).

Rules space-swarm/2 follow the text: "Event cards are played in other Phases", not in the phase
where Technology cards are placed (``event_phase=other``).  Rules space-swarm/1 let an Event card
be played in any phase; ``SpaceSwarmGame.earlier_rules`` keeps that reading (``event_phase=any``)
for a game begun under them.  ``SpaceSwarmV1`` below writes what space-swarm/1 wrote: a header and
positions without ``event_phase``, and an Event card accepted in any phase."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest
from pipeline_helpers import bot_move, new_game, reveal_and_audit, signed_move

from pbem.core import registry
from pbem.core.engine import Rejected, check_actions
from pbem.core.registry import load_game
from pbem.game import OptionSpec, Position, Rng
from pbem.pipeline.submit import submit
from pbem.rules.spaceswarm.game import SpaceSwarmGame
from pbem.rules.spaceswarm.options import OPTION_SPECS
from pbem.rules.spaceswarm.state import DEVELOPMENT, SwarmState
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

ADDED = "event_phase"       # the option rules space-swarm/2 added


def _as_v1_wrote(position: Position) -> Position:
    options = {k: v for k, v in position["options"].items() if k != ADDED}
    return {**position, "options": options}


class SpaceSwarmV1(SpaceSwarmGame):
    """Space Swarm as rules space-swarm/1 played it (an Event card in any phase), writing what it
    wrote (no ``event_phase`` in the header, the positions and the views)."""

    rules_version = "space-swarm/1"
    earlier_rules: Mapping[str, Mapping[str, str]] = {}

    def option_specs(self) -> Sequence[OptionSpec]:
        return tuple(s for s in OPTION_SPECS if s.name != ADDED)

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> SwarmState:
        state = super().setup(players, options, rng)
        state.options[ADDED] = "any"
        return state

    def to_position(self, state: SwarmState) -> Position:
        return _as_v1_wrote(super().to_position(state))

    def view(self, state: SwarmState, viewer: str | None) -> Position:
        return _as_v1_wrote(super().view(state, viewer))

    def from_position(self, position: Mapping[str, Any]) -> SwarmState:
        state = super().from_position(position)
        state.options.setdefault(ADDED, "any")
        return state

    def position_options(self, position: Mapping[str, Any]) -> dict[str, str]:
        return {k: v for k, v in super().position_options(position).items() if k != ADDED}


def _event_card_at_development(table: Table) -> tuple[str, str] | None:
    """(player, Event card in their hand) when the game waits for that player's Development Phase."""
    pending = table.game.pending(table.state)
    state = table.state
    if not pending or pending[0].kind != "develop" or state.phase != DEVELOPMENT:
        return None
    player = pending[0].player
    cards = [c for c in state.hands[player] if (f := state.faces[c]) is not None and not f.is_technology]
    return (player, cards[0]) if cards else None


def _begin_under_v1(root: Path, key_pool: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> tuple[GameDir, str, str]:
    """A game begun under rules space-swarm/1, played by bots to a Development Phase where the player
    holds an Event card."""
    monkeypatch.setitem(registry.GAMES, "space-swarm", "test_swarm_earlier_rules:SpaceSwarmV1")
    gd = new_game(root, "space-swarm", key_pool, ["red", "blue"], seed=b"v1" * 16)
    for _ in range(200):
        found = _event_card_at_development(Table.load(gd))
        if found is not None:
            return gd, *found
        move = bot_move(gd, key_pool, bot="greedy")
        assert move is not None, "the game ended before a Development Phase with an Event card in hand"
        submit(gd, *move)
    raise AssertionError("no Development Phase with an Event card in hand in 200 moves")


@pytest.mark.slow(seconds=8)
def test_a_game_begun_under_space_swarm_1_plays_on_with_event_cards_in_any_phase(tmp_path, key_pool, monkeypatch):
    gd, player, card = _begin_under_v1(tmp_path / "g", key_pool, monkeypatch)
    header = gd.entries()[0]
    assert header["rules"] == "space-swarm/1" and ADDED not in header["options"]
    monkeypatch.delitem(registry.GAMES, "space-swarm")            # pbem upgraded: rules space-swarm/2
    assert load_game("space-swarm").rules_version == "space-swarm/2"

    table = Table.load(gd)
    assert table.state.options[ADDED] == "any"                    # the old reading, kept
    assert table.game.view(table.state, player)["options"][ADDED] == "any"   # the page's model reads it there
    # under the new default the same play is refused: it is the kept reading that lets it through
    fresh = table.game.copy_state(table.state)
    fresh.options[ADDED] = "other"
    with pytest.raises(Rejected, match=f"{card} is an Event card: Event cards are not played in the development"):
        check_actions(table.game, fresh, player, [{"event": card}])

    submit(gd, *signed_move(table, player, [{"event": card}], key_pool[player]))
    after = Table.load(gd)
    assert card in after.state.discard and card not in after.state.hands[player]
    assert after.state.phase == DEVELOPMENT and any(b.card == card for b in after.state.boosts)
    assert gd.entries()[-1]["events"][0]["card"] == card

    while (move := bot_move(gd, key_pool)) is not None:          # plays on to the end
        submit(gd, *move)
    report = reveal_and_audit(gd, tmp_path / "published")
    assert report.ok, report.problems
    assert any(note.startswith("replayed") for note in report.notes)


def test_a_new_game_is_begun_under_space_swarm_2_with_the_text_s_reading(tmp_path, key_pool):
    gd = new_game(tmp_path / "g", "space-swarm", key_pool, ["red", "blue"], seed=b"v1" * 16)
    header = gd.entries()[0]
    assert header["rules"] == "space-swarm/2" and header["options"][ADDED] == "other"
    assert Table.load(gd).state.options[ADDED] == "other"
