"""Finding the games/ and templates/ folders, in a checkout or an installed package."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

try:  # the C loader is much faster where available
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader  # type: ignore[assignment]

_PKG = Path(__file__).resolve().parents[1]   # the pbem package (this file is pbem/base/data.py)


@lru_cache(maxsize=None)
def _find(name: str) -> Path:
    """The folder, looked for once a process (every digest page asks for the templates)."""
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"pbem data folder {name!r} not found; reinstall pbem")


def games_dir() -> Path:
    return _find("games")


def templates_dir() -> Path:
    return _find("templates")


@lru_cache(maxsize=None)
def _load_yaml_text(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=SafeLoader)


def game_data(game: str, filename: str) -> Any:
    """Parsed YAML from games/GAME/FILENAME (cached; treat as read-only)."""
    return _load_yaml_text(str(games_dir() / game / filename))
