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
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, Callable, Container, Generic, Hashable, Mapping, Sequence, TypeVar

from pbem.base.canonical import canonical
from pbem.base.errors import PbemError
from pbem.core.rng import NeedsSecret, Rng

Action = dict[str, Any]
Position = dict[str, Any]

S = TypeVar("S")   # a game's state type

__all__ = ["Action", "Position", "IllegalAction", "OptionError", "NeedsSecret", "PositionError", "OptionSpec",
           "Decision", "Event", "Result", "Piece", "HexCell", "BoardPicture", "Section", "ActionPlaces", "OrderField",
           "OrderForm", "Game", "Rng", "default_places", "best_scored", "NEEDS_CHANCE", "HANDS_OVER"]


class IllegalAction(Exception):
    """The action breaks a rule.  ``str(exc)`` is one line a player can act on."""


class OptionError(PbemError):
    """A bad option value or combination, or a bad player count (one line)."""


class PositionError(PbemError):
    """A position that cannot start a game.  ``str(exc)`` is one line naming the field and what
    is allowed, e.g. ``position: turn.player: 'nobody' is not a player (players: red, blue)``."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"position: {field}: {problem}" if field else f"position: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class OptionSpec:
    """One ``--option NAME=VALUE`` a game accepts.

    ``setup_only``: the option decides the set-up (which pieces, who gets what), so a game
    started from a position keeps the position's value; ``pbem new --position`` refuses an
    ``--option`` that would change it.
    """

    name: str
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""
    setup_only: bool = False


class Decision:
    """A decision the game is waiting for.

    ``player``; ``kind``, e.g. "setup-explorer", "play-tile", "move", "remove-tile", "creature",
    "defense"; ``prompt``, one line for humans with no hidden information.  A game may give
    the prompt as a function of no arguments: it is then made only when someone reads it (bots
    and simulations ask for the pending decisions after every action and never read it); read
    it before the state changes."""

    __slots__ = ("player", "kind", "_prompt")

    def __init__(self, player: str, kind: str, prompt: str | Callable[[], str] = "") -> None:
        self.player = player
        self.kind = kind
        self._prompt = prompt

    @property
    def prompt(self) -> str:
        if not isinstance(self._prompt, str):
            self._prompt = self._prompt()
        return self._prompt

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return (self.player, self.kind, self.prompt) == (other.player, other.kind, other.prompt)

    def __hash__(self) -> int:
        return hash((self.player, self.kind, self.prompt))

    def __repr__(self) -> str:
        return f"Decision(player={self.player!r}, kind={self.kind!r}, prompt={self.prompt!r})"


@dataclass
class Event:
    """Something that happened while applying an action.

    ``public`` goes to the log and every digest; ``private`` maps a player to
    what only that player learns (it goes to that player's secrets only).
    ``chance`` is True when the step drew randomness or revealed hidden
    information, so later written-ahead orders may no longer fit.
    ``auto`` is set when the engine decided something on a player's behalf
    (a standing order fired); its text is the reason, and it is logged.
    """

    public: dict[str, Any]
    private: dict[str, dict[str, Any]] = field(default_factory=dict)
    chance: bool = False
    auto: str = ""


@dataclass(frozen=True)
class Result:
    """The end of the game: scores per player and the winners (ties share)."""

    scores: dict[str, int]
    winners: list[str]
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Piece:
    """One piece drawn on a board picture: the game decides what it is, the renderer how it looks.

    ``shape`` names a drawing the renderers know (``pbem.views.render.shapes.SHAPES``): people
    (``explorer``, ``swimmer``), vessels that carry ``passengers`` (``ship``, ``pod``),
    creatures (``serpent``, ``shark``, ``whale``, ``dolphin``, ``squid``, ``monster``,
    ``octopus``), stacks (``fleet``) and a plain ``disc``; an unknown shape is drawn as a disc.
    ``colour`` is the owner's colour: a name the palette knows (``red``, ``blue``... drawn in
    a colour-blind-safe palette) or a CSS ``#rrggbb``; "" for a piece nobody owns (a creature).
    ``text`` is the short letter or count written on it.  ``value`` is a hidden value the
    reader may see (their own token's number): games put it only in pictures made from a view
    that shows it, so it appears on the reader's private board and never on the public one.
    ``moved``/``moved_from`` are filled by the engine (:func:`pbem.views.boardmoves.mark_moves`):
    the piece is not where it was at the reader's last turn (``moved_from`` is that space's
    label, "" when it was not on the board)."""

    handle: str                  # the piece's public handle, e.g. "r7", "B3", "K1"
    shape: str = "disc"
    colour: str = ""
    text: str = ""
    title: str = ""              # hover text, e.g. "r7: red explorer (alice), swimming"
    passengers: list["Piece"] = field(default_factory=list)
    value: str | None = None
    moved: bool = False
    moved_from: str = ""


@dataclass
class HexCell:
    """One cell of a hex board picture, for the generic renderers.

    A game gives either ``pieces`` (drawn as shapes in player colours) or the older ``marks``
    (short codes drawn as text); the text map shows pieces by their handles."""

    q: int                     # axial column (pointy-top hexes)
    r: int                     # axial row, grows southward
    label: str                 # the coordinate players type, e.g. "F6"
    kind: str                  # terrain/fill key, e.g. "sea", "beach", "forest", "mountain", "isle"
    marks: list[str] = field(default_factory=list)  # short piece codes drawn in the cell, e.g. ["S", "B3", "r7"]
    mark_colours: list[str] = field(default_factory=list)   # optional CSS colour per mark (SVG), "" = default
    pieces: list[Piece] = field(default_factory=list)
    #: the cell's kind is not what it was at the reader's last turn (a tile removed, a ruin visited);
    #: filled by the engine like ``Piece.moved``
    changed: bool = False
    was: str = ""              # the kind it had then, when ``changed``


@dataclass
class BoardPicture:
    """Everything a renderer needs to draw a hex board.  ``legend`` explains mark codes.

    ``colours`` gives each kind its SVG fill and ``symbols`` its one character on
    the text map (kinds without one get a letter of their name).  ``key`` explains the
    pieces: a sample piece and what it stands for, drawn under the board.  Renderers know
    no game's terrain names: everything about a kind comes from these tables."""

    cells: list[HexCell]
    legend: dict[str, str] = field(default_factory=dict)
    colours: dict[str, str] = field(default_factory=dict)   # kind -> CSS colour for SVG
    symbols: dict[str, str] = field(default_factory=dict)   # kind -> one ASCII character for the text map
    key: list[tuple[Piece, str]] = field(default_factory=list)
    #: kind -> a texture drawn over its fill (``pbem.views.render.textures.TEXTURES``: "dots", "trees",
    #: "peaks", "stars", "grid"...), so that kinds differ by more than their colour
    textures: dict[str, str] = field(default_factory=dict)


@dataclass
class Section:
    """A part of a view that is not the hex map, for the digests.

    * ``kind="table"``: ``columns`` are headings, ``rows`` the cells (strings);
    * ``kind="cards"``: a row of cards, each row ``[label, detail]`` (detail may be "");
    * ``kind="track"``: an ordered track (turn order, a score track), each row
      ``[label, detail]``; ``current`` is the index of the highlighted item.

    ``colours`` optionally gives a CSS colour per row (e.g. a player's colour).
    Made from a view only (``Game.sections``), never from the full state.
    """

    title: str
    kind: str = "table"
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    current: int | None = None
    colours: list[str] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class ActionPlaces:
    """Where an action shows on the board of the click-to-move page (``Game.action_places``).

    ``piece``: the handle of the piece the action moves or puts on the board (picked first);
    ``from_cell``: the space it is on now ("" when it is not on the board: the supply, a hand);
    ``to_cell``: the space it goes to; ``tile``: a space the action takes by itself, clicked
    once (remove the tile at G5).  All "" for an action the board cannot show (play a tile
    from the hand, a bid, "done"): the page offers it as a button.  ``piece``, ``to_cell``
    and ``tile`` depend on the action alone; ``from_cell`` on the view too."""

    piece: str = ""
    from_cell: str = ""
    to_cell: str = ""
    tile: str = ""


@dataclass(frozen=True)
class OrderField:
    """One control of an :class:`OrderForm`: a name and the values it may take, each in
    move-file syntax (``auto``, ``none``, ``{creature: K1, to: F4}``) with how it reads."""

    name: str
    label: str
    values: tuple[str, ...]
    texts: tuple[str, ...] = ()    # how each value reads ("" or missing: as written)
    current: str = ""              # the value in force now (a standing order), "" = none


@dataclass(frozen=True)
class OrderForm:
    """Orders a player sets in a form on the click-to-move page: one action
    ``{key: {field: value, ...}}``.

    ``when="first"``: orders the player may send any time (standing orders); the move starts
    with the fields that differ from ``current``.  ``when="ahead"``: orders written ahead for
    the step that follows a roll or a hidden tile (a creature order for each die face); the
    page adds them, every field, after an action that stops the move there."""

    key: str
    title: str
    fields: tuple[OrderField, ...]
    when: str = "first"
    note: str = ""


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


class Game(ABC, Generic[S]):
    """Base class of every game.  Subclass per game; variants override only what differs.

    ``S`` is the game's state type (``class MyGame(Game[MyState])``)."""

    name: str = ""
    title: str = ""
    rules_version: str = ""
    min_players: int = 2
    max_players: int = 4
    #: action kinds (an action's first key) a player may send when it is not their decision,
    #: such as standing orders for reactions; the engine lets them through out of turn
    anytime_actions: tuple[str, ...] = ()

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
        audited from the log alone.  Raise ValueError (one line) for a file that
        cannot be used.  Default: the options unchanged."""
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

    @abstractmethod
    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture:
        """A drawable board from a view (never from the full state)."""

    def sections(self, view: Mapping[str, Any]) -> list[Section]:
        """Other parts of a view for the digests (tables, card rows, tracks), from a view only.  Default: none."""
        return []

    def result_sections(self, view: Mapping[str, Any], result: Result) -> list[Section]:
        """The end-of-game page: the score table (with what each score is made of where the
        game can show it, e.g. every saved piece's value), the tie-break applied and the
        winner, from the viewer's view and the result.  Default: one row per player with
        their score, winners marked (``pbem.core.results.score_table``)."""
        from pbem.core.results import score_table
        return [score_table(result)]

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """One human line for a public (or private) event mapping."""
        return ", ".join(f"{k}={v}" for k, v in event.items())

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """How one choice reads in `pbem turn` and on the click-to-move page.

        Default: the action in move-file syntax, e.g. ``{move: r7, to: G5}``."""
        from pbem.core.actiontext import action_text
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
        labels = {c.label for c in board.cells}
        where: dict[str, str] = {}
        for cell in board.cells:
            for p in cell.pieces:
                where[p.handle] = cell.label
                where.update({x.handle: cell.label for x in p.passengers})
        return [default_places(action, labels, where) for action in actions]

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

    def ahead_order_forms(self, state: S, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        """The forms of :meth:`order_forms` written ahead (``when == "ahead"``), where ``view`` is
        ``view(state, player)`` and ``state`` a state made from the player's own view: a game may
        read them off the state rather than reading the view back.  Default: from
        :meth:`order_forms`."""
        return [f for f in self.order_forms(view, player) if f.when == "ahead"]

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


def default_places(action: Mapping[str, Any], labels: Container[str], where: Mapping[str, str]) -> ActionPlaces:
    """:meth:`Game.action_places` for one action: ``labels`` are the board's spaces, ``where``
    maps the handle of each piece to its space ("" off the board)."""
    piece, first, spaces = "", None, list[str]()
    for n, value in enumerate(action.values()):
        if n == 0:
            first = value
        if isinstance(value, list):
            spaces.extend(v for v in value if isinstance(v, str) and v in labels)
        elif isinstance(value, str):
            if not piece and value in where:
                piece = value
            elif value in labels:
                spaces.append(value)
    if piece:
        return ActionPlaces(piece, where[piece], spaces[-1] if spaces else "")
    if isinstance(first, str) and first in labels and len(spaces) == 1:
        return ActionPlaces(tile=first)
    if isinstance(first, str) and first and first.lower() != "none" and spaces:
        return ActionPlaces(first, "", spaces[-1])
    return ActionPlaces()
