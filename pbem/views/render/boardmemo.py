"""What the board renderers draw once for an entry and use again for each of its readers (issue 24).

An entry's readers (the public and each player) see boards that differ only a little: what moved
since each reader's last turn is marked, and a player sees some hidden values of their own.  A
:class:`BoardMemo` keeps the parts already drawn for one entry (a cell's SVG, a cell's text, the
key under the board...), each under a key made of **everything** that part is drawn from (the
cell's whole content with its pieces, their marks and values, its place on the board), never of
whose board it is: a part is used again only where it would be drawn the same, so no reader's
hidden value reaches another's board.  Since a part is a pure function of its key, a memo may
serve any number of entries, of any games: a process that makes many entries' outputs (a mail
host's cycle, a git sync, an audit, a test playing whole games) keeps one (:data:`LASTING`), whose
parts are drawn again only where a board's rows or cells changed since an earlier entry.  It is
bounded: when full (:meth:`BoardMemo.full`), the next entry starts a new, empty one.  A
``BoardDrawings`` (:mod:`pbem.views.outputs`) takes the memo it was given, or the lasting one, and
keeps it for all the boards of its entry; without one, each drawing has a memo of its own.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, TypeVar, cast

from pbem.core.picture import BoardPicture, HexCell, Piece

__all__ = ["BoardMemo", "LastingMemo", "LASTING", "cell_key", "piece_key", "board_key"]

#: a memo holds at most this many parts (an entry's boards need a few hundred new ones; a board's
#: cell, row or layout drawn: a few hundred bytes to a few KB each)
MEMO_PARTS = 20_000
#: ... and numbers at most this many distinct cells (an entry adds a few dozen) before a lasting
#: memo is replaced by a new one
MEMO_CELLS = 20_000
#: whole boards drawn (text and SVG, 20-100 KB), at most this many, the least recently used
#: forgotten first: a board drawn again (another reader's equal board, a page's board again)
MEMO_BOARDS = 32

T = TypeVar("T")


def piece_key(p: Piece) -> tuple[Any, ...]:
    """Everything a piece is drawn from, as a hashable value."""
    return (p.handle, p.shape, p.colour, p.text, p.title,
            tuple(piece_key(x) for x in p.passengers) if p.passengers else (), p.value, p.moved, p.moved_from)


def cell_key(c: HexCell) -> tuple[Any, ...]:
    """Everything a cell is drawn from, as a hashable value."""
    return (c.q, c.r, c.label, c.kind, tuple(c.marks), tuple(c.mark_colours),
            tuple(piece_key(p) for p in c.pieces) if c.pieces else (), c.changed, c.was)


def board_key(board: BoardPicture, cells: list[Any]) -> tuple[Any, ...]:
    """Everything a board is drawn from (``cells``: its cells' keys, or their numbers in a memo
    (:meth:`BoardMemo.cell_ids`), in its order)."""
    return (tuple(cells), tuple(board.legend.items()), tuple(board.colours.items()), tuple(board.symbols.items()),
            tuple((piece_key(p), text) for p, text in board.key), tuple(board.textures.items()))


@dataclass
class BoardMemo:
    """Parts drawn for one entry's boards, by what they are drawn from (see the module's text)."""

    parts: dict[Hashable, Any] = field(default_factory=dict)
    _numbers: int = 0
    _cells: dict[tuple[Any, ...], int] = field(default_factory=dict)    # cell_key -> its number
    _keys: list[tuple[Any, ...]] = field(default_factory=list)          # number -> cell_key
    _grounds: dict[tuple[Any, ...], int] = field(default_factory=dict)  # (q, r, label, kind) -> its number
    _ground_of: list[int] = field(default_factory=list)                # cell's number -> its ground's number
    _was_of: list[str] = field(default_factory=list)                   # cell's number -> its ``was`` if changed, else ""
    _boards: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)   # board's key -> drawn

    def cell_ids(self, board: BoardPicture) -> list[int]:
        """A number for each cell of ``board`` (in its order): equal numbers for cells of equal
        content, in every board drawn with this memo (so that a row is looked up by a few numbers)."""
        ids = []
        for c in board.cells:
            key = cell_key(c)
            n = self._cells.get(key)
            if n is None:
                n = self._number_cell(key)
            ids.append(n)
        return ids

    def _number_cell(self, key: tuple[Any, ...]) -> int:
        n = self._cells[key] = len(self._keys)
        self._keys.append(key)
        ground = key[:4]
        self._ground_of.append(self._grounds.setdefault(ground, len(self._grounds)))
        self._was_of.append(key[8] if key[7] else "")
        return n

    def grounds(self, ids: list[int]) -> tuple[int, ...]:
        """A number for each cell's place, label and kind (its :func:`cell_key`'s first four fields),
        of the cells numbered ``ids``: equal numbers for equal (q, r, label, kind), in every board
        drawn with this memo (what the layouts of a board are keyed by)."""
        return tuple(map(self._ground_of.__getitem__, ids))

    def changed_from(self, ids: list[int]) -> list[str]:
        """The kinds the changed cells among ``ids`` had (their ``was``, each once, sorted; "" left out)."""
        return sorted(set(map(self._was_of.__getitem__, ids)) - {""})

    def cell_key_of(self, n: int) -> tuple[Any, ...]:
        """The :func:`cell_key` numbered ``n`` by :meth:`cell_ids`."""
        return self._keys[n]

    def number(self) -> int:
        """A number no other call gives (a layout's, which the keys of its rows name)."""
        self._numbers += 1
        return self._numbers

    def board(self, key: Hashable) -> Any:
        """A whole board kept under ``key`` (a :func:`board_key` of this memo's cell numbers, with
        what else it was drawn from), or None."""
        drawn = self._boards.get(key)
        if drawn is not None:
            self._boards.move_to_end(key)
        return drawn

    def keep_board(self, key: Hashable, drawn: Any) -> None:
        """Keep a whole board under ``key`` (at most :data:`MEMO_BOARDS`: the least recently used goes)."""
        self._boards[key] = drawn
        self._boards.move_to_end(key)
        while len(self._boards) > MEMO_BOARDS:
            self._boards.popitem(last=False)

    def full(self) -> bool:
        """Has it stopped keeping what it draws (:data:`MEMO_PARTS`), or numbered :data:`MEMO_CELLS` cells?"""
        return len(self.parts) >= MEMO_PARTS or len(self._keys) >= MEMO_CELLS

    def get(self, key: Hashable) -> Any:
        return self.parts.get(key)

    def put(self, key: Hashable, value: Any) -> Any:
        if len(self.parts) < MEMO_PARTS:
            self.parts[key] = value
        return value

    def part(self, key: Hashable, make: Callable[[], T]) -> T:
        """The part kept under ``key``, or ``make()`` kept there (while the memo has room)."""
        value = self.parts.get(key)
        return cast(T, value) if value is not None else cast(T, self.put(key, make()))


class LastingMemo:
    """The memo a process keeps from one entry to the next (see the module's text): :meth:`take`
    gives it to an entry's drawings, or a new, empty one in its place once it is full, so that it
    holds at most :data:`MEMO_PARTS` parts and :data:`MEMO_CELLS` cells' keys.  Only what is
    drawn is kept, under keys of what it is drawn from: which entries, games or readers came
    before changes how much is drawn again, never what a board looks like."""

    def __init__(self) -> None:
        self._memo = BoardMemo()

    def take(self) -> BoardMemo:
        """The memo for an entry's boards (keep it for all of them: its cells' numbers are its own)."""
        if self._memo.full():
            self._memo = BoardMemo()
        return self._memo

    def clear(self) -> None:
        """Forget every part (a benchmark that measures drawing from nothing)."""
        self._memo = BoardMemo()


#: the process's lasting memo (a cache of pure functions of their keys, as an ``lru_cache`` is)
LASTING = LastingMemo()
