"""``Game.copy_state`` makes an independent, identical copy, at every step of every golden game.

The click-to-move choices (pbem/views/choicegraph.py), the bots' look-ahead and the terminal
composer try actions on copies of a state.  The Survive games and Space Swarm copy their
state field by field instead of through pickle: a field forgotten by a copy would be shared
with the original, and an action tried on the copy would change the real game.  So at every
step: the copy pickles to the same bytes as the original, no list, dict or mutable record is
reachable from both, the golden game's next action applied to the copy leaves the original
as it was, and the copy then is what the original is once the same action is applied to it.
"""
from __future__ import annotations

import dataclasses
import io
import operator
import pickle
from typing import Any, Callable

import pytest
from golden_games import CONFIGS, Config, replay, step_rng

from pbem.core.bots import random_action
from pbem.core.engine import action_rng
from pbem.core.registry import load_game
from pbem.core.rng import Rng

IMMUTABLE = (str, int, float, bool, bytes, type(None), range)


def mutable_parts(value: Any) -> list[Any]:
    """Every list, dict, set and record reachable from ``value`` (each once), but not frozen records.

    What each object is follows from its type alone, so that is worked out once per type
    (:func:`_kind`); a class object (a type) is looked at as itself (:func:`_kind_of_value`)."""
    seen: set[int] = set()
    found: list[Any] = []
    todo = [value]
    kinds = _KINDS
    while todo:
        v = todo.pop()
        t = type(v)
        kind = kinds.get(t)
        if kind is None:
            kind = _kind_of_value(v) if isinstance(v, type) else kinds.setdefault(t, _kind(t))
        if kind is _IMMUTABLE or id(v) in seen:
            continue
        seen.add(id(v))
        if kind is _SEQUENCE:
            todo.extend(v)
            continue
        if kind is _FROZEN:
            continue          # a frozen record (a map, a card face) is shared: its caches are its own
        found.append(v)
        if kind is _DICT:
            todo.extend(v.keys())
            todo.extend(v.values())
        elif kind is _ITEMS:
            todo.extend(v)
        elif isinstance(kind, _Record):    # a record: its fields, then its attributes
            todo.extend(kind.fields(v))
            if kind.has_dict or hasattr(v, "__dict__"):
                todo.extend(vars(v).values())
        else:
            raise AssertionError(f"a state holds a {type(v).__name__}: teach this test what it is")
    return found


_IMMUTABLE, _SEQUENCE, _FROZEN, _DICT, _ITEMS, _UNKNOWN = "immutable", "sequence", "frozen", "dict", "items", "unknown"


@dataclasses.dataclass(frozen=True)
class _Record:
    """A record type: its fields' values (as a tuple) and whether its instances have a ``__dict__``
    (asked of each instance too when the type does not say so)."""

    fields: Callable[[Any], tuple[Any, ...]]
    has_dict: bool

    @staticmethod
    def of(t: type) -> _Record:
        names = [f.name for f in dataclasses.fields(t)]
        get = (lambda v: ()) if not names else (lambda v, g=operator.attrgetter(names[0]): (g(v),)) \
            if len(names) == 1 else operator.attrgetter(*names)
        return _Record(get, bool(getattr(t, "__dictoffset__", 0)))


_KINDS: dict[type, Any] = {}     # type -> one of the above, or a _Record


def _kind(t: type) -> Any:
    """What :func:`mutable_parts` does with a value of type ``t`` (not a class object): skips it
    (immutable), walks its items (a tuple or frozenset), stops at it (a frozen record), or
    takes it and walks what it holds (a dict, a list or set, a record: its fields)."""
    if issubclass(t, IMMUTABLE):
        return _IMMUTABLE
    if issubclass(t, (tuple, frozenset)):
        return _SEQUENCE
    if dataclasses.is_dataclass(t) and t.__dataclass_params__.frozen:   # type: ignore[attr-defined]
        return _FROZEN
    if issubclass(t, dict):
        return _DICT
    if issubclass(t, (list, set)):
        return _ITEMS
    if dataclasses.is_dataclass(t):
        return _Record.of(t)
    return _UNKNOWN


def _kind_of_value(v: type) -> Any:
    """:func:`_kind` for a class object held as a value: a dataclass's class is taken as a record
    (as ``dataclasses`` does), any other class is not something a state holds."""
    if frozen(v):
        return _FROZEN
    if dataclasses.is_dataclass(v):
        return _Record.of(v)
    return _UNKNOWN


def frozen(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and value.__dataclass_params__.frozen   # type: ignore[union-attr]


def state_bytes(state: Any) -> bytes:
    """The state pickled, its frozen records by their fields (Space Swarm's map fills caches
    of its own as it is used: they are not the game's state), its mutable slots records as
    their class and the tuple of their fields (:class:`_RecordsPickler`)."""
    fields = {k: dataclasses.astuple(v) if frozen(v) else v for k, v in vars(state).items()}
    out = io.BytesIO()
    _RecordsPickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump((type(state).__name__, fields))
    return out.getvalue()


def _record_reducer(t: type) -> Callable[[Any], tuple[type, tuple[Any, ...]]] | None:
    """How :class:`_RecordsPickler` writes an instance of ``t``: for a mutable dataclass whose
    slots are exactly its fields (no ``__dict__``: a state's records), as ``t`` called with its
    fields' values, read by one ``attrgetter`` (pickle's own way, an object's slots gathered into a
    dict by name, is two to three times dearer); None for any other type (pickle's own way).  Two
    such records pickle alike exactly when they do pickle's own way: the same class, the same
    values in the same fields, shared the same way (pickle's memo is the same)."""
    if not (isinstance(t, type) and dataclasses.is_dataclass(t)) or frozen(t) or getattr(t, "__dictoffset__", 0):
        return None
    names = tuple(f.name for f in dataclasses.fields(t))
    if not names or tuple(getattr(t, "__slots__", ())) != names:
        return None
    get = operator.attrgetter(*names)
    if len(names) == 1:
        return lambda v, t=t, get=get: (t, (get(v),))
    return lambda v, t=t, get=get: (t, get(v))


class _Reducers(dict[type, Any]):
    """type -> its :func:`_record_reducer`, worked out once per type; a type without one is not
    found (KeyError: pickle then writes it its own way)."""

    def __missing__(self, t: type) -> Any:
        reducer = _record_reducer(t)
        if reducer is None:
            raise KeyError(t)
        self[t] = reducer
        return reducer


class _RecordsPickler(pickle.Pickler):
    """A pickler that writes a state's mutable records as their class and fields (:func:`_record_reducer`)."""

    dispatch_table = _Reducers()


def check_copy(game: Any, state: Any, before: bytes | None = None) -> Any:
    """``game.copy_state(state)``, checked: of the same type, pickling to the same bytes as
    ``state`` (``before``: its bytes, when made already), sharing nothing mutable with it."""
    before = state_bytes(state) if before is None else before
    copy = game.copy_state(state)
    assert type(copy) is type(state)
    assert state_bytes(copy) == before
    mine = set(map(id, mutable_parts(state)))
    shared = [v for v in mutable_parts(copy) if id(v) in mine]
    assert not shared, [type(v).__name__ for v in shared][:5]
    return copy


@pytest.mark.parametrize("config", CONFIGS, ids=[f"game{c.game_no:02d}-{c.game}" for c in CONFIGS])
def test_a_copy_is_identical_and_shares_nothing_mutable(config: Config) -> None:
    """At every step: the copy checked (:func:`check_copy`); the step applied to the copy leaves
    the original as it was before it was copied; the copy is then what the original is once
    the replay applies the step to it.  (The original's bytes are made once per step: before
    its copy, and the same bytes after the step tried on the copy.)"""
    after_copy = None
    for game, state, number, step in replay(config):
        before = state_bytes(state)
        if after_copy is not None:          # the step applied to the copy did what it did to the original
            assert state_bytes(after_copy) == before, f"step {number - 1}"
        after_copy = check_copy(game, state, before)
        game.apply(after_copy, step["player"], step["action"], step_rng(config, number))
        assert state_bytes(state) == before, f"step {number} changed the original"
    assert after_copy is not None and state_bytes(after_copy) == state_bytes(state)   # (the last step)


@pytest.mark.parametrize("seed", range(6))
def test_space_swarm_copies_too(seed: int) -> None:
    """Space Swarm has no golden games: random games, two to five players, both decks."""
    game = load_game("space-swarm")
    players = ["red", "blue", "green", "yellow", "purple"][:2 + seed % 4]
    options = {"decks": "2"} if seed % 2 else {}
    state = game.setup(players, game.full_options(options), Rng(b"copy", f"setup/{seed}"))
    bot = Rng(b"copy-bot", str(seed))
    steps = 0
    while game.result(state) is None and steps < 3000:
        before = state_bytes(state)
        copy = check_copy(game, state, before)
        player = game.pending(state)[0].player
        action = random_action(game, state, player, bot)
        game.apply(copy, player, action, action_rng(b"copy", "swarm", steps, 0))
        assert state_bytes(state) == before, f"action {steps} changed the original"
        state = copy
        steps += 1
    assert steps > 50


def test_the_state_bytes_tell_a_record_changed_or_shared_apart() -> None:
    """:func:`state_bytes` (records written as their class and fields) differs where pickle's own
    way does: a field's value or type changed, a record of another class, a record shared by two
    places instead of two equal records."""
    game = load_game("atlantis")
    state = game.setup(["red", "blue"], game.full_options({}), Rng(b"copy", "bytes"))
    before = state_bytes(state)
    assert state_bytes(game.copy_state(state)) == before
    for change in (lambda s: setattr(next(iter(s.tiles.values())), "cell", 99),
                   lambda s: setattr(next(iter(s.explorers.values())), "value", 1.0 if s.explorers else 0),
                   lambda s: setattr(s.turn, "swum", ("x",)),
                   lambda s: s.creatures.update({"x": s.tiles[next(iter(s.tiles))]}),
                   lambda s: s.owned.update({p: [e.copy() for e in es] for p, es in s.owned.items()})):
        changed = game.copy_state(state)
        change(changed)
        assert state_bytes(changed) != before
        assert pickle.dumps(changed) != pickle.dumps(state)
