"""Escape from Atlantis (1986 edition), 2-4 players: the 30th-anniversary rules with what differs.

"On his/her turn, each player does three things, in this order: Moves his/her
villagers, Sinks one tile from the island of Atlantis, Spins the spinner (or
rolls the die) and moves the sea animals accordingly."

Rule text: shared/rules/escape-from-atlantis-1986-summary.txt; the gaps we
filled are listed in docs/games/atlantis-1986.md; numbers are in
games/atlantis-1986/.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.base.data import game_data
from pbem.game import (
    BoardPicture,
    BoardPlaces,
    OptionSpec,
    Piece,
    Result,
    Rng,
    Section,
)
from pbem.rules.atlantis.picture import atlantis_picture, atlantis_piece, atlantis_places
from pbem.rules.atlantis.result_page import result_sections as atlantis_result_sections
from pbem.rules.atlantis1986.island import IslandRules1986
from pbem.rules.atlantis1986.position_check import PositionCheck1986
from pbem.rules.survive.actions import SHAPES, ActionShape
from pbem.rules.survive.base import Events, SurviveData
from pbem.rules.survive.game import SurviveGame
from pbem.rules.survive.state import PLAY, STEP_CREATURE, STEP_MOVE, STEP_REMOVE, State

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


class Atlantis1986Rules(IslandRules1986):
    """The 1986 edition: its own layer on the Survive core."""

    action_shapes = ACTION_SHAPES
    anytime_actions = ()

    def __init__(self, data: SurviveData, option_specs: Sequence[OptionSpec]) -> None:
        board = game_data(data.folder, data.files["board"])
        index = data.board.index
        self.rings = tuple((str(ring["terrain"]), tuple(index[lab] for lab in ring["cells"])) for ring in board["rings"])
        self.ring_of = {cell: i for i, (_, cells) in enumerate(self.rings) for cell in cells}
        if sorted(self.ring_of) != sorted(data.board.island_slots):
            raise ValueError("atlantis-1986 board.yaml: the rings must cover the island slots exactly once")
        self.boat_starts = tuple(index[lab] for lab in board["boat_starts"])
        super().__init__(data, option_specs)

    #: the model ends the game when no villager is in play (``end_when_board_empty``); a turn opens
    #: with the movement step, as the model's first turn does
    turn_model_covers = frozenset({"after_action", "advance", "turn_step_list"})

    def turn_model_params(self, state: State) -> dict[str, Any]:
        return {**super().turn_model_params(state), "end_when_board_empty": True}

    def turn_step_list(self) -> tuple[str, ...]:
        """"Moves his/her villagers, Sinks one tile ..., Spins the spinner"."""
        return (STEP_MOVE, STEP_REMOVE, STEP_CREATURE)

    # --- the end ------------------------------------------------------------------------
    def after_action(self, state: State, events: Events) -> None:
        super().after_action(state, events)
        self.end_when_everyone_is_safe_or_dead(state, events)

    def advance(self, state: State, rng: Rng | None, events: Events, after: str | None,
                die: str | None = None) -> None:
        if self.end_when_everyone_is_safe_or_dead(state, events):
            return
        super().advance(state, rng, events, after, die)

    def why_the_end_cannot_come(self, state: State) -> str:
        if state.phase == PLAY and not self.any_villager_in_play(state):
            return ""             # everyone is safe or dead: the game ends at its next step
        return super().why_the_end_cannot_come(state)

    def end_when_everyone_is_safe_or_dead(self, state: State, events: Events) -> bool:
        """"The game ends when all villagers either have safely arrived on the coral islands,
        or are dead, or if the volcano tile is flipped over" (the volcano: the ``end-game`` rule)."""
        if state.phase != PLAY or self.any_villager_in_play(state):
            return False
        self.end_game(state, events, "all villagers saved or lost")
        return True


class Atlantis1986Game(SurviveGame[State]):
    name = "atlantis-1986"
    title = "Escape from Atlantis (1986 edition)"
    rules_version = "atlantis-1986/1"
    min_players = 2
    max_players = 4
    anytime_actions: tuple[str, ...] = ()
    data_folder = "atlantis-1986"
    base_rules = Atlantis1986Rules
    position_check = PositionCheck1986

    def option_specs(self) -> Sequence[OptionSpec]:
        return OPTIONS

    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        super().check_options(options, players)
        self.check_player_count(players)

    def check_position(self, position: Mapping[str, Any]) -> None:
        self.position_check(self, position).run()

    def describe_game_event(self, event: Mapping[str, Any]) -> str:
        return self.base.describe(event)

    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture:
        """Pieces in player colours, drawn from the view only (pbem/rules/atlantis/picture.py)."""
        return atlantis_picture(view, self.data_folder)

    def board_piece(self, view: Mapping[str, Any], handle: str) -> Piece | None:
        """One piece of :meth:`board_picture`, drawn alone."""
        return atlantis_piece(view, handle, self.data_folder)

    def board_places(self, view: Mapping[str, Any]) -> BoardPlaces:
        """Where the pieces of :meth:`board_picture` are, found without drawing."""
        return atlantis_places(view, self.data_folder)

    def result_sections(self, view: Mapping[str, Any], result: Result) -> list[Section]:
        """The end-of-game table: every saved explorer's value, the tie-break (result_page.py)."""
        return atlantis_result_sections(view, result)


#: the game this module registers (entry point "pbem.games"; the source-checkout scan reads it)
GAME = Atlantis1986Game
