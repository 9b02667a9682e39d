"""The game's fixed data, read once from games/space-swarm/*.yaml into typed records."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pbem.base.data import game_data

DATA_GAME = "space-swarm"


@dataclass(frozen=True)
class Terrain:
    key: str          # e.g. "star_cluster"
    name: str         # "Star Cluster"
    rolls: tuple[int, ...]
    code: str         # one character for map files and the text map
    colour: str
    effect: str


@dataclass(frozen=True)
class CardFace:
    """What is printed on a card (hidden while the card is in the deck or another's hand)."""

    name: str         # "Attack +1"
    type: str         # "technology" | "event"
    attribute: str    # "attack", ...
    bonus: int

    @property
    def is_technology(self) -> bool:
        return self.type == TECHNOLOGY


TECHNOLOGY, EVENT = "technology", "event"


@dataclass(frozen=True)
class SwarmData:
    terrains: dict[str, Terrain]            # key -> terrain, in d20 order
    die: int
    deck: tuple[CardFace, ...]              # one deck, in card-list order
    faces: dict[str, CardFace]              # name -> face
    attributes: tuple[str, ...]             # initiative, attack, ...
    attribute_names: dict[str, str]
    base: int
    start_fleets: int
    start_cards: int
    research_draw: int
    hand_limit_base: int
    ruins_draw: int
    min_players: int
    max_players: int
    colours: dict[str, str]                 # colour name -> CSS
    size_by_players: dict[int, tuple[int, int]]
    min_side: int
    max_columns: int
    max_rows: int
    corners_up_to: int
    home_terrain: str
    hazards_near_home: tuple[str, ...]
    max_maps: int

    def terrain_by_roll(self, roll: int) -> str:
        for key, terrain in self.terrains.items():
            if roll in terrain.rolls:
                return key
        raise ValueError(f"no terrain for d{self.die} roll {roll}")

    def terrain_by_code(self) -> dict[str, str]:
        return {t.code: key for key, t in self.terrains.items()}


def _size(text: str) -> tuple[int, int]:
    cols, _, rows = str(text).partition("x")
    return int(cols), int(rows)


@lru_cache(maxsize=None)
def swarm_data() -> SwarmData:
    terrain_yaml = game_data(DATA_GAME, "terrain.yaml")
    deck_yaml = game_data(DATA_GAME, "deck.yaml")
    game_yaml = game_data(DATA_GAME, "game.yaml")
    terrains = {key: Terrain(key, t["name"], tuple(t["rolls"]), str(t["code"]), t["colour"], t["effect"])
                for key, t in terrain_yaml["terrains"].items()}
    deck: list[CardFace] = []
    faces: dict[str, CardFace] = {}
    for c in deck_yaml["cards"]:
        face = CardFace(c["name"], c["type"], c["attribute"], int(c["bonus"]))
        faces[face.name] = face
        deck.extend([face] * int(c["count"]))
    attrs = game_yaml["attributes"]
    setup = game_yaml["setup"]
    gen = game_yaml["generator"]
    return SwarmData(
        terrains=terrains, die=int(terrain_yaml["die"]), deck=tuple(deck), faces=faces,
        attributes=tuple(attrs["order"]), attribute_names=dict(attrs["names"]), base=int(attrs["base"]),
        start_fleets=int(setup["start_fleets"]), start_cards=int(setup["start_cards"]),
        research_draw=int(setup["research_draw"]), hand_limit_base=int(setup["hand_limit_base"]),
        ruins_draw=int(setup["ruins_draw"]),
        min_players=int(game_yaml["players"]["min"]), max_players=int(game_yaml["players"]["max"]),
        colours=dict(game_yaml["players"]["colours"]),
        size_by_players={int(n): _size(s) for n, s in game_yaml["map"]["size_by_players"].items()},
        min_side=int(game_yaml["map"]["min_side"]), max_columns=int(game_yaml["map"]["max_columns"]),
        max_rows=int(game_yaml["map"]["max_rows"]),
        corners_up_to=int(game_yaml["homes"]["corners_up_to"]),
        home_terrain=str(game_yaml["homes"]["forced_terrain"]),
        hazards_near_home=tuple(gen["hazards_near_home"]), max_maps=int(gen["max_maps"]))
