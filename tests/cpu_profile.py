"""``--cpu-report N``: what each test costs in CPU time, and the N dearest (``make test-profile``).

Each phase of a test (set-up, call, tear-down) is charged the CPU time its process spent
(user + system, the worker's own and that of the subprocesses it waited for: pbem, git,
ssh-keygen, age) since the phase before; under pytest-xdist the figure travels to the
controller on the test's report.  At the end the controller prints the sum over the tests,
the wall time of the run, and the N dearest tests with their wall time beside.  A session
fixture's cost lands on the first test that asks for it: a cache built once shows as one
dear test, not as a cost spread thin.  The whole run's CPU (workers' start-up and collection
included) is what ``/usr/bin/time`` prints around it in ``make test-profile``.
"""
from __future__ import annotations

import json
import resource
import time
from collections import defaultdict
from typing import Any, Generator

import pytest


#: CPU seconds of processes this one did not wait for itself, told by :func:`charge`
_charged = [0.0]


def charge(seconds: float) -> None:
    """Count ``seconds`` of CPU spent by a process that another process waited for (a command the
    crash runner's zygote forked and reaped): charged to the test running now.  When this process
    reaps that other one, its children's CPU comes in again: then ``charge(-seconds)`` takes it back."""
    _charged[0] += seconds


def cpu_now() -> float:
    """CPU seconds of this process and of the children it has waited for, user and system, and those charged."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + _charged[0]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-report", type=int, default=0, metavar="N",
                     help="print the CPU time of the whole run and of the N dearest tests")
    parser.addoption("--cpu-json", default="", metavar="PATH",
                     help="with --cpu-report: write every test's CPU and wall seconds to PATH as JSON")


def pytest_configure(config: pytest.Config) -> None:
    top = config.getoption("cpu_report", 0)
    if top:
        config.pluginmanager.register(CpuReport(top, is_worker=hasattr(config, "workerinput"),
                                                json_path=config.getoption("cpu_json", "")), "pbem-cpu-report")


class CpuReport:
    """Charges each test phase its CPU time (in a worker) and adds the figures up (in the controller)."""

    def __init__(self, top: int, is_worker: bool, json_path: str = "") -> None:
        self.top = top
        self.json_path = json_path
        self.is_worker = is_worker
        self.since = cpu_now()
        self.started = time.monotonic()
        self.costs: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        self.since = cpu_now()
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Generator[None, Any, None]:
        outcome = yield
        now = cpu_now()
        outcome.get_result().cpu_seconds = now - self.since
        self.since = now

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        cpu = getattr(report, "cpu_seconds", None)
        if cpu is not None:
            self.costs[report.nodeid][0] += cpu
            self.costs[report.nodeid][1] += report.duration

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker:
            return
        wall = time.monotonic() - self.started
        total = sum(cpu for cpu, _ in self.costs.values())
        terminalreporter.section(f"CPU time: the {min(self.top, len(self.costs))} dearest of {len(self.costs)} tests")
        terminalreporter.write_line(f"the tests' CPU {total:.0f} s in all (set-up and tear-down included); "
                                    f"wall {wall:.0f} s from start-up")
        for nodeid, (cpu, duration) in sorted(self.costs.items(), key=lambda kv: -kv[1][0])[:self.top]:
            terminalreporter.write_line(f"{cpu:8.1f} s CPU {duration:8.1f} s wall  {nodeid}")
        if self.json_path:
            with open(self.json_path, "w", encoding="utf-8") as out:
                json.dump({nodeid: {"cpu": round(cpu, 3), "wall": round(duration, 3)}
                           for nodeid, (cpu, duration) in sorted(self.costs.items())}, out, indent=0)
