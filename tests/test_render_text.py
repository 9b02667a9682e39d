"""The ASCII hex map: layout, marks, key, width and byte-for-byte determinism."""
from __future__ import annotations

import random
import re

import pytest

from pbem.game import BoardPicture, HexCell
from pbem.views.render.hexmap_text import render_text, terrain_letters

FULL_ROWS = {-6: (0, 6), -5: (-2, 7), -4: (-3, 7), -3: (-3, 6), -2: (-4, 6), -1: (-5, 6), 0: (-5, 5),
             1: (-6, 5), 2: (-6, 4), 3: (-6, 3), 4: (-7, 3), 5: (-7, 2), 6: (-6, 0)}
NEIGHBOURS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
KINDS = ["sea", "beach", "forest", "mountain", "isle"]
# on-screen offsets (lines, columns) of each neighbour's label from the cell's label
SCREEN = {(1, 0): (0, 8), (-1, 0): (0, -8), (0, 1): (3, 4), (-1, 1): (3, -4), (1, -1): (-3, 4), (0, -1): (-3, -4)}


def label_of(q: int, r: int) -> str:
    return "ABCDEFGHIJKL"[(2 * q + r + 11) // 2] + str(r + 7)


def full_board(marks=None) -> BoardPicture:
    marks = marks or {}
    cells = []
    for r, (lo, hi) in FULL_ROWS.items():
        for q in range(lo, hi + 1):
            kind = KINDS[(3 * q + 5 * r) % 5] if max(abs(q), abs(r), abs(q + r)) < 4 else "sea"
            cells.append(HexCell(q, r, label_of(q, r), kind, list(marks.get((q, r), []))))
    return BoardPicture(cells, legend={"S": "serpent", "B": "boat", "r/b": "red/blue explorer"})


SMALL_LABELS = {(0, 0): "D4", (1, 0): "E4", (1, -1): "E3", (0, -1): "D3", (-1, 0): "C4", (-1, 1): "C5", (0, 1): "D5"}


def small_board() -> BoardPicture:
    """A centre hex and its six neighbours."""
    cells = [HexCell(q, r, label, KINDS[i % 5] if (q, r) != (0, 0) else "isle", ["S1"] if (q, r) == (0, 0) else [])
             for i, ((q, r), label) in enumerate(SMALL_LABELS.items())]
    return BoardPicture(cells)


def map_part(text: str) -> list[str]:
    """The map lines: everything before the first empty line."""
    lines = text.split("\n")
    return lines[: lines.index("")]


def label_positions(text: str) -> dict[str, list[tuple[int, int, str]]]:
    """label -> [(line, column, terrain letter)] for every cell drawn in the map."""
    found: dict[str, list[tuple[int, int, str]]] = {}
    for y, line in enumerate(map_part(text)):
        for m in re.finditer(r"\| (\S+) +(\S) (?=\|)", line):
            found.setdefault(m.group(1), []).append((y, m.start(1), m.group(2)))
    return found


def test_full_board_shape_is_133_cells():
    assert len(full_board().cells) == 133
    assert len({c.label for c in full_board().cells}) == 133


@pytest.mark.parametrize("make", [small_board, full_board])
def test_every_label_exactly_once(make):
    board = make()
    text = render_text(board)
    found = label_positions(text)
    assert sorted(found) == sorted(c.label for c in board.cells)
    assert all(len(v) == 1 for v in found.values())
    joined = "\n".join(map_part(text))
    for c in board.cells:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(c.label)}(?![A-Za-z0-9])"
        assert len(re.findall(pattern, joined)) == 1, c.label


@pytest.mark.parametrize("make", [small_board, full_board])
def test_neighbours_are_adjacent_on_screen(make):
    board = make()
    found = label_positions(render_text(board))
    at = {(c.q, c.r): found[c.label][0] for c in board.cells}
    checked = 0
    for (q, r), (y, x, _) in at.items():
        for (dq, dr), (dy, dx) in SCREEN.items():
            other = at.get((q + dq, r + dr))
            if other is not None:
                assert (other[0] - y, other[1] - x) == (dy, dx), ((q, r), (dq, dr))
                checked += 1
    assert checked >= (12 if make is small_board else 600)


def test_small_board_picture():
    text = render_text(small_board())
    lines = map_part(text)
    # centre row: three cells side by side sharing bars
    assert any(re.fullmatch(r"\| \S+ +\S \| D4  i \| \S+ +\S \|", line) for line in lines)
    # rows above and below are shifted half a cell (4 columns) to the right
    assert lines[1].startswith("    | ") and lines[7].startswith("    | ")
    assert lines[4].startswith("| ")


def test_terrain_letters_and_key():
    board = full_board()
    text = render_text(board)
    letters = terrain_letters(c.kind for c in board.cells)
    assert letters == {"beach": "b", "forest": "f", "isle": "i", "mountain": "m", "sea": "s"}
    found = label_positions(text)
    for c in board.cells:
        assert found[c.label][0][2] == letters[c.kind]
    assert "Key: b=beach f=forest i=isle m=mountain s=sea" in text


def test_game_symbols_replace_letters_and_others_avoid_them():
    cells = [HexCell(0, 0, "A1", "star cluster"), HexCell(1, 0, "B1", "deep space"), HexCell(2, 0, "C1", "sea")]
    text = render_text(BoardPicture(cells, symbols={"star cluster": "*", "deep space": ".", }))
    assert "| A1  * |" in text and "| B1  . |" in text
    assert "Key: .=deep space s=sea *=star cluster" in text
    taken = render_text(BoardPicture(cells, symbols={"star cluster": "s"}))
    assert "Key: d=deep space e=sea s=star cluster" in taken   # "s" was the game's, so sea takes "e"


def test_terrain_letters_resolve_clashes():
    letters = terrain_letters(["sea", "sand", "swamp", "", "s"])
    assert len(set(letters.values())) == 5
    assert letters == terrain_letters(["s", "", "swamp", "sand", "sea", "sea"])


def test_marks_in_cell_and_listed():
    marks = {(0, 0): ["S1"], (1, 0): ["B3:r7,b2", "S1"], (-1, 1): ["r7", "b2"], (2, -2): ["K2", "r7", "b2", "g9"]}
    board = full_board(marks)
    text = render_text(board)
    found = label_positions(text)
    lines = map_part(text)

    def cell_marks(q, r):
        y, x, _ = found[label_of(q, r)][0]
        return lines[y + 1][x - 1: x + 6].strip()

    assert cell_marks(0, 0) == "S1"
    assert cell_marks(-1, 1) == "r7 b2"
    assert cell_marks(1, 0) == "*2"
    assert cell_marks(2, -2) == "*4"
    assert cell_marks(0, 1) == ""
    listed = text.split("Marks:\n", 1)[1].split("\n\n", 1)[0] + "\n"
    assert f"  {label_of(1, 0)}: B3:r7,b2 S1\n" in listed
    assert f"  {label_of(0, 0)}: S1\n" in listed
    assert f"  {label_of(2, -2)}: K2 r7 b2 g9\n" in listed
    assert listed.count("\n") == 4       # only marked cells are listed
    assert "*N = N marks" in text
    # listed in reading order: north to south, west to east
    order = [m.group(1) for m in re.finditer(r"^  (\S+): ", listed, re.M)]
    assert order == [label_of(2, -2), label_of(0, 0), label_of(1, 0), label_of(-1, 1)]


def test_legend_listed():
    text = render_text(full_board())
    assert "Mark codes:\n  S = serpent\n  B = boat\n  r/b = red/blue explorer\n" in text


def test_width_ascii_trailing_spaces():
    marks = {(q, 0): ["B3:r7,b2", "S1"] for q in range(-5, 6)}
    board = full_board(marks)
    board.cells[0].label = "C\u00e71"            # non-ASCII input is made ASCII
    board.cells[1].marks = ["\u2603x", "tab\there"]
    text = render_text(board)
    lines = text.split("\n")
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert max(len(line) for line in map_part(text)) <= 100
    assert max(len(line) for line in lines) <= 100
    text.encode("ascii")
    assert all(line == line.rstrip() for line in lines)
    assert "Cc1" in text and "?x" in text and "tab_here" in text
    assert "\t" not in text


def test_deterministic_and_order_independent():
    board = full_board({(0, 0): ["S1"], (1, 1): ["B3:r7,b2", "S1"]})
    first = render_text(board)
    assert render_text(board) == first
    shuffled = list(board.cells)
    random.Random(7).shuffle(shuffled)
    assert render_text(BoardPicture(shuffled, board.legend)) == first


def test_long_labels_widen_cells():
    board = BoardPicture([HexCell(0, 0, "ABC123", "sea"), HexCell(1, 0, "X", "sea"), HexCell(0, 1, "Y", "sea")])
    text = render_text(board)
    found = label_positions(text)
    (y0, x0, _), (y1, x1, _), (y2, x2, _) = found["ABC123"][0], found["X"][0], found["Y"][0]
    assert y1 == y0 and x1 - x0 == 12
    assert y2 - y0 == 3 and x2 - x0 == 6


def test_empty_and_duplicate():
    assert render_text(BoardPicture([])) == "(empty board)\n"
    with pytest.raises(ValueError):
        render_text(BoardPicture([HexCell(0, 0, "A1", "sea"), HexCell(0, 0, "A2", "sea")]))
