"""Building concrete Atlantis positions for rule tests."""
from __future__ import annotations

from atlantis_positions import GameHelpers, PositionBuilder, kinds

from pbem.core.rng import Rng
from pbem.rules.atlantis.game import AtlantisGame

GAME = AtlantisGame()
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
