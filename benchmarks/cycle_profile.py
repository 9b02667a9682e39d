"""Profile the outputs of a cycle of submits (issue 24's per-move figure), in CPU time.

Run from the checkout:  .venv/bin/python benchmarks/cycle_profile.py [PER_KIND] [--prof FILE]
It builds PER_KIND (default 10) waiting moves of each of the four games (benchmarks/cycle_bench.py's
make_games), then times (process CPU) the floor (no outputs) and the full submit of the same moves,
and the outputs' carriage alone (cycle_bench.carriage_work: sealed, encrypted, written, the snapshot),
and writes a cProfile of the full submits to FILE (default /tmp/cyc-<pid>.prof).
Read it:  .venv/bin/python -c "import pstats; pstats.Stats('FILE').sort_stats('cumulative').print_stats(50)"
"""
from __future__ import annotations

import cProfile
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cycle_bench  # noqa: E402
from pbem.store.gamedir import GameDir  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
per_kind = int(args[0]) if args else 10
prof_file = sys.argv[sys.argv.index("--prof") + 1] if "--prof" in sys.argv else f"/tmp/cyc-{os.getpid()}.prof"
root = Path(tempfile.mkdtemp(prefix="cycprof-"))
try:
    waiting = cycle_bench.make_games(root, per_kind=per_kind, last=60)
    work = [GameDir(root / "work" / w.source.name) for w in waiting]
    reset, floor, cycle = cycle_bench.cycle_work(waiting, work)

    reset()
    cycle()                     # warm-up
    best: dict[str, float] = {}
    for name, fn in (("floor", floor), ("cycle", cycle), ("floor", floor), ("cycle", cycle)):
        reset()
        t = time.process_time()
        fn()
        dt = (time.process_time() - t) / len(waiting) * 1000
        best[name] = min(best.get(name, 1e9), dt)
    print(f"per move CPU ms: floor {best['floor']:.1f}, cycle {best['cycle']:.1f}, "
          f"outputs {best['cycle'] - best['floor']:.1f}, ratio {best['cycle'] / best['floor']:.2f}")
    carriage = cycle_bench.carriage_work(work, reset, cycle)
    for _ in range(2):
        reset()
        t = time.process_time()
        carriage()
        best["carriage"] = min(best.get("carriage", 1e9), (time.process_time() - t) / len(waiting) * 1000)
    print(f"the carriage alone (sealed, encrypted, written, the snapshot; no digest made): {best['carriage']:.1f} "
          f"CPU ms a move, {best['carriage'] / best['floor']:.2f} floors")
    reset()
    pr = cProfile.Profile()
    pr.enable()
    cycle()
    pr.disable()
    pr.dump_stats(prof_file)
    print("profile:", prof_file)
finally:
    shutil.rmtree(root, ignore_errors=True)
