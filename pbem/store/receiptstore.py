"""A player's own store of moderator-signed receipts, outside every copy of the game.

A receipt proves that the log once held an entry (:mod:`pbem.store.receipts`).  Kept only in a git
clone (``GAME_DIR/receipts/PLAYER/``) it vanishes with the log: after the moderator's
``git reset --hard HEAD~2 && git push --force`` the player's next ``git pull --rebase`` takes
both away, and the audit of the clone has nothing left to catch the rollback with.  So
`pbem receipt keep` checks each receipt against the game's moderator key and copies the good
ones into a folder of the player's own, by default ``$XDG_DATA_HOME/pbem/receipts/GAME_ID/``
(``~/.local/share/pbem/receipts/GAME_ID/``), and `pbem audit GAME_DIR` checks the log against
every receipt kept there.

A kept receipt is never overwritten or deleted: each is named by its entry and the hash of its
bytes, ``entry-000012-red-0123456789abcdef.receipt.yaml`` and ``.sig``.  The same receipt sent
again (the moderator re-issues it with a new time) is kept once; a receipt for the same entry
with another entry hash or move is kept beside the first and reported: the moderator signed two
different entries at one place of the log, which is evidence of a fork.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from pbem.base.canonical import sha256_hex
from pbem.base.errors import excerpt
from pbem.base.fsutil import public_mode, write_atomic
from pbem.store import receipts
from pbem.store.gamedir import GAME_ID_RE, PLAYER_NAME_RE
from pbem.store.receipts import Receipt, ReceiptError

SUFFIX = ".receipt.yaml"


def default_store(game_id: str) -> Path:
    """``$XDG_DATA_HOME/pbem/receipts/GAME_ID`` (``~/.local/share`` when the variable is unset or
    not an absolute path, as the XDG base directory specification says)."""
    if not GAME_ID_RE.match(game_id):
        raise ReceiptError(f"the game id {excerpt(game_id)} cannot name a folder; give the store with --to DIR")
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "pbem" / "receipts" / game_id


def kept_name(receipt: Receipt, body: bytes) -> str:
    player = f"-{receipt.player}" if PLAYER_NAME_RE.match(receipt.player) else ""
    return f"entry-{receipt.entry:06d}{player}-{sha256_hex(body)[:16]}{SUFFIX}"


_KEPT = re.compile(r"^entry-(\d+)(?:-(.+))?-[0-9a-f]{16}" + re.escape(SUFFIX) + "$")


def kept_entry(name: str) -> tuple[int, str] | None:
    """The log entry and the player ("" when the name leaves it out) of a receipt kept under
    ``name`` (:func:`kept_name`), or None for a file not named so."""
    found = _KEPT.match(name)
    return None if found is None else (int(found.group(1)), found.group(2) or "")


@dataclass
class Kept:
    """What `pbem receipt keep` did."""
    store: Path
    kept: list[str] = field(default_factory=list)        # one line per receipt copied into the store
    already: int = 0                                      # receipts the store held already
    refused: list[str] = field(default_factory=list)     # one line per file that is not a good receipt
    forks: list[str] = field(default_factory=list)       # one line per receipt that contradicts a kept one


def keep(header: Mapping[str, Any], sources: Sequence[Path], store: Path) -> Kept:
    """Check every receipt in ``sources`` (files, or folders searched for ``*.yaml`` with a
    ``.sig``) against the moderator key of the game whose header is ``header``, and copy the
    good ones into ``store``."""
    result = Kept(store)
    moderator_key = str(header.get("moderator", {}).get("key", ""))
    held = _held(store, moderator_key)
    for path in receipts.receipt_files(list(sources)):
        try:
            body, sig = receipts.read(path)
            receipt = receipts.verify(body, sig, moderator_key, str(path))
        except ReceiptError as exc:
            result.refused.append(str(exc))
            continue
        if receipt.game != header.get("id"):
            result.refused.append(f"{path} is a receipt for game {excerpt(receipt.game)}, not {header.get('id')}")
            continue
        same_place = held.setdefault(receipt.entry, [])
        if any(_same_entry(receipt, other) for other, _name in same_place):
            result.already += 1
            continue
        name = kept_name(receipt, body)
        try:
            _write(store / name, body, sig)
        except ReceiptError as exc:
            result.refused.append(str(exc))
            continue
        for other, other_name in same_place:
            result.forks.append(f"{path}: the moderator receipted entry {receipt.entry} as hash "
                                f"{receipt.entry_hash[:16]} ({receipt.player}'s move {receipt.move_sha256[:16]}), but "
                                f"the kept {other_name} says hash {other.entry_hash[:16]} ({other.player}'s move "
                                f"{other.move_sha256[:16]}): two different entries {receipt.entry} were signed, "
                                "a fork; both are kept")
        same_place.append((receipt, name))
        result.kept.append(f"entry {receipt.entry} ({receipt.player}'s move, entry hash {receipt.entry_hash[:16]}) "
                           f"-> {store / name}")
    return result


def _same_entry(a: Receipt, b: Receipt) -> bool:
    """Two receipts for one entry that say the same (they may differ in the time they were issued)."""
    return (a.entry, a.entry_hash, a.player, a.move_sha256) == (b.entry, b.entry_hash, b.player, b.move_sha256)


def _held(store: Path, moderator_key: str) -> dict[int, list[tuple[Receipt, str]]]:
    """The receipts in the store that the moderator signed, by entry."""
    held: dict[int, list[tuple[Receipt, str]]] = {}
    for path in stored_files(store):
        try:
            body, sig = receipts.read(path)
            receipt = receipts.verify(body, sig, moderator_key, str(path))
        except ReceiptError:
            continue        # not this moderator's: kept as it is, and the audit reports it
        held.setdefault(receipt.entry, []).append((receipt, path.name))
    return held


def stored_files(store: Path) -> list[Path]:
    """The receipts in a store (each with its ``.sig`` beside it)."""
    if not store.is_dir():
        return []
    return sorted(p for p in store.iterdir() if p.name.endswith(SUFFIX) and p.with_name(p.name + ".sig").is_file())


def _write(path: Path, body: bytes, sig: str) -> None:
    """The signature first, then the body: the store lists a receipt by its body, so one that a
    crash cut short is not listed, and the next `keep` writes it again (with the same bytes)."""
    if path.exists():       # the same bytes (the name is their hash), but its .sig went missing
        if path.read_bytes() != body:
            raise ReceiptError(f"{path} holds other bytes than its name says; move it away and keep again")
    sig_path = path.with_name(path.name + ".sig")
    if not sig_path.exists():
        write_atomic(sig_path, sig, mode=public_mode())
    if not path.exists():
        write_atomic(path, body, mode=public_mode())
