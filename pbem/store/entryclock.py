"""When each log entry was appended: ``moderator/clock.json`` (moderator-private, never logged).

Deadlines (:mod:`pbem.pipeline.deadlines`) are measured from these times; a fresh clone of a git game
fills in the missing ones from the history (:mod:`pbem.transport.git.clock`).  The snapshot
lists the file among the derived ones, so it is written without its own flush.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from pbem.base.fsutil import write_atomic

CLOCK = "clock.json"


def record_time(moderator_dir: Path, index: int, now: float | None = None) -> None:
    """When entry ``index`` was appended (now, unless given)."""
    path = moderator_dir / CLOCK
    clock = read_clock(moderator_dir)
    clock[str(index)] = time.time() if now is None else now
    write_atomic(path, json.dumps(clock, sort_keys=True), mode=0o600, durable=False)   # the snapshot records it


def read_clock(moderator_dir: Path) -> dict[str, float]:
    try:
        return json.loads((moderator_dir / CLOCK).read_text())
    except (FileNotFoundError, ValueError):
        return {}
