"""The history of a game's ``incoming/`` folder: which commit added each path, and in what order.

:func:`history` answers what ``git log --date-order --reverse --name-status TIP -- incoming``
says: for every path still under ``incoming/``, the commits that added or changed it since it was
last deleted, and the position (among the commits shown) of the one that added it.  That walk
covers the whole history, so it grows with the game; the shared branch's answer is therefore kept
between syncs in the moderator's private folder (``moderator/git-history.kept``) and extended:

* it is keyed by the tip it describes and the ``incoming`` path; a cache for another path, an
  unreadable or altered file (its digest is checked: :mod:`~pbem.transport.git.kept`) or another
  format is ignored;
* it is extended only when the new tip is the old one followed by a chain of commits with one
  parent each (``git log --full-history --sparse --format=%H %P TIP ^OLD``, one command).  Then
  git's ordered walk of the new tip is exactly the old walk followed by the chain: every old commit
  is an ancestor of the old tip, which only the chain's first commit has as a child, so none is shown
  before the whole chain; a commit without a merge simplifies nothing.  Anything else (a merge, a
  rewritten branch, an unknown old tip) is walked whole, as without a cache;
* the cache is derived data: without it (deleted, or a first sync) the answer is the same, only
  dearer.  It is written whole or not at all (:func:`write_atomic`), and lives in ``moderator/``,
  which is never published.

A pull request's history (walked from the shared branch, ``^BASE``) is short and not cached.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from pbem.transport.git.kept import read_kept, write_kept
from pbem.transport.git.repo import Repo

UNKNOWN_POSITION = 10**9
CACHE_NAME = "git-history.kept"
CACHE_VERSION = 1
#: a cache bigger than this is not read (it holds only the paths still waiting: it stays small)
MAX_CACHE_BYTES = 32 << 20
#: two commits (in :func:`merge_base_key` order) -> their merge base (None: they have none)
MergeBases: TypeAlias = dict[tuple[str, str], "str | None"]


def merge_base_key(a: str, b: str) -> tuple[str, str]:
    """The key of a pair of commits in :data:`MergeBases` (the same for both orders)."""
    return (a, b) if a < b else (b, a)


@dataclass
class PathHistory:
    """The commits that added or changed one path since it was last deleted (oldest first)."""

    commits: list[str] = field(default_factory=list)
    added_at: int = UNKNOWN_POSITION


@dataclass
class _Walk:
    """The answer for one tip: the paths, and how many commits the walk has shown."""

    tip: str
    shown: int = 0
    paths: dict[bytes, PathHistory] = field(default_factory=dict)
    #: when the walk extends an older one: that walk's tip and the chain of commits from it to ``tip``
    #: (each one an ancestor of ``tip``); not kept
    chain: list[str] = field(default_factory=list)

    def copy(self) -> dict[bytes, PathHistory]:
        return {p: PathHistory(list(h.commits), h.added_at) for p, h in self.paths.items()}


@dataclass
class _Record:
    commit: str
    parents: list[str]
    changes: list[tuple[bytes, bytes]]       # (status, path)


def _records(out: bytes) -> list[_Record]:
    """``git log -z --format=%x01%H %P --name-status`` output, commit by commit."""
    records: list[_Record] = []
    tokens = iter(out.split(b"\0"))
    for token in tokens:
        token = token.lstrip(b"\n")
        if token.startswith(b"\x01"):
            commit, *parents = token[1:].decode("ascii").split()
            records.append(_Record(commit, parents, []))
            continue
        status = token.strip()
        if not status or not records:
            continue
        records[-1].changes.append((status, next(tokens, b"")))
    return records


def _apply(walk: _Walk, records: list[_Record], every: bool) -> None:
    """Add these commits (oldest first) to the walk; ``every``: each one is a commit git's walk
    shows (else only those that change something below incoming/ are, as a commit with one parent
    is shown exactly when it does)."""
    for record in records:
        if not every and not record.changes:
            continue
        position = walk.shown
        walk.shown += 1
        for status, path in record.changes:
            if status.startswith(b"D"):
                walk.paths.pop(path, None)
                continue
            walk.paths.setdefault(path, PathHistory(added_at=position)).commits.append(record.commit)


def _full(repo: Repo, span: list[str], incoming: str) -> _Walk:
    out = repo.run_bytes("log", "-z", "--date-order", "--reverse", "--no-renames", "--format=%x01%H",
                         "--name-status", *span, "--", f":(literal){incoming}").stdout
    walk = _Walk(span[0])
    _apply(walk, _records(out), every=True)
    return walk


def _extended(repo: Repo, old: _Walk, tip: str, incoming: str) -> _Walk | None:
    """``old`` extended to ``tip`` when ``tip`` is ``old.tip`` plus a chain of one-parent commits
    (None otherwise: the caller walks the whole history)."""
    proc = repo.run_bytes("log", "-z", "--reverse", "--full-history", "--sparse", "--no-renames",
                          "--format=%x01%H %P", "--name-status", tip, f"^{old.tip}", "--",
                          f":(literal){incoming}", check=False)
    if proc.returncode != 0:
        return None
    records = _records(proc.stdout)
    parent = old.tip
    for record in records:
        if record.parents != [parent]:
            return None
        parent = record.commit
    if parent != tip:
        return None
    walk = _Walk(tip, old.shown, old.copy(), [old.tip] + [record.commit for record in records])
    _apply(walk, records, every=False)
    return walk


def _load(path: Path, incoming: str) -> _Walk | None:
    body = read_kept(path, MAX_CACHE_BYTES)
    try:
        if body["version"] != CACHE_VERSION or body["incoming"] != incoming:
            return None
        walk = _Walk(str(body["tip"]), int(body["shown"]))
        for hex_path, (added_at, commits) in body["paths"].items():
            walk.paths[bytes.fromhex(hex_path)] = PathHistory([str(c) for c in commits], int(added_at))
        return walk
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _save(path: Path, incoming: str, walk: _Walk) -> None:
    write_kept(path, {"version": CACHE_VERSION, "incoming": incoming, "tip": walk.tip, "shown": walk.shown,
                      "paths": {p.hex(): [h.added_at, h.commits] for p, h in sorted(walk.paths.items())}})


def history(repo: Repo, tip: str, base: str | None, incoming: str,
            cache: Path | None = None, bases: MergeBases | None = None) -> dict[bytes, PathHistory]:
    """For every path ever under ``incoming`` in ``tip``'s own history (after ``base``, when given):
    the commits since it was last deleted, and the position of the commit that added it.
    ``cache``: the folder to keep the answer in between syncs (only used without ``base``).
    ``bases``: where the walk proves that the kept tip and the commits after it are ancestors of ``tip``
    (the chain of one-parent commits that leads from it to ``tip``), each is entered there as its merge
    base with ``tip``."""
    if base or cache is None:
        return _full(repo, [tip] + ([f"^{base}"] if base else []), incoming).paths
    path = cache / CACHE_NAME
    old = _load(path, incoming)
    if old is not None and old.tip == tip:
        return old.copy()
    walk = _extended(repo, old, tip, incoming) if old is not None else None
    if walk is not None and bases is not None:
        for commit in walk.chain:               # what `git merge-base COMMIT TIP` answers: COMMIT
            bases[merge_base_key(commit, tip)] = commit
    if walk is None:
        walk = _full(repo, [tip], incoming)
    _save(path, incoming, walk)
    return walk.copy()
