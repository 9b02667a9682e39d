"""The moderator's commits, built from the moderator's files with plumbing.

The game folder that ``pbem git sync`` publishes is the moderator's folder on
disk: :class:`TreeMaker` hashes those files into blobs (``hash-object
--no-filters``: byte for byte, whatever any ``.gitattributes`` says) and builds
each commit's tree in a private index (``GAME/moderator/sync.index.PID``), never the
clone's own index or work tree:

* outside the game folder, the *base* tree: the moderator's last commit (a shared
  branch that players push to) or the shared branch itself (pull requests, where
  only the moderator writes the branch);
* the game folder (but ``moderator/`` and ``incoming/``'s sub-folders): the files on
  disk, regular files only, without pbem's temporary files, ``.git`` folders and
  files a ``.gitignore`` excludes (unless they are already published);
* the game's ``incoming/PLAYER/`` files: the items still waiting (``carried``);
* other games' folders in the same repository: as the shared branch has them (their
  own moderator publishes them), without any path that would stop a checkout.

After a sync, :func:`reset_index` points the clone's index at the new commit
without touching the work tree, marking the players' files that exist only in
git as skip-worktree, so ``git status`` in the moderator's clone stays clean.
"""
from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pbem.base.errors import PbemError
from pbem.base.fsutil import TEMP_NAME
from pbem.store.gamedir import GameDir
from pbem.store.log import LOG_NAME
from pbem.transport.git.hashcache import HASH_CACHE_NAME, HashCache, StatKey
from pbem.transport.git.incoming import INCOMING, path_problem
from pbem.transport.git.listing import LISTING_NAME, keep_listing, kind_of, listing_of, read_listing
from pbem.transport.git.repo import GitError, Repo, TreeEntry

INDEX_NAME = "sync.index"
ZERO = "0" * 40
#: a path in a tree (bytes, from the repository's root) -> (mode, object id)
Files = dict[bytes, tuple[str, str]]
#: how file names are turned into bytes and back (what os.fsencode and os.fsdecode do, without their
#: per-call look-ups: a sync converts every path of the game folder)
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


class PublishRefused(PbemError):
    """The moderator's files cannot be published as they are (one line)."""


def _join(prefix: bytes, rel: bytes) -> bytes:
    return prefix + b"/" + rel if prefix else rel


def under(path: bytes, folder: bytes) -> bool:
    """True when ``path`` is ``folder`` or inside it (everything is inside the root, b'')."""
    return not folder or path == folder or path.startswith(folder + b"/")


def is_waiting_item(path: bytes, game: bytes) -> bool:
    """A player's file below GAME/incoming/ (not the moderator's README directly in it)."""
    inside = _join(game, INCOMING.encode()) + b"/"
    return path.startswith(inside) and b"/" in path[len(inside):]


def _stat_key(path: Path) -> StatKey:
    try:
        info = path.stat()
    except OSError:
        return (0, 0, -1, 0, 0)
    return _info_key(info)


def _info_key(info: os.stat_result) -> StatKey:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _on_disk(path: Path) -> bool:
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def _is_git_name(name: str) -> bool:
    """A name that file systems may treat as ``.git`` (any case, trailing dots or spaces)."""
    return name.casefold().rstrip(". ") == ".git"


def regular_files(root: Path) -> list[tuple[str, os.stat_result]]:
    """The regular files of the game folder ``root`` that may be published, with their ``lstat`` data:
    paths relative to it with ``/``, each folder's files (by name) before its sub-folders (by name),
    as ``os.walk`` lists them; no ``.git`` folder or file, nothing in ``moderator/`` or in
    ``incoming/``'s sub-folders, no pbem temporary file, no name with a line break, and no link
    followed.  A folder that cannot be listed is left out, as ``os.walk`` leaves it.  One ``lstat``
    a file (``os.scandir``'s), none for the folders it did not need."""
    found: list[tuple[str, os.stat_result]] = []

    def visit(folder: str, rel_dir: str) -> None:
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            return
        folders: list[os.DirEntry[str]] = []
        files: list[os.DirEntry[str]] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (folders if is_dir else files).append(entry)
        for entry in sorted(files, key=lambda e: e.name):
            name = entry.name
            if TEMP_NAME.match(name) or "\n" in name or _is_git_name(name):
                continue
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode):
                found.append((f"{rel_dir}/{name}" if rel_dir else name, info))
        if rel_dir == INCOMING:
            return
        for entry in sorted(folders, key=lambda e: e.name):
            name = entry.name
            if _is_git_name(name) or (not rel_dir and name == "moderator") or entry.is_symlink():
                continue
            visit(entry.path, f"{rel_dir}/{name}" if rel_dir else name)

    visit(str(root), "")
    return found


def _record(mode: str, oid: str, path: bytes) -> bytes:
    return f"{mode} {oid}\t".encode() + path + b"\0"


@dataclass
class TreeMaker:
    """Builds the moderator's trees for one sync (it remembers what it hashed and listed)."""

    repo: Repo
    gd: GameDir
    prefix: str                                   # the game folder, repository-relative ('' at the root)
    _hashed: dict[str, tuple[StatKey, str]] = field(default_factory=dict)
    _ignored: dict[str, bool] = field(default_factory=dict)
    _listings: dict[str, list[TreeEntry]] = field(default_factory=dict)
    #: the tree and files of the listing an earlier sync kept (:mod:`~pbem.transport.git.listing`), once read
    _kept: tuple[str, list[TreeEntry]] | None = None
    _kept_read: bool = False
    _games: dict[str, list[bytes]] = field(default_factory=dict)
    #: the tree the private index holds, with the index file's stat data when it was written
    _index_holds: tuple[str, StatKey] | None = None
    _hash_cache: HashCache | None = None

    @property
    def game(self) -> bytes:
        return self.prefix.encode()

    def index_path(self) -> Path:
        """This process's private index: a git command that outlives a killed sync (one it started
        just before it was killed) can never write into the index of the next sync."""
        return self.gd.moderator_dir / f"{INDEX_NAME}.{os.getpid()}"

    def remove_old_indexes(self) -> None:
        """Remove the private indexes (and their locks) that killed syncs left behind."""
        mine = self.index_path().name
        for path in self.gd.moderator_dir.glob(f"{INDEX_NAME}*"):
            if not path.name.startswith(mine):
                path.unlink(missing_ok=True)

    # --- trees as lists ------------------------------------------------------------------
    def listing(self, tree: str) -> list[TreeEntry]:
        """Every file of a tree (paths from the root); remembered, as the sync builds on its own trees
        (the moderator's last tree: as the last sync kept it, if it did)."""
        if tree not in self._listings:
            kept = self._kept_listing(tree)
            self._listings[tree] = kept if kept is not None else self.repo.ls_tree(tree)
        return self._listings[tree]

    def _kept_tree(self) -> str | None:
        """The tree whose files an earlier sync kept (read once)."""
        if not self._kept_read:
            self._kept_read = True
            self._kept = read_listing(self.gd.moderator_dir / LISTING_NAME)
        return self._kept[0] if self._kept is not None else None

    def _kept_listing(self, tree: str) -> list[TreeEntry] | None:
        """The files of ``tree`` as an earlier sync kept them, if it kept that tree's (and they are it)."""
        if self._kept_tree() != tree or self._kept is None:
            return None
        listed = listing_of(tree, self._kept[1])
        if listed is None:                      # not that tree's files: kept anew at the end
            self._kept = None
        return listed

    def keep_listing(self, tree: str | None) -> None:
        """Keep the files of ``tree`` (the moderator's last tree) for the next sync, if they are known
        and not kept already."""
        if tree is None or tree not in self._listings or self._kept_tree() == tree:
            return
        keep_listing(self.gd.moderator_dir / LISTING_NAME, tree, self._listings[tree])
        self._kept = (tree, self._listings[tree])

    def other_games(self, tree: str) -> list[bytes]:
        """The other game folders in a tree: folders holding a log.yaml, outside this game's folder
        (remembered: a sync asks about the same trees several times)."""
        if tree in self._games:
            return list(self._games[tree])
        name = LOG_NAME.encode()
        found = []
        for entry in self.listing(tree):
            if entry.path == name or entry.path.endswith(b"/" + name):
                folder = entry.path[: -len(name) - 1] if entry.path != name else b""
                if folder and not under(folder, self.game) and not under(self.game, folder):
                    found.append(folder)
        self._games[tree] = found
        return list(found)

    def changed(self, old: str, new: str) -> list[bytes]:
        """The files (paths from the root) that differ between two trees, as ``git diff-tree -r
        --name-only`` lists them, from the trees' listings."""
        before = {e.path: (e.mode, e.oid) for e in self.listing(old)}
        after = {e.path: (e.mode, e.oid) for e in self.listing(new)}
        return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))

    def own_files(self, tree: str) -> Files:
        """The game folder's published files in a tree (its waiting items left out)."""
        return {e.path: (e.mode, e.oid) for e in self.listing(tree)
                if under(e.path, self.game) and not is_waiting_item(e.path, self.game)}

    # --- the moderator's files on disk -----------------------------------------------------
    def disk_files(self, published: Mapping[bytes, tuple[str, str]], seed: bytes | None = None,
                   revealed: Callable[[], bool] = lambda: False) -> Files:
        """The game folder on disk as blobs (what to publish).  ``published``: the game folder's files
        in the shared tree (a .gitignore does not take them out).  ``seed``: refuse any file that
        holds it (lower-case hex) unless ``revealed()`` says the log has revealed it.  Files known from
        earlier syncs (:class:`~pbem.transport.git.hashcache.HashCache`) are neither read nor hashed again."""
        root = self.gd.root
        found = regular_files(root)
        known = {p.decode(_FS_ENCODING, _FS_ERRORS): oid for p, (_mode, oid) in published.items()}
        prefix = f"{self.prefix}/" if self.prefix else ""
        in_repo = [prefix + rel for rel, _info in found]
        self._check_ignored([path for path in in_repo if path not in known])
        cache = self._cache()
        cache.begin(seed, set(in_repo))
        keys = [_info_key(info) for _rel, info in found]
        racy = [n for n, key in enumerate(keys) if cache.racy(key)]
        if racy and cache.outlast_stamp():          # files changed in the stamp's tick: look again after it
            for n in racy:
                rel = found[n][0]
                info = os.lstat(root / rel)
                if stat.S_ISREG(info.st_mode):
                    found[n], keys[n] = (rel, info), _info_key(info)
        files: Files = {}
        todo: list[tuple[str, StatKey, str]] = []
        reads: list[tuple[str, StatKey]] = []   # to check for the seed (walk order): not known to be free of it
        hashed, ignored = self._hashed, self._ignored
        for path, (_rel, info), key in zip(in_repo, found, keys):
            published_oid = known.get(path)
            if published_oid is None and ignored.get(path):
                continue
            mode = "100755" if info.st_mode & 0o111 else "100644"
            cached = hashed.get(path)
            if cached is not None and cached[0] == key:
                files[path.encode(_FS_ENCODING, _FS_ERRORS)] = (mode, cached[1])
            elif (oid := cache.blob(path, key, published_oid)) is not None:
                hashed[path] = (key, oid)
                files[path.encode(_FS_ENCODING, _FS_ERRORS)] = (mode, oid)
                if seed and not cache.clean(path, key):
                    reads.append((path, key))
            else:
                todo.append((path, key, mode))
                reads.append((path, key))
        if seed:
            for path, key in reads:
                with open(self.repo.root / path, "rb") as fh:
                    holds = seed in fh.read().lower()
                if holds and not revealed():
                    raise PublishRefused(f"refusing to publish {path}: it holds the moderator's seed in plain "
                                         "text, and the game is not over; remove it from the game folder")
                cache.checked(path, key, clean=not holds)
        for (path, key, mode), oid in zip(todo, self.repo.hash_files([p for p, _k, _m in todo])):
            self._hashed[path] = (key, oid)
            cache.hashed(path, key, oid)
            files[path.encode(_FS_ENCODING, _FS_ERRORS)] = (mode, oid)
        return files

    def _cache(self) -> HashCache:
        if self._hash_cache is None:
            self._hash_cache = HashCache.load(self.gd.moderator_dir / HASH_CACHE_NAME, self.prefix)
        return self._hash_cache

    def save_cache(self) -> None:
        """Keep what this sync hashed for the next one (nothing if it hashed nothing new)."""
        if self._hash_cache is not None:
            self._hash_cache.save()

    def _check_ignored(self, paths: list[str]) -> None:
        """Ask git once which of these (not yet published) paths a .gitignore excludes."""
        new = [p for p in paths if p not in self._ignored]
        if not new:
            return
        stdin = b"".join(os.fsencode(p) + b"\0" for p in new)
        proc = self.repo.run_bytes("check-ignore", "-z", "--stdin", "--no-index", stdin=stdin, check=False)
        if proc.returncode not in (0, 1):
            raise GitError(f"git check-ignore failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
        ignored = {os.fsdecode(p) for p in proc.stdout.split(b"\0") if p}
        for path in new:
            self._ignored[path] = path in ignored

    # --- building a tree -------------------------------------------------------------------
    def build(self, base: str, own: Files | None, carried: Files, others: str | None = None,
              extra: Mapping[bytes, tuple[str, str] | None] | None = None) -> str:
        """A tree: ``base`` with the game folder replaced by ``own`` (None: base's own files) and
        ``carried`` (its waiting items); other games' folders from the tree ``others`` (if given);
        ``extra``: further paths to set (None removes one)."""
        entries = self.listing(base)
        folders = self.other_games(base) if others is not None else []
        own = self.own_files(base) if own is None else own
        final: Files = {}
        for entry in entries:
            if under(entry.path, self.game) or any(under(entry.path, f) for f in folders):
                continue
            final[entry.path] = (entry.mode, entry.oid)
        if others is not None:
            theirs = self.listing(others)
            present = {f for f in folders if any(under(e.path, f) for e in theirs)}
            for entry in entries:           # a game folder the shared branch lost: kept as it was
                if any(under(entry.path, f) for f in folders if f not in present):
                    final[entry.path] = (entry.mode, entry.oid)
            for entry in theirs:
                if any(under(entry.path, f) for f in present) and not path_problem(entry.path):
                    final[entry.path] = (entry.mode, entry.oid)
        for path, value in (extra or {}).items():
            if value is None:
                final.pop(path, None)
            elif not under(path, self.game):
                final[path] = value
        final.update(own)
        final.update(carried)
        changes = [_record("0", ZERO, e.path) for e in entries if e.path not in final]
        old = {e.path: (e.mode, e.oid) for e in entries}
        changes += [_record(mode, oid, path) for path, (mode, oid) in final.items() if old.get(path) != (mode, oid)]
        if not changes:
            return base
        index = self.index_path()
        holds = self._index_holds is not None and self._index_holds == (base, _stat_key(index))
        self._index_holds = None                 # until the new tree is written in full
        if holds:                                # the changes to the tree the index holds
            tree = self.repo.write_tree(index, b"".join(changes), fresh=False)
        else:                                    # every file, in a new index (no `git read-tree` of the base)
            tree = self.repo.write_tree(index, b"".join(_record(mode, oid, path) for path, (mode, oid)
                                                        in sorted(final.items())), fresh=True)
        key = _stat_key(index)
        self._index_holds = (tree, key) if key[2] >= 0 else None
        if tree not in self._listings:
            self._listings[tree] = [TreeEntry(mode, kind_of(mode), oid, path) for path, (mode, oid) in sorted(final.items())]
        return tree


def reset_index(repo: Repo, commit: str, waiting: list[bytes], index: Path,
                files: list[TreeEntry] | None = None) -> bool:
    """Point the clone's index file ``index`` at ``commit`` (the work tree is left as it is), with the
    players' files below the ``waiting`` folders that are not on disk marked skip-worktree.  The new
    index is made beside the old one and renamed over it; False (nothing done) while another git
    holds the index.  ``files``: the commit's files (its tree's listing), when the caller has it."""
    if index.with_name(index.name + ".lock").exists():
        return False
    temp = index.with_name(f"{index.name}.pbem-sync.{os.getpid()}")
    for old in index.parent.glob(f"{index.name}.pbem-sync.*"):     # what killed syncs left
        old.unlink(missing_ok=True)
    env = {"GIT_INDEX_FILE": str(temp)}
    if index.is_file():
        shutil.copyfile(index, temp)        # keeps the files' stat data: git status need not hash them again
    elif temp.exists():
        temp.unlink()
    if repo.run_bytes("read-tree", "--reset", commit, env=env, check=False).returncode != 0:
        repo.run_bytes("read-tree", commit, env=env)
    if files is None:
        missing = repo.run_bytes("ls-files", "-z", "--deleted", env=env).stdout.split(b"\0")
    else:                                   # what `git ls-files --deleted` shows: the files lstat cannot find
        missing = [e.path for e in files if any(e.path.startswith(w + b"/") for w in waiting)
                   and not _on_disk(repo.root / os.fsdecode(e.path))]
    skip = [p for p in dict.fromkeys(missing) if p and any(p.startswith(w + b"/") for w in waiting)]
    if skip:
        repo.run_bytes("update-index", "-z", "--skip-worktree", "--stdin", stdin=b"".join(p + b"\0" for p in skip),
                       env=env)
    os.replace(temp, index)
    return True
