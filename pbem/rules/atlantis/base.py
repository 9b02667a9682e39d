"""Shared attributes and small helpers of the Atlantis rules mixins.

:class:`AtlantisGame` is assembled from one mixin per part of the rulebook
(setup, movement, tiles, creatures, defense, scoring, view).  They all read the
game data loaded once per game object (``self.board``, ``self.comp``,
``self.back_kind``) and call each other's small methods through ``self``, so a
variant subclass overrides exactly the rule step that differs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from pbem.data import game_data
from pbem.game import Action, Event, IllegalAction, NeedsSecret, OptionSpec, Rng
from pbem.rules.atlantis.board import Board
from pbem.rules.atlantis.state import HAND, ISLAND, OVER, PLAY, STEP_BOARDERS, STEP_DEFENSE, State

Path = list[int]


class RulesBase:
    board: Board
    comp: dict[str, Any]                 # components.yaml
    back_kind: dict[str, str]            # tile back -> immediate | hand | defense
    tile_backs: dict[str, dict[str, Any]]  # tiles.yaml backs: kind, count per terrain, text
    terrains: tuple[str, ...]            # removal order
    option_defaults: dict[str, str]
    data_game: str                       # folder under games/ with this game's YAML
    data_files: Mapping[str, str]        # data kind -> file name in that folder

    if TYPE_CHECKING:  # implemented by the other mixins / pbem.game.Game
        def option_specs(self) -> Sequence[OptionSpec]: ...
        def full_options(self, options: Mapping[str, str]) -> dict[str, str]: ...
        def legal_actions(self, state: State, player: str) -> list[Action]: ...
        def start_play(self, state: State, events: list) -> None: ...
        def advance(self, state: State, rng: Rng | None, events: list, after: str | None,
                    die: str | None = None) -> None: ...
        def end_game(self, state: State, events: list, reason: str) -> None: ...
        def roll_die(self, state: State, rng: Rng | None) -> str: ...
        def movement_points(self, state: State) -> int: ...
        def capacity(self, state: State, boat: str) -> int: ...
        def controllers(self, state: State, boat: str) -> list[str]: ...
        def movable_boats(self, state: State, player: str) -> list[str]: ...
        def ship_may_enter(self, state: State, boat: str, cell: int) -> bool: ...
        def ship_stops(self, state: State, boat: str, cell: int) -> bool: ...
        def sail(self, state: State, boat: str, cell: int, events: list) -> None: ...
        def capsize(self, state: State, boat: str, events: list, cause: str) -> None: ...
        def deadly_for_swimmers(self, state: State, cell: int) -> bool: ...
        def unprotected(self, state: State, swimmers: list[str]) -> list[str]: ...
        def lose_explorers(self, state: State, handles: list[str], cell: int | None, events: list,
                           cause: str) -> None: ...
        def lose_ship_and_crew(self, state: State, boat: str, events: list, cause: str) -> None: ...
        def removable_tiles(self, state: State) -> list[str]: ...
        def check_defense_knowledge(self, state: State, creature_kind: str, cell: int) -> None: ...
        def threaten(self, state: State, kind: str, creature: Any, cell: int, events: list) -> None: ...
        def remove_creature(self, state: State, handle: str) -> None: ...
        def colour_prefixes(self, n_players: int) -> dict[str, str]: ...

    # --- labels ---------------------------------------------------------
    def label(self, cell: int | None) -> str:
        """The label of a cell ("" for no cell)."""
        return "" if cell is None else self.board.labels[cell]

    def cell_arg(self, value: Any, what: str = "space") -> int:
        """A board label typed by a player -> cell index, or a one-line IllegalAction."""
        if isinstance(value, str) and value in self.board.index:
            return self.board.index[value]
        if isinstance(value, str) and value.upper() in self.board.index:
            return self.board.index[value.upper()]
        raise IllegalAction(f"{what} {value!r} is not a space on the board (spaces look like G6)")

    def path_arg(self, value: Any, what: str = "path") -> list[int]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise IllegalAction(f"{what} must be a list of spaces, e.g. [F4, F3]")
        return [self.cell_arg(v, what) for v in value]

    # --- whose decision ---------------------------------------------------
    def variant_prompt(self, state: State, kind: str) -> str:
        """A variant's prompt for decision ``kind`` ("" = the base prompt)."""
        return ""

    def current_step(self, state: State) -> str:
        """The decision kind the game waits for ("" when over)."""
        return state.turn.step if state.phase == PLAY else (state.phase if state.phase != OVER else "")

    def decider(self, state: State) -> str | None:
        if state.phase == OVER:
            return None
        if state.phase == PLAY and state.turn.step == STEP_DEFENSE and state.reaction is not None:
            return state.open_reaction().queue[0]
        return state.turn.player

    def waiting_decision(self, state: State) -> str | None:
        """The decision an effect has just opened in the middle of a turn step (a defense
        window, a boat choice, a variant's own), or None: the turn goes on."""
        if state.reaction is not None:
            return STEP_DEFENSE
        if state.boarding is not None:
            return STEP_BOARDERS
        return None

    def wait_or_advance(self, state: State, rng: Rng | None, events: list, after: str,
                        die: str | None = None) -> list:
        """End an action of step ``after``: wait for the decision its effects opened (see
        :meth:`waiting_decision`), else go on to the next decision.  Returns ``events``."""
        waiting = self.waiting_decision(state)
        if waiting:
            state.turn.step = waiting
        else:
            self.advance(state, rng, events, after, die)
        return events

    def expect(self, state: State, player: str, *steps: str) -> None:
        """Raise IllegalAction unless ``player`` is to decide one of ``steps`` now."""
        if state.phase == OVER:
            raise IllegalAction("the game is over")
        if player not in state.players:
            raise IllegalAction(f"{player!r} is not playing in this game")
        step, who = self.current_step(state), self.decider(state)
        if who != player:
            raise IllegalAction(f"it is not your decision: waiting for {who} ({step})")
        if step not in steps:
            raise IllegalAction(f"not now: the game waits for {step}, not {' or '.join(steps)}")

    # --- options ----------------------------------------------------------
    def option(self, state: State, name: str) -> str:
        value = state.options.get(name)
        return self.option_defaults[name] if value is None else str(value)

    def expansion_data(self, name: str) -> Mapping[str, Any]:
        """A mini-expansion's numbers: ``NAME.yaml`` in the game's data folder (a variant may
        point ``data_files[NAME]`` elsewhere)."""
        return game_data(self.data_game, self.data_files.get(name, f"{name}.yaml"))

    # --- hidden information -------------------------------------------------
    @staticmethod
    def known_back(state: State, tile: str) -> str:
        back = state.tiles[tile].back
        if back is None:
            raise NeedsSecret(f"the back of tile {tile} is hidden")
        return back

    def hand(self, state: State, player: str) -> list[str]:
        """Tile handles in ``player``'s hand, in handle order."""
        return [t.handle for t in state.tiles.values() if t.where == HAND and t.holder == player]

    # --- summaries ------------------------------------------------------------
    def tiles_left(self, state: State) -> str:
        """Island tiles left per terrain, for the summary: "beach 3, forest 5, mountain 2"."""
        left = {t: 0 for t in self.terrains}
        for t in state.tiles.values():
            if t.where == ISLAND:
                left[t.terrain] += 1
        return ", ".join(f"{k} {v}" for k, v in left.items())

    # --- sea walks ------------------------------------------------------------
    def reach(self, start: int, max_steps: int, enter_ok: Callable[[int], bool],
              stop_at: Callable[[int], bool]) -> dict[int, Path]:
        """Sea spaces reachable in 1..max_steps steps -> one shortest path (start excluded).

        ``enter_ok(cell)``: the piece may move into ``cell``; ``stop_at(cell)``: its
        movement ends when it enters ``cell`` (it may still end there).  The start
        space is reachable again by going out and back when ``max_steps >= 2``.
        """
        neighbours = self.board.neighbours
        paths: dict[int, Path] = {}
        frontier: list[tuple[int, Path]] = [(start, [])]
        for _ in range(max_steps):
            nxt: list[tuple[int, Path]] = []
            for cell, path in frontier:
                for n in neighbours[cell]:
                    if n in paths or not enter_ok(n):
                        continue
                    p = path + [n]
                    paths[n] = p
                    if not stop_at(n):
                        nxt.append((n, p))
            frontier = nxt
        return paths

    def check_path(self, start: int, path: Path, min_steps: int, max_steps: int,
                   enter_ok: Callable[[int], bool], stop_at: Callable[[int], bool], what: str) -> None:
        """Raise IllegalAction unless ``path`` is a legal walk from ``start``."""
        if not min_steps <= len(path) <= max_steps:
            raise IllegalAction(f"{what} moves {min_steps} to {max_steps} spaces, not {len(path)}")
        here = start
        for i, cell in enumerate(path):
            if cell not in self.board.neighbours[here]:
                raise IllegalAction(f"{what}: {self.label(cell)} is not next to {self.label(here)}")
            if not enter_ok(cell):
                raise IllegalAction(f"{what} cannot enter {self.label(cell)}")
            if i < len(path) - 1 and stop_at(cell):
                raise IllegalAction(f"{what} must stop at {self.label(cell)}")
            here = cell

    def walk_arg(self, action: Mapping[str, Any], start: int, max_steps: int,
                 enter_ok: Callable[[int], bool], stop_at: Callable[[int], bool], what: str,
                 allow_return: bool = True) -> Path:
        """The path of a ``to:``/``path:`` walk, checked; ``to:`` finds a shortest legal path."""
        if "path" in action and action["path"] is not None:
            path = self.path_arg(action["path"], what + " path")
            if "to" in action and action["to"] is not None and self.cell_arg(action["to"]) != path[-1]:
                raise IllegalAction(f"{what}: 'to' and the end of 'path' differ")
            self.check_path(start, path, 1, max_steps, enter_ok, stop_at, what)
        elif "to" in action and action["to"] is not None:
            dest = self.cell_arg(action["to"], what + " destination")
            found = self.reach(start, max_steps, enter_ok, stop_at).get(dest)
            if found is None:
                raise IllegalAction(f"{what} cannot reach {self.label(dest)} "
                                    f"(at most {max_steps} sea space{'s' if max_steps > 1 else ''})")
            path = found
        else:
            raise IllegalAction(f"{what}: say where, with to: SPACE or path: [SPACE, ...]")
        if not allow_return and path[-1] == start:
            raise IllegalAction(f"{what} must end away from where it starts")
        return path


def event(public: dict[str, Any], private: dict[str, dict[str, Any]] | None = None,
          chance: bool = False, auto: str = "") -> Event:
    return Event(public=public, private=private or {}, chance=chance, auto=auto)
