"""Space Swarm on the :class:`pbem.game.Game` interface."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.core.actionwords import action_words
from pbem.core.sharedview import read_public
from pbem.rules.spaceswarm.words import PHRASES
from pbem.game import (
    Action,
    ActionPlaces,
    BoardPicture,
    Decision,
    Event,
    Game,
    IllegalAction,
    NeedsSecret,
    OptionSpec,
    OrderForm,
    Position,
    Result,
    Rng,
    Section,
    TurnModel,
)
from pbem.rules.spaceswarm import bot, flow, legal, picture, places
from pbem.rules.spaceswarm.actions import ANYTIME, decision, handler_for
from pbem.rules.spaceswarm.describe import describe
from pbem.rules.spaceswarm.mapgen import (
    GENERATED,
    MapError,
    display_value,
    is_map_text,
    map_size,
    parse_map_text,
    read_map_file,
)
from pbem.base.yamlio import load_strict
from pbem.rules.spaceswarm.options import OPTION_SPECS, Settings
from pbem.rules.spaceswarm.position_check import check_position
from pbem.rules.spaceswarm.prompts import prompt
from pbem.rules.spaceswarm.setup import new_state
from pbem.rules.spaceswarm.state import BID, OVER, SwarmState
from pbem.rules.spaceswarm.turnmodel import turn_model
from pbem.rules.spaceswarm.victory import scores
from pbem.rules.spaceswarm.view import make_position, read_position, secrets_of, view_key

MAX_TEMPLATE_STEPS = 12   # a whole turn: develop, discard, produce, move, attack... and reactions


class SpaceSwarmGame(Game[SwarmState]):
    name = "space-swarm"
    title = "Space Swarm"
    rules_version = "space-swarm/2"
    #: space-swarm/2: Event cards are not played in the phase where Technology is placed (``event_phase``)
    earlier_rules: Mapping[str, Mapping[str, str]] = {"space-swarm/1": {"event_phase": "any"}}
    min_players = 2
    max_players = 6
    anytime_actions = ANYTIME
    private_orders = ("standing",)

    # --- options -------------------------------------------------------------------
    def option_specs(self) -> Sequence[OptionSpec]:
        return OPTION_SPECS

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """An action in words (the page's buttons and history, `pbem turn`)."""
        return action_words(action, PHRASES)

    def resolve_options(self, options: Mapping[str, str], players: Sequence[str]) -> dict[str, str]:
        """``map=FILE``: the file's content goes into the options (and so the signed header)."""
        out = dict(options)
        value = out.get("map", GENERATED)
        if value != GENERATED and not is_map_text(value):
            out["map"] = read_map_file(value)
        return out

    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        super().check_options(options, players)
        if not self.min_players <= len(players) <= self.max_players:
            raise ValueError(f"{self.title} takes {self.min_players}-{self.max_players} players, not {len(players)}")
        settings = Settings.of(options)
        if settings.map == GENERATED:
            map_size(settings.map_settings, len(players))
            return
        if not is_map_text(settings.map):
            raise MapError(f"option map={settings.map!r}: give map=generated or the path of a map file to pbem new")
        board = parse_map_text(settings.map, len(players))
        if settings.map_settings.size != "auto" and \
                settings.map_settings.size != f"{board.hexmap.width}x{board.hexmap.height}":
            raise MapError(f"option size={settings.map_settings.size} does not match the hand-made map "
                           f"({board.hexmap.width}x{board.hexmap.height}); leave size out")

    def display_options(self, options: Mapping[str, str]) -> dict[str, str]:
        return {k: display_value(v) if k == "map" else v for k, v in options.items()}

    # --- set-up and positions --------------------------------------------------------
    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> SwarmState:
        self.check_options(options, players)
        state = new_state(players, self.full_options(options), rng)
        flow.start_turn(state, [])
        return state

    def to_position(self, state: SwarmState) -> Position:
        return make_position(state, None, omniscient=True)

    def copy_state(self, state: SwarmState) -> SwarmState:
        return state.copy()

    def from_position(self, position: Mapping[str, Any]) -> SwarmState:
        return read_position(position)

    def check_position(self, position: Mapping[str, Any]) -> None:
        """Every field checked before a game starts from ``position`` (docs/position-format.md)."""
        check_position(self, position)

    def position_options(self, position: Mapping[str, Any]) -> dict[str, str]:
        """The position's ``options`` (a state plays with exactly these; missing ones are the defaults)."""
        return {str(k): str(v) for k, v in (position.get("options") or {}).items()}

    def position_with_options(self, position: Mapping[str, Any], options: Mapping[str, str]) -> Position:
        """``position`` with ``options``, checked again: an option may not fit the step the position waits on
        (``tech_phase``), and then it is refused in one line like any bad position."""
        out = {**position, "options": {k: str(options[k]) for k in sorted(options)}}
        check_position(self, out)
        return out

    # --- play ---------------------------------------------------------------------------
    def pending(self, state: SwarmState) -> list[Decision]:
        now = decision(state)
        if now is None:
            return []
        player, kind = now
        return [Decision(player, kind, lambda: self.prompt(state, player, kind))]   # the text only when read

    def prompt(self, state: SwarmState, player: str, kind: str) -> str:
        return prompt(state, player, kind)

    def legal_actions(self, state: SwarmState, player: str) -> list[Action]:
        return legal.legal_actions(state, player)

    def legal_choices(self, state: SwarmState, player: str) -> Sequence[Action]:
        return legal.legal_choices(state, player)

    def apply(self, state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
        return handler_for(action)(state, player, action, rng)

    def result(self, state: SwarmState) -> Result | None:
        if state.phase != OVER:
            return None
        return Result(scores(state), list(state.winners), {"victory": state.victory})

    # --- views --------------------------------------------------------------------------
    def view(self, state: SwarmState, viewer: str | None) -> Position:
        return make_position(state, viewer, omniscient=False)

    def view_key(self, state: SwarmState, viewer: str | None) -> tuple[Any, ...]:
        return view_key(state, viewer)

    def secrets(self, state: SwarmState, player: str) -> dict[str, Any]:
        return secrets_of(state, player)

    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture:
        return picture.picture(view)

    def sections(self, view: Mapping[str, Any]) -> list[Section]:
        return picture.sections(view)

    def describe_game_event(self, event: Mapping[str, Any]) -> str:
        return describe(event)

    def action_places(self, view: Mapping[str, Any], player: str,
                      actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        return places.action_places(view, player, actions)

    def state_action_places(self, state: SwarmState, player: str,
                            actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        """:meth:`action_places` without the view (it reads only the players' names)."""
        return places.places_of(state.players, player, actions)

    def order_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        return places.order_forms(view, player)

    def ahead_order_forms(self, state: SwarmState, player: str) -> list[OrderForm]:
        """None: the only form (:func:`places.order_forms`) is the standing orders, set first."""
        return []

    def turn_model(self, view: Mapping[str, Any], player: str) -> TurnModel:
        return turn_model(view, player)

    def move_template(self, state_view: Mapping[str, Any], player: str) -> str:
        """The rest of the player's turn, each suggestion applied to a copy before the next is
        written, so that the template as it stands is a legal move (it stops where the next step
        needs what the player cannot know)."""
        work = self.copy_state(self.read_view(state_view))     # changed as the suggestions are applied
        lines = ["actions:"]
        for _ in range(MAX_TEMPLATE_STEPS):
            now = decision(work)
            if now is None or now[0] != player:
                break
            comments, suggestion = legal.template_step(work, player, now[1])
            lines += comments
            if not suggestion:
                break
            lines.append(f"  - {suggestion}")
            try:
                self.apply(work, player, load_strict(suggestion, "a suggestion"), Rng.unavailable())
            except (NeedsSecret, IllegalAction):
                break
        if len(lines) == 1:
            lines.append("  # nothing is asked of you now; any time: {event: C17}, {standing: {combat: auto}}")
        return "\n".join(lines) + "\n"

    def bot_preference(self, state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
        return bot.preference(state, player, action)

    def bot_preferences(self, state: SwarmState, player: str, actions: Sequence[Mapping[str, Any]]) -> list[float]:
        return bot.preferences(state, player, actions)

    def pass_action(self, state: SwarmState, player: str) -> Action | None:
        return legal.pass_action(state, player)

    def turn_number(self, view: Mapping[str, Any]) -> int:
        return int(view["turns"])

    def summary(self, view: Mapping[str, Any]) -> list[str]:
        """The summary shows only what every reader sees (round, phase, the deck's size): made once per
        entry, from its public view (:func:`read_public`; the same lines for every reader's view:
        tests/test_shared_view.py)."""
        return list(read_public(view, "summary", self._summary_lines))

    def _summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        state = self.read_view(view)
        deck = f"deck: {len(state.deck)} card(s) left"
        if state.phase == OVER:
            return [f"game over after round {state.round} ({state.victory}); winner(s): "
                    f"{', '.join(state.winners)}; {deck}"]
        if state.phase == BID:
            return [f"round {state.round} is over: Round Bid for round {state.round + 1}; {deck}"]
        return [f"round {state.round}, turn {state.turns}: {state.active}'s {state.phase} phase; {deck}"]



#: the game this module registers (entry point "pbem.games"; the source-checkout scan reads it)
GAME = SpaceSwarmGame
