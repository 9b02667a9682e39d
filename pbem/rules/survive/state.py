"""The mutable state of a Survive game: plain dataclasses plus location indexes.

The Python names are the first game's (Atlantis): *explorers* are a game's people
(villagers in 1986, crew in Space Attack), *tiles* its island or station tiles,
*boats* its ships (escape pods, fighters), *creatures* its sea (or space) creatures.
What players read comes from the game's data and texts, never from these names.

Every piece has an opaque handle (prefixes from the game's components data): people
``r1..r10``, tiles ``T1..T40`` (in island-slot order), ships ``B1..``, creatures ``S1..``,
``K1..`` and so on.

Locations are cell indices of :class:`~pbem.rules.survive.board.Board`.  The
piece records are the truth; the ``*_at`` indexes are derived and kept in step
by the ``put_*`` methods (and rebuilt by :meth:`State.rebuild_indexes`).
Nothing here relies on set iteration order.
"""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:     # (typing.Self is Python 3.11's; the annotations are never evaluated)
    from typing import Self

# Where a piece can be.
RESERVE, LAND, BOAT, SEA, ISLE, LOST = "reserve", "land", "boat", "sea", "isle", "lost"
SUPPLY, ISLAND, HAND, USED = "supply", "island", "hand", "used"

# Phases and turn steps.
SETUP_PLACE, SETUP_BOAT, PLAY, OVER = "setup-place", "setup-boat", "play", "over"
STEP_TILE, STEP_MOVE, STEP_REMOVE, STEP_BOARDERS, STEP_CREATURE, STEP_DEFENSE = (
    "play-tile", "move", "remove-tile", "choose-boarders", "creature", "defense")

_HANDLE = re.compile(r"([A-Za-z]+)(\d+)$")


@lru_cache(maxsize=4096)
def handle_key(handle: str) -> tuple[str, int]:
    """Sort key: ``r2`` before ``r10`` (remembered: a game has a few hundred handles)."""
    m = _HANDLE.match(handle)
    return (m.group(1), int(m.group(2))) if m else (handle, 0)


def at(cell: int | None) -> int:
    """The cell of a piece the caller knows is on the board."""
    if cell is None:
        raise RuntimeError("the piece is not on the board")
    return cell


def ship_of(boat: str | None) -> str:
    """The ship of a passenger the caller knows is aboard."""
    if boat is None:
        raise RuntimeError("the explorer is not aboard a ship")
    return boat


def sort_handles(handles: Iterable[str]) -> list[str]:
    return sorted(handles, key=handle_key)


@dataclass(slots=True)
class Explorer:
    handle: str
    colour: str
    owner: str
    value: int | None          # None = unknown (a view without the secret)
    where: str = RESERVE       # reserve | land | boat | sea | isle | lost
    cell: int | None = None    # land, sea and isle
    boat: str | None = None    # boat

    def copy(self) -> Explorer:
        return Explorer(self.handle, self.colour, self.owner, self.value, self.where, self.cell, self.boat)


@dataclass(slots=True)
class Tile:
    handle: str
    cell: int
    terrain: str
    back: str | None           # None = unknown
    where: str = ISLAND        # island | hand | used
    holder: str | None = None  # hand: who holds it
    obtained: int | None = None  # hand: the turn number it was taken

    def copy(self) -> Tile:
        return Tile(self.handle, self.cell, self.terrain, self.back, self.where, self.holder, self.obtained)


def _copy_explorers(explorers: dict[str, Explorer]) -> dict[str, Explorer]:
    """Each explorer's :meth:`Explorer.copy`, its fields set one by one on a new record (without a
    call of the record's ``__init__`` per record: a quarter fewer instructions than the calls,
    for :meth:`State.copy`, which the choice graph and the tests make by the hundred thousand)."""
    out: dict[str, Explorer] = {}
    new = object.__new__
    for h, e in explorers.items():
        c = out[h] = new(Explorer)
        c.handle = e.handle
        c.colour = e.colour
        c.owner = e.owner
        c.value = e.value
        c.where = e.where
        c.cell = e.cell
        c.boat = e.boat
    return out


def _copy_tiles(tiles: dict[str, Tile]) -> dict[str, Tile]:
    """Each tile's :meth:`Tile.copy`, as :func:`_copy_explorers` makes them."""
    out: dict[str, Tile] = {}
    new = object.__new__
    for h, t in tiles.items():
        c = out[h] = new(Tile)
        c.handle = t.handle
        c.cell = t.cell
        c.terrain = t.terrain
        c.back = t.back
        c.where = t.where
        c.holder = t.holder
        c.obtained = t.obtained
    return out


@dataclass(slots=True)
class Boat:
    handle: str
    where: str = SUPPLY        # reserve | supply | sea | lost
    cell: int | None = None
    owner: str | None = None   # reserve: the player who will place it
    passengers: list[str] = field(default_factory=list)

    def copy(self) -> Boat:
        return Boat(self.handle, self.where, self.cell, self.owner, list(self.passengers))


@dataclass(slots=True)
class Creature:
    handle: str
    kind: str                  # serpent | shark | whale (| dolphin | squid with the mini-expansions)
    where: str = SUPPLY        # supply | sea | lost
    cell: int | None = None

    def copy(self) -> Creature:
        return Creature(self.handle, self.kind, self.where, self.cell)


def _copy_boats(boats: dict[str, Boat]) -> dict[str, Boat]:
    """Each ship's :meth:`Boat.copy`, as :func:`_copy_explorers` makes them."""
    out: dict[str, Boat] = {}
    new = object.__new__
    for h, b in boats.items():
        c = out[h] = new(Boat)
        c.handle = b.handle
        c.where = b.where
        c.cell = b.cell
        c.owner = b.owner
        c.passengers = list(b.passengers)
    return out


def _copy_creatures(creatures: dict[str, Creature]) -> dict[str, Creature]:
    """Each creature's :meth:`Creature.copy`, as :func:`_copy_explorers` makes them."""
    out: dict[str, Creature] = {}
    new = object.__new__
    for h, r in creatures.items():
        c = out[h] = new(Creature)
        c.handle = r.handle
        c.kind = r.kind
        c.where = r.where
        c.cell = r.cell
    return out


@dataclass(slots=True)
class Turn:
    number: int = 0            # 1 = the first player's first turn
    player: str = ""
    step: str = ""
    moves: int = 0             # movement points used in step 2
    swum: list[str] = field(default_factory=list)  # explorers that entered a sea space this turn
    tile_played: bool = False
    die: str | None = None     # the rolled face during the creature step

    def copy(self) -> Turn:
        return Turn(self.number, self.player, self.step, self.moves, list(self.swum), self.tile_played, self.die)


@dataclass(slots=True)
class Boarding:
    """A boat tile revealed next to more than three swimmers: the revealer chooses."""

    tile: str
    boat: str
    cell: int


@dataclass(slots=True)
class Reaction:
    """An open defense window: a creature is about to attack at ``cell``."""

    kind: str                  # tile back that answers it: shark_defense | whale_defense
    creature: str
    cell: int
    queue: list[str]           # threatened players not yet considered; queue[0] is being asked

    def copy(self) -> Reaction:
        return Reaction(self.kind, self.creature, self.cell, list(self.queue))


@dataclass
class State:
    players: list[str]
    colours: dict[str, list[str]]          # player -> colours
    options: dict[str, str]
    standing: dict[str, dict[str, str] | None]  # player -> standing orders (None = unknown)
    phase: str
    turn: Turn
    explorers: dict[str, Explorer]
    tiles: dict[str, Tile]
    boats: dict[str, Boat]
    creatures: dict[str, Creature]
    boarding: Boarding | None = None
    reaction: Reaction | None = None
    history: dict[str, int] = field(default_factory=dict)
    # derived indexes
    owner_of: dict[str, str] = field(default_factory=dict)         # colour -> player
    #: island tiles, in handle order (made in that order; a tile leaves the island, never joins it)
    tile_at: dict[int, str] = field(default_factory=dict)
    boat_at: dict[int, str] = field(default_factory=dict)
    land_at: dict[int, list[str]] = field(default_factory=dict)    # explorers on a tile
    sea_at: dict[int, list[str]] = field(default_factory=dict)     # swimmers
    creatures_at: dict[int, list[str]] = field(default_factory=dict)
    owned: dict[str, list[Explorer]] = field(default_factory=dict)  # player -> their explorers (they never change hands)
    #: player -> the tiles in their hand, in the tiles' order (:meth:`take_into_hand`, :meth:`use_tile`)
    hands: dict[str, list[str]] = field(default_factory=dict)

    # --- copies ---------------------------------------------------------
    def copy(self) -> Self:
        """An independent copy (nothing mutable shared: an action applied to it leaves this
        state as it was), field by field, a few times quicker than a pickle round trip.  A
        subclass that adds a mutable field copies it in its own ``copy``; the tests check that
        a copy shares nothing mutable with its original and pickles to the same bytes."""
        new = object.__new__(type(self))     # the immutable fields (and a subclass's, until it copies its own)
        new.__dict__.update(self.__dict__)
        new.players = list(self.players)
        new.colours = {p: list(cs) for p, cs in self.colours.items()}
        new.options = dict(self.options)
        new.standing = {p: None if orders is None else dict(orders) for p, orders in self.standing.items()}
        new.turn = self.turn.copy()
        # the records' ``copy`` written out (a tenth quicker than a call per record: the choice
        # graph and the bots copy states by the thousand)
        new.explorers = _copy_explorers(self.explorers)
        new.tiles = _copy_tiles(self.tiles)
        new.boats = _copy_boats(self.boats)
        new.creatures = _copy_creatures(self.creatures)
        new.boarding = None if self.boarding is None else Boarding(self.boarding.tile, self.boarding.boat,
                                                                   self.boarding.cell)
        new.reaction = None if self.reaction is None else self.reaction.copy()
        new.history = dict(self.history)
        new.owner_of, new.tile_at, new.boat_at = dict(self.owner_of), dict(self.tile_at), dict(self.boat_at)
        new.land_at = {k: list(v) for k, v in self.land_at.items()}
        new.sea_at = {k: list(v) for k, v in self.sea_at.items()}
        new.creatures_at = {k: list(v) for k, v in self.creatures_at.items()}
        new.owned = {p: [new.explorers[e.handle] for e in es] for p, es in self.owned.items()}
        new.hands = {p: list(hs) for p, hs in self.hands.items()}
        return new

    # --- indexes --------------------------------------------------------
    def rebuild_indexes(self) -> None:
        self.owner_of = {c: p for p, cs in self.colours.items() for c in cs}
        self.owned = {}
        for e in self.explorers.values():
            self.owned.setdefault(e.owner, []).append(e)
        self.tile_at = {t.cell: t.handle for t in self.tiles.values() if t.where == ISLAND}
        self.hands = {}
        for t in self.tiles.values():
            if t.where == HAND and t.holder is not None:
                self.hands.setdefault(t.holder, []).append(t.handle)
        self.boat_at = {}
        self.land_at, self.sea_at, self.creatures_at = {}, {}, {}
        for b in self.boats.values():
            b.passengers = []
            if b.where == SEA:
                self.boat_at[at(b.cell)] = b.handle
        for e in self.explorers.values():
            if e.where == LAND:
                self.land_at.setdefault(at(e.cell), []).append(e.handle)
            elif e.where == SEA:
                self.sea_at.setdefault(at(e.cell), []).append(e.handle)
            elif e.where == BOAT:
                self.boats[ship_of(e.boat)].passengers.append(e.handle)
        for c in self.creatures.values():
            if c.where == SEA:
                self.creatures_at.setdefault(at(c.cell), []).append(c.handle)

    def add_creatures(self, kind: str, spec: Mapping[str, Any]) -> None:
        """Add an expansion's ``spec["count"]`` creatures of ``kind`` (handles ``spec["prefix"]``
        1, 2, ...) off the board, keeping the creatures in handle order."""
        for i in range(spec["count"]):
            handle = f"{spec['prefix']}{i + 1}"
            self.creatures[handle] = Creature(handle, kind)
        self.creatures = {h: self.creatures[h] for h in sort_handles(self.creatures)}
        self.rebuild_indexes()

    # --- moving pieces (keep the indexes in step) ------------------------
    def _detach_explorer(self, e: Explorer) -> None:
        if e.where == LAND:
            _drop(self.land_at, at(e.cell), e.handle)
        elif e.where == SEA:
            _drop(self.sea_at, at(e.cell), e.handle)
        elif e.where == BOAT:
            self.boats[ship_of(e.boat)].passengers.remove(e.handle)

    def put_explorer(self, handle: str, where: str, cell: int | None = None, boat: str | None = None) -> None:
        e = self.explorers[handle]
        self._detach_explorer(e)
        e.where, e.cell, e.boat = where, cell, boat
        if where == LAND:
            self.land_at.setdefault(at(cell), []).append(handle)
        elif where == SEA:
            self.sea_at.setdefault(at(cell), []).append(handle)
        elif where == BOAT:
            self.boats[ship_of(boat)].passengers.append(handle)

    def put_boat(self, handle: str, where: str, cell: int | None = None) -> None:
        """Move a ship (its passengers go with it)."""
        b = self.boats[handle]
        if b.where == SEA and b.cell is not None and self.boat_at.get(b.cell) == handle:
            del self.boat_at[b.cell]
        b.where, b.cell = where, cell
        if where == SEA:
            self.boat_at[at(cell)] = handle
        if where != RESERVE:
            b.owner = None

    def put_creature(self, handle: str, where: str, cell: int | None = None) -> None:
        c = self.creatures[handle]
        if c.where == SEA:
            _drop(self.creatures_at, at(c.cell), handle)
        c.where, c.cell = where, cell
        if where == SEA:
            self.creatures_at.setdefault(at(cell), []).append(handle)

    def lift_tile(self, handle: str) -> None:
        """Take a tile off the island (its explorers stay where they are: call site moves them)."""
        t = self.tiles[handle]
        if self.tile_at.get(t.cell) == handle:
            del self.tile_at[t.cell]

    def take_into_hand(self, handle: str, player: str) -> None:
        """Put a tile in ``player``'s hand, taken this turn."""
        t = self.tiles[handle]
        t.where, t.holder, t.obtained = HAND, player, self.turn.number
        self.hands[player] = [h for h, tile in self.tiles.items() if tile.where == HAND and tile.holder == player]

    def use_tile(self, handle: str) -> None:
        """A tile is used: out of its holder's hand (if it was in one), out of the game."""
        t = self.tiles[handle]
        if t.where == HAND and t.holder is not None:
            _unhold(self.hands, t.holder, handle)
        t.where, t.holder = USED, None

    # --- queries ---------------------------------------------------------
    def open_reaction(self) -> Reaction:
        """The open defense window (the caller knows there is one)."""
        if self.reaction is None:
            raise RuntimeError("no defense window is open")
        return self.reaction

    def open_boarding(self) -> Boarding:
        """The open boat-boarding choice (the caller knows there is one)."""
        if self.boarding is None:
            raise RuntimeError("no boarding choice is open")
        return self.boarding

    def explorers_of(self, player: str) -> list[Explorer]:
        """``player``'s explorers, in handle order (wherever they are)."""
        return self.owned.get(player, [])

    def explorer_cell(self, e: Explorer) -> int | None:
        return self.boats[ship_of(e.boat)].cell if e.where == BOAT else e.cell

    def swimmers(self, cell: int) -> list[str]:
        return self.sea_at.get(cell, [])

    def on_land(self, cell: int) -> list[str]:
        return self.land_at.get(cell, [])

    def creatures_in(self, cell: int) -> list[str]:
        return self.creatures_at.get(cell, [])

    def has_creature(self, cell: int, kinds: tuple[str, ...]) -> bool:
        handles = self.creatures_at.get(cell)
        if not handles:              # (most spaces: no creature)
            return False
        creatures = self.creatures
        for h in handles:
            if creatures[h].kind in kinds:
                return True
        return False

    def cells_with_creature(self, kinds: tuple[str, ...]) -> set[int]:
        """The cells holding a creature of one of ``kinds`` (:meth:`has_creature`, all at once)."""
        creatures = self.creatures
        return {cell for cell, handles in self.creatures_at.items() if any(creatures[h].kind in kinds for h in handles)}

    def is_sea(self, cell: int) -> bool:
        """For a playable hex: no terrain tile on it.  (Safe isles are not playable
        hexes; callers reach cells through the board's neighbour lists, which hold
        playable hexes only.)"""
        return cell not in self.tile_at

    def players_from(self, player: str, include_self: bool = False) -> list[str]:
        """Players in seat order ("clockwise") starting after ``player``."""
        i = self.players.index(player)
        n = len(self.players)
        order = [self.players[(i + k) % n] for k in range(1, n + 1)]
        return order if include_self else order[:-1]


def _unhold(hands: dict[str, list[str]], player: str, handle: str) -> None:
    held = hands[player]
    held.remove(handle)
    if not held:
        del hands[player]


def _drop(index: dict[int, list[str]], cell: int, handle: str) -> None:
    items = index[cell]
    items.remove(handle)
    if not items:
        del index[cell]
