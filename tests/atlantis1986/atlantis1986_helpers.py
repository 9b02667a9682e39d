"""Building concrete Escape from Atlantis (1986) positions for rule tests."""
from __future__ import annotations

import copy
from typing import Any, Iterable

from pbem.rng import Rng
from pbem.rules.atlantis.state import sort_handles
from pbem.rules.atlantis1986.game import Atlantis1986Game

GAME = Atlantis1986Game()


def rng(label: str = "x") -> Rng:
    return Rng(b"atlantis-1986-tests", label)


def spin_rng(face: str, options: dict | None = None) -> Rng:
    """An Rng whose first spin (spinner, or the two dice with ``spinner=dice``) shows ``face``."""
    state = Pos(options=options).state()
    for i in range(5000):
        if GAME.roll_die(state, Rng(b"atlantis-1986-tests", f"spin{i}")) == face:
            return Rng(b"atlantis-1986-tests", f"spin{i}")
    raise AssertionError(f"no seed spins {face}")


class Pos:
    """A hand-built position: a seeded setup with the board emptied, then pieces put back.

    Every island tile stays (terrains by ring) unless ``island(...)`` keeps only some;
    all villagers start "lost" except a bystander (the last player's last villager,
    swimming at M9, so that the game goes on), boats and creatures in the supply, and
    it is ``players[0]``'s turn 5, step ``move``.
    """

    def __init__(self, players: Iterable[str] = ("red", "blue", "green"), options: dict | None = None,
                 seed: bytes = b"a1986") -> None:
        self.players = list(players)
        st = GAME.setup(self.players, options or {}, Rng(seed, "setup"))
        p = GAME.to_position(st)
        for e in p["explorers"].values():
            e.update(where="lost", at=None)
        self.bystander = sort_handles(h for h, e in p["explorers"].items() if e["colour"] == self.players[-1])[-1]
        p["explorers"][self.bystander].update(where="sea", at="M9")
        for b in p["boats"].values():
            b.update(where="supply", at=None, owner=None)
        for c in p["creatures"].values():
            c.update(where="supply", at=None)
        p["phase"] = "play"
        p["turn"] = {"number": 5, "player": self.players[0], "step": "move", "moves": 0, "swum": [],
                     "tile_played": False, "die": None}
        self.p = p

    def tile_at(self, label: str) -> str:
        for h, t in self.p["tiles"].items():
            if t["at"] == label:
                return h
        raise KeyError(label)

    def island(self, *labels: str) -> "Pos":
        """Only these island slots keep their tile."""
        for t in self.p["tiles"].values():
            t["where"] = "island" if t["at"] in labels else "used"
        return self

    def back(self, label: str, back: str) -> "Pos":
        self.p["tiles"][self.tile_at(label)]["back"] = back
        return self

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

    def state(self):
        return GAME.from_position(copy.deepcopy(self.p))


def where(state, handle: str) -> tuple[str, str | None]:
    """(where, at) of a villager, boat or creature, in position terms."""
    pos = GAME.to_position(state)
    for group in ("explorers", "boats", "creatures"):
        if handle in pos[group]:
            return pos[group][handle]["where"], pos[group][handle]["at"]
    raise KeyError(handle)


def act(state, player: str, action: dict, r: Rng | None = None) -> list:
    return GAME.apply(state, player, action, r or rng())


def kinds(events) -> list[str]:
    return [e.public.get("event") for e in events]


def has_run(events, *run: str) -> bool:
    """The event kinds ``run`` happen one after the other in ``events``."""
    k = kinds(events)
    return any(k[i:i + len(run)] == list(run) for i in range(len(k)))


def creature_step(state, face: str) -> None:
    """Put ``state`` in the spinning phase with the spinner showing ``face``."""
    state.turn.die = face
    state.turn.step = GAME.decision_kind(state, "creature")
