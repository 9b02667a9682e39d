"""The SVG board: well-formed, one hexagon per cell, colours, escaping, determinism."""
from __future__ import annotations

import math
import random
import re
import xml.etree.ElementTree as ET

from pbem.game import BoardPicture, HexCell
from pbem.views.render.hexmap_svg import HEX_W, NEUTRAL_FILLS, render_svg

NS = {"svg": "http://www.w3.org/2000/svg"}
FULL_ROWS = {-6: (0, 6), -5: (-2, 7), -4: (-3, 7), -3: (-3, 6), -2: (-4, 6), -1: (-5, 6), 0: (-5, 5),
             1: (-6, 5), 2: (-6, 4), 3: (-6, 3), 4: (-7, 3), 5: (-7, 2), 6: (-6, 0)}
NEIGHBOURS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
KINDS = ["sea", "beach", "forest", "mountain", "isle"]


def label_of(q: int, r: int) -> str:
    return "ABCDEFGHIJKL"[(2 * q + r + 11) // 2] + str(r + 7)


def full_board() -> BoardPicture:
    cells = []
    for r, (lo, hi) in FULL_ROWS.items():
        for q in range(lo, hi + 1):
            kind = KINDS[(3 * q + 5 * r) % 5] if max(abs(q), abs(r), abs(q + r)) < 4 else "sea"
            marks = ["S1"] if (q + r) % 5 == 0 else (["B3:r7,b2", "S1", "r7"] if (q * r) % 7 == 3 else [])
            cells.append(HexCell(q, r, label_of(q, r), kind, marks))
    return BoardPicture(cells, legend={"S": "serpent", "B": "boat"})


def small_board() -> BoardPicture:
    cells = [HexCell(0, 0, "D4", "isle", ["S1"])]
    cells += [HexCell(dq, dr, f"N{i}", KINDS[i % 5], []) for i, (dq, dr) in enumerate(NEIGHBOURS)]
    return BoardPicture(cells)


def cell_groups(root):
    return root.findall(".//svg:g[@class='pbem-cell']", NS)


def centre(polygon) -> tuple[float, float]:
    pts = [tuple(map(float, p.split(","))) for p in polygon.get("points").split()]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def test_well_formed_one_polygon_per_cell():
    for board in (small_board(), full_board()):
        svg = render_svg(board, "Atlantis")
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert len(root.findall(".//svg:polygon", NS)) == len(board.cells)
        assert len(cell_groups(root)) == len(board.cells)
        assert not svg.startswith("<?xml")         # embeddable inline in HTML


def test_title_for_accessibility():
    root = ET.fromstring(render_svg(small_board(), "Game 7 <turn 3>"))
    first = list(root)[0]
    assert first.tag == "{http://www.w3.org/2000/svg}title" and first.text == "Game 7 <turn 3>"
    assert root.get("role") == "img"
    untitled = ET.fromstring(render_svg(small_board()))
    assert list(untitled)[0].text


def test_labels_and_marks_drawn():
    board = full_board()
    root = ET.fromstring(render_svg(board))
    for g, c in zip(cell_groups(root), sorted(board.cells, key=lambda c: (c.r, c.q))):
        label = g.find("svg:text[@class='pbem-label']", NS)
        assert label.text == c.label
        lines = [t.text for t in g.findall("svg:text[@class='pbem-marks']", NS)]
        assert " ".join(lines) == " ".join(c.marks)
        assert len(lines) <= 2
        tip = g.find("svg:title", NS).text
        assert tip.startswith(f"{c.label} ({c.kind})")


def test_long_marks_wrap_to_two_lines():
    board = BoardPicture([HexCell(0, 0, "A1", "sea", ["B3:r7,b2", "S1", "K2"])])
    root = ET.fromstring(render_svg(board))
    lines = [t.text for t in root.findall(".//svg:text[@class='pbem-marks']", NS)]
    assert len(lines) == 2 and " ".join(lines) == "B3:r7,b2 S1 K2"


def test_escaping():
    nasty = 'x<&>"y'
    board = BoardPicture([HexCell(0, 0, "A<1>", "sea", ["<&>", nasty]), HexCell(1, 0, "A&2", "we<ird", ["\x01ok"])],
                         legend={"<b>": "a & b"}, colours={"sea": 'red" onload="x'})
    svg = render_svg(board, "T & <b>")
    assert "&lt;&amp;&gt;" in svg and "<&>" not in svg and "<b>" not in svg
    root = ET.fromstring(svg)           # well-formed despite all of the above
    texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "A<1>" in texts and "A&2" in texts
    assert any("<&>" in t for t in texts)
    polygons = root.findall(".//svg:polygon", NS)
    assert polygons[0].get("fill") == 'red" onload="x'       # stayed inside the attribute
    assert all(p.get("onload") is None for p in polygons)


def test_colours_come_from_the_game_and_others_get_distinct_neutral_fills():
    board = BoardPicture([HexCell(0, 0, "A1", "sea"), HexCell(1, 0, "A2", "forest"),
                          HexCell(2, 0, "A3", "lava"), HexCell(3, 0, "A4", "beach")],
                         colours={"forest": "#006400"})
    root = ET.fromstring(render_svg(board))
    fills = [p.get("fill") for p in root.findall(".//svg:polygon", NS)]
    # the game's colour where it gives one; the others in sorted kind order: beach, lava, sea
    assert fills == [NEUTRAL_FILLS[2], "#006400", NEUTRAL_FILLS[1], NEUTRAL_FILLS[0]]
    swatches = [r.get("fill") for r in root.findall(".//svg:rect[@class='pbem-swatch']", NS)]
    assert swatches == [NEUTRAL_FILLS[0], "#006400", NEUTRAL_FILLS[1], NEUTRAL_FILLS[2]]


def test_marks_take_their_colours():
    board = BoardPicture([HexCell(0, 0, "A1", "space", ["r3", "b2"], ["#d32f2f", "#1565c0"]),
                          HexCell(1, 0, "B1", "space", ["S1"])])
    svg = render_svg(board)
    root = ET.fromstring(svg)
    spans = root.findall(".//svg:text[@class='pbem-marks']/svg:tspan", NS)
    assert [(t.text, t.get("fill")) for t in spans] == [("r3", "#d32f2f"), ("b2", "#1565c0")]
    assert '<text x="' in svg and ">S1</text>" in svg   # marks without colours stay plain text


def test_neighbours_touch():
    board = full_board()
    root = ET.fromstring(render_svg(board))
    centres = {(c.q, c.r): centre(g.find("svg:polygon", NS))
               for g, c in zip(cell_groups(root), sorted(board.cells, key=lambda c: (c.r, c.q)))}
    for (q, r), (x, y) in centres.items():
        for dq, dr in NEIGHBOURS:
            if (q + dq, r + dr) in centres:
                x2, y2 = centres[(q + dq, r + dr)]
                assert math.isclose(math.hypot(x2 - x, y2 - y), HEX_W, abs_tol=0.05)
                if dr == 1:
                    assert y2 > y          # r grows southward
    # E neighbour straight to the right, SE neighbour half a hex right and below
    (x, y), (xe, ye), (xs, ys) = centres[(0, 0)], centres[(1, 0)], centres[(0, 1)]
    assert math.isclose(ye, y) and xe > x
    assert math.isclose(xs - x, HEX_W / 2, abs_tol=0.05) and ys > y


def test_deterministic_fixed_numbers_no_ids():
    board = full_board()
    svg = render_svg(board, "x")
    assert render_svg(board, "x") == svg
    shuffled = list(board.cells)
    random.Random(3).shuffle(shuffled)
    assert render_svg(BoardPicture(shuffled, board.legend), "x") == svg
    assert " id=" not in svg
    for value in re.findall(r'\b(?:x|y|width|height)="([^"]*)"', svg):
        assert re.fullmatch(r"-?\d+\.\d\d", value), value
    for points in re.findall(r'points="([^"]*)"', svg):
        assert re.fullmatch(r"(-?\d+\.\d\d,-?\d+\.\d\d ?)+", points)
    assert "-0.00" not in svg


def test_empty_board():
    ET.fromstring(render_svg(BoardPicture([])))
