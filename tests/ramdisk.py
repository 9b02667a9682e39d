"""Folders in memory (tmpfs) for the tests that copy a game folder hundreds of times.

On this machine's disk (ext4 in a virtual machine) creating a file costs about 100 us of CPU, a
folder 90 us, a flushed write and rename 220 us (and 2.7 ms of wall time), removing a small tree
6 ms of wall; on tmpfs a tenth of that.  The crash tests make a copy of a game for each of their
some 270 interrupted commands, and each command writes a dozen files: their folders live on
``/dev/shm`` when it is a tmpfs the tests may write to, else in pytest's ``tmp_path`` as before.
Nothing the tests check depends on it: a killed process leaves its files in the kernel's page
cache, which is what the next command reads on either file system (a power cut is another
matter, and no test here cuts the power).  ``PBEM_TEST_NO_RAMDISK=1`` keeps every folder in
``tmp_path`` (to run the same tests on the disk).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SHM = "/dev/shm"
OFF = "PBEM_TEST_NO_RAMDISK"


def _tmpfs(folder: str) -> bool:
    """Whether ``folder`` is the mount point of a tmpfs this process may write in."""
    try:
        with open("/proc/self/mounts", encoding="utf-8") as fh:
            mounted = any(len(f := line.split()) > 2 and f[1] == folder and f[2] == "tmpfs" for line in fh)
    except OSError:
        return False
    return mounted and os.access(folder, os.W_OK | os.X_OK)


@contextmanager
def ram_folder(fallback: Path, prefix: str) -> Iterator[Path]:
    """A new, empty folder on tmpfs (removed afterwards), or ``fallback`` when there is none."""
    if os.environ.get(OFF) or not _tmpfs(SHM):
        yield fallback
        return
    folder = Path(tempfile.mkdtemp(prefix=f"pbem-{prefix}-", dir=SHM))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)    # a git a killed sync left running may have written meanwhile


@pytest.fixture
def ram_path(tmp_path: Path) -> Iterator[Path]:
    """Like ``tmp_path`` (new and empty for each test), in memory when it can be."""
    with ram_folder(tmp_path, "test") as folder:
        yield folder
