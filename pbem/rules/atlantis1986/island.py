"""The island of Atlantis: built in rings, the tribes set up, and sunk ring by ring.

"At the start of the game, the island tiles are shuffled, and the island of
Atlantis is built at the centre of the game board."  The terrain of each slot
is fixed by its ring (games/atlantis-1986/board.yaml); only the tile bottoms
are shuffled, per terrain (draws ``backs beach``, ``backs forest``, ``backs
mountain``).  There are no other random draws at setup: villagers have no
hidden values, and the starting boats are on fixed spaces (or placed by the
players with ``start_boats=placed``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import Rng
from pbem.rules.atlantis1986.spinner import SpinnerRules1986
from pbem.rules.survive.base import Events
from pbem.rules.survive.state import BOAT, ISLAND, LAND, RESERVE, SEA, SUPPLY, State, Tile


#: where a villager is still in play (:meth:`IslandRules1986.any_villager_in_play`)
IN_PLAY = frozenset((LAND, BOAT, SEA))


class IslandRules1986(SpinnerRules1986):
    #: the turn model's ``removal: rings`` and ``setup_limits``
    turn_model_covers = frozenset({"removable_tiles", "placement_spots"})

    def turn_model_params(self, state: State) -> dict[str, Any]:
        return {**super().turn_model_params(state), "removal": "rings",
                "rings": {self.label(cell): ring for cell, ring in self.ring_of.items()},
                "setup_limits": {self.label(t.cell): self.tile_limit_at_setup(state, t)
                                 for t in state.tiles.values() if t.where == ISLAND}}

    #: ring index -> (terrain, cells), outer ring first (set by the game from board.yaml)
    rings: tuple[tuple[str, tuple[int, ...]], ...]
    ring_of: dict[int, int]              # island cell -> ring index
    boat_starts: tuple[int, ...]

    # --- building the island ---------------------------------------------------
    def deal_terrain(self, rng: Rng, options: Mapping[str, str]) -> list[str]:
        """"build out rings": beach outside, then forest, then mountain; nothing is drawn."""
        return [self.rings[self.ring_of[cell]][0] for cell in self.board.island_slots]

    # --- the tribes --------------------------------------------------------------
    # Each player leads one tribe (the core's default); every villager counts one: the winner
    # saves "the most of their own villagers" (components ``explorer_values``).

    def deal_values(self, colour: str, rng: Rng, values: Sequence[int]) -> list[int]:
        """Nothing hidden to deal: no draw."""
        return list(values)

    def new_state(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        state = super().new_state(players, options, rng)   # no reaction tiles, so no standing orders
        self.put_out_starting_boats(state)
        return state

    def starting_boat_count(self, n_players: int) -> int:
        """"In a two-player game, there are two boats. In a three- or four-player game, there are four.\""""
        return int(self.comp["boats"]["start"][n_players])

    def put_out_starting_boats(self, state: State) -> None:
        """"Some of the boats are placed in the sea adjacent to the island of Atlantis."

        ``start_boats=fixed``: on the printed spaces (board.yaml ``boat_starts``);
        ``placed``: the players place them after their villagers; the boats are dealt
        out one at a time from the last player backwards."""
        n = self.starting_boat_count(len(state.players))
        boats = [b.handle for b in state.boats.values() if b.where == SUPPLY][:n]
        if self.option(state, "start_boats") == "fixed":
            for handle, cell in zip(boats, self.boat_starts[:n], strict=True):
                state.put_boat(handle, SEA, cell)
            return
        placers = list(reversed(state.players))
        for i, handle in enumerate(boats):
            b = state.boats[handle]
            b.where, b.owner = RESERVE, placers[i % len(placers)]

    # --- setting up the villagers ------------------------------------------------------
    def tile_limit_at_setup(self, state: State, tile: Tile) -> int | None:
        """"The only limitation is that sandy beach tiles can start with only one villager
        per tile"; ``setup_limit=three``: at most three on any other tile."""
        limit = self.comp["setup_limit"].get(tile.terrain)
        if limit is None and self.option(state, "setup_limit") == "three":
            return 3
        return limit

    def placement_spots(self, state: State) -> list[int]:
        """The island's tiles with room under :meth:`tile_limit_at_setup` (its table and option read
        once; a tile nobody stands on has room under any limit of 1 or more)."""
        limits, three = self.comp["setup_limit"], self.option(state, "setup_limit") == "three"
        land, tiles = state.land_at, state.tiles
        room_when_empty = all(limit >= 1 for limit in limits.values())
        spots = []
        for cell, handle in state.tile_at.items():       # (the island's tiles, in handle order)
            here = land.get(cell)
            if here is None and room_when_empty:
                spots.append(cell)
                continue
            limit = limits.get(tiles[handle].terrain)
            if limit is None and three:
                limit = 3
            if limit is None or len(here or ()) < limit:
                spots.append(cell)
        return spots

    def placeable(self, state: State, cell: int) -> bool:
        """Is ``cell`` one of :meth:`placement_spots`?  (Asked for the one space.)"""
        handle = state.tile_at.get(cell)
        if handle is None:
            return False
        limit = self.tile_limit_at_setup(state, state.tiles[handle])
        return limit is None or len(state.land_at.get(cell, ())) < limit

    def why_not_placeable(self, state: State, cell: int) -> str:
        handle = state.tile_at.get(cell)
        if handle is None:
            return f"{self.label(cell)} is not an island tile"
        tile = state.tiles[handle]
        return (f"{self.label(cell)} is {tile.terrain} and already holds "
                f"{self.tile_limit_at_setup(state, tile)} villager(s), the most it may start with")

    # --- the sinking phase --------------------------------------------------------------
    def sinking_ring(self, state: State) -> list[str]:
        """"The removal starts from the sandy beach on the outer edge, and continues further
        inland as outer rings are exhausted": the outermost ring with tiles left."""
        ring_of, island = self.ring_of, state.tile_at.items()     # (the island's tiles, in handle order)
        for ring in range(len(self.rings)):
            tiles = [handle for cell, handle in island if ring_of[cell] == ring]
            if tiles:
                return tiles
        return []

    def removable_tiles(self, state: State) -> list[str]:
        """"A tile with villagers on it may only be sunk if no empty tiles are present in
        the currently sinking ring.\""""
        ring = self.sinking_ring(state)
        empty = [h for h in ring if not state.on_land(state.tiles[h].cell)]
        return empty or ring

    def why_not_removable(self, state: State, tile: Tile) -> str:
        ring = self.sinking_ring(state)
        here = self.label(tile.cell)
        if tile.handle not in ring:
            outer = state.tiles[ring[0]]
            return f"{here} is further inland: the {outer.terrain} ring ({self.label(outer.cell)}, ...) sinks first"
        return f"{here} has villagers on it and its ring still has empty tiles"

    # --- what appears in the sunk tile's place ----------------------------------------------
    # The tile bottoms follow the core's rules (games/atlantis-1986/tiles.yaml): a shark, an
    # octopus (giant squid), a sea monster ("Sea Monsters both destroy boats and kill villagers")
    # or a dolphin comes up (place-creature), a boat that the villagers there climb into
    # (place-ship), a whirlpool (clear-area, below) or the volcano (end-game).
    def cause_name(self, kind: str) -> str:
        return "sea monster" if kind == "monster" else kind

    def effect_clear_area(self, state: State, tile: Tile, player: str, events: Events,
                          boarders: list[str] | None) -> None:
        """"Whirlpools destroy all moving objects (but not land) from the same space and
        adjacent spaces. The whirlpool is then discarded."  With ``whirlpool=all`` that
        includes the villagers standing on the adjacent land tiles."""
        super().effect_clear_area(state, tile, player, events, boarders)
        if self.option(state, "whirlpool") != "all":
            return
        for cell in sorted(n for n in self.board.neighbours[tile.cell] if n in state.tile_at):
            self.lose_explorers(state, list(state.on_land(cell)), cell, events, cause="whirlpool")

    # --- the end ----------------------------------------------------------------------------
    def villagers_in_play(self, state: State) -> list[str]:
        return [e.handle for e in state.explorers.values() if e.where in (LAND, BOAT, SEA)]

    def any_villager_in_play(self, state: State) -> bool:
        """Is :meth:`villagers_in_play` not empty (asked after every action: stops at the first)?"""
        for e in state.explorers.values():         # (a loop: no generator made after every action)
            if e.where in IN_PLAY:
                return True
        return False
