"""Base-game challenges #1-#4 ("Here are a few variants, or challenges"), as layers.

Each challenge is a layer that :class:`~pbem.rules.atlantis.game.AtlantisGame` puts in front of
:class:`~pbem.rules.atlantis.rules.AtlantisRules` only when its option asks for it, and that
overrides only the rule steps that differ:

* ``overpopulated=yes`` with 2-4 players - :class:`Overpopulated`, challenge #1
  "Overpopulated!" (with 5-6 players the same option is challenge #5, see :mod:`players56`);
* ``end=to-the-last`` - :class:`ToTheLast`, challenge #2 "To the last!";
* ``end=submerged`` - :class:`Submerged`, challenge #4 "Atlantis submerged!";
* ``scoring=all-equal`` - :class:`AllEqual`, challenge #3 "All equal!".

#1 and #2 are Survive's, shared with Space Attack (:mod:`pbem.rules.survive.challenges`, in
each game's words); #3 and #4 are Atlantis's own.  #2 and #4 are values of one option because
they contradict each other: #2 plays on after the island is gone, #4 ends the game with the
last tile.
"""
from __future__ import annotations

from pbem.rules.atlantis.rules import AtlantisRules
from pbem.rules.atlantis.state import ISLAND, USED, AtlantisState, Explorer, Tile
from pbem.rules.survive.base import Events
from pbem.rules.survive.challenges import EndTileClearsArea, Overpopulated, ToTheLast

__all__ = ["END_CHOICES", "END_SUBMERGED", "END_TO_THE_LAST", "END_VOLCANO", "AllEqual", "Overpopulated", "Submerged", "ToTheLast", "VolcanoAsWhirlpool"]

END_VOLCANO, END_TO_THE_LAST, END_SUBMERGED = "volcano", "to-the-last", "submerged"
END_CHOICES = (END_VOLCANO, END_TO_THE_LAST, END_SUBMERGED)

#: #2 and #4: "When the Volcanic Eruption tile is revealed, treat it as a Whirlpool tile"
VolcanoAsWhirlpool = EndTileClearsArea


class Submerged(EndTileClearsArea[AtlantisState], AtlantisRules):
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
