"""Legal actions as a sequence that makes each action only when it is read.

A bot picks one of the legal actions by its index (:mod:`pbem.bots`); where the actions are
every pairing of two lists (a set-up placement: every explorer in reserve on every empty
tile, a few hundred), listing them all to take one is most of the bot's work.  A
:class:`Pairs` has the length and the order of the full list and builds only the actions
asked for, so the bot takes the same action as from the list (``Game.legal_choices``).
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence, TypeVar, overload

A = TypeVar("A")
B = TypeVar("B")

Action = dict[str, Any]


class Pairs(Sequence[Action]):
    """``[make(a, b) for a in firsts for b in seconds]``, made one item at a time."""

    def __init__(self, firsts: Sequence[A], seconds: Sequence[B], make: Callable[[A, B], Action]) -> None:
        self._firsts, self._seconds, self._make = list(firsts), list(seconds), make

    @property
    def make(self) -> Callable[[Any, Any], Action]:
        """The function that makes each action (a bot's scores may depend on it alone)."""
        return self._make

    def __len__(self) -> int:
        return len(self._firsts) * len(self._seconds)

    @overload
    def __getitem__(self, k: int) -> Action: ...

    @overload
    def __getitem__(self, k: slice) -> list[Action]: ...

    def __getitem__(self, k: int | slice) -> Action | list[Action]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("legal action index out of range")
        first, second = divmod(k, len(self._seconds))
        return self._make(self._firsts[first], self._seconds[second])

    def __iter__(self) -> Iterator[Action]:
        make = self._make
        return (make(a, b) for a in self._firsts for b in self._seconds)


class Chain(Sequence[Action]):
    """The sequences one after the other (a list of actions, then :class:`Pairs`...), read by index."""

    def __init__(self, parts: Sequence[Sequence[Action]]) -> None:
        self._parts = [p for p in parts if len(p)]
        self._ends: list[int] = []
        total = 0
        for part in self._parts:
            total += len(part)
            self._ends.append(total)

    @property
    def parts(self) -> list[Sequence[Action]]:
        """The sequences chained, in order (the empty ones left out)."""
        return self._parts

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, k: int) -> Action: ...

    @overload
    def __getitem__(self, k: slice) -> list[Action]: ...

    def __getitem__(self, k: int | slice) -> Action | list[Action]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("legal action index out of range")
        start = 0
        for part, end in zip(self._parts, self._ends):
            if k < end:
                return part[k - start]
            start = end
        raise IndexError("legal action index out of range")   # pragma: no cover - the ends cover every index

    def __iter__(self) -> Iterator[Action]:
        for part in self._parts:
            yield from part
