"""A Ctrl-C is one line and exit code 130 whenever it comes, start-up included.

Each test runs the installed `pbem` console script's entry (``pbem.cli.console.run``) in a real
Python process and sends that process a real SIGINT at a chosen moment: while the command line
is still being imported, or while it was held during start-up.  (A Ctrl-C that lands inside a
native extension's own import, where pyrage's Rust code turns it into a panic, cannot be timed
from a test: the rule that catches it, an error with a Ctrl-C in its history, is tested alone.)
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from pbem.cli.interrupt import INTERRUPTED, caused_by_ctrl_c

# The child process: send itself SIGINT just before it imports MODULE (a real signal, delivered by
# the kernel; Python raises KeyboardInterrupt inside that import), then run `pbem ARGS`.
CHILD = textwrap.dedent("""
    import builtins, os, signal, sys
    signal.signal(signal.SIGINT, signal.default_int_handler)
    target, args = sys.argv[1], sys.argv[2:]
    real_import = builtins.__import__
    def importing(name, *a, **k):
        if name == target and target not in sys.modules:
            builtins.__import__ = real_import
            os.kill(os.getpid(), signal.SIGINT)
        return real_import(name, *a, **k)
    builtins.__import__ = importing
    sys.argv = ["pbem", *args]
    from pbem.cli.console import run
    run()
""")


def run_child(module: str, *args: str, held: bool = False) -> subprocess.CompletedProcess[str]:
    code = CHILD
    if held:     # Ctrl-C pressed while the process starts, held until pbem's handler lets it through
        code = ("import os, signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})\n"
                "os.kill(os.getpid(), signal.SIGINT)\n" + CHILD)
    return subprocess.run([sys.executable, "-c", code, module, *args], capture_output=True, text=True, timeout=120)


def assert_interrupted(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert done.stderr.strip().splitlines()[-1] == INTERRUPTED
    assert done.stdout == ""


@pytest.mark.parametrize("module", ["click", "pbem.cli.group"])
def test_ctrl_c_while_the_command_line_is_imported(module, tmp_path):
    assert_interrupted(run_child(module, "status", str(tmp_path)))


def test_ctrl_c_held_during_start_up_is_one_line(tmp_path):
    assert_interrupted(run_child("no-such-module", "status", str(tmp_path), held=True))


def test_without_a_ctrl_c_the_command_runs_as_usual(tmp_path):
    done = run_child("no-such-module", "status", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip() == f"pbem: error: {tmp_path} is not a pbem game (no log.yaml); create one with `pbem new`"


def test_an_error_with_a_ctrl_c_in_its_history_counts_as_the_interruption():
    def chained(inner: BaseException) -> BaseException:
        try:
            try:
                raise inner
            except BaseException:
                raise RuntimeError("a native module failed while handling it")
        except RuntimeError as exc:
            return exc
    # what pyrage's import raises when a Ctrl-C interrupts it: a panic whose context is the Ctrl-C
    assert caused_by_ctrl_c(KeyboardInterrupt())
    assert caused_by_ctrl_c(chained(KeyboardInterrupt()))
    assert not caused_by_ctrl_c(chained(ValueError("bad")))
    assert not caused_by_ctrl_c(SystemExit(1))
