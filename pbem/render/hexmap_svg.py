"""A standalone SVG picture of a hex board (pointy-top hexes).

Deterministic: no timestamps, no generated ids, every number written with
two decimals.  Cell (q, r) is centred at ``x = sqrt(3) * S * (q + r/2)``,
``y = 1.5 * S * r`` (S = centre-to-corner size), shifted so the board starts
at the margin.  Each cell is one ``<g>`` holding exactly one ``<polygon>``
(filled by kind), the label (small, near the top), the marks (one or two
lines, shrunk to fit) and a ``<title>`` tooltip; a key of terrain swatches
(``<rect>``) and the board's mark legend follow under the board.  The
stylesheet is scoped to ``svg.pbem-board`` and every class is ``pbem-``
prefixed, so the picture neither leaks styles into nor takes them from an
HTML page it is embedded in.  The result
has no XML declaration, so it can be embedded inline in HTML as it is.
"""
from __future__ import annotations

import math
import re
from xml.sax.saxutils import escape

from pbem.game import BoardPicture, HexCell

__all__ = ["render_svg", "NEUTRAL_FILLS"]

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

# characters XML 1.0 does not allow at all
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _n(v: float) -> str:
    """Fixed number format: two decimals, never "-0.00"."""
    s = f"{v:.2f}"
    return "0.00" if s == "-0.00" else s


def _text(s: str) -> str:
    return escape(_BAD_XML.sub("?", str(s)))


def _attr(s: str) -> str:
    return escape(_BAD_XML.sub("?", str(s)), {'"': "&quot;", "\n": "&#10;", "\t": "&#9;"})


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


def _hex_points(cx: float, cy: float) -> str:
    pts = []
    for k in range(6):  # pointy-top: corners at 30 + 60k degrees, starting at the top
        a = math.radians(60 * k - 90)
        pts.append(f"{_n(cx + SIZE * math.cos(a))},{_n(cy + SIZE * math.sin(a))}")
    return " ".join(pts)


def _fills(board: BoardPicture) -> dict[str, str]:
    """Each kind's fill: the game's colour, else a neutral one."""
    kinds = sorted({c.kind for c in board.cells})
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


def _cell_svg(fill: str, c: HexCell, cx: float, cy: float) -> list[str]:
    tip = f"{c.label} ({c.kind})"
    if c.marks:
        tip += ": " + " ".join(map(str, c.marks))
    out = [
        '<g class="pbem-cell">',
        f"<title>{_text(tip)}</title>",
        f'<polygon points="{_hex_points(cx, cy)}" fill="{_attr(fill)}"/>',
        f'<text x="{_n(cx)}" y="{_n(cy - SIZE * 0.52)}" class="pbem-label">{_text(c.label)}</text>',
    ]
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
    out.append("</g>")
    return out


def render_svg(board: BoardPicture, title: str = "") -> str:
    """The board as a standalone SVG document (a string ending in a newline)."""
    cells = sorted(board.cells, key=lambda c: (c.r, c.q))
    name = title or "Game board"
    top = MARGIN + (TITLE_PX + 10.0 if title else 0.0)

    if cells:
        xs = [HEX_W * (c.q + c.r / 2) for c in cells]
        ys = [1.5 * SIZE * c.r for c in cells]
        x0 = MARGIN + HEX_W / 2 - min(xs)
        y0 = top + SIZE - min(ys)
        board_w = max(xs) - min(xs) + HEX_W
        board_h = max(ys) - min(ys) + 2 * SIZE
    else:
        xs, ys, x0, y0, board_w, board_h = [], [], MARGIN, top, 0.0, 0.0

    # the key: terrain swatches in one or more rows, then the mark legend lines
    fills = _fills(board)
    kinds = sorted({c.kind for c in cells})
    key_top = top + board_h + 14.0
    key_items: list[str] = []
    x, y = MARGIN, key_top
    width = max(board_w + 2 * MARGIN, 320.0)
    item_w = 14.0 + 6.0 + max((len(k) for k in kinds), default=0) * KEY_PX * 0.62 + 18.0
    for kind in kinds:
        if x > MARGIN and x + item_w > width - MARGIN:
            x, y = MARGIN, y + KEY_PX + 10.0
        key_items.append(f'<rect class="pbem-swatch" x="{_n(x)}" y="{_n(y)}" width="14.00" height="14.00" '
                         f'fill="{_attr(fills[kind])}"/>')
        key_items.append(f'<text x="{_n(x + 20.0)}" y="{_n(y + 11.5)}">{_text(kind)}</text>')
        x += item_w
    y += 14.0 if kinds else 0.0
    for code, meaning in board.legend.items():
        y += KEY_PX + 6.0
        key_items.append(f'<text x="{_n(MARGIN)}" y="{_n(y)}"><tspan class="pbem-code">{_text(code)}</tspan>'
                         f" = {_text(meaning)}</text>")
    height = y + MARGIN

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="pbem-board" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0.00 0.00 {_n(width)} {_n(height)}" role="img">',
        f"<title>{_text(name)}</title>",
        f"<desc>Hex map with {len(cells)} cells: each hex shows its label and the pieces on it.</desc>",
        "<style>"
        f"svg.pbem-board text{{font-family:{FONT};font-size:{_n(KEY_PX)}px;fill:#1a1a1a}}"
        f"svg.pbem-board .pbem-label{{font-size:{_n(LABEL_PX)}px;text-anchor:middle;fill:#333333}}"
        f"svg.pbem-board .pbem-marks{{font-family:{MONO};font-size:{_n(MARK_PX)}px;font-weight:bold;"
        "text-anchor:middle}"
        f"svg.pbem-board .pbem-code{{font-family:{MONO};font-weight:bold}}"
        f"svg.pbem-board .pbem-title{{font-size:{_n(TITLE_PX)}px;font-weight:bold}}"
        "svg.pbem-board polygon{stroke:#4d4d4d;stroke-width:1.2;stroke-linejoin:round}"
        "svg.pbem-board .pbem-swatch{stroke:#4d4d4d;stroke-width:1}"
        "</style>",
        f'<rect x="0.00" y="0.00" width="{_n(width)}" height="{_n(height)}" fill="#ffffff"/>',
    ]
    if title:
        out.append(f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + TITLE_PX)}" class="pbem-title">{_text(title)}</text>')
    out.append('<g class="pbem-hexes">')
    for c, cx, cy in zip(cells, xs, ys):
        out.extend(_cell_svg(fills[c.kind], c, x0 + cx, y0 + cy))
    out.append("</g>")
    if key_items:
        out.append('<g class="pbem-key">')
        out.extend(key_items)
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
