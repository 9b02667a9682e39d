"""The one interface every game implements.

The engine core (log, submit, audit, digests, bots, CLI) talks to a game only
through :class:`Game`.  A game is a stateless object holding its rules; all
mutable data lives in a *state* object that the game creates, mutates in
:meth:`Game.apply` and converts to and from a plain *position* mapping.

Conventions
-----------
* An **action** is a small mapping in move-file syntax, e.g.
  ``{"move": "r7", "to": "F6"}``.  Keys are strings, values are strings,
  integers, booleans, lists or mappings of those.  ``legal_actions`` returns
  the complete list of atomic actions a player may take now; games may also
  accept richer "written ahead" actions (e.g. creature orders for every die
  face) that are not listed.
* A **position** is the full state as plain YAML/JSON data.  ``to_position``
  and ``from_position`` round-trip exactly.  ``view`` returns the same shape,
  with hidden values replaced by ``None`` for viewers who may not see them,
  so ``from_position(view(state, None))`` gives a state with unknowns that
  can still check legality up to the first hidden/random step (used by
  ``pbem check`` on a player's machine).
* **Randomness** comes only from the :class:`pbem.core.rng.Rng` passed in.  A
  state built from a public view gets an rng that raises
  :class:`NeedsSecret`; so does touching an unknown hidden value.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from itertools import compress
from typing import Any, Generic, Hashable, Mapping, Sequence, TypeVar

from pbem.base.canonical import canonical
from pbem.core.actiontext import action_text
from pbem.core.picture import ActionPlaces, BoardPicture, BoardPlaces, OrderForm, Piece, Section, default_places, places_of
from pbem.core.records import Action, Decision, Event, OptionError, OptionSpec, Position, Result
from pbem.core.results import score_table
from pbem.core.rng import Rng
from pbem.core.turnmodel import TurnModel
from pbem.core.sharedview import read_back

S = TypeVar("S")   # a game's state type

__all__ = ["Game", "S", "best_scored", "pending_players", "NEEDS_CHANCE", "HANDS_OVER"]


#: :meth:`Game.known_outcomes`: the action needs a hidden value or a roll before it takes effect
NEEDS_CHANCE = "chance"
#: :meth:`Game.known_outcomes`: the action takes effect and the next decision is another player's
HANDS_OVER = "hands-over"


def best_scored(scores: Sequence[float]) -> list[int]:
    """The indexes of the scores within 1e-9 of the best, in order (none for no scores): the
    actions the `greedy` bot chooses among (:meth:`Game.bot_favourites`)."""
    if not scores:
        return []
    least = max(scores) - 1e-9
    return list(compress(range(len(scores)), map(least.__le__, scores)))    # (s >= least, in C)



#: the event the engine logs for ``{prefer: [...]}`` (pbem/core/engine.py), in every game
PREFERENCE_EVENT = "preference list"


def preference_list_line(event: Mapping[str, Any]) -> str:
    """How every game reads the engine's own ``preference list`` event (the public learns that a list
    came; the player's private copy says how many entries it holds)."""
    entries = event.get("entries")
    return (f"{event.get('player')} sent a list of choices for their decisions to come"
            + (f" ({entries} entries)" if entries is not None else ""))


class Game(ABC, Generic[S]):
    """Base class of every game.  Subclass per game; variants override only what differs.

    ``S`` is the game's state type (``class MyGame(Game[MyState])``)."""

    name: str = ""
    title: str = ""
    rules_version: str = ""
    #: earlier rules versions this pbem still plays, each with the option values that keep its
    #: behaviour for options added since (a rule whose default changed becomes an option; a game
    #: begun under the old rules keeps the old reading: conformance/README.md).  Default: none.
    earlier_rules: Mapping[str, Mapping[str, str]] = {}
    min_players: int = 2
    max_players: int = 4
    #: action kinds (an action's first key) a player may send when it is not their decision,
    #: such as standing orders for reactions; the engine lets them through out of turn
    anytime_actions: tuple[str, ...] = ()
    #: action kinds that are a player's intentions, nothing on the board yet (standing orders for
    #: reactions): `pbem play` seals them to the moderator before it signs, as it seals preference
    #: lists, so that the other players do not read them in the log.  Default: none
    private_orders: tuple[str, ...] = ()

    # --- set-up ---------------------------------------------------------
    @abstractmethod
    def option_specs(self) -> Sequence[OptionSpec]:
        """The options this game accepts with their defaults."""

    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        """Raise :class:`OptionError` (one line) for a bad option or combination, or a bad player count."""
        specs = {s.name: s for s in self.option_specs()}
        for key, value in options.items():
            if key not in specs:
                raise OptionError(f"unknown option {key!r}; known options: {', '.join(sorted(specs))}")
            if specs[key].choices and value not in specs[key].choices:
                raise OptionError(f"option {key}={value!r} is not one of {', '.join(specs[key].choices)}")

    def full_options(self, options: Mapping[str, str]) -> dict[str, str]:
        """Options with defaults filled in (what the header records)."""
        return {s.name: str(options.get(s.name, s.default)) for s in self.option_specs()}

    def resolve_options(self, options: Mapping[str, str], players: Sequence[str]) -> dict[str, str]:
        """Options as the signed header must hold them, called by ``pbem new`` before checking them.

        A game whose option names a file (e.g. a hand-made map) reads it here and
        returns its content as the option's value, so the game can be replayed and
        audited from the log alone.  Raise :class:`OptionError` (one line) for a file that
        cannot be used (a ``ValueError`` is taken the same: ``OPTION_REFUSALS``).  Default: the
        options unchanged."""
        return dict(options)

    def display_options(self, options: Mapping[str, str]) -> dict[str, str]:
        """Options as digests show them (e.g. a file's content as ``custom (sha256 ...)``).  Default: as they are."""
        return dict(options)

    @abstractmethod
    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> S:
        """Create the initial state (shuffles etc. drawn from ``rng``)."""

    # --- positions ------------------------------------------------------
    @abstractmethod
    def to_position(self, state: S) -> Position:
        """The full state as plain data (hidden values included)."""

    @abstractmethod
    def from_position(self, position: Mapping[str, Any]) -> S:
        """Inverse of :meth:`to_position`; ``None`` values are unknowns."""

    def read_view(self, view: Mapping[str, Any]) -> S:
        """:meth:`from_position` of a view, read once per shared view (:mod:`pbem.core.sharedview`:
        one reader's digest asks several hooks of the same view): the caller must not change it
        (:meth:`copy_state` first)."""
        return read_back(view, "state", self.from_position)

    def copy_state(self, state: S) -> S:
        """An independent copy of ``state``: actions applied to it leave ``state`` as it was (the
        click-to-move choices try every action on a copy).  Default: a pickle round trip; a game
        whose state is plain records may copy them field by field, sharing nothing mutable."""
        import pickle
        return pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))

    def check_position(self, position: Mapping[str, Any]) -> None:
        """Raise :class:`PositionError` (one line naming the field) unless ``position`` is a full
        position a game can start from: every piece in a place its kind may be, every reference
        to something that exists, counts that fit the box.  ``pbem new --position`` calls it
        before anything is written.  Default: accept (the game checks nothing more than
        :meth:`from_position` does)."""

    def check_playable(self, state: S) -> None:
        """Raise :class:`PositionError` (one line: what is missing and what to add) when the game
        cannot be played on from ``state``, a state read from a checked position that is not
        over: what only the game knows, such as the pieces its turn needs or the tile its end
        needs.  :func:`pbem.core.playable.check_playable` calls it, then checks what holds for every
        game (a pending decision with a legal action; a short trial game).  Default: accept."""

    def position_options(self, position: Mapping[str, Any]) -> dict[str, str] | None:
        """The options a (checked) position is played with, or None when this game's positions
        do not record options.  Default: None."""
        return None

    def position_with_options(self, position: Mapping[str, Any], options: Mapping[str, str]) -> Position:
        """``position`` played with ``options`` instead of its own (full options, already
        checked).  Only called when :meth:`position_options` is not None."""
        raise NotImplementedError(f"{self.name} records no options in its positions")

    # --- play -----------------------------------------------------------
    @abstractmethod
    def pending(self, state: S) -> list[Decision]:
        """Decisions the game waits for now (empty when the game is over)."""

    @abstractmethod
    def legal_actions(self, state: S, player: str) -> list[Action]:
        """Every atomic action ``player`` may take now, in move-file syntax."""

    def legal_choices(self, state: S, player: str) -> Sequence[Action]:
        """:meth:`legal_actions` as a sequence of the same length and order that may make each
        action only when it is read (:mod:`pbem.core.choices`): a bot taking one of hundreds builds
        one.  Default: the list itself."""
        return self.legal_actions(state, player)

    @abstractmethod
    def apply(self, state: S, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
        """Apply one action by ``player``; mutate ``state``; return what happened.

        Raise :class:`IllegalAction` (state untouched) when the action breaks a rule.
        Chance steps that follow automatically (die rolls, defense reactions
        by standing order) happen inside this call.
        """

    @abstractmethod
    def result(self, state: S) -> Result | None:
        """The final result once the game is over, else ``None``."""

    # --- views ----------------------------------------------------------
    @abstractmethod
    def view(self, state: S, viewer: str | None) -> Position:
        """THE one function that decides what a viewer sees.

        ``viewer=None`` is the public; a player name gives that player's view
        (public plus their own secrets).  Same shape as :meth:`to_position`
        with hidden values the viewer may not see replaced by ``None``.
        """

    def view_key(self, state: S, viewer: str | None) -> Hashable:
        """A key of ``view(state, viewer)``: equal for two states of one game exactly when their
        views are (the same canonical JSON).  The click-to-move choices make one decision of two
        orders that reach the same view (r1 then r2, r2 then r1) by it, once for every action
        tried; a game may make it more cheaply than the view, from the fields the view shows
        (as tuples: each field of one type, so that ``==`` tells what the JSON tells).  Default:
        the SHA-256 of the view's canonical JSON."""
        return hashlib.sha256(canonical(self.view(state, viewer))).digest()

    @abstractmethod
    def secrets(self, state: S, player: str) -> dict[str, Any]:
        """Only what ``player`` knows that the public does not (for the encrypted secrets)."""

    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture | None:
        """A drawable board from a view (never from the full state).  Default: none: a game
        without a hex board (cards, tracks, tables) shows itself in :meth:`sections` only, and
        the digests and pages draw no board."""
        return None

    def board_piece(self, view: Mapping[str, Any], handle: str) -> Piece | None:
        """The piece ``handle`` as :meth:`board_picture` draws it on a space of ``view`` (not a
        vessel's passenger); None when it is on none.  The click-to-move page's set-up plan asks
        for each piece a player may place.  Default: found on the whole board picture; a game
        may draw the one piece (the same :class:`Piece`)."""
        picture = self.board_picture(view)
        cells = picture.cells if picture is not None else []
        return next((p for c in cells for p in c.pieces if p.handle == handle), None)

    def board_places(self, view: Mapping[str, Any]) -> BoardPlaces | None:
        """Where each piece of :meth:`board_picture` is and what each space is (None: no board):
        what a later board is compared with, to mark what moved since a reader's last turn.
        Default: read off the whole picture; a game may find them without drawing (the same
        :class:`BoardPlaces`)."""
        picture = self.board_picture(view)
        return None if picture is None else places_of(picture)

    def sections(self, view: Mapping[str, Any]) -> list[Section]:
        """Other parts of a view for the digests (tables, card rows, tracks), from a view only.  Default: none."""
        return []

    def result_sections(self, view: Mapping[str, Any], result: Result) -> list[Section]:
        """The end-of-game page: the score table (with what each score is made of where the
        game can show it, e.g. every saved piece's value), the tie-break applied and the
        winner, from the viewer's view and the result.  Default: one row per player with
        their score, winners marked (``pbem.core.results.score_table``)."""
        return [score_table(result)]

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """One human line for a public (or private) event mapping: the engine's own events (a
        preference list sent) in the same words in every game, the game's through
        :meth:`describe_game_event`.  (Not overridden: a game describes its own events.)"""
        if event.get("event") == PREFERENCE_EVENT:
            return preference_list_line(event)
        return self.describe_game_event(event)

    def describe_game_event(self, event: Mapping[str, Any]) -> str:
        """One human line for one of the game's own events.  Default: ``key=value`` pairs."""
        return ", ".join(f"{k}={v}" for k, v in event.items())

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """How one choice reads in `pbem turn` and on the click-to-move page.

        Default: the action in move-file syntax, e.g. ``{move: r7, to: G5}``."""
        return action_text(action)

    def action_places(self, view: Mapping[str, Any], player: str,
                      actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        """Where each of ``player``'s actions shows on the board of the click-to-move page, from
        their view.

        Default, from the board picture: the first value naming a piece on the board is the
        piece (from its space); the last space named by the other values (``to``, the end of
        a ``path``) is where it goes; an action whose first value is a space and names no
        piece takes that space (``{remove: G5}``); a first value that is neither, followed by
        a space, is a piece from off the board (``{place: r1, on: G5}``); anything else is a
        button.  Games whose handles and spaces can look alike override it."""
        board = self.board_picture(view)
        cells = board.cells if board is not None else []
        labels = {c.label for c in cells}
        where: dict[str, str] = {}
        for cell in cells:
            for p in cell.pieces:
                where[p.handle] = cell.label
                where.update({x.handle: cell.label for x in p.passengers})
        return [default_places(action, labels, where) for action in actions]

    def state_action_places(self, state: S, player: str, actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        """:meth:`action_places` of ``view(state, player)``, where ``state`` is a state made from
        the player's own view: the click-to-move choices ask it at every decision they find, and
        a game may read the places off the state rather than making the view for them (the tests
        check the answers against :meth:`action_places` at every node of the golden graphs).
        Default: from the view."""
        return self.action_places(self.view(state, player), player, actions)

    def known_outcomes(self, state: S, player: str, actions: Sequence[Mapping[str, Any]]) -> list[str]:
        """For each of ``player``'s legal ``actions`` now (``legal_actions(state, player)``, in
        that order), where it leads when the game knows without applying it, on a state made
        from the player's own view (no secrets): :data:`NEEDS_CHANCE`, the action cannot take
        effect before a hidden value is read or a die is rolled, so the engine stops there
        (``NeedsSecret``, or an event marked ``chance``): removing a tile whose back is hidden,
        playing a tile from the hand, which shows its back to everyone; :data:`HANDS_OVER`, the
        action takes effect with nothing hidden or random and the next decision is another
        player's (a set-up placement while others still have pieces to place); "" where it is
        not known.  The click-to-move choices (:mod:`pbem.views.choicegraph`) follow the known ones
        without trying them on a copy, so a game answers only what is sure; the tests check
        every answer against the engine at every decision of the golden games.  Default:
        none known."""
        return [""] * len(actions)

    def order_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        """The orders ``player`` may set in a form on the click-to-move page at this point of
        their move (standing orders; orders written ahead for each die face), from their view.
        Default: none."""
        return []

    def ahead_order_forms(self, state: S, player: str) -> list[OrderForm]:
        """The forms of :meth:`order_forms` of ``view(state, player)`` written ahead (``when ==
        "ahead"``), where ``state`` is a state made from the player's own view: a game may read
        them off the state rather than making the view and reading it back.  Default: from
        :meth:`order_forms` of the view."""
        return [f for f in self.order_forms(self.view(state, player), player) if f.when == "ahead"]

    def turn_model(self, view: Mapping[str, Any], player: str) -> TurnModel | None:
        """The model of this game's rules that ``player``'s page runs to follow their whole turn
        (:class:`pbem.core.turnmodel.TurnModel`: a JS family shipped with pbem and its data), made
        from ``view``, the player's own view (``view(state, player)``), and nothing else: no
        value the player may not see.  The tests (``tests/turnmodel/``) drive the model against
        this game's engine at many states: it must never offer an action the engine refuses nor
        leave out one it allows.  Default: None (the page uses the generic model over the capped
        choice graph)."""
        return None

    def move_template(self, state_view: Mapping[str, Any], player: str) -> str:
        """A fill-in YAML snippet for the actions section of a move file."""
        return "actions:\n  - {}  # see `pbem legal`\n"

    def bot_preference(self, state: S, player: str, action: Mapping[str, Any]) -> float:
        """How much the `greedy` bot likes an action (higher is better; default: indifferent).

        Must use only what ``player`` can see, so that bot choices leak nothing.
        """
        return 0.0

    def bot_preferences(self, state: S, player: str, actions: Sequence[Mapping[str, Any]]) -> list[float]:
        """:meth:`bot_preference` of each action (the greedy bot scores a whole list at once; a
        game may work out what every score shares once)."""
        return [self.bot_preference(state, player, a) for a in actions]

    def bot_favourites(self, state: S, player: str, actions: Sequence[Mapping[str, Any]]) -> Sequence[int]:
        """The indexes of the actions the `greedy` bot likes best, in order: those scored within
        1e-9 of the best :meth:`bot_preferences` score (none for no actions).  A game may find
        them without scoring every action (where it knows every score is the same)."""
        return best_scored(self.bot_preferences(state, player, actions))

    def pass_action(self, state: S, player: str) -> Action | None:
        """The "do nothing" action for a decision (used when a deadline passes), or None if there is none."""
        return None

    def turn_number(self, view: Mapping[str, Any]) -> int:
        """The turn number shown by `pbem status` (0 during set-up)."""
        turn = view.get("turn", 0)
        return turn if isinstance(turn, int) else 0

    def summary(self, view: Mapping[str, Any]) -> list[str]:
        """A few human lines about the state (turn, tiles left, scores so far)."""
        return []


def pending_players(game: Game[Any], state: Any) -> list[str]:
    """The players with a pending decision, each once, in the order of ``game.pending``."""
    seen: list[str] = []
    for d in game.pending(state):
        if d.player not in seen:
            seen.append(d.player)
    return seen
