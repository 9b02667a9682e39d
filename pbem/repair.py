"""Repairing what an interrupted command left behind, before the next command works on the game.

A command can stop anywhere: killed, Ctrl-C, a full disk, a power cut.  The
log write is the one commit point (:mod:`pbem.append`), so what can be left is:

* temporary files of an atomic write that never got renamed: removed;
* a torn end of the log, after the length the snapshot names, from a power cut in the
  middle of an append (a kill cannot leave one: the append is one write): cut off, since
  that entry was never committed (an end that is exactly one whole, chained entry was
  committed and stays);
* the archived move file of a move that never reached the log: removed (the
  move was not taken; the player may send it again);
* derived files (digests, secrets, the moderator's caches) that lag the log:
  rebuilt from the log.  The snapshot is written last and names the log it was
  made from, so a snapshot that does not match the log says exactly this.

Every command on the moderator's copy of a game goes through :func:`open_game`
(or :func:`repair` under the lock), so the next command, whichever it is,
leaves the game as if the interrupted one had finished or never started.
"""
from __future__ import annotations

import contextlib
import os
import re
import time
from typing import Any, Iterator

from pbem.append import publish
from pbem.canonical import sha256_hex
from pbem.entryclock import CLOCK, read_clock, record_time
from pbem.fsutil import locked, remove_temp_files
from pbem.gamedir import GameDir
from pbem.log import LOG_NAME, entry_hash_ok, render_entry, split_chunks
from pbem.table import Table, read_snapshot

#: the names submit gives archived moves: moves/000012-red.yaml and its .sig
ARCHIVE_NAME = re.compile(r"^\d{6,}-[a-z][a-z0-9_-]*\.yaml(?:\.sig)?$")


def is_moderator_copy(gd: GameDir) -> bool:
    """Only the moderator's copy (it holds the seed) is ever repaired or written."""
    return gd.seed_path.is_file()


def repair(gd: GameDir, check_derived: bool = True) -> tuple[Table, list[str]]:
    """Repair the moderator's copy (the caller holds the exclusive lock); return its table and what was done.

    ``check_derived=False`` (the audit) rebuilds the derived files only when the log is ahead
    of the snapshot, not when a file differs from the snapshot's record (the audit reports that)."""
    notes: list[str] = []
    for folder in (gd.root, gd.public_dir, gd.secrets_dir, gd.moves_dir, gd.moderator_dir, gd.root / "receipts"):
        for path in remove_temp_files(folder):
            notes.append(f"removed {path.relative_to(gd.root)}, left by an interrupted write")
    notes += _cut_torn_end(gd)
    table = Table.load(gd, check_derived)
    notes += _remove_stray_archives(gd, table)
    if table.derived_stale:
        clock = read_clock(gd.moderator_dir)
        if (gd.moderator_dir / CLOCK).is_file() and str(table.last["index"]) not in clock:
            record_time(gd.moderator_dir, table.last["index"], time.time())
        publish(table, gd.read_log_text(), careful=True)
        table.derived_stale = False
    return table, notes


def _cut_torn_end(gd: GameDir) -> list[str]:
    snap = read_snapshot(gd)
    if not snap or not isinstance(snap.get("log_bytes"), int) or not snap.get("tail"):
        return []
    committed = snap["log_bytes"]
    if gd.log_path.stat().st_size <= committed:
        return []
    data = gd.log_path.read_bytes()
    if sha256_hex(data[:committed]) != snap.get("log_sha256"):
        return []           # not the log the snapshot was made from: Table.load replays it, audit judges it
    last = snap["tail"][-1]
    if _one_whole_entry(data[committed:], last):
        return []
    with open(gd.log_path, "r+b") as fh:
        fh.truncate(committed)
        fh.flush()
        os.fsync(fh.fileno())
    return [f"cut off a torn end of {LOG_NAME} after entry {last['index']}: an entry that was never committed"]


def _one_whole_entry(tail: bytes, last: dict[str, Any]) -> bool:
    """Is ``tail`` exactly the next entry, whole and chained to ``last``?"""
    try:
        chunks = split_chunks(tail.decode("utf-8"))
    except UnicodeDecodeError:
        return False
    if len(chunks) != 1 or chunks[0].entry is None:
        return False
    entry = chunks[0].entry
    return (entry.get("index") == last["index"] + 1 and entry.get("prev") == last["hash"]
            and entry_hash_ok(entry) and render_entry(entry).encode() == tail)


def _remove_stray_archives(gd: GameDir, table: Table) -> list[str]:
    """Archived moves no entry refers to.  An archive is named by the entry it was written for,
    so a stray is numbered after the last entry (its move never reached the log); a table
    replayed from the log (after a crash) checks every name against the entries."""
    referenced: set[str] = set()
    for entry in table.tail:
        name = str(entry.get("move", {}).get("file", "")).rpartition("/")[2]
        if name:
            referenced |= {name, name + ".sig"}
    last = table.last["index"]
    notes: list[str] = []
    try:
        names = os.listdir(gd.moves_dir)
    except (FileNotFoundError, NotADirectoryError):
        return notes
    for name in sorted(names):
        if name in referenced or not ARCHIVE_NAME.match(name):
            continue
        if table.tail_start and int(name.split("-", 1)[0]) <= last:
            continue        # an older entry's: the snapshot matches the log, so that append finished
        path = gd.moves_dir / name
        if path.is_dir():
            continue
        path.unlink()
        notes.append(f"removed moves/{name}: its move never reached the log (it may be sent again)")
    return notes


def load_repaired(gd: GameDir) -> Table:
    """The moderator's table, after repairing what a crash left (for commands that only read)."""
    with open_game(gd) as table:
        return table


@contextlib.contextmanager
def open_game(gd: GameDir) -> Iterator[Table]:
    """The moderator's table under the exclusive lock, after repairing what a crash left."""
    gd.require()
    with locked(gd.root):
        table, _notes = repair(gd)
        yield table
