"""Fighters, Laser Turrets, captures and the steal window: what Space Attack adds to the ships.

Fighters
    "For one point of movement, a Fighter can be moved any number of spaces in a straight line.
    It may pass through other Ships, but may not end in the same space. It may not enter a space
    containing a Station Tile. ... If a Fighter enters a space containing one or more Creatures,
    it must stop. If there is a Crew token on the Fighter, the controlling player removes all the
    Creatures in the space and places them in front of them."  A flight follows one of the six
    hex directions (:data:`DIRECTIONS`) and never leaves the grid.

Laser Turrets
    "Lasers shoot in a straight line from the Turret along a row of spaces, and captures all
    Creatures in the first space they hit, in the same manner as Fighters. Lasers may not be
    fired through Station tiles, but may be fired through (and do not effect) Ships and Drifters."
    A turret stands on each Reactor tile still on the station; it is named by that tile.

Captures and the steal window
    Captured creatures go in front of the capturer (``captured``), unless another player plays
    a steal tile: "When another player captures one or more Creatures with a single action you
    get them instead."  Every other player is considered in seat order after the active player,
    through their ``steal`` standing order (auto / never / ask), as the core's defence windows do.
"""
from __future__ import annotations

from typing import Sequence

from pbem.game import Event, OptionSpec
from pbem.rules.survive.base import Events, SurviveData, event
from pbem.rules.survive.state import ISLAND, SEA, at, sort_handles
from pbem.rules.spaceattack.data import STEAL
from pbem.rules.spaceattack.setup import REACTOR, SpaceAttackSetup
from pbem.rules.spaceattack.state import CAPTURED, SpaceAttackState, Steal

#: the six directions of a straight line on the board, as axial (q, r) steps
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

#: the decision a steal window waits for
STEP_STEAL = "steal"


class Craft(SpaceAttackSetup):
    def __init__(self, data: SurviveData, option_specs: Sequence[OptionSpec]) -> None:
        super().__init__(data, option_specs)
        board = self.board
        cell_at = {board.axial[c]: c for c in range(board.playable_count)}
        rays: list[tuple[tuple[int, ...], ...]] = []
        for cell in range(board.playable_count):
            q, r = board.axial[cell]
            lines = []
            for dq, dr in DIRECTIONS:
                line: list[int] = []
                step = 1
                while (q + step * dq, r + step * dr) in cell_at:
                    line.append(cell_at[(q + step * dq, r + step * dr)])
                    step += 1
                lines.append(tuple(line))
            rays.append(tuple(lines))
        #: cell -> the six straight lines leaving it, nearest space first, up to the grid's edge
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(rays)

    #: the turn model's ``fighters``, ``rays`` and ``turret_terrain``
    turn_model_covers = frozenset({"flights", "turrets", "shots"})

    # --- fighters ---------------------------------------------------------------------------
    def flights(self, state: SpaceAttackState, fighter: str) -> list[int]:
        """Where ``fighter`` may end one flight, in cell order."""
        out: list[int] = []
        tile_at, boat_at, creatures_at = state.tile_at, state.boat_at, state.creatures_at
        for ray in self.rays[at(state.boats[fighter].cell)]:
            for cell in ray:
                if cell in tile_at:
                    break                      # "It may not enter a space containing a Station Tile"
                if cell in creatures_at:       # (the index holds only the spaces with creatures)
                    if cell not in boat_at:
                        out.append(cell)       # "it must stop"
                    break
                if cell not in boat_at:        # "It may pass through other Ships, but may not end in the same space"
                    out.append(cell)
        out.sort()
        return out

    def flight_count(self, state: SpaceAttackState, fighter: str) -> int:
        """How many spaces :meth:`flights` lists, counted along the same lines without listing them."""
        count = 0
        tile_at, boat_at, creatures_at = state.tile_at, state.boat_at, state.creatures_at
        for ray in self.rays[at(state.boats[fighter].cell)]:
            for cell in ray:
                if cell in tile_at:
                    break
                if cell not in boat_at:
                    count += 1
                if cell in creatures_at:
                    break
        return count

    def flight_captures(self, state: SpaceAttackState, fighter: str, cell: int) -> bool:
        """Does a flight of ``fighter`` ending at ``cell`` capture?  Only a crewed one, on creatures."""
        return bool(state.boats[fighter].passengers) and bool(state.creatures_in(cell))

    def fly(self, state: SpaceAttackState, player: str, fighter: str, cell: int, events: Events,
            captor: str, how: str = "") -> None:
        """Fly ``fighter`` (already checked) to ``cell``; a crewed one captures what is there for ``captor``."""
        frm = state.boats[fighter].cell
        state.put_boat(fighter, SEA, cell)
        record = {"event": "fly", "player": player, "ship": fighter, "from": self.label(frm), "to": self.label(cell)}
        if how:
            record["how"] = how
        events.append(event(record))
        if self.flight_captures(state, fighter, cell):
            self.capture(state, captor, cell, events, f"fighter {fighter}")

    # --- laser turrets ----------------------------------------------------------------------------
    def turrets(self, state: SpaceAttackState) -> list[str]:
        """"Place one Laser Turret on each of the Reactor tiles": the Reactors still on the station."""
        return [t.handle for t in state.tiles.values() if t.terrain == REACTOR and t.where == ISLAND]

    def shots(self, state: SpaceAttackState, turret: str) -> list[int]:
        """The spaces a shot from ``turret`` can hit: on each line, the first space with creatures
        before a station tile or the edge.  "Missing on purpose would only throw a point away":
        a line that hits nothing is no shot."""
        out: list[int] = []
        tile_at, creatures_at = state.tile_at, state.creatures_at
        for ray in self.rays[state.tiles[turret].cell]:
            for cell in ray:
                if cell in tile_at:
                    break
                if cell in creatures_at:       # (the index holds only the spaces with creatures)
                    out.append(cell)
                    break
        out.sort()
        return out

    def fire(self, state: SpaceAttackState, player: str, turret: str, cell: int, events: Events,
             how: str = "") -> None:
        """Fire ``turret`` (already checked) at ``cell``: its creatures are captured."""
        record = {"event": "fire", "player": player, "turret": turret, "from": self.label(state.tiles[turret].cell),
                  "at": self.label(cell)}
        if how:
            record["how"] = how
        events.append(event(record))
        self.capture(state, player, cell, events, f"turret {turret}")

    # --- captures and the steal window ---------------------------------------------------------------
    def steal_candidates(self, state: SpaceAttackState) -> list[str]:
        """Who may steal a capture: every player but the active one, in seat order after them."""
        return state.players_from(state.turn.player)

    def capture(self, state: SpaceAttackState, captor: str, cell: int, events: Events, how: str) -> None:
        """All creatures at ``cell`` are captured by ``captor``; the steal window opens."""
        creatures = sort_handles(state.creatures_in(cell))
        for h in creatures:
            state.put_creature(h, CAPTURED)
        note = event({"event": "capture", "player": captor, "creatures": creatures, "at": self.label(cell),
                      "how": how})
        events.append(note)
        state.steal = Steal(creatures, captor, [p for p in self.steal_candidates(state) if p != captor])
        self.run_steal(state, events, note)

    def steal_tiles(self, state: SpaceAttackState, player: str) -> list[str]:
        return [h for h in self.hand(state, player) if self.back_kind[self.known_back(state, h)] == STEAL]

    def run_steal(self, state: SpaceAttackState, events: Events, note: Event | None = None) -> None:
        """Ask the waiting players in turn (standing order ``steal``); stop at an ``ask``; when
        nobody steals, the creatures go in front of the capturer.  A ``never`` is noted only in
        that player's private part of the capture event."""
        s = state.open_steal()
        while s.queue:
            player = s.queue[0]
            tiles = self.steal_tiles(state, player)
            if not tiles:
                s.queue.pop(0)
                continue
            back = self.known_back(state, tiles[0])
            order = self.standing_order(state, player, back)
            if order == "auto":
                self.play_steal(state, player, tiles[0], events, auto="standing order steal: auto")
                return
            if order == "never":
                if note is not None:
                    note.private[player] = {"event": "no-steal", "player": player, "tile": tiles[0],
                                            "reason": "standing order steal: never"}
                s.queue.pop(0)
                continue
            return  # ask: wait for {steal: ...}
        state.steal = None
        mine = state.captured_by(s.capturer)
        mine[:] = sort_handles([*mine, *s.creatures])

    def play_steal(self, state: SpaceAttackState, player: str, tile: str, events: Events, auto: str = "") -> None:
        s = state.open_steal()
        t = state.tiles[tile]
        state.use_tile(tile)
        state.steal = None
        mine = state.captured_by(player)
        mine[:] = sort_handles([*mine, *s.creatures])
        events.append(event({"event": "steal", "player": player, "tile": tile, "back": t.back, "from": s.capturer,
                             "creatures": list(s.creatures)}, chance=True, auto=auto))

    def close_open_records(self, state: SpaceAttackState) -> None:
        """The game ends: a steal window still open leaves the capture with the capturer."""
        if state.steal is not None:
            mine = state.captured_by(state.steal.capturer)
            mine[:] = sort_handles([*mine, *state.steal.creatures])
            state.steal = None
        state.resume = ""
        super().close_open_records(state)

    def standing_order(self, state: SpaceAttackState, player: str, kind: str) -> str:
        """The order for a yellow tile ``kind`` (a back): its standing order's name (tiles.yaml)."""
        return super().standing_order(state, player, self.standing_of.get(kind, kind))

    def others_must_be_known(self, state: SpaceAttackState) -> None:
        """Raise NeedsSecret (before anything changes) when a steal window would depend on other
        players' hidden tiles or standing orders."""
        self.require_knowledge(state, self.steal_candidates(state))
