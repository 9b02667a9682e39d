"""The game log: append-only YAML, one document per entry, each entry hash-chained.

Every entry is a mapping with ``index`` and ``kind`` first and ``hash`` last.
``hash`` is the hex SHA-256 of the canonical JSON of the entry without the
``hash`` key (see :mod:`pbem.base.canonical`); ``prev`` is the previous entry's
hash (absent in entry 0).  The file is the concatenation of
``render_entry(e)`` for every entry, so it can be re-rendered byte for byte
and any edit is found (docs/log-format.md).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from pbem.base import yamlio
from pbem.base.canonical import data_hash
from pbem.base.errors import PbemError
from pbem.base.fsutil import public_mode, write_atomic

LOG_NAME = "log.yaml"
_SEPARATOR = re.compile(r"^--- # entry (\d+)$", re.MULTILINE)


class LogError(PbemError):
    """The log is damaged; the message names the entry."""


def seal(entry: dict[str, Any]) -> dict[str, Any]:
    """Return the entry with its ``hash`` computed and placed last."""
    body = {k: v for k, v in entry.items() if k != "hash"}
    body["hash"] = data_hash(body)
    return body


def entry_hash_ok(entry: dict[str, Any]) -> bool:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return entry.get("hash") == data_hash(body)


def render_entry(entry: dict[str, Any]) -> str:
    return f"--- # entry {entry['index']}\n" + yamlio.dump(entry)


@dataclass
class LogChunk:
    index: int
    text: str
    entry: dict[str, Any] | None
    error: str = ""


def split_chunks(text: str) -> list[LogChunk]:
    """Split the log text into its entries, keeping each entry's exact text."""
    starts = [m.start() for m in _SEPARATOR.finditer(text)]
    chunks: list[LogChunk] = []
    if not starts or starts[0] != 0:
        chunks.append(LogChunk(-1, text[: starts[0] if starts else len(text)], None,
                               "text before the first entry separator"))
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        piece = text[start:end]
        number = int(_SEPARATOR.match(piece).group(1))  # type: ignore[union-attr]
        try:
            data = yamlio.load_log_entry(piece, f"entry {number}")
        except yamlio.YamlError as exc:
            chunks.append(LogChunk(number, piece, None, f"entry {number} cannot be read: {exc}"))
            continue
        if not isinstance(data, dict):
            chunks.append(LogChunk(number, piece, None, f"entry {number} is not a mapping"))
            continue
        chunks.append(LogChunk(number, piece, data))
    return chunks


def read_entries(path: Path) -> list[dict[str, Any]]:
    """Entries of a log we wrote (fast path: trusts the file, checks only the shape)."""
    return parse_entries(path.read_text(encoding="utf-8"), str(path))


def parse_entries(text: str, where: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for chunk in split_chunks(text):
        if chunk.entry is None:
            raise LogError(f"{where}: {chunk.error}; run `pbem audit` for details")
        entries.append(chunk.entry)
    return entries


def verify_chain(chunks: Iterable[LogChunk]) -> list[str]:
    """Problems with the bytes, hashes and chaining of the log (empty when intact)."""
    problems: list[str] = []
    prev_hash: str | None = None
    expected = 0
    for chunk in chunks:
        if chunk.entry is None:
            problems.append(chunk.error)
            prev_hash = None
            expected = chunk.index + 1
            continue
        entry = chunk.entry
        n = entry.get("index")
        if n != expected or chunk.index != n:
            problems.append(f"entry {chunk.index}: index {n} out of order (expected {expected})")
        if f"--- # entry {chunk.index}\n" + yamlio.dump(entry) != chunk.text:
            problems.append(f"entry {chunk.index}: bytes differ from the canonical rendering (edited by hand?)")
        if not entry_hash_ok(entry):
            problems.append(f"entry {chunk.index}: hash does not match its content")
        if expected > 0 and entry.get("prev") != prev_hash:
            problems.append(f"entry {chunk.index}: prev does not match the hash of entry {expected - 1}")
        prev_hash = entry.get("hash")
        expected = (n if isinstance(n, int) else expected) + 1
    return problems


def write_log(path: Path, entries: list[dict[str, Any]], existing_text: str | None = None) -> None:
    """Atomically write the log: the existing text plus the new entries' renderings."""
    text = existing_text if existing_text is not None else ""
    write_atomic(path, text + "".join(render_entry(e) for e in entries), mode=public_mode())
