"""The `pbem` console script.

A Ctrl-C is one line (`pbem: error: interrupted ...`, exit code 130) whenever it comes: the
command line's own handler (:class:`pbem.cli.group.PbemGroup`) catches it once the command runs,
and this one while the command line is still being imported, which is most of a short
command's start-up."""
from __future__ import annotations

import sys

INTERRUPTED = "pbem: error: interrupted; run the command again (anything half-done is repaired by the next command)"


def caused_by_ctrl_c(exc: BaseException) -> bool:
    """Is this a Ctrl-C, or did it happen while one was being handled (a native extension
    interrupted in its import panics with the KeyboardInterrupt as its context)?"""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def run() -> None:
    try:
        from pbem.cli.group import main
    except BaseException as exc:
        if not caused_by_ctrl_c(exc):
            raise
        sys.stderr.write(INTERRUPTED + "\n")
        sys.exit(130)
    main()
