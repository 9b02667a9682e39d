"""Base-game challenges #1-#4 ("Here are a few variants, or challenges"), as layers.

Each challenge is a subclass of :class:`~pbem.rules.atlantis.rules.AtlantisRules` that
:class:`~pbem.rules.atlantis.game.AtlantisGame` puts in front of the rules only when its
option asks for it, and that overrides only the rule steps that differ:

* ``overpopulated=yes`` with 2-4 players - :class:`Overpopulated`, challenge #1
  "Overpopulated!" (with 5-6 players the same option is challenge #5, see :mod:`players56`);
* ``end=to-the-last`` - :class:`ToTheLast`, challenge #2 "To the last!";
* ``end=submerged`` - :class:`Submerged`, challenge #4 "Atlantis submerged!";
* ``scoring=all-equal`` - :class:`AllEqual`, challenge #3 "All equal!".

#2 and #4 are values of one option because they contradict each other: #2
plays on after the island is gone, #4 ends the game with the last tile.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import Rng
from pbem.rules.atlantis.rules import AtlantisRules
from pbem.rules.atlantis.state import BOAT, ISLAND, LAND, PLAY, SEA, SETUP_PLACE, USED, AtlantisState, Explorer, Tile
from pbem.rules.survive.base import Events, event

END_VOLCANO, END_TO_THE_LAST, END_SUBMERGED = "volcano", "to-the-last", "submerged"
END_CHOICES = (END_VOLCANO, END_TO_THE_LAST, END_SUBMERGED)


class Overpopulated(AtlantisRules):
    """Challenge #1: "up to two Explorer tokens on Terrain tiles, except for those adjacent to
    sea spaces, on the island's coast, where only one Explorer token can be placed"."""

    def on_the_coast(self, state: AtlantisState, cell: int) -> bool:
        """"adjacent to sea spaces, on the island's coast" (a sea space as for removing tiles,
        so ``lagoon=land`` makes the tiles round the lagoon inland)."""
        return any(self.counts_as_sea_for_removal(state, n) for n in self.board.neighbours[cell])

    #: the turn model's ``setup_limits``
    turn_model_covers = frozenset({"placement_spots"})

    def turn_model_params(self, state: AtlantisState) -> dict[str, Any]:
        return {**super().turn_model_params(state),
                "setup_limits": {self.label(cell): self.explorers_allowed_at_setup(state, cell) for cell in state.tile_at}}

    def explorers_allowed_at_setup(self, state: AtlantisState, cell: int) -> int:
        limits = self.comp["overpopulated"]
        return int(limits["coast"] if self.on_the_coast(state, cell) else limits["inland"])

    def placement_spots(self, state: AtlantisState) -> list[int]:
        return [t.cell for t in state.tiles.values()
                if t.where == ISLAND and len(state.on_land(t.cell)) < self.explorers_allowed_at_setup(state, t.cell)]

    def why_not_placeable(self, state: AtlantisState, cell: int) -> str:
        if cell not in state.tile_at:
            return super().why_not_placeable(state, cell)
        limit = self.explorers_allowed_at_setup(state, cell)
        where = "a coastal" if self.on_the_coast(state, cell) else "an inland"
        return f"{self.label(cell)} is {where} tile and holds {limit} explorer{'s' if limit > 1 else ''} already"

    def variant_prompt(self, state: AtlantisState, kind: str) -> str:
        if kind == SETUP_PLACE:
            return ("place an explorer on a terrain tile: an empty one, or an inland one with one explorer "
                    "(challenge #1): {place: r7, on: G5}")
        return super().variant_prompt(state, kind)


class VolcanoAsWhirlpool(AtlantisRules):
    """#2 and #4: "When the Volcanic Eruption tile is revealed, treat it as a Whirlpool tile"."""

    def back_ends_game(self, state: AtlantisState, back: str) -> bool:
        return False if self.back_rule(back) == "end-game" else super().back_ends_game(state, back)

    def effect_end_game(self, state: AtlantisState, tile: Tile, player: str, events: Events,
                        boarders: list[str] | None) -> None:
        # "... treat it as a Whirlpool tile and continue the game if Explorer tokens [#2] /
        # any Terrain tiles [#4] remain on the board."
        events.append(event({"event": "eruption", "player": player, "tile": tile.handle,
                             "at": self.label(tile.cell), "acts_as": "whirlpool"}))
        self.effect_clear_area(state, tile, player, events, boarders)

    def describe(self, ev: Mapping[str, Any]) -> str:
        if ev.get("event") == "eruption":
            return f"{ev.get('tile')} at {ev.get('at')} is the volcano: it acts as a whirlpool"
        return super().describe(ev)


class ToTheLast(VolcanoAsWhirlpool):
    """#2: "The game ends when the last Explorer token is removed from the game board (by
    being saved or removed by a creature or whirlpool)"."""

    #: the turn model ends the game when the board is empty (``end_when_board_empty``)
    turn_model_covers = frozenset({"after_action", "advance"})

    def turn_model_params(self, state: AtlantisState) -> dict[str, Any]:
        return {**super().turn_model_params(state), "end_when_board_empty": True}

    def explorers_on_board(self, state: AtlantisState) -> list[str]:
        return [e.handle for e in state.explorers.values() if e.where in (LAND, BOAT, SEA)]

    def end_when_the_last_explorer_leaves(self, state: AtlantisState, events: Events) -> None:
        if state.phase == PLAY and not self.explorers_on_board(state):
            self.end_game(state, events, "the last explorer has left the board")

    def after_action(self, state: AtlantisState, events: Events) -> None:
        super().after_action(state, events)
        self.end_when_the_last_explorer_leaves(state, events)

    def advance(self, state: AtlantisState, rng: Rng | None, events: Events, after: str | None,
                die: str | None = None) -> None:
        # checked before the next step starts, so no die is rolled after the last explorer left
        self.end_when_the_last_explorer_leaves(state, events)
        super().advance(state, rng, events, after, die)


class Submerged(VolcanoAsWhirlpool):
    """#4: "The game ends immediately when the last Terrain tile is removed from the board."

    The last tile's back is not carried out; the tile leaves the game face up."""

    def island_tiles(self, state: AtlantisState) -> list[str]:
        """Tiles still on the board (a tile being removed has left ``tile_at`` already)."""
        return [t.handle for t in state.tiles.values() if t.where == ISLAND and state.tile_at.get(t.cell) == t.handle]

    def removal_rolls_die(self, state: AtlantisState, back: str, fallen: list[str],
                          boarders: list[str] | None) -> bool:
        if len(self.island_tiles(state)) == 1:
            return False          # the game ends with this removal: no creature roll
        return super().removal_rolls_die(state, back, fallen, boarders)

    def why_the_end_cannot_come(self, state: AtlantisState) -> str:
        if state.tile_at:
            return super().why_the_end_cannot_come(state)
        return ("no terrain tile is left on the island, and with challenge #4 (end: submerged) the game ends "
                "when the last one is removed: add terrain tiles to the island")

    def resolve_back(self, state: AtlantisState, tile: Tile, player: str, events: Events,
                     boarders: list[str] | None) -> None:
        if not self.island_tiles(state):
            tile.where = USED
            self.end_game(state, events, "the last terrain tile has been removed")
            return
        super().resolve_back(state, tile, player, events, boarders)


class AllEqual(AtlantisRules):
    """#3: "The winner of the game is the player with the most Explorer tokens on the safe
    isles when the game ends. The numbers printed under the tokens are ignored."."""

    def explorer_points(self, state: AtlantisState, e: Explorer) -> int:
        return 1
