"""What ``pbem git sync`` knows of the moderator's files from earlier syncs: their blobs, and whether
they were found free of the seed.

Each sync publishes the game folder as it is on disk (:class:`~pbem.transport.git.tree.TreeMaker`);
reading and hashing every file every time grows with the game.  This cache
(``moderator/git-hashes.kept``, private: ``moderator/`` is never published) remembers, for each
path, the file's stat data when it was read (device, inode, size, mtime and ctime in nanoseconds),
its blob, and whether its bytes hold the seed.  An entry is trusted only when

* the file's stat data are exactly the remembered ones (ctime cannot be set by a program: any
  change of the file since gives another one), and the entry is not *racy*: the file was last
  changed before the sync began to read the game folder (its mtime and ctime before the stamp file
  ``moderator/git-hashes.stamp``, touched on the same file system first: git's racy-git rule); an
  entry that could have been written in the same clock tick as a later change is never kept.
  When the sync finds files changed in the stamp's own tick (the moderator's outputs, written just
  before), it waits for the file system's clock to move on (a few milliseconds), touches the stamp
  again and looks at those files anew: what it then reads can be kept, and the next sync does not
  hash them again;
* its blob is the one the shared tree has for that path (so the object is in the repository, and
  a stale or forged entry can at worst say what is already published);
* for "free of the seed": the seed is the one it was checked against (its SHA-256 is kept).

Anything else is read (and hashed) again, as without the cache.  The file holds a digest of its
body and is written whole (:mod:`~pbem.transport.git.kept`); a damaged, foreign (another game folder) or
missing cache is ignored: deleting it changes nothing but time.
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from pbem.transport.git.kept import read_kept, write_kept

HASH_CACHE_NAME = "git-hashes.kept"
STAMP_NAME = "git-hashes.stamp"
CACHE_VERSION = 1
#: a cache bigger than this is not read
MAX_CACHE_BYTES = 64 << 20
#: how long a sync waits at most for the file system's clock to pass the stamp's tick
OUTLAST_SECONDS = 0.05
#: a file on disk as a sync read it: (device, inode, size, mtime_ns, ctime_ns)
StatKey = tuple[int, int, int, int, int]


@dataclass
class _Entry:
    key: StatKey
    oid: str
    clean: bool          # the bytes do not hold the seed ``HashCache.seed`` names


def _seed_id(seed: bytes | None) -> str:
    return hashlib.sha256(seed).hexdigest() if seed else ""


@dataclass
class HashCache:
    path: Path
    game: str                                   # the game folder, repository-relative
    seed: str = ""                              # SHA-256 of the seed the clean flags were checked against
    entries: dict[str, _Entry] = field(default_factory=dict)
    stamp: int | None = None                    # mtime_ns of the stamp file: files changed since are racy
    _checked: dict[str, tuple[StatKey, bool]] = field(default_factory=dict)
    _changed: bool = False

    @classmethod
    def load(cls, path: Path, game: str) -> HashCache:
        """The cache at ``path`` (an empty one if it is missing, damaged or another game's)."""
        cache = cls(path, game)
        body = read_kept(path, MAX_CACHE_BYTES)
        try:
            if body["version"] != CACHE_VERSION or body["game"] != game:
                return cache
            entries = {}
            for name, (dev, ino, size, mtime, ctime, oid, clean) in body["files"].items():
                key = (int(dev), int(ino), int(size), int(mtime), int(ctime))
                entries[str(name)] = _Entry(key, str(oid), clean is True)
            cache.entries, cache.seed = entries, str(body["seed"])
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        return cache

    def begin(self, seed: bytes | None, present: set[str]) -> None:
        """Before reading the game folder's files: forget the files no longer there (``present``: the
        paths found), and the clean flags if the seed is not the one they were checked against;
        touch the stamp."""
        gone = [p for p in self.entries if p not in present]
        for path in gone:
            del self.entries[path]
        self._changed = self._changed or bool(gone)
        seed_id = _seed_id(seed)
        if seed_id != self.seed:
            for entry in self.entries.values():
                entry.clean = False
            self.seed, self._changed = seed_id, True
        stamp = self.path.with_name(STAMP_NAME)
        try:
            with open(stamp, "ab"):
                pass
            os.utime(stamp)
            self.stamp = stamp.stat().st_mtime_ns
        except OSError:
            self.stamp = None              # nothing learnt in this sync is kept

    def racy(self, key: StatKey) -> bool:
        """Whether the file could still change without its stat data showing it (changed in or after
        the stamp's clock tick)."""
        return self.stamp is None or key[3] >= self.stamp or key[4] >= self.stamp

    def outlast_stamp(self) -> bool:
        """Wait until the file system's clock has left the stamp's tick and touch the stamp again
        (False: it did not move within OUTLAST_SECONDS, or the stamp cannot be touched).  A file
        stat'ed after this and changed before the old stamp's tick ended is no longer racy."""
        if self.stamp is None:
            return False
        stamp = self.path.with_name(STAMP_NAME)
        deadline = time.monotonic() + OUTLAST_SECONDS
        try:
            while True:
                os.utime(stamp)
                now = stamp.stat().st_mtime_ns
                if now > self.stamp:
                    self.stamp = now
                    return True
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.0005)
        except OSError:
            self.stamp = None
            return False

    def blob(self, path: str, key: StatKey, published: str | None) -> str | None:
        """The file's blob, if an earlier sync hashed it as it is now and it is the published one."""
        entry = self.entries.get(path)
        if entry is None or entry.key != key or published is None or entry.oid != published:
            return None
        return entry.oid

    def clean(self, path: str, key: StatKey) -> bool:
        """Whether the file, as it is now, was found free of the seed."""
        entry = self.entries.get(path)
        if entry is not None and entry.key == key:
            return entry.clean
        checked = self._checked.get(path)
        return checked is not None and checked == (key, True)

    def checked(self, path: str, key: StatKey, clean: bool) -> None:
        """The file was read: it does (not) hold the seed."""
        if self.racy(key):
            return
        entry = self.entries.get(path)
        if entry is not None and entry.key == key:
            if entry.clean != clean:
                entry.clean, self._changed = clean, True
        else:
            self._checked[path] = (key, clean)

    def hashed(self, path: str, key: StatKey, oid: str) -> None:
        """The file was hashed into ``oid``."""
        if self.racy(key):
            if self.entries.pop(path, None) is not None:
                self._changed = True
            return
        checked = self._checked.pop(path, None)
        clean = checked is not None and checked == (key, True)
        old = self.entries.get(path)
        if old is None or old != _Entry(key, oid, clean):
            self.entries[path] = _Entry(key, oid, clean)
            self._changed = True

    def save(self) -> None:
        """Write the cache if it learnt something (whole or not at all; a failure only costs time)."""
        if not self._changed:
            return
        body = {"version": CACHE_VERSION, "game": self.game, "seed": self.seed,
                "files": {p: [*e.key, e.oid, e.clean] for p, e in sorted(self.entries.items())}}
        if write_kept(self.path, body):
            self._changed = False
