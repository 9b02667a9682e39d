"""MOVE PHASE.

"You may move up to a number of stacks equal to your Races Strategic level.
This includes partial stacks if you are breaking up a larger stack.  A stack may
be moved up to a number of spaces equal to your Races Move trait.  You may move
your stacks into (but not through) spaces occupied by enemy stacks.  2 or more
of your stacks in the same space at the end of the phase will automatically
combine to form 1 stack.  As a Stack Moves, it may pick up or drop off Fleet
counters (same player's) in the spaces it moves into/through.  On a turn, a
given Fleet counter may not move a total number of spaces greater than that
controlling player's move trait."

A move is ``{move: C4, path: [D4, E5], fleets: 2, pick: {D4: 1}, drop: {E5: 1}}``:
``fleets`` leave C4 (default: all of them) along ``path``; ``pick`` and ``drop``
name spaces of the path before its end.  Fleets are counters, so the engine
keeps, per space, how far each fleet that moved this phase has gone: it takes
the freshest fleets and drops the most travelled, which is always the best
choice.  Stacks in one space are one stack (they combine).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from pbem.core.choices import LazyActions
from pbem.game import Event, IllegalAction
from pbem.rules.spaceswarm import terrain
from pbem.rules.spaceswarm.attributes import current
from pbem.rules.spaceswarm.hexmap import HexMap
from pbem.rules.spaceswarm.state import SwarmState

MOVE_KEYS = {"move", "path", "fleets", "pick", "drop"}


@dataclass
class MovePlan:
    start: int
    path: list[int]
    fleets: int
    picks: dict[int, int]
    drops: dict[int, int]


# --- fleets and how far they have gone ---------------------------------------------
def spent(state: SwarmState, player: str, cell: int) -> list[int]:
    """Spaces moved this phase by each of ``player``'s fleets in ``cell``, freshest first."""
    moved = sorted(state.moved[player].get(cell, []))
    return [0] * (state.fleets_at(player, cell) - len(moved)) + moved


def take_fleets(state: SwarmState, player: str, cell: int, count: int) -> list[int]:
    """Remove the ``count`` freshest fleets from ``cell``; return how far each has gone."""
    taken = spent(state, player, cell)[:count]
    left = state.moved[player].get(cell, [])
    for used in taken:
        if used:
            left.remove(used)
    if not left:
        state.moved[player].pop(cell, None)
    state.add_fleets(player, cell, -count)
    return taken


def put_fleets(state: SwarmState, player: str, cell: int, used: list[int]) -> None:
    state.add_fleets(player, cell, len(used))
    moved = sorted(state.moved[player].get(cell, []) + [u for u in used if u])
    if moved:
        state.moved[player][cell] = moved


def movement(state: SwarmState, player: str) -> int:
    return current(state, player, "movement")


def stacks_left(state: SwarmState, player: str) -> int:
    """How many more stacks may move this phase (Strategic level minus stacks moved)."""
    return current(state, player, "strategy") - state.stack_moves


# --- checking a move ------------------------------------------------------------------
def _cell(state: SwarmState, label: Any, what: str) -> int:
    try:
        return state.hexmap.index(label)
    except ValueError as exc:
        raise IllegalAction(f"{what}: {exc}") from None


def _counts(state: SwarmState, value: Any, what: str) -> dict[int, int]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise IllegalAction(f"{what}: write spaces and numbers of fleets, e.g. {{{what}: {{D4: 1}}}}")
    out: dict[int, int] = {}
    for label, n in value.items():
        cell = _cell(state, label, what)
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise IllegalAction(f"{what}: {label}: {n!r} is not a number of fleets (1 or more)")
        out[cell] = n
    return out


def check_move(state: SwarmState, player: str, action: Mapping[str, Any]) -> MovePlan:
    """Every rule of the Move Phase, checked before anything changes."""
    unknown = set(action) - MOVE_KEYS
    if unknown:
        raise IllegalAction(f"move: unknown key {sorted(unknown)[0]!r}; a move looks like "
                            "{move: C4, path: [D4, E5], fleets: 2, pick: {D4: 1}, drop: {D4: 1}}")
    hexmap = state.hexmap
    start = _cell(state, action["move"], "move")
    here = state.fleets_at(player, start)
    if here == 0:
        raise IllegalAction(f"move: you have no fleets at {hexmap.label(start)}")
    if stacks_left(state, player) <= 0:
        raise IllegalAction(f"you have already moved {state.stack_moves} stack(s), your Strategic level; "
                            "end the Move Phase with {done: move}")
    raw_path = action.get("path")
    if not isinstance(raw_path, list) or not raw_path:
        raise IllegalAction("move: path must list the spaces the stack moves into, in order, e.g. path: [D4, E5]")
    path = [_cell(state, label, "path") for label in raw_path]
    count = action.get("fleets", here)
    if count == "all":
        count = here
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= here:
        raise IllegalAction(f"move: fleets must be 1-{here} (you have {here} at {hexmap.label(start)})")
    picks = _counts(state, action.get("pick"), "pick")
    drops = _counts(state, action.get("drop"), "drop")
    _check_path(state, player, start, path)
    for cell in list(picks) + list(drops):
        if cell not in path[:-1]:
            raise IllegalAction(f"pick/drop: {hexmap.label(cell)} is not a space the stack moves through "
                                f"(the path before its end {hexmap.label(path[-1])})")
    plan = MovePlan(start, path, count, picks, drops)
    _check_fleets(state, player, plan)
    return plan


def _check_path(state: SwarmState, player: str, start: int, path: list[int]) -> None:
    hexmap = state.hexmap
    labels, links = hexmap.labels, terrain.link_table(hexmap)
    seen = {start}
    prev = start
    for i, cell in enumerate(path):
        if cell in seen:
            raise IllegalAction(f"path: {labels[cell]} comes twice (with the start); a path visits each space once")
        seen.add(cell)
        if cell not in links[prev]:
            raise IllegalAction(f"path: {labels[cell]} is not next to {labels[prev]} (nor a Worm Hole linked to it)")
        if not terrain.may_enter(hexmap, cell):
            raise IllegalAction(f"path: {labels[cell]} is a Super Nova: stacks may not enter or move through it")
        if i < len(path) - 1:
            if terrain.must_stop(hexmap, cell):
                raise IllegalAction(f"path: {labels[cell]} is a Black Hole: a stack entering it must stop there")
            if state.enemies_at(player, cell) and not terrain.enemies_passable(hexmap, cell):
                raise IllegalAction(f"path: enemy stacks at {labels[cell]}: you may move into (but not through) "
                                    "them, except in Dark Matter")
        prev = cell


def _check_fleets(state: SwarmState, player: str, plan: MovePlan) -> None:
    """No fleet moves more spaces than the Movement trait; picks and drops add up."""
    hexmap = state.hexmap
    limit = movement(state, player)
    group = spent(state, player, plan.start)[:plan.fleets]
    for step, cell in enumerate(plan.path, 1):
        group = [u + 1 for u in group]
        if max(group) > limit:
            raise IllegalAction(f"move: a fleet would move more than your Movement of {limit} this turn "
                                f"(reaching {hexmap.label(cell)}, step {step}); move fewer spaces or fewer fleets")
        if cell in plan.drops:
            k = plan.drops[cell]
            if k >= len(group):
                raise IllegalAction(f"drop: {hexmap.label(cell)}: the stack has {len(group)} fleet(s) there and "
                                    "must keep at least one to move on")
            group = sorted(group)[:-k]
        if cell in plan.picks:
            k = plan.picks[cell]
            have = spent(state, player, cell)
            if k > len(have):
                raise IllegalAction(f"pick: you have {len(have)} fleet(s) at {hexmap.label(cell)}, not {k}")
            group = sorted(group + have[:k])
            remaining = len(plan.path) - step
            if max(group) + remaining > limit:
                raise IllegalAction(f"pick: fleets picked up at {hexmap.label(cell)} cannot move {remaining} more "
                                    f"space(s) within your Movement of {limit}")


# --- moving ------------------------------------------------------------------------------
def move_stack(state: SwarmState, player: str, plan: MovePlan) -> tuple[Event, list[int]]:
    """Move the fleets; returns the move event and the Alien Ruins entered first (in path order)."""
    hexmap = state.hexmap
    group = take_fleets(state, player, plan.start, plan.fleets)
    ruins: list[int] = []
    for cell in plan.path:
        group = sorted(u + 1 for u in group)
        if cell in plan.drops:
            k = plan.drops[cell]
            put_fleets(state, player, cell, group[-k:])
            group = group[:-k]
        if cell in plan.picks:
            group = sorted(group + take_fleets(state, player, cell, plan.picks[cell]))
        if terrain.is_alien_ruins(hexmap, cell) and cell not in state.visited:
            state.visited.append(cell)   # "First visitor here gets to draw 1 card"
            ruins.append(cell)
    end = plan.path[-1]
    put_fleets(state, player, end, group)
    state.stack_moves += 1
    public: dict[str, Any] = {"event": "move", "player": player, "from": hexmap.label(plan.start),
                              "path": [hexmap.label(c) for c in plan.path], "fleets": plan.fleets,
                              "arrive": len(group)}
    if plan.picks:
        public["pick"] = {hexmap.label(c): n for c, n in plan.picks.items()}
    if plan.drops:
        public["drop"] = {hexmap.label(c): n for c, n in plan.drops.items()}
    return Event(public), ruins


def end_of_move_phase(state: SwarmState, player: str) -> None:
    """ "2 or more of your stacks in the same space at the end of the phase will
    automatically combine to form 1 stack" (stacks in one space are counted as one),
    and the distances moved start again next turn."""
    state.moved[player] = {}


# --- listing moves for `pbem legal` and the bots --------------------------------------------
def destinations(state: SwarmState, player: str, start: int, budget: int) -> dict[int, list[int]]:
    """Every space a stack at ``start`` can reach within ``budget`` spaces, with one
    shortest path each (found breadth first, spaces in order)."""
    return _destinations(state.hexmap, _enemy_cells(state, player), start, budget)


def _enemy_cells(state: SwarmState, player: str) -> set[int]:
    """The spaces holding another player's stack (:meth:`SwarmState.enemies_at`, all at once)."""
    return {c for p in state.players if p != player for c, n in state.fleets[p].items() if n > 0}


def _destinations(hexmap: HexMap, enemies: set[int], start: int, budget: int) -> dict[int, list[int]]:
    links = terrain.link_table(hexmap)
    must_stop, passable, may_enter = terrain.must_stop, terrain.enemies_passable, terrain.may_enter
    paths: dict[int, list[int]] = {start: []}
    todo = deque([start])
    while todo:
        cell = todo.popleft()
        here = paths[cell]
        if len(here) >= budget:
            continue
        if cell != start and (must_stop(hexmap, cell) or (cell in enemies and not passable(hexmap, cell))):
            continue
        for nxt in links[cell]:
            if nxt not in paths and may_enter(hexmap, nxt):
                paths[nxt] = here + [nxt]
                todo.append(nxt)
    del paths[start]
    return paths


def simple_moves(state: SwarmState, player: str) -> list[dict[str, Any]]:
    """Whole stacks (and single fleets) to every reachable space by a shortest path."""
    return list(SimpleMoves(state.hexmap.labels, simple_steps(state, player)))


#: a move of :func:`simple_moves` before it is written as an action: (the stack's space, the
#: fleets moved or None for the whole stack, the path's spaces)
MoveStep = tuple[int, int | None, list[int]]


def simple_steps(state: SwarmState, player: str) -> list[MoveStep]:
    """:func:`simple_moves`, in its order, as (start, fleets or None, path) (:data:`MoveStep`)."""
    if stacks_left(state, player) <= 0:
        return []
    limit = movement(state, player)
    hexmap = state.hexmap
    enemies = _enemy_cells(state, player)
    out: list[MoveStep] = []
    for start in sorted(state.fleets[player]):
        used = spent(state, player, start)
        groups = [len(used)] + ([1] if len(used) > 1 else [])
        for count in groups:
            budget = limit - max(used[:count])
            fleets = None if count == len(used) else count
            for _end, path in sorted(_destinations(hexmap, enemies, start, budget).items()):
                out.append((start, fleets, path))
    return out


class SimpleMoves(LazyActions):
    """:func:`simple_moves` made one action at a time when read (the random bot takes one of a
    few dozen; the greedy bot scores the steps themselves: ``bot.preferences``)."""

    def __init__(self, labels: tuple[str, ...], steps: list[MoveStep]) -> None:
        self.labels, self.steps = labels, steps

    def __len__(self) -> int:
        return len(self.steps)

    def item(self, k: int) -> dict[str, Any]:
        start, fleets, path = self.steps[k]
        labels = self.labels
        action: dict[str, Any] = {"move": labels[start], "path": [labels[c] for c in path]}
        if fleets is not None:
            action["fleets"] = fleets
        return action

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self.item(k) for k in range(len(self.steps)))
