"""Crash reports: an unexpected error while processing one input becomes a file for the moderator.

In mail and git mode one input (a message, a pushed file) must never stop the
ones behind it.  An error pbem expects (:class:`pbem.base.errors.PbemError`) is a
refusal with its one-line reason.  Anything else is a bug: the input is refused
with one line that says so, and the traceback goes to
``moderator/crashes/WHEN-HASH.txt`` (moderator-private) so it can be reported.
"""
from __future__ import annotations

import hashlib
import time
import traceback
from pathlib import Path

from pbem import __version__
from pbem.base.fsutil import write_atomic

CRASHES = "crashes"


def write_crash_report(moderator_dir: Path, exc: BaseException, what: str, data: bytes = b"") -> Path:
    """Write the report and return its path."""
    digest = hashlib.sha256(data).hexdigest()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = moderator_dir / CRASHES / f"{stamp}-{digest[:12]}.txt"
    text = (f"pbem {__version__} could not process {what}\n"
            f"input sha256: {digest} ({len(data)} bytes)\n\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    write_atomic(path, text, mode=0o600)
    return path


def refusal_for_crash(moderator_dir: Path, exc: BaseException, what: str, data: bytes = b"") -> str:
    """The one line a sender gets when processing their input failed unexpectedly."""
    try:
        path = write_crash_report(moderator_dir, exc, what, data)
        where = f"moderator/{CRASHES}/{path.name}"
    except OSError:
        where = "(the report could not be written)"
    return (f"pbem could not process this (an internal error, {exc.__class__.__name__}); nothing was changed; "
            f"the moderator has a crash report: {where}")
