"""`make bench`, section 8: the click-to-move choice graphs (issue 19; whole turns: issue 21).

(a) The graphs a page carries today (``MAIL_CAPS``, ``SHOW_CAPS``), at sampled decision points
of a seeded random-bot game of each game, built by today's pbem and by the pbem of before
issue 19 (its files taken from git, commit :data:`BEFORE`): two worker processes
(graph_worker.py) asked in turn, point by point, the order swapped every point.  Per game: the
CPU seconds of each, their ratio against the goal (at least 3 times less), and whether the
page data is byte for byte the same.

(b) Whole turns: the same points with the caps lifted (``graph_worker.CAPS["turn"]``: 20,000
decisions, 400,000 edges, no byte cap), today's pbem only: per game and per decision kind,
how many graphs were whole (no edge cut), nodes, edges, CPU seconds and gzipped page bytes.
"""
from __future__ import annotations

import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import graph_worker
from timing import Goal, Report

from pbem.views.choicegraph import build_graph, graph_data, packed_size

HERE = Path(__file__).resolve().parent
#: the last commit before issue 19: the "before" of the graph figures
BEFORE = "a3eb2d18f74083a93f292e3bf18903be5e96c774"
GAMES = ("atlantis", "space-attack", "atlantis-1986", "space-swarm")
RATIO_GOAL = 3.0


def before_tree(into: Path) -> str:
    """pbem's files at :data:`BEFORE` written under ``into`` ("" when done, else why not)."""
    try:
        done = subprocess.run(["git", "-C", str(HERE.parent), "archive", BEFORE, "pbem", "games", "templates"],
                              capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"git is not at hand ({exc})"
    if done.returncode != 0:
        return f"the git history has no commit {BEFORE} ({done.stderr.decode(errors='replace').strip()[:200]})"
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):       # (Python 3.12, and 3.11.4 on)
            tar.extractall(into, filter="data")
        else:                                      # pragma: no cover - our own archive, from git
            tar.extractall(into)
    return ""


@dataclass
class Worker:
    """A graph_worker.py process (on ``path`` before the installed pbem when given)."""

    games: str
    every: int
    limit: int
    path: str = ""
    process: subprocess.Popen[str] = field(init=False)
    points: int = field(init=False)

    def __post_init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        if self.path:
            env["PYTHONPATH"] = self.path
        self.process = subprocess.Popen([sys.executable, str(HERE / "graph_worker.py"), self.games, str(self.every),
                                         str(self.limit)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env=env, cwd=tempfile.gettempdir())
        self.points = int(self._line().split()[1])

    def _line(self) -> str:
        out: IO[str] | None = self.process.stdout
        line = out.readline() if out is not None else ""
        if not line:
            raise SystemExit(f"graph worker ({self.path or 'today'}) stopped: exit {self.process.wait()}")
        return line

    def ask(self, point: int, caps: str) -> tuple[str, float, str]:
        """(game, CPU seconds, fingerprint of the page data) of the graph at ``point``."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{point} {caps}\n")
        self.process.stdin.flush()
        game, cpu, fingerprint, _nodes = self._line().split()
        return game, float(cpu), fingerprint

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def bench_capped(report: Report, every: int, limit: int) -> None:
    report.say(f"\n8a. click-to-move graphs as pages carry them (MAIL_CAPS and SHOW_CAPS), every {every}th "
               f"decision of a seeded 3-player random-bot game, {limit} a game: today's pbem against the pbem "
               f"of commit {BEFORE[:10]} (before issue 19), CPU seconds, asked in turn")
    with tempfile.TemporaryDirectory(prefix="pbem-before-") as old, ExitStack() as stack:
        why = before_tree(Path(old))
        if why:
            report.say(f"  (no before figure: {why})")
            return
        games = ",".join(GAMES)
        today, before = Worker(games, every, limit), Worker(games, every, limit, old)
        stack.callback(today.close)
        stack.callback(before.close)
        if today.points != before.points:
            raise SystemExit(f"the two versions play different games ({today.points} / {before.points} points)")
        cpu: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        differ: dict[str, int] = defaultdict(int)
        asked: dict[str, int] = defaultdict(int)
        for point in range(today.points):
            for caps in ("mail", "show"):
                order = (today, before) if (point + (caps == "show")) % 2 == 0 else (before, today)
                answers = {worker.path: worker.ask(point, caps) for worker in order}
                game, now, fingerprint = answers[""]
                cpu[game][0] += answers[old][1]
                cpu[game][1] += now
                differ[game] += fingerprint != answers[old][2]
                asked[game] += 1
    for game in GAMES:
        was, now = cpu[game]
        same = "byte-identical" if not differ[game] else f"{differ[game]} DIFFER"
        report.say(f"  {game:<14} {asked[game]:3d} graphs: before {was:6.2f} s, today {now:6.2f} s; page data {same}")
        report.figures[f"graphs/capped/{game}"] = {"before_cpu_s": was, "today_cpu_s": now, "graphs": asked[game],
                                                  "differ": differ[game]}
        report.goal(Goal(f"capped graphs, {game}: CPU before / today", was / max(now, 1e-9), RATIO_GOAL,
                         True, "x", group="the choice graphs of issue 19"))
    was = sum(c[0] for c in cpu.values())
    now = sum(c[1] for c in cpu.values())
    report.goal(Goal("capped graphs, the four games: CPU before / today", was / max(now, 1e-9),
                     RATIO_GOAL, True, "x", group="the choice graphs of issue 19"))


@dataclass
class Turn:
    game: str
    kind: str
    nodes: int
    edges: int
    cpu: float
    gzip: int
    whole: bool


def bench_turns(report: Report, every: int, limit: int) -> None:
    caps = graph_worker.CAPS["turn"]
    report.say(f"\n8b. whole turns to their real stops (caps lifted: {caps.nodes} decisions, {caps.applies} edges, "
               "no byte cap), today's pbem, the same points as 7a")
    turns = []
    for game, g, state, player in graph_worker.points(list(GAMES), every, limit):
        kind = g.pending(state)[0].kind
        start = time.process_time()
        graph = build_graph(g, state, player, caps)
        cpu = time.process_time() - start
        if graph is None:
            continue
        turns.append(Turn(game, kind, len(graph.nodes), sum(len(n.actions) for n in graph.nodes), cpu,
                          packed_size(graph_data(graph)), not graph.cut))
    for label, key in (("game", lambda t: t.game), ("decision", lambda t: f"{t.game} {t.kind}")):
        groups: dict[str, list[Turn]] = defaultdict(list)
        for t in turns:
            groups[key(t)].append(t)
        report.say(f"  by {label}: points, whole, nodes median/max, edges median/max, CPU s median/max, "
                   "gzipped bytes median/max")
        for name, group in groups.items():
            report.say(f"    {name:<28} {len(group):3d} {sum(t.whole for t in group):3d} whole  "
                       f"{_spread([t.nodes for t in group])}  {_spread([t.edges for t in group])}  "
                       f"{_spread([t.cpu for t in group], '.2f')}  {_spread([t.gzip for t in group])}")
    report.figures["graphs/turns"] = [t.__dict__ for t in turns]
    whole = sum(t.whole for t in turns)
    report.say(f"  {whole} of {len(turns)} whole turns complete within the lifted caps "
               f"({100 * whole / max(len(turns), 1):.0f}%); CPU {sum(t.cpu for t in turns):.1f} s in all")


def _spread(values: list[Any], fmt: str = "d") -> str:
    return f"{statistics.median(values):{'.2f' if fmt != 'd' else '.0f'}}/{max(values):{fmt}}"


def bench_graphs(report: Report, every: int = 5, limit: int = 30) -> None:
    bench_capped(report, every, limit)
    bench_turns(report, every, limit)
