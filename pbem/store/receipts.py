"""Signed receipts: the moderator's signature that a move became a given log entry.

A receipt is two files, like a move: ``NAME.yaml`` (the body below) and
``NAME.yaml.sig``, an SSHSIG by the moderator's key in the namespace
``pbem-receipt``.  Anyone checks it with plain OpenSSH::

    pbem receipt allowed-signers GAME_DIR > allowed_signers
    ssh-keygen -Y verify -f allowed_signers -I moderator@GAME_ID -n pbem-receipt \\
        -s receipt.yaml.sig < receipt.yaml

or with ``pbem receipt verify``.  ``pbem audit GAME_DIR --receipt FILE`` fails
when the log does not hold the receipted entry at that index with that hash:
a log cut back to an earlier point, a fork or a rewritten entry is caught by
any player who kept a receipt (docs/proofs.md).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from pbem.base import yamlio
from pbem.base.errors import PbemError, excerpt
from pbem.base.fsutil import public_mode, write_atomic
from pbem.base.safefile import UnreadableFile, read_regular_file
from pbem.crypto import keys, sshsig

NAMESPACE = "pbem-receipt"
FORMAT = "pbem-receipt/1"
FIELDS = ("format", "game", "entry", "entry_hash", "player", "move_sha256", "time", "moderator")
MAX_BYTES = 4096


class ReceiptError(PbemError):
    """A receipt that is not genuine or does not match (one line)."""


@dataclass(frozen=True)
class Receipt:
    game: str
    entry: int
    entry_hash: str
    player: str
    move_sha256: str
    time: str            # when the moderator issued it, UTC (receipts are not logged)
    moderator: str       # the fingerprint of the key that signs it

    def body(self) -> bytes:
        return yamlio.dump({"format": FORMAT, "game": self.game, "entry": self.entry,
                            "entry_hash": self.entry_hash, "player": self.player,
                            "move_sha256": self.move_sha256, "time": self.time,
                            "moderator": self.moderator}).encode("utf-8")

    def line(self) -> str:
        return (f"receipt: {self.player}'s move {self.move_sha256[:16]} is log entry {self.entry} "
                f"(hash {self.entry_hash}) of game {self.game}, issued {self.time}")


def issue(header: Mapping[str, Any], entry: Mapping[str, Any], moderator_key: Path,
          now: dt.datetime | None = None) -> tuple[bytes, str]:
    """The body and signature of the receipt for a move entry."""
    when = (now or dt.datetime.now(dt.timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    receipt = Receipt(str(header["id"]), int(entry["index"]), str(entry["hash"]), str(entry["player"]),
                      str(entry["move"]["sha256"]), when, str(header["moderator"]["fingerprint"]))
    body = receipt.body()
    return body, sshsig.sign(keys.load_private_key(moderator_key), body, NAMESPACE)


def write(path: Path, body: bytes, signature: str) -> None:
    write_atomic(path, body, mode=public_mode())
    write_atomic(path.with_name(path.name + ".sig"), signature, mode=public_mode())


def allowed_signers_line(header: Mapping[str, Any]) -> str:
    """The line for an OpenSSH allowed_signers file that trusts this game's moderator for receipts."""
    return f'moderator@{header["id"]} namespaces="{NAMESPACE}" {header["moderator"]["key"]}'


def read(path: Path) -> tuple[bytes, str]:
    """A receipt's body and signature (``path`` and ``path.sig``), read safely."""
    try:
        body = read_regular_file(path, MAX_BYTES, "receipt")
        sig = read_regular_file(path.with_name(path.name + ".sig"), MAX_BYTES, "receipt signature")
    except UnreadableFile as exc:
        raise ReceiptError(str(exc)) from None
    return body, sig.decode("utf-8", errors="replace")


def verify(body: bytes, signature: str, moderator_key: str, what: str = "receipt") -> Receipt:
    """The receipt, if ``moderator_key`` signed exactly these bytes (signature first, then parsing)."""
    try:
        sshsig.verify(body, signature, [moderator_key], NAMESPACE)
    except sshsig.SignatureError as exc:
        raise ReceiptError(f"{what} is not signed by this game's moderator: {exc}") from None
    data = yamlio.load_strict(body, what, yamlio.Limits(max_bytes=MAX_BYTES, max_depth=2, max_nodes=40))
    if not isinstance(data, dict) or data.get("format") != FORMAT or set(data) != set(FIELDS):
        raise ReceiptError(f"{what} is not a {FORMAT} receipt")
    if not isinstance(data["entry"], int) or not all(isinstance(data[k], str) for k in FIELDS if k != "entry"):
        raise ReceiptError(f"{what} has a field of the wrong type")
    return Receipt(data["game"], data["entry"], data["entry_hash"], data["player"], data["move_sha256"],
                   data["time"], data["moderator"])


def check_against_log(receipt: Receipt, entries: Sequence[Mapping[str, Any]], what: str = "receipt") -> str:
    """"" when the log holds the receipted entry unchanged, else one line saying what is wrong."""
    if receipt.game != entries[0].get("id"):
        return f"{what} is for game {excerpt(receipt.game)}, not {entries[0].get('id')}"
    last = entries[-1].get("index", -1)
    if receipt.entry > last:
        return (f"the log was rolled back: {what}: the moderator receipted entry {receipt.entry} "
                f"({receipt.entry_hash[:16]}) but this log ends at entry {last}: it was cut back (a rollback)")
    entry = entries[receipt.entry]
    if entry.get("hash") != receipt.entry_hash or entry.get("move", {}).get("sha256") != receipt.move_sha256:
        return (f"the log was rolled back or forked: {what}: the moderator receipted entry {receipt.entry} with "
                f"hash {receipt.entry_hash[:16]} but this log's entry {receipt.entry} has hash "
                f"{str(entry.get('hash'))[:16]}: it was rewritten or forked after the receipt")
    return ""


def receipt_files(paths: Sequence[Path]) -> list[Path]:
    """The receipts named: files, or every ``*.yaml`` with a ``.sig`` beside it in a folder."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.yaml") if p.with_name(p.name + ".sig").is_file())
        else:
            found.append(path)
    return found
