"""Atomic writes, file modes and the game-directory lock: nothing is ever half-written.

Fault injection (for the crash tests, docs/moderating.md): with the environment
variable ``PBEM_FAULT`` set to ``kill-before:SUFFIX``, ``kill-rename:SUFFIX`` or
``kill-after:SUFFIX``, the process kills itself (SIGKILL) before it writes the
file whose path ends with SUFFIX, after writing its temporary copy but before
the rename, or after the rename; ``enospc:SUFFIX`` fails that write with "no
space left on device"; ``kill:POINT`` kills at a named point
(:func:`fault_point`); ``kill-step:N`` kills before the N-th step
(:func:`fault_step`: every write and, in `pbem git sync`, every git call).
``PBEM_FAULT_TRACE=FILE`` appends the path of every write (and the name of every
git call) to FILE.  Unset (always, outside tests), these cost one dictionary lookup.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
from pathlib import Path
from typing import Iterator

from pbem.base.errors import PbemError

#: the temporary files :func:`write_atomic` makes (a crash may leave one behind)
TEMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{6,}\.tmp$")


def public_mode() -> int:
    """The mode of a public file: read-write for everyone the umask allows (like any new file)."""
    return 0o666 & ~umask()


def umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)   # no /proc: read it the portable way (and put it back at once)
    os.umask(current)
    return current


def _fault(moment: str, path: Path) -> None:
    if moment == "before":
        fault_step(str(path))
    spec = os.environ.get("PBEM_FAULT")
    if not spec:
        return
    kind, _, suffix = spec.partition(":")
    if not suffix or not str(path).endswith(suffix):
        return
    if kind == f"kill-{moment}":
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "enospc" and moment == "before":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def fault_step(name: str) -> None:
    """One numbered step of a command, for the crash tests: a write (its path) or a git call.

    With ``PBEM_FAULT_TRACE=FILE`` the step's name is appended to FILE; with
    ``PBEM_FAULT=kill-step:N`` as well, the process kills itself (SIGKILL) just before
    the N-th step that FILE lists, so that a test can stop a command at every step in turn.
    """
    trace = os.environ.get("PBEM_FAULT_TRACE")
    if not trace:
        return
    with open(trace, "a+", encoding="utf-8") as fh:
        fh.write(f"{name}\n")
        spec = os.environ.get("PBEM_FAULT", "")
        if spec.startswith("kill-step:"):
            fh.flush()
            fh.seek(0)
            if sum(1 for _ in fh) == int(spec.partition(":")[2]):
                os.kill(os.getpid(), signal.SIGKILL)


def fault_point(name: str) -> None:
    """A named place where the crash tests may kill the process (``PBEM_FAULT=kill:NAME``)."""
    if os.environ.get("PBEM_FAULT") == f"kill:{name}":
        os.kill(os.getpid(), signal.SIGKILL)


def write_atomic(path: Path, data: bytes | str, mode: int | None = None, durable: bool = True) -> None:
    """Write to a temporary file in the same folder, fsync, then rename over ``path``.

    ``mode`` defaults to 0600 (a moderator file); public files pass :func:`public_mode`.
    ``durable=False`` skips the fsync: the file is still replaced whole or not at all when the
    process dies, but a power cut may lose it.  Only for files the log determines, whose loss
    the next command notices (the snapshot records them: :mod:`pbem.pipeline.append`).
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    _fault("before", path)
    try:
        fd, tmp = _temp_beside(path)
    except FileNotFoundError:          # the folder is new (rare: one syscall less for every other write)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _temp_beside(path)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
            if mode is not None:
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        _fault("rename", path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fault("after", path)


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new temporary file (0600) in ``path``'s folder, named as :data:`TEMP_NAME` says
    (what ``tempfile.mkstemp`` does; that module costs more to import than the write)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def write_if_changed(path: Path, data: bytes | str, mode: int | None = None, durable: bool = True) -> bool:
    """Atomic write that leaves the file (and its mtime) alone when the bytes are equal."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path.is_file() and not path.is_symlink() and path.read_bytes() == raw:
        return False
    write_atomic(path, raw, mode, durable)
    return True


def append_durable(path: Path, data: bytes | str) -> None:
    """Append ``data`` to the existing file ``path`` in one write, then fsync: done when this returns.

    If anything fails before the fsync returns (a full disk, Ctrl-C), the file is cut back to
    its old length, so it never keeps half of ``data``.  (A power cut in the middle may leave a
    torn end; :func:`pbem.pipeline.repair.repair` cuts it off by the length the snapshot names.)
    Fault injection: ``kill-before`` before the file is opened, ``kill-rename`` when it is open
    but nothing is written yet (the commit has not happened: as between an atomic write's
    temporary file and its rename), ``kill-after`` once the data is flushed.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    _fault("before", path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        size = os.fstat(fd).st_size
        try:
            _fault("rename", path)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)
    _fault("after", path)


def temp_files(folder: Path) -> list[Path]:
    """The temporary files an interrupted :func:`write_atomic` left in ``folder`` (found by reading only)."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [folder / name for name in sorted(n for n in names if n.startswith(".") and TEMP_NAME.match(n))]
    return [path for path in found if path.is_file() and not path.is_symlink()]


def remove_temp_files(folder: Path) -> list[Path]:
    """Remove the temporary files an interrupted :func:`write_atomic` left in ``folder``."""
    removed = temp_files(folder)
    for path in removed:
        path.unlink()
    return removed


class LockedError(PbemError):
    pass


LOCK_NAME = "lock"


def lock_path(directory: Path) -> Path:
    return directory / "moderator" / LOCK_NAME


@contextlib.contextmanager
def locked(directory: Path, shared: bool = False) -> Iterator[None]:
    """The game-directory lock (blocks until the other pbem finishes).

    Exclusive for every command that writes; ``shared`` for readers such as
    `pbem audit`, which then never see a half-written game.  The lock file lives
    in the moderator's private folder so that taking the lock changes no public
    file.
    """
    import fcntl  # POSIX only; imported here so players' commands (keygen, sign) work everywhere

    path = lock_path(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def read_locked(directory: Path) -> Iterator[None]:
    """The shared lock for a reader that never writes (`pbem audit`): it creates nothing and opens
    the lock file read-only, so it works on a read-only copy.  Where there is none (a player's
    copy: only the moderator's commands make it) or it cannot be opened (another user's copy),
    the reader goes on without it."""
    import fcntl

    try:
        fd = os.open(lock_path(directory), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)              # closing releases the lock
