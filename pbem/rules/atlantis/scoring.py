"""End of game and scoring.

"At the end of the game, flip over all of the Explorer tokens you have managed to
get to safe isles and add up the number of points printed on them. It's the player
with the highest total (and not necessarily the most Explorers saved) who wins."
With two colours a player's colours add up ("total up the points earned by each
color").  Ties share the win.
"""
from __future__ import annotations

from pbem.game import NeedsSecret, Result
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.state import BOAT, ISLE, LAND, LOST, OVER, SEA, Explorer, State


class ScoringRules(RulesBase):
    def explorer_points(self, state: State, e: Explorer) -> int:
        if e.value is None:
            raise NeedsSecret(f"the value of {e.handle} is hidden")
        return e.value

    def saved(self, state: State, player: str) -> list[str]:
        return [e.handle for e in state.explorers.values() if e.owner == player and e.where == ISLE]

    def scores(self, state: State) -> dict[str, int]:
        return {p: sum(self.explorer_points(state, state.explorers[h]) for h in self.saved(state, p))
                for p in state.players}

    def winners(self, state: State, scores: dict[str, int]) -> list[str]:
        top = max(scores.values())
        return [p for p in state.players if scores[p] == top]

    def end_game(self, state: State, events: list, reason: str) -> None:
        """Explorers not on a safe isle are lost; the game is over."""
        doomed = sorted(e.handle for e in state.explorers.values() if e.where in (LAND, BOAT, SEA))
        for h in doomed:
            state.put_explorer(h, LOST)
        state.phase = OVER
        state.turn.step = ""
        state.reaction = None
        state.boarding = None
        scores = self.scores(state)
        events.append(event({"event": "game-over", "reason": reason, "lost": doomed,
                             "saved": {h: state.explorers[h].value for h in sorted(
                                 e.handle for e in state.explorers.values() if e.where == ISLE)},
                             "scores": scores, "winners": self.winners(state, scores)},
                            chance=True))   # reveals the saved explorers' values

    def result(self, state: State) -> Result | None:
        if state.phase != OVER:
            return None
        scores = self.scores(state)
        detail = {"saved": {p: sorted(self.saved(state, p)) for p in state.players},
                  "values": {h: state.explorers[h].value for p in state.players for h in self.saved(state, p)}}
        return Result(scores=scores, winners=self.winners(state, scores), detail=detail)
