"""Finished games (and other dear fixtures) built once per test session and shared by every
test and every pytest-xdist worker that asks for them.

``finished(name, build)`` returns a folder that ``build(folder)`` filled.  The folder lives
in the session's shared temporary root (the controller's basetemp under xdist, the basetemp
otherwise), named by ``name`` and by what the result depends on: the pbem package that the
tests import (a hash of its files) and the builder's own module.  An exclusive
``fcntl.flock`` on a lock file beside it makes the first caller build while the others wait,
then read; a half-built folder (a builder that failed) is never published: it is built under
a temporary name and renamed when complete.

The folder is shared: a test that needs to change the game copies it first
(``shutil.copytree``).  :func:`unchanged` says whether a folder still holds what it held when
it was built, so a fixture can check at tear-down that its users kept to that.
"""
from __future__ import annotations

import fcntl
import hashlib
import inspect
import os
import shutil
from pathlib import Path
from typing import Callable

import pytest

import pbem

_ROOT = pytest.StashKey[Path]()
_SOURCES = pytest.StashKey[str]()


def shared_root(config: pytest.Config, factory: pytest.TempPathFactory) -> Path:
    """The folder every process of this session sees: xdist workers' basetemps sit in the controller's."""
    if _ROOT not in config.stash:
        base = factory.getbasetemp()
        root = (base.parent if hasattr(config, "workerinput") else base) / "session-cache"
        root.mkdir(exist_ok=True)
        config.stash[_ROOT] = root
    return config.stash[_ROOT]


RECORD = ".tree-hash"         # in a published folder: the hash of everything else in it


def _tree_hash(root: Path) -> str:
    """Every file's path and bytes under ``root`` (compiled Python and the folder's own record left out)."""
    digest = hashlib.sha256()
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = Path(dirpath) / name
            if path.suffix == ".pyc" or (name == RECORD and path.parent == root):
                continue
            # the same bytes hashed as path + NUL + contents + NUL, read in pieces: no copy of a
            # big file (the hostile mailbox holds 8 MiB messages) made twice to join them
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            with open(path, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    digest.update(chunk)
            digest.update(b"\0")
    return digest.hexdigest()


def package_hash(config: pytest.Config) -> str:
    """What the cached results depend on in pbem: every file of the installed package."""
    if _SOURCES not in config.stash:
        config.stash[_SOURCES] = _tree_hash(Path(pbem.__file__).parent)
    return config.stash[_SOURCES]


def finished(config: pytest.Config, factory: pytest.TempPathFactory, name: str,
             build: Callable[[Path], object]) -> Path:
    """The folder ``build`` made for ``name``, built by the first process to ask (under a file lock)."""
    builder = inspect.getsource(inspect.getmodule(build) or build)
    key = hashlib.sha256(f"{name}\0{package_hash(config)}\0{builder}".encode()).hexdigest()[:16]
    root = shared_root(config, factory)
    folder = root / f"{name}-{key}"
    with open(root / f"{name}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not folder.is_dir():
                partial = root / f"{name}-{key}.building"
                shutil.rmtree(partial, ignore_errors=True)
                partial.mkdir()
                build(partial)
                (partial / RECORD).write_text(_tree_hash(partial))
                partial.rename(folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


def unchanged(folder: Path) -> bool:
    """True when ``folder`` holds exactly what it held when :func:`finished` published it."""
    return _tree_hash(folder) == (folder / RECORD).read_text()
