"""Set-up: colours, the random island, hidden values, placing people and ships.

Random draws at setup, in this order (all from the ``rng`` given to ``setup``):

1. ``terrain layout``: Fisher-Yates shuffle of the tiles (per kind, in removal order)
   onto the island slots in slot order, repeated until :meth:`SetupRules.layout_acceptable`;
2. ``backs <kind>`` for each tile kind: a shuffle of that kind's backs (tiles data order)
   onto that kind's slots in slot order;
3. ``values <colour>`` for each colour in play: a shuffle of the hidden values onto
   handles 1..n (see :meth:`SetupRules.explorer_values`).

A game changes a step through the hooks below (a fixed island, no hidden values, other
placement spots), never by copying the step.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from pbem.core.position_fields import fail
from pbem.game import HANDS_OVER, IllegalAction, Rng
from pbem.rules.survive.actions import handle_arg
from pbem.rules.survive.base import ActionHandler, Decider, Events, OutcomeTest, StateT, event
from pbem.rules.survive.scoring import ScoringRules
from pbem.rules.survive.state import (
    LAND,
    RESERVE,
    SEA,
    SETUP_BOAT,
    SETUP_PLACE,
    SUPPLY,
    Boat,
    Creature,
    Explorer,
    Tile,
    Turn,
    sort_handles,
)


class SetupRules(ScoringRules[StateT]):
    # --- hooks -----------------------------------------------------------------
    def standing_keys(self) -> tuple[str, ...]:
        """The standing orders a player keeps: one per reaction tile back (tiles data order)."""
        return tuple(b for b in self.tile_backs if self.back_kind[b] == "defense")

    def standing_default(self, options: Mapping[str, str]) -> str:
        """Every standing order's value at set-up.  Default: ``auto``."""
        return "auto"

    def colours_per_player(self, n_players: int, options: Mapping[str, str]) -> int:
        """Colours each player plays.  Default: one."""
        return 1

    def colour_prefixes(self, n_players: int) -> dict[str, str]:
        """The colours in the box for ``n_players`` (colour -> handle prefix), in the order
        free colours are handed out."""
        return dict(self.comp["colours"])

    def players56_setup(self, n_players: int) -> Mapping[str, Any] | None:
        """The 5-6 player kit's set-up for ``n_players`` (components ``players56.by_players``;
        None: not a 5-6 player game, or a game without the kit)."""
        kit = self.comp.get("players56")
        by_players: Mapping[int, Mapping[str, Any]] = kit["by_players"] if kit else {}
        return by_players.get(n_players)

    def starting_ships(self, players: Sequence[str], colours: Mapping[str, Sequence[str]],
                       options: Mapping[str, str]) -> dict[str, int]:
        """How many ships each player places at setup (components ``boats.per_player``)."""
        return {p: int(self.comp["boats"]["per_player"]) for p in players}

    def explorer_values(self, n_players: int, options: Mapping[str, str]) -> list[int]:
        """The hidden values of one colour's people in play."""
        return list(self.comp["explorer_values"])

    def layout_acceptable(self, layout: Sequence[str], options: Mapping[str, str]) -> bool:
        """Is a shuffled island layout kept?  Default: always (a game may reshuffle)."""
        return True

    def starting_creature_kinds(self) -> tuple[str, ...]:
        """The creature kinds whose tokens start on the board's creature symbols: those that
        follow the serpent rule."""
        return self.kinds_following("serpent")

    # --- can a game go on from a position -----------------------------------------
    def check_playable(self, state: StateT) -> None:
        """Explorers are what the game is about: a position with none at all (``partial: true``
        with every explorer left out) has nothing to place, move or save."""
        super().check_playable(state)
        if not state.explorers:
            n = len(self.explorer_values(len(state.players), state.options))
            prefixes = self.colour_prefixes(len(state.players))
            mine = [f"{prefixes[c]}1..{prefixes[c]}{n}" for p in state.players for c in state.colours.get(p, [])]
            fail("explorers", f"there are none, so nobody has anything to move or save: add {self.word('explorers')} "
                              f"({', '.join(mine)})")

    # --- players and colours --------------------------------------------
    def assign_colours(self, players: Sequence[str], per_player: int) -> dict[str, list[str]]:
        """A player named after a colour gets it; the rest deal the free colours
        (in the box's order) round the table in seat order."""
        all_colours = list(self.colour_prefixes(len(players)))
        colours: dict[str, list[str]] = {p: [] for p in players}
        for p in players:
            if p in all_colours:
                colours[p].append(p)
        free = [c for c in all_colours if c not in players]
        while any(len(cs) < per_player for cs in colours.values()):
            for p in players:
                if len(colours[p]) < per_player:
                    colours[p].append(free.pop(0))
        return colours

    # --- the island ---------------------------------------------------------
    def terrain_pool(self) -> list[str]:
        counts = {t: 0 for t in self.terrains}
        for spec in self.tile_backs.values():
            for t in self.terrains:
                counts[t] += spec[t]
        return [t for t in self.terrains for _ in range(counts[t])]

    def deal_terrain(self, rng: Rng, options: Mapping[str, str]) -> list[str]:
        """"Shuffle the Terrain tiles face up ... and place them randomly"."""
        pool = self.terrain_pool()
        while True:
            layout = rng.shuffled(pool, "terrain layout")
            if self.layout_acceptable(layout, options):
                return layout

    def deal_backs(self, layout: Sequence[str], rng: Rng) -> list[str]:
        backs: list[str] = [""] * len(layout)
        for terrain in self.terrains:
            pool = [b for b, spec in self.tile_backs.items() for _ in range(spec[terrain])]
            pool = rng.shuffled(pool, f"backs {terrain}")
            for i, t in enumerate(layout):
                if t == terrain:
                    backs[i] = pool.pop(0)
        return backs

    def deal_values(self, colour: str, rng: Rng, values: Sequence[int]) -> list[int]:
        return rng.shuffled(list(values), f"values {colour}")

    # --- the initial state ----------------------------------------------------
    def new_state(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> StateT:
        colours = self.assign_colours(players, self.colours_per_player(len(players), options))
        layout = self.deal_terrain(rng, options)
        backs = self.deal_backs(layout, rng)
        tiles = {}
        for i, (cell, terrain, back) in enumerate(zip(self.board.island_slots, layout, backs, strict=True)):
            handle = f"T{i + 1}"
            tiles[handle] = Tile(handle, cell, terrain, back)
        explorers: dict[str, Explorer] = {}
        values = self.explorer_values(len(players), options)
        for colour, prefix in self.colour_prefixes(len(players)).items():
            owner = next((p for p, cs in colours.items() if colour in cs), None)
            if owner is None:
                continue
            for i, value in enumerate(self.deal_values(colour, rng, values)):
                handle = f"{prefix}{i + 1}"
                explorers[handle] = Explorer(handle, colour, owner, value)
        boats: dict[str, Boat] = {}
        spec = self.comp["boats"]
        ships = self.starting_ships(players, colours, options)
        owners = [p for p in players for _ in range(ships[p])]
        for i in range(spec["count"]):
            handle = f"{spec['prefix']}{i + 1}"
            boats[handle] = Boat(handle, RESERVE, owner=owners[i]) if i < len(owners) else Boat(handle, SUPPLY)
        creatures: dict[str, Creature] = {}
        for kind, cspec in self.comp["creatures"].items():
            for i in range(cspec["count"]):
                handle = f"{cspec['prefix']}{i + 1}"
                creatures[handle] = Creature(handle, kind)
        # "Place the 5 Sea Serpent tokens on the spaces of the board with the Sea Serpent symbol."
        starters = [c for c in creatures.values() if c.kind in self.starting_creature_kinds()]
        for c, cell in zip(starters, self.board.serpent_starts):
            c.where, c.cell = SEA, cell
        default = self.standing_default(options)
        state = self.state_class(
            players=list(players), colours=colours, options=dict(options),
            standing={p: {k: default for k in self.standing_keys()} for p in players},
            phase=SETUP_PLACE, turn=Turn(player=players[0], step=SETUP_PLACE),
            explorers=_canonical(explorers), tiles=_canonical(tiles), boats=_canonical(boats),
            creatures=_canonical(creatures), history={"placed": 0, "turns": 0, "removed": 0, "rolls": 0})
        state.rebuild_indexes()
        return state

    # --- placing people ------------------------------------------------------
    def placement_spots(self, state: StateT) -> list[int]:
        """"an empty Terrain tile (meaning a Terrain tile which doesn't contain an Explorer token)"."""
        land = state.land_at        # (the indexes hold only the spaces with someone there)
        return [cell for cell in state.tile_at if cell not in land]

    def placeable(self, state: StateT, cell: int) -> bool:
        """Is ``cell`` one of :meth:`placement_spots`?  Asked of the one space: a tile there and
        nobody on it.  A layer that changes :meth:`placement_spots` gives its own form (at least
        ``cell in self.placement_spots(state)``; ``tests/golden/test_bot_fast_forms.py`` checks
        the two agree at every step)."""
        return cell in state.tile_at and cell not in state.land_at

    def why_not_placeable(self, state: StateT, cell: int) -> str:
        """The one-line reason ``cell`` is not in :meth:`placement_spots`."""
        return f"{self.label(cell)} is not an empty {self.word('terrain tile')}"

    def reserve_explorers(self, state: StateT, player: str) -> list[str]:
        return [e.handle for e in state.explorers_of(player) if e.where == RESERVE]

    def legal_place(self, state: StateT, player: str) -> list[dict[str, Any]]:
        spots = [self.label(c) for c in self.placement_spots(state)]
        return [{"place": h, "on": s} for h in self.reserve_explorers(state, player) for s in spots]

    def do_place(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, SETUP_PLACE)
        handle = handle_arg(action["place"], "place")
        e = state.explorers.get(handle)
        if e is None or e.owner != player:
            raise IllegalAction(f"{handle} is not one of your {self.word('explorers')}")
        if e.where != RESERVE:
            raise IllegalAction(f"{handle} is already on the board")
        cell = self.cell_arg(action["on"])
        if not self.placeable(state, cell):
            raise IllegalAction(self.why_not_placeable(state, cell))
        state.put_explorer(handle, LAND, cell)
        state.history["placed"] = state.history.get("placed", 0) + 1
        events = [event({"event": "place", "player": player, "explorer": handle, "at": self.label(cell)})]
        nxt = self.next_with(state, player, lambda p: bool(self.reserve_explorers(state, p)))
        if nxt is not None:
            state.turn.player = nxt
        else:
            self.start_boat_placement(state, events)
        return events

    def next_with(self, state: StateT, after: str, wants: Callable[[str], bool]) -> str | None:
        """"Starting with the first player and proceeding clockwise": the next player who still has to place."""
        for p in state.players_from(after, include_self=True):
            if wants(p):
                return p
        return None

    # --- placing ships -------------------------------------------------------
    def start_boat_placement(self, state: StateT, events: Events) -> None:
        state.phase = SETUP_BOAT
        first = self.next_with(state, state.players[-1], lambda p: bool(self.reserve_boats(state, p)))
        if first is None:
            self.start_play(state, events)
        else:
            state.turn = Turn(player=first, step=SETUP_BOAT)

    def reserve_boats(self, state: StateT, player: str) -> list[str]:
        return [b.handle for b in state.boats.values() if b.where == RESERVE and b.owner == player]

    def boat_spots(self, state: StateT) -> list[int]:
        """"a free sea space (meaning a space that doesn't contain a Ship token or a Sea Serpent
        token) adjacent to a Terrain tile"."""
        near = self.board.neighbour_sets
        coast = set().union(*map(near.__getitem__, state.tile_at))     # (every tile's neighbours, in C)
        coast.difference_update(state.tile_at)
        blocked = state.cells_with_creature(self.starting_creature_kinds())
        return [cell for cell in sorted(coast) if cell not in state.boat_at and cell not in blocked]

    def legal_boat(self, state: StateT, player: str) -> list[dict[str, Any]]:
        spots = [self.label(c) for c in self.boat_spots(state)]
        return [{"boat": b, "at": s} for b in self.reserve_boats(state, player) for s in spots]

    def do_boat(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, SETUP_BOAT)
        handle = handle_arg(action["boat"], "boat")
        if handle not in self.reserve_boats(state, player):
            mine = ", ".join(self.reserve_boats(state, player))
            raise IllegalAction(f"{handle} is not a ship you still have to place (yours: {mine})")
        cell = self.cell_arg(action["at"])
        if cell not in self.boat_spots(state):
            raise IllegalAction(f"{self.label(cell)} is not a free {self.word('sea space')} next to {self.word('a terrain tile')}")
        state.put_boat(handle, SEA, cell)
        events = [event({"event": "boat", "player": player, "boat": handle, "at": self.label(cell)})]
        nxt = self.next_with(state, player, lambda p: bool(self.reserve_boats(state, p)))
        if nxt is not None:
            state.turn.player = nxt
        else:
            self.start_play(state, events)
        return events

    # --- the tables ---------------------------------------------------------------
    def action_table(self) -> dict[str, ActionHandler[StateT]]:
        return {**super().action_table(), "place": self.do_place, "boat": self.do_boat}

    def outcome_table(self) -> dict[str, OutcomeTest[StateT]]:
        return {**super().outcome_table(), "place": self.placement_outcome, "boat": self.ship_placement_outcome}

    def placement_outcome(self, state: StateT, player: str, action: Mapping[str, Any]) -> str:
        """:meth:`do_place` hands over to the next player who still has people to place: while
        another player has, the placement ends ``player``'s part (nothing hidden, nothing rolled)."""
        others = (p for p in state.players if p != player)
        return HANDS_OVER if any(self.reserve_explorers(state, p) for p in others) else ""

    def ship_placement_outcome(self, state: StateT, player: str, action: Mapping[str, Any]) -> str:
        """:meth:`do_boat`, likewise, while another player still has ships to place."""
        others = (p for p in state.players if p != player)
        return HANDS_OVER if any(self.reserve_boats(state, p) for p in others) else ""

    def decider_table(self) -> dict[str, Decider[StateT]]:
        return {**super().decider_table(), SETUP_PLACE: self.legal_place, SETUP_BOAT: self.legal_boat}


def _canonical(pieces: dict[str, Any]) -> dict[str, Any]:
    """Pieces in handle order (the order positions are read back in)."""
    return {h: pieces[h] for h in sort_handles(pieces)}
