"""Fair timing on a shared, noisy machine: paired runs, medians and spread, goals as ratios.

A figure that is a ratio (audit / its floor, submit / its floor, a late submit / an early one)
is measured in *pairs*: the floor and the command run one right after the other, the order
swapped every pair (floor-command, command-floor, ...), so that a burst of load from another
process lands on both sides about equally.  The ratio reported is the median of the pairs'
own ratios (each pair saw about the same load, so a shift of the load during the run moves
both sides of a pair, not its ratio), with their range; each side's median is printed too.
"""
from __future__ import annotations

import statistics
import subprocess
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence


@dataclass(frozen=True)
class Series:
    """Repeated measurements of one thing (seconds, or games per second)."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    def ms(self) -> str:
        """``median ms (min-max, n runs)``."""
        return (f"{self.median * 1000:.1f} ms ({self.low * 1000:.1f}-{self.high * 1000:.1f}, "
                f"{len(self.values)} runs)")

    def per_second(self, unit: str) -> str:
        return f"{self.median:.1f} {unit} ({self.low:.1f}-{self.high:.1f}, {len(self.values)} rounds)"


@dataclass(frozen=True)
class Pairs:
    """Floor and command timed in alternating pairs."""

    floor: Series
    command: Series

    @property
    def ratio(self) -> float:
        """The median of the pairs' own ratios."""
        return statistics.median(self.pair_ratios)

    @property
    def pair_ratios(self) -> list[float]:
        return [c / f for f, c in zip(self.floor.values, self.command.values)]

    def describe(self, floor_name: str, command_name: str) -> str:
        r = self.pair_ratios
        return (f"{command_name} {self.command.ms()}; {floor_name} {self.floor.ms()}; "
                f"ratio {self.ratio:.2f} (pairs {min(r):.2f}-{max(r):.2f})")


def clock(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def forget_kept() -> None:
    """Forget what pbem keeps from one call to the next in a process, keyed by content (bounded caches
    of pure functions: the board parts drawn, the texts read, the signatures checked, the mail
    pictures), so that a timed round that repeats the last one's moves pays what a process meeting
    them for the first time pays: a cycle never takes the same moves twice, and an auditor audits a
    game once.  (Each is looked up by name: a pbem from before it is measured beside.)"""
    import importlib
    for module, name in (("pbem.views.render.boardmemo", "LASTING"), ("pbem.base.yamlio", "_read_json"),
                         ("pbem.crypto.sshsig", "_verifies"), ("pbem.transport.mail.compose", "board_picture"),
                         ("pbem.views.render.digest", "_section_html"), ("pbem.crypto.agecrypt", "_recipient")):
        kept = getattr(importlib.import_module(module), name, None)
        if hasattr(kept, "cache_clear"):         # an lru_cache
            kept.cache_clear()
        elif kept is not None:                   # the board memo
            kept.clear()


def paired(floor: Callable[[], object], command: Callable[[], object], pairs: int,
           reset: Callable[[], object] | None = None) -> Pairs:
    """Time ``floor`` and ``command`` ``pairs`` times each, alternating, order swapped every pair.

    ``reset`` runs (untimed) before each timed call: e.g. putting a game folder back as it was."""
    floors: list[float] = []
    commands: list[float] = []
    for k in range(pairs):
        order = [(floor, floors), (command, commands)]
        for fn, out in order if k % 2 == 0 else reversed(order):
            if reset is not None:
                reset()
            out.append(clock(fn))
    return Pairs(Series(tuple(floors)), Series(tuple(commands)))


def run_process(argv: Sequence[str]) -> Callable[[], None]:
    """A whole process as a timed callable (its output is captured; a failure stops the bench)."""
    def run() -> None:
        done = subprocess.run(list(argv), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return run


@dataclass(frozen=True)
class Goal:
    """One figure of the issue's table beside its goal."""

    name: str
    value: float
    goal: float
    higher_is_better: bool
    unit: str = ""
    #: which summary it goes under
    group: str = "the figures of issue 12's table"

    @property
    def met(self) -> bool:
        return self.value >= self.goal if self.higher_is_better else self.value <= self.goal

    @property
    def of_goal(self) -> float:
        """The figure as a fraction of what the goal asks (>= 1.0 means met)."""
        if self.higher_is_better:
            return self.value / self.goal
        return self.goal / self.value if self.value else float("inf")

    def line(self) -> str:
        op = ">=" if self.higher_is_better else "<="
        verdict = "met" if self.met else "not met"
        return (f"{self.name:<70} {self.value:8.2f}{self.unit:<4} goal {op} {self.goal:g}{self.unit:<4} "
                f"{self.of_goal:5.2f} of goal  {verdict}")


@dataclass
class Report:
    """Everything measured, printed as it comes and summarised at the end."""

    goals: list[Goal] = field(default_factory=list)
    figures: dict[str, object] = field(default_factory=dict)

    def say(self, line: str) -> None:
        print(line, flush=True)

    def goal(self, goal: Goal) -> None:
        self.goals.append(goal)
        self.say("  -> " + goal.line())

    def summary(self) -> None:
        for title in dict.fromkeys(g.group for g in self.goals):   # in the order they came
            goals = [g for g in self.goals if g.group == title]
            if goals:
                self.say(f"\nsummary: {title}")
                for g in goals:
                    self.say("  " + g.line())
                self.say(f"  {sum(g.met for g in goals)} of {len(goals)} met")
