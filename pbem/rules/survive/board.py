"""The board of the Survive games: 133 playable hexes, the island (station) slots, the exits.

The exits are the safe isles (Atlantis) or Jump Points (Space Attack): cells off the
playable grid, reached only from their entry spaces (``isles_next_to``).

Geometry comes from the game's ``board.yaml``.  Every cell (playable hex
or safe isle) gets an integer index; adjacency is computed once per
:class:`Board` and stored as tuples of indices, sorted, so iteration order is
deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

LABEL_ROWS = "ABCDEFGHIJKLM"


def label_of(row: int, col: int) -> str:
    """The coordinate players type: row letter + 1-based column ("G6")."""
    return f"{LABEL_ROWS[row]}{col + 1}"


def offset_of(label: str) -> tuple[int, int]:
    """Inverse of :func:`label_of` (no range check)."""
    return LABEL_ROWS.index(label[0]), int(label[1:]) - 1


def axial_of(row: int, col: int) -> tuple[int, int]:
    """Axial (q, r) of an offset (row, col); origin (0, 0) is the central sea hex."""
    return col - (row + (row & 1)) // 2 - 2, row - 6


def offset_neighbours(row: int, col: int) -> list[tuple[int, int]]:
    """The six offset neighbours of an even-r (even rows shifted right) hex."""
    if row % 2 == 0:
        rows = [(row - 1, col), (row - 1, col + 1), (row + 1, col), (row + 1, col + 1)]
    else:
        rows = [(row - 1, col - 1), (row - 1, col), (row + 1, col - 1), (row + 1, col)]
    return [(row, col - 1), (row, col + 1)] + rows


@dataclass(frozen=True)
class Board:
    """Immutable geometry.  Cells 0..n-1 are playable hexes, then the safe isles."""

    labels: tuple[str, ...]                 # cell index -> label
    index: Mapping[str, int]                # label -> cell index
    axial: tuple[tuple[int, int], ...]      # cell index -> (q, r)
    neighbours: tuple[tuple[int, ...], ...]  # playable neighbours of each cell (sorted)
    island_slots: tuple[int, ...]           # slot order (tile handles T1..T40)
    central: int                            # the central sea hex
    serpent_starts: tuple[int, ...]
    isles: tuple[int, ...]                  # safe isle cells
    isle_names: Mapping[int, str]           # isle cell -> "NW", ...
    isles_next_to: tuple[tuple[int, ...], ...]  # cell -> safe isles it touches (only their entry hexes)
    playable_count: int
    neighbour_sets: tuple[frozenset[int], ...] = ()  # the neighbours of each cell as a set (from_data)

    def is_isle(self, cell: int) -> bool:
        return cell >= self.playable_count

    def cell(self, label: str) -> int:
        """The cell index of a label; KeyError if it is not on the board."""
        return self.index[label]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "Board":
        labels: list[str] = []
        for row_letter in data["label_rows"]:
            labels.extend(data["playable"].get(row_letter, []))
        playable_count = len(labels)
        isle_names: dict[int, str] = {}
        isle_cells: list[int] = []
        for name in sorted(data["safe_isles"]):
            isle_cells.append(len(labels))
            isle_names[len(labels)] = name
            labels.append(data["safe_isles"][name]["cell"])
        index = {lab: i for i, lab in enumerate(labels)}
        if len(index) != len(labels):
            raise ValueError("board.yaml: a label appears twice")
        offsets = [offset_of(lab) for lab in labels]
        by_offset = {off: i for i, off in enumerate(offsets[:playable_count])}
        neighbours: list[tuple[int, ...]] = []
        for row, col in offsets:
            near = [by_offset[o] for o in offset_neighbours(row, col) if o in by_offset]
            neighbours.append(tuple(sorted(near)))
        # The safe isles touch exactly the sea hexes the data names; check the geometry agrees.
        isles_next_to: list[list[int]] = [[] for _ in labels]
        for cell in isle_cells:
            entries = sorted(index[lab] for lab in data["safe_isles"][isle_names[cell]]["adjacent_sea"])
            if list(neighbours[cell]) != entries:
                raise ValueError(f"board.yaml: safe isle {labels[cell]} does not touch {entries}")
            for entry in entries:
                isles_next_to[entry].append(cell)
        slots = tuple(index[lab] for row in data["island_slots"] for lab in row)
        return cls(
            labels=tuple(labels),
            index=index,
            axial=tuple(axial_of(r, c) for r, c in offsets),
            neighbours=tuple(neighbours),
            island_slots=slots,
            central=index[data["central_sea"]],
            serpent_starts=tuple(index[lab] for lab in data["serpent_starts"]),
            isles=tuple(isle_cells),
            isle_names=isle_names,
            isles_next_to=tuple(tuple(x) for x in isles_next_to),
            playable_count=playable_count,
            neighbour_sets=tuple(frozenset(near) for near in neighbours),
        )

