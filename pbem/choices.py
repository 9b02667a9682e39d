"""Legal actions as a sequence that makes each action only when it is read.

A bot picks one of the legal actions by its index (:mod:`pbem.bots`); where the actions are
every pairing of two lists (a set-up placement: every explorer in reserve on every empty
tile, a few hundred), listing them all to take one is most of the bot's work.  A
:class:`Pairs` has the length and the order of the full list and builds only the actions
asked for, so the bot takes the same action as from the list (``Game.legal_choices``).
A :class:`Grouped` holds each piece's moves as steps (where it may go), counted without
listing them or listed once and shared (the greedy bot scores the steps), each action made
only when read (the movement step: about 80 moves, one taken); a :class:`Chain` puts such
sequences one after the other.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence, TypeVar, overload

A = TypeVar("A")
B = TypeVar("B")

Action = dict[str, Any]


class LazyActions(Sequence[Action]):
    """A sequence of actions made when read: subclasses give ``__len__``, ``__iter__`` and
    :meth:`item`; indexing (negative indexes, slices, the bounds) is done here once."""

    def item(self, k: int) -> Action:
        """The action at ``0 <= k < len(self)``."""
        raise NotImplementedError

    @overload
    def __getitem__(self, k: int) -> Action: ...

    @overload
    def __getitem__(self, k: slice) -> list[Action]: ...

    def __getitem__(self, k: int | slice) -> Action | list[Action]:
        if isinstance(k, slice):
            return [self.item(i) for i in range(*k.indices(len(self)))]
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("legal action index out of range")
        return self.item(k)


class Pairs(LazyActions):
    """``[make(a, b) for a in firsts for b in seconds]``, made one item at a time."""

    def __init__(self, firsts: Sequence[A], seconds: Sequence[B], make: Callable[[A, B], Action]) -> None:
        self._firsts, self._seconds, self._make = list(firsts), list(seconds), make

    @property
    def make(self) -> Callable[[Any, Any], Action]:
        """The function that makes each action (a bot's scores may depend on it alone)."""
        return self._make

    def __len__(self) -> int:
        return len(self._firsts) * len(self._seconds)

    def item(self, k: int) -> Action:
        first, second = divmod(k, len(self._seconds))
        return self._make(self._firsts[first], self._seconds[second])

    def __iter__(self) -> Iterator[Action]:
        make = self._make
        return (make(a, b) for a in self._firsts for b in self._seconds)


class Grouped(LazyActions):
    """The actions of several keys, one key's after the other's (a piece's moves, then the next
    piece's).  A key's actions are its *steps* (where the piece may go), listed by
    ``steps(key)`` once, when first asked for, and made into actions one at a time by
    ``make(key, step)``: a bot taking one of them makes only that one.

    The length is the sum of every key's number of steps: taken from the steps themselves once
    every key's are listed (the greedy bot scores them all), else counted without listing them
    by ``count()`` (one number per key, in order: the random bot lists one key's; without
    ``count``, every key's steps are listed to count them).  A key listed after being counted
    is checked against its count."""

    def __init__(self, keys: Sequence[str], steps: Callable[[str], list[Any]], make: Callable[[str, Any], Action],
                 count: Callable[[], list[int]] | None = None) -> None:
        self._keys, self._steps, self._make, self._count = list(keys), steps, make, count
        self._listed: list[list[Any] | None] = [None] * len(self._keys)
        self._counts: list[int] | None = None

    @property
    def keys(self) -> list[str]:
        return self._keys

    @property
    def make(self) -> Callable[[str, Any], Action]:
        """The function that makes an action from a key and one of its steps (a bot's scores may
        depend on it alone)."""
        return self._make

    def steps_of(self, i: int) -> list[Any]:
        """The steps of the ``i``-th key (listed once)."""
        listed = self._listed[i]
        if listed is None:
            listed = self._listed[i] = self._steps(self._keys[i])
            if self._counts is not None and len(listed) != self._counts[i]:
                raise RuntimeError(f"rules bug: {self._counts[i]} legal actions counted for {self._keys[i]}, "
                                   f"{len(listed)} listed")
        return listed

    def counts(self) -> list[int]:
        """How many actions each key has: from the steps where every key's are listed, else counted."""
        if self._counts is None:
            listed = self._listed
            if None not in listed:
                self._counts = [len(steps) for steps in listed if steps is not None]
                return self._counts
            if self._count is None:
                self._counts = [len(self.steps_of(i)) for i in range(len(listed))]
                return self._counts
            self._counts = self._count()
            for i, steps in enumerate(listed):
                if steps is not None and len(steps) != self._counts[i]:
                    raise RuntimeError(f"rules bug: {self._counts[i]} legal actions counted for {self._keys[i]}, "
                                       f"{len(steps)} listed")
        return self._counts

    def group(self, i: int) -> list[Action]:
        """The actions of the ``i``-th key."""
        key, make = self._keys[i], self._make
        return [make(key, step) for step in self.steps_of(i)]

    def groups(self) -> Iterator[tuple[str, list[Action]]]:
        """Each key with its actions, in order."""
        for i, key in enumerate(self._keys):
            yield key, self.group(i)

    def __len__(self) -> int:
        return sum(self.counts())

    def item(self, k: int) -> Action:
        for i, count in enumerate(self.counts()):
            if k < count:
                return self._make(self._keys[i], self.steps_of(i)[k])
            k -= count
        raise IndexError("legal action index out of range")   # pragma: no cover - the counts cover every index

    def __iter__(self) -> Iterator[Action]:
        for i in range(len(self._keys)):
            yield from self.group(i)


class Chain(LazyActions):
    """The sequences one after the other (a list of actions, then :class:`Pairs`...), read by
    index (the parts' lengths are asked only when an index or the length is)."""

    def __init__(self, parts: Sequence[Sequence[Action]]) -> None:
        self._parts = list(parts)
        self._ends: list[int] | None = None

    @property
    def parts(self) -> list[Sequence[Action]]:
        """The sequences chained, in order."""
        return self._parts

    def ends(self) -> list[int]:
        """Where each part ends (the index after its last action)."""
        if self._ends is None:
            self._ends = []
            total = 0
            for part in self._parts:
                total += len(part)
                self._ends.append(total)
        return self._ends

    def __len__(self) -> int:
        ends = self.ends()
        return ends[-1] if ends else 0

    def item(self, k: int) -> Action:
        start = 0
        for part, end in zip(self._parts, self.ends()):
            if k < end:
                return part[k - start]
            start = end
        raise IndexError("legal action index out of range")   # pragma: no cover - the ends cover every index

    def __iter__(self) -> Iterator[Action]:
        for part in self._parts:
            yield from part
