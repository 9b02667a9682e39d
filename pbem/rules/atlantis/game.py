"""Survive: Escape from Atlantis! (30th anniversary), base game, 2-4 players.

:class:`AtlantisGame` wires the rules mixins to the :class:`pbem.game.Game`
interface.  A variant subclasses it and overrides the rule steps that differ
(``turn_steps``, ``effect_<back>``, ``stops_<creature>``, ``placement_spots``,
``explorer_points``, ...) or points ``data_files`` at its own YAML.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.data import game_data
from pbem.game import (
    Action,
    BoardPicture,
    Decision,
    Game,
    IllegalAction,
    OptionSpec,
    Position,
    Rng,
)
from pbem.rules.atlantis.actions import action_kind
from pbem.rules.atlantis.board import Board
from pbem.rules.atlantis.challenges import ChallengeRules
from pbem.rules.atlantis.players56 import STEP_SHIP, STEP_SUNK, Players56Rules
from pbem.rules.atlantis.dive import STEP_DIVE, STEP_PROTECT, DiveRules
from pbem.rules.atlantis.squid import STEP_SQUID_PLACE, STEP_SQUID_TAKE, SquidRules
from pbem.rules.atlantis.strategy import BotHints
from pbem.rules.atlantis.creatures import CreatureRules
from pbem.rules.atlantis.defense import DefenseRules
from pbem.rules.atlantis.flow import TurnFlow
from pbem.rules.atlantis.movement import MovementRules
from pbem.rules.atlantis.position_check import PositionCheck
from pbem.rules.atlantis.scoring import ScoringRules
from pbem.rules.atlantis.setup import SetupRules
from pbem.rules.atlantis.state import (
    OVER,
    SETUP_BOAT,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_DEFENSE,
    STEP_MOVE,
    STEP_REMOVE,
    STEP_TILE,
    State,
)
from pbem.rules.atlantis.tiles import TileRules
from pbem.rules.atlantis.view import ViewRules
from pbem.rules.atlantis.picture import atlantis_picture   # the board picture reads the view only
from pbem.rules.atlantis.result_page import result_sections as atlantis_result_sections
from pbem.game import Result, Section   # for result_sections


class AtlantisGame(Players56Rules, ChallengeRules, DiveRules, SquidRules, BotHints,
                   SetupRules, TurnFlow, MovementRules, TileRules, CreatureRules, DefenseRules,
                   ScoringRules, ViewRules, Game):
    name = "atlantis"
    title = "Survive: Escape from Atlantis! (30th anniversary)"
    rules_version = "atlantis-30th/1"
    min_players = 2
    max_players = 6   # 5-6 with the 5-6 Players! mini-expansion (players56.py)

    #: actions a player may send when it is not their decision
    anytime_actions: tuple[str, ...] = ("standing",)
    #: the move-file action shapes (None: actions.SHAPES); a variant may bring its own
    action_shapes: tuple | None = None
    #: games/atlantis/ files: board geometry, tile backs, components
    data_files: Mapping[str, str] = {"board": "board.yaml", "tiles": "tiles.yaml", "components": "components.yaml"}
    data_game = "atlantis"

    #: action kind -> handler method
    handlers: Mapping[str, str] = {
        "place": "do_place", "boat": "do_boat", "play": "do_play", "move": "do_move", "done": "do_done",
        "remove": "do_remove", "board": "do_board", "creature": "do_creature", "defend": "do_defend",
        "standing": "do_standing",
        "dive": "do_dive", "protect": "do_protect", "squid": "do_squid", "take": "do_take"}
    #: checks a position file before a game starts from it (a variant brings its own subclass)
    position_check: type[PositionCheck] = PositionCheck
    #: decision kind -> method listing its legal actions
    deciders: Mapping[str, str] = {
        SETUP_PLACE: "legal_place", SETUP_BOAT: "legal_boat", STEP_TILE: "legal_play_tile",
        STEP_MOVE: "legal_move", STEP_REMOVE: "legal_remove", STEP_BOARDERS: "legal_board",
        STEP_CREATURE: "legal_creature", STEP_DEFENSE: "legal_defend",
        STEP_SHIP: "legal_choose_ship", STEP_SUNK: "legal_sunk_move",
        STEP_DIVE: "legal_dive", STEP_PROTECT: "legal_protect",
        STEP_SQUID_PLACE: "legal_squid", STEP_SQUID_TAKE: "legal_take"}

    def __init__(self) -> None:
        files = self.data_files
        self.board = Board.from_data(game_data(self.data_game, files["board"]))
        tiles = game_data(self.data_game, files["tiles"])
        self.terrains = tuple(tiles["terrains"])
        self.tile_backs = {k: dict(v) for k, v in tiles["backs"].items()}
        self.back_kind = {k: v["kind"] for k, v in self.tile_backs.items()}
        self.comp = game_data(self.data_game, files["components"])
        self.option_defaults = {s.name: s.default for s in self.option_specs()}

    # --- options ------------------------------------------------------------------
    def option_specs(self) -> Sequence[OptionSpec]:
        """The base options, then each variant mixin's ``OPTIONS`` (in MRO order)."""
        extra: list[OptionSpec] = []
        for cls in type(self).__mro__:
            extra.extend(cls.__dict__.get("OPTIONS", ()))
        return tuple(self.base_option_specs()) + tuple(extra)

    def base_option_specs(self) -> Sequence[OptionSpec]:
        return (
            OptionSpec("memory", "strict", ("strict", "open"),
                       "strict: you see your explorer values only during setup; open: always"),
            OptionSpec("colours", "auto", ("auto", "1", "2"),
                       "explorer colours per player; auto = 2 in a two-player game, else 1", setup_only=True),
            OptionSpec("defense", "auto", ("auto", "never", "ask"),
                       "default standing order for defense tiles", setup_only=True),
            OptionSpec("lagoon", "sea", ("sea", "land"),
                       "does the central sea hex count as a sea space when choosing which tile to remove"),
            OptionSpec("boats", "per-player", ("per-player", "per-colour"),
                       "ships at setup: 2 per player, or 2 per colour", setup_only=True),
            OptionSpec("layout", "random", ("random", "fixup"),
                       "fixup: reshuffle the terrain until no beach/forest tile is isolated", setup_only=True),
        )

    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        super().check_options(options, players)
        if not self.min_players <= len(players) <= self.max_players:
            raise ValueError(f"{self.title} takes {self.min_players}-{self.max_players} players, not {len(players)}")
        if len(set(players)) != len(players):
            raise ValueError("player names must differ")
        per = self.colours_per_player(len(players), self.full_options(options))
        in_box = len(self.colour_prefixes(len(players)))
        if per * len(players) > in_box:
            raise ValueError(f"colours={options.get('colours')} needs {per * len(players)} colours; "
                             f"there are {in_box}")

    # --- set-up and positions ------------------------------------------------------
    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        self.check_options(options, players)
        return self.new_state(players, options, rng)

    def to_position(self, state: State) -> Position:
        return self.make_view(state, None, omniscient=True)

    def from_position(self, position: Mapping[str, Any]) -> State:
        return self.read_position(position)

    def check_position(self, position: Mapping[str, Any]) -> None:
        """Positions are validated like moves: see :mod:`pbem.rules.atlantis.position_check`."""
        self.position_check(self, position).run()

    def position_options(self, position: Mapping[str, Any]) -> dict[str, str]:
        """The position's ``options`` (a state plays with exactly these; missing ones are the defaults)."""
        return {str(k): str(v) for k, v in (position.get("options") or {}).items()}

    def position_with_options(self, position: Mapping[str, Any], options: Mapping[str, str]) -> Position:
        return {**position, "options": {k: str(options[k]) for k in sorted(options)}}

    # --- play ------------------------------------------------------------------------
    def pending(self, state: State) -> list[Decision]:
        who = self.decider(state)
        if who is None:
            return []
        kind = self.current_step(state)
        return [Decision(player=who, kind=kind, prompt=self.prompt(state, kind))]

    def prompt(self, state: State, kind: str) -> str:
        variant = self.variant_prompt(state, kind)
        if variant:
            return variant
        if kind == SETUP_PLACE:
            return "place an explorer on an empty terrain tile: {place: r7, on: G5}"
        if kind == SETUP_BOAT:
            return "place a ship on a free sea space next to the island: {boat: B1, at: F2}"
        if kind == STEP_TILE:
            return "step 1: play a tile from your hand ({play: T12, ...}) or {play: none}"
        if kind == STEP_MOVE:
            left = self.movement_points(state) - state.turn.moves
            return (f"step 2: {left} movement point(s) left: {{move: r7, to: G5}}, {{move: B3, to: F4}} "
                    "or {done: move}")
        if kind == STEP_REMOVE:
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            return f"step 3: remove a terrain tile, one of {', '.join(spots)}: {{remove: {spots[0]}}}"
        if kind == STEP_BOARDERS:
            b = state.open_boarding()
            return (f"choose {self.capacity(state, b.boat)} swimmers at {self.label(b.cell)} to board "
                    f"ship {b.boat}: {{board: [r1, b2, g3]}}")
        if kind == STEP_CREATURE:
            return f"step 4: the die shows {state.turn.die}: {{creature: HANDLE, to: SPACE}} or {{creature: none}}"
        if kind == STEP_DEFENSE:
            r = state.open_reaction()
            return (f"{r.creature} attacks at {self.label(r.cell)}: play a defense tile {{defend: TILE}} "
                    "or {defend: none}")
        return ""

    def legal_actions(self, state: State, player: str) -> list[Action]:
        if self.decider(state) != player:
            return []
        return getattr(self, self.deciders[self.current_step(state)])(state, player)

    def apply(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        kind = action_kind(action, self.action_shapes)
        if kind not in self.anytime_actions and state.phase == OVER:
            raise IllegalAction("the game is over")
        events = getattr(self, self.handlers[kind])(state, player, action, rng)
        self.after_action(state, events)
        return events

    # --- views --------------------------------------------------------------------------
    def view(self, state: State, viewer: str | None) -> Position:
        return self.make_view(state, viewer)

    def secrets(self, state: State, player: str) -> dict[str, Any]:
        """What ``player`` knows that the public does not: hand tiles with backs, own
        explorer values when visible, standing orders."""
        out: dict[str, Any] = {
            "hand": {h: {"back": state.tiles[h].back, "obtained": state.tiles[h].obtained}
                     for h in self.hand(state, player)},
            "standing": dict(sorted((state.standing.get(player) or {}).items())),
        }
        values = {h: e.value for h, e in state.explorers.items()
                  if e.owner == player and self.sees_value(state, player, e)
                  and not self.sees_value(state, None, e)}
        if values:
            out["explorer_values"] = values
        return out

    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture:
        return atlantis_picture(view, self.data_game)   # pbem/rules/atlantis/picture.py: pieces, from the view

    def result_sections(self, view: Mapping[str, Any], result: Result) -> list[Section]:
        return atlantis_result_sections(view, result)   # pbem/rules/atlantis/result_page.py: the end-of-game table

    def describe_event(self, event: Mapping[str, Any]) -> str:
        return self.describe(event)

    def summary(self, view: Mapping[str, Any]) -> list[str]:
        return self.summary_lines(view)

    def turn_number(self, view: Mapping[str, Any]) -> int:
        return int(view["turn"]["number"])

    def move_template(self, state_view: Mapping[str, Any], player: str) -> str:
        return self.template(state_view, player)
