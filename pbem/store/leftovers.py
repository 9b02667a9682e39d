"""What an interrupted command left in a game folder, and what no interruption explains: found
by reading alone.

A command can stop anywhere: killed, Ctrl-C, a full disk, a power cut.  The log write is the
one commit point (:mod:`pbem.pipeline.append`), so what it can leave (the *leftovers*) is:

* a temporary file of an atomic write that never got renamed (``TEMP_FILE``);
* a torn end of the log after the length the snapshot names, from a power cut in the middle
  of an append (``TORN_END``): that entry was never committed (an end that is exactly one
  whole entry chained to the snapshot's last was committed, and stays);
* the archived move file of a move that never reached the log (``STRAY_ARCHIVE``): numbered
  after the last entry, while the log is the one the snapshot was made from (or that and the
  one entry committed after it);
* derived files (digests, secrets, the moderator's caches) that lag the log: the log is the
  snapshot's and one whole entry more (``DERIVED_LAG``), or a file is not the one the snapshot
  recorded (``DERIVED_CHANGED``: a power cut lost it before it was flushed).

What no interrupted command leaves is *evidence* (a problem for `pbem audit`):

* the log is shorter than, or differs from, the log the moderator's snapshot was made from
  (``LOG_NOT_SNAPSHOT``), or holds more than one entry after it (``ENTRIES_AFTER``);
* an archived move that no entry refers to where no crash explains it (``UNLOGGED_ARCHIVE``):
  numbered at or before the last entry, or the log is not the snapshot's, or there is no
  snapshot (a player's copy, a fresh clone): the log looks cut back.

:func:`plan_repair` finds all of them and changes nothing; :func:`pbem.pipeline.repair.repair`
carries the plan out (as every moderator command always did); `pbem audit` only reports it.
"""
from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from pbem.base.canonical import sha256_hex
from pbem.base.fsutil import temp_files
from pbem.store.gamedir import GameDir
from pbem.store.log import LOG_NAME, LogChunk, entry_hash_ok, render_entry, split_chunks
from pbem.store.table import changed_derived, read_snapshot

#: the names submit gives archived moves: moves/000012-red.yaml and its .sig
ARCHIVE_NAME = re.compile(r"^\d{6,}-[a-z][a-z0-9_-]*\.yaml(?:\.sig)?$")

#: the folders an atomic write may leave a temporary file in
WRITTEN_FOLDERS = ("", "public", "secrets", "moves", "moderator", "receipts")


class Kind(enum.Enum):
    TEMP_FILE = "temporary file"
    TORN_END = "torn end of the log"
    STRAY_ARCHIVE = "archive of a move that never reached the log"
    DERIVED_LAG = "derived files that lag the log"
    DERIVED_CHANGED = "derived file not the one the snapshot recorded"
    LOG_NOT_SNAPSHOT = "log not the one the snapshot was made from"
    ENTRIES_AFTER = "entries after the snapshot's log"
    UNLOGGED_ARCHIVE = "archived move no entry refers to"


#: what an interrupted command leaves; every other kind is evidence against the log
LEFTOVERS = frozenset({Kind.TEMP_FILE, Kind.TORN_END, Kind.STRAY_ARCHIVE, Kind.DERIVED_LAG, Kind.DERIVED_CHANGED})


@dataclass(frozen=True)
class Finding:
    kind: Kind
    path: str          # the file concerned, relative to the game folder
    text: str          # one line: what it is, and what a repair does about it

    @property
    def leftover(self) -> bool:
        return self.kind in LEFTOVERS


class Relation(enum.Enum):
    """How the log (without a torn end) relates to the moderator's snapshot."""
    SAME = "the snapshot's log"
    AHEAD = "the snapshot's log and one whole entry committed after it"
    OTHER = "not the snapshot's log"
    NONE = "no snapshot to compare with"


@dataclass
class RepairPlan:
    findings: list[Finding]
    log: bytes              # log.yaml as read
    committed: int          # its length without a torn end: what a repair cuts it back to
    relation: Relation
    #: the entries of ``log[:committed]``, when the plan had to read them all (so that the audit
    #: does not parse the log twice)
    chunks: list[LogChunk] | None = None
    #: moderator/snapshot.json as read (parsed JSON, None when missing or not JSON), so that loading
    #: the table after the repair does not read and parse it again
    snapshot: Any = None

    def of(self, *kinds: Kind) -> list[Finding]:
        return [f for f in self.findings if f.kind in kinds]

    def committed_text(self) -> str:
        return self.log[:self.committed].decode("utf-8")


def plan_repair(gd: GameDir) -> RepairPlan:
    """Everything a repair would do to this copy of the game, and what looks cut back; reads only."""
    findings = [Finding(Kind.TEMP_FILE, rel(gd, path), f"{rel(gd, path)} is a temporary file left by an "
                        "interrupted write (not part of the game)")
                for folder in WRITTEN_FOLDERS for path in temp_files(gd.root / folder)]
    data = gd.log_path.read_bytes()
    snapshot = read_snapshot(gd)
    snap = snapshot if isinstance(snapshot, dict) else None
    relation, committed, about_log = _against_snapshot(data, snap)
    findings += about_log
    if relation is Relation.SAME and snap is not None:
        changed = changed_derived(gd, snap.get("derived"))
        findings += [Finding(Kind.DERIVED_CHANGED, path, f"{path} is not the file the moderator's snapshot recorded "
                             "(its size or time differs)") for path in (changed or [])]
        if changed is None:
            findings.append(Finding(Kind.DERIVED_CHANGED, "moderator/snapshot.json", "the moderator's snapshot "
                                    "records no derived files (an older pbem made it)"))
    cut_entries = any(f.kind is Kind.ENTRIES_AFTER for f in about_log)
    archives, chunks = _archives(gd, data[:committed], relation, snap, cut_entries)
    return RepairPlan(findings + archives, data, committed, relation, chunks, snapshot)


def rel(gd: GameDir, path: os.PathLike[str]) -> str:
    return os.path.relpath(path, gd.root).replace(os.sep, "/")


def _against_snapshot(data: bytes, snap: dict[str, Any] | None) -> tuple[Relation, int, list[Finding]]:
    """The relation of the log to the snapshot, the committed length, and what is found about the log."""
    tail = snap.get("tail") if snap is not None else None
    if snap is None or not isinstance(tail, list) or not tail or not isinstance(tail[-1], dict):
        return Relation.NONE, len(data), []     # none, or from an older pbem: nothing to go by
    if sha256_hex(data) == snap.get("log_sha256"):
        return Relation.SAME, len(data), []
    size = snap.get("log_bytes")
    if not isinstance(size, int):
        return Relation.NONE, len(data), []
    last = tail[-1]
    said = (f"the log the moderator's snapshot was made from ({size} bytes, ending at entry {last.get('index')}, "
            f"hash {str(last.get('hash'))[:16]})")
    if len(data) < size or sha256_hex(data[:size]) != snap.get("log_sha256"):
        how = (f"is shorter ({len(data)} bytes) than" if len(data) < size
               else f"differs in its first {size} bytes from")
        return Relation.OTHER, len(data), [Finding(Kind.LOG_NOT_SNAPSHOT, LOG_NAME, f"{LOG_NAME} {how} {said}: "
                                                   "the log looks cut back or rewritten")]
    extra = data[size:]
    if _one_whole_entry(extra, last):
        index = last["index"]           # an int: _one_whole_entry checked it
        return Relation.AHEAD, len(data), [Finding(
            Kind.DERIVED_LAG, "public", f"the digests, secrets and the moderator's caches were written for entry "
            f"{index}; entry {index + 1} was committed after them (a command stopped just past its commit)")]
    pieces = split_chunks(extra.decode("utf-8", errors="replace"))
    if len(pieces) > 1:         # a torn append is a piece of one entry, never more
        return Relation.SAME, size, [Finding(Kind.ENTRIES_AFTER, LOG_NAME, f"{LOG_NAME} holds {len(pieces)} "
                                             f"entries or pieces after {said}; no command appends more than one, "
                                             "yet a repair would cut them off as a torn end")]
    return Relation.SAME, size, [Finding(Kind.TORN_END, LOG_NAME, f"{LOG_NAME} ends in a torn piece of an entry "
                                         f"after entry {last.get('index')} ({len(extra)} bytes; a power cut in the "
                                         "middle of an append): that entry was never committed")]


def _one_whole_entry(tail: bytes, last: dict[str, Any]) -> bool:
    """Is ``tail`` exactly the next entry, whole and chained to ``last``?"""
    try:
        chunks = split_chunks(tail.decode("utf-8"))
    except UnicodeDecodeError:
        return False
    if len(chunks) != 1 or chunks[0].entry is None:
        return False
    entry = chunks[0].entry
    return (isinstance(last.get("index"), int) and entry.get("index") == last["index"] + 1
            and entry.get("prev") == last.get("hash") and entry_hash_ok(entry) and render_entry(entry).encode() == tail)


def _archives(gd: GameDir, log: bytes, relation: Relation, snap: dict[str, Any] | None,
              cut_entries: bool) -> tuple[list[Finding], list[LogChunk] | None]:
    """Archived moves no entry of the committed ``log`` refers to.  An archive is named by the
    entry it was written for, so a stray is numbered after the last entry (its move never
    reached the log).  With the snapshot's log, its tail names the recent entries' archives (the
    log is not parsed: an older entry's archive is left to the audit, which reads every entry);
    otherwise every entry of the log is read.  ``cut_entries``: the log holds entries after the
    snapshot's, which a repair cuts off (:data:`Kind.ENTRIES_AFTER`).  Also returns the chunks
    of the log when it had to read them."""
    try:
        with os.scandir(gd.moves_dir) as listing:     # the kind of each entry read from the listing
            candidates = sorted(e.name for e in listing if ARCHIVE_NAME.match(e.name) and not _is_dir(e))
    except (FileNotFoundError, NotADirectoryError):
        return [], None
    if not candidates:
        return [], None
    whole = True
    chunks = None
    if relation is Relation.SAME and snap is not None:
        entries: list[Any] = snap["tail"] if isinstance(snap.get("tail"), list) else []
        whole = snap.get("tail_start") == 0
    else:
        try:
            text = log.decode("utf-8")
        except UnicodeDecodeError:
            return [], None     # not a log pbem can read: a repair stops there; the audit says why
        chunks = split_chunks(text)
        entries = [c.entry for c in chunks if c.entry is not None]
    referenced = _referenced(entries)
    indices: list[int] = [e["index"] for e in entries if isinstance(e, dict) and isinstance(e.get("index"), int)]
    if not indices:
        return [], chunks
    last = max(indices)
    findings = []
    for name in candidates:
        if name in referenced:
            continue
        number = int(name.split("-", 1)[0])
        path = f"moves/{name}"
        if number > last and relation in (Relation.SAME, Relation.AHEAD) and not cut_entries:
            findings.append(Finding(Kind.STRAY_ARCHIVE, path, f"{path} is the archive of a move that never reached "
                                    f"the log (numbered {number}, after the last entry {last}; it may be sent again)"))
        elif number <= last and not whole:
            continue        # an older entry's, beyond the snapshot's tail: the audit checks it against every entry
        else:
            findings.append(Finding(Kind.UNLOGGED_ARCHIVE, path, f"{path} is an archived move that no entry of the "
                                    f"log refers to, {_why(relation, number, last, cut_entries)}: the log looks "
                                    "cut back"))
    return findings, chunks


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """``Path(entry.path).is_dir()``, from the directory's listing where it can (no ``stat`` of
    each archive at every repair: every submit has one); asked of the path where the listing
    cannot answer (an error reading a link's target: the path's answer, or its error)."""
    try:
        return entry.is_dir()
    except OSError:
        return Path(entry.path).is_dir()


def _why(relation: Relation, number: int, last: int, cut_entries: bool) -> str:
    if cut_entries and number > last:
        return f"numbered {number}, after the entries a repair keeps (up to {last})"
    if relation is Relation.OTHER:
        return f"and the log (ending at entry {last}) is not the one the moderator's snapshot records"
    if relation is Relation.NONE:
        return f"and no moderator's snapshot on this copy explains it (the log ends at entry {last})"
    return f"numbered {number}, at or before the last entry {last}"


def _referenced(entries: Iterable[Any]) -> set[str]:
    names: set[str] = set()
    for entry in entries:
        move = entry.get("move") if isinstance(entry, dict) else None
        name = str(move.get("file", "")).rpartition("/")[2] if isinstance(move, dict) else ""
        if name:
            names |= {name, name + ".sig"}
    return names
