"""A host's private bookkeeping, in ``FOLDER/.pbem-host/`` (mode 0700):

* ``mail-ledger.json``: every message the host took from its mailbox, keyed as a game's
  ledger keys it, with the game it went to (or why it went to none).  A message is recorded
  here only *after* its game handled it (the game's own ledger records it first), so a crash
  in between brings the message back and the game's ledger answers "already handled".
* ``games.json``: per game folder, its game id (read from the log's header once), the log's
  stamp (size, modification time, inode) when its digests were last sent, and when a daily
  digest held back falls due.  A game whose log kept its stamp and that got no mail costs one
  ``stat`` per cycle: no log is read.
* ``host.lock``: one host cycle at a time.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pbem.base.errors import PbemError, one_line
from pbem.base.fsutil import write_atomic
from pbem.store.gamedir import GAME_ID_RE
from pbem.store.log import LOG_NAME, parse_entries
from pbem.transport.mail.ledger import Ledger, dumps_by_line, exclusive_lock, read_json

STATE_DIR = ".pbem-host"
GAMES = "games.json"
HOST_LEDGER = "mail-ledger.json"
HOST_LOCK = "host.lock"
#: the most of a log read to find its header (entry 0); a header is a few KiB
HEADER_LIMIT = 8 * 1024 * 1024
_NEXT_ENTRY = b"\n--- # entry 1\n"

Stamp = list[int]          # [size, mtime_ns, inode] of a game's log


def state_dir(folder: Path) -> Path:
    path = folder / STATE_DIR
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def host_ledger(folder: Path) -> Ledger:
    path = state_dir(folder) / HOST_LEDGER
    return Ledger(path, read_json(path, "the host's processed-message ledger").get("messages", {}))


@contextlib.contextmanager
def host_lock(folder: Path) -> Iterator[None]:
    """One host cycle at a time: a second one (cron overlapping) stops at once."""
    path = state_dir(folder) / HOST_LOCK
    with exclusive_lock(path, f"another host cycle is working on {folder} (lock {path}); try again when it has finished"):
        yield


def game_folders(folder: Path) -> dict[str, Stamp]:
    """Every game folder directly under ``folder`` (a folder holding a log), with its log's stamp."""
    found: dict[str, Stamp] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                continue
            try:
                st = os.stat(os.path.join(entry.path, LOG_NAME))
            except OSError:
                continue
            found[entry.name] = [st.st_size, st.st_mtime_ns, st.st_ino]
    return found


def header_id(log_path: Path) -> str:
    """The game id in a log's header, reading only as far as the header goes."""
    with open(log_path, "rb") as fh:
        data = b""
        while len(data) < HEADER_LIMIT:
            block = fh.read(64 * 1024)
            if not block:
                break
            data += block
            cut = data.find(_NEXT_ENTRY)
            if cut >= 0:
                data = data[: cut + 1]
                break
    entries = parse_entries(data.decode("utf-8"), str(log_path))
    game_id = entries[0].get("id") if entries else None
    if not isinstance(game_id, str) or not GAME_ID_RE.match(game_id):
        raise PbemError(f"{log_path}: the header has no game id")
    return game_id


@dataclass
class GameRecord:
    id: str = ""                  # "" while the header cannot be read
    inode: int = -1               # the log file whose header gave the id
    sent: Stamp | None = None     # the log's stamp when the digests were last sent
    due: float = 0.0              # a daily digest held back falls due then (0: none)
    broken: str = ""              # why the game cannot be run (reported when it first happens)
    ticked: Stamp | None = None   # the log's stamp after its deadlines were last applied
    tick_at: float = 0.0          # the next reminder or deadline falls then (0: none)


@dataclass
class GameIndex:
    path: Path
    games: dict[str, GameRecord] = field(default_factory=dict)
    changed: bool = False
    clashing: set[str] = field(default_factory=set)   # folders holding the same game as another one

    @classmethod
    def load(cls, folder: Path) -> GameIndex:
        path = state_dir(folder) / GAMES
        raw = read_json(path, "the host's index of games").get("games", {})
        games = {}
        for name, rec in raw.items():
            if isinstance(rec, dict):
                try:
                    games[str(name)] = GameRecord(**rec)
                except TypeError:
                    continue          # a record of another version: read the game again
        return cls(path, games)

    def save(self) -> None:
        if self.changed:
            payload = {"format": "pbem-host-games/1",
                       "games": {name: rec.__dict__ for name, rec in sorted(self.games.items())}}
            write_atomic(self.path, dumps_by_line(payload), mode=0o600)
            self.changed = False

    def refresh(self, folder: Path, found: dict[str, Stamp]) -> list[str]:
        """Bring the index up to the folders there are; the lines to report (games that broke)."""
        lines = []
        for name in [n for n in self.games if n not in found]:
            del self.games[name]
            self.changed = True
        for name, stamp in found.items():
            rec = self.games.get(name)
            if rec is not None and rec.inode == stamp[2] and (rec.id or rec.sent == stamp):
                continue              # the same log file: its header (and id) has not changed
            if rec is None:
                rec = self.games[name] = GameRecord()
            self.changed = True
            try:
                rec.id, rec.inode, rec.broken = header_id(folder / name / LOG_NAME), stamp[2], ""
            except (PbemError, OSError, UnicodeDecodeError) as exc:
                reason = one_line(str(exc))
                rec.id, rec.inode, rec.sent = "", stamp[2], stamp
                if rec.broken != reason:
                    lines.append(f"{name}: broken, left alone until its log is repaired: {reason}")
                rec.broken = reason
        return lines + self._clashes()

    def _clashes(self) -> list[str]:
        """Folders holding the same game (a copy kept beside it, say): every one of them is left alone,
        said once, until one is left: a copy would be ticked and mailed as if it were the game."""
        by_id: dict[str, list[str]] = {}
        for name, rec in sorted(self.games.items()):
            if rec.id:
                by_id.setdefault(rec.id, []).append(name)
        self.clashing = {name for names in by_id.values() if len(names) > 1 for name in names}
        lines = []
        for game_id, names in by_id.items():
            if len(names) > 1:
                reason = (f"game {game_id} is in {len(names)} folders ({', '.join(names)}); all are left alone "
                          "until one is left in the host's folder (move copies elsewhere)")
                if any([self.mark_broken(name, reason) for name in names]):     # every one marked
                    lines.append(f"{', '.join(names)}: {reason}")
        return lines

    def clashing_ids(self) -> set[str]:
        return {self.games[name].id for name in self.clashing}

    def folders_of(self) -> dict[str, str]:
        """game id -> folder name, for the games the host runs."""
        return {rec.id: name for name, rec in sorted(self.games.items()) if rec.id and name not in self.clashing}

    def needs_visit(self, name: str, stamp: Stamp, now: float, ticks: bool) -> bool:
        """Whether the game has anything to do without mail: its log moved since its digests went
        out (or its deadlines were applied), or a held-back digest, a reminder or a deadline is due."""
        rec = self.games[name]
        if not rec.id or name in self.clashing:
            return False
        if rec.sent != stamp or (rec.due > 0 and now >= rec.due):
            return True
        return ticks and (rec.ticked != stamp or (rec.tick_at > 0 and now >= rec.tick_at))

    def needs_tick(self, name: str, stamp: Stamp, now: float) -> bool:
        rec = self.games[name]
        return rec.ticked != stamp or (rec.tick_at > 0 and now >= rec.tick_at)

    def mark_ticked(self, name: str, stamp: Stamp, tick_at: float) -> None:
        rec = self.games[name]
        if rec.ticked != stamp or rec.tick_at != tick_at:
            rec.ticked, rec.tick_at = stamp, tick_at
            self.changed = True

    def mark_sent(self, name: str, stamp: Stamp, due: float) -> None:
        rec = self.games[name]
        if rec.sent != stamp or rec.due != due or rec.broken:
            rec.sent, rec.due, rec.broken = stamp, due, ""
            self.changed = True

    def mark_broken(self, name: str, reason: str) -> bool:
        """Remember why a game failed; True when that is news (to be reported)."""
        rec = self.games[name]
        if rec.broken == reason:
            return False
        rec.broken = reason
        self.changed = True
        return True

