"""The 23 station tile backs: what each does, as tables from a tile's ``rule:`` to its effect.

Green (played at once) uses the core's tile rules with Space Attack's readings: a Spawn or
Warrior tile's creature *appears* and so attacks (a defence may answer); an Escape Pod or
Fighter tile launches a ship of its kind, the fallen crew boarding it (the revealer chooses
when more fall than it holds: one for a Fighter); the black hole is the core's ``clear-area``;
the Core Breach ends the game.

Red (step 2, any number, "obtained during a previous round") and blue (after the roll) are
hand tiles (:class:`~pbem.rules.survive.base.HandTile`): each rule lists its legal parameter
sets and plays one.  The parameters are keys of the ``play`` action:

=========================  ==========================================================
rule                       ``{play: TILE, ...}``
=========================  ==========================================================
swap-crew                  ``crew: [r1, b3]`` (on two tiles, or aboard two ships)
drifter-to-station         ``crew: r3, to: G5``
drifter-to-ship            ``crew: r3, ship: P2``
fire-turret                ``turret: T37, at: F9``
move-to-empty-space        ``ship: P4, to: F2`` (an empty ship) or ``creature: W2, to: F2``
fly-fighter                ``ship: X2, to: F9``
place-near-queens          ``warrior: F4, spawn: H9`` (+ ``warrior_token``/``spawn_token``)
extra-space                nothing more
evolve                     ``creature: S2, into: warrior`` (+ ``token: W4``)
=========================  ==========================================================
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Callable, Iterator, Mapping, Sequence

from pbem.core.choices import Chain, LazyActions, Pairs

from pbem.game import IllegalAction
from pbem.rules.survive.actions import handle_arg, handle_list
from pbem.rules.survive.base import Events, HandTile, event
from pbem.rules.survive.state import BOAT, LAND, SEA, Tile, at, sort_handles
from pbem.rules.spaceattack.creatures import Creatures
from pbem.rules.spaceattack.state import SpaceAttackState

#: every parameter key a tile takes (the ``play`` action's optional keys)
TILE_KEYS = ("crew", "to", "ship", "turret", "at", "creature", "into", "token", "warrior", "spawn",
             "warrior_token", "spawn_token")

Options = list[dict[str, Any]]


@dataclass(frozen=True)
class _PiecePlay:
    """Playing ``tile`` to move a piece (named by ``key``) to a space: ``{play: TILE, KEY: piece, to: SPACE}``."""

    tile: str
    key: str

    def __call__(self, piece: str, to: str) -> dict[str, Any]:
        return {"play": self.tile, self.key: piece, "to": to}


class SwapPlays(LazyActions):
    """A swap tile's options (:meth:`StationTiles.options_swap`): ``{play: TILE, crew: [a, b]}`` for
    every two crew tokens in different places, in the order of :func:`itertools.combinations`,
    made only when read.  ``placed`` is each crew token with its place, in handle order."""

    def __init__(self, tile: str, placed: list[tuple[str, Any]]) -> None:
        self._tile, self._placed = tile, placed
        n = len(placed)
        # partners[i]: how many tokens after the i-th are somewhere else (a pair (i, j), i < j)
        later: dict[Any, int] = {}
        partners = [0] * n
        for i in range(n - 1, -1, -1):
            place = placed[i][1]
            same = later.get(place, 0)
            partners[i] = n - 1 - i - same
            later[place] = same + 1
        self._partners = partners
        self._len = sum(partners)

    def __len__(self) -> int:
        return self._len

    def item(self, k: int) -> dict[str, Any]:
        placed = self._placed
        for i, count in enumerate(self._partners):
            if k < count:
                a, pa = placed[i]
                for b, pb in placed[i + 1:]:
                    if pb != pa:
                        if k == 0:
                            return {"play": self._tile, "crew": [a, b]}
                        k -= 1
            k -= count
        raise IndexError("legal action index out of range")   # pragma: no cover - the length covers every index

    def __iter__(self) -> Iterator[dict[str, Any]]:
        tile = self._tile
        return ({"play": tile, "crew": [a, b]} for (a, pa), (b, pb) in combinations(self._placed, 2) if pa != pb)


class NearQueensPlays(LazyActions):
    """A place-near-queens tile's options (:meth:`StationTiles.options_near_queens`):
    ``{play: TILE, FIRST: SPACE, SECOND: SPACE}`` for each of ``pairs`` (two spaces, in their
    sorted order), made only when read."""

    def __init__(self, tile: str, kinds: tuple[str, str], pairs: list[tuple[int, int]], labels: Sequence[str]) -> None:
        self._tile, self._kinds, self._pairs, self._labels = tile, kinds, pairs, labels

    def __len__(self) -> int:
        return len(self._pairs)

    def item(self, k: int) -> dict[str, Any]:
        (first, second), (a, b), labels = self._kinds, self._pairs[k], self._labels
        return {"play": self._tile, first: labels[a], second: labels[b]}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self.item(k) for k in range(len(self._pairs)))


class TilePlays(Chain):
    """The hand tiles' plays (:meth:`StationTiles.hand_choices`): a chain of each tile's options,
    made by ``make`` when first read (its length, an action, the parts).  None of them is a move,
    a shot or a deployment, so the greedy bot scores them 0 unread, and where a move scores more
    it never reads them (:meth:`pbem.rules.spaceattack.words.Words.chain_scores`)."""

    def __init__(self, make: Callable[[], list[Sequence[dict[str, Any]]]]) -> None:
        super().__init__(())
        self._make: Callable[[], list[Sequence[dict[str, Any]]]] | None = make

    @property
    def parts(self) -> list[Sequence[dict[str, Any]]]:
        make = self._make
        if make is not None:
            self._parts, self._make = make(), None
        return self._parts


class StationTiles(Creatures):
    # --- green: played at once ------------------------------------------------------------------
    def effect_place_creature(self, state: SpaceAttackState, tile: Tile, player: str, events: Events,
                              boarders: list[str] | None) -> None:
        """"Take a Spawn [Warrior] token that had been set aside and place it on the open space ...
        If no Spawns are available, do not place one, and Drifters are spared."  It appears there
        and attacks it (a Spawn the drifters who fell from the tile)."""
        kind = self.tile_creature(tile)
        handle = self.take_from_supply(state, kind, events)
        if handle is not None:
            self.appear(state, handle, tile.cell, events)

    def ship_kind(self, back: str) -> str:
        return str(self.tile_backs[back]["ship"])

    def kind_capacity(self, kind: str) -> int:
        return int(self.comp["fighters" if kind == "fighter" else "boats"]["capacity"])

    def effect_place_ship(self, state: SpaceAttackState, tile: Tile, player: str, events: Events,
                          boarders: list[str] | None) -> None:
        """"Take a Fighter [an Escape Pod] token that had been set aside and place it on the open
        space ... If that tile contained one or more Crew tokens, place one of them [them] on board
        ... (chosen by the active player)"."""
        kind = self.ship_kind(tile.back or "")
        boat = self.take_from_supply(state, kind, events)
        if boat is None:
            return
        events.append(event({"event": "appear", "piece": boat, "at": self.label(tile.cell)}))
        self.launch_ship(state, boat, tile, player, events, boarders)

    def removal_rolls_die(self, state: SpaceAttackState, back: str, fallen: list[str],
                          boarders: list[str] | None) -> bool:
        """The die is rolled with the removal unless the game ends or the revealer must choose who
        boards (then the choice rolls it)."""
        if self.back_ends_game(state, back):
            return False
        if self.back_rule(back) == "place-ship":
            kind = self.ship_kind(back)
            cap = self.kind_capacity(kind)
            if len(fallen) > cap and (boarders is None or len(boarders) != cap):
                return not self.supply(state, kind)
        return True

    def clear_area_cause(self) -> str:
        return "black hole"

    def effect_end_game(self, state: SpaceAttackState, tile: Tile, player: str, events: Events,
                        boarders: list[str] | None) -> None:
        """"a Core explosion destroys what remains of the Station as well as any Crew who haven't
        reached Jump Points. The game ends.\""""
        self.end_game(state, events, "core breach")

    # --- the hand tiles' table ---------------------------------------------------------------------
    def hand_tile_table(self) -> dict[str, HandTile[SpaceAttackState]]:
        return {**super().hand_tile_table(),
                "swap-crew": HandTile(self.options_swap, self.play_swap),
                "drifter-to-station": HandTile(self.options_drifter_to_station, self.play_drifter_to_station),
                "drifter-to-ship": HandTile(self.options_drifter_to_ship, self.play_drifter_to_ship),
                "fire-turret": HandTile(self.options_fire, self.play_fire),
                "move-to-empty-space": HandTile(self.options_to_empty, self.play_to_empty),
                "fly-fighter": HandTile(self.options_fly, self.play_fly),
                "place-near-queens": HandTile(self.options_near_queens, self.play_near_queens),
                "extra-space": HandTile(self.options_extra, self.play_extra),
                "evolve": HandTile(self.options_evolve, self.play_evolve)}

    def tile_params(self, action: Mapping[str, Any], back: str, *keys: str) -> None:
        extra = sorted(set(action) - {"play", *keys})
        if extra:
            takes = ", ".join(keys) if keys else "nothing more"
            raise IllegalAction(f"the {back} tile does not take {extra[0]!r} (it takes {takes})")

    def space_arg(self, action: Mapping[str, Any], key: str) -> int:
        if action.get(key) is None:
            raise IllegalAction(f"say where: {key}: SPACE")
        return self.cell_arg(action[key], key)

    # swap-crew: "Exchange the places of two Crew tokens on Station tiles [on Ships]. May belong to
    # you or other players."
    def swap_place(self, state: SpaceAttackState, handle: str, on: str) -> Any:
        e = state.explorers[handle]
        if on == "station":
            return e.cell if e.where == LAND else None
        return e.boat if e.where == BOAT else None

    def options_swap(self, state: SpaceAttackState, player: str, back: str) -> Options:
        return [{"crew": [a, b]} for (a, pa), (b, pb) in combinations(self.swap_placed(state, back), 2) if pa != pb]

    def swap_placed(self, state: SpaceAttackState, back: str) -> list[tuple[str, Any]]:
        """The crew tokens a swap tile may exchange, each with its place, in handle order."""
        on = str(self.tile_backs[back]["crew_on"])
        placed = [(h, self.swap_place(state, h, on)) for h in sort_handles(state.explorers)]
        return [(h, p) for h, p in placed if p is not None]

    def play_swap(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                  events: Events) -> None:
        self.tile_params(action, back, "crew")
        on = str(self.tile_backs[back]["crew_on"])
        crew = handle_list(action.get("crew"), "crew", self.word("explorer"))
        where = "on station tiles" if on == "station" else "aboard ships"
        if len(crew) != 2:
            raise IllegalAction(f"name two crew tokens {where}: crew: [r1, b3]")
        places = []
        for h in crew:
            place = self.swap_place(state, h, on) if h in state.explorers else None
            if place is None:
                raise IllegalAction(f"{h} is not a crew token {where}")
            places.append(place)
        if places[0] == places[1]:
            raise IllegalAction(f"{crew[0]} and {crew[1]} are in the same place: nothing to exchange")
        a, b = crew
        if on == "station":
            state.put_explorer(a, LAND, places[1])
            state.put_explorer(b, LAND, places[0])
            shown = [self.label(p) for p in places]
        else:
            state.put_explorer(a, BOAT, boat=places[1])
            state.put_explorer(b, BOAT, boat=places[0])
            shown = [str(p) for p in places]
        events.append(event({"event": "swap", "player": player, "crew": [a, b], "places": shown}))

    # drifter-to-station: "Move a Drifter onto an adjacent Station tile."
    def drifters(self, state: SpaceAttackState) -> list[str]:
        return sort_handles(e.handle for e in state.explorers.values() if e.where == SEA)

    def options_drifter_to_station(self, state: SpaceAttackState, player: str, back: str) -> Options:
        return [{"crew": h, "to": self.label(n)} for h in self.drifters(state)
                for n in self.board.neighbours[at(state.explorers[h].cell)] if n in state.tile_at]

    def drifter_arg(self, state: SpaceAttackState, action: Mapping[str, Any]) -> str:
        handle = handle_arg(action.get("crew"), "crew")
        e = state.explorers.get(handle)
        if e is None or e.where != SEA:
            raise IllegalAction(f"{handle} is not a drifter (a crew token in open space)")
        return handle

    def play_drifter_to_station(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                                events: Events) -> None:
        self.tile_params(action, back, "crew", "to")
        handle = self.drifter_arg(state, action)
        cell = self.space_arg(action, "to")
        here = at(state.explorers[handle].cell)
        if cell not in state.tile_at or cell not in self.board.neighbours[here]:
            raise IllegalAction(f"{self.label(cell)} is not a station tile next to {handle} at {self.label(here)}")
        state.put_explorer(handle, LAND, cell)
        events.append(event({"event": "move", "player": player, "explorer": handle, "how": "tile",
                             "from": self.label(here), "to": self.label(cell)}))

    # drifter-to-ship: "Move a drifter onto a ship in the same or adjacent space with an empty slot."
    def ships_near(self, state: SpaceAttackState, cell: int) -> list[str]:
        cells = [cell, *self.board.neighbours[cell]]
        return sort_handles(b for c in cells if (b := state.boat_at.get(c)) is not None and self.has_room(state, b))

    def options_drifter_to_ship(self, state: SpaceAttackState, player: str, back: str) -> Options:
        return [{"crew": h, "ship": b} for h in self.drifters(state)
                for b in self.ships_near(state, at(state.explorers[h].cell))]

    def play_drifter_to_ship(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                             events: Events) -> None:
        self.tile_params(action, back, "crew", "ship")
        handle = self.drifter_arg(state, action)
        boat = handle_arg(action.get("ship"), "ship")
        here = at(state.explorers[handle].cell)
        if boat not in self.ships_near(state, here):
            raise IllegalAction(f"{boat} is not a ship with room in or next to {handle}'s space {self.label(here)}")
        state.put_explorer(handle, BOAT, boat=boat)
        events.append(event({"event": "move", "player": player, "explorer": handle, "how": "tile",
                             "from": self.label(here), "to": boat}))

    # fire-turret: "Fire any Laser Turret, whether you have a Crew token there or not."
    def options_fire(self, state: SpaceAttackState, player: str, back: str) -> Options:
        return [{"turret": t, "at": self.label(c)} for t in self.turrets(state) for c in self.shots(state, t)]

    def turret_arg(self, state: SpaceAttackState, value: Any) -> str:
        """A turret named by its Reactor tile (T37) or that tile's space."""
        if isinstance(value, str) and value in state.tiles:
            handle = value
        else:
            handle = state.tile_at.get(self.cell_arg(value, "turret"), "")
        if handle not in self.turrets(state):
            raise IllegalAction(f"there is no laser turret at {value!r}: turrets stand on the Reactor tiles "
                                f"still on the station ({', '.join(self.turrets(state)) or 'none left'})")
        return handle

    def check_shot(self, state: SpaceAttackState, turret: str, cell: int) -> None:
        if cell not in self.shots(state, turret):
            raise IllegalAction(f"a shot from {turret} cannot hit {self.label(cell)}: it hits the first space "
                                "with creatures on one of its six lines, short of any station tile")

    def play_fire(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                  events: Events) -> None:
        self.tile_params(action, back, "turret", "at")
        turret = self.turret_arg(state, action.get("turret"))
        cell = self.space_arg(action, "at")
        self.check_shot(state, turret, cell)
        self.others_must_be_known(state)
        self.fire(state, player, turret, cell, events, how="tile")

    # move-to-empty-space: "Move an empty Ship to an empty space (a space not containing any
    # creatures, drifters, or ships)"; "Teleport any Creature to an empty space."
    #: the turn model's vacant spaces, as the core's; the red tiles' choices by their rules (``backs``)
    turn_model_covers = frozenset({"empty_spaces", "hand_plays", "hand_tile_table", "options_swap", "swap_place",
                                   "options_drifter_to_station", "options_drifter_to_ship", "drifters",
                                   "ships_near", "options_fire", "options_to_empty", "to_empty_pieces",
                                   "options_fly", "crewed_fighters", "options_near_queens", "near_queen_kinds",
                                   "queens", "default_token", "options_extra", "options_evolve", "changes"})

    def empty_spaces(self, state: SpaceAttackState) -> list[int]:
        """"An empty space (a space not containing any creatures, drifters, or ships)": the core's
        vacant spaces (:meth:`vacant`, read from the indexes)."""
        return self.vacant_cells(state)

    def to_empty_pieces(self, state: SpaceAttackState, back: str) -> tuple[str, list[str]]:
        """The key the tile's piece is named by, and the pieces it may move."""
        if self.tile_backs[back]["piece"] == "creature":
            return "creature", sort_handles(c.handle for c in state.creatures.values() if c.where == SEA)
        return "ship", sort_handles(b.handle for b in state.boats.values() if b.where == SEA and not b.passengers)

    def options_to_empty(self, state: SpaceAttackState, player: str, back: str) -> Options:
        key, pieces = self.to_empty_pieces(state, back)
        spaces = [self.label(c) for c in self.empty_spaces(state)]
        return [{key: h, "to": s} for h in pieces for s in spaces]

    def play_to_empty(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                      events: Events) -> None:
        key, pieces = self.to_empty_pieces(state, back)
        self.tile_params(action, back, key, "to")
        handle = handle_arg(action.get(key), key)
        if handle not in pieces:
            what = "a creature on the board" if key == "creature" else "an empty ship on the board"
            raise IllegalAction(f"this tile moves {what}; {handle} is not one")
        cell = self.space_arg(action, "to")
        if not self.vacant(state, cell):
            raise IllegalAction(f"{self.label(cell)} is not an empty space (no station tile, creature, drifter "
                                "or ship)")
        if key == "creature":
            c = state.creatures[handle]
            frm = c.cell
            state.put_creature(handle, SEA, cell)
            events.append(event({"event": "creature", "player": player, "creature": handle, "kind": c.kind,
                                 "how": "tile", "from": self.label(frm), "to": self.label(cell)}))
        else:
            frm = state.boats[handle].cell
            state.put_boat(handle, SEA, cell)
            events.append(event({"event": "sail", "player": player, "boat": handle, "how": "tile",
                                 "from": self.label(frm), "to": self.label(cell)}))

    # fly-fighter: "Move a fighter occupied by any player, and keep any Creatures killed."
    def crewed_fighters(self, state: SpaceAttackState) -> list[str]:
        return [h for h in self.fighter_handles
                if h in state.boats and state.boats[h].where == SEA and state.boats[h].passengers]

    def options_fly(self, state: SpaceAttackState, player: str, back: str) -> Options:
        return [{"ship": h, "to": self.label(c)} for h in self.crewed_fighters(state) for c in self.flights(state, h)]

    def play_fly(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                 events: Events) -> None:
        self.tile_params(action, back, "ship", "to")
        fighter = handle_arg(action.get("ship"), "ship")
        if fighter not in self.crewed_fighters(state):
            raise IllegalAction(f"this tile flies a fighter with crew aboard; {fighter} is not one")
        cell = self.space_arg(action, "to")
        self.check_flight(state, fighter, cell)
        if self.flight_captures(state, fighter, cell):
            self.others_must_be_known(state)
        self.fly(state, player, fighter, cell, events, captor=player, how="tile")

    def check_flight(self, state: SpaceAttackState, fighter: str, cell: int) -> None:
        if cell not in self.flights(state, fighter):
            raise IllegalAction(f"fighter {fighter} cannot fly to {self.label(cell)}: it flies in a straight line, "
                                "stops at the first creatures, never onto a station tile or another ship")

    # place-near-queens: "Place a Warrior in an empty space next to a Queen, and a Spawn in an empty
    # space next to a different Queen. Use unused tokens first. If there are none, use one that is on
    # the board. If neither of these are possible you may not use this tile."
    def queens(self, state: SpaceAttackState) -> list[str]:
        return [c.handle for c in state.creatures.values() if c.where == SEA and self.rule_of(c.kind) == "serpent"]

    def near_queen_kinds(self, back: str) -> tuple[str, str]:
        first, second = self.tile_backs[back]["creatures"]
        return str(first), str(second)

    def default_token(self, state: SpaceAttackState, kind: str) -> str | None:
        """The token a placement uses unless told: an unused one, else the first on the board."""
        unused = self.supply(state, kind)
        if unused:
            return unused[0]
        board = self.on_board_of(state, kind)
        return board[0] if board else None

    def options_near_queens(self, state: SpaceAttackState, player: str, back: str) -> Options:
        first, second = self.near_queen_kinds(back)
        return [{first: self.label(a), second: self.label(b)} for a, b in self.near_queen_pairs(state, back)]

    def near_queen_pairs(self, state: SpaceAttackState, back: str) -> list[tuple[int, int]]:
        """The two spaces of each of :meth:`options_near_queens` (the first kind's, the second's),
        in its order: two different empty spaces next to two different Queens; none without a
        token of each kind to place."""
        first, second = self.near_queen_kinds(back)
        if self.default_token(state, first) is None or self.default_token(state, second) is None:
            return []
        queens = self.queens(state)
        near = {q: [n for n in self.board.neighbours[at(state.creatures[q].cell)] if self.vacant(state, n)]
                for q in queens}
        pairs: set[tuple[int, int]] = set()
        for q1 in queens:
            for q2 in queens:
                if q1 != q2:
                    pairs.update((a, b) for a in near[q1] for b in near[q2] if a != b)
        return sorted(pairs)

    def play_near_queens(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                         events: Events) -> None:
        first, second = self.near_queen_kinds(back)
        self.tile_params(action, back, first, second, f"{first}_token", f"{second}_token")
        cells = [self.space_arg(action, first), self.space_arg(action, second)]
        if cells[0] == cells[1]:
            raise IllegalAction(f"the {first} and the {second} go to two different spaces")
        tokens = []
        for kind in (first, second):
            tokens.append(self.placement_token(state, kind, action.get(f"{kind}_token")))
        queens = self.queens(state)
        next_to = [[q for q in queens if c in self.board.neighbours[at(state.creatures[q].cell)]] for c in cells]
        for cell, qs in zip(cells, next_to):
            if not self.vacant(state, cell):
                raise IllegalAction(f"{self.label(cell)} is not an empty space")
            if not qs:
                raise IllegalAction(f"{self.label(cell)} is not next to a Queen")
        if not any(q1 != q2 for q1 in next_to[0] for q2 in next_to[1]):
            raise IllegalAction(f"the {first} and the {second} must be next to two different Queens")
        for kind, cell, token in zip((first, second), cells, tokens):
            frm = state.creatures[token].cell
            state.put_creature(token, SEA, cell)
            record = {"event": "appear", "piece": token, "at": self.label(cell), "player": player}
            if frm is not None:
                record["from"] = self.label(frm)
            events.append(event(record))

    def placement_token(self, state: SpaceAttackState, kind: str, value: Any) -> str:
        unused = self.supply(state, kind)
        if value is None:
            token = self.default_token(state, kind)
            if token is None:
                raise IllegalAction(f"no {kind} token is unused or on the board: this tile cannot be played")
            return token
        token = handle_arg(value, f"{kind}_token")
        if unused:
            raise IllegalAction(f"an unused {kind} token is there, so it is used: drop '{kind}_token'")
        if token not in self.on_board_of(state, kind):
            raise IllegalAction(f"{token} is not a {kind} on the board")
        return token

    # extra-space: "Move the creature you rolled one extra space."
    def options_extra(self, state: SpaceAttackState, player: str, back: str) -> Options:
        return [{}] if self.movable_creatures(state, state.turn.die or "") else []

    def play_extra(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                   events: Events) -> None:
        self.tile_params(action, back)
        if not self.movable_creatures(state, state.turn.die or ""):
            raise IllegalAction(f"no {state.turn.die} is on the board to move an extra space")
        state.extra += int(self.tile_backs[back]["spaces"])

    # evolve: "Evolve a Spawn into a Warrior or a Warrior into a Spawn" (and the other two)
    def changes(self, back: str) -> dict[str, list[str]]:
        return {str(k): [str(x) for x in v] for k, v in self.tile_backs[back]["changes"].items()}

    def options_evolve(self, state: SpaceAttackState, player: str, back: str) -> Options:
        out: Options = []
        for source, targets in self.changes(back).items():
            for h in self.on_board_of(state, source):
                for into in targets:
                    tokens = self.evolve_tokens(state, into)
                    if tokens is None:
                        out.append({"creature": h, "into": into})
                    else:
                        out.extend({"creature": h, "into": into, "token": t} for t in tokens)
        return out

    def play_evolve(self, state: SpaceAttackState, player: str, back: str, action: Mapping[str, Any],
                    events: Events) -> None:
        self.tile_params(action, back, "creature", "into", "token")
        handle = handle_arg(action.get("creature"), "creature")
        into = action.get("into")
        if not isinstance(into, str):
            raise IllegalAction("say what it evolves into: into: queen, spawn or warrior")
        token = None if action.get("token") is None else handle_arg(action["token"], "token")
        self.check_evolution(state, handle, into, token, self.changes(back))
        cell = at(state.creatures[handle].cell)
        self.check_defense_knowledge(state, into, cell)
        self.evolve(state, player, handle, into, token, events)

    # --- which tiles a player may play now ----------------------------------------------------------
    def hand_plays(self, state: SpaceAttackState, player: str, kind: str,
                   allowed: Callable[[Tile], bool]) -> Options:
        """Every ``{play: TILE, ...}`` of ``player``'s ``kind`` tiles that ``allowed`` lets through."""
        out: Options = []
        for h in self.hand(state, player):
            tile = state.tiles[h]
            back = self.known_back(state, h)
            if self.back_kind[back] == kind and allowed(tile):
                out.extend({"play": h, **params} for params in self.hand_tiles[back].options(state, player, back))
        return out

    def hand_choices(self, state: SpaceAttackState, player: str, kind: str,
                     allowed: Callable[[Tile], bool]) -> TilePlays:
        """:meth:`hand_plays` in its order, made only when read where a tile has many options
        (a swap: every two crew tokens; a move to an empty space: every piece to every empty space;
        a place-near-queens: every two spaces next to two Queens).
        The tiles in hand are found (and their backs asked) at once; each tile's options are worked
        out when the plays are first read (:class:`TilePlays`), on the state as it is then."""
        playable: list[tuple[str, str]] = []
        for h in self.hand(state, player):
            tile = state.tiles[h]
            back = self.known_back(state, h)
            if self.back_kind[back] == kind and allowed(tile):
                playable.append((h, back))
        if not playable:
            return TilePlays(list)
        return TilePlays(lambda: self.tile_play_parts(state, player, playable))

    def tile_play_parts(self, state: SpaceAttackState, player: str,
                        playable: list[tuple[str, str]]) -> list[Sequence[dict[str, Any]]]:
        """Each of the ``playable`` tiles' plays (:meth:`hand_choices`), in order."""
        parts: list[Sequence[dict[str, Any]]] = []
        for h, back in playable:
            options = self.hand_tiles[back].options
            if options == self.options_swap:
                parts.append(SwapPlays(h, self.swap_placed(state, back)))
            elif options == self.options_to_empty:
                key, pieces = self.to_empty_pieces(state, back)
                parts.append(Pairs(pieces, [self.label(c) for c in self.empty_spaces(state)], _PiecePlay(h, key)))
            elif options == self.options_near_queens:
                parts.append(NearQueensPlays(h, self.near_queen_kinds(back), self.near_queen_pairs(state, back),
                                             self.board.labels))
            else:
                parts.append([{"play": h, **params} for params in options(state, player, back)])
        return parts
