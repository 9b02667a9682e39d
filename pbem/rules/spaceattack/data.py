"""Survive: Space Attack!'s data, read from ``games/space-attack/`` in the game's own words and
handed to the Survive core in the core's shapes.

The YAML is written as the rule book speaks (station kinds, effects with an outline colour,
crew, escape pods, fighters, Jump Points with their stargates, station maps); the core reads a
board with exits, tile backs with a ``kind`` and per-kind counts, and a components mapping.
This module is the one translation between the two.  Each station map (the ``map`` option) is
a data set of its own: the board's station slots, Queen starts and Jump Points differ per map.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Mapping

from pbem.base.data import game_data
from pbem.rules.survive.base import SurviveData
from pbem.rules.survive.board import Board

FOLDER = "space-attack"
FILES = {"board": "board.yaml", "tiles": "tiles.yaml", "components": "components.yaml", "maps": "maps.yaml"}

#: how a tile back is used, by its outline colour (the core's ``kind``); a yellow back is a
#: ``defense`` (it answers an attack) or a ``steal`` (it answers a capture)
IMMEDIATE, MOVEMENT, AFTER_ROLL, DEFENSE, STEAL = "immediate", "movement", "after-roll", "defense", "steal"
COLOUR_KIND = {"green": IMMEDIATE, "red": MOVEMENT, "blue": AFTER_ROLL}
#: effect keys that describe the effect rather than parameterise it
DESCRIPTIVE = ("colour", "text", "same_as", "rule")


def map_names() -> tuple[str, ...]:
    """The station maps (values of the ``map`` option), the standard station first."""
    maps = game_data(FOLDER, FILES["maps"])
    return ("standard", *sorted(name for name in maps if name != "standard"))


@dataclass
class SpaceAttackData(SurviveData):
    """The data of one station map, in the core's shapes (see the module docstring)."""

    map_name: str = "standard"
    station: Mapping[str, Any] = field(init=False)       # maps.yaml entry
    side: str = field(init=False)                         # "A" or "B"
    jump_points: dict[int, str] = field(init=False)       # Jump Point cell -> its name (NW, ...)
    reactor_slots: tuple[int, ...] = field(init=False)    # recommended Reactor slots (may be empty)
    enclosed: frozenset[int] = field(init=False)          # open spaces the station encloses at set-up
    colours: dict[str, str] = field(init=False)           # effect -> outline colour

    def __post_init__(self) -> None:
        maps = game_data(self.folder, self.files["maps"])
        if self.map_name not in maps:
            raise ValueError(f"unknown station map {self.map_name!r}; maps: {', '.join(map_names())}")
        self.station = maps[self.map_name]
        self.side = str(self.station["side"])
        self.board = Board.from_data(self.core_board(game_data(self.folder, self.files["board"])))
        self.jump_points = {cell: name for cell, name in self.board.isle_names.items()}
        self.reactor_slots = tuple(self.board.index[lab] for lab in self.station["reactor_slots"])
        self.enclosed = frozenset(self.enclosed_spaces())
        tiles = game_data(self.folder, self.files["tiles"])
        self.terrains = tuple(tiles["kinds"])
        self.tile_backs = self.core_backs(tiles)
        self.colours = {name: str(spec["colour"]) for name, spec in tiles["effects"].items()}
        self.comp = self.core_components(game_data(self.folder, self.files["components"]))

    # --- the board: a side of the board with this map's station -------------------------
    def core_board(self, board: Mapping[str, Any]) -> dict[str, Any]:
        side = board["sides"][self.side]
        queens = list(self.station["queens"])
        return {
            "label_rows": board["label_rows"],
            "playable": board["playable"],
            "safe_isles": {name: {"cell": jp["cell"], "adjacent_sea": list(jp["stargates"])}
                           for name, jp in side["jump_points"].items()},
            "island_slots": [list(row) for row in self.station["slots"]],
            "central_sea": queens[0],
            "serpent_starts": queens,
        }

    def enclosed_spaces(self) -> list[int]:
        """Non-slot spaces from which no path of non-slot spaces leads to the rim (the spaces
        with a neighbour off the grid, and the stargates)."""
        board = self.board
        slots = set(board.island_slots)
        stargates = {c for c in range(board.playable_count) if board.isles_next_to[c]}
        rim = [c for c in range(board.playable_count)
               if c not in slots and (len(board.neighbours[c]) < 6 or c in stargates)]
        seen = set(rim)
        queue = deque(rim)
        while queue:
            cell = queue.popleft()
            for n in board.neighbours[cell]:
                if n not in slots and n not in seen:
                    seen.add(n)
                    queue.append(n)
        return [c for c in range(board.playable_count) if c not in slots and c not in seen]

    # --- tile backs: the effects with their kind and their counts per station kind -----------
    def core_backs(self, tiles: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        counts = tiles["counts"]["by_effect"]
        backs: dict[str, dict[str, Any]] = {}
        for name, spec in tiles["effects"].items():
            colour = str(spec["colour"])
            if colour == "yellow":
                kind = STEAL if spec["rule"] == "steal" else DEFENSE
            else:
                kind = COLOUR_KIND[colour]
            back: dict[str, Any] = {"kind": kind, "rule": spec["rule"], "colour": colour, "text": spec["text"]}
            back.update({k: v for k, v in spec.items() if k not in DESCRIPTIVE})
            if kind == DEFENSE:
                back["answers"] = spec["creature"]
            back.update({kind_name: int(n) for kind_name, n in counts[name].items()})
            backs[name] = back
        return backs

    # --- tokens -----------------------------------------------------------------------
    @staticmethod
    def core_components(comp: Mapping[str, Any]) -> dict[str, Any]:
        crew, pods = comp["crew"], comp["escape_pods"]
        return {
            "colours": dict(crew["colours"]),
            "explorer_values": list(crew["values"]),
            "boats": {"count": pods["count"], "prefix": pods["prefix"], "per_player": pods["per_player"],
                      "capacity": pods["capacity"]},
            "fighters": dict(comp["fighters"]),
            "laser_turrets": dict(comp["laser_turrets"]),
            "creatures": {kind: {"count": spec["count"], "at_setup": spec["at_setup"], "prefix": spec["prefix"],
                                 "die_moves": spec["die_moves"], "rule": spec["rule"]}
                          for kind, spec in comp["creatures"]["kinds"].items()},
            "creature_die": list(comp["creature_die"]["faces"]),
            "movement_points": int(comp["movement_points"]["points"]),
            "jump_point_bonus": int(comp["scoring"]["jump_point_bonus"]),
            "overpopulated": {"inland": comp["overpopulated"]["inland"], "edge": comp["overpopulated"]["edge"]},
            "players56": {"colours": dict(comp["players56"]["colours"]),
                          # (the kit's escape pods are the core's ships per seat)
                          "by_players": {int(n): {("ships" if k == "pods" else k): x for k, x in v.items()}
                                         for n, v in comp["players56"]["by_players"].items()}},
        }


def load(map_name: str) -> SpaceAttackData:
    return SpaceAttackData(FOLDER, FILES, map_name)
