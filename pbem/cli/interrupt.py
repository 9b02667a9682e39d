"""A Ctrl-C as one line: the line, and how to tell an error that a Ctrl-C caused.

Imports nothing of pbem, so that the console script (:mod:`pbem.cli.console`) has it before
the command line is imported."""
from __future__ import annotations

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
