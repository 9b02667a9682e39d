"""Terrain effects, one function per line of the terrain table (THE BOARD).

The rulings for what the text leaves open (components.md section 7, options in
docs/games/space-swarm.md) are quoted where they apply.
"""
from __future__ import annotations

from functools import lru_cache

from pbem.rules.spaceswarm.hexmap import HexMap

ALIEN_RUINS = "alien_ruins"
STAR_CLUSTER = "star_cluster"
NEBULA = "nebula"
SUPER_NOVA = "super_nova"
BLACK_HOLE = "black_hole"
DARK_MATTER = "dark_matter"
QUASAR = "quasar"
WORM_HOLE = "worm_hole"
ASTEROID_FIELD = "asteroid_field"
DEEP_SPACE = "deep_space"


def may_enter(hexmap: HexMap, cell: int) -> bool:
    """Super Nova: "Stacks may not enter or move through this space"."""
    return hexmap.terrain[cell] != SUPER_NOVA


def must_stop(hexmap: HexMap, cell: int) -> bool:
    """Black Hole: "A stack entering this space must stop"."""
    return hexmap.terrain[cell] == BLACK_HOLE


def enemies_passable(hexmap: HexMap, cell: int) -> bool:
    """Dark Matter: "Enemy Stacks in this space may be passed through"."""
    return hexmap.terrain[cell] == DARK_MATTER


def links(hexmap: HexMap, cell: int) -> tuple[int, ...]:
    """Where a stack in ``cell`` may step to for one movement point.

    The six neighbours, and from a Worm Hole every other Worm Hole ("Any Stack in
    this space may move to any other Wormhole"; ruling: "all Worm Holes are adjacent
    to each other (1 movement point); entry rules apply at the destination").
    Entry rules (Super Nova) are not applied here."""
    out = list(hexmap.neighbours(cell))
    if hexmap.terrain[cell] == WORM_HOLE:
        out += [w for w in hexmap.cells_of(WORM_HOLE) if w != cell and w not in out]
    return tuple(sorted(out))


@lru_cache(maxsize=32)
def link_table(hexmap: HexMap) -> tuple[tuple[int, ...], ...]:
    """:func:`links` of every space of a map (a map is a frozen record: worked out once)."""
    return tuple(links(hexmap, cell) for cell in hexmap.cells)


def defense_bonus(hexmap: HexMap, cell: int) -> int:
    """Nebula: "Stacks in this space get Defense +1"."""
    return 1 if hexmap.terrain[cell] == NEBULA else 0


def attack_bonus(hexmap: HexMap, cell: int) -> int:
    """Asteroid Field: "Stacks in this space get Attack +1"."""
    return 1 if hexmap.terrain[cell] == ASTEROID_FIELD else 0


def is_star_cluster(hexmap: HexMap, cell: int) -> bool:
    """Star Cluster: "A Race occupying this space gets Production +1" (and the control victory)."""
    return hexmap.terrain[cell] == STAR_CLUSTER


def is_quasar(hexmap: HexMap, cell: int) -> bool:
    """Quasar: "Any Stack that ends its turn here has 1 Fleet destroyed"."""
    return hexmap.terrain[cell] == QUASAR


def is_alien_ruins(hexmap: HexMap, cell: int) -> bool:
    """Alien Ruins: "First visitor here gets to draw 1 card"."""
    return hexmap.terrain[cell] == ALIEN_RUINS


def reachable(hexmap: HexMap, start: int) -> set[int]:
    """Every space a stack could ever reach from ``start`` on an empty board."""
    seen = {start}
    todo = [start]
    while todo:
        cell = todo.pop()
        for nxt in links(hexmap, cell):
            if nxt not in seen and may_enter(hexmap, nxt):
                seen.add(nxt)
                todo.append(nxt)
    return seen
