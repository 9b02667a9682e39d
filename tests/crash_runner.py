"""Run `pbem` commands in child processes that a test can kill at any moment, cheaply.

Starting Python and importing pbem costs about 0.3 s of CPU; the crash tests kill
a command some 250 times.  So a *zygote* process is started once: it imports the
command line with everything it uses, then forks one child per command.  Each
child is an ordinary process running ``pbem.cli.group.main`` with its own arguments,
environment (``PBEM_FAULT``...) and output files; the test may SIGKILL or SIGINT it
at any moment, and the zygote reaps it with ``os.wait4`` (exit status, peak RSS).
Killing a forked child is killing a pbem process: the files it leaves behind are
exactly what a killed ``pbem submit`` leaves.
Before its first fork the zygote runs the commands once itself, on a scratch toy game
(:func:`_warm_up`): a child starts with the caches a command fills on its first run.

Protocol: one JSON object per line on the zygote's stdin, one answer per line on
its stdout.  ``{"op": "start", "args": [...], "env": {...}, "out": PATH}`` answers
``{"pid": N}``: ``env`` is set on top of the zygote's environment (or replaces it when it maps
"" to "replace"), and with ``"err": PATH`` the child's stderr goes there, apart from its stdout.
``{"op": "wait", "pid": N}`` answers ``{"status": S, "maxrss": KB}``
with S the exit code, or minus the signal that killed it.  ``{"op": "warm", "args": [...], "env": {...}}``
runs the command once in the zygote itself, its output dropped, and answers ``{"status": S}``.
"""
from __future__ import annotations

import importlib
import json
import os
import select
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


# --- the zygote (this file run as a script) -----------------------------------------------------

def _child(args: list[str], env: dict[str, str | None], out: str, err: str | None) -> None:
    """In the forked child: run one pbem command and exit, never returning to the zygote's loop."""
    code = 70
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err_fd = fd if err is None else os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(err_fd, 2)
        sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
        sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
        # like a process that is still starting, Ctrl-C is held (blocked, inherited from the zygote)
        # until pbem's main has its handler in place: pbem.cli.boundary._deliver_held_interrupt lets it through
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if env.pop("", None) == "replace":           # the caller's whole environment, not the zygote's plus it
            os.environ.clear()
        _set_environment(env)
        code = run_command(args)
    except BaseException:  # noqa: BLE001 - a traceback in the child's output is what the test looks for
        traceback.print_exc()
    finally:
        # pbem's main has returned: a Ctrl-C from now on falls on the launcher's own exit, which a
        # pbem process does not have (held, as the zygote held it before pbem's handler was in place)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _warm_up() -> None:
    """Run, once and in the zygote itself, the commands the children run, on a scratch toy game.

    A command's first run in a process pays for what every later run finds ready: the installed
    games read from the entry points, the templates' compiled code, regular expressions compiled
    on first use, the game object built.  A forked child inherits that, as it inherits the
    imports, instead of paying it again (a toy submit child about 40 -> 30 ms).  Only memory is
    warmed: each child still runs its whole command on its own files, and the caches are of pure
    functions (what they return depends on their arguments only), so a warm child writes what a
    cold one writes.  The commands' output goes to /dev/null: the zygote's stdout is the protocol."""
    import tempfile

    from pipeline_helpers import fixed_key_pool, new_game, signed_move

    from pbem.store.table import Table

    failed: list[str] = []
    with _silenced(), tempfile.TemporaryDirectory(prefix="crash-runner-warm-") as tmp:
        root = Path(tmp)
        pool = fixed_key_pool(root / "keys")
        gd = new_game(root / "game", "toy", pool, ["red", "blue"], options={"limit": "2"})
        game = str(gd.root)
        failed += ["status"] if run_command(["status", game]) != 0 else []
        for n, (player, action) in enumerate([("red", {"draw": True}), ("blue", {"stop": True}),
                                               ("red", {"stop": True})]):
            raw, sig = signed_move(Table.load(gd), player, [action], pool[player])
            move = root / f"move-{n}.yaml"
            move.write_bytes(raw)
            move.with_name(move.name + ".sig").write_text(sig)
            commands = [["submit", game, str(move)]]
            if n == 0:
                commands += [["status", game], ["audit", game], ["mod", "pause", game, "--reason", "warm"],
                             ["mod", "resume", game, "--reason", "warm"]]
            failed += [" ".join(args) for args in commands if run_command(args) != 0]
        failed += [" ".join(args) for args in (["reveal", game], ["audit", game]) if run_command(args) != 0]
    if failed:
        raise RuntimeError(f"the zygote's warm-up failed: pbem {failed[0]}")


def _warm(args: list[str], env: dict[str, str | None]) -> int:
    """The ``warm`` request: ``pbem ARGS`` run once in the zygote itself (as :func:`_warm_up` runs its
    commands), with ``env`` set on top of its environment for that command only."""
    saved = dict(os.environ)
    try:
        _set_environment(env)
        with _silenced():
            return run_command(args)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _set_environment(env: dict[str, str | None]) -> None:
    """``env`` set on top of this process's environment (None: the variable removed)."""
    for key, value in env.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@contextmanager
def _silenced() -> Iterator[None]:
    """stdout and stderr to /dev/null, at the descriptors (the zygote's stdout is the protocol)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


def run_command(args: list[str]) -> int:
    """``pbem ARGS`` in this process, as a child runs it; its exit code."""
    from pbem.cli.group import main
    try:
        main(args, prog_name="pbem", standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def serve(preload: list[str]) -> None:
    sys.path.insert(0, str(HERE))
    from pbem.core import registry
    registry.GAMES["toy"] = "toygame:ToyGame"
    # import now what the commands import lazily, so that each child starts at once
    import pbem.pipeline.audit  # noqa: F401
    import pbem.cli.group  # noqa: F401
    import pbem.pipeline.moderator  # noqa: F401
    import pbem.views.outputs  # noqa: F401
    import pbem.views.clickpage  # noqa: F401      (the outputs of an entry import these when first written)
    import pbem.views.render.png  # noqa: F401
    import pbem.views.setupplan  # noqa: F401
    import rjsmin  # noqa: F401
    import pbem.pipeline.status  # noqa: F401
    import pbem.pipeline.submit  # noqa: F401
    import pbem.cli.git  # noqa: F401
    import pbem.transport.git.sync  # noqa: F401
    import toygame  # noqa: F401
    for module in preload:                  # what the caller's commands import besides
        importlib.import_module(module)
    _warm_up()
    # a Ctrl-C meant for a child must not stop the zygote: held (blocked) here and in every child
    # until pbem's main lets it through; not ignored, which would lose one that comes early
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "start":
            pid = os.fork()
            if pid == 0:
                _child(request["args"], request.get("env", {}), request["out"], request.get("err"))
            answer: dict[str, Any] = {"pid": pid}
        elif request["op"] == "warm":
            status = _warm(request["args"], request.get("env", {}))
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})    # pbem's main let it through
            answer = {"status": status}
        elif request["op"] == "wait":
            _pid, status, usage = os.wait4(request["pid"], 0)
            answer = {"status": os.waitstatus_to_exitcode(status), "maxrss": usage.ru_maxrss,
                      "cpu": usage.ru_utime + usage.ru_stime}
        else:
            answer = {"error": f"unknown op {request['op']!r}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


# --- the test's side ---------------------------------------------------------------------------------------

@dataclass
class Finished:
    status: int          # exit code, or -SIGNAL
    output: str          # stdout and stderr together
    maxrss_kb: int


class CrashRunner:
    """The test's handle on the zygote."""

    def __init__(self, preload: tuple[str, ...] = ()) -> None:
        """``preload``: modules the zygote imports besides the ones the crash tests' commands use."""
        self.charged = 0.0       # the commands' CPU, charged to the tests that ran them (cpu_profile)
        env = {**os.environ, "PYTHONPATH": str(HERE)}
        for key in ("PBEM_FAULT", "PBEM_FAULT_TRACE"):
            env.pop(key, None)
        self.proc = subprocess.Popen([sys.executable, __file__, *preload], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def _ask(self, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        if timeout is not None and not select.select([self.proc.stdout], [], [], timeout)[0]:
            os.kill(request["pid"], signal.SIGKILL)             # a hung command: its answer comes now
            self.proc.stdout.readline()
            raise AssertionError(f"the command {request['pid']} did not finish in {timeout} s: killed")
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError("the crash runner's zygote died")
        return json.loads(answer)

    def start(self, args: list[str], out: Path, env: dict[str, str | None] | None = None,
              err: Path | None = None) -> int:
        request = {"op": "start", "args": [str(a) for a in args], "env": env or {}, "out": str(out)}
        if err is not None:
            request["err"] = str(err)
        return int(self._ask(request)["pid"])

    def warm(self, args: list[str], env: dict[str, str | None] | None = None) -> None:
        """Run ``pbem ARGS`` once in the zygote itself, its output dropped, so that every child after it
        starts with what that command's first run fills (a command the built-in warm-up does not run,
        such as `pbem git sync`: give it a scratch copy of the test's world)."""
        answer = self._ask({"op": "warm", "args": [str(a) for a in args], "env": env or {}})
        if answer.get("status") != 0:
            raise RuntimeError(f"the zygote's warm-up `pbem {' '.join(map(str, args))}` failed: {answer}")

    def wait(self, pid: int, out: Path, timeout: float | None = None) -> Finished:
        """The command's end; with ``timeout`` (seconds), a command still running then is killed and
        the test fails saying so (a guard against a hang, not a measure)."""
        import cpu_profile                           # the test's side only (not the zygote)
        answer = self._ask({"op": "wait", "pid": pid}, timeout)
        cpu_profile.charge(answer["cpu"])            # the zygote waited for it, not this process
        self.charged += answer["cpu"]
        text = out.read_text(encoding="utf-8", errors="replace") if out.exists() else ""  # killed at once
        return Finished(answer["status"], text, answer["maxrss"])

    def run(self, args: list[str], out: Path, env: dict[str, str | None] | None = None) -> Finished:
        return self.wait(self.start(args, out, env), out)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        import cpu_profile
        cpu_profile.charge(-self.charged)            # reaping the zygote counted its commands again
        self.charged = 0.0


if __name__ == "__main__":
    serve(sys.argv[1:])
