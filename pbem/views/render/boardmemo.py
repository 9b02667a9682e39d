"""What the board renderers draw once for an entry and use again for each of its readers (issue 24).

An entry's readers (the public and each player) see boards that differ only a little: what moved
since each reader's last turn is marked, and a player sees some hidden values of their own.  A
:class:`BoardMemo` keeps the parts already drawn for one entry (a cell's SVG, a cell's text, the
key under the board...), each under a key made of **everything** that part is drawn from (the
cell's whole content with its pieces, their marks and values, its place on the board), never of
whose board it is: a part is used again only where it would be drawn the same, so no reader's
hidden value reaches another's board.  One memo serves one entry (``BoardDrawings`` in
:mod:`pbem.views.outputs`); without one, each drawing has a memo of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, TypeVar, cast

from pbem.core.picture import BoardPicture, HexCell, Piece

__all__ = ["BoardMemo", "cell_key", "piece_key", "board_key"]

#: a memo holds at most this many parts of each sort (an entry's boards need a few hundred)
MEMO_PARTS = 20_000

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

    def cell_ids(self, board: BoardPicture) -> list[int]:
        """A number for each cell of ``board`` (in its order): equal numbers for cells of equal
        content, in every board drawn with this memo (so that a row is looked up by a few numbers)."""
        ids = []
        for c in board.cells:
            key = cell_key(c)
            n = self._cells.get(key)
            if n is None:
                n = self._cells[key] = len(self._keys)
                self._keys.append(key)
            ids.append(n)
        return ids

    def cell_key_of(self, n: int) -> tuple[Any, ...]:
        """The :func:`cell_key` numbered ``n`` by :meth:`cell_ids`."""
        return self._keys[n]

    def number(self) -> int:
        """A number no other call gives (a layout's, which the keys of its rows name)."""
        self._numbers += 1
        return self._numbers

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
