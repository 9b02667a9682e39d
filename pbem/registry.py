"""The games pbem knows, by the name used in ``pbem new --game NAME``.

A game registers itself: its package declares an entry point in the group ``pbem.games``
(``name = "package.module:GameClass"``; pbem's own games do so in pyproject.toml), so adding a
game, even from another distribution, touches no file of the core.  In a source checkout that
is not installed, the games are found by scanning ``pbem/rules/*/game.py`` for the ``GAME``
each declares.  Classes are imported only when a game is loaded, so `pbem --help` stays fast.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from importlib.metadata import entry_points

from pbem.errors import PbemError
from pbem.game import Game

GROUP = "pbem.games"

#: games registered while the program runs (tests, programs embedding pbem): name -> "module:Class"
GAMES: dict[str, str] = {}


@lru_cache(maxsize=1)
def _installed() -> tuple[tuple[str, str], ...]:
    found = {ep.name: ep.value for ep in entry_points(group=GROUP)}
    if not found:          # a source checkout run without installing: scan pbem.rules
        found = _scanned()
    return tuple(sorted(found.items()))


def _scanned() -> dict[str, str]:
    import pbem.rules
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(pbem.rules.__path__):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"pbem.rules.{info.name}.game")
        except ModuleNotFoundError:
            continue
        cls = getattr(module, "GAME", None)
        if isinstance(cls, type) and issubclass(cls, Game) and cls.name:
            found[cls.name] = f"{module.__name__}:{cls.__name__}"
    return found


def known() -> dict[str, str]:
    """Every game: name -> "module:Class"."""
    return {**dict(_installed()), **GAMES}


def game_names() -> list[str]:
    return sorted(known())


def load_game(name: str) -> Game:
    """The game object for NAME, or a one-line error with the known names."""
    where = known().get(name)
    if where is None:
        raise PbemError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    module_name, class_name = where.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls()
