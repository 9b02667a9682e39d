"""Building concrete Atlantis positions for rule tests."""
from __future__ import annotations

import copy
from typing import Any, Iterable

from pbem.rng import Rng
from pbem.rules.atlantis.game import AtlantisGame

GAME = AtlantisGame()
FACES = ("serpent", "shark", "whale")


def die_rng(face: str) -> Rng:
    """An Rng whose first creature-die roll shows ``face``."""
    faces = GAME.comp["creature_die"]
    for i in range(1000):
        probe = Rng(b"atlantis-tests", f"roll{i}")
        if faces[probe.randbelow(len(faces))] == face:
            return Rng(b"atlantis-tests", f"roll{i}")
    raise AssertionError("no seed found")


def rng(label: str = "x") -> Rng:
    return Rng(b"atlantis-tests", label)


class Pos:
    """A hand-built position: a seeded setup with the board emptied, then pieces put back.

    By default every island tile stays (terrains from the seed); ``island(...)``
    keeps only the listed ones.  All explorers start "lost", ships and creatures
    in the supply, and it is ``players[0]``'s turn 5, step ``move``.
    """

    def __init__(self, players: Iterable[str] = ("red", "blue", "green"), options: dict | None = None,
                 seed: bytes = b"atl") -> None:
        self.players = list(players)
        st = GAME.setup(self.players, options or {}, Rng(seed, "setup"))
        p = GAME.to_position(st)
        for e in p["explorers"].values():
            e.update(where="lost", at=None)
        for b in p["boats"].values():
            b.update(where="supply", at=None, owner=None)
        for c in p["creatures"].values():
            c.update(where="supply", at=None)
        p["phase"] = "play"
        p["turn"] = {"number": 5, "player": self.players[0], "step": "move", "moves": 0, "swum": [],
                     "tile_played": False, "die": None}
        self.p = p

    # tiles
    def tile_at(self, label: str) -> str:
        for h, t in self.p["tiles"].items():
            if t["at"] == label:
                return h
        raise KeyError(label)

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

    # pieces
    def land(self, handle: str, label: str) -> "Pos":
        self.p["explorers"][handle].update(where="land", at=label)
        return self

    def swim(self, handle: str, label: str) -> "Pos":
        self.p["explorers"][handle].update(where="sea", at=label)
        return self

    def saved(self, handle: str, label: str = "B1") -> "Pos":
        self.p["explorers"][handle].update(where="isle", at=label)
        return self

    def reserve(self, handle: str) -> "Pos":
        self.p["explorers"][handle].update(where="reserve", at=None)
        return self

    def boat(self, boat: str, label: str, *crew: str) -> "Pos":
        self.p["boats"][boat].update(where="sea", at=label, owner=None)
        for h in crew:
            self.p["explorers"][h].update(where="boat", at=boat)
        return self

    def creature(self, handle: str, label: str) -> "Pos":
        self.p["creatures"][handle].update(where="sea", at=label)
        return self

    def turn(self, **kw: Any) -> "Pos":
        self.p["turn"].update(kw)
        return self

    def standing(self, player: str, **orders: str) -> "Pos":
        for p in self.p["players"]:
            if p["name"] == player:
                p["standing"].update(orders)
        return self

    def state(self):
        return GAME.from_position(copy.deepcopy(self.p))

    def copy(self) -> "Pos":
        other = object.__new__(Pos)
        other.players, other.p = list(self.players), copy.deepcopy(self.p)
        return other


def where(state, handle: str) -> tuple[str, str | None]:
    """(where, at) of an explorer, boat or creature, in position terms."""
    pos = GAME.to_position(state)
    for group in ("explorers", "boats", "creatures"):
        if handle in pos[group]:
            return pos[group][handle]["where"], pos[group][handle]["at"]
    raise KeyError(handle)


def act(state, player: str, action: dict, r: Rng | None = None) -> list:
    return GAME.apply(state, player, action, r or rng())


def public_events(events) -> list[dict]:
    return [e.public for e in events]


def kinds(events) -> list[str]:
    return [e.public.get("event") for e in events]
