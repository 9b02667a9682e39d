"""Step 4: "Roll the die and move a creature", and what each creature does.

"The Sea Serpents, Sharks and Whales have no effect on each other. They can
occupy the same sea space. If the Creature rolled isn't present on the board,
nothing happens."

Each kind has ``stops_<kind>`` (its movement ends on entering that space),
``arrive_<kind>`` (what happens where it ends) and, for the kinds a defense
tile answers, ``attack_<kind>`` (the attack once no defense was played).
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import IllegalAction, NeedsSecret, Rng
from pbem.rules.atlantis.actions import handle_arg, is_none
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.state import (
    LOST,
    SEA,
    STEP_CREATURE,
    STEP_DEFENSE,
    Creature,
    State,
)


class CreatureRules(RulesBase):
    # --- the roll ---------------------------------------------------------------
    def roll_die(self, state: State, rng: Rng | None) -> str:
        if rng is None:
            raise NeedsSecret("the creature die is rolled by the moderator")
        faces = self.comp["creature_die"]
        return faces[rng.randbelow(len(faces), "creature die")]

    def start_creature_step(self, state: State, rng: Rng | None, events: list, die: str | None) -> bool:
        """"You must roll the Creature die. Then, you may move a Creature ... corresponding to
        the die result and already on the game board"."""
        face = die if die is not None else self.roll_die(state, rng)
        state.turn.die = face
        state.history["rolls"] = state.history.get("rolls", 0) + 1
        events.append(event({"event": "roll", "player": state.turn.player, "face": face}, chance=True))
        if self.on_board(state, face):
            return True
        events.append(event({"event": "no-creature", "player": state.turn.player, "kind": face}))
        return False

    def on_board(self, state: State, kind: str) -> list[str]:
        return [c.handle for c in state.creatures.values() if c.kind == kind and c.where == SEA]

    def die_moves(self, kind: str) -> int:
        return self.comp["creatures"][kind]["die_moves"]

    # --- where a creature may go -------------------------------------------------------
    def stopper(self, state: State, kind: str):
        """``cell -> bool``: does a ``kind`` creature's movement end on entering ``cell``?"""
        stops = getattr(self, "stops_" + kind)
        return lambda cell: stops(state, cell)

    def stops_serpent(self, state: State, cell: int) -> bool:
        return True   # it moves one sea space anyway

    def stops_shark(self, state: State, cell: int) -> bool:
        """"If the Shark enters a sea space occupied by one or more Swimmers, the Shark's movement ends"."""
        return bool(state.swimmers(cell))

    def stops_whale(self, state: State, cell: int) -> bool:
        """"If the Whale enters a sea space occupied by a Ship containing one or more passengers, its movement ends"."""
        boat = state.boat_at.get(cell)
        return boat is not None and bool(state.boats[boat].passengers)

    def creature_reach(self, state: State, creature: Creature) -> dict[int, list[int]]:
        kind = creature.kind
        return self.reach(creature.cell, self.die_moves(kind), state.is_sea, self.stopper(state, kind))

    def legal_creature(self, state: State, player: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"creature": "none"}]
        for handle in self.on_board(state, state.turn.die):
            c = state.creatures[handle]
            out.extend({"creature": handle, "to": self.label(d)} for d in sorted(self.creature_reach(state, c)))
        return out

    # --- the move -------------------------------------------------------------------
    def creature_order(self, state: State, action: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The order for the rolled face: ``{creature: K2, to: F4}``, or None for ``none``.

        Written ahead: ``{creature: {serpent: ..., shark: ..., whale: ...}}``; the entry for
        the rolled face is used."""
        order: Any = action
        value = action["creature"]
        face = state.turn.die
        if isinstance(value, Mapping):
            if set(action) != {"creature"}:
                raise IllegalAction("written-ahead creature orders go inside "
                                    "creature: {serpent: ..., shark: ..., whale: ...}")
            unknown = sorted(str(k) for k in value if k not in self.comp["creatures"])
            if unknown:
                raise IllegalAction(f"creature orders are keyed by die face ({', '.join(self.comp['creatures'])}), "
                                    f"not {unknown[0]!r}")
            if face not in value:
                raise IllegalAction(f"the die shows {face} and there is no order for it")
            order = value[face]
            if is_none(order):
                return None
            if not isinstance(order, Mapping) or "creature" not in order:
                raise IllegalAction(f"the {face} order must be none or {{creature: HANDLE, to: SPACE}}")
            extra = sorted(str(k) for k in order if k not in ("creature", "to", "path"))
            if extra:
                raise IllegalAction(f"unknown key {extra[0]!r} in the {face} order")
            value = order["creature"]
        if is_none(value):
            if set(order) - {"creature"}:
                raise IllegalAction("{creature: none} takes no other keys")
            return None
        return order

    def do_creature(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        self.expect(state, player, STEP_CREATURE)
        order = self.creature_order(state, action)
        events: list = []
        if order is None:
            events.append(event({"event": "creature", "player": player, "creature": None, "kind": state.turn.die}))
            self.advance(state, rng, events, STEP_CREATURE)
            return events
        handle = handle_arg(order["creature"], "creature")
        c = state.creatures.get(handle)
        face = state.turn.die
        if c is None or c.where != SEA or c.kind != face:
            raise IllegalAction(f"the die shows {face}: move a {face} on the board, not {handle}")
        path = self.walk_arg(order, c.cell, self.die_moves(face), state.is_sea, self.stopper(state, face),
                             f"{face} {handle}")
        dest = path[-1]
        self.check_defense_knowledge(state, face, dest)
        frm = c.cell
        state.put_creature(handle, SEA, dest)
        events.append(event({"event": "creature", "player": player, "creature": handle, "kind": face,
                             "from": self.label(frm), "to": self.label(dest),
                             "path": [self.label(x) for x in path]}))
        getattr(self, "arrive_" + face)(state, c, dest, events)
        if state.reaction is not None:
            state.turn.step = STEP_DEFENSE
        else:
            self.advance(state, rng, events, STEP_CREATURE)
        return events

    # --- what each creature does where it ends --------------------------------------------
    def arrive_serpent(self, state: State, c: Creature, cell: int, events: list) -> None:
        """"If the Sea Serpent enters a sea space occupied by a Ship containing passengers, remove
        that Ship and any passengers from the game. Also remove any Swimmers on the sea space.
        If it was an empty ship, it remains in play"."""
        boat = state.boat_at.get(cell)
        if boat is not None and state.boats[boat].passengers:
            self.lose_ship_and_crew(state, boat, events, cause=f"serpent {c.handle}")
        self.lose_explorers(state, list(state.swimmers(cell)), cell, events, cause=f"serpent {c.handle}")

    def arrive_shark(self, state: State, c: Creature, cell: int, events: list) -> None:
        """"Remove all Swimmers from the sea space when the Shark has stopped. If the space on
        which the Shark is contains a Ship, the Shark doesn't affect it"."""
        if state.swimmers(cell):
            self.threaten(state, "shark_defense", c, cell, events)

    def attack_shark(self, state: State, c: Creature, cell: int, events: list) -> None:
        self.lose_explorers(state, list(state.swimmers(cell)), cell, events, cause=f"shark {c.handle}")

    def arrive_whale(self, state: State, c: Creature, cell: int, events: list) -> None:
        """"A Whale doesn't affect Swimmers or empty Ships on the same sea space as itself"."""
        if self.stops_whale(state, cell):
            self.threaten(state, "whale_defense", c, cell, events)

    def attack_whale(self, state: State, c: Creature, cell: int, events: list) -> None:
        """"the Ship is removed from the game and its passengers become Swimmers. If the sea
        space also contained a Shark, the Swimmers are removed from the game"."""
        boat = state.boat_at.get(cell)
        if boat is not None:
            self.capsize(state, boat, events, cause=f"whale {c.handle}")

    def remove_creature(self, state: State, handle: str) -> None:
        state.put_creature(handle, LOST)
