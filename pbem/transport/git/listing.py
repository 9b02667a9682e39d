"""The listing of the moderator's last tree, kept between syncs (``moderator/git-tree.kept``).

Every sync builds its commits on the moderator's last tree, and needs that tree's files
(``git ls-tree -r``); the sync that made the tree knew them.  It keeps them, with the tree's
object id, in the moderator's private folder, and the next sync takes them instead of asking git,
but only when they *are* the tree: the tree objects are computed from the kept files (git's tree
format: entries in git's order, each a mode, a name and an object id; then hashed, as git hashes
an object) and the root's id must be the tree's.  So a stale, damaged or forged file, or a tree
git would list otherwise (an empty folder, a mode git writes differently), is simply not used,
and git is asked as without it.  The file holds a digest of its body and is written whole
(:mod:`~pbem.transport.git.kept`); deleting it changes nothing but time.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Union

from pbem.transport.git.kept import read_kept, write_kept
from pbem.transport.git.repo import TreeEntry

LISTING_NAME = "git-tree.kept"
CACHE_VERSION = 1
#: a kept listing bigger than this is not read
MAX_CACHE_BYTES = 64 << 20
#: a folder of a tree being rebuilt: name -> a file (its entry) or a sub-folder
_Folder = dict[bytes, Union[TreeEntry, "_Folder"]]


def kind_of(mode: str) -> str:
    """The kind of object a tree entry with this mode names."""
    return "commit" if mode == "160000" else "blob"


def _folders(entries: list[TreeEntry]) -> _Folder | None:
    """The files as nested folders (None if a path is empty, has an empty part, or is both a file and
    a folder)."""
    root: _Folder = {}
    for entry in entries:
        *parents, name = entry.path.split(b"/")
        folder = root
        for part in parents:
            sub = folder.setdefault(part, {})
            if not part or not isinstance(sub, dict):
                return None
            folder = sub
        if not name or name in folder:
            return None
        folder[name] = entry
    return root


def _git_order(item: tuple[bytes, TreeEntry | _Folder]) -> bytes:
    """How git sorts a tree's entries: by name, a folder's name as if it ended with ``/``."""
    name, value = item
    return name + b"/" if isinstance(value, dict) else name


def _hash_tree(folder: _Folder, algorithm: str, listed: list[TreeEntry]) -> bytes:
    """The binary object id of ``folder`` as a git tree; its files are appended to ``listed`` in the
    order ``git ls-tree -r`` lists them."""
    body = bytearray()
    for name, value in sorted(folder.items(), key=_git_order):
        if isinstance(value, dict):
            body += b"40000 " + name + b"\0" + _hash_tree(value, algorithm, listed)
        else:
            listed.append(value)
            body += value.mode.encode("ascii") + b" " + name + b"\0" + bytes.fromhex(value.oid)
    return hashlib.new(algorithm, b"tree %d\0" % len(body) + bytes(body)).digest()


def listing_of(tree: str, entries: list[TreeEntry]) -> list[TreeEntry] | None:
    """``entries`` in ``git ls-tree -r`` order, if they are exactly the files of ``tree`` (else None)."""
    algorithm = {40: "sha1", 64: "sha256"}.get(len(tree))
    folders = _folders(entries)
    if algorithm is None or folders is None or not entries:
        return None
    listed: list[TreeEntry] = []
    try:
        if _hash_tree(folders, algorithm, listed).hex() != tree:
            return None
    except ValueError:                   # a mode or object id that is not one
        return None
    return listed


def read_listing(path: Path) -> tuple[str, list[TreeEntry]] | None:
    """The tree and files of the kept listing at ``path``, as written (None if there is none, or it is
    damaged): :func:`listing_of` says whether they are that tree's."""
    body = read_kept(path, MAX_CACHE_BYTES)
    try:
        if body["version"] != CACHE_VERSION:
            return None
        return str(body["tree"]), [TreeEntry(str(mode), kind_of(str(mode)), str(oid), bytes.fromhex(path_hex))
                                   for mode, oid, path_hex in body["files"]]
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def keep_listing(path: Path, tree: str, entries: list[TreeEntry]) -> None:
    """Keep the files of ``tree`` for the next sync (a failure only costs time)."""
    write_kept(path, {"version": CACHE_VERSION, "tree": tree,
                      "files": [[e.mode, e.oid, e.path.hex()] for e in entries]})
