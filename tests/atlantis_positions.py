"""Hand-built positions and small helpers for the Atlantis rule tests, shared by both editions.

``tests/atlantis/atlantis_helpers.py`` (30th anniversary) and
``tests/atlantis1986/atlantis1986_helpers.py`` (1986) each bind these to their
own game object: a :class:`PositionBuilder` subclass (their ``Pos``) names the game and its default seed,
and a :class:`GameHelpers` gives the module-level ``rng``, ``where`` and ``act``.
"""
from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any, ClassVar, Iterable

from pbem.core.rng import Rng
from pbem.game import NeedsSecret


class PositionBuilder:
    """A hand-built position: a seeded setup with the board emptied, then pieces put back.

    All explorers start "lost" (see :meth:`prepare` for an edition's exceptions), ships
    and creatures in the supply, and it is ``players[0]``'s turn 5, step ``move``.
    Subclasses set ``game`` and ``default_seed``.
    """

    game: ClassVar[Any]
    default_seed: ClassVar[bytes]

    def __init__(self, players: Iterable[str] = ("red", "blue", "green"), options: dict | None = None,
                 seed: bytes | None = None) -> None:
        self.players = list(players)
        st = self.game.setup(self.players, options or {}, Rng(self.default_seed if seed is None else seed, "setup"))
        p = self.game.to_position(st)
        for e in p["explorers"].values():
            e.update(where="lost", at=None)
        self.prepare(p)
        for b in p["boats"].values():
            b.update(where="supply", at=None, owner=None)
        for c in p["creatures"].values():
            c.update(where="supply", at=None)
        p["phase"] = "play"
        p["turn"] = {"number": 5, "player": self.players[0], "step": "move", "moves": 0, "swum": [],
                     "tile_played": False, "die": None}
        self.p = p

    def prepare(self, p: dict) -> None:
        """An edition's changes to the emptied position (after the explorers are lost)."""

    # tiles
    def tile_at(self, label: str) -> str:
        for h, t in self.p["tiles"].items():
            if t["at"] == label:
                return h
        raise KeyError(label)

    def keep_tiles(self, *labels: str, terrain: str | None = None) -> "PositionBuilder":
        """Only these board slots keep a tile (optionally all of one terrain, or kind)."""
        for t in self.p["tiles"].values():
            if t["at"] in labels:
                t["where"] = "island"
                if terrain:
                    t["terrain"] = terrain
            else:
                t.update(where="used", holder=None, obtained=None)
        return self

    def tile(self, label: str, terrain: str | None = None, back: str | None = None) -> "PositionBuilder":
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
    def standing(self, player: str, **orders: str) -> "PositionBuilder":
        for p in self.p["players"]:
            if p["name"] == player:
                p["standing"].update(orders)
        return self

    # pieces
    def land(self, handle: str, label: str) -> "PositionBuilder":
        self.p["explorers"][handle].update(where="land", at=label)
        return self

    def swim(self, handle: str, label: str) -> "PositionBuilder":
        self.p["explorers"][handle].update(where="sea", at=label)
        return self

    def saved(self, handle: str, label: str = "B1") -> "PositionBuilder":
        self.p["explorers"][handle].update(where="isle", at=label)
        return self

    def reserve(self, handle: str) -> "PositionBuilder":
        self.p["explorers"][handle].update(where="reserve", at=None)
        return self

    def boat(self, boat: str, label: str, *crew: str) -> "PositionBuilder":
        self.p["boats"][boat].update(where="sea", at=label, owner=None)
        for h in crew:
            self.p["explorers"][h].update(where="boat", at=boat)
        return self

    def creature(self, handle: str, label: str) -> "PositionBuilder":
        self.p["creatures"][handle].update(where="sea", at=label)
        return self

    def turn(self, **kw: Any) -> "PositionBuilder":
        self.p["turn"].update(kw)
        return self

    def state(self):
        return self.game.from_position(copy.deepcopy(self.p))

    def copy(self) -> "PositionBuilder":
        other = object.__new__(type(self))
        other.__dict__.update(copy.deepcopy(self.__dict__))
        return other


class GameHelpers:
    """The module-level helpers of an edition's rule tests, bound to its game and Rng key."""

    def __init__(self, game: Any, rng_key: bytes) -> None:
        self.game, self.rng_key = game, rng_key

    def rng(self, label: str = "x") -> Rng:
        return Rng(self.rng_key, label)

    def where(self, state, handle: str) -> tuple[str, str | None]:
        """(where, at) of an explorer (villager), boat or creature, in position terms."""
        pos = self.game.to_position(state)
        for group in ("explorers", "boats", "creatures"):
            if handle in pos[group]:
                return pos[group][handle]["where"], pos[group][handle]["at"]
        raise KeyError(handle)

    def act(self, state, player: str, action: dict, r: Rng | None = None) -> list:
        return self.game.apply(state, player, action, r or self.rng())


def kinds(events) -> list[str]:
    return [e.public.get("event") for e in events]


def piece_counts(pos: dict[str, Any]) -> dict[str, int]:
    """How many explorers, tiles and boats a position has, and how many creatures of each kind."""
    counts: dict[str, int] = defaultdict(int)
    for section in ("explorers", "tiles", "boats"):
        counts[section] = len(pos[section])
    for c in pos["creatures"].values():
        counts[c["kind"]] += 1
    return dict(counts)


def check_views_like_the_moderator(game: Any, state: Any, seed: bytes, max_steps: int | None = None) -> int:
    """Play ``state`` on with a random bot (``Rng(seed, "bot")``); before every action check, from
    the deciding player's view, that the legal actions agree with the full state's and that applying
    the action either works or stops with NeedsSecret leaving the view untouched.  Returns how many
    times a secret was needed."""
    bot = Rng(seed, "bot")
    needed = steps = 0
    while game.pending(state) and (max_steps is None or steps < max_steps):
        player = game.pending(state)[0].player
        actions = game.legal_actions(state, player)
        action = bot.choice(actions)
        mine = game.from_position(game.view(state, player))
        assert game.legal_actions(mine, player) == actions
        before = game.to_position(mine)
        try:
            game.apply(mine, player, action, Rng.unavailable())
        except NeedsSecret:
            needed += 1
            assert game.to_position(mine) == before
        game.apply(state, player, action, Rng(seed, f"g/{steps}"))
        steps += 1
    return needed
