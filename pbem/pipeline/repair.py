"""Repairing what an interrupted command left behind, before the next command works on the game.

:func:`pbem.store.leftovers.plan_repair` finds, by reading alone, what a command that stopped
anywhere (killed, Ctrl-C, a full disk, a power cut) can leave; :func:`repair` carries the
plan out:

* temporary files of an atomic write that never got renamed: removed;
* a torn end of the log, after the length the snapshot names: cut off, since that entry was
  never committed;
* the archived move file of a move that never reached the log: removed (the move was not
  taken; the player may send it again);
* derived files (digests, secrets, the moderator's caches) that lag the log: rebuilt from
  the log.  The snapshot is written last and names the log it was made from, so a snapshot
  that does not match the log says exactly this.

Every command on the moderator's copy of a game goes through :func:`open_game` (or
:func:`repair` under the lock), so the next command, whichever it is, leaves the game as if
the interrupted one had finished or never started.  `pbem audit` never repairs: it reports
the plan (:mod:`pbem.pipeline.audit`).

What no interrupted command leaves (the plan's *evidence*: a log shorter than, or different
from, the one the moderator's snapshot was made from; entries after it; an archived move no
entry refers to) is never "repaired": removing the archives of a cut-back log would destroy
the players' signed moves, and cutting entries would destroy committed ones.  Every command
then stops with :class:`TamperedGame`, changing nothing, until the moderator restores the
folder from a good copy (or, to go on from this log, moves the named files away).
"""
from __future__ import annotations

import contextlib
import os
import time
from typing import Iterator

from pbem.base.errors import PbemError
from pbem.base.fsutil import locked
from pbem.pipeline.append import publish
from pbem.store.entryclock import CLOCK, read_clock, record_time
from pbem.store.gamedir import GameDir
from pbem.store.leftovers import Finding, Kind, RepairPlan, plan_repair
from pbem.store.log import LOG_NAME
from pbem.store.table import Table

class TamperedGame(PbemError):
    """The moderator's copy holds what no interrupted command leaves; nothing was changed."""


#: what the moderator does about each kind of evidence (one line each)
_WAY_OUT = {
    Kind.LOG_NOT_SNAPSHOT: "restore log.yaml from a good copy (a backup, the published one); to go on from this "
                           "log instead, delete moderator/snapshot.json",
    Kind.ENTRIES_AFTER: "restore log.yaml from a good copy; to keep these entries, delete moderator/snapshot.json",
    Kind.UNLOGGED_ARCHIVE: "restore log.yaml from a good copy; to go on from this log instead, move that file out "
                           "of moves/",
}


def refuse_evidence(plan: RepairPlan) -> None:
    """Stop (:class:`TamperedGame`) when the plan holds evidence that the log was cut back or rewritten."""
    evidence = [f for f in plan.findings if not f.leftover]
    if evidence:
        first = evidence[0]
        more = f" (and {len(evidence) - 1} more finding(s): `pbem audit` lists them)" if len(evidence) > 1 else ""
        raise TamperedGame(f"{first.text}{more}; nothing was changed: {_WAY_OUT.get(first.kind, 'restore the game folder from a good copy')}")


def is_moderator_copy(gd: GameDir) -> bool:
    """Only the moderator's copy (it holds the seed) is ever repaired or written."""
    return gd.seed_path.is_file()


def repair(gd: GameDir, check_derived: bool = True) -> tuple[Table, list[str]]:
    """Repair the moderator's copy (the caller holds the exclusive lock); return its table and what was done.

    ``check_derived=False`` rebuilds the derived files only when the log is ahead of the
    snapshot, not when a file differs from the snapshot's record."""
    plan = plan_repair(gd)
    refuse_evidence(plan)
    notes = _remove_temp_files(gd, plan.of(Kind.TEMP_FILE))
    notes += _cut_torn_end(gd, plan)
    table = Table.load(gd, check_derived, log_text=plan.committed_text(), snapshot=plan.snapshot)
    notes += _remove_archives(gd, plan.of(Kind.STRAY_ARCHIVE))
    if table.derived_stale:
        clock = read_clock(gd.moderator_dir)
        if (gd.moderator_dir / CLOCK).is_file() and str(table.last["index"]) not in clock:
            record_time(gd.moderator_dir, table.last["index"], time.time())
        publish(table, table.log_text, careful=True)
        table.derived_stale = False
    return table, notes


def _remove_temp_files(gd: GameDir, findings: list[Finding]) -> list[str]:
    notes = []
    for finding in findings:
        with contextlib.suppress(FileNotFoundError):
            (gd.root / finding.path).unlink()
            notes.append(f"removed {finding.path}, left by an interrupted write")
    return notes


def _cut_torn_end(gd: GameDir, plan: RepairPlan) -> list[str]:
    if len(plan.log) <= plan.committed:
        return []
    with open(gd.log_path, "r+b") as fh:
        fh.truncate(plan.committed)
        fh.flush()
        os.fsync(fh.fileno())
    return [f"cut off a torn end of {LOG_NAME}: an entry that was never committed"]


def _remove_archives(gd: GameDir, findings: list[Finding]) -> list[str]:
    notes = []
    for finding in findings:
        with contextlib.suppress(FileNotFoundError):
            (gd.root / finding.path).unlink()
            notes.append(f"removed {finding.path}: its move never reached the log (it may be sent again)")
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
