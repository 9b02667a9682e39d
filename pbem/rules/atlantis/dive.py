"""Dolphins & Dive Dice (challenge #6), as an option of the base game: ``dolphins=yes``.

A layer on :class:`~pbem.rules.atlantis.rules.AtlantisRules`, added by
:class:`~pbem.rules.atlantis.game.AtlantisGame` only when ``dolphins=yes``; it overrides
only the rule steps that differ.

"All Sea Creatures in the game will have the powerful ability of *diving* to
unoccupied sea spaces ... However, there are friendly Dolphins now in the game,
which will protect your Swimmers from the attacks of other Sea Creatures!"

* Step 3: a dolphin tile is a green (play immediately) tile that places a
  dolphin token (``effect_dolphin``).
* Step 4: the two blue dive dice replace the red creature die
  (``roll_die``, ``start_creature_step``); the decision is ``dive``.
* A dolphin protects one swimmer (``state.protects``: dolphin -> swimmer);
  :meth:`DiveRules.unprotected` is what every creature attack asks.

Dolphin tokens are creatures of kind ``dolphin`` with handles ``P1..P4`` (data:
``games/atlantis/dolphins.yaml``).  The dive roll is kept in ``turn.die`` as
``"<creature face>/<distance face>"``, e.g. ``starfish/D``.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from pbem.core.choices import Chain, Pairs
from pbem.game import Action, IllegalAction, NeedsSecret, Rng
from pbem.rules.atlantis.rules import AtlantisRules
from pbem.rules.atlantis.state import (
    PLAY,
    SEA,
    STEP_CREATURE,
    STEP_MOVE,
    STEP_REMOVE,
    AtlantisState,
    Tile,
    at,
    sort_handles,
)
from pbem.rules.survive.actions import handle_arg, is_none, swim_arg
from pbem.rules.survive.base import NOWHERE, ActionHandler, Decider, Events, Path, Spaces, TileEffect, event
from pbem.rules.survive.creatures import CreatureOrder

STEP_DIVE = "dive"          # step 4 with the dive dice
STEP_PROTECT = "protect"    # a dolphin placed among several swimmers: which one it protects
WILD = "starfish"           # the wild face of the first dive die
DIVE = "D"                  # the dive face of the second dive die
DOLPHIN, BOAT = "dolphin", "boat"


class Dolphins(AtlantisRules):
    """Dolphins & Dive Dice (challenge #6)."""

    #: the turn model's ``dolphin_escorts``; the dive dice are rolled (a STOP) before step 4's decision
    #: step 4 with the dive dice is the model's ``dive`` (the faces), with ``serpent_stops: attack``
    turn_model_covers = frozenset({"explorer_moves", "dolphin_move_choices", "do_move", "move_explorer", "enter_sea",
                                   "unprotected", "lose_explorers", "after_action", "decision_kind",
                                   "start_creature_step", "roll_die", "legal_dive", "do_dive", "dive_pieces",
                                   "dive_kinds", "dive_faces", "dive_destinations", "dive_cells", "vacant_spaces",
                                   "dive_boat", "dive_creature", "dive_dolphin", "dive_walk", "dive_to",
                                   "free_swimmers", "free_dolphins", "protect", "exposed", "dolphin_arrives",
                                   "release_dolphins", "stops_serpent", "serpent_stop_cells", "waiting_decision"})

    def turn_model_params(self, state: AtlantisState) -> dict[str, Any]:
        data = self.dive_data()
        return {**super().turn_model_params(state), "dolphin_escorts": True, "serpent_stops": "attack",
                "dive": {"faces": list(dict.fromkeys(data["dive_die_creature"])), "wild": WILD, "anywhere": DIVE}}

    def dive_data(self) -> Mapping[str, Any]:
        """games/atlantis/dolphins.yaml (a variant may point ``data_files["dolphins"]`` elsewhere)."""
        return self.data.extra("dolphins")

    def new_state(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> AtlantisState:
        """"Contents: 4 Dolphin Tokens": they wait off the board, in the supply."""
        state = super().new_state(players, options, rng)
        state.add_creatures(DOLPHIN, self.dive_data()["dolphins"])
        return state

    # --- who a dolphin protects ------------------------------------------------------
    def protector(self, state: AtlantisState, swimmer: str) -> str | None:
        """The dolphin protecting ``swimmer``, if any."""
        return next((d for d, s in sorted(state.protects.items()) if s == swimmer), None)

    def free_dolphins(self, state: AtlantisState, cell: int) -> list[str]:
        """Dolphins at ``cell`` "not protecting another Swimmer already"."""
        return [h for h in sort_handles(state.creatures_in(cell))
                if state.creatures[h].kind == DOLPHIN and h not in state.protects]

    def free_swimmers(self, state: AtlantisState, cell: int) -> list[str]:
        """Swimmers at ``cell`` no dolphin protects."""
        swimmers = state.swimmers(cell)
        if not swimmers:            # (most spaces)
            return []
        guarded = set(state.protects.values())
        return sort_handles(h for h in swimmers if h not in guarded)

    def unprotected(self, state: AtlantisState, swimmers: list[str]) -> list[str]:
        """"that Swimmer is safe from attack by all Sea Creatures"."""
        guarded = set(state.protects.values())
        return [h for h in super().unprotected(state, swimmers) if h not in guarded]

    def protect(self, state: AtlantisState, dolphin: str, swimmer: str, events: Events) -> None:
        """"Place Swimmer against the Dolphin token as an indication.\""""
        state.protects[dolphin] = swimmer
        events.append(event({"event": "protect", "dolphin": dolphin, "explorer": swimmer,
                             "at": self.label(state.creatures[dolphin].cell)}))

    def release_dolphins(self, state: AtlantisState) -> None:
        """A dolphin stops protecting a swimmer that is no longer swimming in its space."""
        for d, s in sorted(state.protects.items()):
            c, e = state.creatures[d], state.explorers[s]
            if c.where != SEA or e.where != SEA or e.cell != c.cell:
                del state.protects[d]

    def exposed(self, state: AtlantisState, cell: int, swimmer: str, events: Events) -> None:
        """"Beware! If the Dolphin is moved away from your protected Swimmer ... and a Sea Creature
        that attacks Swimmers is in the same sea space as this now unprotected Swimmer, the
        Swimmer is removed from the game.\""""
        if self.deadly_for_swimmers(state, cell):
            self.lose_explorers(state, self.unprotected(state, [swimmer]), cell, events,
                                cause="dolphin gone: a sea creature is there")

    def dolphin_arrives(self, state: AtlantisState, dolphin: str, cell: int, chosen: str | None, events: Events) -> None:
        """"When a Dolphin moves into a sea space occupied by one or more Swimmers, one of the
        Swimmers is safe ... If you move a Dolphin into a sea space with multiple Swimmers, you
        choose the protected one" (``chosen``; the caller checked it)."""
        free = self.free_swimmers(state, cell)
        if chosen is not None:
            self.protect(state, dolphin, chosen, events)
        elif len(free) == 1:
            self.protect(state, dolphin, free[0], events)
        elif free:
            state.dolphin_choice = dolphin

    # --- swimmers meeting dolphins (step 2 and wherever a swimmer moves) --------------------
    def enter_sea(self, state: AtlantisState, handle: str, cell: int, events: Events) -> None:
        """"When a Swimmer moves into a sea space occupied by a Dolphin that is not protecting
        another Swimmer already, that Swimmer is safe from attack by all Sea Creatures.\""""
        escort = self.protector(state, handle)
        if escort is not None and state.creatures[escort].cell != cell:
            del state.protects[escort]          # it swims away from its dolphin
            escort = None
        free = self.free_dolphins(state, cell)
        if escort is None and free:
            self.protect(state, free[0], handle, events)
        super().enter_sea(state, handle, cell, events)

    def move_explorer(self, state: AtlantisState, player: str, handle: str, cell: int, swim: bool, events: Events) -> None:
        super().move_explorer(state, player, handle, cell, swim, events)
        self.release_dolphins(state)

    def lose_explorers(self, state: AtlantisState, handles: list[str], cell: int | None, events: Events, cause: str) -> None:
        super().lose_explorers(state, handles, cell, events, cause)
        if state.protects:
            self.release_dolphins(state)

    def after_action(self, state: AtlantisState, events: Events) -> None:
        super().after_action(state, events)
        if state.protects:
            self.release_dolphins(state)

    def explorer_moves(self, state: AtlantisState, handle: str) -> list[dict[str, Any]]:
        """In step 2, each swim of a protected swimmer is listed twice: alone, and with ``dolphin: true``."""
        out = super().explorer_moves(state, handle)
        e = state.explorers[handle]
        if not (e.where == SEA and self.current_step(state) == STEP_MOVE
                and self.protector(state, handle) and self.may_swim(state, handle)):
            return out
        near = self.board.neighbours[at(e.cell)]
        return out + [{**a, "dolphin": True} for a in out if self.board.index[a["to"]] in near]

    def dolphin_move_choices(self, state: AtlantisState, player: str) -> Sequence[Action]:
        """:meth:`legal_move`: listed in full (with the dolphin rides of :meth:`explorer_moves`) when
        one of ``player``'s swimmers has a dolphin and may swim; else the core's moves, made only
        when read (:meth:`move_choices`: :meth:`explorer_moves` adds nothing then)."""
        explorers = state.explorers
        for swimmer in state.protects.values():
            e = explorers[swimmer]
            if e.owner == player and e.where == SEA and self.may_swim(state, swimmer):
                return self.legal_move(state, player)
        return self.move_choices(state, player)

    def do_move(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{move: r3, to: F4, dolphin: true}``: "When you move a protected Swimmer during step 2
        ..., you may move the Dolphin along with it (but only one sea space per turn as per the
        rules on moving Swimmers)\"."""
        carry = action.get("dolphin", False)
        if carry is False:
            return super().do_move(state, player, action, rng)
        if carry is not True:
            raise IllegalAction("dolphin must be true or false")
        self.expect(state, player, STEP_MOVE)
        handle = handle_arg(action["move"], "move")
        e = state.explorers.get(handle)
        dolphin = self.protector(state, handle) if e is not None else None
        if e is None or e.owner != player or e.where != SEA or dolphin is None:
            raise IllegalAction(f"dolphin: true takes a dolphin along with one of your protected swimmers; "
                                f"{handle} is not one")
        cell = self.cell_arg(action["to"])
        swim = swim_arg(action)
        how, _ = self.explorer_step_kind(state, e, cell, swim)
        if how != "swim":
            raise IllegalAction("a dolphin goes along only when its swimmer swims to another sea space "
                                "(\"Dolphins cannot end movement in Boats or on Land\")")
        frm = e.cell
        state.put_creature(dolphin, SEA, cell)
        events = [event({"event": "dolphin", "player": player, "dolphin": dolphin, "explorer": handle,
                         "from": self.label(frm), "to": self.label(cell)})]
        rest = {k: v for k, v in action.items() if k != "dolphin"}
        return events + super().do_move(state, player, rest, rng)

    # --- step 3: the dolphin tile ------------------------------------------------------------
    def tile_kind(self, state: AtlantisState, back: str) -> str:
        """"consider this tile a green outlined *Play Immediately* tile\"."""
        if back == DOLPHIN:
            return "immediate"
        return super().tile_kind(state, back)

    def tile_effect_table(self) -> dict[str, TileEffect[AtlantisState]]:
        return {**super().tile_effect_table(), DOLPHIN: self.effect_dolphin}

    def effect_dolphin(self, state: AtlantisState, tile: Tile, player: str, events: Events,
                       boarders: list[str] | None) -> None:
        """"Take a Dolphin token from off the board and place it on the sea space that had been
        occupied by the Terrain tile.\"  The explorers that stood on the tile swim there now: with
        one, the dolphin protects it; with several, the revealer chooses (decision ``protect``)."""
        dolphin = self.take_from_supply(state, DOLPHIN, events)
        if dolphin is None:
            return
        state.put_creature(dolphin, SEA, tile.cell)
        events.append(event({"event": "appear", "piece": dolphin, "at": self.label(tile.cell)}))
        self.dolphin_arrives(state, dolphin, tile.cell, None, events)

    def removal_rolls_die(self, state: AtlantisState, back: str, fallen: list[str], boarders: list[str] | None) -> bool:
        """The dive dice wait while the revealer chooses the swimmer a new dolphin protects."""
        if back == DOLPHIN and len(fallen) > 1 and self.supply(state, DOLPHIN):
            return False
        return super().removal_rolls_die(state, back, fallen, boarders)

    def waiting_decision(self, state: AtlantisState) -> str | None:
        waiting = super().waiting_decision(state)
        if waiting is None and state.dolphin_choice is not None:
            return STEP_PROTECT
        return waiting

    def legal_protect(self, state: AtlantisState, player: str) -> list[dict[str, Any]]:
        dolphin = state.creatures[state.dolphin_choice or ""]
        return [{"protect": h} for h in self.free_swimmers(state, dolphin.cell or 0)]

    def do_protect(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{protect: r3}``: the swimmer the dolphin just placed protects."""
        self.expect(state, player, STEP_PROTECT)
        dolphin = state.dolphin_choice or ""
        cell = state.creatures[dolphin].cell or 0
        swimmer = handle_arg(action["protect"], "protect")
        if swimmer not in self.free_swimmers(state, cell):
            raise IllegalAction(f"{swimmer} is not one of the swimmers at {self.label(cell)}: "
                                f"{', '.join(self.free_swimmers(state, cell))}")
        die = self.roll_die(state, rng)     # step 4 follows: roll before anything changes
        events: Events = []
        state.dolphin_choice = None
        self.protect(state, dolphin, swimmer, events)
        self.advance(state, rng, events, STEP_REMOVE, die)
        return events

    # --- step 4: the dive dice ------------------------------------------------------------------
    def roll_die(self, state: AtlantisState, rng: Rng | None) -> str:
        """"roll both blue Dive Dice (instead of the red Creature Die)\": ``creature/distance``."""
        if rng is None:
            raise NeedsSecret("the dive dice are rolled by the moderator")
        data = self.dive_data()
        first, second = data["dive_die_creature"], data["dive_die_distance"]
        creature = first[rng.randbelow(len(first), "dive die creature")]
        distance = second[rng.randbelow(len(second), "dive die distance")]
        return f"{creature}/{distance}"

    def ahead_faces(self) -> list[str]:
        """The dive dice are read as a pair (``shark/2``): the click-to-move page offers no creature
        order written ahead for them."""
        return []

    def die_faces_shown(self) -> list[str]:
        data = self.dive_data()
        return [f"{c}/{d}" for c in data["dive_die_creature"] for d in dict.fromkeys(data["dive_die_distance"])]

    @staticmethod
    def dive_faces(roll: str | None) -> tuple[str, str]:
        """The two faces of a dive roll ``"shark/2"`` -> ``("shark", "2")``."""
        creature, _, distance = (roll or "/").partition("/")
        return creature, distance

    def start_creature_step(self, state: AtlantisState, rng: Rng | None, events: Events, die: str | None) -> bool:
        roll = die if die is not None else self.roll_die(state, rng)
        state.turn.die = roll
        state.history["rolls"] = state.history.get("rolls", 0) + 1
        creature, distance = self.dive_faces(roll)
        events.append(event({"event": "roll", "player": state.turn.player, "face": roll,
                             "dice": [creature, distance]}, chance=True))
        if self.dive_pieces(state):
            return True
        events.append(event({"event": "no-creature", "player": state.turn.player, "kind": self.face_name(creature)}))
        return False

    @staticmethod
    def face_name(face: str) -> str:
        """The first dive die's face as the pieces it names, for event texts."""
        return {BOAT: "unoccupied ship", WILD: "piece the dive dice can move"}.get(face, face)

    def decision_kind(self, state: AtlantisState, step: str) -> str:
        if step == STEP_CREATURE:
            return STEP_DIVE
        return super().decision_kind(state, step)

    def dive_kinds(self, state: AtlantisState, face: str) -> list[str]:
        """"whether you may move a Sea Serpent, Shark, Whale, Dolphin, or an unoccupied Boat. The
        Starfish symbol is wild\" (a squid goes with the whale face, see ``die_kinds``)."""
        faces = self.dive_data()["dive_die_creature"]
        named = [f for f in dict.fromkeys(faces) if f != WILD] if face == WILD else [face]
        kinds: list[str] = []
        for f in named:
            kinds.extend([f] if f in (DOLPHIN, BOAT) else self.die_kinds(state, f))
        return kinds

    def dive_pieces(self, state: AtlantisState) -> list[str]:
        """The pieces the dive roll lets the player move, in handle order ("You may never move an
        occupied Boat using the Dive Dice, even if you control the Boat")."""
        kinds = self.dive_kinds(state, self.dive_faces(state.turn.die)[0])
        out = [c.handle for c in state.creatures.values() if c.where == SEA and c.kind in kinds]
        if BOAT in kinds:
            out += [b.handle for b in state.boats.values() if b.where == SEA and not b.passengers]
        return sort_handles(out)

    def vacant_spaces(self, state: AtlantisState) -> list[int]:
        """"any unoccupied sea space on the game board\" (:meth:`vacant` of every space, read from the
        state's indexes at once: :meth:`vacant_cells`)."""
        return self.vacant_cells(state)

    def stops_serpent(self, state: AtlantisState, cell: int) -> bool:
        """With the dive dice a serpent moves up to the rolled number; "If a Sea Serpent ... enters
        a sea space occupied by something it could attack ..., the Sea Creature's move ends\"."""
        boat = state.boat_at.get(cell)
        return (boat is not None and bool(state.boats[boat].passengers)) or bool(
            self.unprotected(state, state.swimmers(cell)))

    def serpent_stop_cells(self, state: AtlantisState) -> Spaces:
        """:meth:`stops_serpent`: the spaces of the ships with passengers and of the swimmers it
        may attack."""
        ships = {cell for cell, boat in state.boat_at.items() if state.boats[boat].passengers}
        return ships | {cell for cell, swimmers in state.sea_at.items() if self.unprotected(state, swimmers)}

    def dive_destinations(self, state: AtlantisState, piece: str) -> list[tuple[int, list[str]]]:
        """Where ``piece`` may go with the dive roll -> the swimmers a dolphin arriving there may
        protect (each a separate choice when there are several)."""
        distance = self.dive_faces(state.turn.die)[1]
        if piece in state.boats:
            b = state.boats[piece]
            if distance == DIVE:
                cells = self.vacant_spaces(state)
            else:
                cells = sorted(self.reach(b.cell or 0, int(distance), self.closed_to_ship(state, piece), NOWHERE))
            return [(c, []) for c in cells if c != b.cell]
        c = state.creatures[piece]
        if c.kind == DOLPHIN:
            if distance == DIVE:
                cells = self.vacant_spaces(state)
            else:
                cells = sorted(self.reach(c.cell or 0, int(distance), state.tile_at, NOWHERE))
            return [(d, self.free_swimmers(state, d)) for d in cells if d != c.cell]
        if distance == DIVE:
            cells = self.vacant_spaces(state) + ([c.cell or 0] if self.may_stay(state, c.kind) else [])
            return [(d, []) for d in sorted(cells)]
        return [(d, []) for d in sorted(self.creature_reach(state, c, int(distance)))]

    def dive_cells(self, state: AtlantisState, piece: str, ends: dict[str, Spaces] | None = None) -> list[int]:
        """The spaces of :meth:`dive_destinations` (the plain rule, kept as the reference:
        tests/golden/test_bot_fast_forms.py compares them at every dive), in board order, read
        from the sea walk without the paths :meth:`reach` and :meth:`creature_reach` make;
        ``ends``: each creature kind's :meth:`stop_cells`, kept by the caller across its pieces."""
        distance = self.dive_faces(state.turn.die)[1]
        if piece in state.boats:
            b = state.boats[piece]
            if distance == DIVE:
                cells = self.vacant_spaces(state)
            else:
                cells = sorted(self.sea_walk(b.cell or 0, int(distance), self.closed_to_ship(state, piece), NOWHERE))
            return [c for c in cells if c != b.cell]
        c = state.creatures[piece]
        if c.kind == DOLPHIN:
            if distance == DIVE:
                cells = self.vacant_spaces(state)
            else:
                cells = sorted(self.sea_walk(c.cell or 0, int(distance), state.tile_at, NOWHERE))
            return [d for d in cells if d != c.cell]
        if distance == DIVE:
            cells = self.vacant_spaces(state) + ([c.cell or 0] if self.may_stay(state, c.kind) else [])
            return sorted(cells)
        if ends is None:
            ends = {}
        if c.kind not in ends:
            ends[c.kind] = self.stop_cells(state, c.kind)
        stops = ends[c.kind]
        spaces = list(self.creature_walk_of(state, c, int(distance), stops))
        if self.may_stay(state, c.kind) and c.cell not in spaces:
            spaces.append(c.cell or 0)
        return sorted(spaces)

    def dive_choices(self, state: AtlantisState, player: str) -> Sequence[Action]:
        """:meth:`legal_dive`, action for action, with each piece's moves to a space made only when
        read (:class:`CreatureOrder` pairs, which the greedy bot's core scores never score); a
        dolphin's too, unless it may arrive by several swimmers (it protects one: a choice each,
        listed)."""
        order = CreatureOrder("dive", self.board.labels)
        parts: list[Sequence[Action]] = [[{"dive": "none"}]]
        ends: dict[str, Spaces] = {}        # each creature kind's stop cells, worked out once
        for piece in self.dive_pieces(state):
            c = state.creatures.get(piece)
            dolphin = c is not None and c.kind == DOLPHIN
            if piece in state.boats or not dolphin:      # a ship or another creature protects nobody
                parts.append(Pairs([piece], self.dive_cells(state, piece, ends), order))
            else:
                cells = self.dive_cells(state, piece)
                swimmers = [self.free_swimmers(state, cell) for cell in cells]
                if all(len(s) < 2 for s in swimmers):    # (one action a space: pairs, as a ship's)
                    parts.append(Pairs([piece], cells, order))
                else:
                    parts.append([action for cell, s in zip(cells, swimmers)
                                  for action in self.dive_actions(piece, cell, s)])
            if c is not None and dolphin:
                current = state.protects.get(piece)
                parts.append([{"dive": piece, "protect": s} for s in self.free_swimmers(state, c.cell or 0)
                              if s != current])
        return Chain(parts)

    def dive_actions(self, piece: str, cell: int, swimmers: list[str]) -> list[dict[str, Any]]:
        """``piece`` dives to ``cell``; a dolphin arriving by several swimmers protects one, each
        a separate choice."""
        if len(swimmers) > 1:
            return [{"dive": piece, "to": self.label(cell), "protect": s} for s in swimmers]
        return [{"dive": piece, "to": self.label(cell)}]

    def legal_dive(self, state: AtlantisState, player: str) -> list[dict[str, Any]]:
        """Step 4's decision with the dive dice, listed in full from :meth:`dive_destinations` (the
        plain rule :meth:`dive_choices` stands for: tests/golden/test_bot_fast_forms.py compares
        the two at every dive)."""
        out: list[dict[str, Any]] = [{"dive": "none"}]
        for piece in self.dive_pieces(state):
            for cell, swimmers in self.dive_destinations(state, piece):
                out.extend(self.dive_actions(piece, cell, swimmers))
            c = state.creatures.get(piece)
            if c is not None and c.kind == DOLPHIN:
                current = state.protects.get(piece)
                out.extend({"dive": piece, "protect": s} for s in self.free_swimmers(state, c.cell or 0)
                           if s != current)
        return out

    def do_dive(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{dive: K2, to: F4}`` (or ``path:``), ``{dive: P1, to: F4, protect: r3}``,
        ``{dive: P1, protect: r3}`` or ``{dive: none}``."""
        self.expect(state, player, STEP_DIVE)
        creature_face, distance = self.dive_faces(state.turn.die)
        events: Events = []
        if is_none(action["dive"]):
            if set(action) - {"dive"}:
                raise IllegalAction("{dive: none} takes no other keys")
            events.append(event({"event": "creature", "player": player, "creature": None,
                                 "kind": self.face_name(creature_face)}))
            self.advance(state, rng, events, STEP_CREATURE)
            return events
        piece = handle_arg(action["dive"], "dive")
        if piece not in self.dive_pieces(state):
            raise IllegalAction(f"the dive dice show {creature_face}: move "
                                f"{' / '.join(self.dive_kinds(state, creature_face))} on the board "
                                f"(never an occupied ship), not {piece}")
        if piece in state.boats:
            self.dive_boat(state, player, piece, action, distance, events)
        elif state.creatures[piece].kind == DOLPHIN:
            self.dive_dolphin(state, player, piece, action, distance, events)
        else:
            self.dive_creature(state, player, piece, action, distance, events)
        return self.wait_or_advance(state, rng, events, STEP_CREATURE)

    def dive_to(self, state: AtlantisState, action: Mapping[str, Any], what: str, stay: int | None = None) -> int:
        """"If a "D" was rolled ..., move the chosen Sea Creature or unoccupied Boat to any
        unoccupied sea space on the game board\" (or stay at ``stay``, for a squid)."""
        if action.get("path") is not None:
            raise IllegalAction(f"{what} dives straight to a space (D): write to: SPACE, not path:")
        if action.get("to") is None:
            raise IllegalAction(f"{what}: say where it dives, with to: SPACE")
        cell = self.cell_arg(action["to"], "to")
        if cell != stay and not self.vacant(state, cell):
            raise IllegalAction(f"{self.label(cell)} is not an unoccupied sea space")
        return cell

    def dive_walk(self, state: AtlantisState, action: Mapping[str, Any], start: int, distance: str,
                  blocked: Spaces, ends: Spaces, what: str) -> Path:
        """A move "up to the number of sea spaces you rolled" or a dive; never back to ``start``."""
        if distance == DIVE:
            return [self.dive_to(state, action, what)]
        return self.walk_arg(action, start, int(distance), blocked, ends, what, allow_return=False)

    def dive_boat(self, state: AtlantisState, player: str, boat: str, action: Mapping[str, Any], distance: str,
                  events: Events) -> None:
        """An unoccupied ship drifts "due to the wind and turbulent waters surrounding Atlantis"."""
        if "protect" in action:
            raise IllegalAction("protect: is for dolphins")
        start = state.boats[boat].cell or 0
        path = self.dive_walk(state, action, start, distance, self.closed_to_ship(state, boat), NOWHERE,
                              f"ship {boat}")
        events.append(event({"event": "sail", "player": player, "boat": boat, "how": "dive dice",
                             "from": self.label(start), "to": self.label(path[-1])}))
        self.sail(state, boat, path[-1], events)

    def dive_creature(self, state: AtlantisState, player: str, handle: str, action: Mapping[str, Any], distance: str,
                      events: Events) -> None:
        """A sea creature moves or dives; "If a Sea Serpent, Shark, or Whale (or Giant Squid) enters a
        sea space occupied by something it could attack ..., the Sea Creature's move ends, and the
        attack commences as per the usual rules.\""""
        if "protect" in action:
            raise IllegalAction("protect: is for dolphins")
        c = state.creatures[handle]
        kind = c.kind
        start = c.cell or 0
        if distance == DIVE:
            dest = self.dive_to(state, action, f"{kind} {handle}",
                               stay=start if self.may_stay(state, kind) else None)
            path = [] if dest == start else [dest]
        else:
            path = self.creature_walk(state, c, action, int(distance))
            dest = path[-1] if path else start
        self.check_defense_knowledge(state, kind, dest)
        state.put_creature(handle, SEA, dest)
        events.append(event({"event": "creature", "player": player, "creature": handle, "kind": kind,
                             "how": "dived" if distance == DIVE else "dive dice",
                             "from": self.label(start), "to": self.label(dest),
                             "path": [self.label(x) for x in path]}))
        self.creature_rule(kind).arrive(state, c, dest, events)

    def dive_dolphin(self, state: AtlantisState, player: str, dolphin: str, action: Mapping[str, Any], distance: str,
                     events: Events) -> None:
        """A dolphin moves, dives, or switches the swimmer it protects."""
        start = state.creatures[dolphin].cell or 0
        old = state.protects.get(dolphin)
        chosen = None if action.get("protect") is None else handle_arg(action["protect"], "protect")
        if action.get("to") is None and action.get("path") is None:
            # "you can use that move to switch the protection of that Dolphin to another Swimmer in
            # that sea space, instead of moving the Dolphin"
            if chosen is None:
                raise IllegalAction(f"dolphin {dolphin}: say where it goes (to: SPACE) or which swimmer "
                                    "here it protects now (protect: SWIMMER)")
            if chosen == old or chosen not in self.free_swimmers(state, start):
                raise IllegalAction(f"{chosen} is not another swimmer at {self.label(start)} that dolphin "
                                    f"{dolphin} could protect")
            self.protect(state, dolphin, chosen, events)
            if old is not None:
                self.exposed(state, start, old, events)
            return
        path = self.dive_walk(state, action, start, distance, state.tile_at, NOWHERE,
                              f"dolphin {dolphin}")
        dest = path[-1]
        free = self.free_swimmers(state, dest)
        if chosen is not None and chosen not in free:
            raise IllegalAction(f"{chosen} is not a swimmer at {self.label(dest)} that dolphin {dolphin} "
                                "could protect")
        if chosen is None and len(free) > 1:
            raise IllegalAction(f"several swimmers at {self.label(dest)}: choose the one dolphin {dolphin} "
                                f"protects with protect: ({', '.join(free)})")
        state.protects.pop(dolphin, None)
        state.put_creature(dolphin, SEA, dest)
        events.append(event({"event": "dolphin", "player": player, "dolphin": dolphin,
                             "how": "dived" if distance == DIVE else "dive dice",
                             "from": self.label(start), "to": self.label(dest)}))
        self.dolphin_arrives(state, dolphin, dest, chosen, events)
        if old is not None:
            self.exposed(state, start, old, events)

    # --- positions, pictures, texts ----------------------------------------------------------------
    def extra_view(self, state: AtlantisState) -> dict[str, Any]:
        out = super().extra_view(state)
        out["dolphins"] = {"protects": dict(sorted(state.protects.items())), "choosing": state.dolphin_choice}
        return out

    def read_extra(self, state: AtlantisState, pos: Mapping[str, Any]) -> None:
        super().read_extra(state, pos)
        d = pos.get("dolphins") or {}
        state.protects = {str(k): str(v) for k, v in sorted((d.get("protects") or {}).items())}
        state.dolphin_choice = d.get("choosing")

    def describe(self, ev: Mapping[str, Any]) -> str:
        kind = ev.get("event")
        if kind == "protect":
            return f"dolphin {ev.get('dolphin')} protects {ev.get('explorer')} at {ev.get('at')}"
        if kind == "dolphin":
            with_whom = f" with {ev['explorer']}" if ev.get("explorer") else ""
            how = f" ({ev['how']})" if ev.get("how") else ""
            return (f"{ev.get('player')} moves dolphin {ev.get('dolphin')}{with_whom} "
                    f"{ev.get('from')} -> {ev.get('to')}{how}")
        if kind == "roll" and ev.get("dice"):
            creature, distance = ev["dice"]
            return f"{ev.get('player')} rolls the dive dice: {creature} and {distance}"
        if kind == "creature" and ev.get("how") in ("dive dice", "dived") and ev.get("creature"):
            return (f"{ev.get('player')} moves {ev.get('kind')} {ev.get('creature')} "
                    f"{ev.get('from')} -> {ev.get('to')} ({ev['how']})")
        if kind == "sail" and ev.get("how") == "dive dice":
            return f"{ev.get('player')} sails empty ship {ev.get('boat')} {ev.get('from')} -> {ev.get('to')} (dive dice)"
        return super().describe(ev)

    def model_prompts(self, state: AtlantisState) -> dict[str, str]:
        return {**super().model_prompts(state), STEP_DIVE: "step 4: move what the dive dice show, or none",
                STEP_PROTECT: "choose the swimmer the dolphin protects"}

    def variant_prompt(self, state: AtlantisState, kind: str) -> str:
        if kind == STEP_DIVE:
            creature, distance = self.dive_faces(state.turn.die)
            how = "dives to any unoccupied sea space" if distance == DIVE else f"moves up to {distance} sea space(s)"
            return (f"step 4: the dive dice show {creature} and {distance}: the piece {how}: "
                    "{dive: HANDLE, to: SPACE}, {dive: P1, protect: SWIMMER} or {dive: none}")
        if kind == STEP_PROTECT and state.dolphin_choice is not None:
            cell = state.creatures[state.dolphin_choice].cell
            return (f"dolphin {state.dolphin_choice} came up at {self.label(cell)}: choose the swimmer it "
                    f"protects: {{protect: {', '.join(self.free_swimmers(state, cell or 0))}}}")
        return super().variant_prompt(state, kind)

    def summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        lines = super().summary_lines(view)
        turn = view.get("turn") or {}
        if turn.get("step") == STEP_DIVE:
            creature, distance = self.dive_faces(turn.get("die"))
            lines.insert(1, f"Dive dice: {creature} and {distance}.")
        protects = (view.get("dolphins") or {}).get("protects") or {}
        dolphins = [f"{h} at {c['at']}" + (f" protecting {protects[h]}" if h in protects else "")
                    for h, c in view["creatures"].items() if c["kind"] == DOLPHIN and c["where"] == SEA]
        if dolphins:
            lines.append("Dolphins: " + "; ".join(dolphins) + ".")
        return lines

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_view(view)
        step = self.current_step(state)
        if state.phase != PLAY or self.decider(state) != player or step not in (STEP_DIVE, STEP_PROTECT):
            return super().template(view, player)
        lines = ["actions:"]
        if step == STEP_PROTECT:
            lines.append(f"  - {{protect: {self.legal_protect(state, player)[0]['protect']}}}"
                         f"   # the swimmer dolphin {state.dolphin_choice} protects")
        else:
            lines.extend(self.template_step(state, player, STEP_CREATURE, True, lambda: []))
        lines.append("# any time: - {standing: {shark_defense: ask, whale_defense: auto}}")
        return "\n".join(lines) + "\n"

    def template_step(self, state: AtlantisState, player: str, step: str, now: bool,
                      legal: Callable[[], list[dict[str, Any]]]) -> list[str]:
        if step == STEP_CREATURE:
            if now and state.turn.die:
                creature, distance = self.dive_faces(state.turn.die)
                options = [f"{a['dive']}->{a.get('to', a.get('protect'))}" for a in self.legal_dive(state, player)
                           if a["dive"] != "none"]
                return [f"  # step 4: the dive dice show {creature} and {distance}; e.g. {', '.join(options[:8])}",
                        "  - {dive: none}"]
            return ["  # step 4: the dive dice are rolled after step 3; you answer then with",
                    "  #   {dive: K2, to: F4}, {dive: P1, to: F4, protect: r3}, {dive: P1, protect: r3} "
                    "or {dive: none}"]
        lines = super().template_step(state, player, step, now, legal)
        if step == STEP_MOVE:
            lines.insert(1, "  #   a protected swimmer may take its dolphin along: {move: r3, to: F4, dolphin: true}")
        return lines

    # --- the tables ------------------------------------------------------------------------------
    def action_table(self) -> dict[str, ActionHandler[AtlantisState]]:
        return {**super().action_table(), "dive": self.do_dive, "protect": self.do_protect}

    def decider_table(self) -> dict[str, Decider[AtlantisState]]:
        # the movement step is listed with the dolphin rides where there are any (:meth:`explorer_moves`)
        table = {**super().decider_table(), STEP_DIVE: self.dive_choices, STEP_PROTECT: self.legal_protect,
                 STEP_MOVE: self.dolphin_move_choices}
        del table[STEP_CREATURE]            # step 4 waits for the dive dice instead
        return table
