"""A plain-text (ASCII) hex map for text e-mails read in a monospace font.

Layout
------
Pointy-top hexes drawn as "bricks" ``W`` characters wide (``W`` = 8 for
labels of up to three characters), three text lines per board row::

      /   \\   /   \\   /   \\
    | G6  s | H6  f | J6  m |
    |  S1   |  *3   |       |
      \\   /   \\   /   \\   /

Cell (q, r) has its left bar at column ``(2q + r - min(2q + r)) * W/2`` and
its label line at line ``3 * (r - min r) + 1``: each row is shifted half a
cell against the rows above and below, so the six axial neighbours touch the
cell on screen (east/west share a ``|``, north-east/north-west/south-east/
south-west share a ``/`` or ``\\`` edge).  The slanted edge lines are shared by
the two rows they separate.  For the 13-row board (2q + r from -11 to 11) the
map is 97 columns wide.

Each cell shows its label and a one-character terrain code (the game's
``BoardPicture.symbols``, else a letter of the kind's name) on the first line and
its marks on the second; marks that do not fit show as ``*N`` (N marks).  Every
marked cell is listed in full under the map (``G6: B3:r7,b2 S1``), in reading
order, followed by the terrain key and the board's mark legend.
"""
from __future__ import annotations

import string
import textwrap
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, cast

from pbem.core.picture import BoardPicture, HexCell, Piece, piece_code
from pbem.views.render.boardmemo import BoardMemo

__all__ = ["render_text", "terrain_letters"]


def _ascii(text: str) -> str:
    """``text`` as printable ASCII on one line (accents dropped, others -> '?')."""
    return _ascii_of(str(text))


@lru_cache(maxsize=8192)
def _ascii_of(text: str) -> str:
    if text.isascii() and text.isprintable():
        return text
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue
        if ch in "\t\r\n":
            out.append(" ")
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append("?")
    return "".join(out)


def _token(text: str) -> str:
    """A label or mark as one ASCII word (spaces would break the layout)."""
    return _token_of(str(text))


@lru_cache(maxsize=8192)
def _token_of(text: str) -> str:
    return _ascii_of(text).strip().replace(" ", "_") or "?"


def terrain_letters(kinds, taken: Iterable[str] = ()) -> dict[str, str]:
    """A distinct lower-case letter (or digit) for each kind, chosen deterministically.

    Kinds are taken in sorted order; each gets the first letter of its name
    not yet used (nor in ``taken``), else any free letter, else a digit, else '?'.
    """
    used: set[str] = set(taken)
    letters: dict[str, str] = {}
    for kind in sorted(set(kinds)):
        own = [c for c in _ascii(kind).lower() if c in string.ascii_lowercase]
        for c in [*own, *string.ascii_lowercase, *string.digits]:
            if c not in used:
                break
        else:
            c = "?"
        used.add(c)
        letters[kind] = c
    return letters


def map_symbols(board: BoardPicture) -> dict[str, str]:
    """Each kind's character on the map: the game's symbol, else a letter of its name."""
    kinds = sorted({c.kind for c in board.cells})
    given = {k: _ascii(board.symbols[k])[:1] or "?" for k in kinds if k in board.symbols}
    letters = terrain_letters([k for k in kinds if k not in given], given.values())
    return {k: given.get(k) or letters[k] for k in kinds}


def cell_marks(cell: HexCell) -> list[str]:
    """What the text map writes in a cell: its marks, or its pieces' codes."""
    return list(cell.marks) if cell.marks or not cell.pieces else [piece_code(p) for p in cell.pieces]


def _marks_text(cell: HexCell) -> str:
    if not cell.marks and not cell.pieces:     # bare ground, most of a board
        return ""
    return " ".join([_token(m) for m in cell_marks(cell)])


def _cell_moves(c: HexCell) -> tuple[list[str], str]:
    """What moved into a cell (``r7 F4->G5``, ``K1 (new) G6``) and what it says if it changed ("" if not)."""
    moves: list[str] = []

    def visit(p: Piece, at: str) -> None:
        if p.moved:
            moves.append(f"{_token(p.handle)} {_token(p.moved_from)}->{_token(at)}" if p.moved_from
                         else f"{_token(p.handle)} (new) {_token(at)}")
        for x in p.passengers:
            visit(x, at)

    for p in c.pieces:
        visit(p, c.label)
    changed = "" if not c.changed else f"{_token(c.label)} (was {_ascii(c.was)})" if c.was else _token(c.label)
    return moves, changed


def _moved_text(moves: list[str], changed: list[str]) -> list[str]:
    if not moves and not changed:
        return []
    return list(_moved_lines(tuple(moves), tuple(changed)))


@lru_cache(maxsize=1024)
def _moved_lines(moves: tuple[str, ...], changed: tuple[str, ...]) -> tuple[str, ...]:
    words = [w + "," for w in moves[:-1]] + list(moves[-1:])
    text = "Moved since your last turn: " + " ".join(words) if moves else ""
    if changed:
        text += ("; " if text else "") + "changed: " + ", ".join(changed)
    return tuple(line.rstrip() for line in textwrap.wrap(text, width=78, subsequent_indent="  ", break_long_words=False,
                                                         break_on_hyphens=False))


def moved_lines(board: BoardPicture) -> list[str]:
    """``Moved since your last turn: r7 F4->G5, K1 (new) G6; changed: F3 (was beach)``, wrapped."""
    moves: list[str] = []
    changed: list[str] = []
    for c in sorted(board.cells, key=lambda c: (c.r, c.q)):
        cell_moves, cell_changed = _cell_moves(c)
        moves += cell_moves
        if cell_changed:
            changed.append(cell_changed)
    return _moved_text(moves, changed)


def _slant_line(lower: list[int], upper: list[int], quarter: int) -> str:
    """The line of slanted edges between two rows: ``upper``'s bottom edges and ``lower``'s top edges
    (the cells' left columns).  Where both draw a character it is the same one (rows sit half a
    cell apart), so the line is the same in whichever order they are drawn."""
    marks: dict[int, str] = {}
    for x in upper:
        marks[x + quarter] = "\\"
        marks[x + 3 * quarter] = "/"
    for x in lower:
        marks[x + quarter] = "/"
        marks[x + 3 * quarter] = "\\"
    line = [" "] * (max(marks) + 1 if marks else 0)
    for col, ch in marks.items():
        line[col] = ch
    return "".join(line)


def _row_line(row: list[tuple[int, str]]) -> str:
    """A row's line from its cells' texts (``|...|``, each ``(left column, text)`` left to right):
    neighbours share their ``|``."""
    out: list[str] = []
    end = 0
    for x, text in row:
        if x < end:           # the shared bar
            out.append(text[end - x:])
        else:
            out.append(" " * (x - end))
            out.append(text)
        end = x + len(text)
    return "".join(out)


@dataclass(frozen=True)
class _TextLayout:
    """What the text map of a board takes from its cells' places, labels and kinds alone (the same
    for every reader's board of an entry): the cells' order, its rows, their columns, the slants."""

    place: int                       # the number in its memo of what a cell's text takes from the board
    #                                  beside the cell itself (the cells' and rows' keys name it)
    order: list[int]                 # the cells (their indices in the picture) in reading order
    rows: list[tuple[int, int]]      # each row's cells: order[start:end]
    lefts: list[int]                 # each cell's left column, in reading order
    letters: dict[str, str]          # kind -> its character on the map
    inner: int                       # a cell's width inside its bars
    slants: list[str]                # the slanted-edge line above each row, and the one under the last


def _text_layout(board: BoardPicture, ids: list[int], memo: BoardMemo) -> _TextLayout:
    what = ("text-layout", memo.grounds(ids), tuple(board.symbols.items()))
    layout = memo.get(what)
    if layout is not None:
        return cast(_TextLayout, layout)
    cells = board.cells
    order = sorted(range(len(cells)), key=lambda i: (cells[i].r, cells[i].q))
    seen: set[tuple[int, int]] = set()
    for i in order:
        c = cells[i]
        if (c.q, c.r) in seen:
            raise ValueError(f"two cells at q={c.q}, r={c.r}")
        seen.add((c.q, c.r))
    # inner width: " " + label + " " + letter + " " at least, and at least 7;
    # cell width W = inner + 1 is a multiple of 4 so the slants sit on columns.
    inner = max(7, max(len(_token(cells[i].label)) for i in order) + 4)
    while (inner + 1) % 4:
        inner += 1
    half, quarter = (inner + 1) // 2, (inner + 1) // 4
    hmin = min(2 * c.q + c.r for c in cells)
    rmin, rmax = cells[order[0]].r, cells[order[-1]].r
    rows: list[tuple[int, int]] = []
    lefts = [(2 * cells[i].q + cells[i].r - hmin) * half for i in order]
    start = 0
    for r in range(rmin, rmax + 1):      # a row without cells is an empty range
        end = start
        while end < len(order) and cells[order[end]].r == r:
            end += 1
        rows.append((start, end))
        start = end
    slants = []
    above: list[int] = []
    for start, end in rows:
        slants.append(_slant_line(lefts[start:end], above, quarter).rstrip())
        above = lefts[start:end]
    slants.append(_slant_line([], above, quarter).rstrip())
    letters = map_symbols(board)
    # a cell's text is made from its own content (its number), the cells' width and its kind's letter;
    # a row's lines from its cells and their columns (from their q and r, the width and the leftmost
    # cell's place): the same where those are, whatever else changed on the board
    place = ("text-place", inner, hmin, tuple(letters.items()))
    layout = _TextLayout(memo.part(place, memo.number), order, rows, lefts, letters, inner, slants)
    return cast(_TextLayout, memo.put(what, layout))


def _text_cell(board: BoardPicture, layout: _TextLayout, n: int) -> tuple[str, str, list[str], bool,
                                                                         list[str], list[str]]:
    """The ``n``-th cell in reading order: its two texts (``|...|``), its line under "Marks:", whether
    it shows ``*N``, what moved into it and whether it changed."""
    inner = layout.inner
    c = board.cells[layout.order[n]]
    label = _token(c.label)
    top = " " + label.ljust(inner - 3) + layout.letters[c.kind] + " "
    marks = full = _marks_text(c)
    overflow = len(marks) > inner - 2
    if overflow:
        marks = f"*{len(cell_marks(c))}"
    bottom = marks.center(inner - 2).join("  ")
    moves, changed = _cell_moves(c) if c.pieces or c.changed else ([], "")
    return ("|" + top + "|", "|" + bottom + "|", [f"  {label}: {full}".rstrip()] if full else [], overflow, moves,
            [changed] if changed else [])


def _text_row(board: BoardPicture, layout: _TextLayout, start: int, end: int, ids: list[int],
              memo: BoardMemo) -> tuple[str, str, list[str], bool, list[str], list[str]]:
    """A row's two lines, its cells' lines under "Marks:", whether a cell shows ``*N``, what moved
    into its cells and which changed; each cell taken from the memo where it was made before."""
    tops: list[tuple[int, str]] = []
    bottoms: list[tuple[int, str]] = []
    listed: list[str] = []
    moves: list[str] = []
    changed: list[str] = []
    overflow = False
    for n in range(start, end):
        what = ("text-cell", layout.place, ids[layout.order[n]])
        cell = memo.get(what)
        if cell is None:
            cell = memo.put(what, _text_cell(board, layout, n))
        tops.append((layout.lefts[n], cell[0]))
        bottoms.append((layout.lefts[n], cell[1]))
        listed += cell[2]
        overflow = overflow or cell[3]
        moves += cell[4]
        changed += cell[5]
    return _row_line(tops).rstrip(), _row_line(bottoms).rstrip(), listed, overflow, moves, changed


def render_text(board: BoardPicture, memo: BoardMemo | None = None, ids: list[int] | None = None) -> str:
    """The board as an ASCII hex map with a key; deterministic, no trailing spaces.
    ``memo``: the parts already made for other boards of the same entry, used again where they
    are made from the same content (:mod:`pbem.views.render.boardmemo`); ``ids``: the cells'
    numbers in the memo (:meth:`~pbem.views.render.boardmemo.BoardMemo.cell_ids`) when already known."""
    if not board.cells:
        return "(empty board)\n"
    if memo is None:
        memo = BoardMemo()
    if ids is None:
        ids = memo.cell_ids(board)
    layout = _text_layout(board, ids, memo)
    letters = layout.letters
    out: list[str] = []
    listed: list[str] = []
    moves: list[str] = []
    changed: list[str] = []
    overflow = False
    for (start, end), slant in zip(layout.rows, layout.slants):
        what = ("text-row", layout.place, tuple(ids[i] for i in layout.order[start:end]))
        row = memo.get(what)
        if row is None:
            row = memo.put(what, _text_row(board, layout, start, end, ids, memo))
        out += (slant, row[0], row[1])
        listed += row[2]
        overflow = overflow or row[3]
        moves += row[4]
        changed += row[5]
    out.append(layout.slants[-1])
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()

    if listed:
        out.append("")
        out.append("Marks:")
        out.extend(listed)
    moved = _moved_text(moves, changed)
    if moved:
        out.append("")
        out.extend(moved)
    out.append("")
    key = "Key: " + " ".join(f"{letter}={_ascii(kind) or '?'}" for kind, letter in letters.items())
    if overflow:
        key += "; *N = N marks, listed above"
    out.append(key.rstrip())
    if board.legend:
        out.append("Mark codes:")
        for code, text in board.legend.items():
            out.append(f"  {_ascii(code).strip()} = {_ascii(text).strip()}".rstrip())
    elif board.key:   # the legend's codes read better as text; the key is drawn in the SVG
        out.append("Pieces:")
        for piece, text in board.key:
            out.append(f"  {_ascii(piece.text or piece.handle).strip()} = {_ascii(text).strip()}".rstrip())
    # every line is stripped on its right where it is made (the rows', the slants', the marks', the key's)
    return "\n".join(out) + "\n"
