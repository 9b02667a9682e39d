"""The `pbem` console script.

A Ctrl-C is one line (`pbem: error: interrupted ...`, exit code 130) whenever it comes: the
command line's own boundary (:class:`pbem.cli.boundary.PbemGroup`) catches it once the command
runs, and this one while the command line is still being imported, which is most of a short
command's start-up."""
from __future__ import annotations

import sys

from pbem.cli.interrupt import INTERRUPTED, caused_by_ctrl_c


def run() -> None:
    try:
        from pbem.cli.group import main
    except BaseException as exc:
        if not caused_by_ctrl_c(exc):
            raise
        sys.stderr.write(INTERRUPTED + "\n")
        sys.exit(130)
    main()
