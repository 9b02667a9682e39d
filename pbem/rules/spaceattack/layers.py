"""Space Attack's challenges #1 and #2 and its 5-6 Player kit, as layers on the game's rules.

:class:`~pbem.rules.spaceattack.game.SpaceAttackGame` puts a layer in front of
:class:`~pbem.rules.spaceattack.rules.SpaceAttackRules` only when its option (or the player
count) asks for it; each overrides only the rule steps that differ:

* ``overpopulated=yes``: :class:`Overpopulated`, challenge #1 "Overpopulated!";
* ``end=to-the-last``: :class:`ToTheLast`, challenge #2 "To the last!";
* 5 or 6 players: :class:`Players56`, the Survive: Space Attack! 5-6 Player kit.

(Challenge #3, the maps, is data: the ``map`` option picks the board.)
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import Rng
from pbem.rules.survive.base import Events, event
from pbem.rules.survive.state import BOAT, ISLAND, LAND, PLAY, SEA, SETUP_PLACE, Tile
from pbem.rules.spaceattack.rules import SpaceAttackRules
from pbem.rules.spaceattack.state import SpaceAttackState


class Overpopulated(SpaceAttackRules):
    """Challenge #1: "During the game setup, the players can place up to two Crew tokens on Station
    tiles, except for those adjacent to open spaces, on the outside edge of the Station, where only
    one Crew token can be placed."  An edge tile touches an open space as the removal rule reads it
    (with ``enclosed=station`` the spaces the station encloses do not count)."""

    #: the turn model's ``setup_limits`` with ``setup_fallback``
    turn_model_covers = frozenset({"placement_spots"})

    def turn_model_params(self, state: SpaceAttackState) -> dict[str, Any]:
        return {**super().turn_model_params(state), "setup_fallback": True,
                "setup_limits": {self.label(cell): self.crew_allowed_at_setup(state, cell) for cell in state.tile_at}}

    def on_the_edge(self, state: SpaceAttackState, cell: int) -> bool:
        return any(self.counts_as_sea_for_removal(state, n) for n in self.board.neighbours[cell])

    def crew_allowed_at_setup(self, state: SpaceAttackState, cell: int) -> int:
        limits = self.comp["overpopulated"]
        return int(limits["edge"] if self.on_the_edge(state, cell) else limits["inland"])

    def placement_spots(self, state: SpaceAttackState) -> list[int]:
        spots = [t.cell for t in state.tiles.values()
                 if t.where == ISLAND and len(state.on_land(t.cell)) < self.crew_allowed_at_setup(state, t.cell)]
        # more crew than room (six players on a station with few inner tiles): the kit's rule decides
        return spots or super().placement_spots(state)

    def why_not_placeable(self, state: SpaceAttackState, cell: int) -> str:
        if cell not in state.tile_at:
            return super().why_not_placeable(state, cell)
        limit = self.crew_allowed_at_setup(state, cell)
        where = "an edge" if self.on_the_edge(state, cell) else "an inner"
        return f"{self.label(cell)} is {where} tile and holds {limit} crew token{'s' if limit > 1 else ''} already"

    def variant_prompt(self, state: SpaceAttackState, kind: str) -> str:
        if kind == SETUP_PLACE and self.placement_spots(state) != super().placement_spots(state):
            return ("place a crew token on a station tile: an empty one, or an inner one with one crew token "
                    "(challenge #1): {place: r7, on: G5}")
        return super().variant_prompt(state, kind)


class ToTheLast(SpaceAttackRules):
    """Challenge #2: "The game ends when the last Crew token is removed from the game board (by being
    saved or removed by a creature or black hole). When the Core Breach tile is revealed, treat it
    as a black hole tile and continue the game if Crew tokens remain on the board.\""""

    def back_ends_game(self, state: SpaceAttackState, back: str) -> bool:
        return False if self.back_rule(back) == "end-game" else super().back_ends_game(state, back)

    def effect_end_game(self, state: SpaceAttackState, tile: Tile, player: str, events: Events,
                        boarders: list[str] | None) -> None:
        events.append(event({"event": "core-breach", "player": player, "tile": tile.handle,
                             "at": self.label(tile.cell), "acts_as": "black hole"}))
        self.effect_clear_area(state, tile, player, events, boarders)

    #: the turn model's ``end_when_board_empty``
    turn_model_covers = frozenset({"after_action", "advance"})

    def turn_model_params(self, state: SpaceAttackState) -> dict[str, Any]:
        return {**super().turn_model_params(state), "end_when_board_empty": True}

    def crew_on_board(self, state: SpaceAttackState) -> bool:
        return any(e.where in (LAND, BOAT, SEA) for e in state.explorers.values())

    def end_when_the_last_crew_leaves(self, state: SpaceAttackState, events: Events) -> None:
        if state.phase == PLAY and not self.crew_on_board(state):
            self.end_game(state, events, "the last crew token has left the board")

    def after_action(self, state: SpaceAttackState, events: Events) -> None:
        super().after_action(state, events)
        self.end_when_the_last_crew_leaves(state, events)

    def advance(self, state: SpaceAttackState, rng: Rng | None, events: Events, after: str | None,
                die: str | None = None) -> None:
        # checked before the next step starts, so no die is rolled once the last crew is gone
        self.end_when_the_last_crew_leaves(state, events)
        super().advance(state, rng, events, after, die)


class Players56(SpaceAttackRules):
    """The 5-6 Player kit (components.yaml ``players56``): two more crew colours, crew tokens put
    back in the box, escape pods per seat, and with six players the fifth and sixth players' last
    crew token on a tile that already holds crew (none of their own colour)."""

    def kit(self, n_players: int) -> Mapping[str, Any]:
        setup = self.kit_setup(n_players)
        if setup is None:
            raise ValueError(f"the 5-6 player kit is not for {n_players} players")
        return setup

    def colour_prefixes(self, n_players: int) -> dict[str, str]:
        return {**super().colour_prefixes(n_players), **self.comp["players56"]["colours"]}

    def explorer_values(self, n_players: int, options: Mapping[str, str]) -> list[int]:
        values = super().explorer_values(n_players, options)
        for v in self.kit(n_players)["remove_values"]:
            values.remove(v)
        return values

    def starting_ships(self, players: Sequence[str], colours: Mapping[str, Sequence[str]],
                       options: Mapping[str, str]) -> dict[str, int]:
        return dict(zip(players, self.kit(len(players))["pods"], strict=True))

    #: the turn model's ``final_on_occupied``
    turn_model_covers = frozenset({"placement_spots"})

    def turn_model_params(self, state: SpaceAttackState) -> dict[str, Any]:
        return {**super().turn_model_params(state), "final_on_occupied": list(self.kit(len(state.players))["final_on_occupied"])}

    def final_placement_on_occupied(self, state: SpaceAttackState, player: str) -> bool:
        seat = state.players.index(player) + 1
        return (seat in self.kit(len(state.players))["final_on_occupied"]
                and len(self.reserve_explorers(state, player)) == 1)

    def placement_spots(self, state: SpaceAttackState) -> list[int]:
        player = state.turn.player
        if self.final_placement_on_occupied(state, player):
            own = set(state.colours[player])
            return [t.cell for t in state.tiles.values() if t.where == ISLAND and state.on_land(t.cell)
                    and not any(state.explorers[h].colour in own for h in state.on_land(t.cell))]
        return super().placement_spots(state)

    def why_not_placeable(self, state: SpaceAttackState, cell: int) -> str:
        if cell in state.tile_at and self.final_placement_on_occupied(state, state.turn.player):
            if not state.on_land(cell):
                return f"your last crew token goes onto an occupied tile; {self.label(cell)} is empty"
            return f"{self.label(cell)} already holds a crew token of your colour"
        return super().why_not_placeable(state, cell)

    def variant_prompt(self, state: SpaceAttackState, kind: str) -> str:
        if kind == SETUP_PLACE and self.final_placement_on_occupied(state, state.turn.player):
            return ("your last crew token goes onto a tile that already holds crew, none of your colour: "
                    "{place: o7, on: G5}")
        return super().variant_prompt(state, kind)
