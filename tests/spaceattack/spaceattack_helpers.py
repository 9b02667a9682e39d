"""Building concrete Space Attack positions for rule tests.

``Pos`` is the shared position builder (tests/atlantis_positions.py) bound to Space Attack: a
seeded set-up with the board emptied (all crew lost, ships and creatures set aside), then
pieces put back; it is ``players[0]``'s turn 5, step ``move``.  The core's names are those of
the position format: ``land`` a station tile, ``sea`` open space (a drifter), ``isle`` a Jump
Point, ``boat`` aboard a ship.
"""
from __future__ import annotations

from atlantis_positions import GameHelpers, PositionBuilder, kinds

from pbem.rng import Rng
from pbem.rules.spaceattack.game import SpaceAttackGame

GAME = SpaceAttackGame()
FACES = ("queen", "spawn", "warrior")
_HELPERS = GameHelpers(GAME, b"space-attack-tests")
rng, where, act = _HELPERS.rng, _HELPERS.where, _HELPERS.act
__all__ = ["FACES", "GAME", "Pos", "act", "die_rng", "events_of", "kinds", "public_events", "rng", "where"]


def die_rng(face: str) -> Rng:
    """An Rng whose first creature-die roll shows ``face``."""
    faces = GAME.data.comp["creature_die"]
    for i in range(1000):
        if faces[Rng(b"space-attack-tests", f"roll{i}").randbelow(len(faces))] == face:
            return Rng(b"space-attack-tests", f"roll{i}")
    raise AssertionError("no seed found")


class Pos(PositionBuilder):
    """A hand-built Space Attack position (see the module docstring)."""

    game = GAME
    default_seed = b"space"

    def station(self, *labels: str, kind: str | None = None) -> "Pos":
        """Only these station slots keep a tile (optionally all of one kind)."""
        for t in self.p["tiles"].values():
            if t["at"] in labels:
                t["where"] = "island"
                if kind:
                    t["terrain"] = kind
            else:
                t.update(where="used", holder=None, obtained=None)
        return self

    def tile(self, label: str, kind: str | None = None, back: str | None = None) -> "Pos":
        t = self.p["tiles"][self.tile_at(label)]
        t["where"] = "island"
        if kind:
            t["terrain"] = kind
        if back:
            t["back"] = back
        return self

    def hand(self, player: str, back: str, obtained: int = 1, tile: str | None = None) -> str:
        """Put a tile with ``back`` into ``player``'s hand; returns its handle."""
        if tile is None:
            tile = next(h for h, t in reversed(list(self.p["tiles"].items())) if t["where"] == "used")
        self.p["tiles"][tile].update(where="hand", holder=player, obtained=obtained, back=back)
        return tile

    def standing(self, player: str, **orders: str) -> "Pos":
        for p in self.p["players"]:
            if p["name"] == player:
                p["standing"].update(orders)
        return self

    def captured(self, player: str, *creatures: str) -> "Pos":
        for h in creatures:
            self.p["creatures"][h].update(where="captured", at=None)
            self.p["captured"][player].append(h)
        return self

    drift = PositionBuilder.swim


def public_events(events) -> list[dict]:
    return [e.public for e in events]


def events_of(events, kind: str) -> list[dict]:
    return [e.public for e in events if e.public.get("event") == kind]
