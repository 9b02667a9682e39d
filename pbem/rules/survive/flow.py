"""The turn: "During your game turn, you must perform these actions in order".

The core's four steps (:meth:`TurnFlow.turn_step_list`): 1. play a tile from your hand
(the start-of-turn window), 2. move people and ships (the window during movement),
3. remove a tile, 4. roll the die and move a creature (the window after the roll).
:meth:`TurnFlow.advance` walks through ``turn_steps`` from a given point and stops at
the first step whose starter (:meth:`~pbem.rules.survive.base.SurviveBase.step_table`)
returns True: the step waits for a decision (False: skipped or resolved at once).  A game
or layer changes the turn by extending ``turn_step_list`` and ``step_table``.
"""
from __future__ import annotations

from pbem.game import Rng
from pbem.rules.survive.base import Events, StateT, StepStarter, event
from pbem.rules.survive.state import BOAT, LAND, PLAY, SEA, STEP_CREATURE, STEP_MOVE, STEP_REMOVE, STEP_TILE, Turn
from pbem.rules.survive.tiles import TileRules


class TurnFlow(TileRules[StateT]):
    def turn_step_list(self) -> tuple[str, ...]:
        return (STEP_TILE, STEP_MOVE, STEP_REMOVE, STEP_CREATURE)

    def step_table(self) -> dict[str, StepStarter[StateT]]:
        return {**super().step_table(), STEP_MOVE: self.start_move_step}

    def start_play(self, state: StateT, events: Events) -> None:
        """"The players will now, starting with the first player and proceeding clockwise, take their turns"."""
        state.phase = PLAY
        state.turn = Turn(number=0, player=state.players[-1])
        self.next_turn(state, None, events)
        self.advance(state, None, events, None)

    def after_action(self, state: StateT, events: Events) -> None:
        """Called after every applied action; a layer with another end condition checks it here."""

    def next_turn(self, state: StateT, rng: Rng | None, events: Events) -> None:
        player = state.players_from(state.turn.player)[0] if len(state.players) > 1 else state.turn.player
        state.turn = Turn(number=state.turn.number + 1, player=player)
        events.append(event({"event": "turn", "turn": state.turn.number, "player": player}))

    def advance(self, state: StateT, rng: Rng | None, events: Events, after: str | None,
                die: str | None = None) -> None:
        """Go on from the end of step ``after`` (None: the start of the turn) to the next decision."""
        steps = self.turn_steps
        i = 0 if after is None else steps.index(after) + 1
        idle_turns = 0
        while state.phase == PLAY:
            if i == len(steps):
                state.history["turns"] = state.history.get("turns", 0) + 1
                idle_turns += 1
                if idle_turns > 2 * len(state.players):
                    self.end_game(state, events, "nothing left to do")
                    return
                self.next_turn(state, rng, events)
                i, die = 0, None
                continue
            step = steps[i]
            if self.step_starters[step](state, rng, events, die):
                state.turn.step = self.decision_kind(state, step)
                return
            i += 1

    def decision_kind(self, state: StateT, step: str) -> str:
        """The decision turn step ``step`` waits for: the step's own name (a layer may ask
        differently, e.g. ``dive`` for step 4 with the dive dice)."""
        return step

    def step_in_turn(self, state: StateT) -> str:
        """The turn step being played now, whatever decision it waits for (the inverse of
        :meth:`decision_kind`)."""
        for step in self.turn_steps:
            if self.decision_kind(state, step) == state.turn.step:
                return step
        return state.turn.step

    # --- 2. Move your Explorer and/or Ship tokens ---------------------------------
    def start_move_step(self, state: StateT, rng: Rng | None, events: Events, die: str | None) -> bool:
        """"It's possible that you might not have any Explorers left to move ... skip step #2"."""
        if self.explorers_in_play(state, state.turn.player):
            return True
        events.append(event({"event": "skip", "player": state.turn.player, "step": STEP_MOVE,
                             "reason": self.logged("no ", "explorers", " left")}))
        return False

    def explorers_in_play(self, state: StateT, player: str) -> list[str]:
        return [e.handle for e in state.explorers_of(player) if e.where in (LAND, BOAT, SEA)]
