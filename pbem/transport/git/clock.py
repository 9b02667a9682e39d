"""The deadline clock of a game shared through git, rebuilt from the history.

``pbem tick`` measures deadlines from the moderator-private file
``moderator/clock.json``: when each log entry was appended
(:mod:`pbem.pipeline.deadlines`).  A CI runner starts every job from a fresh clone,
without that file, so the times come from the history instead: an entry's
time is the committer time of the commit that added it to ``log.yaml``.
Times already in the file (the moderator's own, to the second) are kept;
only the missing ones are filled in.
"""
from __future__ import annotations

import json
import re
from typing import Any

from pbem.base.fsutil import write_atomic
from pbem.store.entryclock import CLOCK, read_clock
from pbem.store.gamedir import GameDir
from pbem.transport.git.repo import GitError, Repo, git_available

COMMIT_MARK = "\x00"
#: the separator that begins each entry in log.yaml (pbem.store.log.render_entry), as an added diff line
ADDED_ENTRY = re.compile(r"^\+--- # entry (\d+)$")


def entry_times(repo: Repo, log_rel: str) -> dict[int, float]:
    """Index -> committer time of the commit that added that entry to the log (the latest, if several did)."""
    out = repo.out("log", "--format=%x00%ct", "-p", "-U0", "--no-renames", "--no-color",
                   "--no-ext-diff", "--", log_rel)
    times: dict[int, float] = {}
    when: float | None = None
    for line in out.splitlines():
        if line.startswith(COMMIT_MARK):
            when = float(line[1:])
            continue
        match = ADDED_ENTRY.match(line)
        if match and when is not None:
            index = int(match.group(1))
            times[index] = max(times.get(index, when), when)
    return times


def restore_clock(repo: Repo, gd: GameDir, prefix: str, entries: list[dict[str, Any]] | None = None) -> list[int]:
    """Fill in the times missing from moderator/clock.json from the history; returns the indexes filled.
    ``entries``: the log, when the caller has just read it."""
    clock = read_clock(gd.moderator_dir)
    missing = [e["index"] for e in (gd.entries() if entries is None else entries) if str(e["index"]) not in clock]
    if not missing:
        return []
    times = entry_times(repo, "/".join(p for p in (prefix, gd.log_path.name) if p))
    filled = [index for index in missing if index in times]
    if filled:
        clock.update({str(index): times[index] for index in filled})
        gd.moderator_dir.mkdir(mode=0o700, exist_ok=True)
        write_atomic(gd.moderator_dir / CLOCK, json.dumps(clock, sort_keys=True), mode=0o600)
    return filled


def restore_clock_if_shared(gd: GameDir) -> list[int] | None:
    """For `pbem tick`: restore the clock when the game's log is tracked in a git repository (returns the
    indexes filled), else do nothing (returns None)."""
    if not git_available():
        return None
    try:
        repo = Repo.discover(gd.root)
        prefix = repo.rel(gd.root)
        log_rel = "/".join(p for p in (prefix, gd.log_path.name) if p)
        if repo.run("ls-files", "--error-unmatch", "--", log_rel, check=False).returncode != 0:
            return None
        return restore_clock(repo, gd, prefix)
    except GitError:
        return None
