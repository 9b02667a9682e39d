"""Building concrete Atlantis positions for rule tests."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from atlantis_positions import GameHelpers, PositionBuilder, kinds

from pbem.core.rng import Rng
from pbem.game import Position
from pbem.rules.atlantis.game import AtlantisGame
from pbem.rules.atlantis.state import AtlantisState


class AtlantisTestGame(AtlantisGame):
    """The Atlantis game with the rules' helpers that only tests call (the game itself offers
    only the :class:`pbem.game.Game` interface): each asks the ruleset of the state's options."""

    @property
    def board(self) -> Any:
        return self.data.board

    @property
    def comp(self) -> dict[str, Any]:
        return self.data.comp

    @property
    def tile_backs(self) -> dict[str, dict[str, Any]]:
        return self.data.tile_backs

    def label(self, cell: int | None) -> str:
        return self.base.label(cell)

    def hand(self, state: AtlantisState, player: str) -> list[str]:
        return self.rules(state).hand(state, player)

    def reserve_explorers(self, state: AtlantisState, player: str) -> list[str]:
        return self.rules(state).reserve_explorers(state, player)

    def controllers(self, state: AtlantisState, boat: str) -> list[str]:
        return self.rules(state).controllers(state, boat)

    def roll_die(self, state: AtlantisState, rng: Rng | None) -> str:
        return self.rules(state).roll_die(state, rng)

    def turns_taken(self, state: AtlantisState, player: str) -> int:
        return self.rules(state).turns_taken(state, player)

    def isolated_slots(self, layout: Sequence[str], options: Mapping[str, str]) -> list[int]:
        return self.plain.isolated_slots(layout, options)

    def dive_data(self) -> Mapping[str, Any]:
        return self.data.extra("dolphins")

    def template(self, view: Position, player: str) -> str:
        return self.move_template(view, player)


GAME = AtlantisTestGame()
FACES = ("serpent", "shark", "whale")
_HELPERS = GameHelpers(GAME, b"atlantis-tests")
rng, where, act = _HELPERS.rng, _HELPERS.where, _HELPERS.act
__all__ = ["FACES", "GAME", "Pos", "act", "die_rng", "kinds", "public_events", "rng", "where"]


def die_rng(face: str) -> Rng:
    """An Rng whose first creature-die roll shows ``face``."""
    faces = GAME.comp["creature_die"]
    for i in range(1000):
        probe = Rng(b"atlantis-tests", f"roll{i}")
        if faces[probe.randbelow(len(faces))] == face:
            return Rng(b"atlantis-tests", f"roll{i}")
    raise AssertionError("no seed found")


class Pos(PositionBuilder):
    """A hand-built position: a seeded setup with the board emptied, then pieces put back.

    By default every island tile stays (terrains from the seed); ``island(...)``
    keeps only the listed ones.  All explorers start "lost", ships and creatures
    in the supply, and it is ``players[0]``'s turn 5, step ``move``.
    """

    game = GAME
    default_seed = b"atl"

    def island(self, *labels: str, terrain: str | None = None) -> "Pos":
        """Only these island slots keep a tile (optionally all of one terrain)."""
        self.keep_tiles(*labels, terrain=terrain)
        return self


def public_events(events) -> list[dict]:
    return [e.public for e in events]
