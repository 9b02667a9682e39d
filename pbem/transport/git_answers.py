"""The answer to every incoming item: ``receipts/OWNER/NAME.txt`` in the game folder.

A receipt records the git object ids of the files it answers (``git blobs: ...``).
That makes the receipts on the moderator's disk the record of what was processed:
an item whose receipt exists for the same blobs has been answered, whether or not
the commit that removes it from ``incoming/`` was ever made or pushed (a sync
killed in between), and whether it waits on the shared branch or in a pull
request (which the moderator never changes).  The same file name pushed again with
other bytes is a new item.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.fsutil import public_mode, write_atomic
from pbem.gamedir import GameDir
from pbem.safefile import UnreadableFile, read_regular_file
from pbem.transport.git_incoming import IncomingItem

RECEIPTS = "receipts"
BLOBS = "git blobs: "
MAX_RECEIPT_BYTES = 64 * 1024


def receipt_rel(item: IncomingItem) -> str:
    """The receipt's path in the game folder."""
    return f"{RECEIPTS}/{item.owner}/{item.name}.txt"


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
    """An accepted move's receipt (``receipt``: pbem.submit.Receipt)."""
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


def write_receipt(gd: GameDir, item: IncomingItem, text: str) -> Path:
    """Write the receipt.  Not flushed one by one (a sync answers hundreds of junk files): a receipt
    lost in a power cut only makes the next sync answer its item again; the sync flushes the
    file system before it publishes anything."""
    path = gd.root / receipt_rel(item)
    write_atomic(path, text, mode=public_mode(), durable=False)
    return path
