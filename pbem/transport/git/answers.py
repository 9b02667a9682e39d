"""The answer to every incoming item: the checks that refuse it before anything is read, the
submit, and its receipt ``receipts/OWNER/NAME.txt`` in the game folder.

A receipt records the git object ids of the files it answers (``git blobs: ...``).
That makes the receipts on the moderator's disk the record of what was processed:
an item whose receipt exists for the same blobs has been answered, whether or not
the commit that removes it from ``incoming/`` was ever made or pushed (a sync
killed in between), and whether it waits on the shared branch or in a pull
request (which the moderator never changes).  The same file name pushed again with
other bytes is a new item.
"""
from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from pbem.base.crashreport import refusal_for_crash
from pbem.base.errors import PbemError, one_line
from pbem.base.fsutil import public_mode, write_atomic
from pbem.base.safefile import UnreadableFile, read_regular_file
from pbem.core.engine import Rejected
from pbem.store.gamedir import GameDir
from pbem.store.movefile import MAX_BYTES, MAX_SIGNATURE_BYTES
from pbem.transport.git.incoming import IncomingItem, shown_path

RECEIPTS = "receipts"
BLOBS = "git blobs: "
MAX_RECEIPT_BYTES = 64 * 1024


def receipt_rel(item: IncomingItem) -> str:
    """The receipt's path in the game folder."""
    return receipt_of(item.owner, item.name)


def receipt_of(owner: str, name: str) -> str:
    """The path in the game folder of the receipt for ``owner``'s move ``incoming/OWNER/NAME.yaml``."""
    return f"{RECEIPTS}/{owner}/{name}.txt"


def recorded_blobs(text: str) -> list[str] | None:
    """The object ids a receipt answers, or None (a receipt from before they were recorded)."""
    for line in text.splitlines():
        if line.startswith(BLOBS):
            return line[len(BLOBS):].split()
    return None


def is_answered(gd: GameDir, item: IncomingItem) -> bool:
    """True when the moderator's receipt for this item records exactly its files."""
    path = gd.root / receipt_rel(item)
    try:
        raw = read_regular_file(path, MAX_RECEIPT_BYTES, "receipt", follow_symlinks=False)
    except (UnreadableFile, OSError):
        return False
    return recorded_blobs(raw.decode("utf-8", errors="replace")) == item.blobs


def _where(item: IncomingItem) -> str:
    if item.source.number:
        return f"(in {item.source.label}, which the moderator leaves as it is)"
    return ""


def accepted_text(receipt: Any, item: IncomingItem) -> str:
    """An accepted move's receipt (``receipt``: pbem.pipeline.submit.Receipt)."""
    lines = list(receipt.lines())
    where = _where(item) or "(archived in moves/)"
    lines += [f"file: incoming/{item.shown} {where}",
              f"move sha256: {receipt.move_sha256}",
              f"log entry: {receipt.index}",
              f"entry hash: {receipt.entry_hash}",
              BLOBS + " ".join(item.blobs)]
    return "\n".join(lines) + "\n"


def rejected_text(reason: str, item: IncomingItem) -> str:
    where = _where(item) or "(removed; it stays in the git history)"
    return f"rejected: {reason}\nfile: incoming/{item.shown} {where}\n{BLOBS}{' '.join(item.blobs)}\n"


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    """Linux's syncfs(2), which flushes one file system (None where there is none)."""
    try:
        import ctypes
        return cast(Callable[[int], int], ctypes.CDLL(None, use_errno=True).syncfs)
    except (OSError, AttributeError):
        return None


def flush(gd: GameDir) -> None:
    """Flush the receipts written since the last push to disk before the push publishes them
    (the file system of the game folder only, where the system allows)."""
    syncfs = _syncfs()
    if syncfs is None:
        os.sync()
        return
    fd = os.open(gd.root, os.O_RDONLY)
    try:
        syncfs(fd)
    finally:
        os.close(fd)


def write_receipt(gd: GameDir, item: IncomingItem, text: str) -> Path:
    """Write the receipt.  Not flushed one by one (a sync answers hundreds of junk files): a receipt
    lost in a power cut only makes the next sync answer its item again; the sync flushes the
    file system before it publishes anything."""
    path = gd.root / receipt_rel(item)
    write_atomic(path, text, mode=public_mode(), durable=False)
    return path


# --- answering one item -------------------------------------------------------------------

def layout_refusal(item: IncomingItem, players: list[str], sizes: dict[str, tuple[str, int]]) -> str:
    """Why the item is refused before anything in it is read ('' if it is not)."""
    if item.problem:
        return item.problem
    if item.owner not in players:
        return (f"there is no player {item.owner!r} in this game (players: {', '.join(players)}); "
                "put moves in incoming/YOUR_NAME/")
    if item.move is None:
        return (f"{item.name}.yaml.sig has no move file {item.name}.yaml beside it; "
                "add both files in one commit")
    if item.sig is None:
        return (f"no signature file {item.name}.yaml.sig; sign the move with "
                f"`ssh-keygen -Y sign -n pbem-move -f KEY {item.name}.yaml` and add both files")
    for entry, limit, what in ((item.move, MAX_BYTES, "move file"), (item.sig, MAX_SIGNATURE_BYTES, "signature")):
        size = sizes.get(entry.oid, ("missing", 0))[1]
        if size > limit:
            return f"the {what} incoming/{shown_path(entry.path)} is {size} bytes; the limit is {limit}"
    return ""


def submit_move(gd: GameDir, raw: bytes, signature: str, owner: str,
                 entries: list[dict[str, Any]], label: str = "") -> tuple[Any, str]:
    """Submit one pushed move: (its receipt, "") or (None, the one-line reason it was refused).
    ``label``: where it was pushed (``incoming/red/x.yaml``), named by a ``return`` entry it causes.

    Never raises for anything in the files: a hostile or broken file is refused, and the
    items behind it are still processed (quarantine, docs/git.md)."""
    from pbem.pipeline.append import PublishError
    from pbem.pipeline.submit import committed_receipt, identify_signer, receipt_from_log, submit
    try:
        owners, _key, _signed = identify_signer(entries, raw, signature)     # whose key: the header and key changes
        if owner not in owners:
            raise Rejected(f"the move is signed with {' and '.join(owners)}'s key but it was put in "
                           f"incoming/{owner}/; each player adds moves only to their own folder")
        return submit(gd, raw, signature, label), ""
    except PublishError as exc:   # the move is in the log; the next command rewrites the digests
        return receipt_from_log(gd, exc.index), ""
    except PbemError as exc:
        return None, one_line(str(exc))
    except Exception as exc:  # noqa: BLE001 - quarantine: a bug must not block the moves behind this one
        committed = committed_receipt(gd, raw)
        if committed is not None:   # it failed after the commit: the move is in; the next command repairs the rest
            return committed, ""
        if isinstance(exc, OSError):
            raise                   # a full disk is no fault of the file: stop; the next sync takes it again
        return None, refusal_for_crash(gd.moderator_dir, exc, "incoming move", raw)


def answers_entry(gd: GameDir, owner: str, index: int) -> bool:
    """True when one of the owner's receipts already answers log entry ``index``."""
    line = f"\nlog entry: {index}\n"
    for path in (gd.root / RECEIPTS / owner).glob("*.txt"):
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink() and line in path.read_text(encoding="utf-8", errors="replace"):
                return True
    return False
