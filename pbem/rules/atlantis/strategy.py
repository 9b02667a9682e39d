"""Hints for the `greedy` bot: a cheap score per action, no look-ahead.

The greedy bot (pbem/bots.py) takes the best-scoring legal action, breaking
ties at random.  Scores only use what the deciding player can see (positions
of pieces), never hidden values, so a bot's choices leak nothing.
"""
from __future__ import annotations

from collections import deque
from functools import cached_property
from typing import Any, Mapping

from pbem.rules.atlantis.board import Board
from pbem.rules.atlantis.state import BOAT, State

SAVE = 100.0      # landing an explorer on a safe isle
BOARD = 3.0       # getting onto a ship
STAY = -0.5       # ending movement early


class BotHints:
    board: Board

    @cached_property
    def isle_distance(self) -> tuple[int, ...]:
        """Steps from each cell to the nearest safe isle (breadth-first over all hexes)."""
        n = len(self.board.labels)
        dist = [n] * n
        queue = deque(self.board.isles)
        for cell in self.board.isles:
            dist[cell] = 0
        while queue:
            cell = queue.popleft()
            for nb in self.neighbours_with_isles(cell):
                if dist[nb] > dist[cell] + 1:
                    dist[nb] = dist[cell] + 1
                    queue.append(nb)
        return tuple(dist)

    def neighbours_with_isles(self, cell: int) -> list[int]:
        if self.board.is_isle(cell):
            return [c for c in range(len(self.board.labels)) if cell in self.board.isles_next_to[c]]
        return list(self.board.neighbours[cell]) + list(self.board.isles_next_to[cell])

    #: the actions that decline a decision, in the order they are looked for
    PASSES: tuple[dict[str, str], ...] = ({"play": "none"}, {"done": "move"}, {"creature": "none"},
                                          {"defend": "none"})

    def pass_action(self, state: State, player: str) -> dict[str, Any] | None:
        """Decline the pending decision if the rules allow it (tile removal and set-up do not)."""
        legal = self.legal_actions(state, player)  # type: ignore[attr-defined]
        for candidate in self.PASSES:
            if candidate in legal:
                return dict(candidate)
        return None

    def bot_preference(self, state: State, player: str, action: Mapping[str, Any]) -> float:
        if "move" in action and "to" in action:
            return self.prefer_move(state, player, str(action["move"]), str(action["to"]))
        if action.get("done") == "move":
            return STAY
        return 0.0

    def prefer_move(self, state: State, player: str, piece: str, to: str) -> float:
        target = self.board.index.get(to)
        if target is None:
            return 0.0
        dist = self.isle_distance
        if piece in state.explorers:
            e = state.explorers[piece]
            here = state.explorer_cell(e)
            if here is None:
                return 0.0
            if self.board.is_isle(target):
                return SAVE
            bonus = BOARD if target in state.boat_at and e.where != BOAT else 0.0
            return bonus + dist[here] - dist[target]
        if piece in state.boats and state.boats[piece].cell is not None:
            boat = state.boats[piece]
            mine = sum(1 for p in boat.passengers if state.explorers[p].owner == player)
            return mine * (dist[boat.cell] - dist[target])
        return 0.0
