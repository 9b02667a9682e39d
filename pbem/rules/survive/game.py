"""A Survive game at the :class:`pbem.game.Game` interface: the ruleset for a state's options.

A :class:`SurviveGame` names its data folder, its options, its base ruleset (the game's
layer on the core, e.g. ``AtlantisRules``) and the expansion layers an option
combination switches on (:meth:`SurviveGame.layers`).  The ruleset for an option
combination is the base ruleset with those layers in front of it, built once and cached:
a layer is present only when its option is on, so it never asks "is my option on?".

Every :class:`~pbem.game.Game` call on a state goes to the ruleset of that state's
options and player count; calls on a view (board picture, summary, template) to the
ruleset of the view's options.
"""
from __future__ import annotations

from typing import Any, Generic, Mapping, Sequence, cast

from pbem.core.actionwords import Phrase, action_words
from pbem.core.sharedview import read_public
from pbem.rules.survive.words import PHRASES as SURVIVE_PHRASES
from pbem.game import (
    Action,
    ActionPlaces,
    BoardPicture,
    BoardPlaces,
    Decision,
    Event,
    Game,
    OptionError,
    OrderForm,
    Piece,
    Position,
    Result,
    Rng,
    TurnModel,
)
from pbem.rules.survive.base import StateT, SurviveData
from pbem.rules.survive.rules import SurviveRules
from pbem.rules.survive.turnmodel import survive_turn_model

Layer = type[SurviveRules[Any]]


class SurviveGame(Game[StateT], Generic[StateT]):
    #: games/<folder>/ with this game's YAML, and its files per data kind
    data_folder: str = ""
    data_files: Mapping[str, str] = {"board": "board.yaml", "tiles": "tiles.yaml", "components": "components.yaml"}
    #: the game's own ruleset (its layer on the core)
    base_rules: type[SurviveRules[StateT]]

    def __init__(self) -> None:
        self._data: dict[str, SurviveData] = {}
        self._rulesets: dict[tuple[str, tuple[Layer, ...]], SurviveRules[StateT]] = {}
        #: (the options as given, player count) -> ruleset: every call on a state asks, so the
        #: layers are worked out once per option combination, not on every call
        self._by_options: dict[tuple[tuple[tuple[str, Any], ...], int], SurviveRules[StateT]] = {}
        #: the options mapping last asked about (the very object, kept so that it stays that object),
        #: its player count and ruleset: a game in play asks with the same state again and again
        self._last_options: Mapping[str, str] | None = None
        self._last_count = 0
        self._last_rules: SurviveRules[StateT] | None = None
        default = self.data_variant(self.full_options({}))
        self.data = self.data_for(default)
        self.base = self.rules_with((), default)

    # --- words ---------------------------------------------------------------------------
    def describe_action(self, action: Mapping[str, Any]) -> str:
        """An action in words (the page's buttons and history, `pbem turn`)."""
        return action_words(action, self.phrases)

    #: action kind -> how it reads (pbem.rules.survive.words)
    phrases: Mapping[str, Phrase] = SURVIVE_PHRASES

    # --- the data ----------------------------------------------------------------------
    def data_variant(self, options: Mapping[str, str]) -> str:
        """Which of the game's data sets these (full) options play on, e.g. Space Attack's
        ``map``: a board of its own.  Default: the one data set ("")."""
        return ""

    def load_data(self, variant: str) -> SurviveData:
        """The data of one variant (:meth:`data_variant`).  Default: the game's files."""
        return SurviveData(self.data_folder, self.data_files)

    def data_for(self, variant: str) -> SurviveData:
        """The data of ``variant``, read once."""
        data = self._data.get(variant)
        if data is None:
            data = self._data[variant] = self.load_data(variant)
        return data

    # --- composing the rules ------------------------------------------------------------
    def layers(self, options: Mapping[str, str], n_players: int) -> tuple[Layer, ...]:
        """The expansion layers these (full) options and player count switch on, in the order
        they stand in front of the base ruleset (first = asked first).  Default: none."""
        return ()

    def rules_with(self, layers: tuple[Layer, ...], variant: str = "") -> SurviveRules[StateT]:
        """The ruleset of the base rules with ``layers`` in front, on the data of ``variant``
        (built once)."""
        key = (variant, layers)
        rules = self._rulesets.get(key)
        if rules is None:
            cls: type[SurviveRules[StateT]] = self.base_rules
            if layers:
                name = "+".join(layer.__name__ for layer in layers)
                cls = cast(type[SurviveRules[StateT]], type(name, (*layers, self.base_rules), {}))
            rules = cls(self.data_for(variant), self.option_specs())
            self._rulesets[key] = rules
        return rules

    def ruleset(self, options: Mapping[str, str], n_players: int) -> SurviveRules[StateT]:
        """The rules for these options (missing ones are the defaults) and player count."""
        try:
            key = (tuple(options.items()), n_players)
            rules = self._by_options.get(key)
        except TypeError:         # an unhashable value (a hand-made position): work it out each time
            key, rules = None, None
        if rules is None:
            full = {s.name: str(options.get(s.name, s.default)) for s in self.option_specs()}
            rules = self.rules_with(self.layers(full, n_players), self.data_variant(full))
            if key is not None:
                self._by_options[key] = rules
        return rules

    def rules(self, state: StateT) -> SurviveRules[StateT]:
        rules = self._last_rules
        if state.options is self._last_options and len(state.players) == self._last_count and rules is not None:
            return rules
        options, n = state.options, len(state.players)
        rules = self.ruleset(options, n)
        self._last_options, self._last_count, self._last_rules = options, n, rules
        return rules

    def view_rules(self, view: Mapping[str, Any]) -> SurviveRules[StateT]:
        """The rules a view was made with (the base rules if the view does not say)."""
        options, players = view.get("options"), view.get("players")
        if not isinstance(options, Mapping) or not isinstance(players, list):
            return self.base
        return self.ruleset({str(k): str(v) for k, v in options.items()}, len(players))

    # --- set-up ---------------------------------------------------------------------------
    def check_player_count(self, players: Sequence[str]) -> None:
        if not self.min_players <= len(players) <= self.max_players:
            raise OptionError(f"{self.title} takes {self.min_players}-{self.max_players} players, not {len(players)}")
        if len(set(players)) != len(players):
            raise OptionError("player names must differ")

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> StateT:
        self.check_options(options, players)
        full = self.full_options(options)
        return self.ruleset(full, len(players)).new_state(players, full, rng)

    # --- positions ------------------------------------------------------------------------
    def to_position(self, state: StateT) -> Position:
        return self.rules(state).make_view(state, None, omniscient=True)

    def copy_state(self, state: StateT) -> StateT:
        return state.copy()

    def from_position(self, position: Mapping[str, Any]) -> StateT:
        return self.view_rules(position).read_position(position)

    def check_playable(self, state: StateT) -> None:
        """The ruleset's own check (:meth:`~pbem.rules.survive.base.SurviveBase.check_playable`)."""
        self.rules(state).check_playable(state)

    def position_options(self, position: Mapping[str, Any]) -> dict[str, str]:
        """The position's ``options`` (a state plays with exactly these; missing ones are the defaults)."""
        return {str(k): str(v) for k, v in (position.get("options") or {}).items()}

    def position_with_options(self, position: Mapping[str, Any], options: Mapping[str, str]) -> Position:
        return {**position, "options": {k: str(options[k]) for k in sorted(options)}}

    # --- play -----------------------------------------------------------------------------
    def pending(self, state: StateT) -> list[Decision]:
        return self.rules(state).pending(state)

    def legal_actions(self, state: StateT, player: str) -> list[Action]:
        return self.rules(state).legal_actions(state, player)

    def legal_choices(self, state: StateT, player: str) -> Sequence[Action]:
        return self.rules(state).legal_choices(state, player)

    def apply(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
        return self.rules(state).apply(state, player, action, rng)

    def known_outcomes(self, state: StateT, player: str, actions: Sequence[Mapping[str, Any]]) -> list[str]:
        return self.rules(state).known_outcomes(state, player, actions)

    def result(self, state: StateT) -> Result | None:
        return self.rules(state).result(state)

    # --- views ------------------------------------------------------------------------------
    def view(self, state: StateT, viewer: str | None) -> Position:
        return self.rules(state).make_view(state, viewer)

    def view_key(self, state: StateT, viewer: str | None) -> tuple[Any, ...]:
        return self.rules(state).view_key(state, viewer)

    def secrets(self, state: StateT, player: str) -> dict[str, Any]:
        return self.rules(state).secrets(state, player)

    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture:
        return self.view_rules(view).picture(view)

    def board_piece(self, view: Mapping[str, Any], handle: str) -> Piece | None:
        return self.view_rules(view).picture_piece(view, handle)

    def board_places(self, view: Mapping[str, Any]) -> BoardPlaces:
        return self.view_rules(view).picture_places(view)

    def summary(self, view: Mapping[str, Any]) -> list[str]:
        """The summary shows only what every reader sees (the turn, who is waited for, the tiles and
        people counted): made once per entry, from its public view (:func:`read_public`; the same
        lines for every reader's view: tests/test_shared_view.py)."""
        return list(read_public(view, "summary", self._summary_lines))

    def _summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        return self.view_rules(view).summary_lines(view)

    def turn_number(self, view: Mapping[str, Any]) -> int:
        return int(view["turn"]["number"])

    def move_template(self, state_view: Mapping[str, Any], player: str) -> str:
        return self.view_rules(state_view).template(state_view, player)

    def action_places(self, view: Mapping[str, Any], player: str,
                      actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        return self.view_rules(view).action_places(view, player, actions)

    def state_action_places(self, state: StateT, player: str,
                            actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        return self.rules(state).state_action_places(state, player, actions)

    def turn_model(self, view: Mapping[str, Any], player: str) -> TurnModel | None:
        """The Survive family's model (pbem.rules.survive.turnmodel), for every game of the family."""
        model = survive_turn_model(self.view_rules(view), view, player)
        #: the action kinds this game words with a phrase of its own (survive.js has them all)
        return TurnModel(model.family, {**model.data, "phrases": sorted(self.phrases)})

    def order_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        return self.view_rules(view).order_forms(view, player)

    def ahead_order_forms(self, state: StateT, player: str) -> list[OrderForm]:
        return self.rules(state).ahead_forms_of(state, player)

    def pass_action(self, state: StateT, player: str) -> Action | None:
        return self.rules(state).pass_action(state, player)

    def bot_preference(self, state: StateT, player: str, action: Mapping[str, Any]) -> float:
        return self.rules(state).bot_preference(state, player, action)

    def bot_preferences(self, state: StateT, player: str, actions: Sequence[Mapping[str, Any]]) -> list[float]:
        return self.rules(state).bot_preferences(state, player, actions)

    def bot_favourites(self, state: StateT, player: str, actions: Sequence[Mapping[str, Any]]) -> Sequence[int]:
        return self.rules(state).bot_favourites(state, player, actions)
