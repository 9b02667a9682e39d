"""Survive: Space Attack!: the game's layer on the Survive core.

The chain (each module one part of the rule book, each class building on the one before):
:mod:`~pbem.rules.spaceattack.setup` (options through the core's hooks, the station, scoring)
-> :mod:`~pbem.rules.spaceattack.craft` (fighters, laser turrets, captures, the steal window)
-> :mod:`~pbem.rules.spaceattack.creatures` (the Queen's attack, defence by redirection,
evolution) -> :mod:`~pbem.rules.spaceattack.tiles` (the 23 tile backs) ->
:mod:`~pbem.rules.spaceattack.turn` (the four steps and the windows that interrupt them) ->
:mod:`~pbem.rules.spaceattack.words` (views, log lines, prompts, templates) -> here (the move-file
syntax).  The challenges and the 5-6 player kit are layers in front of this class
(Survive's, :mod:`~pbem.rules.survive.challenges`), added only when their option is on.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.rules.spaceattack.places import state_turret_spaces, turret_spaces
from pbem.rules.spaceattack.state import SpaceAttackState
from pbem.rules.survive.actions import ActionShape
from pbem.rules.spaceattack.tiles import TILE_KEYS
from pbem.rules.spaceattack.words import Words

#: the move-file actions, in priority order: the first shape whose key is present names the kind
ACTION_SHAPES: tuple[ActionShape, ...] = (
    ActionShape("place", ("place", "on"), (), "{place: r7, on: G5}"),
    ActionShape("pod", ("pod", "at"), (), "{pod: P1, at: F2}"),
    ActionShape("deploy", ("deploy",), ("to",), "{deploy: Q6, to: F4} or {deploy: none}"),
    ActionShape("play", ("play",), TILE_KEYS, "{play: T12, crew: [r1, b3]} or {play: none}"),
    ActionShape("move", ("move", "to"), ("drift",), "{move: r7, to: G5}, {move: P3, to: F4} or {move: X2, to: F9}"),
    ActionShape("fire", ("fire", "at"), (), "{fire: T37, at: F9}"),
    ActionShape("done", ("done",), (), "{done: move}"),
    ActionShape("remove", ("remove",), ("board",), "{remove: G5} or {remove: G5, board: [r1, b2, g3]}"),
    ActionShape("creature", ("creature",), ("to", "path"), "{creature: W2, to: F4} or {creature: none}"),
    ActionShape("defend", ("defend",), ("to", "path"), "{defend: T7, to: F4} or {defend: none}"),
    ActionShape("steal", ("steal",), (), "{steal: T9} or {steal: none}"),
    ActionShape("standing", ("standing",), (), "{standing: {queen_defense: ask, steal: never}}"),
    ActionShape("board", ("board",), (), "{board: [r1, b2, g3]}"),
)


class SpaceAttackRules(Words):
    action_shapes = ACTION_SHAPES
    anytime_actions = ("standing",)
    PASSES: tuple[dict[str, str], ...] = ({"deploy": "none"}, {"done": "move"}, {"play": "none"},
                                          {"creature": "none"}, {"defend": "none"}, {"steal": "none"})

    def piece_spaces(self, view: Mapping[str, Any]) -> dict[str, str]:
        """The core's pieces and the laser turrets (:mod:`~pbem.rules.spaceattack.places`)."""
        return {**super().piece_spaces(view), **turret_spaces(view)}

    def state_piece_spaces(self, state: SpaceAttackState) -> dict[str, str]:
        return {**super().state_piece_spaces(state), **state_turret_spaces(state.tiles, self.board.labels)}

