"""The command line's one error boundary: every failure a person can act on is one line.

:class:`PbemGroup` is the top-level `pbem` group.  Whatever a command raises that is pbem's own
error (:class:`pbem.base.errors.PbemError`, every refusal and bad input) or the machine's (an
``OSError``: a missing file, a full disk, a permission) is printed here, once, as
``pbem: error: ...`` with exit code 1; no command catches them itself.  click's own errors are
one line too (a usage mistake exits 2), a Ctrl-C is one line with exit code 130, and anything
else is a bug and keeps its traceback.
"""
from __future__ import annotations

import errno
import sys
from typing import Any, NoReturn

import click

from pbem.base.errors import PbemError, one_line
from pbem.cli.interrupt import INTERRUPTED, caused_by_ctrl_c

#: the exit code of a failure a person can act on (click's usage errors keep theirs, 2)
USER_ERROR = 1


def error_line(exc: PbemError) -> str:
    """The one line for a pbem error: its message, after its label (``rejected: ...``)."""
    text = str(exc) or exc.__class__.__name__
    return f"{exc.label}: {text}" if exc.label else text


def os_error_line(exc: OSError) -> str:
    """One line for an error of the machine, naming the file and what to do."""
    where = f" {exc.filename}" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return (f"cannot write{where}: no space left on the device; nothing was committed: free some space "
                "and run the command again")
    if isinstance(exc, FileNotFoundError):
        return f"no such file:{where}"
    if isinstance(exc, PermissionError):
        return f"permission denied:{where}"
    return f"{exc.strerror or exc.__class__.__name__}:{where}"


def fail(line: str, code: int = USER_ERROR) -> NoReturn:
    click.echo(f"pbem: error: {one_line(line)}", err=True)
    sys.exit(code)


class PbemGroup(click.Group):
    """The top-level group and the one error boundary: every failure is one `pbem: error:` line,
    click's own ones too (a usage mistake exits 2, Ctrl-C exits 130), never click's `Error:` or
    `Aborted!`, and never a traceback for an error a person can act on."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            _deliver_held_interrupt()
            kwargs["standalone_mode"] = False
            return super().main(*args, **kwargs)
        except PbemError as exc:
            fail(error_line(exc))
        except OSError as exc:
            fail(os_error_line(exc))
        except click.exceptions.NoArgsIsHelpError as exc:   # `pbem` or `pbem mail` alone: the help, as usual
            click.echo(exc.ctx.get_help() if exc.ctx else "")
            sys.exit(0)
        except click.UsageError as exc:
            command = exc.ctx.command_path if exc.ctx else "pbem"
            fail(f"{exc.format_message()} (see `{command} --help`)", exc.exit_code)
        except click.ClickException as exc:
            fail(exc.format_message(), exc.exit_code)
        except (click.Abort, KeyboardInterrupt):
            click.echo(INTERRUPTED, err=True)
            sys.exit(130)
        except BaseException as exc:
            if not caused_by_ctrl_c(exc):
                raise
            click.echo(INTERRUPTED, err=True)      # e.g. a Ctrl-C in a native module's import made it fail
            sys.exit(130)


def _deliver_held_interrupt() -> None:
    """Let a Ctrl-C through that came while the process was starting, now that it is caught.

    A process that holds SIGINT while it starts (a launcher that blocks it until pbem's
    handler is in place, as the crash tests do) gets it delivered here, inside the `try`
    that turns it into one line; for a process that holds nothing this changes nothing."""
    import signal
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
