"""What each hostile input costs (issue 7's goal: every one refused within 2 s and 200 MB).

The tests (tests/test_hostile_corpus.py and friends) check what happens to every entry of
the hostile corpus: refused in one clean line, nothing changed on disk.  How long that takes
and how much memory it needs depends on the machine and its load, so it is measured here,
by `make bench`, and printed beside the goal, never asserted:

* in one process (click's CliRunner, as the tests run it): every entry, signed by the player
  to move, through `pbem submit` and `pbem check`: the slowest (wall time) and the largest
  memory peak (tracemalloc);
* as whole processes: the entries that would hang or eat memory if a check were missing,
  their CPU time and peak resident memory (``ru_maxrss`` of the pbem process alone; its
  wall time includes starting Python).

    .venv/bin/python benchmarks/run.py --only hostile
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from timing import Goal, Report

TESTS = Path(__file__).resolve().parent.parent / "tests"
SECONDS, MEGABYTES = 2.0, 200.0
GROUP = "hostile inputs (issue 7): each refused within 2 s and 200 MB"
PLAYERS = ["red", "blue", "green"]

#: pbem's command line with the tests' toy game registered (the corpus is written for it)
PBEM = (f"import sys; sys.path.insert(0, {str(TESTS)!r}); sys.argv[0] = 'pbem'; "
        "from pbem.core import registry; registry.GAMES['toy'] = 'toygame:ToyGame'; "
        "from pbem.cli.group import main; main()")
#: runs the command given as its arguments, then writes that command's own peak RSS (KiB) and CPU
#: seconds to PBEM_USAGE_FILE (a process forked from a big one would report the big one's peak)
LAUNCHER = ("import os, resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "open(os.environ['PBEM_USAGE_FILE'], 'w').write(f'{u.ru_maxrss} {u.ru_utime + u.ru_stime}'); "
            "sys.exit(code)")


@dataclass(frozen=True)
class Cost:
    what: str
    seconds: float
    megabytes: float


def _in_process(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall seconds and the tracemalloc peak (MB) of ``fn``."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        fn()
    finally:
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return seconds, peak / 2**20


def _as_process(args: list[str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of pbem as a whole process."""
    with tempfile.TemporaryDirectory() as scratch:
        usage = os.path.join(scratch, "usage")
        done = subprocess.run([sys.executable, "-c", LAUNCHER, sys.executable, "-c", PBEM, *args],
                              capture_output=True, text=True, env={**os.environ, "PBEM_USAGE_FILE": usage}, timeout=300)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"pbem {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
        maxrss_kib, cpu = Path(usage).read_text().split()
    return float(cpu), int(maxrss_kib) / 1024


def bench_hostile(report: Report, root: Path) -> None:
    sys.path.insert(0, str(TESTS))
    from click.testing import CliRunner
    from hostile_harness import BLOW_UP_ENTRIES, bind, entries_for, sign

    from pbem.cli.group import main
    from pbem.core import registry
    from pbem.crypto import keys
    from pbem.pipeline.newgame import PlayerSpec, create_game
    from pbem.store.gamedir import GameDir
    from pbem.store.table import Table

    registry.GAMES["toy"] = "toygame:ToyGame"
    key_dir = root / "keys"
    key_dir.mkdir(parents=True)
    specs = [PlayerSpec(n, keys.generate_keypair(key_dir / n, n)) for n in PLAYERS]
    keys.generate_keypair(key_dir / "moderator", "moderator")
    game = root / "game"
    create_game(game, "toy", specs, {}, b"s" * 32, moderator_key=key_dir / "moderator")
    player_copy = root / "red-copy"                          # what `pbem check` runs on: no moderator/
    shutil.copytree(game, player_copy, ignore=shutil.ignore_patterns("moderator"))
    table = Table.load(GameDir(game))
    entries = entries_for(table)
    scratch = root / "moves"
    scratch.mkdir()

    def move_file(name: str) -> Path:
        raw = bind(entries[name], table)
        move = scratch / f"{name}.yaml"
        move.write_bytes(raw)
        move.with_name(move.name + ".sig").write_text(sign(key_dir / "red", raw))
        return move

    report.say(f"\n7. hostile inputs: the {len(entries)} corpus entries, signed by the player to move, through "
               "`pbem submit` and `pbem check` (the tests check that each is refused; here, what it costs)")
    runner = CliRunner()
    costs: list[Cost] = []
    for name in entries:
        move = move_file(name)
        for command, folder in (("submit", game), ("check", player_copy)):
            seconds, megabytes = _in_process(lambda: runner.invoke(main, [command, str(folder), str(move)]))
            costs.append(Cost(f"{command} {name}", seconds, megabytes))
    slowest = max(costs, key=lambda c: c.seconds)
    largest = max(costs, key=lambda c: c.megabytes)
    report.say(f"  in one process: slowest {slowest.what} {slowest.seconds * 1000:.0f} ms; largest memory peak "
               f"{largest.what} {largest.megabytes:.1f} MB (tracemalloc); median "
               f"{sorted(c.seconds for c in costs)[len(costs) // 2] * 1000:.1f} ms")
    report.figures["hostile/in-process"] = {c.what: [c.seconds, c.megabytes] for c in costs}
    report.goal(Goal("slowest hostile input in one process (s)", slowest.seconds, SECONDS, False, " s", GROUP))
    report.goal(Goal("largest memory peak of a hostile input, in one process (MB)", largest.megabytes,
                     MEGABYTES, False, " MB", GROUP))

    report.say(f"  as whole processes: {', '.join(BLOW_UP_ENTRIES)}")
    processes: list[Cost] = []
    for name in BLOW_UP_ENTRIES:
        move = move_file(name)
        for command, folder in (("submit", game), ("check", player_copy)):
            cpu, megabytes = _as_process([command, str(folder), str(move)])
            processes.append(Cost(f"{command} {name}", cpu, megabytes))
            report.say(f"    {command} {name}: {cpu * 1000:.0f} ms of CPU, peak RSS {megabytes:.1f} MB")
    report.figures["hostile/processes"] = {c.what: [c.seconds, c.megabytes] for c in processes}
    slowest = max(processes, key=lambda c: c.seconds)
    largest = max(processes, key=lambda c: c.megabytes)
    report.goal(Goal(f"most CPU of a hostile input as a process (s; {slowest.what})", slowest.seconds,
                     SECONDS, False, " s", GROUP))
    report.goal(Goal(f"largest peak RSS of a hostile input as a process (MB; {largest.what})",
                     largest.megabytes, MEGABYTES, False, " MB", GROUP))
