"""The games pbem knows, by the name used in ``pbem new --game NAME``.

A game registers itself: its package declares an entry point in the group ``pbem.games``
(``name = "package.module:GameClass"``; pbem's own games do so in pyproject.toml), so adding a
game, even from another distribution, touches no file of the core.  In a source checkout that
is not installed, the games are found by scanning ``pbem/rules/*/game.py`` for the ``GAME``
each declares.  Classes are imported only when a game is loaded, so `pbem --help` stays fast.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import re
import sys
from functools import lru_cache
from pathlib import Path

from pbem.base.errors import PbemError
from pbem.core.game import Game

GROUP = "pbem.games"

#: games registered while the program runs (tests, programs embedding pbem): name -> "module:Class"
GAMES: dict[str, str] = {}


@lru_cache(maxsize=1)
def _installed() -> tuple[tuple[str, str], ...]:
    found = _entry_points(GROUP)
    if not found:          # a source checkout run without installing: scan pbem.rules
        found = _scanned()
    return tuple(sorted(found.items()))


_SECTION = re.compile(r"^\[(.+)\]\s*$")


def _entry_points(group: str) -> dict[str, str]:
    """The entry points of ``group``: name -> "module:Class".

    Read straight from the ``*.dist-info/entry_points.txt`` files on ``sys.path`` (the first
    distribution of a name wins, as with :mod:`importlib.metadata`), which costs a few
    directory listings; :mod:`importlib.metadata` itself takes longer to import than a
    command such as `pbem submit` takes to do its work.  A path entry that is not a folder
    (a zip) is left to :mod:`importlib.metadata`."""
    if any(entry and not os.path.isdir(entry) and os.path.exists(entry) for entry in sys.path):
        from importlib.metadata import entry_points
        return {ep.name: ep.value for ep in entry_points(group=group)}
    found: dict[str, str] = {}
    seen: set[str] = set()
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            dist = re.sub(r"[-_.]+", "-", name.rsplit(".", 1)[0].split("-")[0]).lower()
            if dist in seen:
                continue
            seen.add(dist)
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            for key, value in _group_lines(text, group):
                found.setdefault(key, value)
    return found


def _group_lines(text: str, group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of section ``[group]`` of an entry_points.txt."""
    out: list[tuple[str, str]] = []
    inside = False
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        section = _SECTION.match(line)
        if section:
            inside = section.group(1).strip() == group
        elif inside and "=" in line:
            key, _, value = line.partition("=")
            out.append((key.strip(), value.strip()))
    return out


#: pbem's own games, scanned when no entry point is found: found by their folder, like a plugin,
#: so that no module of the core imports a game (the layer contract forbids it)
RULES_DIR = Path(__file__).resolve().parents[1] / "rules"


def _scanned() -> dict[str, str]:
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules([str(RULES_DIR)]):
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
    """The game object for NAME, or a one-line error with the known names.

    A game object holds only its data and rulesets, read and built once: the same object is
    returned for the same registration (a command that loads the game several times, or a
    fuzzer playing thousands of games, builds it once)."""
    where = known().get(name)
    if where is None:
        raise PbemError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return _game_object(where)


@lru_cache(maxsize=None)
def _game_object(where: str) -> Game:
    module_name, class_name = where.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    game: Game = cls()
    return game
