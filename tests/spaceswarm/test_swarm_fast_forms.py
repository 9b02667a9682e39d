"""Space Swarm's fast forms (issue 24) agree with the plain rules at every step of whole games.

* ``Game.legal_choices`` (the movement step's moves made only when read:
  ``movement.SimpleMoves`` chained with ``{done: move}`` and the Event cards) gives the listed
  legal actions, in order, with the same length, and the moves are the ones the plain rule
  lists (:func:`plain_moves`, the listing as it was written first);
* the greedy bot's scores of that sequence (``bot.preferences``: a move scored from its step,
  what it is scored against worked out once per decision) equal ``bot_preference`` of each
  listed action, one at a time, and a move's score is the plain one (:func:`plain_move_score`);
* the contested spaces (``SwarmState.contested``, counted in one pass) are the spaces where
  ``races_at`` names two races or more.
"""
from __future__ import annotations

from typing import Any

import pytest
from swarm_helpers import GAME

from pbem.core.bots import CHOOSERS
from pbem.core.choices import Chain
from pbem.core.draws import setup_rng
from pbem.core.engine import action_rng
from pbem.core.rng import Rng
from pbem.rules.spaceswarm import movement, terrain
from pbem.rules.spaceswarm.bot import exchange, goal_cells, nearest
from pbem.rules.spaceswarm.movement import SimpleMoves

NAMES = ["red", "blue", "green", "yellow", "purple"]


def plain_moves(state: Any, player: str) -> list[dict[str, Any]]:
    """Whole stacks (and single fleets) to every reachable space by a shortest path, written out."""
    if movement.stacks_left(state, player) <= 0:
        return []
    limit, labels = movement.movement(state, player), state.hexmap.labels
    out: list[dict[str, Any]] = []
    for start in sorted(state.fleets[player]):
        used = movement.spent(state, player, start)
        for count in [len(used)] + ([1] if len(used) > 1 else []):
            for _end, path in sorted(movement.destinations(state, player, start, limit - max(used[:count])).items()):
                action: dict[str, Any] = {"move": labels[start], "path": [labels[c] for c in path]}
                if count != len(used):
                    action["fleets"] = count
                out.append(action)
    return out


def plain_move_score(state: Any, player: str, action: dict[str, Any]) -> float:
    """The greedy bot's score of a move, every fact worked out for it alone."""
    hexmap = state.hexmap
    start, path = hexmap.index(action["move"]), [hexmap.index(p) for p in action["path"]]
    end, here = path[-1], state.fleets_at(player, start)
    moving = int(action.get("fleets", here))
    score, mine_after = 0.0, state.fleets_at(player, end) + moving
    if state.enemies_at(player, end):
        mine_lost, theirs_lost = exchange(state, player, end, mine_after)
        if mine_lost >= mine_after:
            score -= 20.0
        score += 2.0 * theirs_lost - 3.0 * mine_lost
    if terrain.is_star_cluster(hexmap, end) and state.races_at(end) != [player]:
        score += 8.0
    if terrain.is_alien_ruins(hexmap, end) and end not in state.visited:
        score += 4.0
    score += sum(3.0 for c in path[:-1] if terrain.is_alien_ruins(hexmap, c) and c not in state.visited)
    if terrain.is_quasar(hexmap, end):
        score -= 2.5
    if terrain.must_stop(hexmap, end):
        score -= 0.5
    if terrain.is_star_cluster(hexmap, start) and moving == here and not state.enemies_at(player, start):
        score -= 9.0
    goals = goal_cells(state, player)
    return score + 0.7 * (nearest(hexmap, start, goals) - nearest(hexmap, end, goals))


@pytest.mark.parametrize("players,bot,options", [(4, "random", {}), (4, "greedy", {}), (3, "greedy", {"decks": "2"}),
                                                 (5, "random", {"combat_hexes": "active"})])
def test_choices_and_their_scores_equal_the_listed_actions_at_every_step(players: int, bot: str,
                                                                          options: dict[str, str]) -> None:
    names = NAMES[:players]
    for k in range(2):
        seed = f"swarm-fast-forms/{players}/{bot}/{k}".encode()
        state = GAME.setup(names, GAME.full_options(options), setup_rng(seed, "sim"))
        bot_rng, steps, lazy = Rng(seed, "bot"), 0, 0
        while GAME.result(state) is None:
            occupied = sorted({c for p in names for c in state.fleets[p]})      # the contested spaces, written out
            assert state.contested() == [c for c in occupied if len(state.races_at(c)) >= 2]
            for player in names:
                choices, listed = GAME.legal_choices(state, player), GAME.legal_actions(state, player)
                assert len(choices) == len(listed)
                assert list(choices) == listed
                assert [choices[i] for i in range(len(choices))] == listed
                scores = [GAME.bot_preference(state, player, a) for a in listed]
                assert GAME.bot_preferences(state, player, choices) == scores
                assert GAME.bot_preferences(state, player, listed) == scores
                if isinstance(choices, Chain) and isinstance(choices.parts[0], SimpleMoves):
                    moves = plain_moves(state, player)
                    assert listed[:len(moves)] == moves
                    assert scores[:len(moves)] == [plain_move_score(state, player, a) for a in moves]
                    lazy += len(moves) > 0
            player = GAME.pending(state)[0].player
            action = CHOOSERS[bot](GAME, state, player, bot_rng)
            steps += 1
            GAME.apply(state, player, action, action_rng(seed, "sim", steps, 0))
        assert steps > 50 and lazy > 10, (steps, lazy)
