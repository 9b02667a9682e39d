"""Game setup: colours, the random island, hidden values, placing explorers and ships.

Random draws at setup, in this order (all from the ``rng`` given to ``setup``):

1. ``terrain layout``: Fisher-Yates shuffle of the 40 terrain tiles (16 beach,
   16 forest, 8 mountain, in that order) onto the island slots in slot order;
   with ``layout=fixup`` the shuffle is repeated until no beach or forest is
   isolated (see :meth:`SetupRules.isolated_slots`).
2. ``backs <terrain>`` for beach, forest, mountain: a shuffle of that terrain's
   backs (tiles.yaml order) onto that terrain's slots in slot order.
3. ``values <colour>`` for each colour in play (red, blue, green, yellow, then
   orange and white with 5-6 players): a shuffle of the explorer values onto
   handles 1..10 (fewer in a 5-6 player game, see ``explorer_values``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import IllegalAction, Rng
from pbem.rules.atlantis.actions import handle_arg
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.state import (
    ISLAND,
    LAND,
    RESERVE,
    SEA,
    SETUP_BOAT,
    SETUP_PLACE,
    SUPPLY,
    Boat,
    Creature,
    Explorer,
    State,
    Tile,
    Turn,
    sort_handles,
)

STANDING_KEYS = ("shark_defense", "whale_defense")


class SetupRules(RulesBase):
    # --- players and colours --------------------------------------------
    def colours_per_player(self, n_players: int, options: Mapping[str, str]) -> int:
        """``colours=auto``: two colours each in a two-player game ("you can decide
        to use two colors for each player"), one otherwise."""
        choice = options.get("colours", "auto")
        if choice == "auto":
            return 2 if n_players == 2 else 1
        return int(choice)

    def colour_prefixes(self, n_players: int) -> dict[str, str]:
        """The explorer colours in the box for ``n_players`` (colour -> handle prefix), in
        the order free colours are handed out."""
        return dict(self.comp["colours"])

    def assign_colours(self, players: Sequence[str], per_player: int) -> dict[str, list[str]]:
        """A player named after a colour gets it; the rest deal the free colours
        (red, blue, green, yellow order) round the table in seat order."""
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

    def boats_each(self, colours: Sequence[str], options: Mapping[str, str]) -> int:
        """"Each player gets 2 Ship tokens"; with ``boats=per-colour`` 2 per colour."""
        n = self.comp["boats"]["per_player"]
        return n * len(colours) if options.get("boats") == "per-colour" else n

    # --- the island ---------------------------------------------------------
    def terrain_pool(self) -> list[str]:
        counts = {t: 0 for t in self.terrains}
        for spec in self.tile_backs.values():
            for t in self.terrains:
                counts[t] += spec[t]
        return [t for t in self.terrains for _ in range(counts[t])]

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

    def deal_terrain(self, rng: Rng, options: Mapping[str, str]) -> list[str]:
        """"Shuffle the Terrain tiles face up ... and place them randomly"."""
        pool = self.terrain_pool()
        while True:
            layout = rng.shuffled(pool, "terrain layout")
            if options.get("layout", "random") != "fixup" or not self.isolated_slots(layout, options):
                return layout

    def deal_backs(self, layout: Sequence[str], rng: Rng) -> list[str]:
        backs: list[str | None] = [None] * len(layout)
        for terrain in self.terrains:
            pool = [b for b, spec in self.tile_backs.items() for _ in range(spec[terrain])]
            pool = rng.shuffled(pool, f"backs {terrain}")
            for i, t in enumerate(layout):
                if t == terrain:
                    backs[i] = pool.pop(0)
        return backs  # type: ignore[return-value]

    def explorer_values(self, n_players: int, options: Mapping[str, str]) -> list[int]:
        """The hidden values of one colour's explorer tokens in play."""
        return list(self.comp["explorer_values"])

    def starting_ships(self, players: Sequence[str], colours: Mapping[str, Sequence[str]],
                       options: Mapping[str, str]) -> dict[str, int]:
        """How many ships each player places at setup."""
        return {p: self.boats_each(colours[p], options) for p in players}

    def deal_values(self, colour: str, rng: Rng, values: Sequence[int] | None = None) -> list[int]:
        pool = list(self.comp["explorer_values"]) if values is None else list(values)
        return rng.shuffled(pool, f"values {colour}")

    # --- the initial state ----------------------------------------------------
    def new_state(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        options = self.full_options(options)
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
        serpents = [c for c in creatures.values() if c.kind == "serpent"]
        for c, cell in zip(serpents, self.board.serpent_starts, strict=True):
            c.where, c.cell = SEA, cell
        default = options.get("defense", "auto")
        state = State(
            players=list(players), colours=colours, options=dict(options),
            standing={p: {k: default for k in STANDING_KEYS} for p in players},
            phase=SETUP_PLACE, turn=Turn(player=players[0], step=SETUP_PLACE),
            explorers=_canonical(explorers), tiles=_canonical(tiles), boats=_canonical(boats),
            creatures=_canonical(creatures), history={"placed": 0, "turns": 0, "removed": 0, "rolls": 0})
        state.rebuild_indexes()
        return state

    # --- 7. placing explorers ------------------------------------------------
    def placement_spots(self, state: State) -> list[int]:
        """"an empty Terrain tile (meaning a Terrain tile which doesn't contain an Explorer token)"."""
        return [t.cell for t in state.tiles.values() if t.where == ISLAND and not state.on_land(t.cell)]

    def why_not_placeable(self, state: State, cell: int) -> str:
        """The one-line reason ``cell`` is not in :meth:`placement_spots`."""
        return f"{self.label(cell)} is not an empty terrain tile"

    def reserve_explorers(self, state: State, player: str) -> list[str]:
        return [e.handle for e in state.explorers.values() if e.owner == player and e.where == RESERVE]

    def legal_place(self, state: State, player: str) -> list[dict[str, Any]]:
        spots = [self.label(c) for c in self.placement_spots(state)]
        return [{"place": h, "on": s} for h in self.reserve_explorers(state, player) for s in spots]

    def do_place(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        self.expect(state, player, SETUP_PLACE)
        handle = handle_arg(action["place"], "place")
        e = state.explorers.get(handle)
        if e is None or e.owner != player:
            raise IllegalAction(f"{handle} is not one of your explorers")
        if e.where != RESERVE:
            raise IllegalAction(f"{handle} is already on the board")
        cell = self.cell_arg(action["on"])
        if cell not in self.placement_spots(state):
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

    def next_with(self, state: State, after: str, wants) -> str | None:
        """"Starting with the first player and proceeding clockwise": the next player who still has to place."""
        for p in state.players_from(after, include_self=True):
            if wants(p):
                return p
        return None

    # --- 8. placing ships -------------------------------------------------------
    def start_boat_placement(self, state: State, events: list) -> None:
        state.phase = SETUP_BOAT
        first = self.next_with(state, state.players[-1], lambda p: bool(self.reserve_boats(state, p)))
        if first is None:
            self.start_play(state, events)
        else:
            state.turn = Turn(player=first, step=SETUP_BOAT)

    def reserve_boats(self, state: State, player: str) -> list[str]:
        return [b.handle for b in state.boats.values() if b.where == RESERVE and b.owner == player]

    def boat_spots(self, state: State) -> list[int]:
        """"a free sea space (meaning a space that doesn't contain a Ship token or a Sea Serpent
        token) adjacent to a Terrain tile"."""
        nb = self.board.neighbours
        coast = {n for cell in state.tile_at for n in nb[cell] if n not in state.tile_at}
        return [cell for cell in sorted(coast)
                if cell not in state.boat_at and not state.has_creature(cell, ("serpent",))]

    def legal_boat(self, state: State, player: str) -> list[dict[str, Any]]:
        spots = [self.label(c) for c in self.boat_spots(state)]
        return [{"boat": b, "at": s} for b in self.reserve_boats(state, player) for s in spots]

    def do_boat(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        self.expect(state, player, SETUP_BOAT)
        handle = handle_arg(action["boat"], "boat")
        if handle not in self.reserve_boats(state, player):
            mine = ", ".join(self.reserve_boats(state, player))
            raise IllegalAction(f"{handle} is not a ship you still have to place (yours: {mine})")
        cell = self.cell_arg(action["at"])
        if cell not in self.boat_spots(state):
            raise IllegalAction(f"{self.label(cell)} is not a free sea space next to a terrain tile")
        state.put_boat(handle, SEA, cell)
        events = [event({"event": "boat", "player": player, "boat": handle, "at": self.label(cell)})]
        nxt = self.next_with(state, player, lambda p: bool(self.reserve_boats(state, p)))
        if nxt is not None:
            state.turn.player = nxt
        else:
            self.start_play(state, events)
        return events


def _canonical(pieces: dict) -> dict:
    """Pieces in handle order (the order positions are read back in)."""
    return {h: pieces[h] for h in sort_handles(pieces)}
