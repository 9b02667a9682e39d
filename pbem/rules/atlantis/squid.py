"""The Giant Squid mini-expansion and its variants #1 and #2, as options of the base game.

Layers on :class:`~pbem.rules.atlantis.rules.AtlantisRules`, added by
:class:`~pbem.rules.atlantis.game.AtlantisGame` only when ``squid`` is not ``no``
(:class:`GiantSquid`; :class:`SquidsForWhales` for Variant #1); they override only the
rule steps that differ.

"The Giant Squid in this mini-expansion and the Whale in the base game are
adversaries of each other! ... The Whale will continue to attack occupied
Boats. And now The Giant Squid will eat People, both in Boats and on Land!"

* ``squid=yes``: a squid comes with every whale tile (decision ``squid-place``)
  and may be moved whenever a whale may be (the whale face of the die or of
  the dive dice, the "move a whale" tile).
* ``squid=replace-whales`` (Variant #1): no whale tokens; the whale tile brings
  only the squid.
* ``squid_take=no`` (Variant #2): a newly placed squid takes nobody.

After any squid movement it eats a whale in its space and takes one person
from an adjacent land tile or from the occupied ship in its space (decision
``squid-take`` when there is a choice).  Squids are creatures of kind
``squid`` with handles ``Q1..Q5`` (data: ``games/atlantis/squid.yaml``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import IllegalAction, OptionSpec, Rng
from pbem.rules.atlantis.rules import AtlantisRules
from pbem.rules.atlantis.state import (
    PLAY,
    SEA,
    AtlantisState,
    Creature,
    SquidStep,
    Tile,
    sort_handles,
)
from pbem.rules.survive.actions import handle_arg
from pbem.rules.survive.base import ActionHandler, CreatureRule, Decider, Events, SurviveData, event
from pbem.rules.survive.state import STEP_TILE

STEP_SQUID_PLACE = "squid-place"   # where a new squid comes into play
STEP_SQUID_TAKE = "squid-take"     # which person a squid takes
SQUID, WHALE = "squid", "whale"


class GiantSquid(AtlantisRules):
    """The Giant Squid: a squid comes with every whale."""

    #: Variant #1: the squid comes instead of the whale
    replaces_whales: bool = False

    def __init__(self, data: SurviveData, option_specs: Sequence[OptionSpec]) -> None:
        super().__init__(data, option_specs)
        near: list[list[int]] = [[] for _ in self.board.labels]
        for cell, neighbours in enumerate(self.board.neighbours):
            for n in neighbours:
                near[n].append(cell)
        #: cell -> the cells whose neighbour list holds it (:meth:`people_next_to` read backwards)
        self.next_to_cells: tuple[tuple[int, ...], ...] = tuple(tuple(c) for c in near)

    def squid_data(self) -> Mapping[str, Any]:
        """games/atlantis/squid.yaml (a variant may point ``data_files["squid"]`` elsewhere)."""
        return self.data.extra("squid")

    def new_state(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> AtlantisState:
        """"Contents: 5 Giant Squid Tokens", off the board; Variant #1: "Remove the Whale tokens
        from the game.\""""
        state = super().new_state(players, options, rng)
        if self.replaces_whales:
            state.creatures = {h: c for h, c in state.creatures.items() if c.kind != WHALE}
        state.add_creatures(SQUID, self.squid_data()["squids"])
        return state

    # --- where people are next to a squid ------------------------------------------------
    def people_next_to(self, state: AtlantisState, cell: int) -> list[str]:
        """People on the land tiles adjacent to ``cell``."""
        return sort_handles(h for n in self.board.neighbours[cell] if n in state.tile_at for h in state.on_land(n))

    def squid_prey(self, state: AtlantisState, cell: int) -> list[str]:
        """"remove one People token on a single adjacent Land tile from the game, OR remove one
        People token in the occupied Boat ... that is in the sea space with the Giant Squid\"."""
        boat = state.boat_at.get(cell)
        aboard = list(state.boats[boat].passengers) if boat is not None else []
        return sort_handles(self.people_next_to(state, cell) + aboard)

    # --- a squid comes with every whale ---------------------------------------------------------
    def effect_place_creature(self, state: AtlantisState, tile: Tile, player: str, events: Events,
                              boarders: list[str] | None) -> None:
        """"Whenever a Whale is brought into play by a Land tile, also bring a Giant Squid into
        play\"; with Variant #1 the squid comes instead of the whale."""
        if self.tile_creature(tile) != WHALE:
            super().effect_place_creature(state, tile, player, events, boarders)
            return
        if not self.replaces_whales:
            super().effect_place_creature(state, tile, player, events, boarders)
        self.bring_squid(state, events)

    def bring_squid(self, state: AtlantisState, events: Events) -> None:
        squid = self.take_from_supply(state, SQUID, events)
        if squid is not None:
            state.squid_step = SquidStep(STEP_SQUID_PLACE, squid, resume=self.step_in_turn(state), roll=True)

    def removal_rolls_die(self, state: AtlantisState, back: str, fallen: list[str], boarders: list[str] | None) -> bool:
        """The die waits while the revealer places the squid (and it takes a person)."""
        if back == WHALE and self.supply(state, SQUID):
            return False
        return super().removal_rolls_die(state, back, fallen, boarders)

    def squid_spots(self, state: AtlantisState) -> list[int]:
        """"The Giant Squid is placed in any vacant sea space that is adjacent to a Land tile.\"
        Should there be none, any vacant sea space (our reading; the rule does not say)."""
        vacant = self.vacant_cells(state)       # (:meth:`vacant` for every space, from the indexes)
        nb = self.board.neighbours
        coast = [c for c in vacant if any(n in state.tile_at for n in nb[c])]
        return coast or vacant

    def legal_squid(self, state: AtlantisState, player: str) -> list[dict[str, Any]]:
        squid = self.open_squid_step(state).squid
        return [{"squid": squid, "at": self.label(c)} for c in self.squid_spots(state)]

    def do_squid(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{squid: Q1, at: F4}``; "if it is placed in a sea space that is adjacent to a Land tile
        with one or more People tokens, the player **must** remove one People Token on a single
        adjacent Land tile from the game" (not with Variant #2, ``squid_take=no``)."""
        self.expect(state, player, STEP_SQUID_PLACE)
        step = self.open_squid_step(state)
        squid = handle_arg(action["squid"], "squid")
        if squid != step.squid:
            raise IllegalAction(f"the squid to place is {step.squid}, not {squid}")
        cell = self.cell_arg(action["at"], "at")
        if cell not in self.squid_spots(state):
            raise IllegalAction(f"{self.label(cell)} is not a vacant sea space next to a land tile")
        prey = self.people_next_to(state, cell) if self.option(state, "squid_take") == "yes" else []
        die = self.roll_die(state, rng) if step.roll and len(prey) <= 1 else None   # before any change
        events: Events = []
        state.squid_step = None
        state.put_creature(squid, SEA, cell)
        events.append(event({"event": "appear", "piece": squid, "at": self.label(cell)}))
        if len(prey) == 1:
            self.squid_takes(state, squid, prey[0], events)
        elif prey:
            state.squid_step = SquidStep(STEP_SQUID_TAKE, squid, step.resume, step.roll)
            state.turn.step = STEP_SQUID_TAKE
            return events
        self.advance(state, rng, events, step.resume, die)
        return events

    def open_squid_step(self, state: AtlantisState) -> SquidStep:
        if state.squid_step is None:
            raise IllegalAction("no giant squid is waiting for a decision")
        return state.squid_step

    def waiting_decision(self, state: AtlantisState) -> str | None:
        waiting = super().waiting_decision(state)
        if waiting is None and state.squid_step is not None:
            return state.squid_step.kind
        return waiting

    # --- moving a squid instead of a whale ----------------------------------------------------
    def die_kinds(self, state: AtlantisState, face: str) -> tuple[str, ...]:
        """"Whenever a Whale may be moved ... by the roll of the red Creature Die (or the blue Dive
        Dice ...), the Giant Squid **may** be moved instead of the Whale.\""""
        kinds = super().die_kinds(state, face)
        if WHALE in kinds:
            return tuple(kinds) + (SQUID,)
        return kinds

    def die_moves(self, kind: str) -> int:
        """"If the movement occurs via the red Creature Die, you may move the Giant Squid up to three
        sea spaces.\""""
        if kind == SQUID:
            return int(self.squid_data()["squids"]["die_moves"])
        return super().die_moves(kind)

    def may_stay(self, state: AtlantisState, kind: str) -> bool:
        """"The Giant Squid could instead not move and remain in the same sea space. This is
        considered *movement*\"."""
        return kind == SQUID or super().may_stay(state, kind)

    def stops_squid(self, state: AtlantisState, cell: int) -> bool:
        """"If the Giant Squid enters any sea space that contains either an occupied Boat or a Whale
        or is adjacent to a Land tile with one or more People tokens, the Giant Squid's movement ends.\""""
        boat = state.boat_at.get(cell)
        return ((boat is not None and bool(state.boats[boat].passengers)) or state.has_creature(cell, (WHALE,))
                or bool(self.people_next_to(state, cell)))

    def squid_stop_cells(self, state: AtlantisState) -> set[int]:
        """:meth:`stops_squid` for every space at once: the spaces of the ships with passengers and
        of the whales, and every space next to a land tile with people on it (the board's
        neighbour lists read backwards: :attr:`next_to_cells`, made once per ruleset)."""
        out = {cell for cell, boat in state.boat_at.items() if state.boats[boat].passengers}
        out |= state.cells_with_creature((WHALE,))
        next_to, land = self.next_to_cells, state.tile_at
        for cell, people in state.land_at.items():
            if people and cell in land:
                out.update(next_to[cell])
        return out

    def options_move_creature(self, state: AtlantisState, player: str, back: str) -> list[dict[str, Any]]:
        """"If the movement occurs via a Land tile, you **may** move the Giant Squid to any
        unoccupied sea space" (or leave it where it is)."""
        out = super().options_move_creature(state, player, back)
        if self.tile_backs[back].get("creature") != WHALE:
            return out
        vacant = self.vacant_cells(state)       # (:meth:`vacant` for every space, from the indexes)
        for c in state.creatures.values():
            if c.kind == SQUID and c.where == SEA:
                out.extend({"creature": c.handle, "to": self.label(s)} for s in sorted(vacant + [c.cell or 0]))
        return out

    def play_move_creature(self, state: AtlantisState, player: str, back: str, action: Mapping[str, Any],
                           events: Events) -> None:
        handle = action.get("creature")
        c = state.creatures.get(handle) if isinstance(handle, str) else None
        if c is None or c.kind != SQUID or self.tile_backs[back].get("creature") != WHALE:
            super().play_move_creature(state, player, back, action, events)
            return
        self.only_keys(action, "creature")
        if c.where != SEA:
            raise IllegalAction(f"squid {c.handle} is not on the board")
        if action.get("path") is not None:
            raise IllegalAction("this tile moves the squid straight to a space: write to: SPACE")
        cell = self.cell_arg(action.get("to"), "to")
        if cell != c.cell and not self.vacant(state, cell):
            raise IllegalAction(f"{self.label(cell)} is not an unoccupied sea space")
        frm = c.cell
        state.put_creature(c.handle, SEA, cell)
        events.append(event({"event": "creature", "player": player, "creature": c.handle, "kind": SQUID,
                             "how": "tile", "from": self.label(frm), "to": self.label(cell)}))
        self.arrive_squid(state, c, cell, events)

    # --- after any movement of a giant squid ------------------------------------------------------
    def arrive_squid(self, state: AtlantisState, c: Creature, cell: int, events: Events) -> None:
        """"After any movement of a Giant Squid, the player that moved the Giant Squid must do the
        following\": eat the whale, then take one person."""
        self.squid_eats_whale(state, c, cell, events)
        self.squid_hunts(state, c, cell, events)

    def squid_eats_whale(self, state: AtlantisState, c: Creature, cell: int, events: Events) -> None:
        """"If the Giant Squid is in a sea space containing a Whale, remove the Whale from play.\""""
        self.remove_kind_at(state, WHALE, cell, f"squid {c.handle}", events)

    def remove_kind_at(self, state: AtlantisState, kind: str, cell: int, cause: str, events: Events) -> None:
        """Remove every creature of ``kind`` at ``cell`` from play (a squid eats whales, a whale squids)."""
        gone = sorted(h for h in state.creatures_in(cell) if state.creatures[h].kind == kind)
        for h in gone:
            self.remove_creature(state, h)
        if gone:
            events.append(event({"event": "creatures-lost", "creatures": gone, "at": self.label(cell),
                                 "cause": cause}))

    def squid_hunts(self, state: AtlantisState, c: Creature, cell: int, events: Events) -> None:
        """"Only one People token may be removed during this step, either from one adjacent Land
        tile or from the occupied Boat in the same space as the Giant Squid, but not both\"; with
        one candidate it is taken at once, with several the mover chooses (``squid-take``)."""
        prey = self.squid_prey(state, cell)
        if len(prey) == 1:
            self.squid_takes(state, c.handle, prey[0], events)
        elif prey:
            state.squid_step = SquidStep(STEP_SQUID_TAKE, c.handle, resume=self.step_in_turn(state))

    def squid_takes(self, state: AtlantisState, squid: str, person: str, events: Events) -> None:
        e = state.explorers[person]
        self.lose_explorers(state, [person], state.explorer_cell(e), events, cause=f"squid {squid}")

    def legal_take(self, state: AtlantisState, player: str) -> list[dict[str, Any]]:
        squid = state.creatures[self.open_squid_step(state).squid]
        return [{"take": h} for h in self.squid_prey(state, squid.cell or 0)]

    def do_take(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{take: r3}``: the person the squid removes from the game."""
        self.expect(state, player, STEP_SQUID_TAKE)
        step = self.open_squid_step(state)
        cell = state.creatures[step.squid].cell or 0
        person = handle_arg(action["take"], "take")
        prey = self.squid_prey(state, cell)
        if person not in prey:
            raise IllegalAction(f"squid {step.squid} at {self.label(cell)} takes one of {', '.join(prey)}, "
                                f"not {person}")
        die = self.roll_die(state, rng) if step.roll else None   # before any change
        events: Events = []
        state.squid_step = None
        self.squid_takes(state, step.squid, person, events)
        self.advance(state, rng, events, step.resume, die)
        return events

    # --- whales end squids; ships keep away ------------------------------------------------------
    def stops_whale(self, state: AtlantisState, cell: int) -> bool:
        """"If a Whale enters a sea space that contains a Giant Squid, the Whale's movement ends\"."""
        return super().stops_whale(state, cell) or state.has_creature(cell, (SQUID,))

    def whale_stop_cells(self, state: AtlantisState) -> set[int]:
        """:meth:`stops_whale`: the occupied ships' spaces and the Giant Squids'."""
        return super().whale_stop_cells(state) | state.cells_with_creature((SQUID,))

    def arrive_whale(self, state: AtlantisState, c: Creature, cell: int, events: Events) -> None:
        """"the player that moved the Whale **must** do the following: Remove the Giant Squid from
        play. As per the standard rules, if the Whale is in a sea space with an occupied Boat as
        well, remove the Boat from the game and the People aboard become Swimmers.\""""
        self.remove_kind_at(state, SQUID, cell, f"whale {c.handle}", events)
        super().arrive_whale(state, c, cell, events)

    #: the turn model keeps occupied ships out of a squid's space (``ship_blockers``: the core reads
    #: :meth:`ship_barriers`), moves squids
    #: with whales (``die_kinds``, ``stay``, the ``squid`` behaviour: stops by occupied ships, whales
    #: and people on land next to it, eats whales, takes one person or asks which), whales stopping at
    #: and removing squids, and the whale tiles moving squids too
    turn_model_covers = frozenset({"move_boat", "die_kinds", "die_moves", "may_stay",
                                   "stops_squid", "creature_rule_table", "stops_whale", "whale_stop_cells", "arrive_whale",
                                   "options_move_creature", "waiting_decision", "legal_take", "do_take",
                                   "squid_prey", "people_next_to", "squid_takes", "open_squid_step"})

    def turn_model_params(self, state: AtlantisState) -> dict[str, Any]:
        params = super().turn_model_params(state)
        creatures = {**params["creatures"], SQUID: {"moves": int(self.squid_data()["squids"]["die_moves"]),
                                                     "rule": SQUID}}
        return {**params, "die_kinds": {WHALE: [WHALE, SQUID]}, "stay": [SQUID],
                "whale_stopped_by": [SQUID], "whale_eats": [SQUID], "creatures": creatures,
                "squid_moves_with": WHALE}

    def ship_barriers(self) -> tuple[str, ...]:
        """"An occupied Boat may not be moved into a space with a Giant Squid.\""""
        return (*super().ship_barriers(), SQUID)

    def move_boat(self, state: AtlantisState, player: str, boat: str, cell: int, swim: bool, events: Events) -> None:
        if state.boats[boat].passengers and state.has_creature(cell, (SQUID,)):
            raise IllegalAction(f"an occupied ship may not be moved into a space with a giant squid "
                                f"({self.label(cell)})")
        super().move_boat(state, player, boat, cell, swim, events)

    # --- positions, pictures, texts ------------------------------------------------------------------
    def extra_view(self, state: AtlantisState) -> dict[str, Any]:
        out = super().extra_view(state)
        s = state.squid_step
        out["squid"] = None if s is None else {"kind": s.kind, "squid": s.squid, "resume": s.resume, "roll": s.roll}
        return out

    def read_extra(self, state: AtlantisState, pos: Mapping[str, Any]) -> None:
        super().read_extra(state, pos)
        s = pos.get("squid")
        state.squid_step = None if s is None else SquidStep(s["kind"], s["squid"], s["resume"], bool(s["roll"]))

    def model_prompts(self, state: AtlantisState) -> dict[str, str]:
        return {**super().model_prompts(state), STEP_SQUID_TAKE: "choose the person the squid takes",
                STEP_SQUID_PLACE: "place the giant squid on a vacant sea space next to a land tile"}

    def variant_prompt(self, state: AtlantisState, kind: str) -> str:
        if kind == STEP_SQUID_PLACE and state.squid_step is not None:
            spots = [self.label(c) for c in self.squid_spots(state)]
            return (f"a giant squid comes with the whale: place {state.squid_step.squid} on a vacant sea space "
                    f"next to a land tile: {{squid: {state.squid_step.squid}, at: {spots[0] if spots else 'F4'}}}")
        if kind == STEP_SQUID_TAKE and state.squid_step is not None:
            squid = state.creatures[state.squid_step.squid]
            prey = self.squid_prey(state, squid.cell or 0)
            return (f"giant squid {squid.handle} at {self.label(squid.cell)} takes one person: "
                    f"{{take: {prey[0] if prey else 'r1'}}} (one of {', '.join(prey)})")
        return super().variant_prompt(state, kind)

    def describe(self, ev: Mapping[str, Any]) -> str:
        if ev.get("event") == "creature" and ev.get("kind") == SQUID and ev.get("from") == ev.get("to") \
                and ev.get("creature"):
            return f"{ev.get('player')} leaves giant squid {ev['creature']} at {ev.get('to')}"
        return super().describe(ev)

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_view(view)
        step = self.current_step(state)
        if (state.phase != PLAY or self.decider(state) != player or state.squid_step is None
                or step not in (STEP_SQUID_PLACE, STEP_SQUID_TAKE)):
            return super().template(view, player)
        if step == STEP_SQUID_PLACE:
            spots = [a["at"] for a in self.legal_squid(state, player)]
            line = (f"  - {{squid: {state.squid_step.squid}, at: {spots[0]}}}"
                    f"   # vacant sea spaces next to land: {', '.join(spots[:12])}{', ...' if len(spots) > 12 else ''}")
        else:
            prey = [a["take"] for a in self.legal_take(state, player)]
            line = f"  - {{take: {prey[0]}}}   # the squid takes one of {', '.join(prey)}"
        return ("actions:\n" + line + "\n"
                "# any time: - {standing: {shark_defense: ask, whale_defense: auto}}\n")


    # --- the tables ------------------------------------------------------------------------------
    def creature_rule_table(self) -> dict[str, CreatureRule[AtlantisState]]:
        return {**super().creature_rule_table(), SQUID: CreatureRule(self.stops_squid, self.arrive_squid,
                                                                     stop_cells=self.squid_stop_cells)}

    def action_table(self) -> dict[str, ActionHandler[AtlantisState]]:
        return {**super().action_table(), "squid": self.do_squid, "take": self.do_take}

    def decider_table(self) -> dict[str, Decider[AtlantisState]]:
        table = {**super().decider_table(), STEP_SQUID_PLACE: self.legal_squid, STEP_SQUID_TAKE: self.legal_take}
        if STEP_TILE in table:      # the creature-moving tiles' options include the squids (options_move_creature)
            table[STEP_TILE] = self.legal_play_tile
        return table


class SquidsForWhales(GiantSquid):
    """Variant #1: "Remove the Whale tokens from the game"; the whale tile brings only the squid."""

    replaces_whales = True
