"""Legal actions as a sequence that makes each action only when it is read.

A bot picks one of the legal actions by its index (:mod:`pbem.core.bots`); where the actions are
every pairing of two lists (a set-up placement: every explorer in reserve on every empty
tile, a few hundred), listing them all to take one is most of the bot's work.  A
:class:`Pairs` has the length and the order of the full list and builds only the actions
asked for, so the bot takes the same action as from the list (``Game.legal_choices``).
A :class:`Chain` puts such sequences one after the other.  (The Survive games' movement
step has its own: ``pbem.rules.survive.movement.MoveChoices``.)
"""
from __future__ import annotations

from bisect import bisect_right
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
        self._length = len(self._firsts) * len(self._seconds)     # (its own lists: never changed)

    @property
    def make(self) -> Callable[[Any, Any], Action]:
        """The function that makes each action (a bot's scores may depend on it alone)."""
        return self._make

    def __len__(self) -> int:
        return self._length

    def item(self, k: int) -> Action:
        first, second = divmod(k, len(self._seconds))
        return self._make(self._firsts[first], self._seconds[second])

    def __iter__(self) -> Iterator[Action]:
        make = self._make
        return (make(a, b) for a in self._firsts for b in self._seconds)


class Chain(LazyActions):
    """The sequences one after the other (a list of actions, then :class:`Pairs`...), read by
    index (the parts' lengths are asked only when an index or the length is)."""

    def __init__(self, parts: Sequence[Sequence[Action]]) -> None:
        self._parts = list(parts)
        self._ends: list[int] = []      # where each of the first parts ends, as far as their lengths were asked

    @property
    def parts(self) -> list[Sequence[Action]]:
        """The sequences chained, in order."""
        return self._parts

    def _ends_past(self, k: int | None) -> list[int]:
        """Where the parts end (the index after each one's last action), each part's length asked
        once and in order, as far as the first part that ends after index ``k`` (all for None)."""
        ends, parts = self._ends, self.parts
        total = ends[-1] if ends else 0
        while len(ends) < len(parts) and (k is None or total <= k):
            total += len(parts[len(ends)])
            ends.append(total)
        return ends

    def ends(self) -> list[int]:
        """Where each part ends (the index after its last action)."""
        return self._ends_past(None)

    def __len__(self) -> int:
        ends = self.ends()
        return ends[-1] if ends else 0

    def item(self, k: int) -> Action:
        """The action at ``k >= 0``, in the part it falls in: the lengths of the parts after that
        one are not asked (a later part may be made only when read: the greedy bot's favourites
        are often all in the first).  Each part's length is asked once, and the part found by
        bisection of the ends known (a bot or the tests read every index of a set-up's, a
        creature's or a dive's chain of a few hundred, one part per piece: a walk over the
        parts asking their lengths at each read was most of it)."""
        ends = self._ends
        if not ends or k >= ends[-1]:
            ends = self._ends_past(k)
            if not ends or k >= ends[-1]:
                raise IndexError("legal action index out of range")
        i = bisect_right(ends, k)
        return self.parts[i][k - ends[i - 1] if i else k]

    @overload
    def __getitem__(self, k: int) -> Action: ...

    @overload
    def __getitem__(self, k: slice) -> list[Action]: ...

    def __getitem__(self, k: int | slice) -> Action | list[Action]:
        """As :class:`LazyActions` reads, but an index from the start (what the bots read) goes to
        :meth:`item` without the whole length (its walk finds an index past the end)."""
        if type(k) is int and k >= 0:
            return self.item(k)
        return super().__getitem__(k)

    def __iter__(self) -> Iterator[Action]:
        for part in self.parts:
            yield from part
