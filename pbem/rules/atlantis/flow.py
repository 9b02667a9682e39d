"""The turn: "During your game turn, you must perform these actions in order".

1. play a terrain tile from your hand, 2. move explorers and ships,
3. remove a terrain tile, 4. roll the die and move a creature.

:meth:`TurnFlow.advance` walks through ``turn_steps`` from a given point and
stops at the first step that needs a decision; each step has a ``start_*``
method that returns True when it waits for the player (False: skipped or
resolved automatically).  A variant changes the turn by overriding
``turn_steps`` or one ``start_*`` method.
"""
from __future__ import annotations

from pbem.game import Rng
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.state import (
    BOAT,
    HAND,
    ISLAND,
    LAND,
    PLAY,
    SEA,
    STEP_CREATURE,
    STEP_MOVE,
    STEP_REMOVE,
    STEP_TILE,
    State,
    Turn,
)


class TurnFlow(RulesBase):
    turn_steps: tuple[str, ...] = (STEP_TILE, STEP_MOVE, STEP_REMOVE, STEP_CREATURE)
    step_starters = {STEP_TILE: "start_tile_step", STEP_MOVE: "start_move_step",
                     STEP_REMOVE: "start_remove_step", STEP_CREATURE: "start_creature_step"}

    def start_play(self, state: State, events: list) -> None:
        """"The players will now, starting with the first player and proceeding clockwise, take their turns"."""
        state.phase = PLAY
        state.turn = Turn(number=0, player=state.players[-1])
        self.next_turn(state, None, events)
        self.advance(state, None, events, None)

    def after_action(self, state: State, events: list) -> None:
        """Called after every applied action; a variant with another end condition checks it here."""

    def next_turn(self, state: State, rng: Rng | None, events: list) -> None:
        player = state.players_from(state.turn.player)[0] if len(state.players) > 1 else state.turn.player
        state.turn = Turn(number=state.turn.number + 1, player=player)
        events.append(event({"event": "turn", "turn": state.turn.number, "player": player}))

    def advance(self, state: State, rng: Rng | None, events: list, after: str | None,
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
            if getattr(self, self.step_starters[step])(state, rng, events, die):
                state.turn.step = self.decision_kind(state, step)
                return
            i += 1

    def decision_kind(self, state: State, step: str) -> str:
        """The decision turn step ``step`` waits for: the step's own name (a variant may ask
        differently, e.g. ``dive`` for step 4 with the dive dice)."""
        return step

    def step_in_turn(self, state: State) -> str:
        """The turn step being played now, whatever decision it waits for (the inverse of
        :meth:`decision_kind`)."""
        for step in self.turn_steps:
            if self.decision_kind(state, step) == state.turn.step:
                return step
        return state.turn.step

    # --- 1. Play a Terrain tile from your "hand" ------------------------------
    def start_tile_step(self, state: State, rng: Rng | None, events: list, die: str | None) -> bool:
        """"Once and once per turn only, you may play a Terrain tile you've obtained during a previous round."

        The step opens whenever the player holds any tile from an earlier turn,
        defense tiles included, so the public cannot tell what kind they hold.
        """
        number = state.turn.number
        return any(t.where == HAND and t.holder == state.turn.player and (t.obtained or 0) < number
                   for t in state.tiles.values())

    # --- 2. Move your Explorer and/or Ship tokens ---------------------------------
    def start_move_step(self, state: State, rng: Rng | None, events: list, die: str | None) -> bool:
        """"It's possible that you might not have any Explorers left to move ... skip step #2"."""
        if self.explorers_in_play(state, state.turn.player):
            return True
        events.append(event({"event": "skip", "player": state.turn.player, "step": STEP_MOVE,
                             "reason": "no explorers left"}))
        return False

    def explorers_in_play(self, state: State, player: str) -> list[str]:
        return [e.handle for e in state.explorers.values()
                if e.owner == player and e.where in (LAND, BOAT, SEA)]

    # --- 3. Remove a Terrain Tile -------------------------------------------------
    def start_remove_step(self, state: State, rng: Rng | None, events: list, die: str | None) -> bool:
        if any(t.where == ISLAND for t in state.tiles.values()):
            return True
        events.append(event({"event": "skip", "player": state.turn.player, "step": STEP_REMOVE,
                             "reason": "no terrain tiles left"}))
        return False

    # --- 4. Roll the die and move a creature: see creatures.py -----------------------

