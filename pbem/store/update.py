"""A public update of a game: the log entries after the last one a player was sent, with the
signed move files they archive and the public view after the last of them.

A player who receives the game by mail keeps a copy of its public files (what the public copy
``GAME_ID-public.tar.gz`` holds, :mod:`pbem.store.bundle`).  Each digest message carries
``GAME_ID-update-N-M.tar.gz``: entries N to M, so that a copy holding entries 0 to N-1 can be
extended (``pbem play`` checks that the entries chain onto its copy's head and that every
signature holds before it applies them).  The first digest carries entries 0 to M: a whole copy.

The archive unpacks into ``GAME_ID/``::

    GAME_ID/update.json       {"format": "pbem-update/1", "game": ID, "from": N, "to": M}
    GAME_ID/log.yaml          the exact text of entries N..M (the log's own bytes)
    GAME_ID/moves/...         every signed move file (and .sig) those entries archive
    GAME_ID/public/view.json  the public view after entry M

It holds nothing from ``moderator/`` or ``secrets/``, and it is deterministic (sorted names,
fixed times and owners): the same game gives the same bytes.  Reading one
(:func:`read_update`) caps its size and refuses any name outside that layout, so a hostile
archive cannot write anywhere.
"""
from __future__ import annotations

import gzip
import io
import json
import re
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from pbem.base.errors import PbemError
from pbem.store.gamedir import GAME_ID_RE, GameDir
from pbem.store.log import split_chunks

FORMAT = "pbem-update/1"
#: the armoured (base64) bytes a digest message keeps for the update (pbem.views.outputs' budget)
UPDATE_BYTES = 8_000
MAX_UNPACKED = 16 * 2**20       # what a received update or public copy may unpack to
MAX_MEMBERS = 20_000
UPDATE_NAME = re.compile(r"^(?P<game>[A-Za-z0-9][A-Za-z0-9._-]{0,63})-update-(?P<start>\d{1,9})-(?P<end>\d{1,9})\.tar\.gz$")
PUBLIC_NAME = re.compile(r"^(?P<game>[A-Za-z0-9][A-Za-z0-9._-]{0,63})-public\.tar\.gz$")
_MOVE_FILE = re.compile(r"^moves/[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_KNOWN = {"update.json", "log.yaml", "public/view.json", "public/digest.txt", "public/digest.html",
          "public/board.svg"}


class UpdateError(PbemError):
    """One line: why a received update or public copy cannot be read."""


def update_name(game_id: str, start: int, end: int) -> str:
    return f"{game_id}-update-{start}-{end}.tar.gz"


def armoured_size(data: bytes) -> int:
    """What ``data`` costs in a message as base64 (76-character lines, CRLF)."""
    chars = 4 * ((len(data) + 2) // 3)
    return chars + 2 * ((chars + 75) // 76)


def public_update(gd: GameDir, game_id: str, start: int, end: int) -> tuple[str, bytes] | None:
    """The update of entries ``start`` to ``end`` (its file name and bytes); None when the log
    does not hold them (or its public view is not the one after ``end``)."""
    text = gd.read_log_text()
    at = 0 if start == 0 else text.find(f"\n--- # entry {start}\n") + 1     # only the tail is parsed
    if at <= 0 and start != 0:
        return None
    chunks = [c for c in split_chunks(text[at:]) if start <= c.index <= end]
    if not chunks or chunks[0].index != start or chunks[-1].index != end or any(c.entry is None for c in chunks):
        return None
    files: list[tuple[str, bytes]] = [
        ("update.json", (json.dumps({"format": FORMAT, "game": game_id, "from": start, "to": end},
                                    sort_keys=True) + "\n").encode()),
        ("log.yaml", "".join(c.text for c in chunks).encode("utf-8")),
    ]
    for chunk in chunks:
        assert chunk.entry is not None
        rel = str((chunk.entry.get("move") or {}).get("file", "")) if chunk.entry.get("kind") == "move" else ""
        if rel and _MOVE_FILE.match(rel):
            for name in (rel, rel + ".sig"):
                path = gd.root / name
                if path.is_file():
                    files.append((name, path.read_bytes()))
    try:
        view = (gd.public_dir / "view.json").read_bytes()
        if json.loads(view).get("index") != end:
            return None
    except (OSError, ValueError, AttributeError):
        return None
    files.append(("public/view.json", view))
    return update_name(game_id, start, end), _tar(game_id, sorted(files))


def update_within(gd: GameDir, game_id: str, start: int, end: int,
                  budget: int = UPDATE_BYTES) -> tuple[str, bytes] | None:
    """The update of entries ``start`` to ``end``, or None when there is none or it would cost more
    than ``budget`` armoured bytes (the message goes without it; the player's program then asks
    for the copy)."""
    if start > end:
        return None
    update = public_update(gd, game_id, start, end)
    if update is None or armoured_size(update[1]) > budget:
        return None
    return update


def _tar(game_id: str, files: list[tuple[str, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files:
            info = tarfile.TarInfo(f"{game_id}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), compresslevel=9, mtime=0)


# --- reading one (the player's side) ------------------------------------------------------------

@dataclass
class Received:
    """A received update, or a whole public copy (``start`` 0)."""

    game_id: str
    start: int
    end: int
    log_text: str
    files: dict[str, bytes] = field(default_factory=dict)     # moves/..., public/view.json

    @property
    def whole(self) -> bool:
        return self.start == 0


def read_update(name: str, data: bytes) -> Received:
    """An update (``GAME_ID-update-N-M.tar.gz``) or a public copy (``GAME_ID-public.tar.gz``),
    read in memory with its size capped; nothing is written."""
    named = UPDATE_NAME.match(name) or PUBLIC_NAME.match(name)
    if named is None:
        raise UpdateError(f"{name[:80]!r} is not a pbem update or public copy")
    game_id = named.group("game")
    members = _members(name, data, game_id)
    log = members.pop("log.yaml", None)
    if log is None:
        raise UpdateError(f"{name}: holds no log.yaml")
    try:
        log_text = log.decode("utf-8")
    except UnicodeDecodeError:
        raise UpdateError(f"{name}: its log.yaml is not UTF-8 text") from None
    chunks = split_chunks(log_text)
    if not chunks or any(c.entry is None for c in chunks):
        raise UpdateError(f"{name}: its log.yaml does not read as log entries")
    start, end = chunks[0].index, chunks[-1].index
    manifest = members.pop("update.json", None)
    if manifest is not None:
        try:
            meta = json.loads(manifest)
        except ValueError:
            raise UpdateError(f"{name}: its update.json is not JSON") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("game") != game_id \
                or meta.get("from") != start or meta.get("to") != end:
            raise UpdateError(f"{name}: its update.json does not describe its entries ({start} to {end})")
    elif start != 0:
        raise UpdateError(f"{name}: a public copy starts at entry 0, this one at {start}")
    if "start" in named.groupdict() and (int(named.group("start")), int(named.group("end"))) != (start, end):
        raise UpdateError(f"{name}: holds entries {start} to {end}, not what its name says")
    files = {k: v for k, v in members.items() if k.startswith("moves/") or k == "public/view.json"}
    return Received(game_id, start, end, log_text, files)


def _members(name: str, data: bytes, game_id: str) -> dict[str, bytes]:
    if not GAME_ID_RE.match(game_id):
        raise UpdateError(f"{name}: not a game id")
    try:
        raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, MAX_UNPACKED + 1)
    except zlib.error:
        raise UpdateError(f"{name}: not a gzip file") from None
    if len(raw) > MAX_UNPACKED:
        raise UpdateError(f"{name}: unpacks to more than {MAX_UNPACKED} bytes")
    out: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            for n, member in enumerate(tar):
                if n >= MAX_MEMBERS:
                    raise UpdateError(f"{name}: more than {MAX_MEMBERS} files")
                path = PurePosixPath(member.name)
                rel = "/".join(path.parts[1:])
                if not member.isfile() or path.parts[:1] != (game_id,) or ".." in path.parts \
                        or not (rel in _KNOWN or _MOVE_FILE.match(rel)):
                    raise UpdateError(f"{name}: holds {member.name[:80]!r}, which is no file of a game's public copy")
                fh = tar.extractfile(member)
                if fh is None or rel in out:
                    raise UpdateError(f"{name}: holds {member.name[:80]!r} twice or unreadable")
                out[rel] = fh.read()
    except tarfile.TarError as exc:
        raise UpdateError(f"{name}: not a tar archive ({exc})") from None
    return out
