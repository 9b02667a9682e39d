"""The map: the seeded generator and hand-made maps (``--option map=FILE``).

"Randomly distribute the following terrain types (roll 1D20)" and "Players
should start in opposite corners (or as far apart as possible)".  What the text
leaves open is the substitute of components.md section 7 (games/space-swarm/game.yaml):
a rectangle sized by player count, homes in the corners (and mid-edges with 5-6
players) forced to Star Cluster, and the generator's fairness fixes, each an option
that is off by default (the text rolls each space once: ``home_hazards=keep``, ``cut_homes=allow``).

The generated map is drawn from the set-up Rng, so it is part of the committed
set-up and the audit re-derives it.  A hand-made map is read by ``pbem new``
(:func:`read_map_file`), checked, and its text stored in the signed header as
the value of the ``map`` option; digests show it as ``custom (sha256 ...)``.
"""
from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from pbem.base import yamlio
from pbem.base.safefile import UnreadableFile, read_regular_file
from pbem.core.rng import Rng
from pbem.rules.spaceswarm.data import SwarmData, swarm_data
from pbem.rules.spaceswarm.hexmap import HexMap
from pbem.rules.spaceswarm.terrain import STAR_CLUSTER, reachable

GENERATED = "generated"
MAP_TEXT_START = "space-swarm-map:"


class MapError(ValueError):
    """A hand-made map or a map option that breaks the rules (one line)."""


@dataclass(frozen=True)
class MapSettings:
    """The generator options."""

    size: str = "auto"            # "auto" or "COLSxROWS"
    home_hazards: str = "keep"    # keep (the text) | reroll
    cut_homes: str = "allow"      # allow (the text) | reroll
    symmetry: str = "none"        # none | half-turn


@dataclass(frozen=True)
class Board:
    """A map with its homes, in seat order."""

    hexmap: HexMap
    homes: tuple[int, ...]


# --- sizes and homes ------------------------------------------------------------------
def map_size(settings: MapSettings, n_players: int, data: SwarmData | None = None) -> tuple[int, int]:
    data = data or swarm_data()
    if settings.size == "auto":
        return data.size_by_players[n_players]
    cols, sep, rows = settings.size.partition("x")
    if not sep or not cols.isdigit() or not rows.isdigit():
        raise MapError(f"option size={settings.size!r}: write auto or COLUMNSxROWS, e.g. size=9x7")
    size = int(cols), int(rows)
    check_size(*size, data)
    return size


def check_size(width: int, height: int, data: SwarmData | None = None) -> None:
    data = data or swarm_data()
    if not (data.min_side <= width <= data.max_columns and data.min_side <= height <= data.max_rows):
        raise MapError(f"a map of {width}x{height} is the wrong size: it needs {data.min_side}-{data.max_columns} "
                       f"columns and {data.min_side}-{data.max_rows} rows")


def perimeter_order(hexmap: HexMap) -> list[int]:
    """The edge spaces clockwise from the top left corner."""
    w, h = hexmap.width, hexmap.height
    ring = [c for c in range(w)]
    ring += [r * w + w - 1 for r in range(1, h)]
    ring += [(h - 1) * w + c for c in range(w - 2, -1, -1)]
    ring += [r * w for r in range(h - 2, 0, -1)]
    return ring


def choose_homes(hexmap: HexMap, n_players: int, data: SwarmData | None = None) -> tuple[int, ...]:
    """Homes "as far apart as possible": corners first, then mid-edge spaces.

    Up to 4 players take the corners whose smallest distance apart (then total
    distance) is largest; 5-6 players take all 4 corners plus the mid-edge spaces
    that do best by the same measure.  The homes are handed out clockwise from
    the top left corner in seat order."""
    data = data or swarm_data()
    corners = list(hexmap.corners())
    if n_players <= data.corners_up_to:
        options = [list(c) for c in itertools.combinations(corners, n_players)]
    else:
        extra = hexmap.mid_edges()
        if n_players - len(corners) > len(extra):
            raise MapError(f"a {hexmap.width}x{hexmap.height} map has no room for {n_players} homes")
        options = [corners + list(c) for c in itertools.combinations(extra, n_players - len(corners))]

    def spread(cells: list[int]) -> tuple[int, int]:
        pairs = [hexmap.distance(a, b) for a, b in itertools.combinations(cells, 2)]
        return (min(pairs), sum(pairs)) if pairs else (0, 0)

    best = max(options, key=spread)   # max keeps the first of equals: deterministic
    ring = perimeter_order(hexmap)
    return tuple(sorted(best, key=ring.index))


def homes_connected(hexmap: HexMap, homes: Sequence[int]) -> bool:
    """No Super Novas cut any two homes apart."""
    if not homes:
        return True
    reach = reachable(hexmap, homes[0])
    return all(h in reach for h in homes)


# --- the generator -----------------------------------------------------------------------
def roll_terrain(data: SwarmData, rng: Rng) -> str:
    return data.terrain_by_roll(rng.randbelow(data.die, "terrain d20") + 1)


def generate(settings: MapSettings, n_players: int, rng: Rng, data: SwarmData | None = None) -> Board:
    """Roll one d20 per space, force the homes to Star Cluster, apply the fixes the options ask for (none by default)."""
    data = data or swarm_data()
    width, height = map_size(settings, n_players, data)
    blank = HexMap(width, height, tuple(["deep_space"] * (width * height)))
    homes = choose_homes(blank, n_players, data)
    for _attempt in range(data.max_maps):
        terrain = _roll_all(blank, settings, data, rng)
        for h in homes:
            _set(blank, terrain, h, data.home_terrain, settings)
        if settings.home_hazards == "reroll":
            _reroll_hazards_near_homes(blank, terrain, homes, settings, data, rng)
        hexmap = blank.with_terrain(terrain)
        if settings.cut_homes == "allow" or homes_connected(hexmap, homes):
            return Board(hexmap, homes)
    raise MapError(f"no {width}x{height} map without homes cut apart after {data.max_maps} tries; "
                   "use a bigger size or cut_homes=allow")


def _roll_all(blank: HexMap, settings: MapSettings, data: SwarmData, rng: Rng) -> list[str]:
    terrain = [""] * len(blank.cells)
    for cell in blank.cells:
        if settings.symmetry == "half-turn" and blank.mirror(cell) < cell:
            terrain[cell] = terrain[blank.mirror(cell)]
        else:
            terrain[cell] = roll_terrain(data, rng)
    return terrain


def _set(blank: HexMap, terrain: list[str], cell: int, value: str, settings: MapSettings) -> None:
    terrain[cell] = value
    if settings.symmetry == "half-turn":
        terrain[blank.mirror(cell)] = value


def _reroll_hazards_near_homes(blank: HexMap, terrain: list[str], homes: Sequence[int], settings: MapSettings,
                               data: SwarmData, rng: Rng) -> None:
    """Ruling: "re-roll Super Nova / Quasar / Black Hole next to a home" (until it is none of them)."""
    near = sorted({n for h in homes for n in blank.neighbours(h) if n not in homes})
    while True:
        bad = [c for c in near if terrain[c] in data.hazards_near_home]
        if not bad:
            return
        _set(blank, terrain, bad[0], roll_terrain(data, rng), settings)
        for h in homes:   # a mirrored re-roll must not overwrite a home
            terrain[h] = data.home_terrain


# --- hand-made maps --------------------------------------------------------------------------
def is_map_text(value: str) -> bool:
    return value.startswith(MAP_TEXT_START)


def map_digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def display_value(value: str) -> str:
    """How the ``map`` option shows in digests: ``custom (sha256 1a2b3c4d5e6f)``."""
    return f"custom (sha256 {map_digest(value)[:12]})" if is_map_text(value) else value


def read_map_file(path: str) -> str:
    """The text a hand-made map file becomes in the game header (checked for shape)."""
    try:
        raw = read_regular_file(Path(path), yamlio.POSITION_LIMITS.max_bytes, "map file")
    except UnreadableFile as exc:
        raise MapError(f"option map={path}: {exc}; give map=generated or the path of a map YAML file") from None
    try:
        data = yamlio.load_strict(raw, f"map file {path}")
    except yamlio.YamlError as exc:
        raise MapError(str(exc)) from None
    rows, homes = _map_fields(data, f"map file {path}")
    return map_text(rows, homes)


def map_text(rows: Sequence[str], homes: Sequence[str]) -> str:
    """The canonical text of a map: a marker line, the homes, one line of codes per row."""
    lines = [MAP_TEXT_START, "homes: " + " ".join(homes)] + ["row: " + " ".join(r) for r in rows]
    return "\n".join(lines) + "\n"


def _map_fields(data: Any, what: str) -> tuple[list[str], list[str]]:
    if not isinstance(data, dict) or set(data) != {"rows", "homes"}:
        raise MapError(f"{what} must be a mapping with exactly the keys rows and homes "
                       "(see docs/games/space-swarm.md, Hand-made maps)")
    rows, homes = data["rows"], data["homes"]
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        raise MapError(f"{what}: rows must be a list of strings of terrain codes, e.g. \"C . . R\"")
    if not isinstance(homes, list) or not all(isinstance(h, str) for h in homes):
        raise MapError(f"{what}: homes must be a list of spaces in seat order, e.g. [A1, H8]")
    return [r.replace(" ", "") for r in rows], [h.strip().upper() for h in homes]


def parse_map_text(value: str, n_players: int, data: SwarmData | None = None) -> Board:
    """The board a map text describes; MapError (one line) when it breaks the rules."""
    data = data or swarm_data()
    rows: list[str] = []
    homes: list[str] = []
    for line in value.splitlines()[1:]:
        key, _, rest = line.partition(": ")
        if key == "homes":
            homes = rest.split()
        elif key == "row":
            rows.append(rest.replace(" ", ""))
    return check_board(rows, homes, n_players, data)


def check_board(rows: list[str], homes: list[str], n_players: int, data: SwarmData) -> Board:
    """Refuse a hand-made map that breaks the rules: wrong size, unknown terrain,
    wrong number of homes, a home that is not a Star Cluster, homes cut apart."""
    height = len(rows)
    width = len(rows[0]) if rows else 0
    for i, row in enumerate(rows, 1):
        if len(row) != width:
            raise MapError(f"hand-made map: row {i} has {len(row)} spaces but row 1 has {width}; "
                           "the map must be a rectangle")
    check_size(width, height, data)
    by_code = data.terrain_by_code()
    terrain: list[str] = []
    for r, row in enumerate(rows):
        for c, code in enumerate(row):
            if code not in by_code:
                raise MapError(f"hand-made map: unknown terrain {code!r} at {chr(65 + c)}{r + 1}; "
                               f"codes: {' '.join(by_code)}")
            terrain.append(by_code[code])
    hexmap = HexMap(width, height, tuple(terrain))
    if len(homes) != n_players:
        raise MapError(f"hand-made map: {len(homes)} homes for {n_players} players; list one home per player "
                       "in seat order")
    cells: list[int] = []
    for label in homes:
        try:
            cell = hexmap.index(label)
        except ValueError as exc:
            raise MapError(f"hand-made map: home {exc}") from None
        if cell in cells:
            raise MapError(f"hand-made map: home {label} is given twice")
        if hexmap.terrain[cell] != STAR_CLUSTER:
            code = data.terrains[STAR_CLUSTER].code
            raise MapError(f"hand-made map: home {label} is {data.terrains[hexmap.terrain[cell]].name}; "
                           f"every home must be a Star Cluster ({code})")
        cells.append(cell)
    reach = reachable(hexmap, cells[0]) if cells else set()
    for label, cell in zip(homes, cells):
        if cell not in reach:
            raise MapError(f"hand-made map: homes {homes[0]} and {label} are cut apart by Super Novas; "
                           "every home must reach every other")
    return Board(hexmap, tuple(cells))
