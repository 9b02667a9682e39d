"""Atomic writes and the game-directory lock: nothing is ever half-written."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator


def write_atomic(path: Path, data: bytes | str, mode: int | None = None) -> None:
    """Write to a temporary file in the same folder, fsync, then rename over ``path``."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_if_changed(path: Path, data: bytes | str, mode: int | None = None) -> bool:
    """Atomic write that leaves the file (and its mtime) alone when the bytes are equal."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path.exists() and path.read_bytes() == raw:
        return False
    write_atomic(path, raw, mode)
    return True


class LockedError(RuntimeError):
    pass


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Exclusive lock on a game directory (blocks until the other pbem finishes).

    The lock file lives in the moderator's private folder so that taking the
    lock does not change any public file.
    """
    import fcntl  # POSIX only; imported here so players' commands (keygen, sign) work everywhere

    lock_path = directory / "moderator" / "lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
