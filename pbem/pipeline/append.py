"""Appending one entry to a game: the only way the log grows, with the log write as its one commit point.

The order of writes (docs/moderating.md, "When things go wrong"):

1. *Before the commit*: the archived move file and its signature in ``moves/``.
   If the command stops here, the move is not in the log: the next command
   removes the stray archive (:mod:`pbem.pipeline.repair`) and the player may send the
   same move again.
2. *The commit*: the entry's text appended to ``log.yaml`` in one write and flushed
   to disk (fsync).  Once the flush returns the entry is part of the game; if the
   write fails, the log is cut back to its old length.
3. *After the commit*, everything derived from the log: public digests, each
   player's encrypted secrets, the moderator's cache of sealed plaintexts, the
   clock, and last the snapshot.  The snapshot names the exact log it was made
   from (its length and hash), so when a command stops in this step the next
   command sees a snapshot that does not match the log and rebuilds every derived
   file from the log.  The derived files are replaced atomically but not flushed
   one by one (they are not the commit): the snapshot, flushed last, records each
   one's size and modification time, so a file a power cut lost or left stale is noticed and
   rebuilt (:meth:`pbem.store.table.Table.load`).  A power cut in the middle of the
   append leaves at most a torn end after the length the snapshot names, which the
   next command cuts off (:mod:`pbem.pipeline.repair`): that entry was never committed.

Nothing visible to players changes before the commit, and nothing after it
holds information the log does not determine.
"""
from __future__ import annotations

import errno
import json
import time
from typing import Any, Mapping

from pbem.base import fsutil
from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.store.entryclock import CLOCK, record_time
from pbem.store.log import render_entry, seal
from pbem.store.table import SEALED, Table, sealed_store
from pbem.views.outputs import write_outputs


def add_outcome(table: Table, entry: dict[str, Any]) -> dict[str, Any]:
    """Add the decisions now pending and the keyed state hash."""
    entry["pending"] = [{"player": d.player, "kind": d.kind} for d in table.game.pending(table.state)]
    entry["state"] = table.current_state_hash()
    return entry


def finish_entry(table: Table, entry: dict[str, Any]) -> dict[str, Any]:
    """Add the outcome and seal the entry (a player's move: signed by its own file)."""
    return seal(add_outcome(table, entry))


def append_entry(table: Table, entry: dict[str, Any], archive: Mapping[str, bytes | str] | None = None) -> None:
    """Write ``archive`` (public files the entry refers to), commit ``entry`` to the log, then publish."""
    commit_entry(table, entry, archive)
    try:
        publish(table, table.log_text, now=time.time())
    except OSError as exc:
        raise PublishError(entry["index"], exc) from exc


def commit_entry(table: Table, entry: dict[str, Any], archive: Mapping[str, bytes | str] | None = None) -> None:
    """Write ``archive``, then commit ``entry`` to the log (the commit point) and to ``table``.
    The derived files lag the log until :func:`publish` (the next command would rewrite them)."""
    gd = table.gd
    text = render_entry(entry)
    mode = fsutil.public_mode() if archive else 0       # the umask read once for the entry's files
    for rel, data in (archive or {}).items():
        write_atomic(gd.root / rel, data, mode=mode)
    fsutil.append_durable(gd.log_path, text)                                # the commit point
    fsutil.fault_point("committed")
    table.log_text += text
    table.add_entry(entry)
    table.remember_board()


class PublishError(PbemError):
    """The entry is in the log (committed), but a file derived from it could not be written.

    The next command rewrites the derived files (:mod:`pbem.pipeline.repair`), so nothing is lost; the
    message says so, rather than the usual "nothing was committed" of a failed write."""

    def __init__(self, index: int, cause: OSError) -> None:
        self.index = index
        where = f" {cause.filename}" if cause.filename else ""
        why = ("no space left on the device" if cause.errno in (errno.ENOSPC, errno.EDQUOT)
               else cause.strerror or cause.__class__.__name__)
        super().__init__(f"log entry {index} is committed, but writing{where} failed: {why}; the digests and "
                         "secrets lag the log until the next pbem command on this game rewrites them (free some "
                         "space first)")


def publish(table: Table, log_text: str, now: float | None = None, careful: bool = False) -> None:
    """Write every file derived from the log, the snapshot last.

    ``careful`` (a repair) leaves files alone whose content is already right, so
    that a repair on an intact game changes nothing on disk (the encrypted
    secrets are compared by their plaintext: age output differs every time).
    """
    gd = table.gd
    derived = write_outputs(table, careful=careful)
    store = sealed_store(gd, table.entries if careful else table.tail)   # the older ones are in the store
    if store:
        fsutil.write_if_changed(gd.moderator_dir / SEALED, json.dumps(store, sort_keys=True, indent=1), mode=0o600,
                                durable=False)
        derived.append(gd.moderator_dir / SEALED)
    if now is not None:
        record_time(gd.moderator_dir, table.last["index"], now)
    if (gd.moderator_dir / CLOCK).is_file():
        derived.append(gd.moderator_dir / CLOCK)
    table.save_snapshot(log_text, derived)
