"""The public copy of a game as one compressed file, for players who receive the game by mail.

``GAME_ID-public.tar.gz`` unpacks (``tar xzf``) into a folder ``GAME_ID/`` holding what a
player needs to run ``pbem check``, ``pbem legal``, ``pbem move --bot`` and ``pbem audit``:
the log, every archived signed move, and the public digests and view.  It never holds
anything from ``moderator/`` or ``secrets/``.  The archive is deterministic: the same game
gives the same bytes (sorted names, fixed times and owners).
"""
from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

from pbem.store.gamedir import GameDir

PUBLIC_FILES = ("log.yaml", "public/view.json", "public/digest.txt", "public/digest.html", "public/board.svg")


def bundle_name(game_id: str) -> str:
    return f"{game_id}-public.tar.gz"


def public_bundle(gd: GameDir, game_id: str) -> bytes:
    """The tar.gz of the game's public files, under the folder ``game_id/``."""
    paths = [gd.root / rel for rel in PUBLIC_FILES if (gd.root / rel).is_file()]
    if gd.moves_dir.is_dir():
        paths += sorted(p for p in gd.moves_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in paths:
            _add(tar, f"{game_id}/{path.relative_to(gd.root).as_posix()}", path)
    return gzip.compress(raw.getvalue(), compresslevel=9, mtime=0)


def _add(tar: tarfile.TarFile, name: str, path: Path) -> None:
    data = path.read_bytes()
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o644, 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))
