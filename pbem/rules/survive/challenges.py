"""The Survive challenges every Survive game shares, and the 5-6 player kit, written once.

Survive: Escape from Atlantis! and Survive: Space Attack! print the same challenges in their
own words: #1 "Overpopulated!" (two people on each inner tile at set-up, one on the edge), #2
"To the last!" (the end tile acts as the tile that clears an area, and the game ends when the
last person leaves the board), and the same 5-6 player kit (two more colours, tokens put back
in the box, ships per seat, the fifth and sixth players' final person on an occupied tile).
Each is a layer over the Survive core: a game puts it in front of its rules (with
``SurviveGame.rules_with``) when its option or player count asks for it, and the layer names
pieces and places in the game's words (:attr:`~pbem.rules.survive.base.SurviveBase.vocabulary`).
The data are each game's ``components.yaml``: ``overpopulated`` (``inland``, ``edge``) and
``players56`` (``colours``, ``by_players``: ``remove_values``, ``ships``, ``final_on_occupied``).
"""
from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

from pbem.game import Rng
from pbem.rules.survive.base import Events, StateT, event
from pbem.rules.survive.rules import SurviveRules
from pbem.rules.survive.state import ISLAND, PLAY, SETUP_PLACE, Tile


class Overpopulated(SurviveRules[StateT]):
    """Challenge #1: "up to two Explorer tokens on Terrain tiles, except for those adjacent to sea
    spaces, on the island's coast, where only one Explorer token can be placed".  An edge tile
    touches a sea space as the tile removal reads it (:meth:`not_sea_for_removal`)."""

    #: the turn model's ``setup_limits`` with ``setup_fallback``
    turn_model_covers = frozenset({"placement_spots"})

    def turn_model_params(self, state: StateT) -> dict[str, Any]:
        return {**super().turn_model_params(state), "setup_fallback": True,
                "setup_limits": {self.label(cell): self.people_allowed_at_setup(state, cell) for cell in state.tile_at}}

    def on_the_edge(self, state: StateT, cell: int) -> bool:
        return not self.board.neighbour_sets[cell] <= self.not_sea_for_removal(state)

    def people_allowed_at_setup(self, state: StateT, cell: int) -> int:
        limits = self.comp["overpopulated"]
        return int(limits["edge"] if self.on_the_edge(state, cell) else limits["inland"])

    def crowded_setup_spots(self, state: StateT) -> list[int]:
        """The tiles with room for one more person under the challenge's limits
        (:meth:`people_allowed_at_setup` of each, the spaces that are not sea read once)."""
        limits = self.comp["overpopulated"]
        edge, inland = int(limits["edge"]), int(limits["inland"])
        not_sea, neighbours = self.not_sea_for_removal(state), self.board.neighbour_sets
        return [t.cell for t in state.tiles.values()
                if t.where == ISLAND and len(state.on_land(t.cell)) < (inland if neighbours[t.cell] <= not_sea else edge)]

    def placement_spots(self, state: StateT) -> list[int]:
        # more people than room (six players on a board with few inner tiles): the kit's rule decides
        return self.crowded_setup_spots(state) or super().placement_spots(state)

    def placeable(self, state: StateT, cell: int) -> bool:
        return cell in self.placement_spots(state)      # (this layer's listing, not a game's one-space rule)

    def why_not_placeable(self, state: StateT, cell: int) -> str:
        if cell not in state.tile_at:
            return super().why_not_placeable(state, cell)
        limit = self.people_allowed_at_setup(state, cell)
        where = self.word("an edge tile" if self.on_the_edge(state, cell) else "an inner tile")
        return f"{self.label(cell)} is {where} tile and holds {limit} {self.word('explorers' if limit > 1 else 'explorer')} already"

    def variant_prompt(self, state: StateT, kind: str) -> str:
        if kind == SETUP_PLACE and self.crowded_setup_spots(state):
            return (f"place {self.word('an explorer')} on a {self.word('terrain tile')}: an empty one, or "
                    f"{self.word('an inner tile')} one with one {self.word('explorer')} (challenge #1): "
                    "{place: r7, on: G5}")
        return super().variant_prompt(state, kind)


class EndTileClearsArea(SurviveRules[StateT]):
    """#2 (and Atlantis's #4): "When the Volcanic Eruption tile is revealed, treat it as a
    Whirlpool tile" (Space Attack: the Core Breach as a black hole)."""

    def back_ends_game(self, state: StateT, back: str) -> bool:
        return False if self.back_rule(back) == "end-game" else super().back_ends_game(state, back)

    def effect_end_game(self, state: StateT, tile: Tile, player: str, events: Events,
                        boarders: list[str] | None) -> None:
        # "... treat it as a Whirlpool tile and continue the game if Explorer tokens [#2] /
        # any Terrain tiles [#4] remain on the board."
        events.append(event({"event": self.word("end event"), "player": player, "tile": tile.handle,
                             "at": self.label(tile.cell), "acts_as": self.word("clear area")}))
        self.effect_clear_area(state, tile, player, events, boarders)

    def describe(self, ev: Mapping[str, Any]) -> str:
        if ev.get("event") == self.word("end event"):
            return (f"{ev.get('tile')} at {ev.get('at')} is the {self.word('end tile')}: "
                    f"it acts as a {self.word('clear area')}")
        return super().describe(ev)


class ToTheLast(EndTileClearsArea[StateT]):
    """#2: "The game ends when the last Explorer token is removed from the game board (by being
    saved or removed by a creature or whirlpool)"."""

    #: the turn model ends the game when the board is empty (``end_when_board_empty``)
    turn_model_covers = frozenset({"after_action", "advance"})

    def turn_model_params(self, state: StateT) -> dict[str, Any]:
        return {**super().turn_model_params(state), "end_when_board_empty": True}

    def end_when_the_last_explorer_leaves(self, state: StateT, events: Events) -> None:
        if state.phase == PLAY and not self.explorers_on_board(state):
            self.end_game(state, events, f"the last {self.word('explorer')} has left the board")

    @staticmethod
    def explorers_on_board(state: StateT) -> bool:
        """Whether any explorer is on land, at sea or aboard a ship, read from the state's indexes
        (checked after every action and step: tests/golden/test_bot_fast_forms.py compares it with
        each explorer's ``where`` at every step)."""
        return bool(state.land_at) or bool(state.sea_at) or any(b.passengers for b in state.boats.values())

    def after_action(self, state: StateT, events: Events) -> None:
        super().after_action(state, events)
        self.end_when_the_last_explorer_leaves(state, events)

    def advance(self, state: StateT, rng: Rng | None, events: Events, after: str | None,
                die: str | None = None) -> None:
        # checked before the next step starts, so no die is rolled after the last person left
        self.end_when_the_last_explorer_leaves(state, events)
        super().advance(state, rng, events, after, die)


class Players56(SurviveRules[StateT]):
    """The 5-6 player kit's set-up (components ``players56``): two more colours, tokens put back
    in the box, ships per seat, and with six players the fifth and sixth players' final person
    on a tile that already holds people (none of their own colour)."""

    #: the kit's set-up (tokens put back, ships per seat); Atlantis's challenge #5 plays with all
    #: tokens and two ships each instead
    kit_setup: ClassVar[bool] = True

    def kit(self, n_players: int) -> Mapping[str, Any]:
        setup = self.players56_setup(n_players)
        if setup is None:
            raise ValueError(f"the 5-6 player kit is not for {n_players} players")
        return setup

    # --- set-up: colours, tokens, ships --------------------------------------------------------
    def colour_prefixes(self, n_players: int) -> dict[str, str]:
        """"20 Plastic People Tokens (10 Orange and 10 White)"."""
        return {**super().colour_prefixes(n_players), **self.comp["players56"]["colours"]}

    def explorer_values(self, n_players: int, options: Mapping[str, str]) -> list[int]:
        """"Each player receives his 10 People Tokens, but removes one "1" point People Token and
        one "3" point token" (5 players) / "one "1", "2", and "3"" (6 players)."""
        values = super().explorer_values(n_players, options)
        if self.kit_setup:
            for v in self.kit(n_players)["remove_values"]:
                values.remove(v)
        return values

    def starting_ships(self, players: Sequence[str], colours: Mapping[str, Sequence[str]],
                       options: Mapping[str, str]) -> dict[str, int]:
        """5 players: 1, 1, 2, 2, 2 ships; 6 players: 1, 1, 1, 1, 2, 2."""
        if not self.kit_setup:
            return super().starting_ships(players, colours, options)
        return dict(zip(players, self.kit(len(players))["ships"], strict=True))

    # --- set-up: placing people ----------------------------------------------------------------
    #: the turn model's ``final_on_occupied``
    turn_model_covers = frozenset({"placement_spots"})

    def turn_model_params(self, state: StateT) -> dict[str, Any]:
        return {**super().turn_model_params(state),
                "final_on_occupied": list(self.kit(len(state.players))["final_on_occupied"])}

    def has_own_colour(self, state: StateT, player: str, cell: int) -> bool:
        return any(state.explorers[h].colour in state.colours[player] for h in state.on_land(cell))

    def final_placement_on_occupied(self, state: StateT, player: str) -> bool:
        """6 players: "the final People Tokens placed by the fifth and sixth player must be placed
        on a Land Tile that already has a People Token on it"."""
        seat = state.players.index(player) + 1
        return (seat in self.kit(len(state.players))["final_on_occupied"]
                and len(self.reserve_explorers(state, player)) == 1)

    def occupied_tiles_without_own_colour(self, state: StateT, player: str) -> list[int]:
        """"This final placement may be on any Land Tile, except one that contains a People Token
        of their own color"."""
        return [t.cell for t in state.tiles.values() if t.where == ISLAND and state.on_land(t.cell)
                and not self.has_own_colour(state, player, t.cell)]

    def placement_spots(self, state: StateT) -> list[int]:
        if self.final_placement_on_occupied(state, state.turn.player):
            return self.occupied_tiles_without_own_colour(state, state.turn.player)
        return super().placement_spots(state)

    def placeable(self, state: StateT, cell: int) -> bool:
        return cell in self.placement_spots(state)      # (this layer's listing, not a game's one-space rule)

    def why_not_placeable(self, state: StateT, cell: int) -> str:
        if cell in state.tile_at and self.final_placement_on_occupied(state, state.turn.player):
            here = self.label(cell)
            if not state.on_land(cell):
                return f"your final {self.word('explorer')} goes onto an occupied tile; {here} is empty"
            return f"{here} already holds {self.word('an explorer')} of your colour"
        return super().why_not_placeable(state, cell)

    def placement_example(self, state: StateT) -> str:
        mine = self.reserve_explorers(state, state.turn.player)
        return f"{{place: {mine[0] if mine else 'o7'}, on: G5}}"

    def variant_prompt(self, state: StateT, kind: str) -> str:
        if kind == SETUP_PLACE:
            example, explorer = self.placement_example(state), self.word("explorer")
            if self.final_placement_on_occupied(state, state.turn.player):
                return f"your final {explorer} goes onto an occupied tile with no {explorer} of your colour: {example}"
            return f"place {self.word('an explorer')} on an empty {self.word('terrain tile')}: {example}"
        return super().variant_prompt(state, kind)
