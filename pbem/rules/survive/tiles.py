"""Step 3 "Remove a Terrain Tile", the shared tile rules, and playing tiles from the hand.

The tile kinds are removed in the data's order (``terrains``), each tile "adjacent to at
least one sea space", a tile surrounded by later kinds last of its kind.  A tile back
names its rule with ``rule:`` in the tiles data (default: the back's own name); the rules
shared by the Survive games are here:

* ``place-creature`` (``creature: KIND``, ``removes_swimmers: true`` for sharks): the next
  creature of that kind from the supply comes up in the tile's space;
* ``place-ship``: the next ship from the supply, the swimmers there board it;
* ``clear-area``: the space and the sea spaces next to it are cleared (a whirlpool);
* ``end-game``: the game ends (the volcano);
* ``move-to-empty-space`` (a hand tile, ``creature: KIND``): a creature on the board
  moves to any vacant sea space.

A game adds its own rules to :meth:`TileRules.tile_effect_table` (played at once) and
:meth:`TileRules.hand_tile_table` (kept in hand).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping

from pbem.core.position_fields import fail
from pbem.game import NEEDS_CHANCE, IllegalAction, Rng
from pbem.rules.survive.actions import handle_arg, handle_list, is_none
from pbem.rules.survive.base import (
    ActionHandler,
    Decider,
    Events,
    HandTile,
    OutcomeTest,
    StateT,
    StepStarter,
    TileEffect,
    event,
)
from pbem.rules.survive.creatures import CreatureRules
from pbem.rules.survive.state import (
    BOAT,
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
    Tile,
)


class TileRules(CreatureRules[StateT]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: the playable hexes (not the safe isles)
        self.playable_cells = frozenset(range(self.board.playable_count))

    # --- 3. which tiles may be removed ----------------------------------------
    def not_sea_for_removal(self, state: StateT) -> set[int]:
        """The spaces that are not "a sea space (even if it's a space which previously had a
        Terrain tile)" when choosing a tile to remove: the land, and the central (enclosed) space
        unless :meth:`central_counts_as_sea`.  A game that reads "a sea space" otherwise gives
        its own set."""
        not_sea = set(state.tile_at)
        if not self.central_counts_as_sea(state):
            not_sea.add(self.board.central)
        return not_sea

    def central_counts_as_sea(self, state: StateT) -> bool:
        """Does the enclosed space in the middle count as a sea space when choosing which tile
        to remove?  Default: yes (Atlantis makes it the ``lagoon`` option)."""
        return True

    def removable_tiles(self, state: StateT) -> list[str]:
        """"all of the Beach tiles must be removed first, followed by the Forest tiles, and
        finally the Mountain tiles"; the tile must be "adjacent to at least one sea space";
        "If a Beach tile is completely surrounded by Forest and/or Mountain tiles, remove it
        as the last Beach tile (even if not adjacent to a sea space)"."""
        tiles = state.tiles      # (the island's tiles are the index's, in handle order: :attr:`State.tile_at`)
        island = [tiles[h] for h in state.tile_at.values()]
        for terrain in self.terrains:
            group = [t for t in island if t.terrain == terrain]
            if group:
                break
        else:
            return []
        not_sea, near = self.not_sea_for_removal(state), self.board.neighbour_sets
        coastal = [t.handle for t in group if not near[t.cell] <= not_sea]
        return coastal or [t.handle for t in group]

    def legal_remove(self, state: StateT, player: str) -> list[dict[str, Any]]:
        return [{"remove": self.label(state.tiles[h].cell)} for h in self.removable_tiles(state)]

    def tile_arg(self, state: StateT, value: Any) -> Tile:
        """A tile named by its space (G5) or handle (T12)."""
        if isinstance(value, str) and value in state.tiles:
            return state.tiles[value]
        cell = self.cell_arg(value, "remove")
        handle = state.tile_at.get(cell)
        if handle is None:
            raise IllegalAction(f"there is no {self.word('terrain tile')} at {self.label(cell)}")
        return state.tiles[handle]

    def do_remove(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_REMOVE)
        tile = self.tile_arg(state, action["remove"])
        if tile.where != ISLAND:
            raise IllegalAction(f"tile {tile.handle} is no longer on the {self.word('island')}")
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

    def why_not_removable(self, state: StateT, tile: Tile) -> str:
        left = {t.terrain for t in state.tiles.values() if t.where == ISLAND}
        first = next(t for t in self.terrains if t in left)
        if tile.terrain != first:
            return f"{self.label(tile.cell)} is {tile.terrain}: all {first} tiles go first"
        return f"{self.label(tile.cell)} is not next to {self.word('a sea space')}"

    def boarders_arg(self, value: Any, fallen: list[str]) -> list[str] | None:
        """The written-ahead ``board:`` list: explorers from the tile, at most a shipful."""
        if value is None:
            return None
        chosen = handle_list(value, "board", self.word("explorer"))
        cap = self.comp["boats"]["capacity"]
        if len(chosen) > cap:
            raise IllegalAction(f"board: at most {cap} {self.word('explorers')} fit in a ship")
        for h in chosen:
            if h not in fallen:
                raise IllegalAction(f"board: {h} is not on the tile being removed")
        return chosen

    def removal_rolls_die(self, state: StateT, back: str, fallen: list[str], boarders: list[str] | None) -> bool:
        """Whether step 4 follows at once (not after a volcano, nor when boarders must be chosen)."""
        if self.back_ends_game(state, back):
            return False
        cap = self.comp["boats"]["capacity"]
        if self.back_rule(back) == "place-ship" and len(fallen) > cap and (boarders is None or len(boarders) != cap):
            return not self.supply(state, "boat")
        return True

    def back_ends_game(self, state: StateT, back: str) -> bool:
        return self.back_rule(back) == "end-game"

    # --- can a game go on from a position ------------------------------------------
    def check_playable(self, state: StateT) -> None:
        super().check_playable(state)
        missing = self.why_the_end_cannot_come(state)
        if missing:
            fail("tiles", missing)

    def why_the_end_cannot_come(self, state: StateT) -> str:
        """``''`` when the game's end can still come from ``state`` (not over); otherwise what is
        missing and what to add.  Core: the game ends when a tile whose back ends it (the volcano:
        :meth:`back_ends_game`) is turned up, so one must still be on the island; without it
        the turns go on for ever.  A layer with another end says when that end can come."""
        enders = [b for b in self.tile_backs if self.back_ends_game(state, b)]
        if not enders or any(t.where == ISLAND and t.back in enders for t in state.tiles.values()):
            return ""
        kinds = [f"a {t} tile with back: {b}" for b in enders for t in self.terrains if self.tile_backs[b][t]]
        names = " or ".join(b.replace("_", " ") for b in enders)
        island = self.word("island")
        return (f"no {names} tile is left on the {island}, and the game ends only when one is turned up: "
                f"add one to the {island} ({' or '.join(kinds)})")

    # --- resolving the back -----------------------------------------------------
    def tile_kind(self, state: StateT, back: str) -> str:
        """How a back is played: immediate (green), hand or defense (red), as in tiles.yaml."""
        return self.back_kind[back]

    def resolve_back(self, state: StateT, tile: Tile, player: str, events: Events, boarders: list[str] | None) -> None:
        back = self.known_back(state, tile.handle)
        kind = self.tile_kind(state, back)
        if kind == "immediate":
            # "immediately reveal the tile to the other players, perform the actions ... and then
            # remove the Terrain tile from the game."
            tile.where = USED
            events.append(event({"event": "reveal", "player": player, "tile": tile.handle, "back": back},
                                chance=True))
            self.tile_effects[back](state, tile, player, events, boarders)
        else:
            self.take_into_hand(state, tile, player, events)

    def take_into_hand(self, state: StateT, tile: Tile, player: str, events: Events) -> None:
        """"place the tile face down in front of you (in your "hand" of tiles)"."""
        state.take_into_hand(tile.handle, player)
        events.append(event({"event": "to-hand", "player": player, "tile": tile.handle},
                            private={player: {"event": "to-hand", "player": player, "tile": tile.handle,
                                              "back": tile.back}},
                            chance=True))

    def supply(self, state: StateT, kind: str) -> list[str]:
        """Tokens "set aside" that may still come into play, in handle order."""
        if kind == "boat":
            return [b.handle for b in state.boats.values() if b.where == SUPPLY]
        return [c.handle for c in state.creatures.values() if c.kind == kind and c.where == SUPPLY]

    def take_from_supply(self, state: StateT, kind: str, events: Events) -> str | None:
        """The next token of ``kind``; when none is left the tile does nothing (logged)."""
        left = self.supply(state, kind)
        if not left:
            events.append(event({"event": "supply-empty", "kind": kind}))
            return None
        return left[0]

    def tile_creature(self, tile: Tile) -> str:
        """The creature kind a tile's rule names (its ``creature:`` in the tiles data)."""
        return str(self.tile_backs[tile.back or ""]["creature"])

    def effect_place_creature(self, state: StateT, tile: Tile, player: str, events: Events,
                              boarders: list[str] | None) -> None:
        """"place it on the sea space ... Any Swimmer on that sea space is removed from the game"
        (the swimmers only with ``removes_swimmers: true``)."""
        kind = self.tile_creature(tile)
        handle = self.take_from_supply(state, kind, events)
        if handle is None:
            return
        state.put_creature(handle, SEA, tile.cell)
        events.append(event({"event": "appear", "piece": handle, "at": self.label(tile.cell)}))
        if self.tile_backs[tile.back or ""].get("removes_swimmers"):
            self.lose_explorers(state, list(state.swimmers(tile.cell)), tile.cell, events,
                                cause=f"{self.cause_name(kind)} {handle}")

    def effect_place_ship(self, state: StateT, tile: Tile, player: str, events: Events,
                          boarders: list[str] | None) -> None:
        """"If that sea space contained one or more Swimmers, place them on board the Ship. If
        the sea space contained more than three Swimmers, it's the player who has revealed
        the Terrain tile who chooses which ones get on board"."""
        boat = self.take_from_supply(state, "boat", events)
        if boat is None:
            return
        events.append(event({"event": "appear", "piece": boat, "at": self.label(tile.cell)}))
        self.launch_ship(state, boat, tile, player, events, boarders)

    def launch_ship(self, state: StateT, boat: str, tile: Tile, player: str, events: Events,
                    boarders: list[str] | None) -> None:
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

    def board_ship(self, state: StateT, boat: str, handles: list[str], player: str, events: Events) -> None:
        for h in sorted(handles):
            state.put_explorer(h, BOAT, boat=boat)
        if handles:
            events.append(event({"event": "board", "player": player, "boat": boat, "explorers": sorted(handles)}))

    def effect_clear_area(self, state: StateT, tile: Tile, player: str, events: Events,
                          boarders: list[str] | None) -> None:
        """"remove from the game all Swimmers, Sea Serpents, Sharks, Whales, Ships and Explorers
        from the sea space the Terrain tile used to occupy, as well as from all adjacent sea spaces"."""
        cause = self.clear_area_cause()
        cells = [tile.cell] + [n for n in self.board.neighbours[tile.cell] if state.is_sea(n)]
        for cell in sorted(cells):
            gone = sorted(state.creatures_in(cell))
            for c in gone:
                state.put_creature(c, LOST)
            if gone:
                events.append(event({"event": "creatures-lost", "creatures": gone, "at": self.label(cell),
                                     "cause": cause}))
            boat = state.boat_at.get(cell)
            if boat is not None:
                self.lose_ship_and_crew(state, boat, events, cause=cause)
            self.lose_explorers(state, list(state.swimmers(cell)), cell, events, cause=cause)

    def clear_area_cause(self) -> str:
        """What the log names as the cause of a ``clear-area`` tile's losses.  Default: the
        whirlpool (Space Attack: the black hole)."""
        return "whirlpool"

    def effect_end_game(self, state: StateT, tile: Tile, player: str, events: Events,
                        boarders: list[str] | None) -> None:
        """"a volcanic eruption destroys what remains of the island as well as any Explorers
        who haven't reached safe isles. The game ends"."""
        self.end_game(state, events, "volcano")

    # --- choosing boarders (a boat tile next to more than three swimmers) ---------------
    def legal_board(self, state: StateT, player: str) -> list[dict[str, Any]]:
        b = state.open_boarding()
        swimmers = sorted(state.swimmers(b.cell))
        cap = self.capacity(state, b.boat)
        return [{"board": list(c)} for c in combinations(swimmers, cap)]

    def do_board(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_BOARDERS)
        b = state.open_boarding()
        swimmers = state.swimmers(b.cell)
        chosen = handle_list(action["board"], "board", self.word("explorer"))
        cap = self.capacity(state, b.boat)
        if len(chosen) != cap:
            raise IllegalAction(f"choose exactly {cap} of the {self.word('swimmers')} at {self.label(b.cell)}")
        for h in chosen:
            if h not in swimmers:
                raise IllegalAction(f"{h} is not {self.word('swimming')} at {self.label(b.cell)}")
        die = self.roll_die(state, rng)
        events: Events = []
        self.board_ship(state, b.boat, chosen, player, events)
        state.boarding = None
        self.advance(state, rng, events, STEP_REMOVE, die)
        return events

    # --- 1. playing a tile from the hand ------------------------------------------------
    def playable_now(self, state: StateT, player: str) -> list[str]:
        """Hand tiles "obtained during a previous round" (kinds not yet checked)."""
        number = state.turn.number
        return [h for h in self.hand(state, player) if (state.tiles[h].obtained or 0) < number]

    def legal_play_tile(self, state: StateT, player: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"play": "none"}]
        for h in self.playable_now(state, player):
            back = self.known_back(state, h)
            if self.back_kind[back] == "hand":
                out.extend({"play": h, **params} for params in self.hand_tiles[back].options(state, player, back))
        return out

    def do_play(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        if (is_none(action["play"]) and self.current_step(state) in (STEP_MOVE, STEP_REMOVE)
                and self.decider(state) == player and state.turn.moves == 0 and not state.turn.tile_played):
            return []   # harmless: there was no tile to play this turn
        self.expect(state, player, STEP_TILE)
        events: Events = []
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
        mark = len(events)
        self.hand_tiles[back].play(state, player, back, action, events)
        # "Once a tile is played in this manner, remove it from the game."
        state.use_tile(handle)
        state.turn.tile_played = True
        events.insert(mark, event({"event": "play", "player": player, "tile": handle, "back": back}, chance=True))
        return self.wait_or_advance(state, rng, events, STEP_TILE)

    def only_keys(self, action: Mapping[str, Any], *keys: str) -> None:
        extra = sorted(set(action) - {"play", "to", "path", *keys})
        if extra:
            raise IllegalAction(f"this tile does not take {extra[0]!r}")

    # "Move the Sea Serpent / Shark / Whale of your choice (already present on the game
    # board) to any vacant sea space of your choice."
    def vacant(self, state: StateT, cell: int) -> bool:
        """A sea space with no ship, no swimmer and no creature (:meth:`vacant_labels` reads the
        same rule from the indexes, for every space at once)."""
        return (not self.board.is_isle(cell) and state.is_sea(cell) and cell not in state.boat_at
                and not state.swimmers(cell) and not state.creatures_in(cell))

    def vacant_labels(self, state: StateT) -> list[str]:
        """The vacant sea spaces (:meth:`vacant`), by label, in cell order."""
        labels = self.board.labels
        return [labels[c] for c in self.vacant_cells(state)]

    def vacant_cells(self, state: StateT) -> list[int]:
        """The vacant sea spaces (:meth:`vacant`), in cell order, read from the state's indexes."""
        # (the indexes hold only the cells with something there: an emptied cell is dropped)
        occupied = state.tile_at.keys() | state.boat_at.keys() | state.sea_at.keys() | state.creatures_at.keys()
        return sorted(self.playable_cells - occupied)

    def relocation_options(self, state: StateT, kind: str) -> list[dict[str, Any]]:
        spots = self.vacant_labels(state)
        return [{"creature": c.handle, "to": s} for c in state.creatures.values()
                if c.kind == kind and c.where == SEA for s in spots]

    def relocate(self, state: StateT, player: str, action: Mapping[str, Any], events: Events, kind: str) -> None:
        self.only_keys(action, "creature")
        handle = handle_arg(action.get("creature"), "creature")
        c = state.creatures.get(handle)
        if c is None or c.kind != kind or c.where != SEA:
            raise IllegalAction(f"this tile moves a {kind} on the board; {handle} is not one")
        if "path" in action:
            raise IllegalAction("this tile moves the creature straight to a space: write to: SPACE")
        cell = self.cell_arg(action.get("to"), "to")
        if not self.vacant(state, cell):
            raise IllegalAction(f"{self.label(cell)} is not a vacant {self.word('sea space')}")
        frm = c.cell
        state.put_creature(handle, SEA, cell)
        events.append(event({"event": "creature", "player": player, "creature": handle, "kind": kind, "how": "tile",
                             "from": self.label(frm), "to": self.label(cell)}))

    def options_move_creature(self, state: StateT, player: str, back: str) -> list[dict[str, Any]]:
        return self.relocation_options(state, str(self.tile_backs[back]["creature"]))

    def play_move_creature(self, state: StateT, player: str, back: str, action: Mapping[str, Any],
                           events: Events) -> None:
        self.relocate(state, player, action, events, str(self.tile_backs[back]["creature"]))

    # --- the tables ------------------------------------------------------------------------
    def tile_effect_table(self) -> dict[str, TileEffect[StateT]]:
        return {**super().tile_effect_table(), "place-creature": self.effect_place_creature,
                "place-ship": self.effect_place_ship, "clear-area": self.effect_clear_area,
                "end-game": self.effect_end_game}

    def hand_tile_table(self) -> dict[str, HandTile[StateT]]:
        return {**super().hand_tile_table(),
                "move-to-empty-space": HandTile(self.options_move_creature, self.play_move_creature)}

    def action_table(self) -> dict[str, ActionHandler[StateT]]:
        table: dict[str, ActionHandler[StateT]] = {**super().action_table(), "remove": self.do_remove,
                                                   "board": self.do_board}
        if self.hand_tiles:
            table["play"] = self.do_play
        return table

    def outcome_table(self) -> dict[str, OutcomeTest[StateT]]:
        return {**super().outcome_table(), "remove": self.removal_outcome, "play": self.play_outcome}

    def removal_outcome(self, state: StateT, player: str, action: Mapping[str, Any]) -> str:
        """:meth:`do_remove` reads the removed tile's back before anything changes: where it is
        hidden, the removal cannot take effect without it."""
        value = action.get("remove")
        if not isinstance(value, str):
            return ""
        handle = value if value in state.tiles else state.tile_at.get(self.board.index.get(value, -1))
        return NEEDS_CHANCE if handle is not None and state.tiles[handle].back is None else ""

    def play_outcome(self, state: StateT, player: str, action: Mapping[str, Any]) -> str:
        """Playing a tile from the hand shows its back to everyone (:meth:`do_play`, and Space
        Attack's: an event marked chance), whatever the tile does."""
        return "" if is_none(action.get("play")) else NEEDS_CHANCE

    def decider_table(self) -> dict[str, Decider[StateT]]:
        table = {**super().decider_table(), STEP_REMOVE: self.legal_remove, STEP_BOARDERS: self.legal_board}
        if self.hand_tiles:
            table[STEP_TILE] = self.legal_play_tile
        return table

    def step_table(self) -> dict[str, StepStarter[StateT]]:
        return {**super().step_table(), STEP_TILE: self.start_tile_step, STEP_REMOVE: self.start_remove_step}

    # --- 1. Play a Terrain tile from your "hand" ------------------------------
    def start_tile_step(self, state: StateT, rng: Rng | None, events: Events, die: str | None) -> bool:
        """"Once and once per turn only, you may play a Terrain tile you've obtained during a previous round."

        The step opens whenever the player holds any tile from an earlier turn,
        defense tiles included, so the public cannot tell what kind they hold.
        """
        number, tiles = state.turn.number, state.tiles
        for h in state.hands.get(state.turn.player, ()):
            if (tiles[h].obtained or 0) < number:
                return True
        return False

    # --- 3. Remove a Terrain Tile -------------------------------------------------
    def start_remove_step(self, state: StateT, rng: Rng | None, events: Events, die: str | None) -> bool:
        if any(t.where == ISLAND for t in state.tiles.values()):
            return True
        events.append(event({"event": "skip", "player": state.turn.player, "step": STEP_REMOVE,
                             "reason": self.logged("no ", "terrain tiles", " left")}))
        return False
