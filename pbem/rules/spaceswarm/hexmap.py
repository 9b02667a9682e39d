"""THE BOARD: "Use a Hex grid. Each Hex (space) has a terrain type."

The board is a rectangle of pointy-top hexes in offset rows: row 1 is at the
top, and every even-numbered row (2, 4, ...) is shifted half a hex to the
right.  A space is named by its column letter and row number, ``A1`` at the
top left.  Cells are numbered ``row * width + column`` from 0.  Axial
coordinates (for the renderers and distances): ``q = col - (row - (row & 1)) // 2``,
``r = row`` (rows counted from 0).
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import cached_property, lru_cache

_LABEL = re.compile(r"^([A-Z])([1-9][0-9]?)$")
AXIAL_STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@lru_cache(maxsize=32)
def _distance_table(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """Every distance on a map of this size, worked out once (the greedy bot asks hundreds a
    decision); it depends on the shape only, not on the terrain."""
    def axial(cell: int) -> tuple[int, int]:
        col, row = cell % width, cell // width
        return col - (row - (row & 1)) // 2, row
    coords = [axial(c) for c in range(width * height)]
    return tuple(tuple((abs(qa - qb) + abs(ra - rb) + abs(qa - qb + ra - rb)) // 2 for qb, rb in coords)
                 for qa, ra in coords)


@dataclass(frozen=True)
class HexMap:
    width: int
    height: int
    terrain: tuple[str, ...]    # terrain key per cell

    def __post_init__(self) -> None:
        if len(self.terrain) != self.width * self.height:
            raise ValueError(f"a {self.width}x{self.height} map has {self.width * self.height} spaces, "
                             f"not {len(self.terrain)}")

    # --- names ------------------------------------------------------------------
    @property
    def cells(self) -> range:
        return range(self.width * self.height)

    def col_row(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def label(self, cell: int) -> str:
        col, row = self.col_row(cell)
        return f"{string.ascii_uppercase[col]}{row + 1}"

    @cached_property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.label(c) for c in self.cells)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {lab: c for c, lab in enumerate(self.labels)}

    def index(self, label: object) -> int:
        """The cell named ``label`` (e.g. "C4"); ValueError with one line if there is none."""
        if type(label) is str:                  # (a label as written by the engine: read at once)
            cell = self._index.get(label)
            if cell is not None:
                return cell
        text = str(label).strip().upper()
        if text not in self._index:
            if not _LABEL.match(text):
                raise ValueError(f"{label!r} is not a space; spaces look like C4 (column letter, row number)")
            raise ValueError(f"there is no space {label} on this {self.width}x{self.height} map "
                             f"(A1 to {self.labels[-1]})")
        return self._index[text]

    def has_label(self, label: object) -> bool:
        return str(label).strip().upper() in self._index

    # --- geometry -------------------------------------------------------------------
    def axial(self, cell: int) -> tuple[int, int]:
        col, row = self.col_row(cell)
        return col - (row - (row & 1)) // 2, row

    @cached_property
    def axials(self) -> tuple[tuple[int, int], ...]:
        """Each cell's :meth:`axial` coordinates, in cell order (made once: the board picture
        places every cell at each drawing)."""
        return tuple(self.axial(c) for c in self.cells)

    def cell_at(self, q: int, r: int) -> int | None:
        if not 0 <= r < self.height:
            return None
        col = q + (r - (r & 1)) // 2
        if not 0 <= col < self.width:
            return None
        return r * self.width + col

    @cached_property
    def _neighbours(self) -> tuple[tuple[int, ...], ...]:
        out = []
        for cell in self.cells:
            q, r = self.axial(cell)
            found = [self.cell_at(q + dq, r + dr) for dq, dr in AXIAL_STEPS]
            out.append(tuple(sorted(c for c in found if c is not None)))
        return tuple(out)

    def neighbours(self, cell: int) -> tuple[int, ...]:
        """The up to six spaces next to ``cell``, in cell order."""
        return self._neighbours[cell]

    @cached_property
    def _distances(self) -> tuple[tuple[int, ...], ...]:
        return _distance_table(self.width, self.height)

    def distance(self, a: int, b: int) -> int:
        return self._distances[a][b]

    def distances_from(self, cell: int) -> tuple[int, ...]:
        """The distance from ``cell`` to every cell, by cell number."""
        return self._distances[cell]

    @cached_property
    def _cells_by_terrain(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for c in self.cells:
            out.setdefault(self.terrain[c], []).append(c)
        return out

    def mirror(self, cell: int) -> int:
        """The space opposite ``cell`` under a half turn of the rectangle."""
        return self.width * self.height - 1 - cell

    def corners(self) -> tuple[int, int, int, int]:
        """Top left, top right, bottom left, bottom right."""
        w, h = self.width, self.height
        return 0, w - 1, (h - 1) * w, h * w - 1

    def mid_edges(self) -> tuple[int, ...]:
        """The middle space of the top, bottom, left and right edges (without repeats)."""
        w, h = self.width, self.height
        found = [(w - 1) // 2, (h - 1) * w + w // 2, ((h - 1) // 2) * w, (h // 2) * w + w - 1]
        out: list[int] = []
        for c in found:
            if c not in out and c not in self.corners():
                out.append(c)
        return tuple(out)

    def cells_of(self, terrain: str) -> list[int]:
        return list(self._cells_by_terrain.get(terrain, ()))

    def with_terrain(self, terrain: list[str] | tuple[str, ...]) -> "HexMap":
        return HexMap(self.width, self.height, tuple(terrain))
