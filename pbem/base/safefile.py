"""Reading a file someone else put there, without hanging, without reading forever.

A move file can arrive as anything: a FIFO (reading blocks for ever), a
device such as /dev/zero (reading never ends), a directory, a symlink out of
the game folder, or a gigabyte of data.  :func:`read_regular_file` opens it
without blocking, checks on the open descriptor that it is a regular file
within the size limit, and reads at most that many bytes.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from pbem.base.errors import PbemError


class UnreadableFile(PbemError):
    """The file is not a regular file we may read (one line naming it)."""


def read_regular_file(path: Path, limit: int, what: str = "file", follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit`` of them), or :class:`UnreadableFile`.

    With ``follow_symlinks=False`` a symlink is refused outright (for files that
    strangers add to a repository).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
        if path.is_symlink():
            raise UnreadableFile(f"{what} {path} is a symbolic link; send the file itself")
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFile(f"no such {what}: {path}") from None
    except IsADirectoryError:
        raise UnreadableFile(f"{what} {path} is a folder, not a file") from None
    except OSError as exc:
        raise UnreadableFile(f"cannot open {what} {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableFile(f"{what} {path} is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{what} {path} is not a regular file (a pipe, device or socket); "
                                 "send an ordinary file")
        if info.st_size > limit:
            raise UnreadableFile(f"{what} {path} is {info.st_size} bytes; the limit is {limit}")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise UnreadableFile(f"{what} {path} is more than {limit} bytes; the limit is {limit}")
        return data
    except OSError as exc:
        raise UnreadableFile(f"cannot read {what} {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
