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
from pbem.rules.atlantis.actions import face_entry, handle_arg, is_none
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.state import (
    LOST,
    SEA,
    STEP_CREATURE,
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
        if self.movable_creatures(state, face):
            return True
        events.append(event({"event": "no-creature", "player": state.turn.player, "kind": face}))
        return False

    def on_board(self, state: State, kind: str) -> list[str]:
        return [c.handle for c in state.creatures.values() if c.kind == kind and c.where == SEA]

    def die_kinds(self, state: State, face: str) -> tuple[str, ...]:
        """The creature kinds a die face lets you move (in the base game: the face's own)."""
        return (face,)

    def movable_creatures(self, state: State, face: str) -> list[str]:
        """The creatures on the board that the rolled ``face`` lets you move."""
        kinds = self.die_kinds(state, face)
        return [c.handle for c in state.creatures.values() if c.kind in kinds and c.where == SEA]

    def may_stay(self, state: State, kind: str) -> bool:
        """May a ``kind`` creature "move" by staying where it is?  (Not in the base game.)"""
        return False

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
        return bool(self.unprotected(state, state.swimmers(cell)))

    def stops_whale(self, state: State, cell: int) -> bool:
        """"If the Whale enters a sea space occupied by a Ship containing one or more passengers, its movement ends"."""
        boat = state.boat_at.get(cell)
        return boat is not None and bool(state.boats[boat].passengers)

    def creature_reach(self, state: State, creature: Creature,
                       max_steps: int | None = None) -> dict[int, list[int]]:
        """Where ``creature`` may end its move (at most ``max_steps``, default its die move)
        -> one path there ([] for staying put)."""
        kind = creature.kind
        steps = self.die_moves(kind) if max_steps is None else max_steps
        paths = self.reach(creature.cell, steps, state.is_sea, self.stopper(state, kind))
        if self.may_stay(state, kind):
            paths[creature.cell] = []
        return paths

    def creature_walk(self, state: State, creature: Creature, order: Mapping[str, Any],
                      max_steps: int | None = None) -> list[int]:
        """The checked path of an order ``{to: ...}`` / ``{path: [...]}``; [] for staying put."""
        kind = creature.kind
        if (self.may_stay(state, kind) and order.get("path") is None and order.get("to") is not None
                and self.cell_arg(order["to"], "to") == creature.cell):
            return []
        steps = self.die_moves(kind) if max_steps is None else max_steps
        return self.walk_arg(order, creature.cell, steps, state.is_sea, self.stopper(state, kind),
                             f"{kind} {creature.handle}")

    def legal_creature(self, state: State, player: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"creature": "none"}]
        for handle in self.movable_creatures(state, state.turn.die):
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
            order = face_entry(value[face], face)
            if order is None:
                return None
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
        if c is None or c.where != SEA or c.kind not in self.die_kinds(state, face):
            raise IllegalAction(f"the die shows {face}: move a {face} on the board, not {handle}")
        kind = c.kind
        path = self.creature_walk(state, c, order)
        dest = path[-1] if path else c.cell
        self.check_defense_knowledge(state, kind, dest)
        frm = c.cell
        state.put_creature(handle, SEA, dest)
        events.append(event({"event": "creature", "player": player, "creature": handle, "kind": kind,
                             "from": self.label(frm), "to": self.label(dest),
                             "path": [self.label(x) for x in path]}))
        getattr(self, "arrive_" + kind)(state, c, dest, events)
        return self.wait_or_advance(state, rng, events, STEP_CREATURE)

    # --- what each creature does where it ends --------------------------------------------
    def arrive_serpent(self, state: State, c: Creature, cell: int, events: list) -> None:
        """"If the Sea Serpent enters a sea space occupied by a Ship containing passengers, remove
        that Ship and any passengers from the game. Also remove any Swimmers on the sea space.
        If it was an empty ship, it remains in play"."""
        boat = state.boat_at.get(cell)
        if boat is not None and state.boats[boat].passengers:
            self.lose_ship_and_crew(state, boat, events, cause=f"serpent {c.handle}")
        self.lose_explorers(state, self.unprotected(state, state.swimmers(cell)), cell, events,
                            cause=f"serpent {c.handle}")

    def arrive_shark(self, state: State, c: Creature, cell: int, events: list) -> None:
        """"Remove all Swimmers from the sea space when the Shark has stopped. If the space on
        which the Shark is contains a Ship, the Shark doesn't affect it"."""
        if self.unprotected(state, state.swimmers(cell)):
            self.threaten(state, "shark_defense", c, cell, events)

    def attack_shark(self, state: State, c: Creature, cell: int, events: list) -> None:
        self.lose_explorers(state, self.unprotected(state, state.swimmers(cell)), cell, events,
                            cause=f"shark {c.handle}")

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
