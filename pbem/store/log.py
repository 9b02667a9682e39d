"""The game log: append-only YAML, one document per entry, each entry hash-chained.

Every entry is a mapping with ``index`` and ``kind`` first and ``hash`` last.
``hash`` is the hex SHA-256 of the canonical JSON of the entry without the
``hash`` key (see :mod:`pbem.base.canonical`); ``prev`` is the previous entry's
hash (absent in entry 0).  The file is the concatenation of
``render_entry(e)`` for every entry, so it can be re-rendered byte for byte
and any edit is found (docs/log-format.md).
"""
from __future__ import annotations

import copy
import json
import re
import threading
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
    """Every entry of the log ``text`` (read from ``where``); LogError names the first damaged one.
    A text that extends one parsed before from the same place parses only the entries appended
    since (:class:`ParsedLogs`): the answer and the refusals are those of a whole parse."""
    return _PARSED.entries(text, where)


def _parse_whole(text: str, where: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for chunk in split_chunks(text):
        if chunk.entry is None:
            raise LogError(f"{where}: {chunk.error}; run `pbem audit` for details")
        entries.append(chunk.entry)
    return entries


@dataclass
class _Parsed:
    text: str
    #: each entry as compact JSON (rebuilt fresh for every caller), or as data to deep-copy where
    #: JSON would not give it back equal (a tuple, a key that is not a string)
    entries: list[str | dict[str, Any]]


class ParsedLogs:
    """The entries of the last log text parsed from each place (a few places, newest kept).

    A game's log only grows, and a long-running process (a mail host, a git sync taking a batch,
    a test playing a whole game) parses it again after every entry: that was quadratic over a
    game.  A text that starts with the one parsed before (which ended where an entry ends) and
    goes on with an entry separator parses only what follows; any other text is parsed whole.
    Callers get new objects each time: what one caller changes, the next never sees."""

    def __init__(self, places: int = 16) -> None:
        self.places = places
        self._parsed: dict[str, _Parsed] = {}
        self._lock = threading.Lock()

    def entries(self, text: str, where: str) -> list[dict[str, Any]]:
        with self._lock:
            before = self._parsed.get(where)
        if (before is not None and before.text.endswith("\n") and text.startswith(before.text)
                and _SEPARATOR.match(text, len(before.text))):
            fresh = _parse_whole(text[len(before.text):], where)
            kept = before.entries + [_keepable(e) for e in fresh]
        elif before is not None and text == before.text:
            kept = before.entries
        else:
            fresh = _parse_whole(text, where)
            kept = [_keepable(e) for e in fresh]
        with self._lock:
            self._parsed.pop(where, None)
            self._parsed[where] = _Parsed(text, kept)
            while len(self._parsed) > self.places:
                del self._parsed[next(iter(self._parsed))]
        return _rebuilt(kept)


def _keepable(entry: dict[str, Any]) -> str | dict[str, Any]:
    try:
        text = json.dumps(entry, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return copy.deepcopy(entry)
    return text if json.loads(text) == entry else copy.deepcopy(entry)


def _rebuilt(kept: list[str | dict[str, Any]]) -> list[dict[str, Any]]:
    if all(isinstance(k, str) for k in kept):
        return list(json.loads("[" + ",".join(kept) + "]"))      # type: ignore[arg-type]
    return [json.loads(k) if isinstance(k, str) else copy.deepcopy(k) for k in kept]


_PARSED = ParsedLogs()


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
