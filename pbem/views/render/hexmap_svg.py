"""A standalone SVG picture of a hex board (pointy-top hexes).

Deterministic: no timestamps, no generated ids (the few ids are fixed names starting
``pbem-``: shape symbols, textures, the arrowhead), every number written with two
decimals.  Cell (q, r) is centred at ``x = sqrt(3) * S * (q + r/2)``, ``y = 1.5 * S * r``
(S = centre-to-corner size), shifted so the board starts at the margin.  Each cell is
one ``<g class="pbem-cell">`` holding a ``<title>`` tooltip, exactly one ``<polygon>``
(filled by kind; a texture over it is a ``<use>`` of one hexagon in the definitions, and a
"changed since your last turn" outline is a further polygon), the label (small, near the top) and then either

* its **pieces** (``HexCell.pieces``): each a ``<g class="pbem-piece">`` with its own
  tooltip, the shape (``<use>`` of a symbol from :mod:`pbem.views.render.shapes`) in the owner's
  colour (:mod:`pbem.core.palette`, colour-blind safe) and its letter or count; ships
  and pods are drawn across the cell with their passengers aboard; a dashed ring marks a
  piece that moved since the reader's last turn and a yellow dot shows a value the reader
  may see; or
* its **marks** (``HexCell.marks``, the older form): one or two lines of text, shrunk to fit.

Arrows from each moved piece's previous space follow the cells; a key of terrain
swatches, the pieces' key and the board's mark legend come under the board.  The
stylesheet is scoped to ``svg.pbem-board`` and every class is ``pbem-`` prefixed, so
the picture neither leaks styles into nor takes them from an HTML page it is embedded
in.  The result has no XML declaration, so it can be embedded inline in HTML as it is.

:func:`board_layers` gives the same drawing in parts (per cell: ground and pieces; the
arrows; the key) for the replay page, which stores each distinct part once.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any, NamedTuple, cast

from pbem.core.palette import NEUTRAL
from pbem.core.palette import fill_of as _fill_of
from pbem.core.palette import ink_on as _ink_on
from pbem.core.picture import BoardPicture, HexCell, Piece
from pbem.views.render.boardmemo import BoardMemo, piece_key
from pbem.views.render.shapes import HULLS, OUTLINE, SHAPES, shape_of, symbol_id
from pbem.views.render.textures import TEXTURES, pattern_svg, texture_id

__all__ = ["render_svg", "board_layers", "assemble", "BoardLayers", "NEUTRAL_FILLS", "HEX_W", "SIZE"]

# Fills for kinds the game gives no colour (``BoardPicture.colours``), handed out
# in the sorted order of those kinds: light, distinct, and named after no game.
NEUTRAL_FILLS = ("#dcdcdc", "#b7cde3", "#e8d9b5", "#c5dfc0", "#d9c3de", "#f0c9b0", "#c9e4e6", "#e6e0a8")

SIZE = 40.0                      # hex centre-to-corner
HEX_W = math.sqrt(3) * SIZE      # flat-to-flat width
MARGIN = 16.0
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
LABEL_PX = 10.0
MARK_PX = 13.0
MARK_CHAR_W = 0.62               # monospace advance per font px (approx.)
MARK_MAX_W = HEX_W - 10.0        # usable text width inside a hex
TITLE_PX = 18.0
KEY_PX = 12.0
KEY_PIECE = 20.0                 # size of a sample piece in the key

# where pieces go inside a hex: a box under the label
PIECES_W = 62.0
PIECES_H = 50.0
PIECES_DY = 6.0                  # the box's centre below the hex centre
UNITS = (30.0, 26.0, 23.0, 20.0, 18.0, 16.0, 14.0, 12.0, 10.0, 9.0, 8.0, 7.0)
MOVED_RING = "#111111"
VALUE_DOT = "#ffe14d"

# characters XML 1.0 does not allow at all
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


# the palette's two pure functions of a colour, remembered (a board asks them for every piece)
fill_of = lru_cache(maxsize=1024)(_fill_of)
ink_on = lru_cache(maxsize=1024)(_ink_on)


@lru_cache(maxsize=1 << 16)
def _n(v: float) -> str:
    """Fixed number format: two decimals, never "-0.00".  (Remembered: a board writes a few
    thousand numbers, most of them again and again, the cells' centres and the pieces' offsets.)"""
    s = f"{v:.2f}"
    return "0.00" if s == "-0.00" else s


# what xml.sax.saxutils.escape does (the same bytes), without importing it: it pulls in
# urllib, http and ssl, a sixth of the start-up of `pbem submit`
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\t": "&#9;"})


def _text(s: str) -> str:
    return _text_of(str(s))


def _attr(s: str) -> str:
    return _attr_of(str(s))


@lru_cache(maxsize=8192)
def _text_of(s: str) -> str:
    return _BAD_XML.sub("?", s).translate(_TEXT)


@lru_cache(maxsize=8192)
def _attr_of(s: str) -> str:
    return _BAD_XML.sub("?", s).translate(_ATTR)


def _wrap_marks(marks: list[str]) -> list[str]:
    """The marks on one line, or split into two lines of about equal width."""
    words = [str(m) for m in marks if str(m)]
    if not words:
        return []
    one = " ".join(words)
    if len(one) * MARK_PX * MARK_CHAR_W <= MARK_MAX_W or len(words) == 1:
        return [one]
    best: list[str] | None = None
    for i in range(1, len(words)):
        lines = [" ".join(words[:i]), " ".join(words[i:])]
        if best is None or max(map(len, lines)) < max(map(len, best)):
            best = lines
    assert best is not None
    return best


@lru_cache(maxsize=4096)
def _hex_points(cx: float, cy: float, scale: float = 1.0) -> str:
    pts = []
    for k in range(6):  # pointy-top: corners at 30 + 60k degrees, starting at the top
        a = math.radians(60 * k - 90)
        pts.append(f"{_n(cx + SIZE * scale * math.cos(a))},{_n(cy + SIZE * scale * math.sin(a))}")
    return " ".join(pts)


def _fills(board: BoardPicture) -> dict[str, str]:
    """Each kind's fill: the game's colour, else a neutral one."""
    kinds = sorted({c.kind for c in board.cells} | {c.was for c in board.cells if c.changed and c.was})
    spare = [k for k in kinds if not board.colours.get(k)]
    fills = {k: NEUTRAL_FILLS[i % len(NEUTRAL_FILLS)] for i, k in enumerate(spare)}
    fills.update({k: board.colours[k] for k in kinds if board.colours.get(k)})
    return fills


def _coloured_line(line: str, words: list[tuple[str, str]]) -> str:
    """A marks line with each word in its colour (``<tspan fill>``), for marks that have one."""
    parts = []
    for word, colour in words:
        parts.append(f'<tspan fill="{_attr(colour)}">{_text(word)}</tspan>' if colour else _text(word))
    return " ".join(parts)


# --- pieces -------------------------------------------------------------------------------

def piece_title(p: Piece) -> str:
    """A piece's tooltip: the game's title, its value when shown, and whether it moved."""
    tip = p.title or p.handle
    if p.value is not None:
        tip += f"; value {p.value}"
    if p.passengers:
        tip += "; aboard: " + ", ".join(piece_title(x) for x in p.passengers)
    return tip


def moved_title(p: Piece) -> str:
    return f"{p.handle}: moved from {p.moved_from} since your last turn" if p.moved_from \
        else f"{p.handle}: new since your last turn"


def _piece_text(p: Piece, x: float, y: float, u: float, fill: str, own_ink: bool) -> str:
    shape = shape_of(p.shape)
    if not p.text:
        return ""
    scale = 1.0 if len(p.text) <= 2 else 0.8 if len(p.text) == 3 else 0.64
    px = shape.text_size * u / 20.0 * scale
    ink = ink_on(fill) if own_ink else OUTLINE
    return (f'<text x="{_n(x)}" y="{_n(y + shape.text_y * u / 20.0)}" class="pbem-pt" font-size="{_n(px)}" '
            f'fill="{ink}">{_text(p.text)}</text>')


def _value_dot(p: Piece, x: float, y: float, u: float) -> str:
    if p.value is None:
        return ""
    r = u * 0.27
    cx, cy = x + u * 0.42, y - u * 0.4
    return (f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" fill="{VALUE_DOT}" stroke="{OUTLINE}" '
            f'stroke-width="0.8"/><text x="{_n(cx)}" y="{_n(cy + r * 0.45)}" class="pbem-pt" '
            f'font-size="{_n(r * 1.35)}" fill="#000000">{_text(p.value)}</text>')


def _moved_ring(p: Piece, x: float, y: float, rx: float, ry: float) -> str:
    """A dashed ring (white under black: seen on light and dark ground) around a moved piece,
    drawn over the pieces (the rings and arrows are a layer of their own)."""
    box = f'x="{_n(x - rx)}" y="{_n(y - ry)}" width="{_n(2 * rx)}" height="{_n(2 * ry)}" rx="{_n(min(rx, ry))}"'
    return (f'<g class="pbem-moved"><title>{_text(moved_title(p))}</title><rect {box} class="pbem-ring-w"/>'
            f'<rect {box} class="pbem-ring"/></g>')


def _small_piece(p: Piece, x: float, y: float, u: float, used: set[str], rings: list[str]) -> list[str]:
    shape = shape_of(p.shape)
    used.add(symbol_id(p.shape))
    fill = fill_of(p.colour) if shape.owned else NEUTRAL
    fill_attr = f' fill="{fill}"' if shape.owned else ""
    out = [f'<g class="pbem-piece"><title>{_text(piece_title(p))}</title>']
    if p.moved:
        rings.append(_moved_ring(p, x, y, u * 0.62, u * 0.62))
    out.append(f'<use href="#{symbol_id(p.shape)}" x="{_n(x - u / 2)}" y="{_n(y - u / 2)}" '
               f'width="{_n(u)}" height="{_n(u)}"{fill_attr}/>')
    out.append(_piece_text(p, x, y, u, fill, shape.owned))
    out.append(_value_dot(p, x, y, u))
    out.append("</g>")
    return ["".join(out)]


def _vessel_width(p: Piece, u: float, room: float) -> float:
    return min(room, u * max(2.2, 0.95 * len(p.passengers) + 0.4))


VESSEL_ROW = 1.2     # a vessel's row is this many units high: its passengers stand above the deck


def _vessel(p: Piece, x: float, y: float, u: float, room: float, used: set[str], rings: list[str]) -> list[str]:
    """A ship or pod across a row centred on ``y``: hull, the owner's stripe, its handle,
    passengers aboard (standing on the deck)."""
    hull, edge = HULLS.get(p.shape, HULLS["ship"])
    w = _vessel_width(p, u, room)
    top, bottom = y + u * 0.08, y + u * 0.58
    out = [f'<g class="pbem-piece pbem-vessel"><title>{_text(piece_title(p))}</title>']
    if p.moved:
        rings.append(_moved_ring(p, x, y, w / 2 + 3, u * 0.62))
    if p.shape == "pod":
        out.append(f'<rect x="{_n(x - w / 2)}" y="{_n(top - u * 0.05)}" width="{_n(w)}" height="{_n(u * 0.55)}" '
                   f'rx="{_n(u * 0.27)}" fill="{hull}" stroke="{edge}" stroke-width="1"/>')
    elif p.shape == "fighter":
        mid, tip = (top + bottom) / 2, u * 0.3
        out.append(f'<polygon points="{_n(x - w / 2)},{_n(top)} {_n(x + w / 2 - tip)},{_n(top)} {_n(x + w / 2)},{_n(mid)} '
                   f'{_n(x + w / 2 - tip)},{_n(bottom)} {_n(x - w / 2)},{_n(bottom)} {_n(x - w / 2 + tip * 0.7)},{_n(mid)}" '
                   f'fill="{hull}" stroke="{edge}" stroke-width="1"/>')
    else:
        slant = u * 0.3
        out.append(f'<polygon points="{_n(x - w / 2)},{_n(top)} {_n(x + w / 2)},{_n(top)} '
                   f'{_n(x + w / 2 - slant)},{_n(bottom)} {_n(x - w / 2 + slant)},{_n(bottom)}" '
                   f'fill="{hull}" stroke="{edge}" stroke-width="1"/>')
    if p.colour:
        out.append(f'<path d="M{_n(x - w / 2 + 2)} {_n(top + u * 0.07)}H{_n(x + w / 2 - 2)}" '
                   f'stroke="{fill_of(p.colour)}" stroke-width="{_n(u * 0.12)}"/>')
    if p.text:
        out.append(f'<text x="{_n(x)}" y="{_n(top + u * 0.4)}" class="pbem-pt" font-size="{_n(u * 0.33)}" '
                   f'fill="{ink_on(hull)}">{_text(p.text)}</text>')
    n = len(p.passengers)
    if n == 0 and p.shape == "ship":   # an empty ship shows its sail
        out.append(f'<path d="M{_n(x)} {_n(top)}V{_n(top - u * 0.55)}L{_n(x + u * 0.4)} {_n(top - u * 0.12)}Z" '
                   f'fill="#ffffff" stroke="{edge}" stroke-width="0.8"/>')
    if n:
        s = min(u * 0.74, (w - 4) / n)
        for i, passenger in enumerate(p.passengers):
            px = x - w / 2 + 2 + (i + 0.5) * (w - 4) / n
            out.extend(_small_piece(passenger, px, y - u * 0.3, s, used, rings))
    out.append(_value_dot(p, x + w / 2 - u * 0.42, y, u))
    out.append("</g>")
    return ["".join(out)]


def _rows(pieces: list[Piece], u: float, wide: list[bool]) -> list[tuple[list[Piece], bool]]:
    """Pieces in rows, each with whether it is a vessel's: a vessel (``wide``: each piece's shape is
    wide) takes a row of its own, other pieces fill rows in order."""
    per_row = max(1, int(PIECES_W // u))
    rows: list[tuple[list[Piece], bool]] = []
    current: list[Piece] = []
    for p, vessel in zip(pieces, wide):
        if vessel:
            if current:
                rows.append((current, False))
                current = []
            rows.append(([p], True))
        else:
            current.append(p)
            if len(current) == per_row:
                rows.append((current, False))
                current = []
    if current:
        rows.append((current, False))
    return rows


def _pieces_svg(c: HexCell, cx: float, cy: float, used: set[str], rings: list[str]) -> list[str]:
    wide = [shape_of(p.shape).wide for p in c.pieces]      # each piece's shape looked up once, not per unit tried
    for u in UNITS:
        rows = _rows(c.pieces, u, wide)
        heights = [u * VESSEL_ROW if vessel else u for _row, vessel in rows]   # a vessel's row is higher
        if sum(heights) <= PIECES_H:
            break
    y = cy + PIECES_DY - sum(heights) / 2
    out: list[str] = []
    for (row, vessel), h in zip(rows, heights):
        if vessel:
            out.extend(_vessel(row[0], cx, y + h / 2, u, PIECES_W, used, rings))
        else:
            x0 = cx - (len(row) - 1) * u / 2
            for j, p in enumerate(row):
                out.extend(_small_piece(p, x0 + j * u, y + h / 2, u * 0.94, used, rings))
        y += h
    return out


# --- cells ------------------------------------------------------------------------------------

def _cell_tip(c: HexCell) -> str:
    tip = f"{c.label} ({c.kind})"     # pieces have tooltips of their own
    if c.marks and not c.pieces:
        tip += ": " + " ".join(map(str, c.marks))
    return tip


def _changed_outline(c: HexCell, cx: float, cy: float) -> str:
    """A dashed hexagon inside a cell whose kind changed (drawn with the rings and arrows)."""
    tip = f"{c.label}: was {c.was} at your last turn" if c.was else f"{c.label}: changed since your last turn"
    return f'<polygon points="{_hex_points(cx, cy, 0.84)}" class="pbem-changed"><title>{_text(tip)}</title></polygon>'


def _ground(board: BoardPicture, fill: str, c: HexCell, cx: float, cy: float, used: set[str]) -> str:
    ground, uses = _ground_of(_cell_tip(c), fill, board.textures.get(c.kind, ""), c.label, cx, cy)
    used.update(uses)
    return ground


@lru_cache(maxsize=4096)
def _ground_of(tip: str, fill: str, texture: str, label: str, cx: float, cy: float) -> tuple[str, tuple[str, ...]]:
    """A cell's ground (tooltip, hexagon, texture, label) and the definitions it uses: a pure
    function of these values, remembered (most cells of a board are bare ground, drawn alike for
    every reader and entry)."""
    x = _n(cx)
    out = [f"<title>{_text(tip)}</title>", f'<polygon points="{_hex_points(cx, cy)}" fill="{_attr(fill)}"/>']
    uses: tuple[str, ...] = ()
    if texture in TEXTURES:      # the one hexagon of the definitions, moved here, filled with the texture
        pattern = texture_id(texture)
        uses = (pattern, HEXAGON)
        out.append(f'<use href="#{HEXAGON}" x="{x}" y="{_n(cy)}" fill="url(#{pattern})" class="pbem-tex"/>')
    out.append(f'<text x="{x}" y="{_n(cy - SIZE * 0.52)}" class="pbem-label">{_text(label)}</text>')
    return "".join(out), uses


def _marks(c: HexCell, cx: float, cy: float) -> list[str]:
    if not c.marks:
        return []
    out = []
    lines = _wrap_marks(c.marks)
    colour_of = {str(m): col for m, col in zip(c.marks, c.mark_colours)} if c.mark_colours else {}
    if lines:
        longest = max(map(len, lines))
        px = min(MARK_PX, MARK_MAX_W / (longest * MARK_CHAR_W))
        gap = px * 1.15
        first = cy + px * 0.35 + (3.0 if len(lines) == 1 else 2.0 - gap / 2)
        for i, line in enumerate(lines):
            style = "" if px == MARK_PX else f' style="font-size:{_n(px)}px"'
            body = _coloured_line(line, [(w, colour_of.get(w, "")) for w in line.split(" ")]) if colour_of \
                else _text(line)
            out.append(f'<text x="{_n(cx)}" y="{_n(first + i * gap)}" class="pbem-marks"{style}>{body}</text>')
    return out


def _cell_contents(c: HexCell, cx: float, cy: float, used: set[str], rings: list[str]) -> list[str]:
    return _pieces_svg(c, cx, cy, used, rings) if c.pieces else _marks(c, cx, cy)


# --- arrows -------------------------------------------------------------------------------------

def _moves(board: BoardPicture) -> list[tuple[str, str]]:
    """(from, to) labels of the pieces that moved from a space still on the board, each pair once."""
    labels = {c.label for c in board.cells}
    pairs: list[tuple[str, str]] = []

    def visit(p: Piece, at: str) -> None:
        if p.moved and p.moved_from in labels and p.moved_from != at and (p.moved_from, at) not in pairs:
            pairs.append((p.moved_from, at))
        for x in p.passengers:
            visit(x, at)

    for c in sorted(board.cells, key=lambda c: (c.r, c.q)):
        for p in c.pieces:
            visit(p, c.label)
    return pairs


def _arrows(pairs: list[tuple[str, str]], centres: dict[str, tuple[float, float]], rings: list[str]) -> str:
    """The rings around moved pieces and the arrows from where they were, as one layer."""
    if not pairs and not rings:
        return ""
    out = ['<g class="pbem-arrows">', *rings]
    for a, b in pairs:
        (x1, y1), (x2, y2) = centres[a], centres[b]
        d = math.hypot(x2 - x1, y2 - y1)
        if d < 1:
            continue
        ux, uy = (x2 - x1) / d, (y2 - y1) / d
        sx, sy, ex, ey = x1 + ux * 10, y1 + uy * 10, x2 - ux * 16, y2 - uy * 16
        line = f'x1="{_n(sx)}" y1="{_n(sy)}" x2="{_n(ex)}" y2="{_n(ey)}"'
        out.append(f'<line {line} class="pbem-arrow-w"/><line {line} class="pbem-arrow" '
                   'marker-end="url(#pbem-arrowhead)"/>')
    out.append("</g>")
    return "".join(out)


# --- the key ----------------------------------------------------------------------------------------

def _key(board: BoardPicture, kinds: list[str], fills: dict[str, str], top: float, width: float,
         used: set[str], moved: bool, changed: bool, values: bool) -> tuple[str, float]:
    """Terrain swatches, the pieces' key, what rings and arrows mean, the mark legend; and its bottom."""
    sample_rings: list[str] = []    # the key's samples never moved
    items: list[str] = []
    x, y = MARGIN, top
    item_w = 14.0 + 6.0 + max((len(k) for k in kinds), default=0) * KEY_PX * 0.62 + 18.0
    for kind in kinds:
        if x > MARGIN and x + item_w > width - MARGIN:
            x, y = MARGIN, y + KEY_PX + 10.0
        box = f'x="{_n(x)}" y="{_n(y)}" width="14.00" height="14.00"'
        items.append(f'<rect class="pbem-swatch" {box} fill="{_attr(fills[kind])}"/>')
        texture = board.textures.get(kind, "")
        if texture in TEXTURES:
            used.add(texture_id(texture))
            items.append(f'<rect {box} fill="url(#{texture_id(texture)})"/>')
        items.append(f'<text x="{_n(x + 20.0)}" y="{_n(y + 11.5)}">{_text(kind)}</text>')
        x += item_w
    y += 14.0 if kinds else 0.0
    entries = list(board.key)
    notes: list[str] = []
    if moved:
        notes.append("dashed ring, arrow: moved since your last turn (the arrow from where it was)")
    if changed:
        notes.append("dashed hexagon: this space changed since your last turn")
    if values:
        notes.append("yellow dot: the piece's value (on your own board: yours, which the others do not see)")
    if entries:
        y += 8.0
        x = MARGIN
        for piece, meaning in entries:
            w = KEY_PIECE * (2.6 if shape_of(piece.shape).wide else 1.0) + 8.0 + len(meaning) * KEY_PX * 0.6 + 20.0
            if x > MARGIN and x + w > width - MARGIN:
                x, y = MARGIN, y + KEY_PIECE + 6.0
            pw = KEY_PIECE * (2.6 if shape_of(piece.shape).wide else 1.0)
            cx, cy = x + pw / 2, y + KEY_PIECE / 2
            if shape_of(piece.shape).wide:
                items.extend(_vessel(piece, cx, cy, KEY_PIECE, pw, used, sample_rings))
            else:
                items.extend(_small_piece(piece, cx, cy, KEY_PIECE, used, sample_rings))
            items.append(f'<text x="{_n(x + pw + 6.0)}" y="{_n(cy + 4.0)}">{_text(meaning)}</text>')
            x += w
        y += KEY_PIECE
    for note in notes:
        y += KEY_PX + 6.0
        items.append(f'<text x="{_n(MARGIN)}" y="{_n(y)}">{_text(note)}</text>')
    for code, meaning in ({} if entries else board.legend).items():   # the pieces' key replaces the codes
        y += KEY_PX + 6.0
        items.append(f'<text x="{_n(MARGIN)}" y="{_n(y)}"><tspan class="pbem-code">{_text(code)}</tspan>'
                     f" = {_text(meaning)}</text>")
    if not items:
        return "", y
    return '<g class="pbem-key">' + "".join(items) + "</g>", y


# --- the whole picture -----------------------------------------------------------------------------

STYLE = ("<style>"
         f"svg.pbem-board text{{font-family:{FONT};font-size:{_n(KEY_PX)}px;fill:#1a1a1a}}"
         f"svg.pbem-board .pbem-label{{font-size:{_n(LABEL_PX)}px;text-anchor:middle;fill:#333333}}"
         f"svg.pbem-board .pbem-marks{{font-family:{MONO};font-size:{_n(MARK_PX)}px;font-weight:bold;"
         "text-anchor:middle}"
         f"svg.pbem-board .pbem-pt{{font-family:{MONO};font-weight:bold;text-anchor:middle}}"
         f"svg.pbem-board .pbem-code{{font-family:{MONO};font-weight:bold}}"
         f"svg.pbem-board .pbem-title{{font-size:{_n(TITLE_PX)}px;font-weight:bold}}"
         "svg.pbem-board polygon{stroke:#4d4d4d;stroke-width:1.2;stroke-linejoin:round}"
         "svg.pbem-board .pbem-tex{stroke:none}"
         "svg.pbem-board .pbem-changed{fill:none;stroke:#ffffff;stroke-width:2.4;stroke-dasharray:5 3}"
         "svg.pbem-board .pbem-swatch{stroke:#4d4d4d;stroke-width:1}"
         "svg.pbem-board .pbem-ring-w{fill:none;stroke:#ffffff;stroke-width:3.6}"
         f"svg.pbem-board .pbem-ring{{fill:none;stroke:{MOVED_RING};stroke-width:1.8;stroke-dasharray:3 2}}"
         "svg.pbem-board .pbem-arrow-w{stroke:#ffffff;stroke-width:5;stroke-opacity:0.8;stroke-linecap:round}"
         "svg.pbem-board .pbem-arrow{stroke:#111111;stroke-width:2.2;stroke-linecap:round}"
         "</style>")
HEXAGON = "pbem-hexagon"     # a cell's hexagon about (0, 0): textures are drawn with it
ARROWHEAD = ('<marker id="pbem-arrowhead" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="4" markerHeight="4" '
             'orient="auto"><path d="M0 0L10 5L0 10Z" fill="#111111"/></marker>')


def defs(used: set[str]) -> str:
    """The symbols, textures and arrowhead a picture uses, in a fixed order."""
    out = []
    for name in SHAPES:
        if symbol_id(name) in used:
            out.append(f'<symbol id="{symbol_id(name)}" viewBox="-10 -10 20 20" overflow="visible">'
                       f"{SHAPES[name].body}</symbol>")
    for name in TEXTURES:
        if texture_id(name) in used:
            out.append(pattern_svg(name))
    if HEXAGON in used:
        out.append(f'<polygon id="{HEXAGON}" class="pbem-tex" points="{_hex_points(0.0, 0.0)}"/>')
    if "pbem-arrowhead" in used:
        out.append(ARROWHEAD)
    return "<defs>" + "".join(out) + "</defs>" if out else ""


@dataclass
class BoardLayers:
    """A board drawn in parts: ``cells`` in drawing order (ground, contents), the arrows,
    the key; plus the size and the ids of the definitions the parts use.  ``rows``: the cells'
    lines of the document (:func:`cell_line`), a row of the board's joined by newlines in each
    (drawn with the rows, so that they are not written again for each board); none: written
    from ``cells``."""

    width: float
    height: float
    title: str
    cells: list[tuple[str, str]] = field(default_factory=list)
    arrows: str = ""
    key: str = ""
    used: set[str] = field(default_factory=set)
    rows: list[str] = field(default_factory=list)


def cell_line(ground: str, contents: str) -> str:
    """A cell's line of the SVG document."""
    return f'<g class="pbem-cell">{ground}{contents}</g>'


@dataclass(frozen=True)
class _SvgLayout:
    """What a board's SVG takes from its cells' places, labels and kinds alone (the same for every
    reader's board of an entry): the cells' order, its rows, the cells' centres, the fills, the size."""

    place: int                           # the number in its memo of what a cell's drawing takes from the
    #                                      board beside the cell itself (the cells' and rows' keys name it)
    order: list[int]                     # the cells (their indices in the picture) in drawing order
    rows: list[tuple[int, int]]          # each row's cells: order[start:end]
    centres: list[tuple[float, float]]   # each cell's centre, in drawing order
    labels: dict[str, tuple[float, float]]   # each label's centre
    fills: dict[str, str]
    kinds: list[str]
    top: float
    board_h: float
    width: float


def _svg_layout(board: BoardPicture, title: str, ids: list[int], memo: BoardMemo) -> _SvgLayout:
    what = ("svg-layout", memo.grounds(ids), bool(title), tuple(memo.changed_from(ids)), tuple(board.colours.items()),
            tuple(board.textures.items()))
    layout = memo.get(what)
    if layout is not None:
        return cast(_SvgLayout, layout)
    cells = board.cells
    order = sorted(range(len(cells)), key=lambda i: (cells[i].r, cells[i].q))
    top = MARGIN + (TITLE_PX + 10.0 if title else 0.0)
    if cells:
        xs = [HEX_W * (cells[i].q + cells[i].r / 2) for i in order]
        ys = [1.5 * SIZE * cells[i].r for i in order]
        x0 = MARGIN + HEX_W / 2 - min(xs)
        y0 = top + SIZE - min(ys)
        board_w = max(xs) - min(xs) + HEX_W
        board_h = max(ys) - min(ys) + 2 * SIZE
    else:
        xs, ys, x0, y0, board_w, board_h = [], [], MARGIN, top, 0.0, 0.0
    centres = [(x0 + cx, y0 + cy) for cx, cy in zip(xs, ys)]
    rows: list[tuple[int, int]] = []
    for n, i in enumerate(order):
        if n and cells[i].r == cells[order[n - 1]].r:
            rows[-1] = (rows[-1][0], n + 1)
        else:
            rows.append((n, n + 1))
    fills = _fills(board)
    # a cell is drawn from its own content (its number), its centre (from its q and r, and the
    # board's origin), its kind's fill and texture: the same where all of those are the same,
    # whatever else changed on the board (a sunk tile, a changed space elsewhere)
    place = ("svg-place", x0, y0, tuple(sorted(fills.items())), tuple(board.textures.items()))
    layout = _SvgLayout(memo.part(place, memo.number), order, rows, centres,
                        {cells[i].label: centre for i, centre in zip(order, centres)}, fills,
                        sorted({c.kind for c in cells}), top, board_h, max(board_w + 2 * MARGIN, 320.0))
    return cast(_SvgLayout, memo.put(what, layout))


class _SvgRow(NamedTuple):
    """A row of cells drawn: each cell's (ground, contents), the definitions they use, the rings
    around moved pieces, the outlines of changed cells; the (from, to) of the pieces that moved in,
    whether any piece moved, any cell changed, any piece shows a value; the cells' lines of the
    document (:func:`cell_line`, joined by newlines)."""

    parts: list[tuple[str, str]]
    used: tuple[str, ...]
    rings: list[str]
    outlines: list[str]
    moves: list[tuple[str, str]]
    moved: bool
    changed: bool
    values: bool
    lines: str


def _moves_into(p: Piece, at: str, moves: list[tuple[str, str]]) -> None:
    """(from, to) of ``p`` and its passengers where they moved into ``at`` from elsewhere."""
    if p.moved and p.moved_from != at:
        moves.append((p.moved_from, at))
    for x in p.passengers:
        _moves_into(x, at, moves)


def _svg_cell(board: BoardPicture, layout: _SvgLayout, n: int) -> _SvgRow:
    """The ``n``-th cell in drawing order, drawn (as a row of one)."""
    used: set[str] = set()
    rings: list[str] = []
    moves: list[tuple[str, str]] = []
    c = board.cells[layout.order[n]]
    x, y = layout.centres[n]
    part = (_ground(board, layout.fills[c.kind], c, x, y, used), "".join(_cell_contents(c, x, y, used, rings)))
    moved = values = False
    if c.pieces:
        for p in c.pieces:
            _moves_into(p, c.label, moves)
        everything = [*c.pieces, *(x for p in c.pieces for x in p.passengers)]
        moved = any(p.moved for p in everything)
        values = any(p.value is not None for p in everything)
    return _SvgRow([part], tuple(used), rings, [_changed_outline(c, x, y)] if c.changed else [], moves,
                   moved, c.changed, values, cell_line(*part))


def _svg_row(board: BoardPicture, layout: _SvgLayout, start: int, end: int, ids: list[int],
             memo: BoardMemo) -> _SvgRow:
    """The cells order[start:end] drawn, each cell taken from the memo where it was drawn before."""
    return _joined(memo.part(("svg-cell", layout.place, ids[layout.order[n]]), partial(_svg_cell, board, layout, n))
                   for n in range(start, end))


def _joined(rows: Iterable[_SvgRow], lines_too: bool = True) -> _SvgRow:
    """The rows (or cells) drawn one after the other, as one (``lines_too`` False: without their lines,
    the board's, which :class:`BoardLayers` keeps row by row)."""
    used: set[str] = set()
    parts: list[tuple[str, str]] = []
    rings: list[str] = []
    outlines: list[str] = []
    moves: list[tuple[str, str]] = []
    lines: list[str] = []
    moved = changed = values = False
    for row in rows:
        if lines_too:
            lines.append(row.lines)
        parts += row.parts
        used.update(row.used)
        rings += row.rings
        outlines += row.outlines
        moves += row.moves
        moved, changed, values = moved or row.moved, changed or row.changed, values or row.values
    return _SvgRow(parts, tuple(used), rings, outlines, moves, moved, changed, values, "\n".join(lines))


def board_layers(board: BoardPicture, title: str = "", every_note: bool = False,
                 memo: BoardMemo | None = None, ids: list[int] | None = None) -> BoardLayers:
    """The board in parts.  ``every_note``: the key explains rings, arrows and changed spaces
    even when none is drawn (a replay's key then stays the same from frame to frame).
    ``memo``: parts already drawn for other boards of the same entry, used again where they
    are drawn from the same content at the same place (:mod:`pbem.views.render.boardmemo`);
    ``ids``: the cells' numbers in the memo (:meth:`~pbem.views.render.boardmemo.BoardMemo.cell_ids`) when already known."""
    if memo is None:
        memo = BoardMemo()
    if ids is None:
        ids = memo.cell_ids(board)
    layout = _svg_layout(board, title, ids, memo)
    rows = [memo.part(("svg-row", layout.place, tuple(ids[i] for i in layout.order[start:end])),
                      partial(_svg_row, board, layout, start, end, ids, memo))
            for start, end in layout.rows]
    drawn = _joined(rows, lines_too=False)
    parts, rings, moves = drawn.parts, drawn.rings, drawn.moves
    used = set(drawn.used)
    moved, changed, values = drawn.moved, drawn.changed, drawn.values
    rings[:0] = reversed(drawn.outlines)     # each changed cell's outline went in front as it was drawn
    pairs: list[tuple[str, str]] = []
    for pair in moves:                  # from a space still on the board, each pair once
        if pair[0] in layout.labels and pair not in pairs:
            pairs.append(pair)
    arrows = _arrows(pairs, layout.labels, rings)
    if pairs:
        used.add("pbem-arrowhead")
    kinds, fills, width = layout.kinds, layout.fills, layout.width
    moved, changed = every_note or moved, every_note or changed
    key_top = layout.top + layout.board_h + 14.0
    what_key = ("svg-key", tuple(kinds), tuple(fills[k] for k in kinds),
                tuple(board.textures.get(k, "") for k in kinds), tuple((piece_key(p), text) for p, text in board.key),
                tuple(board.legend.items()), key_top, width, moved, changed, values)
    def draw_key() -> tuple[str, float, tuple[str, ...]]:
        key_used: set[str] = set()
        key, bottom = _key(board, kinds, fills, key_top, width, key_used, moved=moved, changed=changed, values=values)
        return key, bottom, tuple(sorted(key_used))
    drawn_key = memo.part(what_key, draw_key)
    key, bottom = drawn_key[0], drawn_key[1]
    used.update(drawn_key[2])
    return BoardLayers(width, bottom + MARGIN, title, parts, arrows, key, used, [row.lines for row in rows])


def svg_open(width: float, height: float, name: str, n_cells: int) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="pbem-board" width="{_n(width)}" '
            f'height="{_n(height)}" viewBox="0.00 0.00 {_n(width)} {_n(height)}" role="img">\n'
            f"<title>{_text(name)}</title>\n"
            f"<desc>Hex map with {n_cells} cells: each hex shows its label and the pieces on it.</desc>\n"
            f"{STYLE}")


def title_svg(title: str) -> str:
    return f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + TITLE_PX)}" class="pbem-title">{_text(title)}</text>'


def assemble(layers: BoardLayers) -> str:
    """The layers as one standalone SVG document (a string ending in a newline)."""
    return "\n".join(svg_pieces(layers)) + "\n"


def svg_pieces(layers: BoardLayers) -> list[str]:
    """The lines of :func:`assemble`'s document (joined by newlines), each whole elements and text."""
    out = [svg_open(layers.width, layers.height, layers.title or "Game board", len(layers.cells))]
    d = defs(layers.used)
    if d:
        out.append(d)
    out.append(f'<rect x="0.00" y="0.00" width="{_n(layers.width)}" height="{_n(layers.height)}" fill="#ffffff"/>')
    if layers.title:
        out.append(title_svg(layers.title))
    out.append('<g class="pbem-hexes">')
    if layers.rows:
        out += layers.rows
    else:
        out += [cell_line(ground, contents) for ground, contents in layers.cells]
    out.append("</g>")
    if layers.arrows:
        out.append(layers.arrows)
    if layers.key:
        out.append(layers.key)
    out.append("</svg>")
    return out


def render_svg(board: BoardPicture, title: str = "", memo: BoardMemo | None = None,
               ids: list[int] | None = None) -> str:
    """The board as a standalone SVG document (a string ending in a newline).  ``memo``, ``ids``:
    see :func:`board_layers`."""
    return assemble(board_layers(board, title, memo=memo, ids=ids))
