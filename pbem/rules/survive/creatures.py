"""Step 4: "Roll the die and move a creature", and the shared creature behaviours.

"The Sea Serpents, Sharks and Whales have no effect on each other. They can
occupy the same sea space. If the Creature rolled isn't present on the board,
nothing happens."

A creature kind in the components data names its behaviour with ``rule:`` (default:
the kind), so a re-themed piece reuses one (Space Attack's Queen, Spawn and Warrior
are ``rule: serpent``, ``shark``, ``whale``).  :meth:`CreatureRules.creature_rule_table`
maps each kind to its :class:`~pbem.rules.survive.base.CreatureRule`: ``stops`` (its
movement ends on entering a space), ``arrive`` (what happens where it ends) and, for
the behaviours a reaction tile answers, ``attack`` (the attack once nobody defended).
The die's faces come from the data (``creature_die``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence  # (isinstance with typing's is several times slower)
from dataclasses import dataclass
from functools import partial
from typing import Any

from pbem.core.choices import Chain, Pairs
from pbem.game import Action, IllegalAction, NeedsSecret, Rng
from pbem.rules.survive.actions import face_entry, handle_arg, is_none
from pbem.rules.survive.base import (
    ActionHandler,
    CreatureRule,
    Decider,
    Events,
    Spaces,
    SpacesWhere,
    StateT,
    StepStarter,
    Walk,
    event,
)
from pbem.rules.survive.reactions import ReactionRules
from pbem.rules.survive.state import SEA, STEP_CREATURE, Creature, at


@dataclass(frozen=True)
class CreatureOrder:
    """The order moving a creature to a space: ``{KEY: handle, to: SPACE}`` (``KEY`` is
    ``creature``, or a layer's own, such as the 1986 edition's ``dive``), from the space's
    cell and the board's ``labels``.  The greedy bot's core scores never score it
    (:meth:`SurviveRules.never_scored`)."""

    key: str
    labels: tuple[str, ...]

    def __call__(self, handle: str, cell: int) -> Action:
        return {self.key: handle, "to": self.labels[cell]}


class CreatureRules(ReactionRules[StateT]):
    # --- the behaviours ------------------------------------------------------------
    def creature_behaviours(self) -> dict[str, CreatureRule[StateT]]:
        """Behaviour name (a ``rule:``) -> what it does: the three of the Survive games.  Each
        ``stops_X`` has its ``X_stop_cells`` (the same rule for every space at once): a layer
        that changes one changes both."""
        return {"serpent": CreatureRule(self.stops_serpent, self.arrive_serpent, stop_cells=self.serpent_stop_cells),
                "shark": CreatureRule(self.stops_shark, self.arrive_shark, self.attack_shark,
                                      stop_cells=self.shark_stop_cells),
                "whale": CreatureRule(self.stops_whale, self.arrive_whale, self.attack_whale,
                                      stop_cells=self.whale_stop_cells)}

    def creature_rule_table(self) -> dict[str, CreatureRule[StateT]]:
        behaviours = self.creature_behaviours()
        table = super().creature_rule_table()
        for kind, spec in self.comp["creatures"].items():
            rule = str(spec.get("rule", kind))
            if rule in behaviours:
                table[kind] = behaviours[rule]
        return table

    # --- the roll ---------------------------------------------------------------
    def roll_die(self, state: StateT, rng: Rng | None) -> str:
        if rng is None:
            raise NeedsSecret("the creature die is rolled by the moderator")
        faces = self.creature_die_faces()
        return faces[rng.randbelow(len(faces), "creature die")]

    def creature_die_faces(self) -> list[str]:
        """The creature die's faces (components ``creature_die``)."""
        return list(self.comp["creature_die"])

    def die_faces_shown(self) -> list[str]:
        """Every value ``turn.die`` may hold after the roll (for position checks)."""
        return list(dict.fromkeys(self.creature_die_faces()))

    def start_creature_step(self, state: StateT, rng: Rng | None, events: Events, die: str | None) -> bool:
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

    def on_board(self, state: StateT, kind: str) -> list[str]:
        return [c.handle for c in state.creatures.values() if c.kind == kind and c.where == SEA]

    def die_kinds(self, state: StateT, face: str) -> tuple[str, ...]:
        """The creature kinds a die face lets you move (in the base game: the face's own)."""
        return (face,)

    def movable_creatures(self, state: StateT, face: str) -> list[str]:
        """The creatures on the board that the rolled ``face`` lets you move."""
        kinds = self.die_kinds(state, face)
        return [c.handle for c in state.creatures.values() if c.kind in kinds and c.where == SEA]

    def may_stay(self, state: StateT, kind: str) -> bool:
        """May a ``kind`` creature "move" by staying where it is?  (Not in the base game.)"""
        return False

    def die_moves(self, kind: str) -> int:
        """How far the die lets a ``kind`` creature move (components ``die_moves``)."""
        return int(self.comp["creatures"][kind]["die_moves"])

    # --- where a creature may go -------------------------------------------------------
    def stop_cells(self, state: StateT, kind: str) -> Spaces:
        """The spaces where a ``kind`` creature's movement ends on entering them: all at once
        where its behaviour gives them (``stop_cells``), else its ``stops`` asked space by space."""
        rule = self.creature_rule(kind)
        if rule.stop_cells is not None:
            return rule.stop_cells(state)
        return SpacesWhere(partial(rule.stops, state))

    def stops_serpent(self, state: StateT, cell: int) -> bool:
        return True   # it moves one sea space anyway

    def serpent_stop_cells(self, state: StateT) -> Spaces:
        """:meth:`stops_serpent`: every space."""
        return self.every_space

    def stops_shark(self, state: StateT, cell: int) -> bool:
        """"If the Shark enters a sea space occupied by one or more Swimmers, the Shark's movement ends"."""
        return bool(self.unprotected(state, state.swimmers(cell)))

    def shark_stop_cells(self, state: StateT) -> Spaces:
        """:meth:`stops_shark`: the spaces with swimmers it may attack."""
        return {cell for cell, swimmers in state.sea_at.items() if self.unprotected(state, swimmers)}

    def stops_whale(self, state: StateT, cell: int) -> bool:
        """"If the Whale enters a sea space occupied by a Ship containing one or more passengers, its movement ends"."""
        boat = state.boat_at.get(cell)
        return boat is not None and bool(state.boats[boat].passengers)

    def whale_stop_cells(self, state: StateT) -> set[int]:
        """:meth:`stops_whale`: the spaces of the ships with passengers."""
        return {cell for cell, boat in state.boat_at.items() if state.boats[boat].passengers}

    def creature_steps(self, state: StateT, kind: str) -> int:
        """How far a ``kind`` creature moves in step 4 (in the base game: its die move)."""
        return self.die_moves(kind)

    def creature_walk_of(self, state: StateT, creature: Creature, max_steps: int | None = None,
                         ends: Spaces | None = None) -> Walk:
        """The sea walk of ``creature``'s move (at most ``max_steps``, default :meth:`creature_steps`;
        ``ends``: its :meth:`stop_cells`, when the caller has them already)."""
        kind = creature.kind
        steps = self.creature_steps(state, kind) if max_steps is None else max_steps
        return self.sea_walk(at(creature.cell), steps, state.tile_at,
                             self.stop_cells(state, kind) if ends is None else ends)

    def creature_reach(self, state: StateT, creature: Creature,
                       max_steps: int | None = None) -> dict[int, list[int]]:
        """Where ``creature`` may end its move (at most ``max_steps``, default its die move)
        -> one path there ([] for staying put)."""
        kind = creature.kind
        steps = self.creature_steps(state, kind) if max_steps is None else max_steps
        paths = self.reach(at(creature.cell), steps, state.tile_at, self.stop_cells(state, kind))
        if self.may_stay(state, creature.kind):
            paths[at(creature.cell)] = []
        return paths

    def creature_spaces(self, state: StateT, creature: Creature, ends: Spaces | None = None) -> list[int]:
        """The spaces where ``creature`` may end its move in step 4, in board order (the keys of
        :meth:`creature_reach`)."""
        spaces = list(self.creature_walk_of(state, creature, ends=ends))
        if self.may_stay(state, creature.kind) and creature.cell not in spaces:
            spaces.append(at(creature.cell))
        return sorted(spaces)

    def creature_walk(self, state: StateT, creature: Creature, order: Mapping[str, Any],
                      max_steps: int | None = None) -> list[int]:
        """The checked path of an order ``{to: ...}`` / ``{path: [...]}``; [] for staying put."""
        kind = creature.kind
        if (self.may_stay(state, kind) and order.get("path") is None and order.get("to") is not None
                and self.cell_arg(order["to"], "to") == creature.cell):
            return []
        steps = self.creature_steps(state, kind) if max_steps is None else max_steps
        return self.walk_arg(order, at(creature.cell), steps, state.tile_at, self.stop_cells(state, kind),
                             f"{kind} {creature.handle}")

    def legal_creature(self, state: StateT, player: str) -> list[dict[str, Any]]:
        return list(self.creature_choices(state, player))

    def creature_choices(self, state: StateT, player: str) -> Sequence[Action]:
        """Step 4's legal actions: ``{creature: none}``, then each movable creature to each space
        it may end on (:meth:`creature_spaces`), made only when read."""
        parts: list[Sequence[Action]] = [[{"creature": "none"}]]
        ends: dict[str, Spaces] = {}        # each kind's stop cells, worked out once
        for handle in self.movable_creatures(state, state.turn.die or ""):
            c = state.creatures[handle]
            if c.kind not in ends:
                ends[c.kind] = self.stop_cells(state, c.kind)
            parts.append(Pairs([handle], self.creature_spaces(state, c, ends[c.kind]), self.creature_to))
        return Chain(parts)

    def creature_to(self, handle: str, cell: int) -> Action:
        """The order moving creature ``handle`` to ``cell``."""
        return {"creature": handle, "to": self.label(cell)}

    # --- the move -------------------------------------------------------------------
    def creature_order(self, state: StateT, action: Mapping[str, Any]) -> Mapping[str, Any] | None:
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

    def do_creature(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_CREATURE)
        order = self.creature_order(state, action)
        events: Events = []
        if order is None:
            events.append(event({"event": "creature", "player": player, "creature": None, "kind": state.turn.die}))
            self.advance(state, rng, events, STEP_CREATURE)
            return events
        handle = handle_arg(order["creature"], "creature")
        c = state.creatures.get(handle)
        face = state.turn.die or ""
        if c is None or c.where != SEA or c.kind not in self.die_kinds(state, face):
            raise IllegalAction(f"the die shows {face}: move a {face} on the board, not {handle}")
        kind = c.kind
        path = self.creature_walk(state, c, order)
        dest = path[-1] if path else at(c.cell)
        self.check_defense_knowledge(state, kind, dest)
        frm = c.cell
        state.put_creature(handle, SEA, dest)
        events.append(event({"event": "creature", "player": player, "creature": handle, "kind": kind,
                             "from": self.label(frm), "to": self.label(dest),
                             "path": [self.label(x) for x in path]}))
        self.creature_rule(kind).arrive(state, c, dest, events)
        return self.wait_or_advance(state, rng, events, STEP_CREATURE)

    # --- what each creature does where it ends --------------------------------------------
    def arrive_serpent(self, state: StateT, c: Creature, cell: int, events: Events) -> None:
        """"If the Sea Serpent enters a sea space occupied by a Ship containing passengers, remove
        that Ship and any passengers from the game. Also remove any Swimmers on the sea space.
        If it was an empty ship, it remains in play"."""
        boat = state.boat_at.get(cell)
        if boat is not None and state.boats[boat].passengers:
            self.lose_ship_and_crew(state, boat, events, cause=f"{self.cause_name(c.kind)} {c.handle}")
        self.lose_explorers(state, self.unprotected(state, state.swimmers(cell)), cell, events,
                            cause=f"{self.cause_name(c.kind)} {c.handle}")

    def arrive_shark(self, state: StateT, c: Creature, cell: int, events: Events) -> None:
        """"Remove all Swimmers from the sea space when the Shark has stopped. If the space on
        which the Shark is contains a Ship, the Shark doesn't affect it"."""
        if self.unprotected(state, state.swimmers(cell)):
            self.threaten_from(state, c, cell, events)

    def attack_shark(self, state: StateT, c: Creature, cell: int, events: Events) -> None:
        self.lose_explorers(state, self.unprotected(state, state.swimmers(cell)), cell, events,
                            cause=f"{self.cause_name(c.kind)} {c.handle}")

    def arrive_whale(self, state: StateT, c: Creature, cell: int, events: Events) -> None:
        """"A Whale doesn't affect Swimmers or empty Ships on the same sea space as itself"."""
        if self.stops_whale(state, cell):
            self.threaten_from(state, c, cell, events)

    def attack_whale(self, state: StateT, c: Creature, cell: int, events: Events) -> None:
        """"the Ship is removed from the game and its passengers become Swimmers. If the sea
        space also contained a Shark, the Swimmers are removed from the game"."""
        boat = state.boat_at.get(cell)
        if boat is not None:
            self.capsize(state, boat, events, cause=f"{self.cause_name(c.kind)} {c.handle}")

    def threaten_from(self, state: StateT, c: Creature, cell: int, events: Events) -> None:
        """``c`` attacks at ``cell``: a reaction window for the tile that answers it, or at once."""
        kind = self.answering_back(c.kind)
        if kind is None:
            attack = self.creature_rule(c.kind).attack
            if attack is not None:
                attack(state, c, cell, events)
            return
        self.threaten(state, kind, c, cell, events)

    # --- the tables ---------------------------------------------------------------------
    def action_table(self) -> dict[str, ActionHandler[StateT]]:
        return {**super().action_table(), "creature": self.do_creature}

    def decider_table(self) -> dict[str, Decider[StateT]]:
        return {**super().decider_table(), STEP_CREATURE: self.legal_creature}

    def step_table(self) -> dict[str, StepStarter[StateT]]:
        return {**super().step_table(), STEP_CREATURE: self.start_creature_step}
