"""The moderator's private mail bookkeeping, in ``GAME_DIR/moderator/``.

* ``mail-ledger.json``: every message handled, keyed by its Message-ID plus
  the SHA-256 of its bytes, with where it was found (so it is not downloaded
  again), what happened to its moves and whether the receipt went out.
  Written atomically after each step: a message is recorded as submitted
  *before* its receipt is sent, so a rerun after a crash sends the missing
  receipt instead of submitting again.  (If the crash came between
  ``submit`` and the ledger write, the rerun submits again and the log
  answers "already accepted": the receipt is then rebuilt from the log.)
* ``mail-sent.json``: for each player, the log entry whose digest they were
  last sent, so ``pbem mail run`` sends only when the log has changed.
* ``mail.lock``: one ``pbem mail`` at a time.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.base.canonical import sha256_hex
from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.store.gamedir import GameDir

LEDGER = "mail-ledger.json"
SENT = "mail-sent.json"
LOCK = "mail.lock"

IGNORED = "ignored"          # not a move: left alone, reported once
SUBMITTED = "submitted"      # moves submitted, receipt not yet sent
REPLIED = "replied"          # done


class MailBusyError(PbemError):
    pass


def message_key(message_id: str, raw: bytes) -> str:
    return f"{message_id.strip() or '<no-message-id>'} sha256:{sha256_hex(raw)}"


def read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except ValueError:
        raise PbemError(f"{path} is damaged (not JSON); restore it from a backup ({what})") from None
    if not isinstance(data, dict):
        raise PbemError(f"{path} is damaged (not a JSON object); restore it from a backup ({what})")
    return data


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_atomic(path, dumps_by_line(data), mode=0o600)


def dumps_by_line(data: dict[str, Any], lines: dict[str, str] | None = None) -> str:
    """JSON with each record of a top-level mapping on a line of its own: as readable as
    indented JSON for a ledger of hundreds of messages, and made by the C encoder (indented
    JSON is made in pure Python, which made every message cost more than the one before).

    ``lines``: the lines of records already written (:func:`record_line`, by the record's key),
    used as they are; the others are made (a ledger written after each message would otherwise
    encode every record again each time)."""
    parts = []
    for key, value in sorted(data.items()):
        if isinstance(value, dict) and value:
            inner = ",\n".join(lines[k] if lines is not None and k in lines else record_line(k, v)
                                for k, v in sorted(value.items()))
            parts.append(f"{json.dumps(key)}: {{\n{inner}\n}}")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value, sort_keys=True)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def record_line(key: str, record: Any) -> str:
    """One record's line in :func:`dumps_by_line`."""
    return f" {json.dumps(key)}: {json.dumps(record, sort_keys=True)}"


@dataclass
class Ledger:
    """The ledger; a record changes only through :meth:`put` and :meth:`add_source`, which write
    the whole ledger at once (each record's line is kept until its record changes)."""
    path: Path
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    _lines: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def load(cls, gd: GameDir) -> Ledger:
        path = gd.moderator_dir / LEDGER
        return cls(path, read_json(path, "the processed-message ledger").get("messages", {}))

    def save(self) -> None:
        for key in self.records.keys() - self._lines.keys():
            self._lines[key] = record_line(key, self.records[key])
        write_atomic(self.path, dumps_by_line({"format": "pbem-mail-ledger/1", "messages": self.records},
                                              self._lines), mode=0o600)

    def sources(self) -> set[str]:
        return {s for r in self.records.values() for s in r.get("sources", [])}

    def owed_replies(self) -> list[tuple[str, dict[str, Any]]]:
        return [(k, r) for k, r in self.records.items() if r.get("status") == SUBMITTED]

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Record and write at once (atomically)."""
        self.records[key] = record
        self._lines.pop(key, None)
        self.save()

    def add_source(self, key: str, source: str) -> None:
        sources = self.records[key].setdefault("sources", [])
        if source not in sources:
            sources.append(source)
            self._lines.pop(key, None)
            self.save()


@dataclass
class SentState:
    path: Path
    players: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, gd: GameDir) -> SentState:
        path = gd.moderator_dir / SENT
        return cls(path, read_json(path, "what was last mailed").get("players", {}))

    @classmethod
    def load_for(cls, moderator_dir: Path, player: str) -> tuple[str, str] | None:
        """The thread of ``player`` from the settings folder (None for a stranger or before any digest)."""
        if not player:
            return None
        path = moderator_dir / SENT
        return cls(path, read_json(path, "what was last mailed").get("players", {})).thread(player)

    def last_hash(self, player: str) -> str:
        return str(self.players.get(player, {}).get("hash", ""))

    def last_index(self, player: str) -> int:
        return int(self.players.get(player, {}).get("index", -1))

    def thread(self, player: str) -> tuple[str, str] | None:
        """(the first message of the player's thread, the last one sent), or None before the first."""
        record = self.players.get(player, {})
        if not record.get("message_id"):
            return None
        return str(record.get("thread") or record["message_id"]), str(record["message_id"])

    def last_at(self, player: str) -> float:
        """When the last digest went to ``player`` (the moderator's private clock; 0: never)."""
        return float(self.players.get(player, {}).get("at", 0))

    def update_from(self, player: str) -> int:
        """The first entry the player's next public update starts at: after the last entry an
        update they were sent covered (0 before their first digest: the whole copy)."""
        record = self.players.get(player, {})
        if not record.get("message_id"):
            return 0
        return int(record.get("update_to", record.get("index", -1))) + 1

    def mark(self, player: str, index: int, entry_hash: str, message_id: str, at: float = 0,
             update_to: int | None = None) -> None:
        """``update_to``: the last entry the message's public update covered (None: it had none)."""
        thread = self.thread(player)
        before = self.players.get(player, {})
        covered = update_to if update_to is not None else before.get("update_to", before.get("index", -1))
        self.players[player] = {"index": index, "hash": entry_hash, "message_id": message_id,
                                "thread": thread[0] if thread else message_id, "at": at, "update_to": covered}
        _write_json(self.path, {"format": "pbem-mail-sent/1", "players": self.players})


@dataclass(frozen=True)
class ReplySent:
    """What to record once a receipt has gone out, when it went out later than it was made (a
    host's worker makes it, the host's main process sends it, then applies this): the message's
    record in the game's ledger is REPLIED (until then a rerun sends the receipt it owes)."""
    path: Path                   # the game's mail-ledger.json
    key: str

    def load(self) -> Ledger:
        """The game's ledger as it is on disk."""
        return Ledger(self.path, read_json(self.path, "the processed-message ledger").get("messages", {}))

    def apply(self) -> None:
        self.apply_to(self.load())

    def apply_to(self, ledger: Ledger) -> None:
        """Record it in ``ledger`` (loaded from :attr:`path`, and written by nothing else since)."""
        record = ledger.records.get(self.key)
        if record is not None and record.get("status") == SUBMITTED:
            ledger.put(self.key, {**record, "status": REPLIED})


@dataclass(frozen=True)
class DigestSent:
    """What to record once a digest has gone out, when it went out later than it was made (as
    :class:`ReplySent`): :meth:`SentState.mark` for the player."""
    path: Path                   # the game's mail-sent.json
    player: str
    index: int
    entry_hash: str
    message_id: str
    at: float
    update_to: int | None

    def apply(self) -> None:
        self.apply_to(SentState(self.path, read_json(self.path, "what was last mailed").get("players", {})))

    def apply_to(self, state: SentState) -> None:
        state.mark(self.player, self.index, self.entry_hash, self.message_id, self.at, self.update_to)


Commit = ReplySent | DigestSent


@contextlib.contextmanager
def mail_lock(gd: GameDir) -> Iterator[None]:
    """Exclusive, non-blocking: a second ``pbem mail`` (say, cron overlapping) stops at once."""
    path = gd.moderator_dir / LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(path, f"another `pbem mail` is working on {gd.root} (lock {path}); "
                              "try again when it has finished"):
        yield


@contextlib.contextmanager
def exclusive_lock(path: Path, busy: str) -> Iterator[None]:
    """An exclusive, non-blocking lock on the file ``path``: :class:`MailBusyError` saying ``busy``
    when another process holds it."""
    with open(path, "a+b") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise MailBusyError(busy) from None
            raise
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
