"""The 5-6 Players! mini-expansion and its challenge #5 "Overpopulated!", on top of the base game.

"When playing ... with 5 or 6 players, the rules you are reading now take
precedence over the rules in the base game."  A mixin of
:class:`~pbem.rules.atlantis.game.AtlantisGame`, placed before
:class:`ChallengeRules` so that in a 5-6 player game its rules are asked first.
The expansion's data (colours, tokens put back, ships per seat) is in the
``players56`` section of ``games/atlantis/components.yaml``.

* A 5- or 6-player game always follows the expansion's setup: fewer explorer
  tokens, ships per seat, orange (``o1..``) and white (``wh1..``) explorers, and
  in a 6-player game the fifth and sixth players' final explorers go onto
  occupied tiles.
* ``overpopulated=yes`` in a 5-6 player game is challenge #5: all ten tokens,
  second explorers once the island is full, the one-point mini-round for the
  explorers of a sunk tile (step ``sunk-move``), destroyed ships back in the
  supply, and a ship taken from the board when the supply is empty (step
  ``choose-ship``).
* ``ties`` (all player counts): the expansion's tie-breaks; by default only in
  5-6 player games, where the expansion states them.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import IllegalAction, NeedsSecret, OptionSpec, Result, Rng
from pbem.rules.atlantis.actions import handle_arg, swim_arg
from pbem.rules.atlantis.base import event
from pbem.rules.atlantis.challenges import ChallengeRules
from pbem.rules.atlantis.state import (
    BOAT,
    ISLAND,
    LOST,
    PLAY,
    SEA,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_REMOVE,
    ShipChoice,
    State,
    SunkRound,
    Tile,
    sort_handles,
)

#: challenge #5 decisions: choose a ship from the board; the sunk-tile mini-round
STEP_SHIP, STEP_SUNK = "choose-ship", "sunk-move"


class Players56Rules(ChallengeRules):
    OPTIONS: tuple[OptionSpec, ...] = (
        OptionSpec("ties", "auto", ("auto", "shared", "broken"),
                   "auto: ties broken as in the 5-6 player rules in a 5-6 player game, shared otherwise; "
                   "shared: tied players share the win; broken: more explorers rescued, then (all-equal) "
                   "more points, then fewer turns taken"),
    )

    # --- which rules apply ---------------------------------------------------------------
    def expansion_setup(self, n_players: int) -> Mapping[str, Any] | None:
        """The expansion's per-player-count setup (None: not a 5-6 player game)."""
        return self.comp["players56"]["by_players"].get(n_players)

    def five_or_six(self, state: State) -> bool:
        return self.expansion_setup(len(state.players)) is not None

    def challenge5(self, state: State) -> bool:
        """Challenge #5 "Overpopulated!": "This Challenge Rule requires 5 or 6 players"."""
        return self.five_or_six(state) and self.overpopulated(state)

    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        if self.expansion_setup(len(players)) is not None and options.get("boats") == "per-colour":
            raise ValueError("boats=per-colour cannot be used with 5-6 players: "
                             "the 5-6 player rules say how many ships each seat gets")
        super().check_options(options, players)

    # --- setup: colours, tokens, ships --------------------------------------------------------
    def colour_prefixes(self, n_players: int) -> dict[str, str]:
        """"20 Plastic People Tokens (10 Orange and 10 White)"."""
        colours = super().colour_prefixes(n_players)  # type: ignore[misc]
        if self.expansion_setup(n_players) is not None:
            colours.update(self.comp["players56"]["colours"])
        return colours

    def explorer_values(self, n_players: int, options: Mapping[str, str]) -> list[int]:
        """"Each player receives his 10 People Tokens, but removes one "1" point People Token and
        one "3" point token" (5 players) / "one "1", "2", and "3"" (6 players).  Challenge #5: "Do
        not remove any People Tokens from the game at start"."""
        values = super().explorer_values(n_players, options)  # type: ignore[misc]
        setup = self.expansion_setup(n_players)
        if setup is None or options.get("overpopulated") == "yes":
            return values
        for v in setup["remove_values"]:
            values.remove(v)
        return values

    def starting_ships(self, players: Sequence[str], colours: Mapping[str, Sequence[str]],
                       options: Mapping[str, str]) -> dict[str, int]:
        """5 players: 1, 1, 2, 2, 2 ships; 6 players: 1, 1, 1, 1, 2, 2.  Challenge #5: "Each player
        also receives 2 Boat Tokens as per the normal rules"."""
        setup = self.expansion_setup(len(players))
        if setup is None or options.get("overpopulated") == "yes":
            return super().starting_ships(players, colours, options)  # type: ignore[misc]
        return dict(zip(players, setup["ships"], strict=True))

    # --- setup: placing explorers ----------------------------------------------------------------
    def empty_tiles(self, state: State) -> list[int]:
        return [t.cell for t in state.tiles.values() if t.where == ISLAND and not state.on_land(t.cell)]

    def has_own_colour(self, state: State, player: str, cell: int) -> bool:
        return any(state.explorers[h].colour in state.colours[player] for h in state.on_land(cell))

    def final_placement_on_occupied(self, state: State, player: str) -> bool:
        """6 players: "the final People Tokens placed by the fifth and sixth player must be placed
        on a Land Tile that already has a People Token on it"."""
        setup = self.expansion_setup(len(state.players))
        seat = state.players.index(player) + 1
        return (setup is not None and seat in setup["final_on_occupied"]
                and len(self.reserve_explorers(state, player)) == 1)  # type: ignore[attr-defined]

    def occupied_tiles_without_own_colour(self, state: State, player: str) -> list[int]:
        """"This final placement may be on any Land Tile, except one that contains a People Token
        of their own color"."""
        return [t.cell for t in state.tiles.values() if t.where == ISLAND and state.on_land(t.cell)
                and not self.has_own_colour(state, player, t.cell)]

    def crowded_spots(self, state: State, player: str) -> list[int]:
        """Challenge #5: "once the island is full players may start placing a second People Token
        on an already-occupied Land Tile", not where there are already two, nor where there is
        already one of their own colour."""
        empty = self.empty_tiles(state)
        if empty:
            return empty
        most = self.comp["players56"]["overpopulated"]["per_tile"]
        return [c for c in self.occupied_tiles_without_own_colour(state, player) if len(state.on_land(c)) < most]

    def placement_spots(self, state: State) -> list[int]:
        if not self.five_or_six(state):
            return super().placement_spots(state)
        player = state.turn.player
        if self.challenge5(state):
            return self.crowded_spots(state, player)
        if self.final_placement_on_occupied(state, player):
            return self.occupied_tiles_without_own_colour(state, player)
        return self.empty_tiles(state)

    def why_not_placeable(self, state: State, cell: int) -> str:
        if not self.five_or_six(state) or cell not in state.tile_at:
            return super().why_not_placeable(state, cell)
        player, here = state.turn.player, self.label(cell)
        if self.challenge5(state) and self.empty_tiles(state):
            return f"{here} is occupied: second explorers only once the island is full (challenge #5)"
        if self.challenge5(state):
            if len(state.on_land(cell)) >= self.comp["players56"]["overpopulated"]["per_tile"]:
                return f"{here} already holds two explorers"
            return f"{here} already holds an explorer of your colour"
        if self.final_placement_on_occupied(state, player):
            if not state.on_land(cell):
                return f"your final explorer goes onto an occupied tile; {here} is empty"
            return f"{here} already holds an explorer of your colour"
        return f"{here} is not an empty terrain tile"

    # --- challenge #5: ships -----------------------------------------------------------------------
    def supply(self, state: State, kind: str) -> list[str]:
        """Challenge #5: "(in a 6 player game, the *supply* will be from boats that have been
        destroyed, for example)": destroyed ships go back to the supply."""
        left = super().supply(state, kind)  # type: ignore[misc]
        if kind == "boat" and self.challenge5(state):
            left = left + [b.handle for b in state.boats.values() if b.where == LOST]
        return left

    def unoccupied_ships(self, state: State) -> list[str]:
        return [b.handle for b in state.boats.values() if b.where == SEA and not b.passengers]

    def effect_boat(self, state: State, tile: Tile, player: str, events: list, boarders) -> None:
        """Challenge #5: "In the event that a *Play Immediately* tile calls for the placement of a
        Boat Token, but none are available from the supply ..., the player drawing the tile must
        select an unoccupied boat from anywhere on the board and place it into the designated
        space. Any People Tokens on the space are placed into the boat as per normal rules."."""
        ships = self.unoccupied_ships(state)
        if not self.challenge5(state) or self.supply(state, "boat") or not ships:
            super().effect_boat(state, tile, player, events, boarders)  # type: ignore[misc]
        elif len(ships) == 1:
            self.take_ship_from_board(state, ships[0], tile, player, events, boarders)
        else:
            state.ship_choice = ShipChoice(tile.handle, tile.cell)
            events.append(event({"event": "choose-ship", "player": player, "at": self.label(tile.cell),
                                 "ships": ships}))

    def take_ship_from_board(self, state: State, boat: str, tile: Tile, player: str, events: list,
                             boarders) -> None:
        events.append(event({"event": "ship-taken", "player": player, "boat": boat,
                             "from": self.label(state.boats[boat].cell), "to": self.label(tile.cell)}))
        self.launch_ship(state, boat, tile, player, events, boarders)  # type: ignore[attr-defined]

    def start_ship_step(self, state: State, rng: Rng | None, events: list, die: str | None) -> bool:
        return state.ship_choice is not None

    def legal_choose_ship(self, state: State, player: str) -> list[dict[str, Any]]:
        at = self.label(self.open_ship_choice(state).cell)
        return [{"boat": b, "at": at} for b in self.unoccupied_ships(state)]

    def open_ship_choice(self, state: State) -> ShipChoice:
        if state.ship_choice is None:
            raise RuntimeError("no ship choice is open")
        return state.ship_choice

    def do_boat(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        if self.current_step(state) != STEP_SHIP:
            return super().do_boat(state, player, action, rng)  # type: ignore[misc]
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
        die = self.roll_die(state, rng) if rolls else None  # type: ignore[attr-defined]
        events: list = []
        state.ship_choice = None
        self.take_ship_from_board(state, boat, state.tiles[choice.tile], player, events, None)
        if state.boarding is not None:
            state.turn.step = STEP_BOARDERS
        else:
            self.advance(state, rng, events, STEP_SHIP, die)  # type: ignore[attr-defined]
        return events

    def die_follows_ship_choice(self, state: State, boat: str, choice: ShipChoice) -> bool:
        boarding = len(state.swimmers(choice.cell)) > self.capacity(state, boat)  # type: ignore[attr-defined]
        return not boarding and not self.sunk_round_follows(state)

    # --- challenge #5: the sunk-tile mini-round -------------------------------------------------------
    @property
    def turn_steps(self) -> tuple[str, ...]:
        """After step 3: the ship choice and the mini-round ("before the current player rolls the
        Creature Die"); both are skipped unless challenge #5 calls for them."""
        steps: tuple[str, ...] = super().turn_steps  # type: ignore[misc]
        i = steps.index(STEP_REMOVE) + 1
        return steps[:i] + (STEP_SHIP, STEP_SUNK) + steps[i:]

    @property
    def step_starters(self) -> dict[str, str]:
        return {**super().step_starters, STEP_SHIP: "start_ship_step",  # type: ignore[misc]
                STEP_SUNK: "start_sunk_step"}

    def resolve_back(self, state: State, tile: Tile, player: str, events: list, boarders: list[str] | None) -> None:
        """Remember who stood on the tile; "Any «Play Immediately» tiles that are revealed must be
        carried out first however"."""
        if self.challenge5(state):
            stood = sort_handles(state.swimmers(tile.cell))   # they have just fallen in
            state.sunk = SunkRound(tile.handle, stood, []) if stood else None
        super().resolve_back(state, tile, player, events, boarders)

    def turn_order_from_current(self, state: State) -> list[str]:
        return [state.turn.player] + state.players_from(state.turn.player)

    def sunk_explorers(self, state: State, player: str) -> list[str]:
        """``player``'s explorers that stood on the just-sunk tile and are still in play."""
        sunk = state.sunk
        if sunk is None:
            return []
        return [h for h in sunk.explorers
                if state.explorers[h].owner == player and state.explorers[h].where in (SEA, BOAT)]

    def start_sunk_step(self, state: State, rng: Rng | None, events: list, die: str | None) -> bool:
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

    def decider(self, state: State) -> str | None:
        if state.phase == PLAY and state.turn.step == STEP_SUNK and state.sunk is not None and state.sunk.queue:
            return state.sunk.queue[0]
        return super().decider(state)

    def legal_sunk_move(self, state: State, player: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"done": "move"}]
        for h in self.sunk_explorers(state, player):
            out.extend(self.explorer_moves(state, h))  # type: ignore[attr-defined]
        return out

    def do_move(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        if self.current_step(state) != STEP_SUNK:
            return super().do_move(state, player, action, rng)  # type: ignore[misc]
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
        self.explorer_step_kind(state, state.explorers[handle], cell, swim)  # type: ignore[attr-defined]
        # the last point of the round rolls the die first (NeedsSecret before anything changes)
        die = self.roll_die(state, rng) if self.last_in_sunk_round(state) else None  # type: ignore[attr-defined]
        events: list = []
        self.move_explorer(state, player, handle, cell, swim, events)  # type: ignore[attr-defined]
        self.next_in_sunk_round(state, rng, events, die)
        return events

    def do_done(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        if self.current_step(state) != STEP_SUNK:
            return super().do_done(state, player, action, rng)  # type: ignore[misc]
        if action["done"] != "move":
            raise IllegalAction("write {done: move} to leave your sunk-tile point unused")
        self.expect(state, player, STEP_SUNK)
        die = self.roll_die(state, rng) if self.last_in_sunk_round(state) else None  # type: ignore[attr-defined]
        # "The Movement Point does not have to be used, but it may not be saved."
        events = [event({"event": "sunk-pass", "player": player})]
        self.next_in_sunk_round(state, rng, events, die)
        return events

    def sunk_round_follows(self, state: State) -> bool:
        """Will a mini-round open (explorers from the sunk tile are still in play)?"""
        return state.sunk is not None and any(self.sunk_explorers(state, p) for p in state.players)

    def last_in_sunk_round(self, state: State) -> bool:
        """Does the deciding player's point close the mini-round?  (A point moves only its own
        explorer, so the others' eligibility can be told beforehand.)"""
        sunk = state.sunk
        return sunk is None or not any(self.sunk_explorers(state, p) for p in sunk.queue[1:])

    def next_in_sunk_round(self, state: State, rng: Rng | None, events: list, die: str | None) -> None:
        sunk = state.sunk
        if sunk is None:
            return
        sunk.queue.pop(0)
        while sunk.queue and not self.sunk_explorers(state, sunk.queue[0]):
            sunk.queue.pop(0)
        if not sunk.queue:
            state.sunk = None
            self.advance(state, rng, events, STEP_SUNK, die)  # type: ignore[attr-defined]

    # --- winning: the tie-breaks -------------------------------------------------------------------
    def ties_broken(self, state: State) -> bool:
        """"In a 5 or 6 player game ... Any ties are broken ..." (``ties=auto``)."""
        ties = self.option(state, "ties")
        return ties == "broken" or (ties == "auto" and self.five_or_six(state))

    def turns_taken(self, state: State, player: str) -> int:
        """Turns ``player`` has begun (the current one included): "Anyone to the LEFT of the player
        who revealed the volcano tile and to the RIGHT of the Starting Player had less turns"."""
        seat, n = state.players.index(player), len(state.players)
        last = state.turn.number
        return 0 if last <= seat else (last - 1 - seat) // n + 1

    def printed_points(self, state: State, player: str) -> int:
        total = 0
        for h in self.saved(state, player):  # type: ignore[attr-defined]
            value = state.explorers[h].value
            if value is None:
                raise NeedsSecret(f"the value of {h} is hidden")
            total += value
        return total

    def tie_breaks(self, state: State) -> list[tuple[str, dict[str, int], bool]]:
        """(name, number per player, True if more is better), in the rulebook's order."""
        players = state.players
        out = [("rescued", {p: len(self.saved(state, p)) for p in players}, True)]  # type: ignore[attr-defined]
        if self.all_equal(state):
            # "If still tied and using the *All Equal!* Challenge Rule ... the most total point value"
            out.append(("points", {p: self.printed_points(state, p) for p in players}, True))
        # "If still tied, the winner is the player who had the least number of turns"
        out.append(("turns", {p: self.turns_taken(state, p) for p in players}, False))
        return out

    def winners(self, state: State, scores: dict[str, int]) -> list[str]:
        """"If still tied, then the tied players rejoice in their shared victory!"."""
        tied = super().winners(state, scores)  # type: ignore[misc]
        if len(tied) < 2 or not self.ties_broken(state):
            return tied
        for _name, numbers, more_is_better in self.tie_breaks(state):
            best = (max if more_is_better else min)(numbers[p] for p in tied)
            tied = [p for p in tied if numbers[p] == best]
        return tied

    def tie_break_detail(self, state: State) -> dict[str, dict[str, int]] | None:
        """The tie-break numbers of the players tied on score (None when no tie was broken)."""
        if not self.ties_broken(state):
            return None
        scores = self.scores(state)  # type: ignore[attr-defined]
        top = max(scores.values())
        tied = [p for p in state.players if scores[p] == top]
        if len(tied) < 2:
            return None
        return {name: {p: numbers[p] for p in tied} for name, numbers, _ in self.tie_breaks(state)}

    def end_game(self, state: State, events: list, reason: str) -> None:
        state.sunk = None
        state.ship_choice = None
        super().end_game(state, events, reason)  # type: ignore[misc]
        detail = self.tie_break_detail(state)
        if detail is not None and events and events[-1].public.get("event") == "game-over":
            events[-1].public["tiebreak"] = detail

    def result(self, state: State) -> Result | None:
        res = super().result(state)  # type: ignore[misc]
        if res is not None:
            detail = self.tie_break_detail(state)
            if detail is not None:
                res.detail["tiebreak"] = detail
        return res

    # --- positions, prompts, templates, log lines ------------------------------------------------------
    def extra_view(self, state: State) -> dict[str, Any]:
        out = super().extra_view(state)  # type: ignore[misc]
        if state.sunk is not None:
            out["sunk"] = {"tile": state.sunk.tile, "explorers": list(state.sunk.explorers),
                           "queue": list(state.sunk.queue)}
        if state.ship_choice is not None:
            out["ship_choice"] = {"tile": state.ship_choice.tile, "at": self.label(state.ship_choice.cell)}
        return out

    def read_extra(self, state: State, pos: Mapping[str, Any]) -> None:
        super().read_extra(state, pos)  # type: ignore[misc]
        sunk, choice = pos.get("sunk"), pos.get("ship_choice")
        if sunk is not None:
            state.sunk = SunkRound(sunk["tile"], sort_handles(sunk["explorers"]), list(sunk["queue"]))
        if choice is not None:
            state.ship_choice = ShipChoice(choice["tile"], self.board.index[choice["at"]])

    def variant_prompt(self, state: State, kind: str) -> str:
        if kind == STEP_SUNK and state.sunk is not None:
            mine = self.sunk_explorers(state, self.decider(state) or "")
            return (f"tile {state.sunk.tile} sank under {', '.join(mine)}: one movement point for one of them "
                    "({move: HANDLE, to: SPACE}) or {done: move}")
        if kind == STEP_SHIP and state.ship_choice is not None:
            at = self.label(state.ship_choice.cell)
            return f"no ship left in the supply: choose an unoccupied ship to move to {at}: {{boat: B3, at: {at}}}"
        if kind == SETUP_PLACE and self.five_or_six(state):
            player = state.turn.player
            mine = self.reserve_explorers(state, player)  # type: ignore[attr-defined]
            example = f"{{place: {mine[0] if mine else 'o7'}, on: G5}}"
            if self.challenge5(state) and not self.empty_tiles(state):
                return ("the island is full: place an explorer on a tile with one explorer, "
                        f"none of your colour (challenge #5): {example}")
            if not self.challenge5(state) and self.final_placement_on_occupied(state, player):
                return f"your final explorer goes onto an occupied tile with no explorer of your colour: {example}"
            return f"place an explorer on an empty terrain tile: {example}"
        return super().variant_prompt(state, kind)

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_position(view)  # type: ignore[attr-defined]
        step = self.current_step(state)
        if step not in (STEP_SUNK, STEP_SHIP) or self.decider(state) != player:
            return super().template(view, player)  # type: ignore[misc]
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
        line = super().describe(ev)
        if kind == "game-over" and ev.get("tiebreak"):
            parts = "; ".join(f"{name} {numbers}" for name, numbers in ev["tiebreak"].items())
            line += f" (tie broken by: {parts})"
        return line
