"""Escape from Atlantis (1986 edition), 2-4 players: the 30th-anniversary rules with what differs.

"On his/her turn, each player does three things, in this order: Moves his/her
villagers, Sinks one tile from the island of Atlantis, Spins the spinner (or
rolls the die) and moves the sea animals accordingly."

Rule text: shared/rules/escape-from-atlantis-1986-summary.txt; the gaps we
filled are listed in docs/games/atlantis-1986.md; numbers are in
games/atlantis-1986/.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from pbem.data import game_data
from pbem.game import OptionSpec, Rng
from pbem.rules.atlantis.actions import SHAPES, ActionShape
from pbem.rules.atlantis.game import AtlantisGame
from pbem.rules.atlantis.state import (
    PLAY,
    SETUP_BOAT,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_MOVE,
    STEP_REMOVE,
    State,
)
from pbem.rules.atlantis1986.island import IslandRules1986
from pbem.rules.atlantis1986.position_check import PositionCheck1986
from pbem.rules.atlantis1986.sea import SeaRules1986
from pbem.rules.atlantis1986.spinner import STEP_DIVE, SpinnerRules1986
from pbem.rules.atlantis1986.view import View1986

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("spinner", "swirler", ("swirler", "dice"),
               "swirler: the Atlantean Swirler (16 equal segments: 4 creatures x 1/2/3/dive); "
               "dice: a creature die and a movement die (\"or rolls the die\")"),
    OptionSpec("creature_move", "compulsory", ("compulsory", "optional"),
               "compulsory: the spinner's creature must be moved when one can move; optional: {creature: none}"),
    OptionSpec("empty_boats", "sunk", ("sunk", "safe"),
               "sunk: giant squid and sea monsters destroy empty boats too; safe: only boats with villagers"),
    OptionSpec("whirlpool", "all", ("all", "sea"),
               "all: villagers on the land tiles next to a whirlpool die too; sea: only what is at sea"),
    OptionSpec("setup_limit", "beach", ("beach", "three"),
               "beach: only beach tiles are limited (one villager); three: other tiles at most three"),
    OptionSpec("start_boats", "fixed", ("fixed", "placed"),
               "fixed: the starting boats on printed spaces; placed: the players place them after the villagers",
               setup_only=True),
)

# The move-file actions of this edition (no tiles in hand, no defense, no standing orders).
ACTION_SHAPES: tuple[ActionShape, ...] = (
    next(s for s in SHAPES if s.kind == "place"),
    ActionShape("move", ("move", "to"), ("swim", "ride"),
                "{move: r7, to: G5}, {move: B3, to: F4} or {move: r3, to: F4, ride: D1}"),
    next(s for s in SHAPES if s.kind == "done"),
    next(s for s in SHAPES if s.kind == "remove"),
    ActionShape("creature", ("creature",), ("to", "path"), "{creature: K2, to: F4}"),
    ActionShape("dive", ("dive",), ("to",), "{dive: K2, to: F4}"),
    next(s for s in SHAPES if s.kind == "boat"),
    next(s for s in SHAPES if s.kind == "board"),
)


class Atlantis1986Game(IslandRules1986, SeaRules1986, SpinnerRules1986, View1986, AtlantisGame):
    name = "atlantis-1986"
    title = "Escape from Atlantis (1986 edition)"
    rules_version = "atlantis-1986/1"
    min_players = 2
    max_players = 4

    data_game = "atlantis-1986"
    data_files: Mapping[str, str] = {"board": "board.yaml", "tiles": "tiles.yaml", "components": "components.yaml"}

    anytime_actions: tuple[str, ...] = ()
    action_shapes = ACTION_SHAPES
    position_check = PositionCheck1986
    handlers: Mapping[str, str] = {
        "place": "do_place", "boat": "do_boat", "move": "do_move", "done": "do_done", "remove": "do_remove",
        "board": "do_board", "creature": "do_creature", "dive": "do_dive"}
    deciders: Mapping[str, str] = {
        SETUP_PLACE: "legal_place", SETUP_BOAT: "legal_boat", STEP_MOVE: "legal_move", STEP_REMOVE: "legal_remove",
        STEP_BOARDERS: "legal_board", STEP_CREATURE: "legal_creature", STEP_DIVE: "legal_dive"}
    #: "Moves his/her villagers, Sinks one tile ..., Spins the spinner"
    turn_steps: tuple[str, ...] = (STEP_MOVE, STEP_REMOVE, STEP_CREATURE)

    def __init__(self) -> None:
        super().__init__()
        board = game_data(self.data_game, self.data_files["board"])
        index = self.board.index
        self.rings = tuple((ring["terrain"], tuple(index[lab] for lab in ring["cells"])) for ring in board["rings"])
        self.ring_of = {cell: i for i, (_, cells) in enumerate(self.rings) for cell in cells}
        if sorted(self.ring_of) != sorted(self.board.island_slots):
            raise ValueError("atlantis-1986 board.yaml: the rings must cover the island slots exactly once")
        self.boat_starts = tuple(index[lab] for lab in board["boat_starts"])
        # Rule steps inherited from the 30th-anniversary mixins read their own options;
        # here they always keep their defaults (the base game's behaviour).
        inherited = {s.name: s.default for s in AtlantisGame.option_specs(self)}
        self.option_defaults = {**inherited, **self.option_defaults}

    def option_specs(self) -> Sequence[OptionSpec]:
        return OPTIONS

    def expansion_setup(self, n_players: int) -> Mapping[str, object] | None:
        """The 30th-anniversary 5-6 player mini-expansion is not part of this edition."""
        return None

    # --- the end ------------------------------------------------------------------------
    def after_action(self, state: State, events: list) -> None:
        super().after_action(state, events)
        self.end_when_everyone_is_safe_or_dead(state, events)

    def advance(self, state: State, rng: Rng | None, events: list, after: str | None,
                die: str | None = None) -> None:
        if self.end_when_everyone_is_safe_or_dead(state, events):
            return
        super().advance(state, rng, events, after, die)

    def end_when_everyone_is_safe_or_dead(self, state: State, events: list) -> bool:
        """"The game ends when all villagers either have safely arrived on the coral islands,
        or are dead, or if the volcano tile is flipped over" (the volcano: ``effect_volcano``)."""
        if state.phase != PLAY or self.villagers_in_play(state):
            return False
        self.end_game(state, events, "all villagers saved or lost")
        return True
