"""Step 2: "Move your Explorer and/or Ship tokens" (three movement points).

One ``{move: HANDLE, to: SPACE}`` action spends one movement point:

* explorer on land -> adjacent terrain tile (walk), a ship in an adjacent sea
  space (board), or that sea space (swim; ``swim: true`` when a ship is there);
* explorer aboard -> a ship in an adjacent space, its own space (jump
  overboard), or a safe isle next to the ship;
* swimmer -> an adjacent sea space (once per turn), the ship in its own space
  (only if it has not swum this turn), or a safe isle next to it;
* ship (empty, or one you control) -> an adjacent sea space without a ship.
"""
from __future__ import annotations

from typing import AbstractSet, Any, Iterator, Mapping, Sequence

from pbem.core.choices import LazyActions
from pbem.game import Action, IllegalAction, Rng
from pbem.rules.survive.actions import handle_arg, swim_arg
from pbem.rules.survive.base import NOWHERE, ActionHandler, Decider, Events, Spaces, StateT, event
from pbem.rules.survive.setup import SetupRules
from pbem.rules.survive.state import (
    BOAT,
    ISLE,
    LAND,
    LOST,
    SEA,
    STEP_MOVE,
    STEP_REMOVE,
    Explorer,
    at,
    ship_of,
)

#: where an explorer has moves of its own
ON_BOARD = frozenset((LAND, BOAT, SEA))


class MovementRules(SetupRules[StateT]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: ship handle -> how many people it carries (:meth:`ship_capacities`)
        self.capacities = self.ship_capacities()
        #: the steps onto the safe isles next to each space (:meth:`explorer_steps`)
        self.isle_steps = tuple(tuple((isle, False) for isle in isles) for isles in self.board.isles_next_to)

    # --- what creatures do to people and ships (from the creature rules in the data) ----------
    def swimmer_killers(self) -> tuple[str, ...]:
        """Kinds that remove a swimmer entering their space: serpent and shark rules."""
        return self.kinds_following("serpent", "shark")

    def ship_sinkers(self) -> tuple[str, ...]:
        """Kinds that destroy an occupied ship sailing into their space: serpent and whale rules."""
        return self.kinds_following("serpent", "whale")

    # --- ships ---------------------------------------------------------------
    def ship_capacities(self) -> dict[str, int]:
        """Ship handle -> how many people it carries: "Each Ship can only carry a maximum of three
        Explorer tokens (regardless of color)" (components ``boats.capacity``; a game with
        other ships, such as Space Attack's fighters, adds theirs).  Read once per ruleset."""
        spec = self.comp["boats"]
        return {f"{spec['prefix']}{i + 1}": int(spec["capacity"]) for i in range(int(spec["count"]))}

    def capacity(self, state: StateT, boat: str) -> int:
        """How many people ``boat`` carries (:meth:`ship_capacities`)."""
        return self.capacities[boat]

    def has_room(self, state: StateT, boat: str) -> bool:
        return len(state.boats[boat].passengers) < self.capacities[boat]

    def controllers(self, state: StateT, boat: str) -> list[str]:
        """"it's the player with the most Explorers on board who controls the Ship ...
        When multiple players have the same number of Explorers in a Ship, each player
        controls the Ship."  An empty ship: "any player can move it"."""
        passengers = state.boats[boat].passengers
        if not passengers:
            return list(state.players)
        counts: dict[str, int] = {}
        for h in passengers:
            owner = state.explorers[h].owner
            counts[owner] = counts.get(owner, 0) + 1
        top = max(counts.values())
        return [p for p in state.players if counts.get(p) == top]

    def ship_barriers(self) -> tuple[str, ...]:
        """The creature kinds whose space a ship with people aboard may not enter.  Default: none
        (the Giant Squid: "An occupied Boat may not be moved into a space with a Giant Squid")."""
        return ()

    def barrier_cells(self, state: StateT, boat: str) -> AbstractSet[int]:
        """The spaces :meth:`ship_barriers` close to ``boat`` (none when it is empty)."""
        barriers = self.ship_barriers()
        if not barriers or not state.boats[boat].passengers:
            return NOWHERE
        return state.cells_with_creature(barriers)

    def ship_may_enter(self, state: StateT, boat: str, cell: int) -> bool:
        """"A given sea space can only contain one Ship at any time" (and no ship sails onto land,
        nor, occupied, into the space of one of :meth:`ship_barriers`)."""
        if cell in state.tile_at or cell in state.boat_at:
            return False
        barriers = self.ship_barriers()    # (:meth:`barrier_cells` asked of this space alone)
        return not (barriers and state.boats[boat].passengers and state.has_creature(cell, barriers))

    def closed_to_ship(self, state: StateT, boat: str) -> Spaces:
        """The spaces ``boat`` may not sail into (not :meth:`ship_may_enter`), for a sea walk."""
        closed = state.tile_at.keys() | state.boat_at.keys()
        barred = self.barrier_cells(state, boat)
        return closed | barred if barred else closed

    def ship_stops(self, state: StateT, boat: str, cell: int) -> bool:
        """An occupied ship entering a serpent or whale space is destroyed there."""
        return bool(state.boats[boat].passengers) and state.has_creature(cell, self.ship_sinkers())

    def ship_stop_cells(self, state: StateT, boat: str) -> Spaces:
        """The spaces where :meth:`ship_stops` holds, for a sea walk (a layer that changes
        :meth:`ship_stops` gives its own)."""
        return state.cells_with_creature(self.ship_sinkers()) if state.boats[boat].passengers else NOWHERE

    def sail(self, state: StateT, boat: str, cell: int, events: Events) -> None:
        """Move a ship one or more spaces ending at ``cell`` and apply what it meets there.

        "If you move a Ship containing one or more Explorers into a sea space containing
        a Sea Serpent or a Whale, the Ship is immediately removed from the game, its
        passengers becoming Swimmers"."""
        state.put_boat(boat, SEA, cell)
        if self.ship_stops(state, boat, cell):
            self.capsize(state, boat, events, cause=self.logged("sailed", " into a ", "sea creature"))

    def capsize(self, state: StateT, boat: str, events: Events, cause: str) -> None:
        """The ship leaves the game; its passengers fall into its space as swimmers."""
        b = state.boats[boat]
        cell = at(b.cell)
        passengers = sorted(b.passengers)
        for h in passengers:
            state.put_explorer(h, SEA, cell)
        state.put_boat(boat, LOST)
        events.append(event({"event": "ship-lost", "boat": boat, "at": self.label(cell), "cause": cause,
                             "swimmers": passengers}))
        self.swimmers_fall_in(state, cell, passengers, events)

    def swimmers_fall_in(self, state: StateT, cell: int, handles: list[str], events: Events) -> None:
        """"if the sea space contains a Shark or Sea Serpent, these Swimmers are immediately removed"."""
        if handles and self.deadly_for_swimmers(state, cell):
            self.lose_explorers(state, self.unprotected(state, handles), cell, events, cause="eaten")

    def deadly_for_swimmers(self, state: StateT, cell: int) -> bool:
        """"If you move a Swimmer into a sea space containing a Sea Serpent or a Shark,
        the Swimmer is immediately removed from the game"."""
        return state.has_creature(cell, self.swimmer_killers())

    def deadly_spaces(self, state: StateT) -> Spaces:
        """The spaces where :meth:`deadly_for_swimmers` holds, for a sea walk."""
        return state.cells_with_creature(self.swimmer_killers())

    def unprotected(self, state: StateT, swimmers: list[str]) -> list[str]:
        """The swimmers among ``swimmers`` that sea creatures can attack (all of them in the
        base game; a dolphin protects one)."""
        return list(swimmers)

    def lose_explorers(self, state: StateT, handles: list[str], cell: int | None, events: Events, cause: str) -> None:
        handles = sorted(handles)
        for h in handles:
            state.put_explorer(h, LOST)
        if handles:
            events.append(event({"event": "lost", "explorers": handles, "at": self.label(cell), "cause": cause}))

    def lose_ship_and_crew(self, state: StateT, boat: str, events: Events, cause: str) -> None:
        b = state.boats[boat]
        cell = b.cell
        crew = sorted(b.passengers)
        for h in crew:
            state.put_explorer(h, LOST)
        state.put_boat(boat, LOST)
        events.append(event({"event": "ship-lost", "boat": boat, "at": self.label(cell), "cause": cause,
                             "swimmers": []}))
        if crew:
            events.append(event({"event": "lost", "explorers": crew, "at": self.label(cell), "cause": cause}))

    # --- one movement point ------------------------------------------------------
    def movement_points(self, state: StateT) -> int:
        return self.comp["movement_points"]

    def may_swim(self, state: StateT, explorer: str) -> bool:
        """"You can move a Swimmer only one sea space on your turn. When a Swimmer goes
        from a Terrain tile or Ship into a sea space, it's considered to be a movement
        of one sea space"."""
        return explorer not in state.turn.swum

    def may_board_from_the_sea(self, state: StateT, explorer: str) -> bool:
        """"You may not move a Swimmer from a sea space into a Boat in an adjacent sea space
        (since this would be considered 2 movements, and a Swimmer may move only one sea space
        in a turn)": climbing into the ship in its own space is the swimmer's one sea movement,
        so a swimmer that has swum (or jumped) this turn may not board."""
        return self.may_swim(state, explorer)

    def explorer_moves(self, state: StateT, handle: str) -> list[dict[str, Any]]:
        """Every legal one-point move of one explorer, as actions (:meth:`explorer_steps`)."""
        move = self.explorer_move
        return [move(handle, step) for step in self.explorer_steps(state, handle)]

    def explorer_move(self, handle: str, step: tuple[int, bool]) -> dict[str, Any]:
        """The action of one of :meth:`explorer_steps`: ``{move: r7, to: G5}`` (``swim: true``
        to swim beside a ship)."""
        cell, swim = step
        if swim:
            return {"move": handle, "to": self.board.labels[cell], "swim": True}
        return {"move": handle, "to": self.board.labels[cell]}

    def explorer_steps(self, state: StateT, handle: str) -> list[tuple[int, bool]]:
        """Every legal one-point move of one explorer: (the space it goes to, swim: true)."""
        e = state.explorers[handle]
        out: list[tuple[int, bool]] = []
        nb, land, ships = self.board.neighbours, state.tile_at, state.boat_at
        if e.where == LAND:
            assert e.cell is not None           # (on the board: not at(), a call, in the hottest listing)
            for n in nb[e.cell]:
                if n in land:
                    out.append((n, False))                  # walk
                    continue
                boat = ships.get(n)
                if boat is None or self.has_room(state, boat):
                    out.append((n, False))                  # swim, or board the ship there
                if boat is not None:
                    out.append((n, True))                   # swim beside the ship
        elif e.where == BOAT:
            cell = at(state.boats[ship_of(e.boat)].cell)
            for n in nb[cell]:
                boat = ships.get(n)
                if boat is not None and self.has_room(state, boat):
                    out.append((n, False))                  # to the ship next to it
            if self.may_swim(state, handle):
                out.append((cell, False))                   # jump overboard
            out.extend(self.isle_steps[cell])               # onto a safe isle next to it
        elif e.where == SEA:
            cell = at(e.cell)
            boat = ships.get(cell)
            if boat is not None and self.has_room(state, boat) and self.may_board_from_the_sea(state, handle):
                out.append((cell, False))                   # climb into the ship here
            if self.may_swim(state, handle):
                for n in nb[cell]:
                    if n not in land:
                        out.append((n, False))              # swim
            out.extend(self.isle_steps[cell])               # onto a safe isle next to it
        return out

    def boat_moves(self, state: StateT, boat: str) -> list[dict[str, Any]]:
        """Every legal one-point move of one ship, as actions (:meth:`boat_steps`)."""
        move = self.boat_move
        return [move(boat, cell) for cell in self.boat_steps(state, boat)]

    def boat_move(self, boat: str, cell: int) -> dict[str, Any]:
        """The action of one of :meth:`boat_steps`: ``{move: B3, to: F4}``."""
        return {"move": boat, "to": self.board.labels[cell]}

    def boat_steps(self, state: StateT, boat: str) -> list[int]:
        """The spaces a ship may sail to with one movement point (:meth:`ship_may_enter`, for
        the spaces next to it at once)."""
        around = self.board.neighbours[at(state.boats[boat].cell)]
        tile_at, boat_at, barred = state.tile_at, state.boat_at, self.barrier_cells(state, boat)
        return [n for n in around if n not in tile_at and n not in boat_at and n not in barred]

    def movable_boats(self, state: StateT, player: str) -> list[str]:
        """The ships at sea ``player`` may move: an empty ship, "any player can move it"; else
        its :meth:`controllers`."""
        controllers = self.controllers
        return [b.handle for b in state.boats.values()
                if b.where == SEA and (not b.passengers or player in controllers(state, b.handle))]

    def legal_move(self, state: StateT, player: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"done": "move"}]
        moves = self.explorer_moves
        for e in state.explorers_of(player):
            if e.where in ON_BOARD:
                out.extend(moves(state, e.handle))
        boat_moves = self.boat_moves
        for boat in self.movable_boats(state, player):
            out.extend(boat_moves(state, boat))
        return out

    # --- the movement step, counted before it is listed --------------------------------------
    def move_choices(self, state: StateT, player: str) -> Sequence[Action]:
        """:meth:`legal_move`, in its order, each piece's moves listed only when read or counted
        (:class:`MoveChoices`)."""
        return MoveChoices(self, state, [e.handle for e in state.explorers_of(player) if e.where in ON_BOARD],
                           self.boats_to_move(state, player))

    def boats_to_move(self, state: StateT, player: str) -> list[str]:
        """:meth:`movable_boats`, asking of a ship with people aboard only whether ``player`` is
        among the most numerous owners aboard (:meth:`controllers`, for one player); the
        fast-path tests compare the movement step with :meth:`legal_move` at every step."""
        out: list[str] = []
        explorers = state.explorers
        for b in state.boats.values():
            if b.where != SEA:
                continue
            aboard = b.passengers
            if not aboard:
                out.append(b.handle)
                continue
            mine = 0
            for h in aboard:
                if explorers[h].owner == player:
                    mine += 1
            if not mine:
                continue            # (another owner has the most aboard)
            if 2 * mine >= len(aboard):
                out.append(b.handle)        # (no other owner can have more)
                continue
            counts: dict[str, int] = {}
            for h in aboard:
                owner = explorers[h].owner
                counts[owner] = counts.get(owner, 0) + 1
            if mine == max(counts.values()):
                out.append(b.handle)
        return out

    def boat_move_counts(self, state: StateT, boats: list[str]) -> list[int]:
        """How many moves :meth:`boat_steps` lists for each of ``boats``, counted without listing
        them: the spaces next to the ship without land or a ship (or a barrier)."""
        near, ships = self.board.neighbour_sets, state.boats
        closed = state.tile_at.keys() | state.boat_at.keys()
        barriers = self.ship_barriers()     # (none: no ship has a barrier cell, :meth:`barrier_cells`)
        barred: AbstractSet[int] | None = None   # (the spaces closed to a ship with people aboard, once)
        counts = []
        for boat in boats:
            # (movable ships are at sea, so each has a space: not at(), a call, in the hottest count)
            free = near[ships[boat].cell] - closed      # type: ignore[index]
            if barriers and ships[boat].passengers:     # (:meth:`barrier_cells`, worked out once)
                if barred is None:
                    barred = state.cells_with_creature(barriers)
                free = free - barred
            counts.append(len(free))
        return counts

    def explorer_move_counts(self, state: StateT, handles: list[str]) -> list[int]:
        """How many moves :meth:`explorer_moves` lists for each of ``handles``, counted without
        listing them; tests check the two agree at every step.

        On land: one per neighbouring space (walk, swim, or board a ship there), and a second
        (swim: true) beside a ship with room.  Aboard: one per neighbouring ship with room, the
        jump into its own space if it may swim, and the safe isles next to it.  Swimming: the
        ship in its own space if it has room and the swimmer may board, every neighbouring sea
        space if it may swim, and the safe isles next to it."""
        near, isles, land = self.board.neighbour_sets, self.board.isles_next_to, state.tile_at.keys()
        room = self.ship_spaces_with_room(state)
        explorers, boats = state.explorers, state.boats
        may_swim, may_board = self.may_swim, self.may_board_from_the_sea
        counts: list[int] = []
        for handle in handles:
            e = explorers[handle]
            where = e.where
            if where == LAND:
                assert e.cell is not None      # (on the board: not at(), a call, in the hottest count)
                around = near[e.cell]
                counts.append(len(around) + len(around & room))
            elif where == BOAT:
                cell = at(boats[ship_of(e.boat)].cell)
                counts.append(len(near[cell] & room) + may_swim(state, handle) + len(isles[cell]))
            elif where == SEA:
                assert e.cell is not None
                cell = e.cell
                board = cell in room and may_board(state, handle)
                swim = len(near[cell]) - len(near[cell] & land) if may_swim(state, handle) else 0
                counts.append(board + swim + len(isles[cell]))
            else:
                counts.append(0)
        return counts

    def ship_spaces_with_room(self, state: StateT) -> set[int]:
        """The spaces of the ships with room for another explorer (:meth:`has_room`)."""
        boats, capacities = state.boats, self.capacities
        return {cell for cell, boat in state.boat_at.items() if len(boats[boat].passengers) < capacities[boat]}

    def do_move(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_MOVE)
        handle = handle_arg(action["move"], "move")
        cell = self.cell_arg(action["to"])
        swim = swim_arg(action)
        events: Events = []
        if handle in state.boats:
            self.move_boat(state, player, handle, cell, swim, events)
        elif handle in state.explorers:
            self.move_explorer(state, player, handle, cell, swim, events)
        else:
            raise IllegalAction(f"{handle} is neither {self.word('an explorer')} nor a ship")
        state.turn.moves += 1
        if state.turn.moves >= self.movement_points(state):
            self.advance(state, rng, events, STEP_MOVE)
        return events

    def move_boat(self, state: StateT, player: str, boat: str, cell: int, swim: bool, events: Events) -> None:
        b = state.boats[boat]
        if swim:
            raise IllegalAction(f"{self.word('swim flag')} is for {self.word('explorers')}, not ships")
        if b.where != SEA:
            raise IllegalAction(f"ship {boat} is not on the board")
        if player not in self.controllers(state, boat):
            raise IllegalAction(f"you do not control ship {boat} (most {self.word('explorers')} aboard decide)")
        if cell not in self.board.neighbours[at(b.cell)]:
            raise IllegalAction(f"{self.label(cell)} is not next to ship {boat} at {self.label(b.cell)}")
        if not state.is_sea(cell):
            raise IllegalAction(f"ships {self.word('sail')} on {self.word('sea spaces')}; {self.label(cell)} is {self.word('land')}")
        if cell in state.boat_at:
            raise IllegalAction(f"{self.label(cell)} already holds ship {state.boat_at[cell]}: one ship per {self.word('sea space')}")
        frm = b.cell
        events.append(event({"event": "sail", "player": player, "boat": boat,
                             "from": self.label(frm), "to": self.label(cell)}))
        self.sail(state, boat, cell, events)

    def move_explorer(self, state: StateT, player: str, handle: str, cell: int, swim: bool, events: Events) -> None:
        """Validate one explorer step, then carry it out."""
        e = state.explorers[handle]
        if e.owner != player:
            raise IllegalAction(f"{handle} is not your {self.word('explorer')}: {self.word('quote: own pieces')}")
        if e.where not in (LAND, BOAT, SEA):
            raise IllegalAction(f"{handle} is not on the board ({e.where})")
        kind, boat = self.explorer_step_kind(state, e, cell, swim)
        frm = self.label(state.explorer_cell(e))
        events.append(event({"event": "move", "player": player, "explorer": handle, "how": kind,
                             "from": frm, "to": self.label(cell)}))
        if kind in ("walk",):
            state.put_explorer(handle, LAND, cell)
        elif kind in ("board", "transfer"):
            state.put_explorer(handle, BOAT, boat=boat)
        elif kind == "isle":
            state.put_explorer(handle, ISLE, cell)
        else:  # swim / jump
            self.enter_sea(state, handle, cell, events)

    def explorer_step_kind(self, state: StateT, e: Explorer, cell: int, swim: bool) -> tuple[str, str | None]:
        """What a one-point move to ``cell`` means from where ``e`` is; IllegalAction if none."""
        nb = self.board.neighbours
        here = at(state.explorer_cell(e))
        target = self.label(cell)
        if e.where == LAND:
            if cell not in nb[here]:
                raise IllegalAction(f"{target} is not next to {e.handle} at {self.label(here)}")
            if cell in state.tile_at:
                if swim:
                    raise IllegalAction(f"{target} is {self.word('land')}; one cannot {self.word('swim')} there")
                return "walk", None
            boat = state.boat_at.get(cell)
            if boat is not None and not swim:
                if not self.has_room(state, boat):
                    raise IllegalAction(f"ship {boat} at {target} is full; add {self.word('swim flag')}: true to "
                                        f"{self.word('swim')} there instead")
                return "board", boat
            return "swim", None
        if self.board.is_isle(cell):
            if cell not in self.board.isles_next_to[here]:
                raise IllegalAction(f"{self.word('safe isle')} {target} is reached only from its two {self.word('sea spaces')}")
            return "isle", None
        if cell in state.tile_at:
            raise IllegalAction(self.word("quote: no return"))
        if e.where == BOAT:
            if cell == here:
                if not self.may_swim(state, e.handle):
                    raise IllegalAction(f"{e.handle} has already {self.word('swum')} {self.word('a sea space')} this turn")
                return "jump", None
            if cell not in nb[here]:
                raise IllegalAction(f"{target} is not next to {e.handle}'s ship at {self.label(here)}")
            boat = state.boat_at.get(cell)
            if boat is None or swim:
                raise IllegalAction(f"from a ship {self.word('an explorer')} moves to a ship next to it, jumps into its "
                                    f"own space ({self.label(here)}) or lands on {self.word('a safe isle')}")
            if not self.has_room(state, boat):
                raise IllegalAction(f"ship {boat} at {target} is full")
            return "transfer", boat
        # a swimmer
        if cell == here:
            boat = state.boat_at.get(cell)
            if boat is None or swim:
                raise IllegalAction(f"{e.handle} is already {self.word('swimming')} at {target}")
            if not self.has_room(state, boat):
                raise IllegalAction(f"ship {boat} at {target} is full")
            if not self.may_board_from_the_sea(state, e.handle):
                raise IllegalAction(f"{e.handle} has already {self.word('swum')} {self.word('a sea space')} this turn, "
                                    f"so it cannot also board ship {boat}: {self.word('quote: one swim')}")
            return "board", boat
        if cell not in nb[here]:
            raise IllegalAction(f"{target} is not next to {e.handle} at {self.label(here)}; {self.word('swimmers')} move "
                                "one space")
        if not self.may_swim(state, e.handle):
            raise IllegalAction(f"{e.handle} has already {self.word('swum')} {self.word('a sea space')} this turn")
        return "swim", None

    def enter_sea(self, state: StateT, handle: str, cell: int, events: Events) -> None:
        """The explorer becomes a swimmer in ``cell`` (its sea move for this turn)."""
        state.put_explorer(handle, SEA, cell)
        state.turn.swum.append(handle)
        if self.deadly_for_swimmers(state, cell):
            self.lose_explorers(state, self.unprotected(state, [handle]), cell, events,
                                cause=self.logged("swam", " into a ", "sea creature"))

    def do_done(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        if action["done"] != "move":
            raise IllegalAction("write {done: move} to end your movement step")
        # Harmless after the step already ended (three points used, or skipped).
        if self.current_step(state) == STEP_REMOVE and self.decider(state) == player:
            return []
        self.expect(state, player, STEP_MOVE)
        events = [event({"event": "done", "player": player, "used": state.turn.moves})]
        self.advance(state, rng, events, STEP_MOVE)
        return events

    # --- the tables ------------------------------------------------------------------------
    def action_table(self) -> dict[str, ActionHandler[StateT]]:
        return {**super().action_table(), "move": self.do_move, "done": self.do_done}

    def decider_table(self) -> dict[str, Decider[StateT]]:
        return {**super().decider_table(), STEP_MOVE: self.legal_move}


class MoveChoices(LazyActions):
    """The movement step's legal actions in :meth:`MovementRules.legal_move`'s order (``{done:
    move}``, each of the player's explorers' moves, each movable ship's), made only when read.

    Each piece's moves are its *steps* (where it may go: :meth:`MovementRules.explorer_steps`,
    :meth:`MovementRules.boat_steps`), listed once when first asked for (:meth:`steps_of`) and
    made into actions one at a time: the random bot takes one of about 80 moves and lists one
    piece's; the greedy bot scores every piece's steps and makes the one move it takes.  The
    length comes from the steps once every piece's are listed, else from counting them without
    listing them (:meth:`MovementRules.explorer_move_counts`,
    :meth:`MovementRules.boat_move_counts`); a piece listed after being counted is checked
    against its count (a mismatch is a rules bug, not a wrong choice)."""

    DONE = "move"     # {done: move}, the first action

    def __init__(self, rules: MovementRules[Any], state: Any, explorers: list[str], boats: list[str]) -> None:
        self.rules, self.state = rules, state
        #: the pieces in order: the explorers (``pieces[:explorers]``), then the ships
        self.pieces = explorers + boats
        self.explorers = len(explorers)
        self._steps: list[list[Any] | None] = [None] * len(self.pieces)
        self._counts: list[int] | None = None
        self._total: int | None = None      # (the length, once asked: the counts do not change)

    def steps_of(self, i: int) -> list[Any]:
        """The steps of the ``i``-th piece (:attr:`pieces`), listed once: (space, swim) for an
        explorer, the space for a ship."""
        steps = self._steps[i]
        if steps is None:
            rules, piece = self.rules, self.pieces[i]
            steps = self._steps[i] = (rules.explorer_steps(self.state, piece) if i < self.explorers
                                      else rules.boat_steps(self.state, piece))
            if self._counts is not None:
                self._check(i, steps)
        return steps

    def counts(self) -> list[int]:
        """How many moves each piece has: from the steps where every piece's are listed, else counted."""
        counts = self._counts
        if counts is None:
            listed = self._steps
            if None not in listed:
                counts = self._counts = [len(steps) for steps in listed if steps is not None]
                return counts
            rules, state, pieces, n = self.rules, self.state, self.pieces, self.explorers
            counts = self._counts = rules.explorer_move_counts(state, pieces[:n]) + rules.boat_move_counts(state, pieces[n:])
            for i, steps in enumerate(listed):
                if steps is not None:
                    self._check(i, steps)
        return counts

    def listed(self, i: int) -> list[Any] | None:
        """The ``i``-th piece's steps if they are listed already, else None (not listed here)."""
        return self._steps[i]

    def ship_counts(self, indexes: list[int]) -> list[int]:
        """How many moves each of the ships ``indexes`` (of :attr:`pieces`, past the explorers)
        has: from its steps where they are listed, else counted together
        (:meth:`MovementRules.boat_move_counts`: the closed spaces worked out once, not per ship)."""
        listed, pieces = self._steps, self.pieces
        unlisted = [pieces[i] for i in indexes if listed[i] is None]
        counted = iter(self.rules.boat_move_counts(self.state, unlisted) if unlisted else ())
        out = []
        for i in indexes:
            steps = listed[i]
            out.append(next(counted) if steps is None else len(steps))
        return out

    def take_counts(self, counts: list[int]) -> None:
        """Every piece's count, found by a pass over the pieces that did not list them all (the
        greedy bot's scores: :meth:`pbem.rules.survive.rules.SurviveRules.move_scores`); each piece
        listed before or after is checked against it, as after :meth:`counts`."""
        if self._counts is not None:
            if counts != self._counts:
                raise RuntimeError(f"rules bug: two counts of the movement step ({self._counts}, {counts})")
            return
        self._counts = counts
        for i, steps in enumerate(self._steps):
            if steps is not None:
                self._check(i, steps)

    def _check(self, i: int, steps: list[Any]) -> None:
        assert self._counts is not None
        if len(steps) != self._counts[i]:
            raise RuntimeError(f"rules bug: {self._counts[i]} legal moves counted for {self.pieces[i]}, "
                               f"{len(steps)} listed")

    def move(self, i: int, step: Any) -> Action:
        """The action of the ``i``-th piece's ``step``."""
        if i < self.explorers:
            return self.rules.explorer_move(self.pieces[i], step)
        return self.rules.boat_move(self.pieces[i], step)

    def group(self, i: int) -> list[Action]:
        """The actions of the ``i``-th piece."""
        return [self.move(i, step) for step in self.steps_of(i)]

    def __len__(self) -> int:
        total = self._total
        if total is None:
            total = self._total = 1 + sum(self.counts())
        return total

    def item(self, k: int) -> Action:
        if k == 0:
            return {"done": self.DONE}
        k -= 1
        for i, count in enumerate(self.counts()):
            if k < count:
                return self.move(i, self.steps_of(i)[k])
            k -= count
        raise IndexError("legal action index out of range")   # pragma: no cover - the counts cover every index

    def __iter__(self) -> Iterator[Action]:
        yield {"done": self.DONE}
        for i in range(len(self.pieces)):
            yield from self.group(i)
