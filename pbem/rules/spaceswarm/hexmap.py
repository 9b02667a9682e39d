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
from functools import cached_property

_LABEL = re.compile(r"^([A-Z])([1-9][0-9]?)$")
AXIAL_STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


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

    def distance(self, a: int, b: int) -> int:
        qa, ra = self.axial(a)
        qb, rb = self.axial(b)
        dq, dr = qa - qb, ra - rb
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

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
        return [c for c in self.cells if self.terrain[c] == terrain]

    def with_terrain(self, terrain: list[str] | tuple[str, ...]) -> "HexMap":
        return HexMap(self.width, self.height, tuple(terrain))
