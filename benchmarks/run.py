"""`make bench`: the speed figures of issue 12, each beside its goal (printed, never asserted).

    make bench                         # every figure, a few minutes
    make bench SOAK=1                  # 10,000 bot games in one process, memory at start and end
    .venv/bin/python benchmarks/run.py --pairs 9 --json out.json
    .venv/bin/python benchmarks/run.py --only games,submit

Figures (docs/performance.md says how each is measured and what the numbers were):

1. bot games per second, every game, random and greedy bots (4 players, in memory, one core:
   per second of the process's CPU time, the wall-clock figure beside it), each against issue
   24's goals (random >= 100, greedy >= 60), with the instructions per game beside it (valgrind,
   benchmarks/instructions.py; said so when valgrind is not installed);
2. `pbem audit` of a finished 4-player game against its floor (benchmarks/floors.py), in one
   process (goal 1.5) and as whole processes (no goal: issue 24 retired issue 12's whole-process
   ratios, whose floors leave out the libraries a command must load);
3. `pbem submit` as a whole process against the submit floor (no goal, as above);
4. in-process submit at log entry 120 against one at entry 5 (what `mail run` and `git sync` pay);
5. `pbem --help` start-up time;
6. the whole-process ratios of 2 and 3 counted in instructions (valgrind, when installed), and
   what importing click and Jinja2 alone costs against the floors;
7. what each input of the hostile corpus costs (benchmarks/hostile_costs.py): the slowest and the
   largest memory peak in one process, CPU time and peak RSS of the worst as whole processes,
   beside issue 7's goal of 2 s and 200 MB (the tests check the refusals, not their cost).
8. the click-to-move choice graphs (issue 19, benchmarks/graph_bench.py): the capped graphs of
   the pages against the pbem before issue 19 (from git), and whole turns with the caps lifted.
9. one host cycle over 1,000 games with nothing new (issue 24, benchmarks/host_bench.py): wall
   time against 5 s, and peak memory over 1,000 games against 100 (`--only host`).
10. a cycle that takes 100 moves across 100 games (issue 24, benchmarks/cycle_bench.py): per move,
   the in-process submit of each against the floor (everything but the outputs), goal 2x; and
   the same moves through the host's game work with 2 worker processes (`pbem mail run HOST_DIR
   --jobs 2`) against the same serial floor (`--only cycle`); and (10c, no goal) the outputs'
   carriage alone -- the files sealed, encrypted and written, the snapshot -- against the same
   floor: what a move would still cost with digests that cost nothing.

Ratios are measured in alternating pairs (benchmarks/timing.py): the machine is shared.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixedkeys import fixed_keypair
from floors import audit_floor
from hostile_costs import bench_hostile
from graph_bench import bench_graphs
from host_bench import bench_host
from cycle_bench import bench_cycle
import instructions
from timing import Goal, Report, Series, clock, forget_kept, paired, run_process

from pbem.core.bots import simulate
from pbem.core.registry import game_names, load_game
from pbem.core.rng import Rng
from pbem.crypto import keys, sshsig
from pbem.pipeline.audit import audit
from pbem.pipeline.botmoves import bot_move_file, next_to_move
from pbem.pipeline.moderator import reveal
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import render_move
from pbem.store.table import Table

HERE = Path(__file__).resolve().parent
PLAYERS = ["red", "blue", "green", "yellow"]
PIPELINE_GAME = "atlantis"
EARLY, LATE = 5, 120          # the in-process submit compares these log entries
ROUND_SECONDS = 0.8           # a round of bot games lasts about this long
SECTIONS = ("games", "audit", "submit", "help", "instructions", "hostile", "graphs", "host", "cycle")

#: issue 24's goals for every game's bot games (per CPU second), and the rest of issue 12's table
RANDOM_GOAL, GREEDY_GOAL = 100.0, 60.0
GROUP_BOTS = "issue 24: bot games per CPU second, every game (random >= 100, greedy >= 60)"
AUDIT_GOAL, LATE_GOAL, HELP_GOAL_MS = 1.5, 1.1, 150.0


# --- 1. bot games per second ------------------------------------------------------------
def bench_games(report: Report, rounds: int, instruction_games: int) -> None:
    """Games per second of one core, every game, both bots, each judged against issue 24's goals:
    on the process's CPU time, since on a shared machine the wall clock also counts the time
    spent waiting for a core (both printed; on a quiet machine they agree).  Beside each, the
    instructions per game (valgrind: a count the load does not move), when valgrind is installed."""
    report.say("\n1. bot games per second (4 players, whole games in memory, one core; "
               "per CPU second, and per wall-clock second)")
    pairs = [(name, bot) for name in game_names() for bot in ("random", "greedy")]
    for name, bot in pairs:
        game = load_game(name)

        def play(k: int, game: Any = game, bot: str = bot, name: str = name) -> int:
            return simulate(game, PLAYERS, {}, f"bench/{name}/{k}".encode(), bot=bot)[1]
        warm = clock(lambda: play(0))                                  # untimed: imports, caches
        per_round = max(3, math.ceil(ROUND_SECONDS / max(warm, 1e-3)))
        rates, wall_rates, actions = [], [], 0
        for _ in range(rounds):
            t0, c0 = time.perf_counter(), time.process_time()
            actions = sum(play(k) for k in range(per_round))
            rates.append(per_round / max(time.process_time() - c0, 1e-9))
            wall_rates.append(per_round / (time.perf_counter() - t0))
        series, wall = Series(tuple(rates)), Series(tuple(wall_rates))
        report.figures[f"games/{name}/{bot}"] = {"games_per_cpu_s": series.values, "games_per_s": wall.values,
                                                 "games_per_round": per_round,
                                                 "actions_per_game": actions / per_round}
        report.say(f"  {name:<14} {bot:<7} {series.per_second('games/CPU s')}; "
                   f"wall clock {wall.median:.1f} ({wall.low:.1f}-{wall.high:.1f}); {per_round} games a round, "
                   f"{actions / per_round:.0f} actions a game")
    counts = game_instructions(report, pairs, instruction_games)
    for name, bot in pairs:
        rates = report.figures[f"games/{name}/{bot}"]["games_per_cpu_s"]       # type: ignore[index]
        count = counts.get((name, bot))
        beside = f", {count / 1e6:.1f} M instr/game" if count is not None else ""
        report.goal(Goal(f"{bot} bot {name} games/CPU s{beside}", Series(tuple(rates)).median,
                         RANDOM_GOAL if bot == "random" else GREEDY_GOAL, True, group=GROUP_BOTS))


def game_instructions(report: Report, pairs: list[tuple[str, str]], games: int) -> dict[tuple[str, str], float]:
    """Instructions per game of every game and bot (benchmarks/instructions.py), or none (said why)."""
    if games <= 0:
        report.say("  instructions per game: not counted (--game-instructions 0)")
        return {}
    if not instructions.available():
        report.say("  instructions per game: valgrind is not installed (apt-get install valgrind); not counted")
        return {}
    report.say(f"  instructions per game (valgrind, {games} games each after a warm-up game, "
               "benchmarks/instructions.py):")
    counts = instructions.per_game(pairs, games)
    for (name, bot), count in counts.items():
        report.figures[f"games/{name}/{bot}"]["instructions_per_game"] = count    # type: ignore[index]
        report.say(f"  {name:<14} {bot:<7} {count / 1e6:.1f} M instructions a game")
    return counts


# --- a game played through the real pipeline ----------------------------------------------
@dataclass
class Checkpoint:
    """A copy of the moderator's folder at one log entry, and the next signed move."""

    folder: Path
    move: Path
    sig: Path
    key: Path       # the mover's public key file (the submit floor checks against it)

    def restore(self, to: Path) -> None:
        shutil.rmtree(to, ignore_errors=True)
        shutil.copytree(self.folder, to, symlinks=True)


@dataclass
class PipelineGame:
    root: Path
    gd: GameDir
    submit_times: list[float]
    checkpoints: dict[int, Checkpoint]


def play_pipeline(root: Path, wanted: tuple[int, ...]) -> PipelineGame:
    """A 4-player Atlantis game played by random bots through `submit` (the same game every time:
    fixed keys, seed and id), checkpoints kept."""
    key_dir = root / "keys"
    specs = [PlayerSpec(n, fixed_keypair(key_dir / n, n)) for n in PLAYERS]
    fixed_keypair(key_dir / "moderator", "moderator")
    gd = GameDir(root / "game")
    create_game(gd.root, PIPELINE_GAME, specs, {}, b"bench-seed-0123456789abcdef-0123",
                moderator_key=key_dir / "moderator", game_id="bench")
    times: list[float] = []
    checkpoints: dict[int, Checkpoint] = {}
    while (player := next_to_move(table := Table.load(gd))) is not None:
        index = table.last["index"]
        move = bot_move_file(table, player, Rng(b"bench-bot", f"{index}/{player}"))
        raw = render_move(move).encode()
        sig = sshsig.sign(keys.load_private_key(key_dir / player), raw, sshsig.MOVE_NAMESPACE)
        if index in wanted:
            folder = root / f"at-{index}"
            shutil.copytree(gd.root, folder / "game", symlinks=True)
            (folder / "move.yaml").write_bytes(raw)
            (folder / "move.yaml.sig").write_text(sig)
            checkpoints[index] = Checkpoint(folder / "game", folder / "move.yaml", folder / "move.yaml.sig",
                                            key_dir / f"{player}.pub")
        t0 = time.perf_counter()
        submit(gd, raw, sig)
        times.append(time.perf_counter() - t0)
    return PipelineGame(root, gd, times, checkpoints)


def players_copy(gd: GameDir, to: Path) -> GameDir:
    """What a player audits: the game folder without the moderator's private folder."""
    shutil.copytree(gd.root, to, symlinks=True, ignore=shutil.ignore_patterns("moderator"))
    return GameDir(to)


# --- 2. audit --------------------------------------------------------------------------------
def bench_audit(report: Report, pg: PipelineGame, pairs: int, pbem: str) -> None:
    report.say(f"\n2. pbem audit of the finished, revealed 4-player game ({len(pg.gd.entries())} entries) "
               "against its floor (parse log and move files, check the chain and every signature)")
    player = players_copy(pg.gd, pg.root / "player-copy")
    for gd, who in ((player, "player's copy"), (pg.gd, "moderator's copy")):
        r = audit(gd)
        assert r.ok, r.problems
        p = paired(lambda: audit_floor(gd.root), lambda: audit(gd), pairs, reset=forget_kept)   # an auditor audits a game once
        report.say(f"  in one process, {who}: " + p.describe("floor", "audit"))
        report.figures[f"audit/in-process/{who}"] = {"floor": p.floor.values, "audit": p.command.values}
        if who == "player's copy":
            report.goal(Goal("pbem audit / floor, in one process", p.ratio, AUDIT_GOAL, False))
        else:
            report.say(f"     (the moderator's copy also decrypts and re-renders every player's secrets: no goal; "
                       f"ratio {p.ratio:.2f})")
    floor_cmd = run_process([sys.executable, str(HERE / "floors.py"), "audit", str(player.root)])
    audit_cmd = run_process([pbem, "audit", str(player.root)])
    p = paired(floor_cmd, audit_cmd, pairs)
    report.say("  whole processes, player's copy: " + p.describe("floor", "pbem audit"))
    report.figures["audit/process"] = {"floor": p.floor.values, "audit": p.command.values}
    report.say(f"     (no goal: issue 24 retired issue 12's whole-process ratios, whose floor leaves out the libraries "
               f"the command must load; ratio {p.ratio:.2f})")


# --- 3 and 4. submit ----------------------------------------------------------------------
def bench_submit(report: Report, pg: PipelineGame, pairs: int, pbem: str) -> None:
    times = pg.submit_times
    report.say(f"\n3. pbem submit ({len(times)} submits played the game: median {Series(tuple(times)).ms()})")
    early, late = pg.checkpoints[EARLY], pg.checkpoints[max(pg.checkpoints)]
    late_at = max(pg.checkpoints)
    work = pg.root / "work"
    log_copy = pg.root / "floor-log.yaml"
    shutil.copyfile(late.folder / "log.yaml", log_copy)
    floor_cmd = run_process([sys.executable, str(HERE / "floors.py"), "submit", str(log_copy),
                             str(late.move), str(late.sig), str(late.key)])
    submit_cmd = run_process([pbem, "submit", str(work), str(late.move), str(late.sig)])
    p = paired(floor_cmd, submit_cmd, pairs, reset=lambda: late.restore(work))
    report.say(f"  whole processes at entry {late_at}: " + p.describe("submit floor", "pbem submit"))
    report.figures["submit/process"] = {"floor": p.floor.values, "submit": p.command.values, "entry": late_at}
    report.say(f"     (no goal: issue 24 retired issue 12's whole-process ratios, whose floor leaves out click and "
               f"Jinja2, which the command must load: it measured start-up; ratio {p.ratio:.2f})")

    report.say(f"\n4. in-process submit at entry {late_at} against one at entry {EARLY}")
    work_early, work_late = pg.root / "work-early", pg.root / "work-late"
    early_move, late_move = ((c.move.read_bytes(), c.sig.read_text()) for c in (early, late))

    def reset() -> None:
        early.restore(work_early)
        late.restore(work_late)
        forget_kept()
    gc.collect()
    # three times the pairs: one submit is short, and a burst of load on one side moves the ratio
    p = paired(lambda: submit(GameDir(work_early), *early_move), lambda: submit(GameDir(work_late), *late_move),
               3 * pairs, reset=reset)
    report.say("  " + p.describe(f"submit at entry {EARLY}", f"submit at entry {late_at}"))
    report.figures["submit/in-process"] = {"early": p.floor.values, "late": p.command.values, "late_entry": late_at}
    report.goal(Goal(f"in-process submit at entry {late_at} / at entry {EARLY}", p.ratio, LATE_GOAL, False))


# --- 6. instructions ----------------------------------------------------------------------
def valgrind_instructions(argv: list[str]) -> int:
    """The instructions a whole process runs (valgrind's callgrind: a count the load does not move)."""
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                         capture_output=True, text=True)
    found = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"valgrind {' '.join(argv[:3])}... failed:\n{run.stderr[-400:]}")
    return int(found.group(1))


def bench_instructions(report: Report, pg: PipelineGame, pbem: str) -> None:
    """The whole-process ratios again, counted in instructions: one run each (a count does not
    vary), and what the two libraries the commands need beyond the floors (click for the command
    line, Jinja2 for the digests) cost just to import, against the floors."""
    if shutil.which("valgrind") is None:
        report.say("\n6. instructions: valgrind is not installed (apt-get install valgrind); skipped")
        return
    report.say("\n6. instructions of whole processes (valgrind; the machine's load does not move a count)")
    player = pg.root / "player-copy"
    if not player.is_dir():
        players_copy(pg.gd, player)
    late = pg.checkpoints[max(pg.checkpoints)]
    work, log_copy = pg.root / "work", pg.root / "floor-log.yaml"
    python = [sys.executable]
    bare = valgrind_instructions([*python, "-c", "pass"])
    libraries = valgrind_instructions([*python, "-c", "import click, jinja2"]) - bare
    counts: dict[str, tuple[int, int]] = {}
    counts["audit"] = (valgrind_instructions([*python, str(HERE / "floors.py"), "audit", str(player)]),
                       valgrind_instructions([*python, pbem, "audit", str(player)]))
    shutil.copyfile(late.folder / "log.yaml", log_copy)
    floor = valgrind_instructions([*python, str(HERE / "floors.py"), "submit", str(log_copy), str(late.move),
                                   str(late.sig), str(late.key)])
    late.restore(work)
    counts["submit"] = (floor, valgrind_instructions([*python, pbem, "submit", str(work), str(late.move),
                                                      str(late.sig)]))
    for name, (floor, command) in counts.items():
        report.say(f"  pbem {name}: {command / 1e6:.0f} M instructions; its floor {floor / 1e6:.0f} M; "
                   f"ratio {command / floor:.2f}; importing click and Jinja2 alone: {libraries / 1e6:.0f} M "
                   f"({libraries / floor:.2f} of the floor)")
    report.figures["instructions"] = {"python": bare, "click+jinja2": libraries,
                                      **{k: {"floor": f, "command": c} for k, (f, c) in counts.items()}}


# --- 5. start-up -----------------------------------------------------------------------------
def bench_help(report: Report, pairs: int, pbem: str) -> None:
    report.say("\n5. pbem --help (whole process; the floor is a bare `python -c pass`)")
    p = paired(run_process([sys.executable, "-c", "pass"]), run_process([pbem, "--help"]), max(pairs, 7))
    report.say("  " + p.describe("python -c pass", "pbem --help"))
    report.figures["help"] = {"python": p.floor.values, "help": p.command.values}
    report.goal(Goal("pbem --help (ms)", p.command.median * 1000, HELP_GOAL_MS, False, " ms"))


# --- soak -------------------------------------------------------------------------------
def rss_kib() -> int:
    """Resident memory now (Linux /proc), in KiB."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def soak(total: int, traced_games: int) -> None:
    """``total`` bot games in this one process (every game in turn, every tenth with the greedy
    bot); memory after a warm-up round and at the end: it must stay flat.  RSS and the objects
    the garbage collector tracks are printed every 1,000 games; tracemalloc (which slows the
    games about fourfold) follows only the last ``traced_games``: what they leave allocated is
    what each game leaks."""
    import tracemalloc
    names = game_names()
    games = {n: load_game(n) for n in names}

    def play(k: int) -> int:
        name = names[k % len(names)]
        bot = "greedy" if k % 10 == 9 else "random"
        return simulate(games[name], PLAYERS, {}, f"soak/{k}".encode(), bot=bot)[1]

    warm = 10 * len(names)
    for k in range(warm):   # every game with both bots: imports and caches settle
        play(k)
    gc.collect()
    traced_from = max(0, total - traced_games)
    start_rss, start_objects, t0 = rss_kib(), len(gc.get_objects()), time.perf_counter()
    print(f"soak: {total} bot games in one process ({', '.join(names)}; random, every tenth greedy); "
          f"tracemalloc over the last {total - traced_from}")
    print(f"  start: RSS {start_rss / 1024:.1f} MiB, {start_objects} objects tracked by gc")
    actions = 0
    traced_start = 0
    for k in range(warm, warm + total):
        done = k - warm
        if traced_games and done == traced_from:
            gc.collect()
            tracemalloc.start()
            traced_start = tracemalloc.get_traced_memory()[0]
            print(f"  {done:6d} games: tracemalloc on ({traced_start / 1024:.0f} KiB traced)", flush=True)
        actions += play(k)
        done += 1
        if done % 1000 == 0 or done == total:
            gc.collect()
            traced_now = f", traced {tracemalloc.get_traced_memory()[0] / 1024:.0f} KiB" \
                if tracemalloc.is_tracing() else ""
            print(f"  {done:6d} games ({done / (time.perf_counter() - t0):.1f} games/s): RSS "
                  f"{rss_kib() / 1024:.1f} MiB{traced_now}, {len(gc.get_objects())} objects", flush=True)
    end_rss, end_objects = rss_kib(), len(gc.get_objects())
    print(f"  end: RSS {end_rss / 1024:.1f} MiB ({(end_rss - start_rss) / 1024:+.1f} MiB), "
          f"{end_objects} objects ({end_objects - start_objects:+d}), {actions} actions in all")
    if tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        still = sum(s.size for s in snapshot.statistics("filename"))
        print(f"  allocated during the traced games and still alive: {still / 1024:.0f} KiB; largest by line:")
        for stat in snapshot.statistics("lineno")[:5]:
            print(f"    {stat.size / 1024:8.1f} KiB  {stat.count:6d} blocks  {stat.traceback}")
        tracemalloc.stop()


# --- main -------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=9, help="pairs (and rounds) per figure, at least 5 (default 9; "
                    "the in-process submit takes three times as many)")
    ap.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections: {', '.join(SECTIONS)}")
    ap.add_argument("--json", type=Path, help="also write every measurement to this file")
    ap.add_argument("--graph-points", type=int, default=30,
                    help="decision points a game for the choice-graph figures (section 8; default 30)")
    ap.add_argument("--game-instructions", type=int, default=2, metavar="N",
                    help="games a count of section 1's instructions per game (valgrind; 0: not counted; default 2)")
    ap.add_argument("--soak", action="store_true", help="instead: play bot games in one process, print memory")
    ap.add_argument("--soak-games", type=int, default=10_000)
    ap.add_argument("--soak-traced", type=int, default=1_000,
                    help="the last this many soak games run under tracemalloc (0: none; it slows them)")
    args = ap.parse_args()
    if args.soak:
        soak(args.soak_games, args.soak_traced)
        return
    if args.pairs < 5:
        ap.error("--pairs must be at least 5")
    only = set(args.only.split(","))
    pbem = str(Path(sys.executable).with_name("pbem"))
    report = Report()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    report.say(f"pbem benchmarks: python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load}, "
               f"{args.pairs} pairs/rounds a figure (median, min-max)")
    report.figures["machine"] = {"python": sys.version.split()[0], "cores": os.cpu_count(), "load": os.getloadavg(),
                                 "when": time.strftime("%Y-%m-%d %H:%M:%S")}
    if "games" in only:
        bench_games(report, args.pairs, args.game_instructions)
    if only & {"audit", "submit", "instructions"}:
        root = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
        try:
            report.say(f"\n(playing a 4-player {PIPELINE_GAME} game through submit, as the audit and submit "
                       "figures need it)")
            pg = play_pipeline(root, (EARLY, LATE))
            if LATE not in pg.checkpoints:
                report.say(f"  (the game ended before entry {LATE}; using its last checkpoint)")
            reveal(pg.gd)
            if "audit" in only:
                bench_audit(report, pg, args.pairs, pbem)
            if "submit" in only:
                bench_submit(report, pg, args.pairs, pbem)
            if "instructions" in only:
                bench_instructions(report, pg, pbem)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    if "help" in only:
        bench_help(report, args.pairs, pbem)
    if "hostile" in only:
        root = Path(tempfile.mkdtemp(prefix="pbem-bench-hostile-"))
        try:
            bench_hostile(report, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    if "graphs" in only:
        bench_graphs(report, limit=args.graph_points)
    if "host" in only:
        root = Path(tempfile.mkdtemp(prefix="pbem-bench-host-"))
        try:
            bench_host(report, root, pbem, max(3, args.pairs // 3))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    if "cycle" in only:
        root = Path(tempfile.mkdtemp(prefix="pbem-bench-cycle-"))
        try:
            bench_cycle(report, root, max(3, args.pairs // 2))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    report.summary()
    if args.json:
        args.json.write_text(json.dumps({"figures": report.figures,
                                         "goals": [{**g.__dict__, "met": g.met} for g in report.goals]},
                                        indent=1, default=list) + "\n")


if __name__ == "__main__":
    main()
