"""The games pbem knows, by the name used in ``pbem new --game NAME``."""
from __future__ import annotations

import importlib

from pbem.errors import PbemError
from pbem.game import Game

# name -> "module:Class"; imported lazily so `pbem --help` stays fast.
GAMES: dict[str, str] = {
    "atlantis": "pbem.rules.atlantis.game:AtlantisGame",
    "atlantis-1986": "pbem.rules.atlantis1986.game:Atlantis1986Game",
    "space-attack": "pbem.rules.spaceattack.game:SpaceAttackGame",
    "space-swarm": "pbem.rules.spaceswarm.game:SpaceSwarmGame",
}


def game_names() -> list[str]:
    return sorted(GAMES)


def load_game(name: str) -> Game:
    """The game object for NAME, or ValueError with the known names."""
    if name not in GAMES:
        raise PbemError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    module_name, class_name = GAMES[name].split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls()
