"""The games of a repository, for `pbem git sync` over all of them: every folder holding a
``log.yaml`` under a folder (not looking inside a game, nor into hidden folders such as
``.git``), or the folders a moderator names."""
from __future__ import annotations

import os
from pathlib import Path

from pbem.base.errors import PbemError
from pbem.store.log import LOG_NAME

#: how deep under the folder games are looked for (repo/games/club/game1 is depth 3)
MAX_DEPTH = 4


def game_folders(root: Path) -> list[Path]:
    """Every game folder under ``root``, in name order."""
    found: list[Path] = []
    base = len(root.parts)
    for dirpath, dirs, files in os.walk(root):
        here = Path(dirpath)
        if LOG_NAME in files and here != root:
            found.append(here)
            dirs[:] = []                  # a game's own folders hold no other game
            continue
        if len(here.parts) - base >= MAX_DEPTH:
            dirs[:] = []
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    return sorted(found)


def named_folders(root: Path, names: tuple[str, ...]) -> list[Path]:
    """The game folders named (relative to ``root``), each checked to be a game under ``root``."""
    out = []
    for name in names:
        folder = (root / name).resolve()
        if not folder.is_relative_to(root.resolve()):
            raise PbemError(f"--game {name}: not a folder under {root}")
        out.append(root / name)
    return list(dict.fromkeys(out))
