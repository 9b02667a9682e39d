"""Base-game challenges #1-#4 ("Here are a few variants, or challenges"), as options of the base game.

A mixin of :class:`~pbem.rules.atlantis.game.AtlantisGame`: it declares its
options in ``OPTIONS`` and overrides only the rule steps that differ, calling
``super()`` for the base rule.  With the defaults nothing changes.

* ``overpopulated=yes`` - challenge #1 "Overpopulated!" (2-4 players; with 5-6
  players the same option is challenge #5, see :mod:`players56`);
* ``end=to-the-last`` - challenge #2 "To the last!";
* ``end=submerged`` - challenge #4 "Atlantis submerged!";
* ``scoring=all-equal`` - challenge #3 "All equal!".

#2 and #4 are values of one option because they contradict each other: #2
plays on after the island is gone, #4 ends the game with the last tile.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from pbem.game import OptionSpec, Rng
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.state import BOAT, ISLAND, LAND, PLAY, SEA, SETUP_PLACE, USED, Explorer, State, Tile

END_VOLCANO, END_TO_THE_LAST, END_SUBMERGED = "volcano", "to-the-last", "submerged"
END_CHOICES = (END_VOLCANO, END_TO_THE_LAST, END_SUBMERGED)


class ChallengeRules(RulesBase):
    OPTIONS: tuple[OptionSpec, ...] = (
        OptionSpec("overpopulated", "no", ("no", "yes"),
                   "yes: challenge #1 (2-4 players: up to two explorers on each inland tile at setup) or, "
                   "with 5-6 players, challenge #5", setup_only=True),
        OptionSpec("end", END_VOLCANO, END_CHOICES,
                   "volcano: the volcano ends the game; to-the-last: challenge #2 (ends when the last explorer "
                   "leaves the board); submerged: challenge #4 (ends with the last terrain tile)"),
        OptionSpec("scoring", "values", ("values", "all-equal"),
                   "values: add up the saved explorers' values; all-equal: challenge #3, count them"),
    )

    # --- options ---------------------------------------------------------------------
    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        end = options.get("end")
        if isinstance(end, str) and end not in END_CHOICES:
            asked = set(re.split(r"[\s,+&/]+", end.strip()))
            if {END_TO_THE_LAST, END_SUBMERGED} <= asked:
                raise ValueError("end=to-the-last (challenge #2) and end=submerged (#4) cannot be combined: "
                                 "#2 plays on after the last tile is gone, #4 ends the game with it")
        super().check_options(options, players)  # type: ignore[misc]

    def end_rule(self, state: State) -> str:
        return self.option(state, "end")

    # --- challenge #1: Overpopulated! -------------------------------------------------
    def overpopulated(self, state: State) -> bool:
        return self.option(state, "overpopulated") == "yes"

    def on_the_coast(self, state: State, cell: int) -> bool:
        """"adjacent to sea spaces, on the island's coast" (a sea space as for removing tiles,
        so ``lagoon=land`` makes the tiles round the lagoon inland)."""
        return any(self.counts_as_sea_for_removal(state, n) for n in self.board.neighbours[cell])

    def explorers_allowed_at_setup(self, state: State, cell: int) -> int:
        """"up to two Explorer tokens on Terrain tiles, except for those adjacent to sea spaces,
        on the island's coast, where only one Explorer token can be placed"."""
        limits = self.comp["overpopulated"]
        return limits["coast"] if self.on_the_coast(state, cell) else limits["inland"]

    def placement_spots(self, state: State) -> list[int]:
        if not self.overpopulated(state):
            return super().placement_spots(state)  # type: ignore[misc]
        return [t.cell for t in state.tiles.values()
                if t.where == ISLAND and len(state.on_land(t.cell)) < self.explorers_allowed_at_setup(state, t.cell)]

    def why_not_placeable(self, state: State, cell: int) -> str:
        if not self.overpopulated(state) or cell not in state.tile_at:
            return super().why_not_placeable(state, cell)  # type: ignore[misc]
        limit = self.explorers_allowed_at_setup(state, cell)
        where = "a coastal" if self.on_the_coast(state, cell) else "an inland"
        return f"{self.label(cell)} is {where} tile and holds {limit} explorer{'s' if limit > 1 else ''} already"

    def variant_prompt(self, state: State, kind: str) -> str:
        if kind == SETUP_PLACE and self.overpopulated(state):
            return ("place an explorer on a terrain tile: an empty one, or an inland one with one explorer "
                    "(challenge #1): {place: r7, on: G5}")
        return super().variant_prompt(state, kind)

    # --- challenges #2 and #4: the volcano is a whirlpool -----------------------------------
    def back_ends_game(self, state: State, back: str) -> bool:
        """#2 and #4: "When the Volcanic Eruption tile is revealed, treat it as a Whirlpool tile"."""
        if back == "volcano" and self.end_rule(state) != END_VOLCANO:
            return False
        return super().back_ends_game(state, back)  # type: ignore[misc]

    def effect_volcano(self, state: State, tile: Tile, player: str, events: list, boarders) -> None:
        if self.end_rule(state) == END_VOLCANO:
            super().effect_volcano(state, tile, player, events, boarders)  # type: ignore[misc]
            return
        # "... treat it as a Whirlpool tile and continue the game if Explorer tokens [#2] /
        # any Terrain tiles [#4] remain on the board."
        events.append(event({"event": "eruption", "player": player, "tile": tile.handle,
                             "at": self.label(tile.cell), "acts_as": "whirlpool"}))
        self.effect_whirlpool(state, tile, player, events, boarders)  # type: ignore[attr-defined]

    # --- challenge #2: To the last! ------------------------------------------------------------
    def explorers_on_board(self, state: State) -> list[str]:
        return [e.handle for e in state.explorers.values() if e.where in (LAND, BOAT, SEA)]

    def end_when_the_last_explorer_leaves(self, state: State, events: list) -> None:
        """#2: "The game ends when the last Explorer token is removed from the game board (by
        being saved or removed by a creature or whirlpool)"."""
        if (state.phase == PLAY and self.end_rule(state) == END_TO_THE_LAST
                and not self.explorers_on_board(state)):
            self.end_game(state, events, "the last explorer has left the board")

    def after_action(self, state: State, events: list) -> None:
        super().after_action(state, events)  # type: ignore[misc]
        self.end_when_the_last_explorer_leaves(state, events)

    def advance(self, state: State, rng: Rng | None, events: list, after: str | None,
                die: str | None = None) -> None:
        # checked before the next step starts, so no die is rolled after the last explorer left
        self.end_when_the_last_explorer_leaves(state, events)
        super().advance(state, rng, events, after, die)  # type: ignore[misc]

    # --- challenge #4: Atlantis submerged! -------------------------------------------------------
    def island_tiles(self, state: State) -> list[str]:
        """Tiles still on the board (a tile being removed has left ``tile_at`` already)."""
        return [t.handle for t in state.tiles.values() if t.where == ISLAND and state.tile_at.get(t.cell) == t.handle]

    def removing_the_last_tile(self, state: State) -> bool:
        """Asked while the tile being removed is still on the island."""
        return self.end_rule(state) == END_SUBMERGED and len(self.island_tiles(state)) == 1

    def removal_rolls_die(self, state: State, back: str, fallen: list[str], boarders: list[str] | None) -> bool:
        if self.removing_the_last_tile(state):
            return False          # the game ends with this removal: no creature roll
        return super().removal_rolls_die(state, back, fallen, boarders)  # type: ignore[misc]

    def resolve_back(self, state: State, tile: Tile, player: str, events: list, boarders: list[str] | None) -> None:
        """#4: "The game ends immediately when the last Terrain tile is removed from the board."

        The last tile's back is not carried out; the tile leaves the game face up."""
        if self.end_rule(state) == END_SUBMERGED and not self.island_tiles(state):
            tile.where = USED
            self.end_game(state, events, "the last terrain tile has been removed")
            return
        super().resolve_back(state, tile, player, events, boarders)  # type: ignore[misc]

    # --- challenge #3: All equal! ------------------------------------------------------------------
    def all_equal(self, state: State) -> bool:
        return self.option(state, "scoring") == "all-equal"

    def explorer_points(self, state: State, e: Explorer) -> int:
        """#3: "The winner of the game is the player with the most Explorer tokens on the safe
        isles when the game ends. The numbers printed under the tokens are ignored."."""
        if self.all_equal(state):
            return 1
        return super().explorer_points(state, e)  # type: ignore[misc]

    # --- log lines ---------------------------------------------------------------------------------
    def describe(self, ev: Mapping[str, Any]) -> str:
        if ev.get("event") == "eruption":
            return f"{ev.get('tile')} at {ev.get('at')} is the volcano: it acts as a whirlpool"
        return super().describe(ev)  # type: ignore[misc]
