"""Repairing what an interrupted command left behind, before the next command works on the game.

A command can stop anywhere: killed, Ctrl-C, a full disk, a power cut.  The
log write is the one commit point (:mod:`pbem.append`), so what can be left is:

* temporary files of an atomic write that never got renamed: removed;
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
import re
import time
from typing import Any, Iterator

from pbem.append import CLOCK, publish, read_clock, record_time
from pbem.fsutil import locked, remove_temp_files
from pbem.gamedir import GameDir
from pbem.table import Table

#: the names submit gives archived moves: moves/000012-red.yaml and its .sig
ARCHIVE_NAME = re.compile(r"^\d{6,}-[a-z][a-z0-9_-]*\.yaml(?:\.sig)?$")


def is_moderator_copy(gd: GameDir) -> bool:
    """Only the moderator's copy (it holds the seed) is ever repaired or written."""
    return gd.seed_path.is_file()


def repair(gd: GameDir) -> tuple[Table, list[str]]:
    """Repair the moderator's copy (the caller holds the exclusive lock); return its table and what was done."""
    notes: list[str] = []
    for folder in (gd.root, gd.public_dir, gd.secrets_dir, gd.moves_dir, gd.moderator_dir, gd.root / "receipts"):
        for path in remove_temp_files(folder):
            notes.append(f"removed {path.relative_to(gd.root)}, left by an interrupted write")
    table = Table.load(gd)
    notes += _remove_stray_archives(gd, table.entries)
    if table.derived_stale:
        clock = read_clock(gd.moderator_dir)
        if (gd.moderator_dir / CLOCK).is_file() and str(table.last["index"]) not in clock:
            record_time(gd.moderator_dir, table.last["index"], time.time())
        publish(table, gd.read_log_text(), careful=True)
        table.derived_stale = False
    return table, notes


def _remove_stray_archives(gd: GameDir, entries: list[dict[str, Any]]) -> list[str]:
    referenced: set[str] = set()
    for entry in entries:
        name = str(entry.get("move", {}).get("file", "")).rpartition("/")[2]
        if name:
            referenced |= {name, name + ".sig"}
    notes = []
    if gd.moves_dir.is_dir():
        for path in sorted(gd.moves_dir.iterdir()):
            if ARCHIVE_NAME.match(path.name) and path.name not in referenced and not path.is_dir():
                path.unlink()
                notes.append(f"removed moves/{path.name}: its move never reached the log (it may be sent again)")
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
