"""Legal actions as a sequence that makes each action only when it is read.

A bot picks one of the legal actions by its index (:mod:`pbem.bots`); where the actions are
every pairing of two lists (a set-up placement: every explorer in reserve on every empty
tile, a few hundred), listing them all to take one is most of the bot's work.  A
:class:`Pairs` has the length and the order of the full list and builds only the actions
asked for, so the bot takes the same action as from the list (``Game.legal_choices``).
A :class:`Grouped` holds each piece's actions counted, made only for the piece read (the
movement step: about 80 moves, one taken); a :class:`Chain` puts such sequences one after
the other.
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
    piece's), each key's number of actions counted in advance: a key's actions are listed by
    ``listing(key)`` only when one of them is read, and checked against its count."""

    def __init__(self, keys: Sequence[str], counts: Sequence[int], listing: Callable[[str], list[Action]],
                 targets: Callable[[str], list[int]] | None = None) -> None:
        self._keys, self._counts, self._listing = list(keys), list(counts), listing
        self._total = sum(self._counts)
        self._listed: dict[int, list[Action]] = {}
        #: ``targets(key)``: where each of the key's actions goes, in order (a bot may score them
        #: from that without making the actions); None when the actions do not say
        self.targets = targets

    @property
    def keys(self) -> list[str]:
        return self._keys

    def group(self, i: int) -> list[Action]:
        """The actions of the ``i``-th key."""
        listed = self._listed.get(i)
        if listed is None:
            listed = self._listed[i] = self._listing(self._keys[i])
            if len(listed) != self._counts[i]:
                raise RuntimeError(f"rules bug: {self._counts[i]} legal actions counted for {self._keys[i]}, "
                                   f"{len(listed)} listed")
        return listed

    def groups(self) -> Iterator[tuple[str, list[Action]]]:
        """Each key with its actions, in order."""
        for i, key in enumerate(self._keys):
            yield key, self.group(i)

    def __len__(self) -> int:
        return self._total

    def item(self, k: int) -> Action:
        for i, count in enumerate(self._counts):
            if k < count:
                return self.group(i)[k]
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
