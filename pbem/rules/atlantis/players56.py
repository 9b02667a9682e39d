"""The 5-6 Players! mini-expansion and its challenge #5 "Overpopulated!", as layers.

"When playing ... with 5 or 6 players, the rules you are reading now take precedence over
the rules in the base game."  :class:`Players56` joins the rules of every 5- or 6-player
game; :class:`Challenge5` (a subclass) replaces it when ``overpopulated=yes`` in a 5-6
player game.  The kit's data (colours, tokens put back, ships per seat) is the
``players56`` section of ``games/atlantis/components.yaml``.

* A 5- or 6-player game follows the expansion's setup: fewer explorer tokens, ships per
  seat, orange (``o1..``) and white (``wh1..``) explorers, and in a 6-player game the
  fifth and sixth players' final explorers go onto occupied tiles.
* Challenge #5: all ten tokens and two ships each, second explorers once the island is
  full, the one-point mini-round for the explorers of a sunk tile (step ``sunk-move``),
  destroyed ships back in the supply, and a ship taken from the board when the supply is
  empty (step ``choose-ship``).
* The tie-breaks (option ``ties``) are the Atlantis rules' (``tie_break_chain``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import IllegalAction, NeedsSecret, Rng
from pbem.rules.atlantis.rules import AtlantisRules
from pbem.rules.atlantis.state import (
    BOAT,
    ISLAND,
    LOST,
    PLAY,
    SEA,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_REMOVE,
    AtlantisState,
    ShipChoice,
    SunkRound,
    Tile,
    sort_handles,
)
from pbem.rules.survive.actions import handle_arg, swim_arg
from pbem.rules.survive.base import ActionHandler, Decider, Events, StepStarter, event
from pbem.rules.survive.challenges import Players56 as Players56Kit

#: challenge #5 decisions: choose a ship from the board; the sunk-tile mini-round
STEP_SHIP, STEP_SUNK = "choose-ship", "sunk-move"


class Players56(Players56Kit[AtlantisState], AtlantisRules):
    """The 5-6 player kit's set-up (:class:`pbem.rules.survive.challenges.Players56`: Survive's
    kit, shared with Space Attack)."""

    def empty_tiles(self, state: AtlantisState) -> list[int]:
        return [t.cell for t in state.tiles.values() if t.where == ISLAND and not state.on_land(t.cell)]


class Challenge5(Players56):
    """Challenge #5 "Overpopulated!": "This Challenge Rule requires 5 or 6 players"."""

    kit_setup = False

    # --- setup: second explorers -------------------------------------------------------------
    #: the turn model's ``crowd``; the ship choice and the sunk-tile round (their steps, their
    #: decider) follow a tile removal, a STOP of the model, and are skipped in any other turn; the
    #: supply differs for ships only (the model asks it for creatures)
    turn_model_covers = frozenset({"placement_spots", "turn_step_list", "decider", "start_ship_step",
                                   "start_sunk_step", "supply", "legal_sunk_move", "do_sunk_move",
                                   "do_sunk_done", "sunk_explorers", "last_in_sunk_round", "next_in_sunk_round"})

    def turn_model_params(self, state: AtlantisState) -> dict[str, Any]:
        return {**super().turn_model_params(state), "final_on_occupied": [],
                "crowd": int(self.comp["players56"]["overpopulated"]["per_tile"])}

    def crowded_spots(self, state: AtlantisState, player: str) -> list[int]:
        """"once the island is full players may start placing a second People Token on an
        already-occupied Land Tile", not where there are already two, nor where there is
        already one of their own colour."""
        empty = self.empty_tiles(state)
        if empty:
            return empty
        most = self.comp["players56"]["overpopulated"]["per_tile"]
        return [c for c in self.occupied_tiles_without_own_colour(state, player) if len(state.on_land(c)) < most]

    def placement_spots(self, state: AtlantisState) -> list[int]:
        return self.crowded_spots(state, state.turn.player)

    def placeable(self, state: AtlantisState, cell: int) -> bool:
        return cell in self.placement_spots(state)      # (this layer's listing, not the core's one-space rule)

    def why_not_placeable(self, state: AtlantisState, cell: int) -> str:
        if cell not in state.tile_at:
            return super().why_not_placeable(state, cell)
        here = self.label(cell)
        if self.empty_tiles(state):
            return f"{here} is occupied: second explorers only once the island is full (challenge #5)"
        if len(state.on_land(cell)) >= self.comp["players56"]["overpopulated"]["per_tile"]:
            return f"{here} already holds two explorers"
        return f"{here} already holds an explorer of your colour"

    # --- ships -----------------------------------------------------------------------------------
    def supply(self, state: AtlantisState, kind: str) -> list[str]:
        """"(in a 6 player game, the *supply* will be from boats that have been destroyed, for
        example)": destroyed ships go back to the supply."""
        left = super().supply(state, kind)
        if kind == "boat":
            left = left + [b.handle for b in state.boats.values() if b.where == LOST]
        return left

    def effect_place_ship(self, state: AtlantisState, tile: Tile, player: str, events: Events,
                          boarders: list[str] | None) -> None:
        """"In the event that a *Play Immediately* tile calls for the placement of a Boat Token,
        but none are available from the supply ..., the player drawing the tile must select an
        unoccupied boat from anywhere on the board and place it into the designated space. Any
        People Tokens on the space are placed into the boat as per normal rules."."""
        ships = self.unoccupied_ships(state)
        if self.supply(state, "boat") or not ships:
            super().effect_place_ship(state, tile, player, events, boarders)
        elif len(ships) == 1:
            self.take_ship_from_board(state, ships[0], tile, player, events, boarders)
        else:
            state.ship_choice = ShipChoice(tile.handle, tile.cell)
            events.append(event({"event": "choose-ship", "player": player, "at": self.label(tile.cell),
                                 "ships": ships}))

    def unoccupied_ships(self, state: AtlantisState) -> list[str]:
        return [b.handle for b in state.boats.values() if b.where == SEA and not b.passengers]

    def take_ship_from_board(self, state: AtlantisState, boat: str, tile: Tile, player: str, events: Events,
                             boarders: list[str] | None) -> None:
        events.append(event({"event": "ship-taken", "player": player, "boat": boat,
                             "from": self.label(state.boats[boat].cell), "to": self.label(tile.cell)}))
        self.launch_ship(state, boat, tile, player, events, boarders)

    def start_ship_step(self, state: AtlantisState, rng: Rng | None, events: Events, die: str | None) -> bool:
        return state.ship_choice is not None

    def legal_choose_ship(self, state: AtlantisState, player: str) -> list[dict[str, Any]]:
        at = self.label(self.open_ship_choice(state).cell)
        return [{"boat": b, "at": at} for b in self.unoccupied_ships(state)]

    def open_ship_choice(self, state: AtlantisState) -> ShipChoice:
        if state.ship_choice is None:
            raise RuntimeError("no ship choice is open")
        return state.ship_choice

    def do_choose_ship(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{boat: B3, at: SPACE}`` at step ``choose-ship``."""
        self.expect(state, player, STEP_SHIP)
        choice = self.open_ship_choice(state)
        boat = handle_arg(action["boat"], "boat")
        if boat not in self.unoccupied_ships(state):
            raise IllegalAction(f"{boat} is not an unoccupied ship on the board "
                                f"(choose one of {', '.join(self.unoccupied_ships(state))})")
        if self.cell_arg(action["at"]) != choice.cell:
            raise IllegalAction(f"the ship goes to {self.label(choice.cell)}, where the tile was")
        # the die is rolled first when step 4 follows at once (no boarding choice, no mini-round),
        # so that a state without the seed raises NeedsSecret before anything changes
        rolls = self.die_follows_ship_choice(state, boat, choice)
        die = self.roll_die(state, rng) if rolls else None
        events: Events = []
        state.ship_choice = None
        self.take_ship_from_board(state, boat, state.tiles[choice.tile], player, events, None)
        if state.boarding is not None:
            state.turn.step = STEP_BOARDERS
        else:
            self.advance(state, rng, events, STEP_SHIP, die)
        return events

    def die_follows_ship_choice(self, state: AtlantisState, boat: str, choice: ShipChoice) -> bool:
        boarding = len(state.swimmers(choice.cell)) > self.capacity(state, boat)
        return not boarding and not self.sunk_round_follows(state)

    # --- the sunk-tile mini-round ------------------------------------------------------------------
    def turn_step_list(self) -> tuple[str, ...]:
        """After step 3: the ship choice and the mini-round ("before the current player rolls the
        Creature Die"); both are skipped unless challenge #5 calls for them."""
        steps = super().turn_step_list()
        i = steps.index(STEP_REMOVE) + 1
        return steps[:i] + (STEP_SHIP, STEP_SUNK) + steps[i:]

    def step_table(self) -> dict[str, StepStarter[AtlantisState]]:
        return {**super().step_table(), STEP_SHIP: self.start_ship_step, STEP_SUNK: self.start_sunk_step}

    def step_handler_table(self) -> dict[str, dict[str, ActionHandler[AtlantisState]]]:
        return {**super().step_handler_table(), STEP_SHIP: {"boat": self.do_choose_ship},
                STEP_SUNK: {"move": self.do_sunk_move, "done": self.do_sunk_done}}

    def decider_table(self) -> dict[str, Decider[AtlantisState]]:
        return {**super().decider_table(), STEP_SHIP: self.legal_choose_ship, STEP_SUNK: self.legal_sunk_move}

    def resolve_back(self, state: AtlantisState, tile: Tile, player: str, events: Events,
                     boarders: list[str] | None) -> None:
        """Remember who stood on the tile; "Any «Play Immediately» tiles that are revealed must be
        carried out first however"."""
        stood = sort_handles(state.swimmers(tile.cell))   # they have just fallen in
        state.sunk = SunkRound(tile.handle, stood, []) if stood else None
        super().resolve_back(state, tile, player, events, boarders)

    def turn_order_from_current(self, state: AtlantisState) -> list[str]:
        return [state.turn.player] + state.players_from(state.turn.player)

    def sunk_explorers(self, state: AtlantisState, player: str) -> list[str]:
        """``player``'s explorers that stood on the just-sunk tile and are still in play."""
        sunk = state.sunk
        if sunk is None:
            return []
        return [h for h in sunk.explorers
                if state.explorers[h].owner == player and state.explorers[h].where in (SEA, BOAT)]

    def start_sunk_step(self, state: AtlantisState, rng: Rng | None, events: Events, die: str | None) -> bool:
        """"those players each receive, in player turn order, an immediate 1 Movement Point to be
        used only on the People Token that was on the just-sunk Land Tile"."""
        sunk = state.sunk
        if sunk is None:
            return False
        sunk.queue = [p for p in self.turn_order_from_current(state) if self.sunk_explorers(state, p)]
        if not sunk.queue:
            # "if for example a Shark appears, it gets to remove the swimmers from the game and
            # the 1 Movement Point is lost"
            state.sunk = None
            return False
        events.append(event({"event": "sunk-round", "tile": sunk.tile,
                             "at": self.label(state.tiles[sunk.tile].cell),
                             "explorers": [h for p in sunk.queue for h in self.sunk_explorers(state, p)],
                             "players": list(sunk.queue)}))
        return True

    def decider(self, state: AtlantisState) -> str | None:
        if state.phase == PLAY and state.turn.step == STEP_SUNK and state.sunk is not None and state.sunk.queue:
            return state.sunk.queue[0]
        return super().decider(state)

    def legal_sunk_move(self, state: AtlantisState, player: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"done": "move"}]
        for h in self.sunk_explorers(state, player):
            out.extend(self.explorer_moves(state, h))
        return out

    def do_sunk_move(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{move: HANDLE, to: SPACE}`` at step ``sunk-move``."""
        self.expect(state, player, STEP_SUNK)
        extra = sorted(str(k) for k in action if k not in ("move", "to", "swim"))
        if extra:
            raise IllegalAction(f"{extra[0]!r} does not go with the sunk-tile point: {{move: HANDLE, to: SPACE}}")
        handle = handle_arg(action["move"], "move")
        mine = self.sunk_explorers(state, player)
        if handle not in mine:
            tile = state.sunk.tile if state.sunk is not None else "the sunk tile"
            raise IllegalAction(f"the point is only for your explorer(s) that stood on {tile}: "
                                f"{', '.join(mine)} (or {{done: move}})")
        cell = self.cell_arg(action["to"])
        swim = swim_arg(action)
        self.explorer_step_kind(state, state.explorers[handle], cell, swim)
        # the last point of the round rolls the die first (NeedsSecret before anything changes)
        die = self.roll_die(state, rng) if self.last_in_sunk_round(state) else None
        events: Events = []
        self.move_explorer(state, player, handle, cell, swim, events)
        self.next_in_sunk_round(state, rng, events, die)
        return events

    def do_sunk_done(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{done: move}`` at step ``sunk-move``: the point stays unused."""
        if action["done"] != "move":
            raise IllegalAction("write {done: move} to leave your sunk-tile point unused")
        self.expect(state, player, STEP_SUNK)
        die = self.roll_die(state, rng) if self.last_in_sunk_round(state) else None
        # "The Movement Point does not have to be used, but it may not be saved."
        events = [event({"event": "sunk-pass", "player": player})]
        self.next_in_sunk_round(state, rng, events, die)
        return events

    def sunk_round_follows(self, state: AtlantisState) -> bool:
        """Will a mini-round open (explorers from the sunk tile are still in play)?"""
        return state.sunk is not None and any(self.sunk_explorers(state, p) for p in state.players)

    def last_in_sunk_round(self, state: AtlantisState) -> bool:
        """Does the deciding player's point close the mini-round?  (A point moves only its own
        explorer, so the others' eligibility can be told beforehand.)"""
        sunk = state.sunk
        return sunk is None or not any(self.sunk_explorers(state, p) for p in sunk.queue[1:])

    def next_in_sunk_round(self, state: AtlantisState, rng: Rng | None, events: Events, die: str | None) -> None:
        sunk = state.sunk
        if sunk is None:
            return
        sunk.queue.pop(0)
        while sunk.queue and not self.sunk_explorers(state, sunk.queue[0]):
            sunk.queue.pop(0)
        if not sunk.queue:
            state.sunk = None
            self.advance(state, rng, events, STEP_SUNK, die)

    # --- the end, positions, prompts, templates, log lines -------------------------------------------
    def close_open_records(self, state: AtlantisState) -> None:
        state.sunk = None
        state.ship_choice = None
        super().close_open_records(state)

    def extra_view(self, state: AtlantisState) -> dict[str, Any]:
        out = super().extra_view(state)
        if state.sunk is not None:
            out["sunk"] = {"tile": state.sunk.tile, "explorers": list(state.sunk.explorers),
                           "queue": list(state.sunk.queue)}
        if state.ship_choice is not None:
            out["ship_choice"] = {"tile": state.ship_choice.tile, "at": self.label(state.ship_choice.cell)}
        return out

    def read_extra(self, state: AtlantisState, pos: Mapping[str, Any]) -> None:
        super().read_extra(state, pos)
        sunk, choice = pos.get("sunk"), pos.get("ship_choice")
        if sunk is not None:
            state.sunk = SunkRound(sunk["tile"], sort_handles(sunk["explorers"]), list(sunk["queue"]))
        if choice is not None:
            state.ship_choice = ShipChoice(choice["tile"], self.board.index[choice["at"]])

    def model_prompts(self, state: AtlantisState) -> dict[str, str]:
        return {**super().model_prompts(state), STEP_SUNK: "one point for your people from the sunk tile, or done",
                STEP_SHIP: "no ship left in the supply: choose an unoccupied ship to move"}

    def variant_prompt(self, state: AtlantisState, kind: str) -> str:
        if kind == STEP_SUNK and state.sunk is not None:
            mine = self.sunk_explorers(state, self.decider(state) or "")
            return (f"tile {state.sunk.tile} sank under {', '.join(mine)}: one movement point for one of them "
                    "({move: HANDLE, to: SPACE}) or {done: move}")
        if kind == STEP_SHIP and state.ship_choice is not None:
            at = self.label(state.ship_choice.cell)
            return f"no ship left in the supply: choose an unoccupied ship to move to {at}: {{boat: B3, at: {at}}}"
        if kind == SETUP_PLACE and not self.empty_tiles(state):
            return ("the island is full: place an explorer on a tile with one explorer, "
                    f"none of your colour (challenge #5): {self.placement_example(state)}")
        if kind == SETUP_PLACE:
            return f"place an explorer on an empty terrain tile: {self.placement_example(state)}"
        return super().variant_prompt(state, kind)

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_view(view)
        step = self.current_step(state)
        if step not in (STEP_SUNK, STEP_SHIP) or self.decider(state) != player:
            return super().template(view, player)
        try:
            acts = self.legal_actions(state, player)
        except NeedsSecret:
            acts = []
        if step == STEP_SUNK:
            moves = [f"{a['move']}->{a['to']}" for a in acts if "move" in a]
            lines = [f"  # a tile sank under your explorer: one movement point, e.g. {', '.join(moves[:8])}",
                     "  - {done: move}"]
        else:
            ships = [a["boat"] for a in acts]
            at = self.label(self.open_ship_choice(state).cell)
            lines = [f"  # no ship in the supply: choose one of the unoccupied ships {', '.join(ships)}",
                     f"  - {{boat: {ships[0] if ships else 'B1'}, at: {at}}}"]
        return "\n".join(["actions:", *lines,
                          "# any time: - {standing: {shark_defense: ask, whale_defense: auto}}"]) + "\n"

    def describe(self, ev: Mapping[str, Any]) -> str:
        kind = ev.get("event")
        if kind == "sunk-round":
            return (f"{ev.get('tile')} sank under {', '.join(ev.get('explorers') or [])}: one movement point "
                    f"each for {', '.join(ev.get('players') or [])}, in turn order")
        if kind == "sunk-pass":
            return f"{ev.get('player')} leaves the sunk-tile point unused"
        if kind == "choose-ship":
            return (f"no ship in the supply: {ev.get('player')} chooses one of the unoccupied ships "
                    f"{', '.join(ev.get('ships') or [])} for {ev.get('at')}")
        if kind == "ship-taken":
            return f"{ev.get('player')} takes ship {ev.get('boat')} from {ev.get('from')} to {ev.get('to')}"
        return super().describe(ev)
