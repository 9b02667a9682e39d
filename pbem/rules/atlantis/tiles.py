"""Step 3 "Remove a Terrain Tile", the tile backs, and step 1 "Play a Terrain tile".

Each back has a method: ``effect_<back>`` for green (immediate) backs and
``play_<back>`` / ``options_<back>`` for red backs played from the hand.  A
variant that changes one tile overrides that one method (or the kind in its
own tiles.yaml).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping

from pbem.game import IllegalAction, Rng
from pbem.rules.atlantis.actions import handle_arg, handle_list, is_none
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.state import (
    BOAT,
    HAND,
    ISLAND,
    LOST,
    SEA,
    STEP_BOARDERS,
    STEP_MOVE,
    STEP_REMOVE,
    STEP_TILE,
    SUPPLY,
    USED,
    Boarding,
    State,
    Tile,
)


class TileRules(RulesBase):
    # --- 3. which tiles may be removed ----------------------------------------
    def counts_as_sea_for_removal(self, state: State, cell: int) -> bool:
        """"a sea space (even if it's a space which previously had a Terrain tile)".

        Option ``lagoon=land``: the central sea hex does not count."""
        if cell in state.tile_at:
            return False
        return cell != self.board.central or self.option(state, "lagoon") == "sea"

    def removable_tiles(self, state: State) -> list[str]:
        """"all of the Beach tiles must be removed first, followed by the Forest tiles, and
        finally the Mountain tiles"; the tile must be "adjacent to at least one sea space";
        "If a Beach tile is completely surrounded by Forest and/or Mountain tiles, remove it
        as the last Beach tile (even if not adjacent to a sea space)"."""
        island = [t for t in state.tiles.values() if t.where == ISLAND]
        for terrain in self.terrains:
            group = [t for t in island if t.terrain == terrain]
            if group:
                break
        else:
            return []
        nb = self.board.neighbours
        sea = self.counts_as_sea_for_removal
        coastal = [t.handle for t in group if any(sea(state, n) for n in nb[t.cell])]
        return coastal or [t.handle for t in group]

    def legal_remove(self, state: State, player: str) -> list[dict[str, Any]]:
        return [{"remove": self.label(state.tiles[h].cell)} for h in self.removable_tiles(state)]

    def tile_arg(self, state: State, value: Any) -> Tile:
        """A tile named by its space (G5) or handle (T12)."""
        if isinstance(value, str) and value in state.tiles:
            return state.tiles[value]
        cell = self.cell_arg(value, "remove")
        handle = state.tile_at.get(cell)
        if handle is None:
            raise IllegalAction(f"there is no terrain tile at {self.label(cell)}")
        return state.tiles[handle]

    def do_remove(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        self.expect(state, player, STEP_REMOVE)
        tile = self.tile_arg(state, action["remove"])
        if tile.where != ISLAND:
            raise IllegalAction(f"tile {tile.handle} is no longer on the island")
        if tile.handle not in self.removable_tiles(state):
            raise IllegalAction(self.why_not_removable(state, tile))
        fallen = sorted(state.on_land(tile.cell))
        boarders = self.boarders_arg(action.get("board"), fallen)
        back = self.known_back(state, tile.handle)
        die = self.roll_die(state, rng) if self.removal_rolls_die(state, back, fallen, boarders) else None
        # "Any Explorer on that tile is now on the sea space it previously occupied."
        state.lift_tile(tile.handle)
        for h in fallen:
            state.put_explorer(h, SEA, tile.cell)
        state.history["removed"] = state.history.get("removed", 0) + 1
        events = [event({"event": "remove", "player": player, "tile": tile.handle, "at": self.label(tile.cell),
                         "terrain": tile.terrain, "swimmers": fallen})]
        self.resolve_back(state, tile, player, events, boarders)
        return self.wait_or_advance(state, rng, events, STEP_REMOVE, die)

    def why_not_removable(self, state: State, tile: Tile) -> str:
        left = {t.terrain for t in state.tiles.values() if t.where == ISLAND}
        first = next(t for t in self.terrains if t in left)
        if tile.terrain != first:
            return f"{self.label(tile.cell)} is {tile.terrain}: all {first} tiles go first"
        return f"{self.label(tile.cell)} is not next to a sea space"

    def boarders_arg(self, value: Any, fallen: list[str]) -> list[str] | None:
        """The written-ahead ``board:`` list: explorers from the tile, at most a shipful."""
        if value is None:
            return None
        chosen = handle_list(value, "board")
        cap = self.comp["boats"]["capacity"]
        if len(chosen) > cap:
            raise IllegalAction(f"board: at most {cap} explorers fit in a ship")
        for h in chosen:
            if h not in fallen:
                raise IllegalAction(f"board: {h} is not on the tile being removed")
        return chosen

    def removal_rolls_die(self, state: State, back: str, fallen: list[str], boarders: list[str] | None) -> bool:
        """Whether step 4 follows at once (not after a volcano, nor when boarders must be chosen)."""
        if self.back_ends_game(state, back):
            return False
        cap = self.comp["boats"]["capacity"]
        if back == "boat" and len(fallen) > cap and (boarders is None or len(boarders) != cap):
            return not self.supply(state, "boat")
        return True

    def back_ends_game(self, state: State, back: str) -> bool:
        return back == "volcano"

    # --- resolving the back -----------------------------------------------------
    def tile_kind(self, state: State, back: str) -> str:
        """How a back is played: immediate (green), hand or defense (red), as in tiles.yaml."""
        return self.back_kind[back]

    def resolve_back(self, state: State, tile: Tile, player: str, events: list, boarders: list[str] | None) -> None:
        back = self.known_back(state, tile.handle)
        kind = self.tile_kind(state, back)
        if kind == "immediate":
            # "immediately reveal the tile to the other players, perform the actions ... and then
            # remove the Terrain tile from the game."
            tile.where = USED
            events.append(event({"event": "reveal", "player": player, "tile": tile.handle, "back": back},
                                chance=True))
            getattr(self, "effect_" + back)(state, tile, player, events, boarders)
        else:
            self.take_into_hand(state, tile, player, events)

    def take_into_hand(self, state: State, tile: Tile, player: str, events: list) -> None:
        """"place the tile face down in front of you (in your "hand" of tiles)"."""
        tile.where, tile.holder, tile.obtained = HAND, player, state.turn.number
        events.append(event({"event": "to-hand", "player": player, "tile": tile.handle},
                            private={player: {"event": "to-hand", "player": player, "tile": tile.handle,
                                              "back": tile.back}},
                            chance=True))

    def supply(self, state: State, kind: str) -> list[str]:
        """Tokens "set aside" that may still come into play, in handle order."""
        if kind == "boat":
            return [b.handle for b in state.boats.values() if b.where == SUPPLY]
        return [c.handle for c in state.creatures.values() if c.kind == kind and c.where == SUPPLY]

    def take_from_supply(self, state: State, kind: str, events: list) -> str | None:
        """The next token of ``kind``; when none is left the tile does nothing (logged)."""
        left = self.supply(state, kind)
        if not left:
            events.append(event({"event": "supply-empty", "kind": kind}))
            return None
        return left[0]

    def effect_shark(self, state: State, tile: Tile, player: str, events: list, boarders) -> None:
        """"place it on the sea space ... Any Swimmer on that sea space is removed from the game"."""
        shark = self.take_from_supply(state, "shark", events)
        if shark is None:
            return
        state.put_creature(shark, SEA, tile.cell)
        events.append(event({"event": "appear", "piece": shark, "at": self.label(tile.cell)}))
        self.lose_explorers(state, list(state.swimmers(tile.cell)), tile.cell, events, cause=f"shark {shark}")

    def effect_whale(self, state: State, tile: Tile, player: str, events: list, boarders) -> None:
        whale = self.take_from_supply(state, "whale", events)
        if whale is not None:
            state.put_creature(whale, SEA, tile.cell)
            events.append(event({"event": "appear", "piece": whale, "at": self.label(tile.cell)}))

    def effect_boat(self, state: State, tile: Tile, player: str, events: list, boarders) -> None:
        """"If that sea space contained one or more Swimmers, place them on board the Ship. If
        the sea space contained more than three Swimmers, it's the player who has revealed
        the Terrain tile who chooses which ones get on board"."""
        boat = self.take_from_supply(state, "boat", events)
        if boat is None:
            return
        events.append(event({"event": "appear", "piece": boat, "at": self.label(tile.cell)}))
        self.launch_ship(state, boat, tile, player, events, boarders)

    def launch_ship(self, state: State, boat: str, tile: Tile, player: str, events: list, boarders) -> None:
        """Put ``boat`` on the removed tile's space; the swimmers there board it (or a choice opens)."""
        state.put_boat(boat, SEA, tile.cell)
        swimmers = sorted(state.swimmers(tile.cell))
        cap = self.capacity(state, boat)
        if len(swimmers) <= cap:
            self.board_ship(state, boat, swimmers, player, events)
        elif boarders is not None and len(boarders) == cap:
            self.board_ship(state, boat, boarders, player, events)
        else:
            state.boarding = Boarding(tile.handle, boat, tile.cell)

    def board_ship(self, state: State, boat: str, handles: list[str], player: str, events: list) -> None:
        for h in sorted(handles):
            state.put_explorer(h, BOAT, boat=boat)
        if handles:
            events.append(event({"event": "board", "player": player, "boat": boat, "explorers": sorted(handles)}))

    def effect_whirlpool(self, state: State, tile: Tile, player: str, events: list, boarders) -> None:
        """"remove from the game all Swimmers, Sea Serpents, Sharks, Whales, Ships and Explorers
        from the sea space the Terrain tile used to occupy, as well as from all adjacent sea spaces"."""
        cells = [tile.cell] + [n for n in self.board.neighbours[tile.cell] if state.is_sea(n)]
        for cell in sorted(cells):
            gone = sorted(state.creatures_in(cell))
            for c in gone:
                state.put_creature(c, LOST)
            if gone:
                events.append(event({"event": "creatures-lost", "creatures": gone, "at": self.label(cell),
                                     "cause": "whirlpool"}))
            boat = state.boat_at.get(cell)
            if boat is not None:
                self.lose_ship_and_crew(state, boat, events, cause="whirlpool")
            self.lose_explorers(state, list(state.swimmers(cell)), cell, events, cause="whirlpool")

    def effect_volcano(self, state: State, tile: Tile, player: str, events: list, boarders) -> None:
        """"a volcanic eruption destroys what remains of the island as well as any Explorers
        who haven't reached safe isles. The game ends"."""
        self.end_game(state, events, "volcano")

    # --- choosing boarders (a boat tile next to more than three swimmers) ---------------
    def legal_board(self, state: State, player: str) -> list[dict[str, Any]]:
        b = state.open_boarding()
        swimmers = sorted(state.swimmers(b.cell))
        cap = self.capacity(state, b.boat)
        return [{"board": list(c)} for c in combinations(swimmers, cap)]

    def do_board(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        self.expect(state, player, STEP_BOARDERS)
        b = state.open_boarding()
        swimmers = state.swimmers(b.cell)
        chosen = handle_list(action["board"], "board")
        cap = self.capacity(state, b.boat)
        if len(chosen) != cap:
            raise IllegalAction(f"choose exactly {cap} of the swimmers at {self.label(b.cell)}")
        for h in chosen:
            if h not in swimmers:
                raise IllegalAction(f"{h} is not swimming at {self.label(b.cell)}")
        die = self.roll_die(state, rng)
        events: list = []
        self.board_ship(state, b.boat, chosen, player, events)
        state.boarding = None
        self.advance(state, rng, events, STEP_REMOVE, die)
        return events

    # --- 1. playing a tile from the hand ------------------------------------------------
    def playable_now(self, state: State, player: str) -> list[str]:
        """Hand tiles "obtained during a previous round" (kinds not yet checked)."""
        number = state.turn.number
        return [h for h in self.hand(state, player) if (state.tiles[h].obtained or 0) < number]

    def legal_play_tile(self, state: State, player: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"play": "none"}]
        for h in self.playable_now(state, player):
            back = self.known_back(state, h)
            if self.back_kind[back] == "hand":
                out.extend({"play": h, **params} for params in getattr(self, "options_" + back)(state, player))
        return out

    def do_play(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        if (is_none(action["play"]) and self.current_step(state) in (STEP_MOVE, STEP_REMOVE)
                and self.decider(state) == player and state.turn.moves == 0 and not state.turn.tile_played):
            return []   # harmless: there was no tile to play this turn
        self.expect(state, player, STEP_TILE)
        events: list = []
        if is_none(action["play"]):
            if set(action) - {"play"}:
                raise IllegalAction("{play: none} takes no other keys")
            events.append(event({"event": "no-play", "player": player}))
            self.advance(state, rng, events, STEP_TILE)
            return events
        handle = handle_arg(action["play"], "play")
        if handle not in self.playable_now(state, player):
            raise IllegalAction(f"{handle} is not a tile you may play now (only tiles taken in an earlier turn)")
        back = self.known_back(state, handle)
        if self.back_kind[back] != "hand":
            raise IllegalAction(f"{handle} cannot be played in step 1")
        tile = state.tiles[handle]
        mark = len(events)
        getattr(self, "play_" + back)(state, player, action, events)
        # "Once a tile is played in this manner, remove it from the game."
        tile.where, tile.holder = USED, None
        state.turn.tile_played = True
        events.insert(mark, event({"event": "play", "player": player, "tile": handle, "back": back}, chance=True))
        return self.wait_or_advance(state, rng, events, STEP_TILE)

    def only_keys(self, action: Mapping[str, Any], *keys: str) -> None:
        extra = sorted(set(action) - {"play", "to", "path", *keys})
        if extra:
            raise IllegalAction(f"this tile does not take {extra[0]!r}")

    # dolphin: "Move one of your Swimmers 1 to 3 sea spaces."
    def dolphin_walk(self, state: State):
        return state.is_sea, (lambda cell: self.deadly_for_swimmers(state, cell))

    def options_dolphin(self, state: State, player: str) -> list[dict[str, Any]]:
        enter, stop = self.dolphin_walk(state)
        out = []
        for e in state.explorers.values():
            if e.owner == player and e.where == SEA:
                for dest in sorted(self.reach(e.cell, self.comp["tile_moves"]["dolphin"], enter, stop)):
                    if dest != e.cell:
                        out.append({"swimmer": e.handle, "to": self.label(dest)})
        return out

    def play_dolphin(self, state: State, player: str, action: Mapping[str, Any], events: list) -> None:
        self.only_keys(action, "swimmer")
        handle = handle_arg(action.get("swimmer"), "swimmer")
        e = state.explorers.get(handle)
        if e is None or e.owner != player or e.where != SEA:
            raise IllegalAction(f"the dolphin helps one of your swimmers; {handle} is not one")
        enter, stop = self.dolphin_walk(state)
        path = self.walk_arg(action, e.cell, self.comp["tile_moves"]["dolphin"], enter, stop,
                             f"swimmer {handle}", allow_return=False)
        frm = e.cell
        state.put_explorer(handle, SEA, path[-1])
        events.append(event({"event": "move", "player": player, "explorer": handle, "how": "dolphin",
                             "from": self.label(frm), "to": self.label(path[-1])}))
        if self.deadly_for_swimmers(state, path[-1]):
            self.lose_explorers(state, [handle], path[-1], events, cause="swam into a sea creature")

    # wind: "Move a Ship you control 1 to 3 sea spaces."
    def wind_walk(self, state: State, boat: str):
        return ((lambda cell: self.ship_may_enter(state, boat, cell)),
                (lambda cell: self.ship_stops(state, boat, cell)))

    def options_wind(self, state: State, player: str) -> list[dict[str, Any]]:
        out = []
        for boat in self.movable_boats(state, player):
            enter, stop = self.wind_walk(state, boat)
            start = state.boats[boat].cell
            for dest in sorted(self.reach(start, self.comp["tile_moves"]["wind"], enter, stop)):
                if dest != start:
                    out.append({"boat": boat, "to": self.label(dest)})
        return out

    def play_wind(self, state: State, player: str, action: Mapping[str, Any], events: list) -> None:
        self.only_keys(action, "boat")
        boat = handle_arg(action.get("boat"), "boat")
        b = state.boats.get(boat)
        if b is None or b.where != SEA or player not in self.controllers(state, boat):
            raise IllegalAction(f"the wind moves a ship you control; {boat} is not one")
        enter, stop = self.wind_walk(state, boat)
        start = b.cell
        path = self.walk_arg(action, start, self.comp["tile_moves"]["wind"], enter, stop,
                             f"ship {boat}", allow_return=False)
        events.append(event({"event": "sail", "player": player, "boat": boat, "how": "wind",
                             "from": self.label(start), "to": self.label(path[-1])}))
        self.sail(state, boat, path[-1], events)

    # "Move the Sea Serpent / Shark / Whale of your choice (already present on the game
    # board) to any vacant sea space of your choice."
    def vacant(self, state: State, cell: int) -> bool:
        """A sea space with no ship, no swimmer and no creature."""
        return (not self.board.is_isle(cell) and state.is_sea(cell) and cell not in state.boat_at
                and not state.swimmers(cell) and not state.creatures_in(cell))

    def relocation_options(self, state: State, kind: str) -> list[dict[str, Any]]:
        spots = [self.label(c) for c in range(self.board.playable_count) if self.vacant(state, c)]
        return [{"creature": c.handle, "to": s} for c in state.creatures.values()
                if c.kind == kind and c.where == SEA for s in spots]

    def relocate(self, state: State, player: str, action: Mapping[str, Any], events: list, kind: str) -> None:
        self.only_keys(action, "creature")
        handle = handle_arg(action.get("creature"), "creature")
        c = state.creatures.get(handle)
        if c is None or c.kind != kind or c.where != SEA:
            raise IllegalAction(f"this tile moves a {kind} on the board; {handle} is not one")
        if "path" in action:
            raise IllegalAction("this tile moves the creature straight to a space: write to: SPACE")
        cell = self.cell_arg(action.get("to"), "to")
        if not self.vacant(state, cell):
            raise IllegalAction(f"{self.label(cell)} is not a vacant sea space")
        frm = c.cell
        state.put_creature(handle, SEA, cell)
        events.append(event({"event": "creature", "player": player, "creature": handle, "kind": kind, "how": "tile",
                             "from": self.label(frm), "to": self.label(cell)}))

    def options_move_serpent(self, state: State, player: str) -> list[dict[str, Any]]:
        return self.relocation_options(state, "serpent")

    def options_move_shark(self, state: State, player: str) -> list[dict[str, Any]]:
        return self.relocation_options(state, "shark")

    def options_move_whale(self, state: State, player: str) -> list[dict[str, Any]]:
        return self.relocation_options(state, "whale")

    def play_move_serpent(self, state: State, player: str, action: Mapping[str, Any], events: list) -> None:
        self.relocate(state, player, action, events, "serpent")

    def play_move_shark(self, state: State, player: str, action: Mapping[str, Any], events: list) -> None:
        self.relocate(state, player, action, events, "shark")

    def play_move_whale(self, state: State, player: str, action: Mapping[str, Any], events: list) -> None:
        self.relocate(state, player, action, events, "whale")
