"""The root of every Survive ruleset: the game's data, small helpers, and the declared hooks.

A Survive ruleset is one linear chain of classes, one per part of the rulebook, each
module building on the one before (``base`` -> ``scoring`` -> ``setup`` -> ``movement``
-> ``reactions`` -> ``creatures`` -> ``tiles`` -> ``flow`` -> ``view`` -> ``rules``).
A part calls what the parts before it define; the few calls forward (``advance``,
``start_play``) are declared here.  A game (Atlantis, 1986, Space Attack) is a subclass
of :class:`~pbem.rules.survive.rules.SurviveRules`, and each expansion a subclass of its
game that joins only when its option is on (:mod:`pbem.rules.survive.game` composes them).

The dispatch tables (action kind -> handler, decision kind -> legal actions, turn step
-> starter, tile rule -> effect, creature rule -> behaviour) are built once per ruleset
in ``__init__`` from ``*_table`` methods that each part and layer extends with
``{**super().x_table(), ...}``: explicit, typed, and never a method name built from a
data string.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Container, Generic, Mapping, Sequence, TypeVar

from pbem.base.data import game_data
from pbem.game import Event, IllegalAction, NeedsSecret, OptionSpec, Rng
from pbem.rules.survive.board import Board
from pbem.rules.survive.vocabulary import SURVIVE_WORDS
from pbem.rules.survive.state import ISLAND, OVER, PLAY, STEP_BOARDERS, STEP_DEFENSE, Creature, State, Tile

Path = list[int]
#: a sea walk: space reached -> (the space it was entered from, the step it was entered on)
Walk = dict[int, tuple[int, int]]
Events = list[Event]
StateT = TypeVar("StateT", bound=State)


@dataclass
class SurviveData:
    """A game's YAML, read once per game object and shared by all its rulesets.

    ``files``: data kind -> file name in ``games/<folder>/``; an expansion's numbers are
    ``<name>.yaml`` there unless ``files`` names another file."""

    folder: str
    files: Mapping[str, str]
    board: Board = field(init=False)
    terrains: tuple[str, ...] = field(init=False)        # tile kinds in removal order
    tile_backs: dict[str, dict[str, Any]] = field(init=False)
    comp: dict[str, Any] = field(init=False)             # components.yaml
    extras: dict[str, Mapping[str, Any]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.board = Board.from_data(game_data(self.folder, self.files["board"]))
        tiles = game_data(self.folder, self.files["tiles"])
        self.terrains = tuple(tiles["terrains"])
        self.tile_backs = {k: dict(v) for k, v in tiles["backs"].items()}
        self.comp = game_data(self.folder, self.files["components"])

    def extra(self, name: str) -> Mapping[str, Any]:
        """An expansion's numbers: ``NAME.yaml`` (or ``files[NAME]``), read once."""
        if name not in self.extras:
            self.extras[name] = game_data(self.folder, self.files.get(name, f"{name}.yaml"))
        return self.extras[name]


ActionHandler = Callable[[StateT, str, Mapping[str, Any], Rng], Events]
#: a decision's legal actions, in order: a list, or a sequence that makes each only when read
#: (:mod:`pbem.core.choices`); :meth:`SurviveRules.legal_actions` lists it
Decider = Callable[[StateT, str], Sequence[dict[str, Any]]]
StepStarter = Callable[[StateT, "Rng | None", Events, "str | None"], bool]
#: where an action (legal now) leads, where known without applying it: (state, player, action) ->
#: NEEDS_CHANCE, HANDS_OVER or "" (pbem.game.Game.known_outcomes)
OutcomeTest = Callable[[StateT, str, Mapping[str, Any]], str]
TileEffect = Callable[[StateT, Tile, str, Events, "list[str] | None"], None]
#: spaces a sea walk asks about (what blocks it, where it ends): a set, a dict keyed by space
#: (``state.tile_at``: the land), or :class:`SpacesWhere` (a rule asked space by space)
Spaces = Container[int]
#: no space at all (a walk that nothing ends early)
NOWHERE: frozenset[int] = frozenset()


class SpacesWhere:
    """The spaces where ``test`` holds, asked space by space (for a rule that has no set of
    them at hand): ``cell in SpacesWhere(test)`` is ``test(cell)``."""

    __slots__ = ("test",)

    def __init__(self, test: Callable[[int], bool]) -> None:
        self.test = test

    def __contains__(self, cell: Any) -> bool:
        return self.test(cell)


@dataclass(frozen=True)
class CreatureRule(Generic[StateT]):
    """What a creature behaviour (a ``rule:`` such as serpent, shark or whale) does.

    ``stops``: its movement ends on entering the cell; ``arrive``: what happens where it
    ends (it may open a reaction window); ``attack``: the attack once a reaction window
    closed with no defence (None: it never opens one); ``stop_cells``: the spaces where ``stops``
    holds, all at once, for a walk without a call per space."""

    stops: Callable[[StateT, int], bool]
    arrive: Callable[[StateT, Creature, int, Events], None]
    attack: Callable[[StateT, Creature, int, Events], None] | None = None
    #: every space where ``stops`` holds, worked out at once (None: ``stops`` is asked space by
    #: space); the two must agree (tests/golden/test_fast_paths.py checks them in many games)
    stop_cells: Callable[[StateT], Spaces] | None = None


@dataclass(frozen=True)
class HandTile(Generic[StateT]):
    """A tile rule played from the hand: its legal parameter sets, and its effect."""

    options: Callable[[StateT, str, str], list[dict[str, Any]]]      # (state, player, back)
    play: Callable[[StateT, str, str, Mapping[str, Any], Events], None]  # (state, player, back, action, events)
    #: a tile that moves one piece (``{play: T3, KEY: piece, to: space}``, :func:`moving_tile`): each
    #: piece it may move with the spaces it may go to, in the order of ``options`` (so that the
    #: options can be made only when read); None for another tile
    moves: Callable[[StateT, str, str], list[tuple[str, list[str]]]] | None = None
    key: str = ""       # the key naming the piece moved (``swimmer``, ``boat``)


def moving_tile(moves: Callable[[StateT, str, str], list[tuple[str, list[str]]]], key: str,
                play: Callable[[StateT, str, str, Mapping[str, Any], Events], None]) -> HandTile[StateT]:
    """A hand tile that moves one piece: its options are ``{KEY: piece, to: space}`` for each piece
    and space ``moves`` gives."""
    def options(state: StateT, player: str, back: str) -> list[dict[str, Any]]:
        return [{key: piece, "to": to} for piece, spaces in moves(state, player, back) for to in spaces]
    return HandTile(options, play, moves, key)


class SurviveBase(ABC, Generic[StateT]):
    """Data, helpers and declared hooks shared by every part of a Survive ruleset."""

    #: the state record this game plays on (a game may extend the core's)
    state_class: type[StateT]

    #: the game's words for its pieces and places (:mod:`pbem.rules.survive.vocabulary`)
    vocabulary: ClassVar[Mapping[str, str]] = SURVIVE_WORDS

    def word(self, key: str) -> str:
        """The game's word for ``key`` (:attr:`vocabulary`)."""
        return self.vocabulary[key]

    #: the phrases a logged event carries as its ``cause`` or ``reason``, made of word keys: the log
    #: is a file format, so they are logged in the Survive core's words whatever the game (a game
    #: begun under an earlier pbem replays to the same events), and shown in the game's own words
    LOGGED_PHRASES: ClassVar[tuple[tuple[str, ...], ...]] = (
        ("sailed", " into a ", "sea creature"), ("swam", " into a ", "sea creature"),
        ("no ", "terrain tiles", " left"), ("no ", "explorers", " left"))

    def logged(self, *parts: str) -> str:
        """A logged phrase: word keys in the core's words, the rest as it is (see LOGGED_PHRASES)."""
        return "".join(SURVIVE_WORDS.get(part, part) for part in parts)

    def shown(self, logged: str) -> str:
        """A logged phrase in the game's own words (a table, no pattern: LOGGED_PHRASES)."""
        for parts in self.LOGGED_PHRASES:
            if logged == self.logged(*parts):
                return "".join(self.vocabulary.get(part, part) for part in parts)
        return logged

    def __init__(self, data: SurviveData, option_specs: Sequence[OptionSpec]) -> None:
        self.data = data
        self.board = data.board
        self.comp = data.comp
        self.tile_backs = data.tile_backs
        self.terrains = data.terrains
        self.back_kind = {k: str(v["kind"]) for k, v in data.tile_backs.items()}
        #: every space of the board (a sea walk that ends wherever it enters)
        self.every_space: Spaces = range(len(data.board.labels))
        self.option_specs = tuple(option_specs)
        self.kinds_memo: dict[tuple[str, ...], tuple[str, ...]] = {}   # kinds_following
        self.option_defaults = {spec.name: spec.default for spec in option_specs}
        # the tables, built once per ruleset (tile backs first: the action tables ask for them)
        self.tile_effects: dict[str, TileEffect[StateT]] = {}
        self.hand_tiles: dict[str, HandTile[StateT]] = {}
        effects, hand = self.tile_effect_table(), self.hand_tile_table()
        for back in self.tile_backs:
            rule = self.back_rule(back)
            if rule in effects:
                self.tile_effects[back] = effects[rule]
            if rule in hand:
                self.hand_tiles[back] = hand[rule]
        self.turn_steps: tuple[str, ...] = self.turn_step_list()
        self.action_handlers: dict[str, ActionHandler[StateT]] = self.action_table()
        self.deciders: dict[str, Decider[StateT]] = self.decider_table()
        self.step_starters: dict[str, StepStarter[StateT]] = self.step_table()
        self.step_handlers: dict[str, dict[str, ActionHandler[StateT]]] = self.step_handler_table()
        self.creature_rules: dict[str, CreatureRule[StateT]] = self.creature_rule_table()
        self.outcome_tests: dict[str, OutcomeTest[StateT]] = self.outcome_table()

    # --- the tables (each part and layer extends them) ------------------------------
    def turn_step_list(self) -> tuple[str, ...]:
        """The turn steps in order (each a key of :meth:`step_table`)."""
        return ()

    def action_table(self) -> dict[str, ActionHandler[StateT]]:
        """Action kind (an action's first key) -> its handler."""
        return {}

    def outcome_table(self) -> dict[str, OutcomeTest[StateT]]:
        """Action kind -> where an action of that kind, legal now, leads when that is sure without
        applying it, as its handler in :meth:`action_table` is written
        (:meth:`pbem.game.Game.known_outcomes`; a layer that changes the handler changes or drops
        the entry).  A kind not here is not known (the click-to-move choices try it)."""
        return {}

    def step_handler_table(self) -> dict[str, dict[str, ActionHandler[StateT]]]:
        """Decision kind -> action kind -> the handler that answers that decision instead of
        the kind's usual one (e.g. a ``move`` in challenge #5's sunk-tile round)."""
        return {}

    def decider_table(self) -> dict[str, Decider[StateT]]:
        """Decision kind -> its legal actions, in order.  The entry is the rule: where the core
        has a quicker form of a listing (each action made only when read), the core's entry is
        that form, and a layer that lists a decision its own way puts its own entry here."""
        return {}

    def step_table(self) -> dict[str, StepStarter[StateT]]:
        """Turn step -> its starter: True when the step waits for a decision, False when it
        was skipped or resolved at once."""
        return {}

    def creature_rule_table(self) -> dict[str, CreatureRule[StateT]]:
        """Creature kind -> its behaviour (from the components' ``rule:``, default the kind)."""
        return {}

    def tile_effect_table(self) -> dict[str, TileEffect[StateT]]:
        """Tile rule -> the effect of a tile revealed with that rule (played at once)."""
        return {}

    def hand_tile_table(self) -> dict[str, HandTile[StateT]]:
        """Tile rule -> how a tile with that rule is played from the hand."""
        return {}

    def back_rule(self, back: str) -> str:
        """The rule a tile back follows: its ``rule:`` in the tiles data, else its own name."""
        return str(self.tile_backs[back].get("rule", back))

    def creature_rule(self, kind: str) -> CreatureRule[StateT]:
        return self.creature_rules[kind]

    def kinds_following(self, *rules: str) -> tuple[str, ...]:
        """The creature kinds whose ``rule:`` (default: the kind) is one of ``rules`` (from the
        data alone, so worked out once per ruleset)."""
        found = self.kinds_memo.get(rules)
        if found is None:
            found = self.kinds_memo[rules] = tuple(k for k, spec in self.comp["creatures"].items()
                                                   if spec.get("rule", k) in rules)
        return found

    # --- hooks declared here, defined by later parts ---------------------------------
    @abstractmethod
    def advance(self, state: StateT, rng: Rng | None, events: Events, after: str | None,
                die: str | None = None) -> None:
        """Go on from the end of turn step ``after`` (None: the start of a turn) to the next
        decision (defined by :class:`~pbem.rules.survive.flow.TurnFlow`)."""

    @abstractmethod
    def start_play(self, state: StateT, events: Events) -> None:
        """Set-up is over: the first turn begins (defined by the turn flow)."""

    def check_playable(self, state: StateT) -> None:
        """Raise :class:`~pbem.game.PositionError` (one line: what is missing and what to add)
        when a game cannot go on from ``state``, a state read from a position that is not over
        (:meth:`pbem.game.Game.check_playable`).  Each part adds what its rules need and calls
        ``super()``: the set-up, pieces to place and room for them; the tiles, a tile whose
        turning up ends the game.  Default: accept."""

    def variant_prompt(self, state: StateT, kind: str) -> str:
        """A layer's prompt for decision ``kind`` ("" = the game's own prompt)."""
        return ""

    def cause_name(self, kind: str) -> str:
        """A creature kind as the log names it in a cause ("shark K2").  Default: the kind."""
        return kind

    # --- labels ---------------------------------------------------------
    def label(self, cell: int | None) -> str:
        """The label of a cell ("" for no cell)."""
        return "" if cell is None else self.board.labels[cell]

    def cell_arg(self, value: Any, what: str = "space") -> int:
        """A board label typed by a player -> cell index, or a one-line IllegalAction."""
        if isinstance(value, str) and value in self.board.index:
            return self.board.index[value]
        if isinstance(value, str) and value.upper() in self.board.index:
            return self.board.index[value.upper()]
        raise IllegalAction(f"{what} {value!r} is not a space on the board (spaces look like G6)")

    def path_arg(self, value: Any, what: str = "path") -> list[int]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise IllegalAction(f"{what} must be a list of spaces, e.g. [F4, F3]")
        return [self.cell_arg(v, what) for v in value]

    # --- whose decision ---------------------------------------------------
    def current_step(self, state: StateT) -> str:
        """The decision kind the game waits for ("" when over)."""
        return state.turn.step if state.phase == PLAY else (state.phase if state.phase != OVER else "")

    def decider(self, state: StateT) -> str | None:
        if state.phase == OVER:
            return None
        if state.reaction is not None and state.phase == PLAY and state.turn.step == STEP_DEFENSE:
            return state.open_reaction().queue[0]
        return state.turn.player

    def waiting_decision(self, state: StateT) -> str | None:
        """The decision an effect has just opened in the middle of a turn step (a defense
        window, a boat choice, a layer's own), or None: the turn goes on."""
        if state.reaction is not None:
            return STEP_DEFENSE
        if state.boarding is not None:
            return STEP_BOARDERS
        return None

    def wait_or_advance(self, state: StateT, rng: Rng | None, events: Events, after: str,
                        die: str | None = None) -> Events:
        """End an action of step ``after``: wait for the decision its effects opened (see
        :meth:`waiting_decision`), else go on to the next decision.  Returns ``events``."""
        waiting = self.waiting_decision(state)
        if waiting:
            state.turn.step = waiting
        else:
            self.advance(state, rng, events, after, die)
        return events

    def expect(self, state: StateT, player: str, *steps: str) -> None:
        """Raise IllegalAction unless ``player`` is to decide one of ``steps`` now."""
        if state.phase == OVER:
            raise IllegalAction("the game is over")
        if player not in state.players:
            raise IllegalAction(f"{player!r} is not playing in this game")
        step, who = self.current_step(state), self.decider(state)
        if who != player:
            raise IllegalAction(f"it is not your decision: waiting for {who} ({step})")
        if step not in steps:
            raise IllegalAction(f"not now: the game waits for {step}, not {' or '.join(steps)}")

    # --- options ----------------------------------------------------------
    def option(self, state: StateT, name: str) -> str:
        value = state.options.get(name)
        return self.option_defaults[name] if value is None else str(value)

    # --- hidden information -------------------------------------------------
    @staticmethod
    def known_back(state: State, tile: str) -> str:
        back = state.tiles[tile].back
        if back is None:
            raise NeedsSecret(f"the back of tile {tile} is hidden")
        return back

    def hand(self, state: StateT, player: str) -> list[str]:
        """Tile handles in ``player``'s hand, in handle order (the state's index, :attr:`State.hands`)."""
        return list(state.hands.get(player, ()))

    # --- summaries ------------------------------------------------------------
    def tiles_left(self, state: StateT) -> str:
        """Island tiles left per terrain, for the summary: "beach 3, forest 5, mountain 2"."""
        left = {t: 0 for t in self.terrains}
        for t in state.tiles.values():
            if t.where == ISLAND:
                left[t.terrain] += 1
        return ", ".join(f"{k} {v}" for k, v in left.items())

    # --- sea walks ------------------------------------------------------------
    def sea_walk(self, start: int, max_steps: int, blocked: Spaces, ends: Spaces) -> Walk:
        """Sea spaces reachable in 1..max_steps steps (start excluded), each with the space it
        is first entered from and the step it is entered on: a breadth-first walk.

        ``blocked``: the spaces the piece may not move into; ``ends``: the spaces where its
        movement ends when it enters them (it may still end there).  The start space is
        reachable again by going out and back when ``max_steps >= 2``.
        """
        neighbours = self.board.neighbours
        if max_steps == 1:          # (a third of the walks: each free neighbour, entered on step 1)
            return {n: (start, 1) for n in neighbours[start] if n not in blocked}
        walk: Walk = {}
        if max_steps < 1:
            return walk
        frontier = [start]
        for step in range(1, max_steps):
            nxt: list[int] = []
            for cell in frontier:
                for n in neighbours[cell]:
                    if n in walk or n in blocked:
                        continue
                    walk[n] = (cell, step)
                    if n not in ends:
                        nxt.append(n)
            if not nxt:
                return walk     # nothing left to walk from: more steps find nothing new
            frontier = nxt
        for cell in frontier:   # the last step: whether the movement would end there is not asked
            for n in neighbours[cell]:
                if n not in walk and n not in blocked:
                    walk[n] = (cell, max_steps)
        return walk

    @staticmethod
    def path_to(walk: Walk, cell: int) -> Path:
        """The shortest path :meth:`sea_walk` found to ``cell`` (start excluded)."""
        path = [cell]
        for _ in range(walk[cell][1] - 1):
            cell = walk[cell][0]
            path.append(cell)
        path.reverse()
        return path

    def reach(self, start: int, max_steps: int, blocked: Spaces, ends: Spaces) -> dict[int, Path]:
        """:meth:`sea_walk`'s spaces -> one shortest path to each."""
        paths: dict[int, Path] = {}
        for cell, (came_from, step) in self.sea_walk(start, max_steps, blocked, ends).items():
            # (the walk lists a space after the one it was entered from, if that is not the start)
            paths[cell] = [cell] if step == 1 else [*paths[came_from], cell]
        return paths

    def check_path(self, start: int, path: Path, min_steps: int, max_steps: int,
                   blocked: Spaces, ends: Spaces, what: str) -> None:
        """Raise IllegalAction unless ``path`` is a legal walk from ``start``."""
        if not min_steps <= len(path) <= max_steps:
            raise IllegalAction(f"{what} moves {min_steps} to {max_steps} spaces, not {len(path)}")
        here = start
        for i, cell in enumerate(path):
            if cell not in self.board.neighbours[here]:
                raise IllegalAction(f"{what}: {self.label(cell)} is not next to {self.label(here)}")
            if cell in blocked:
                raise IllegalAction(f"{what} cannot enter {self.label(cell)}")
            if i < len(path) - 1 and cell in ends:
                raise IllegalAction(f"{what} must stop at {self.label(cell)}")
            here = cell

    def walk_arg(self, action: Mapping[str, Any], start: int, max_steps: int,
                 blocked: Spaces, ends: Spaces, what: str, allow_return: bool = True) -> Path:
        """The path of a ``to:``/``path:`` walk, checked; ``to:`` finds a shortest legal path."""
        if "path" in action and action["path"] is not None:
            path = self.path_arg(action["path"], what + " path")
            if "to" in action and action["to"] is not None and self.cell_arg(action["to"]) != path[-1]:
                raise IllegalAction(f"{what}: 'to' and the end of 'path' differ")
            self.check_path(start, path, 1, max_steps, blocked, ends, what)
        elif "to" in action and action["to"] is not None:
            dest = self.cell_arg(action["to"], what + " destination")
            walk = self.sea_walk(start, max_steps, blocked, ends)
            if dest not in walk:
                raise IllegalAction(f"{what} cannot reach {self.label(dest)} "
                                    f"(at most {max_steps} {self.word('sea spaces' if max_steps > 1 else 'sea space')})")
            path = self.path_to(walk, dest)
        else:
            raise IllegalAction(f"{what}: say where, with to: SPACE or path: [SPACE, ...]")
        if not allow_return and path[-1] == start:
            raise IllegalAction(f"{what} must end away from where it starts")
        return path


def event(public: dict[str, Any], private: dict[str, dict[str, Any]] | None = None,
          chance: bool = False, auto: str = "") -> Event:
    return Event(public, private or {}, chance, auto)
