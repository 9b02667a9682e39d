"""Appending one entry to a game: the only way the log grows.

Order of writes: archived files, the moderator's snapshot and clock, the
digests and secrets, and the log last (the log makes the entry real; a crash
before it leaves a snapshot that no longer matches, which the next load
notices and replays past).
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Mapping

from pbem.fsutil import write_atomic
from pbem.log import render_entry, seal
from pbem.outputs import write_outputs
from pbem.table import Table

CLOCK = "clock.json"


def add_outcome(table: Table, entry: dict[str, Any]) -> dict[str, Any]:
    """Add the decisions now pending and the keyed state hash."""
    entry["pending"] = [{"player": d.player, "kind": d.kind} for d in table.game.pending(table.state)]
    entry["state"] = table.current_state_hash()
    return entry


def finish_entry(table: Table, entry: dict[str, Any]) -> dict[str, Any]:
    """Add the outcome and seal the entry (a player's move: signed by its own file)."""
    return seal(add_outcome(table, entry))


def append_entry(table: Table, entry: dict[str, Any], archive: Mapping[str, bytes | str] | None = None) -> None:
    gd = table.gd
    new_log = gd.read_log_text() + render_entry(entry)
    table.entries.append(entry)
    for rel, data in (archive or {}).items():
        write_atomic(gd.root / rel, data)
    table.save_snapshot(new_log)
    record_time(gd.moderator_dir, entry["index"])
    write_outputs(table)
    write_atomic(gd.log_path, new_log)


def record_time(moderator_dir: Path, index: int, now: float | None = None) -> None:
    """When each entry was appended (moderator-private: deadlines only, never logged)."""
    path = moderator_dir / CLOCK
    clock = read_clock(moderator_dir)
    clock[str(index)] = time.time() if now is None else now
    write_atomic(path, json.dumps(clock, sort_keys=True), mode=0o600)


def read_clock(moderator_dir: Path) -> dict[str, float]:
    try:
        return json.loads((moderator_dir / CLOCK).read_text())
    except (FileNotFoundError, ValueError):
        return {}
