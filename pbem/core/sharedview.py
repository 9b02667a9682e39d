"""A reader's view that one entry's outputs share, and the state the game reads back from it once.

The digest of one reader asks the game several things of the same view (its summary, sections,
move template, board picture, click-to-move model): a game whose hooks work on a state reads the
view back into a state for each of them.  :class:`SharedView` is that view, made once per reader
per entry (``pbem.views.outputs.EntryWork``): it keeps what was read back from it, so the hooks
read it once between them (:func:`read_back`).

The memo is the view's own: it is made from that view's data alone, so no other reader's hidden
information can reach it.  A shared view is never changed (its top level refuses it; what is read
back from it is not changed either: a hook that changes a state works on a copy), and a copy of it
is a plain dict without the memo.

A player's shared view may know its entry's public view (``public``: made from the same state for
nobody, which every reader sees).  A hook whose answer shows only what everybody sees (a game's
summary) reads it off the public view with :func:`read_public`, once per entry for all its readers:
the public view holds nothing a reader may not know, so sharing it leaks nothing.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")


class SharedView(dict[str, Any]):
    """A view (the same items as the plain dict it is made from) that keeps what is read back from it."""

    __slots__ = ("_read", "_public")

    def __init__(self, view: Mapping[str, Any], public: SharedView | None = None) -> None:
        super().__init__(view)
        self._read: dict[str, Any] = {}
        #: the same entry's public view (None: this is the public view, or it is not known)
        self._public = public

    def _unchanged(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        raise TypeError("a shared view is not changed by its readers (copy it: dict(view))")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _unchanged

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and pickles are plain dicts (without the memo: a copy may be changed)."""
        return (dict, (dict(self),))


def read_back(view: Mapping[str, Any], key: str, read: Callable[[Mapping[str, Any]], T]) -> T:
    """``read(view)``, once per shared view and ``key`` (a plain view: read each time).  ``key``
    names what ``read`` makes (e.g. "state": the game's ``from_position``); the result is shared
    by every caller: they must not change it."""
    if not isinstance(view, SharedView):
        return read(view)
    memo = view._read
    if key not in memo:
        memo[key] = read(view)
    return memo[key]


def read_public(view: Mapping[str, Any], key: str, read: Callable[[Mapping[str, Any]], T]) -> T:
    """``read`` of the entry's public view, once per entry (:func:`read_back` of the shared view's
    ``public``; a shared view that knows none, or a plain view: ``read`` of ``view`` itself).  For a
    ``read`` that shows only what every reader sees: its answer must be the same for every reader's
    view of a state (the caller's tests check it), so which view it reads does not matter."""
    if isinstance(view, SharedView) and view._public is not None:
        return read_back(view._public, key, read)
    return read_back(view, key, read)
