"""End of game and scoring by hidden values, with the declared scoring hooks.

"At the end of the game, flip over all of the Explorer tokens you have managed to get
to safe isles and add up the number of points printed on them."  A player's colours
add up.  Hooks: :meth:`ScoringRules.explorer_points` (what a saved piece is worth),
:meth:`ScoringRules.exit_bonus` (points per exit reached, 0 by default),
:meth:`ScoringRules.tie_break_chain` (the names of the tie-breaks in order, from the
game's data; empty by default: ties share the win), each tie-break measured by an
entry of :meth:`ScoringRules.tie_break_table`.
"""
from __future__ import annotations

from typing import Any, Callable

from pbem.game import NeedsSecret, Result
from pbem.rules.survive.base import Events, StateT, SurviveBase, event
from pbem.rules.survive.state import BOAT, ISLE, LAND, LOST, OVER, SEA, Explorer

#: a tie-break: a number per player, and whether more is better
TieBreak = tuple[Callable[[StateT, str], int], bool]


class ScoringRules(SurviveBase[StateT]):
    # --- the hooks ---------------------------------------------------------------
    def explorer_points(self, state: StateT, e: Explorer) -> int:
        """What one saved piece scores: its hidden value."""
        if e.value is None:
            raise NeedsSecret(f"the value of {e.handle} is hidden")
        return e.value

    def exit_bonus(self, state: StateT, player: str) -> int:
        """Bonus points for the exits ``player`` reached (Space Attack: 1 per Jump Point
        and colour).  Default: none."""
        return 0

    def tie_break_chain(self, state: StateT) -> list[str]:
        """The tie-breaks in force, in order (keys of :meth:`tie_break_table`).  Default:
        none, tied players share the win."""
        return []

    def tie_break_table(self) -> dict[str, TieBreak[StateT]]:
        """Tie-break name -> (number per player, more is better)."""
        return {"rescued": (lambda state, p: len(self.saved(state, p)), True),
                "points": (self.printed_points, True),
                "turns": (self.turns_taken, False)}

    # --- the score -------------------------------------------------------------------
    def saved(self, state: StateT, player: str) -> list[str]:
        return [e.handle for e in state.explorers_of(player) if e.where == ISLE]

    def scores(self, state: StateT) -> dict[str, int]:
        return {p: sum(self.explorer_points(state, state.explorers[h]) for h in self.saved(state, p))
                + self.exit_bonus(state, p) for p in state.players}

    def printed_points(self, state: StateT, player: str) -> int:
        total = 0
        for h in self.saved(state, player):
            value = state.explorers[h].value
            if value is None:
                raise NeedsSecret(f"the value of {h} is hidden")
            total += value
        return total

    def turns_taken(self, state: StateT, player: str) -> int:
        """Turns ``player`` has begun (the current one included): "Anyone to the LEFT of the player
        who revealed the volcano tile and to the RIGHT of the Starting Player had less turns"."""
        seat, n = state.players.index(player), len(state.players)
        last = state.turn.number
        return 0 if last <= seat else (last - 1 - seat) // n + 1

    def score_detail(self, state: StateT) -> dict[str, Any]:
        """What a game adds to the game-over event and the result's detail (e.g. Space Attack's
        Jump Point bonuses).  Default: nothing."""
        return {}

    # --- the winners --------------------------------------------------------------------
    def tie_breaks(self, state: StateT) -> list[tuple[str, dict[str, int], bool]]:
        """(name, number per player, True if more is better), in the chain's order."""
        table = self.tie_break_table()
        out = []
        for name in self.tie_break_chain(state):
            measure, more_is_better = table[name]
            out.append((name, {p: measure(state, p) for p in state.players}, more_is_better))
        return out

    def winners(self, state: StateT, scores: dict[str, int]) -> list[str]:
        """The top scores; ties broken by the chain ("If still tied, then the tied players
        rejoice in their shared victory!")."""
        top = max(scores.values())
        tied = [p for p in state.players if scores[p] == top]
        if len(tied) < 2:
            return tied
        for _name, numbers, more_is_better in self.tie_breaks(state):
            best = (max if more_is_better else min)(numbers[p] for p in tied)
            tied = [p for p in tied if numbers[p] == best]
        return tied

    def tie_break_detail(self, state: StateT) -> dict[str, dict[str, int]] | None:
        """The tie-break numbers of the players tied on score (None when no tie was broken)."""
        if not self.tie_break_chain(state):
            return None
        scores = self.scores(state)
        top = max(scores.values())
        tied = [p for p in state.players if scores[p] == top]
        if len(tied) < 2:
            return None
        return {name: {p: numbers[p] for p in tied} for name, numbers, _ in self.tie_breaks(state)}

    # --- the end --------------------------------------------------------------------------
    def close_open_records(self, state: StateT) -> None:
        """The game ends: drop every decision still open (a layer adds its own records)."""
        state.reaction = None
        state.boarding = None

    def end_game(self, state: StateT, events: Events, reason: str) -> None:
        """People not on an exit are lost; the game is over."""
        doomed = sorted(e.handle for e in state.explorers.values() if e.where in (LAND, BOAT, SEA))
        for h in doomed:
            state.put_explorer(h, LOST)
        state.phase = OVER
        state.turn.step = ""
        self.close_open_records(state)
        scores = self.scores(state)
        public = {"event": "game-over", "reason": reason, "lost": doomed,
                  "saved": {h: state.explorers[h].value for h in sorted(
                      e.handle for e in state.explorers.values() if e.where == ISLE)},
                  "scores": scores, "winners": self.winners(state, scores)}
        public.update(self.score_detail(state))
        detail = self.tie_break_detail(state)
        if detail is not None:
            public["tiebreak"] = detail
        events.append(event(public, chance=True))   # reveals the saved explorers' values

    def result(self, state: StateT) -> Result | None:
        if state.phase != OVER:
            return None
        scores = self.scores(state)
        detail: dict[str, Any] = {"saved": {p: sorted(self.saved(state, p)) for p in state.players},
                  "values": {h: state.explorers[h].value for p in state.players for h in self.saved(state, p)}}
        detail.update(self.score_detail(state))
        tiebreak = self.tie_break_detail(state)
        if tiebreak is not None:
            detail["tiebreak"] = tiebreak
        return Result(scores=scores, winners=self.winners(state, scores), detail=detail)
