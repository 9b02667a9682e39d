"""At sea: riding dolphins, and what boats and swimmers meet.

"Movement is by the villagers walking on land, swimming (slowly) in the ocean,
or being transported by boat or on the backs of helpful dolphins."  Walking,
swimming, boarding and sailing are the 30th-anniversary moves (three movement
points; a swimmer swims one space a turn; a boat is moved by a player whose
tribe is not in the minority aboard, i.e. "no other tribe has more members in
the same boat").  New here is the dolphin ride:

``{move: r3, to: F4, ride: D2}`` - villager r3, swimming in dolphin D2's space,
rides it to the adjacent sea space F4; both move.  One movement point per
space, so a ride of three spaces is three such actions.  Riding is not
swimming: it does not use up the villager's one swim of the turn.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.core.choices import Chain
from pbem.game import Action, IllegalAction, Rng
from pbem.rules.atlantis1986.view import View1986
from pbem.rules.survive.actions import handle_arg
from pbem.rules.survive.base import NOWHERE, Decider, Events, Spaces, event
from pbem.rules.survive.state import SEA, STEP_MOVE, State


class SeaRules1986(View1986):
    #: the turn model's ``ship_meets``, ``empty_ships_prey`` and ``rides`` say what these change
    turn_model_covers = frozenset({"legal_move", "move_choices", "do_move", "sail", "ship_stops", "swimmer_killers", "boat_is_prey",
                                   "sink_with_all_hands"})

    def turn_model_params(self, state: State) -> dict[str, Any]:
        return {**super().turn_model_params(state),
                "ship_meets": [{"kinds": ["monster"], "effect": "sink"}, {"kinds": ["octopus"], "effect": "capsize"}],
                "empty_ships_prey": self.option(state, "empty_boats") == "sunk", "rides": True}

    # --- who is in danger where ---------------------------------------------------
    def swimmer_killers(self) -> tuple[str, ...]:
        """"Sharks kill villagers swimming in the water" and "Sea Monsters ... kill villagers"."""
        return ("shark", "monster")

    def boat_is_prey(self, state: State, boat: str) -> bool:
        """"Whales [the octopus, or giant squid] destroy boats", "Sea Monsters both destroy boats ...": any boat,
        or with ``empty_boats=safe`` only a boat with villagers aboard."""
        return bool(state.boats[boat].passengers) or self.option(state, "empty_boats") == "sunk"

    def creature_here(self, state: State, cell: int, kind: str) -> str | None:
        found = sorted(h for h in state.creatures_in(cell) if state.creatures[h].kind == kind)
        return found[0] if found else None

    def ship_stops(self, state: State, boat: str, cell: int) -> bool:
        return self.boat_is_prey(state, boat) and state.has_creature(cell, ("octopus", "monster"))

    def ship_stop_cells(self, state: State, boat: str) -> Spaces:
        """The spaces where :meth:`ship_stops` holds: the octopuses' and sea monsters'."""
        return state.cells_with_creature(("octopus", "monster")) if self.boat_is_prey(state, boat) else NOWHERE

    def sail(self, state: State, boat: str, cell: int, events: Events) -> None:
        """A boat moved into an octopus's or a sea monster's space meets it there."""
        state.put_boat(boat, SEA, cell)
        self.boat_meets_creatures(state, boat, cell, events)

    def boat_meets_creatures(self, state: State, boat: str, cell: int, events: Events) -> None:
        if not self.boat_is_prey(state, boat):
            return
        monster = self.creature_here(state, cell, "monster")
        octopus = self.creature_here(state, cell, "octopus")
        if monster is not None:
            self.sink_with_all_hands(state, boat, monster, events)
        elif octopus is not None:
            self.capsize(state, boat, events, cause=f"octopus {octopus}")

    def sink_with_all_hands(self, state: State, boat: str, monster: str, events: Events) -> None:
        """"Sea Monsters both destroy boats and kill villagers": the boat and everyone aboard."""
        self.lose_ship_and_crew(state, boat, events, cause=f"sea monster {monster}")

    # capsize (the base game's): "Any passengers in the boat survive, but are dropped in
    # the water" - and die there at once if a shark or a sea monster is in that space.

    # --- riding a dolphin ----------------------------------------------------------------
    def dolphins_at(self, state: State, cell: int) -> list[str]:
        return sorted(h for h in state.creatures_in(cell) if state.creatures[h].kind == "dolphin")

    def ride_moves(self, state: State, handle: str) -> list[dict[str, Any]]:
        """Every one-space dolphin ride of one swimming villager, as actions."""
        e = state.explorers[handle]
        if e.where != SEA or e.cell is None:
            return []
        lab = self.board.labels
        return [{"move": handle, "to": lab[n], "ride": d} for d in self.dolphins_at(state, e.cell)
                for n in self.board.neighbours[e.cell] if state.is_sea(n)]

    def legal_move(self, state: State, player: str) -> list[dict[str, Any]]:
        return super().legal_move(state, player) + self.rides(state, player)

    def rides(self, state: State, player: str) -> list[dict[str, Any]]:
        """Every dolphin ride of ``player``'s swimmers (:meth:`ride_moves`)."""
        out: list[dict[str, Any]] = []
        for e in state.explorers_of(player):         # (the owner's index, in handle order)
            if e.where == SEA:
                out.extend(self.ride_moves(state, e.handle))
        return out

    def move_choices(self, state: State, player: str) -> Sequence[Action]:
        """:meth:`legal_move` in its order: the core's moves made only when read
        (:class:`~pbem.rules.survive.movement.MoveChoices`), then the dolphin rides."""
        rides = self.rides(state, player)
        moves = super().move_choices(state, player)
        return Chain([moves, rides]) if rides else moves

    def decider_table(self) -> dict[str, Decider[State]]:
        """The movement step is listed with the dolphin rides (:meth:`move_choices`)."""
        return {**super().decider_table(), STEP_MOVE: self.move_choices}

    def do_move(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        if action.get("ride") is None:
            return super().do_move(state, player, action, rng)
        self.expect(state, player, STEP_MOVE)
        handle = handle_arg(action["move"], "move")
        dolphin = handle_arg(action["ride"], "ride")
        cell = self.cell_arg(action["to"])
        if action.get("swim"):
            raise IllegalAction("a villager riding a dolphin is not swimming: leave out swim")
        self.check_ride(state, player, handle, dolphin, cell)
        events: Events = []
        self.ride(state, player, handle, dolphin, cell, events)
        state.turn.moves += 1
        if state.turn.moves >= self.movement_points(state):
            self.advance(state, rng, events, STEP_MOVE)
        return events

    def check_ride(self, state: State, player: str, handle: str, dolphin: str, cell: int) -> None:
        e = state.explorers.get(handle)
        if e is None or e.owner != player:
            raise IllegalAction(f"{handle} is not one of your villagers")
        d = state.creatures.get(dolphin)
        if d is None or d.kind != "dolphin" or d.where != SEA or d.cell is None:
            raise IllegalAction(f"{dolphin} is not a dolphin at sea")
        if e.where != SEA or e.cell != d.cell:
            raise IllegalAction(f"{handle} can ride {dolphin} only when swimming in its space "
                                f"({self.label(d.cell)})")
        if cell not in self.board.neighbours[d.cell] or not state.is_sea(cell):
            raise IllegalAction(f"a dolphin carries its rider one sea space per movement point; "
                                f"{self.label(cell)} is not a sea space next to {self.label(d.cell)}")

    def ride(self, state: State, player: str, handle: str, dolphin: str, cell: int, events: Events) -> None:
        """"Dolphins allow villagers to ride them, giving them a maximum of three blocks of
        movement instead of one."  "Dolphins can only transport one villager at a time."
        "They do not protect villagers from sharks or sea monsters.\""""
        frm = state.creatures[dolphin].cell
        state.put_creature(dolphin, SEA, cell)
        state.put_explorer(handle, SEA, cell)
        events.append(event({"event": "move", "player": player, "explorer": handle, "how": "dolphin",
                             "dolphin": dolphin, "from": self.label(frm), "to": self.label(cell)}))
        if self.deadly_for_swimmers(state, cell):
            self.lose_explorers(state, [handle], cell, events, cause="rode into a sea creature")
