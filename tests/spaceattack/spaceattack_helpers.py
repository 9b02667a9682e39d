"""Building concrete Space Attack positions for rule tests.

``Pos`` is the shared position builder (tests/atlantis_positions.py) bound to Space Attack: a
seeded set-up with the board emptied (all crew lost, ships and creatures set aside), then
pieces put back; it is ``players[0]``'s turn 5, step ``move``.  The core's names are those of
the position format: ``land`` a station tile, ``sea`` open space (a drifter), ``isle`` a Jump
Point, ``boat`` aboard a ship.
"""
from __future__ import annotations

from atlantis_positions import GameHelpers, PositionBuilder, kinds

from pbem.core.rng import Rng
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
        self.keep_tiles(*labels, terrain=kind)
        return self

    def tile(self, label: str, kind: str | None = None, back: str | None = None) -> "Pos":
        super().tile(label, kind, back)
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
