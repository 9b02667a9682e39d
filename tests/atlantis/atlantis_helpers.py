"""Building concrete Atlantis positions for rule tests."""
from __future__ import annotations

from atlantis_positions import GameHelpers, PositionBuilder, kinds

from pbem.rng import Rng
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

    # tiles
    def island(self, *labels: str, terrain: str | None = None) -> "Pos":
        """Only these island slots keep a tile (optionally all of one terrain)."""
        for t in self.p["tiles"].values():
            if t["at"] in labels:
                t["where"] = "island"
                if terrain:
                    t["terrain"] = terrain
            else:
                t.update(where="used", holder=None, obtained=None)
        return self

    def tile(self, label: str, terrain: str | None = None, back: str | None = None) -> "Pos":
        t = self.p["tiles"][self.tile_at(label)]
        t["where"] = "island"
        if terrain:
            t["terrain"] = terrain
        if back:
            t["back"] = back
        return self

    def hand(self, player: str, back: str, obtained: int = 1, tile: str | None = None) -> str:
        """Put a tile with ``back`` into ``player``'s hand; returns its handle."""
        if tile is None:
            tile = next(h for h, t in reversed(list(self.p["tiles"].items())) if t["where"] == "used")
        self.p["tiles"][tile].update(where="hand", holder=player, obtained=obtained, back=back)
        return tile

    # standing orders
    def standing(self, player: str, **orders: str) -> "Pos":
        for p in self.p["players"]:
            if p["name"] == player:
                p["standing"].update(orders)
        return self


def public_events(events) -> list[dict]:
    return [e.public for e in events]
