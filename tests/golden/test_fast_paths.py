"""The rules' fast forms agree with the plain rules they stand for, at every step of every golden game.

Speed work (issue 12) gives some rules a second, faster form: a creature's stop spaces worked
out as one set instead of asking ``stops`` space by space, a ship's closed spaces as a set, a
creature's destinations without their paths.  Each must equal what the plain rule says, in
every game and option combination the golden games cover, at every step.  (The movement step's
moves counted piece by piece before they are listed, ``Game.legal_choices``, and the greedy
bot's scores of those sequences are compared with the listed actions at the same steps of the
same games by test_bot_fast_forms.py, in every order of use, this file's "counted, scored, then
read" included: both files listed and scored every player's actions at every step.)
"""
from __future__ import annotations

from collections import deque
from typing import Any

import pytest
from golden_games import CONFIGS, Config, replay

from pbem.rules.survive.creatures import CreatureRules
from pbem.rules.survive.state import SEA

SURVIVE = [c for c in CONFIGS if c.game in ("atlantis", "atlantis-1986", "space-attack")]


def reference_reach(neighbours: Any, start: int, max_steps: int, blocked: Any, ends: Any) -> dict[int, list[int]]:
    """The sea walk as the rules describe it: breadth first, neighbours in board order, one
    shortest path to each space (the walk's first), start excluded unless walked back into."""
    paths: dict[int, list[int]] = {}
    queue: deque[tuple[int, list[int]]] = deque([(start, [])])
    while queue:
        cell, path = queue.popleft()
        if len(path) == max_steps or (path and cell in ends):
            continue
        for n in neighbours[cell]:
            if n in paths or n in blocked:
                continue
            paths[n] = [*path, n]
            queue.append((n, paths[n]))
    return paths


def check_state(rules: Any, state: Any) -> int:
    """Compare each fast form with its plain rule on ``state``; returns how many were compared."""
    cells = range(len(rules.board.labels))
    compared = 0
    plain_stops: dict[str, set[int]] = {}      # each kind's plain ``stops``, asked once per space
    for kind in sorted(rules.creature_rules):
        rule = rules.creature_rules[kind]
        stops = plain_stops[kind] = {c for c in cells if rule.stops(state, c)}
        fast = rules.stop_cells(state, kind)         # (made once: a set, not asked again for every cell)
        assert {c for c in cells if c in fast} == stops, kind
        if rule.stop_cells is not None:
            own = rule.stop_cells(state)
            assert {c for c in cells if c in own} == stops, kind
        compared += 1
    core_walks = type(rules).legal_creature is CreatureRules.legal_creature
    for c in state.creatures.values():
        if c.where != SEA or c.kind not in rules.creature_rules or not core_walks:
            continue                      # (a dolphin, and the 1986 spinner's creatures, move by their own rules)
        reach = rules.creature_reach(state, c)
        assert rules.creature_spaces(state, c) == sorted(reach), c.handle
        steps = rules.creature_steps(state, c.kind)
        expected = reference_reach(rules.board.neighbours, c.cell, steps, state.tile_at,
                                   plain_stops[c.kind])    # (``rules.creature_rule(kind).stops``, asked above)
        if rules.may_stay(state, c.kind):
            expected[c.cell] = []
        assert reach == expected, c.handle
        compared += 1
    may_enter, ship_stops = rules.ship_may_enter, rules.ship_stops     # (the plain rules, asked space by space)
    for b in state.boats.values():
        if b.where == SEA:
            h = b.handle
            closed = rules.closed_to_ship(state, h)
            assert {c for c in cells if c in closed} == {c for c in cells if not may_enter(state, h, c)}
            ends = rules.ship_stop_cells(state, h)
            assert {c for c in cells if c in ends} == {c for c in cells if ship_stops(state, h, c)}
            compared += 1
    vacant_at = rules.vacant
    vacant = [rules.label(c) for c in range(rules.board.playable_count) if vacant_at(state, c)]
    assert rules.vacant_labels(state) == vacant
    deadly = rules.deadly_spaces(state)
    deadly_at, has_creature = rules.deadly_for_swimmers, state.has_creature
    assert {c for c in cells if c in deadly} == {c for c in cells if deadly_at(state, c)}
    for kinds in {(kind,) for kind in rules.comp["creatures"]} | {tuple(rules.comp["creatures"])}:
        assert state.cells_with_creature(kinds) == {c for c in cells if has_creature(c, kinds)}
    for player in state.players:
        assert state.explorers_of(player) == [e for e in state.explorers.values() if e.owner == player]
    return compared


@pytest.mark.parametrize("config", SURVIVE, ids=[f"game{c.game_no:02d}-{c.game}" for c in SURVIVE])
def test_fast_forms_equal_the_plain_rules_at_every_step(config: Config) -> None:
    compared = steps = 0
    for game, state, _number, _step in replay(config):
        compared += check_state(game.rules(state), state)
        steps += 1
    assert compared > steps
