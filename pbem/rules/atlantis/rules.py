"""Survive: Escape from Atlantis! (30th anniversary): the game's layer on the Survive core.

What is Atlantis's own and not the core's: its options (``memory``, ``colours``,
``defense``, ``lagoon``, ``boats``, ``layout``, ``ties``) read through the core's hooks,
the red tiles played from the hand in step 1 (the dolphin carries a swimmer, the wind
sails a ship), the tie-breaks of the 5-6 player rules, its words (prompts, move
templates, summaries, the board legend) and the greedy bot's hints.  The mini-expansions
are layers on this class (``players56``, ``challenges``, ``dive``, ``squid``), added by
:class:`~pbem.rules.atlantis.game.AtlantisGame` only when their option is on.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from pbem.game import IllegalAction, NeedsSecret, Rng
from pbem.rules.atlantis.state import (
    ISLE,
    OVER,
    SEA,
    SETUP_BOAT,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_DEFENSE,
    STEP_MOVE,
    STEP_REMOVE,
    STEP_TILE,
    AtlantisState,
    at,
    sort_handles,
)
from pbem.rules.survive.actions import handle_arg
from pbem.rules.survive.base import Events, HandTile, Spaces, event, moving_tile
from pbem.rules.survive.rules import SurviveRules
from pbem.rules.survive.view import SETUP_PHASES


class AtlantisRules(SurviveRules[AtlantisState]):
    state_class = AtlantisState
    anytime_actions = ("standing",)
    layer_action_steps = {"dive": "dive", "protect": "protect", "squid": "squid-place", "take": "squid-take"}

    # --- the options, through the core's hooks --------------------------------------
    def colours_per_player(self, n_players: int, options: Mapping[str, str]) -> int:
        """One colour each by default ("Each player chooses a color"); ``colours=auto``: two
        colours each in a two-player game ("you can decide to use two colors for each player"),
        one otherwise; ``colours=2``: two."""
        choice = options.get("colours", "1")
        if choice == "auto":
            return 2 if n_players == 2 else 1
        return int(choice)

    def starting_ships(self, players: Sequence[str], colours: Mapping[str, Sequence[str]],
                       options: Mapping[str, str]) -> dict[str, int]:
        """"Each player gets 2 Ship tokens"; with ``boats=per-colour`` 2 per colour."""
        n = int(self.comp["boats"]["per_player"])
        return {p: n * len(colours[p]) if options.get("boats") == "per-colour" else n for p in players}

    def standing_default(self, options: Mapping[str, str]) -> str:
        return options.get("defense", "auto")

    def central_counts_as_sea(self, state: AtlantisState) -> bool:
        """Option ``lagoon=land``: the central sea hex does not count as a sea space."""
        return self.option(state, "lagoon") == "sea"

    def owner_always_sees_values(self, state: AtlantisState) -> bool:
        return self.option(state, "memory") == "open"

    def layout_acceptable(self, layout: Sequence[str], options: Mapping[str, str]) -> bool:
        """``layout=fixup``: reshuffle until no beach or forest is isolated."""
        return options.get("layout", "random") != "fixup" or not self.isolated_slots(layout, options)

    def isolated_slots(self, layout: Sequence[str], options: Mapping[str, str]) -> list[int]:
        """Slots (indices into the slot list) of a beach with no beach or sea next to it,
        or a forest with only mountains around it (the French-Wikipedia fix-up)."""
        slots = self.board.island_slots
        terrain_at = dict(zip(slots, layout, strict=True))
        bad = []
        for i, cell in enumerate(slots):
            near = self.board.neighbours[cell]
            if any(n not in terrain_at and (n != self.board.central or options.get("lagoon", "sea") == "sea")
                   for n in near):
                continue          # touches a sea space
            kinds = {terrain_at[n] for n in near if n in terrain_at}
            rank = self.terrains.index(layout[i])
            if layout[i] != self.terrains[-1] and not any(self.terrains.index(k) <= rank for k in kinds):
                bad.append(i)
        return bad

    # --- 5-6 players and the tie-breaks (data: components.yaml players56) -------------------
    def five_or_six(self, state: AtlantisState) -> bool:
        return self.players56_setup(len(state.players)) is not None

    def tie_break_chain(self, state: AtlantisState) -> list[str]:
        """``ties=auto``: "In a 5 or 6 player game ... Any ties are broken ..." by more explorers
        rescued, then (with All Equal!) more points, then fewer turns; ``broken`` in any game."""
        ties = self.option(state, "ties")
        if not (ties == "broken" or (ties == "auto" and self.five_or_six(state))):
            return []
        chain = list(self.comp["players56"]["tie_breaks"])
        if self.option(state, "scoring") != "all-equal":
            # "If still tied and using the *All Equal!* Challenge Rule ... the most total point value"
            chain.remove("points")
        return chain

    # --- step 2: a protected swimmer's dolphin stays behind without the expansion -----------
    #: do_move only refuses a ``dolphin:`` key (never in a legal action): the turn model plays the core's;
    #: the ``lagoon`` option is the model's ``central_counts_as_sea``
    #: its step-1 tiles (dolphin, wind) are the model's by their rules and ``tile_moves``
    turn_model_covers = frozenset({"do_move", "central_counts_as_sea", "hand_tile_table", "dolphin_moves", "dolphin_walk",
                                   "wind_moves", "wind_walk"})

    def do_move(self, state: AtlantisState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        if action.get("dolphin", False) is not False:
            raise IllegalAction("there are no dolphins in this game (option dolphins=no): drop 'dolphin'")
        return super().do_move(state, player, action, rng)

    # --- step 1: the red tiles played from the hand --------------------------------------
    def hand_tile_table(self) -> dict[str, HandTile[AtlantisState]]:
        return {**super().hand_tile_table(), "dolphin": moving_tile(self.dolphin_moves, "swimmer", self.play_dolphin),
                "wind": moving_tile(self.wind_moves, "boat", self.play_wind)}

    # dolphin: "Move one of your Swimmers 1 to 3 sea spaces."
    def dolphin_walk(self, state: AtlantisState) -> tuple[Spaces, Spaces]:
        """What blocks a swimmer's walk (the land) and where it ends (a deadly creature's space)."""
        return state.tile_at, self.deadly_spaces(state)

    def dolphin_moves(self, state: AtlantisState, player: str, back: str) -> list[tuple[str, list[str]]]:
        """Each of ``player``'s swimmers with the spaces the dolphin may carry it to."""
        blocked, ends = self.dolphin_walk(state)
        steps, labels = self.comp["tile_moves"]["dolphin"], self.board.labels
        out = []
        for e in state.explorers_of(player):
            if e.where == SEA:
                start = at(e.cell)
                out.append((e.handle, [labels[dest] for dest in sorted(self.sea_walk(start, steps, blocked, ends))
                                       if dest != start]))
        return out

    def play_dolphin(self, state: AtlantisState, player: str, back: str, action: Mapping[str, Any], events: Events) -> None:
        self.only_keys(action, "swimmer")
        handle = handle_arg(action.get("swimmer"), "swimmer")
        e = state.explorers.get(handle)
        if e is None or e.owner != player or e.where != SEA:
            raise IllegalAction(f"the dolphin helps one of your swimmers; {handle} is not one")
        blocked, ends = self.dolphin_walk(state)
        path = self.walk_arg(action, at(e.cell), self.comp["tile_moves"]["dolphin"], blocked, ends,
                             f"swimmer {handle}", allow_return=False)
        frm = e.cell
        state.put_explorer(handle, SEA, path[-1])
        events.append(event({"event": "move", "player": player, "explorer": handle, "how": "dolphin",
                             "from": self.label(frm), "to": self.label(path[-1])}))
        if self.deadly_for_swimmers(state, path[-1]):
            self.lose_explorers(state, [handle], path[-1], events, cause="swam into a sea creature")

    # wind: "Move a Ship you control 1 to 3 sea spaces."
    def wind_walk(self, state: AtlantisState, boat: str) -> tuple[Spaces, Spaces]:
        """What blocks a ship's walk and where it ends (:meth:`ship_may_enter`, :meth:`ship_stops`)."""
        return self.closed_to_ship(state, boat), self.ship_stop_cells(state, boat)

    def wind_moves(self, state: AtlantisState, player: str, back: str) -> list[tuple[str, list[str]]]:
        """Each ship ``player`` may move with the spaces the wind may sail it to."""
        steps, labels = self.comp["tile_moves"]["wind"], self.board.labels
        out = []
        for boat in self.movable_boats(state, player):
            blocked, ends = self.wind_walk(state, boat)
            start = at(state.boats[boat].cell)
            out.append((boat, [labels[dest] for dest in sorted(self.sea_walk(start, steps, blocked, ends))
                               if dest != start]))
        return out

    def play_wind(self, state: AtlantisState, player: str, back: str, action: Mapping[str, Any], events: Events) -> None:
        self.only_keys(action, "boat")
        boat = handle_arg(action.get("boat"), "boat")
        b = state.boats.get(boat)
        if b is None or b.where != SEA or player not in self.controllers(state, boat):
            raise IllegalAction(f"the wind moves a ship you control; {boat} is not one")
        blocked, ends = self.wind_walk(state, boat)
        start = at(b.cell)
        path = self.walk_arg(action, start, self.comp["tile_moves"]["wind"], blocked, ends,
                             f"ship {boat}", allow_return=False)
        events.append(event({"event": "sail", "player": player, "boat": boat, "how": "wind",
                             "from": self.label(start), "to": self.label(path[-1])}))
        self.sail(state, boat, path[-1], events)

    # --- words -------------------------------------------------------------------------
    def own_example(self, state: AtlantisState, *wheres: str) -> str:
        """One of the deciding player's own explorers (where ``wheres`` says), for a prompt's example."""
        player = self.decider(state)
        mine = [h for h, e in state.explorers.items() if e.owner == player and (not wheres or e.where in wheres)]
        return mine[0] if mine else next((h for h, e in state.explorers.items() if e.owner == player), "r1")

    def game_prompt(self, state: AtlantisState, kind: str) -> str:
        if kind == SETUP_PLACE:
            return f"place an explorer on an empty terrain tile: {{place: {self.own_example(state, 'reserve')}, on: G5}}"
        if kind == SETUP_BOAT:
            return "place a ship on a free sea space next to the island: {boat: B1, at: F2}"
        if kind == STEP_TILE:
            return "step 1: play a tile from your hand ({play: T12, ...}) or {play: none}"
        if kind == STEP_MOVE:
            left = self.movement_points(state) - state.turn.moves
            boats = self.movable_boats(state, state.turn.player)
            ship = f", {{move: {boats[0]}, to: F4}}" if boats else ""
            explorer = self.own_example(state, "land", "sea", "boat")
            return f"step 2: {left} movement point(s) left: {{move: {explorer}, to: G5}}{ship} or {{done: move}}"
        if kind == STEP_REMOVE:
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            return f"step 3: remove a terrain tile, one of {', '.join(spots)}: {{remove: {spots[0]}}}"
        if kind == STEP_BOARDERS:
            b = state.open_boarding()
            there = [h for h, e in state.explorers.items() if e.where == "sea" and e.cell == b.cell]
            n = self.capacity(state, b.boat)
            return (f"choose {n} swimmers at {self.label(b.cell)} to board ship {b.boat}: "
                    f"{{board: [{', '.join(there[:n])}]}}")
        if kind == STEP_CREATURE:
            return f"step 4: the die shows {state.turn.die}: {{creature: HANDLE, to: SPACE}} or {{creature: none}}"
        if kind == STEP_DEFENSE:
            r = state.open_reaction()
            return (f"{r.creature} attacks at {self.label(r.cell)}: play a defense tile {{defend: TILE}} "
                    "or {defend: none}")
        return ""

    def summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        state = self.read_view(view)
        lines = [self.variants_line(state)]
        if state.phase not in SETUP_PHASES and state.phase != OVER and not self.owner_always_sees_values(state):
            lines.append("memory=strict: your explorers' values are no longer shown (the rulebook: \"Once the game "
                         "has begun, you can no longer look at or reveal the value of your Explorer tokens\"); "
                         "they were in your set-up digests, and all are revealed at the end.")
        if state.phase == OVER:
            lines.append("Game over.")
        elif state.phase in SETUP_PHASES:
            unplaced = sum(1 for e in state.explorers.values() if e.where == "reserve")
            ships = sum(1 for b in state.boats.values() if b.where == "reserve")
            lines.append(f"Setup ({state.phase}): {self.decider(state)} to place; "
                         f"{unplaced} explorers and {ships} ships still to place.")
        else:
            step = state.turn.step
            extra = f", {state.turn.moves}/{self.comp['movement_points']} points used" if step == "move" else ""
            extra += f", die: {state.turn.die}" if step in ("creature", "defense") else ""
            lines.append(f"Turn {state.turn.number}: {state.turn.player} (step {step}{extra}); "
                         f"waiting for {self.decider(state)}.")
        lines.append(f"Tiles left: {self.tiles_left(state)}.")
        saved = []
        for p in state.players:
            for colour in state.colours[p]:
                n = sum(1 for e in state.explorers.values() if e.colour == colour and e.where == ISLE)
                lost = sum(1 for e in state.explorers.values() if e.colour == colour and e.where == "lost")
                saved.append(f"{colour} ({p}) {n} saved, {lost} lost")
        lines.append("Explorers: " + "; ".join(saved) + ".")
        hands = [f"{p} {len(self.hand(state, p))}" for p in state.players if self.hand(state, p)]
        if hands:
            lines.append("Tiles in hand: " + ", ".join(hands) + ".")
        return lines

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_view(view)
        who = self.decider(state)
        if state.phase == OVER:
            return "actions: []   # the game is over\n"
        if who != player:
            return (f"actions: []   # waiting for {who} ({self.current_step(state)})\n"
                    "# any time: - {standing: {shark_defense: ask, whale_defense: auto}}\n")
        step = self.current_step(state)
        lines = ["actions:"]

        def hint(items: list[str], n: int = 12) -> str:
            return ", ".join(items[:n]) + (", ..." if len(items) > n else "")

        def legal() -> list[dict[str, Any]]:
            try:
                return self.legal_actions(state, player)
            except NeedsSecret:
                return []

        if step == SETUP_PLACE:
            acts = legal()
            mine = sort_handles({a["place"] for a in acts})
            spots = sorted({a["on"] for a in acts}, key=lambda s: self.board.index[s])
            lines.append(f"  - {{place: {mine[0] if mine else 'r1'}, on: {spots[0] if spots else 'G5'}}}"
                         f"   # yours: {hint(mine)}; empty tiles: {hint(spots)}")
        elif step == SETUP_BOAT:
            acts = legal()
            ships = sort_handles({a["boat"] for a in acts})
            spots = sorted({a["at"] for a in acts}, key=lambda s: self.board.index[s])
            lines.append(f"  - {{boat: {ships[0] if ships else 'B1'}, at: {spots[0] if spots else 'F2'}}}"
                         f"   # free sea spaces next to the island: {hint(spots)}")
        elif step == "choose-boarders":
            swimmers = sort_handles(state.swimmers(state.open_boarding().cell))
            lines.append(f"  - {{board: [{', '.join(swimmers[:3])}]}}   # choose 3 of {', '.join(swimmers)}")
        elif step == "defense":
            r = state.open_reaction()
            lines.append(f"  - {{defend: none}}   # or {{defend: TILE}} to remove {r.creature} at {self.label(r.cell)}")
        else:
            steps = ["play-tile", "move", "remove-tile", "creature"]
            for s in steps[steps.index(step):]:
                lines.extend(self.template_step(state, player, s, s == step, legal))
        lines.append("# any time: - {standing: {shark_defense: ask, whale_defense: auto}}")
        return "\n".join(lines) + "\n"

    def template_step(self, state: AtlantisState, player: str, step: str, now: bool,
                      legal: Callable[[], list[dict[str, Any]]]) -> list[str]:
        if step == "play-tile":
            return ["  # step 1: play a tile from your hand, e.g. {play: T12, swimmer: r3, to: F4} (dolphin),",
                    "  #   {play: T12, boat: B3, to: F4} (wind), {play: T12, creature: S2, to: F4} (move a creature)",
                    "  - {play: none}"]
        if step == "move":
            left = self.comp["movement_points"] - state.turn.moves
            return [f"  # step 2: {left} movement point(s), one per action: {{move: r7, to: G5}} "
                    "(explorer) or {move: B3, to: F4} (ship)",
                    "  - {done: move}"]
        if step == "remove-tile":
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            return [f"  # step 3: removable now: {', '.join(spots)}",
                    f"  - {{remove: {spots[0] if spots else 'G5'}}}"]
        if now and state.turn.die:
            options = [f"{a['creature']}->{a['to']}" for a in legal() if a.get("creature") != "none"]
            return [f"  # step 4: the die shows {state.turn.die}; e.g. {', '.join(options[:8])}",
                    "  - {creature: none}"]
        return ["  # step 4: an order for each die face, e.g. shark: {creature: K1, to: F4}",
                "  - creature:", "      serpent: none", "      shark: none", "      whale: none"]
