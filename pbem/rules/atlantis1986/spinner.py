"""The spinning phase: the Atlantean Swirler and the sea creatures.

"the Atlantean Swirler spinner shows which kind of sea creatures should be
moved, and how many blocks: one, two, three or dive. The player then freely
selects one of the sea creatures in question from the board and moves it
accordingly. He/she can decide its route for him/herself."

The spin is drawn (label ``spinner``; with ``spinner=dice`` the labels
``creature die`` and ``movement die``) inside the action that finishes the
sinking phase, as the base game rolls its die.  A face is written
``KIND-MOVE``: ``shark-2``, ``dolphin-dive``.  Decisions:

* ``creature`` (a 1, 2 or 3): ``{creature: K2, to: F4}`` or ``{creature: K2, path: [F5, F4]}``;
* ``dive``: ``{dive: K2, to: F4}`` - "A diving sea creature can appear at any sea
  hexagon that does not have villagers or boats in it."

Written ahead, one order per face or per kind:
``{creature: {shark-dive: {creature: K1, to: A5}, shark: {creature: K1, to: F4}, octopus: ...}}``.

Each kind has ``stops_<kind>`` (its movement ends when it enters that space:
"comes to contact with" its prey) and ``arrive_<kind>`` (what it does there).
"""
from __future__ import annotations

from typing import AbstractSet, Any, Mapping, Sequence

from pbem.core.choices import Chain, Pairs
from pbem.game import Action, IllegalAction, NeedsSecret, Rng
from pbem.rules.atlantis1986.sea import SeaRules1986
from pbem.rules.atlantis1986.view import STEP_DIVE, face_parts
from pbem.rules.survive.actions import face_entry, handle_arg, is_none
from pbem.rules.survive.creatures import CreatureOrder
from pbem.rules.survive.base import NOWHERE, ActionHandler, CreatureRule, Decider, Events, Path, Spaces, event
from pbem.rules.survive.state import SEA, STEP_CREATURE, Creature, State

DIVE = "dive"
__all__ = ["DIVE", "STEP_DIVE", "SpinnerRules1986", "face_parts"]


class SpinnerRules1986(SeaRules1986):
    #: the spinner is spun (a STOP) before anything else in step 3; its step is the model's ``spin``
    turn_model_covers = frozenset({"decision_kind", "start_creature_step", "roll_die", "creature_rule_table",
                                   "stops_shark", "stops_octopus", "stops_monster", "stops_dolphin",
                                   "creature_destinations", "dive_spots", "may_pass", "creature_choices",
                                   "legal_creature", "legal_dive", "creature_order", "do_creature", "do_dive",
                                   "move_spun_creature", "dive", "swim_creature", "arrive_shark", "arrive_octopus",
                                   "arrive_monster", "arrive_dolphin"})

    def turn_model_params(self, state: State) -> dict[str, Any]:
        return {**super().turn_model_params(state), "spin": {"pass": self.may_pass(state), "dive": DIVE}}
    # --- the spin ------------------------------------------------------------------
    def spinner_faces(self) -> list[str]:
        spec = self.comp["spinner"]
        return [f"{kind}-{move}" for kind in spec["kinds"] for move in spec["moves"]]

    def ahead_faces(self) -> list[str]:
        """Orders written ahead are keyed by the spinner's faces (``shark-2``, ``octopus-dive``): one
        for each of its faces, where a dive may end on any sea space, would make too long a form
        for the click-to-move page, which offers none (the move template shows how to write them)."""
        return []

    def roll_die(self, state: State, rng: Rng | None) -> str:
        """"Spins the spinner (or rolls the die)"."""
        if rng is None:
            raise NeedsSecret("the spinner is spun by the moderator")
        if self.option(state, "spinner") == "dice":
            dice = self.comp["dice"]
            kind = dice["creature"][rng.randbelow(len(dice["creature"]), "creature die")]
            move = dice["move"][rng.randbelow(len(dice["move"]), "movement die")]
            return f"{kind}-{move}"
        faces = self.spinner_faces()
        return faces[rng.randbelow(len(faces), "spinner")]

    def spun(self, state: State) -> tuple[str, str]:
        if state.turn.die is None:
            raise RuntimeError("nothing has been spun this turn")
        return face_parts(state.turn.die)

    def start_creature_step(self, state: State, rng: Rng | None, events: Events, die: str | None) -> bool:
        face = die if die is not None else self.roll_die(state, rng)
        state.turn.die = face
        state.history["rolls"] = state.history.get("rolls", 0) + 1
        kind, move = face_parts(face)
        events.append(event({"event": "spin", "player": state.turn.player, "face": face, "creature": kind,
                             "move": move}, chance=True))
        creatures = self.on_board(state, kind)
        if not creatures:
            events.append(event({"event": "no-creature", "player": state.turn.player, "kind": kind}))
            return False
        if not self.any_may_move(state, creatures):
            events.append(event({"event": "no-move", "player": state.turn.player, "kind": kind}))
            return False
        return True

    def any_may_move(self, state: State, creatures: list[str]) -> bool:
        """Has any of ``creatures`` (the spun kind's, on the board) somewhere to go: is
        :meth:`creature_destinations` not empty for one of them?  Without walking: a dive needs a
        dive spot; a spun 1-3 needs a sea space next to the creature (the first step of its walk
        may enter any space without a tile, whatever it meets there).
        ``tests/golden/test_bot_fast_forms.py`` checks this against the walks at every step."""
        if self.spun(state)[1] == DIVE:
            return bool(self.dive_spots(state))
        if self.steps_spun(state) < 1:                    # (no spinner face says 0: the plain rule)
            return any(self.creature_destinations(state, state.creatures[h]) for h in creatures)
        tile_at, near, all_creatures = state.tile_at, self.board.neighbours, state.creatures
        for h in creatures:
            cell = all_creatures[h].cell
            if cell is not None and any(n not in tile_at for n in near[cell]):
                return True
        return False

    def decision_kind(self, state: State, step: str) -> str:
        """The spinning phase waits for a ``dive`` decision when the spinner shows a dive."""
        if step == STEP_CREATURE and state.turn.die is not None and self.spun(state)[1] == DIVE:
            return STEP_DIVE
        return super().decision_kind(state, step)

    # --- where a creature may go ---------------------------------------------------------
    def creature_rule_table(self) -> dict[str, CreatureRule[State]]:
        """"Sharks kill villagers swimming in the water ... [the octopus destroys] boats ...
        Sea Monsters both destroy boats and kill villagers"; dolphins harm nobody."""
        return {**super().creature_rule_table(),
                "shark": CreatureRule(self.stops_shark, self.arrive_shark, stop_cells=self.shark_stops_at),
                "octopus": CreatureRule(self.stops_octopus, self.arrive_octopus, stop_cells=self.octopus_stops_at),
                "monster": CreatureRule(self.stops_monster, self.arrive_monster, stop_cells=self.monster_stops_at),
                "dolphin": CreatureRule(self.stops_dolphin, self.arrive_dolphin, stop_cells=self.dolphin_stops_at)}

    def action_table(self) -> dict[str, ActionHandler[State]]:
        return {**super().action_table(), "dive": self.do_dive}

    def decider_table(self) -> dict[str, Decider[State]]:
        # step 4 is the spinner's own listing
        return {**super().decider_table(), STEP_DIVE: self.dive_choices, STEP_CREATURE: self.creature_step_choices}

    def stops_shark(self, state: State, cell: int) -> bool:
        """Sharks go for villagers swimming in the water."""
        return bool(state.swimmers(cell))

    def stops_octopus(self, state: State, cell: int) -> bool:
        """The octopus (giant squid) goes for boats."""
        boat = state.boat_at.get(cell)
        return boat is not None and self.boat_is_prey(state, boat)

    def stops_monster(self, state: State, cell: int) -> bool:
        """Sea monsters go for both."""
        return self.stops_shark(state, cell) or self.stops_octopus(state, cell)

    def stops_dolphin(self, state: State, cell: int) -> bool:
        return False

    # (the same rules for every space at once, from the state's indexes, which hold only the
    # spaces with something there: a walk asks them without a call per space)
    def shark_stops_at(self, state: State) -> Spaces:
        """:meth:`stops_shark`: the spaces with swimmers."""
        return state.sea_at.keys()

    def octopus_stops_at(self, state: State) -> AbstractSet[int]:
        """:meth:`stops_octopus`: the spaces of the boats that are prey."""
        if self.option(state, "empty_boats") == "sunk":
            return state.boat_at.keys()
        return {cell for cell, boat in state.boat_at.items() if state.boats[boat].passengers}

    def monster_stops_at(self, state: State) -> Spaces:
        """:meth:`stops_monster`: both."""
        return state.sea_at.keys() | self.octopus_stops_at(state)

    def dolphin_stops_at(self, state: State) -> Spaces:
        """:meth:`stops_dolphin`: nowhere."""
        return NOWHERE

    def steps_spun(self, state: State) -> int:
        return int(self.spun(state)[1])

    def creature_destinations(self, state: State, creature: Creature) -> dict[int, Path]:
        """Where ``creature`` may end this spin -> one route there.  A spun number is read as
        "up to" that many sea spaces: on hexes a route of exactly n spaces may end on any
        space within n steps anyway (out and back, or round a triangle)."""
        if self.spun(state)[1] == DIVE:
            return {cell: [cell] for cell in self.dive_spots(state)}
        if creature.cell is None:
            return {}
        return self.reach(creature.cell, self.steps_spun(state), state.tile_at, self.stop_cells(state, creature.kind))

    def check_route(self, state: State, creature: Creature, path: Path) -> None:
        """A written ``path:``: sea spaces, each next to the one before, 1 to the spun number,
        not through the creature's prey (contact ends its move)."""
        if creature.cell is None:
            raise IllegalAction(f"{creature.handle} is not at sea")
        self.check_path(creature.cell, path, 1, self.steps_spun(state), state.tile_at,
                        self.stop_cells(state, creature.kind), f"{creature.kind} {creature.handle}")

    def dive_spots(self, state: State) -> list[int]:
        """"any sea hexagon that does not have villagers or boats in it"."""
        # (from the indexes, which hold only the cells with something there)
        return sorted(self.playable_cells - state.tile_at.keys() - state.sea_at.keys() - state.boat_at.keys())

    # --- legal actions ----------------------------------------------------------------------
    def may_pass(self, state: State) -> bool:
        return self.option(state, "creature_move") == "optional"

    def creature_choices(self, state: State, key: str) -> list[dict[str, Any]]:
        kind, move = self.spun(state)
        out: list[dict[str, Any]] = [{key: "none"}] if self.may_pass(state) else []
        if move == DIVE:        # every creature of the kind may dive to the same spots (:meth:`creature_destinations`)
            spots = [self.label(d) for d in self.dive_spots(state)]
            for handle in self.on_board(state, kind):
                out.extend({key: handle, "to": spot} for spot in spots)
            return out
        for handle in self.on_board(state, kind):
            dests = self.creature_destinations(state, state.creatures[handle])
            out.extend({key: handle, "to": self.label(d)} for d in sorted(dests))
        return out

    def order_choices(self, state: State, key: str) -> Sequence[Action]:
        """:meth:`creature_choices` in its order, each creature's orders made only when read
        (pairs of the creature and the spaces where it may end, labelled when read)."""
        kind, move = self.spun(state)
        parts: list[Sequence[Action]] = [[{key: "none"}]] if self.may_pass(state) else []
        order = CreatureOrder(key, self.board.labels)
        if move == DIVE:
            parts.append(Pairs(self.on_board(state, kind), self.dive_spots(state), order))
            return Chain(parts)
        for handle in self.on_board(state, kind):
            parts.append(Pairs([handle], self.destination_cells(state, state.creatures[handle]), order))
        return Chain(parts)

    def destination_cells(self, state: State, creature: Creature) -> list[int]:
        """The spaces of :meth:`creature_destinations` (not a dive), in order, from the walk
        without making a route to each."""
        if creature.cell is None:
            return []
        return sorted(self.sea_walk(creature.cell, self.steps_spun(state), state.tile_at,
                                    self.stop_cells(state, creature.kind)))

    def creature_step_choices(self, state: State, player: str) -> Sequence[Action]:
        """:meth:`legal_creature`, made only when read (:meth:`order_choices`)."""
        return self.order_choices(state, "creature")

    def dive_choices(self, state: State, player: str) -> Sequence[Action]:
        """:meth:`legal_dive`, made only when read (:meth:`order_choices`)."""
        return self.order_choices(state, "dive")

    def legal_creature(self, state: State, player: str) -> list[dict[str, Any]]:
        return self.creature_choices(state, "creature")

    def legal_dive(self, state: State, player: str) -> list[dict[str, Any]]:
        return self.creature_choices(state, "dive")

    # --- the move ------------------------------------------------------------------------------
    def creature_order(self, state: State, action: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The order for the spun face, or None for ``none``.  Written ahead, the entry for
        the face (``shark-2``) is used, else the one for its kind (``shark``)."""
        value = action["creature"]
        if not isinstance(value, Mapping):
            if is_none(value):
                if set(action) - {"creature"}:
                    raise IllegalAction("{creature: none} takes no other keys")
                return None
            return action
        if set(action) != {"creature"}:
            raise IllegalAction("written-ahead orders go inside creature: {shark-2: ..., octopus: ...}")
        face = state.turn.die or ""
        kind, _ = face_parts(face)
        known = set(self.comp["spinner"]["kinds"]) | set(self.spinner_faces())
        unknown = sorted(str(k) for k in value if k not in known)
        if unknown:
            raise IllegalAction(f"written-ahead creature orders are keyed by a face such as shark-2 or "
                                f"octopus-dive, or by a kind ({', '.join(self.comp['spinner']['kinds'])}); "
                                f"not {unknown[0]!r}")
        order = value.get(face, value.get(kind))
        if order is None and face not in value and kind not in value:
            raise IllegalAction(f"the spinner shows {face} and there is no order for it")
        order = face_entry(order, face)
        if order is None or is_none(order["creature"]):
            return None
        return order

    def do_creature(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_CREATURE, STEP_DIVE)
        return self.move_spun_creature(state, player, self.creature_order(state, action), rng)

    def do_dive(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_DIVE)
        if is_none(action["dive"]):
            if set(action) - {"dive"}:
                raise IllegalAction("{dive: none} takes no other keys")
            return self.move_spun_creature(state, player, None, rng)
        return self.move_spun_creature(state, player, {"creature": action["dive"], "to": action.get("to")}, rng)

    def move_spun_creature(self, state: State, player: str, order: Mapping[str, Any] | None, rng: Rng) -> Events:
        kind, move = self.spun(state)
        events: Events = []
        if order is None:
            if not self.may_pass(state):
                raise IllegalAction(f"the spinner shows {state.turn.die}: you must move a {kind} "
                                    "(option creature_move=optional allows none)")
            events.append(event({"event": "creature", "player": player, "creature": None, "kind": kind}))
            self.advance(state, rng, events, STEP_CREATURE)
            return events
        handle = handle_arg(order["creature"], "creature")
        c = state.creatures.get(handle)
        if c is None or c.where != SEA or c.kind != kind:
            raise IllegalAction(f"the spinner shows {state.turn.die}: move a {kind} on the board, not {handle}")
        if move == DIVE:
            self.dive(state, player, c, order, events)
        else:
            self.swim_creature(state, player, c, order, events)
        self.advance(state, rng, events, STEP_CREATURE)
        return events

    def dive(self, state: State, player: str, c: Creature, order: Mapping[str, Any], events: Events) -> None:
        if order.get("path") is not None:
            raise IllegalAction("a diving creature does not swim a route: write to: SPACE")
        cell = self.cell_arg(order.get("to"), "to")
        if cell not in self.dive_spots(state):
            raise IllegalAction(f"a diving creature appears on a sea space without villagers or boats; "
                                f"{self.label(cell)} is not one")
        frm = c.cell
        state.put_creature(c.handle, SEA, cell)
        events.append(event({"event": "dive", "player": player, "creature": c.handle, "kind": c.kind,
                             "from": self.label(frm), "to": self.label(cell)}))

    def swim_creature(self, state: State, player: str, c: Creature, order: Mapping[str, Any], events: Events) -> None:
        what = f"{c.kind} {c.handle}"
        if order.get("path") is not None:
            path = self.path_arg(order["path"], what + " path")
            if order.get("to") is not None and self.cell_arg(order["to"]) != path[-1]:
                raise IllegalAction(f"{what}: 'to' and the end of 'path' differ")
            self.check_route(state, c, path)
        elif order.get("to") is not None:
            dest = self.cell_arg(order["to"], what + " destination")
            found = self.creature_destinations(state, c).get(dest)
            if found is None:
                raise IllegalAction(f"{what} cannot reach {self.label(dest)} with {state.turn.die}")
            path = found
        else:
            raise IllegalAction(f"{what}: say where, with to: SPACE or path: [SPACE, ...]")
        frm, dest = c.cell, path[-1]
        state.put_creature(c.handle, SEA, dest)
        events.append(event({"event": "creature", "player": player, "creature": c.handle, "kind": c.kind,
                             "from": self.label(frm), "to": self.label(dest),
                             "path": [self.label(x) for x in path]}))
        self.creature_rule(c.kind).arrive(state, c, dest, events)

    # --- what each creature does where its move ends ---------------------------------------------
    def arrive_shark(self, state: State, c: Creature, cell: int, events: Events) -> None:
        """"Sharks kill villagers swimming in the water. They do not harm boats or their passengers.\""""
        self.lose_explorers(state, list(state.swimmers(cell)), cell, events, cause=f"shark {c.handle}")

    def arrive_octopus(self, state: State, c: Creature, cell: int, events: Events) -> None:
        """"[It] destroy[s] boats. Any passengers in the boat survive, but are dropped in the water.\""""
        boat = state.boat_at.get(cell)
        if boat is not None and self.boat_is_prey(state, boat):
            self.capsize(state, boat, events, cause=f"octopus {c.handle}")

    def arrive_monster(self, state: State, c: Creature, cell: int, events: Events) -> None:
        """"Sea Monsters both destroy boats and kill villagers.\""""
        boat = state.boat_at.get(cell)
        if boat is not None and self.boat_is_prey(state, boat):
            self.sink_with_all_hands(state, boat, c.handle, events)
        self.lose_explorers(state, list(state.swimmers(cell)), cell, events, cause=f"sea monster {c.handle}")

    def arrive_dolphin(self, state: State, c: Creature, cell: int, events: Events) -> None:
        """A dolphin harms nobody; a villager swimming here may ride it in a later movement phase."""
