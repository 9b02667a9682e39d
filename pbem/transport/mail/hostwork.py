"""One game's part of a host cycle, and the worker processes that take many games at once
(`pbem mail run HOST_DIR --jobs N`; docs/moderating.md, "Hosting many games").

The host's main process reads the one mailbox, routes each message to its game and holds each
game's mail lock while the game is worked on.  The game's work -- the receipts it owes, its
messages (its ledger, its submits), its tick, its new digests -- is :func:`work_on_game`, run in
one of N worker processes (in the main process itself with one job or one game to work on).  It
sends nothing: it gives back, in the order the game made them, the messages to send, what to
record once each is out (:class:`~pbem.transport.mail.ledger.ReplySent`,
:class:`~pbem.transport.mail.ledger.DigestSent`) and which handled messages to mark in the
mailbox.  The main process takes the results in the order of a serial run (whichever worker
finishes first), sends each game's messages over its one SMTP session, records them, then
writes the host's ledger: the game's ledger first (by the worker, before anything goes out),
then the sends, then the host's.  A worker killed mid-game leaves what a killed serial cycle
leaves (the next cycle sends the receipts owed and takes the messages again); a game that
fails in a worker is reported on its line and the others go on.
"""
from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from types import TracebackType
from typing import Protocol

from pbem.base.crashreport import refusal_for_crash
from pbem.base.errors import PbemError, one_line
from pbem.base.fsutil import fault_point
from pbem.pipeline.deadlines import tick
from pbem.store.gamedir import GameDir
from pbem.store.missedturns import cadences, rules_of
from pbem.store.table import bot_seats
from pbem.transport.mail.config import MailConfig
from pbem.transport.mail.cycle import DAY, Report, send_changed, take_messages
from pbem.transport.mail.hostconfig import HostConfig, game_config
from pbem.transport.mail.hoststate import Stamp, state_dir
from pbem.transport.mail.imap import Incoming
from pbem.transport.mail.ledger import Commit, Ledger, MailBusyError, ReplySent, SentState
from pbem.transport.mail.remind import digest_went_out, send_reminders

#: games handed to the workers ahead of the one whose result is awaited, per worker
AHEAD_PER_JOB = 2
WORKER_DIED = ("the worker process taking this game stopped before it finished (killed, or out of memory); "
               "the next cycle takes the game up again")


@dataclass(frozen=True)
class Send:
    """A message for the main process to send."""
    msg: EmailMessage
    to: str


@dataclass(frozen=True)
class Handled:
    """A message of the mailbox that the game has handled (marked as such once what went before is out)."""
    source: str


class Deferred:
    """A worker's outbox and mailbox at once: what the game sends, records and marks, in order,
    for the main process to do (it alone talks to the mail servers)."""

    def __init__(self, box_name: str) -> None:
        self._name = box_name
        self.actions: list[Send | Handled | Commit] = []

    @property
    def name(self) -> str:
        return self._name

    def send(self, msg: EmailMessage, to: str) -> None:
        self.actions.append(Send(msg, to))

    def defer(self, commit: Commit) -> bool:
        self.actions.append(commit)
        return True

    def done(self, source: str) -> None:
        self.actions.append(Handled(source))

    def fetch(self, known: set[str]) -> list[Incoming]:
        return []                  # the main process read the mailbox: a worker is given its messages

    def __enter__(self) -> Deferred:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        return None


@dataclass(frozen=True)
class GameTask:
    """What a worker needs to work on one game of the host."""
    folder: Path                   # the host's folder
    name: str                      # the game's folder in it
    host: HostConfig
    box_name: str                  # the mailbox's name (the messages' sources start with it)
    messages: tuple[tuple[Incoming, EmailMessage], ...]
    now: float
    ticks: bool                    # apply the game's deadlines when one may be due
    ticked: Stamp | None           # the log's stamp when its deadlines were last applied
    tick_at: float                 # its next reminder or deadline then (0: none)
    stamp: Stamp                   # the log's stamp when the cycle began


@dataclass
class GameResult:
    """What a worker gives back for one game."""
    name: str
    report: Report = field(default_factory=Report)
    actions: list[Send | Handled | Commit] = field(default_factory=list)
    stamp: Stamp | None = None     # the log's stamp after the game's work
    tick_at: float | None = None   # ticked: when its next reminder or deadline falls (0: none)
    daily: list[str] = field(default_factory=list)   # the players on a daily cadence
    last_hash: str = ""            # the log's last entry's hash
    failure: str = ""              # why the game could not be run ('' when it ran)
    busy: str = ""                 # another command held the game


def work_on_game(task: GameTask) -> GameResult:
    """One game's part of the cycle (the caller holds the game's mail lock); a failure stays on
    this game's result."""
    fault_point(f"host-game:{task.name}")       # the crash tests kill the process working on this game here
    gd = GameDir(task.folder / task.name)
    out = Deferred(task.box_name)
    result = GameResult(task.name, actions=out.actions)
    try:
        cfg = game_config(task.host, gd)
        if task.messages:
            take_messages(gd, cfg, out, out, result.report, lambda _ledger: list(task.messages))
        if task.ticks:
            stamp = log_stamp(gd, task.stamp)
            if task.ticked != stamp or (task.tick_at > 0 and task.now >= task.tick_at):
                result.tick_at = _tick(gd, cfg, out, result.report, task.now)
                result.stamp = log_stamp(gd, task.stamp)
        sent = send_changed(gd, cfg, out)
        if sent.sent:
            result.report.lines += sent.lines
            result.report.sent += sent.sent
        result.stamp = log_stamp(gd, task.stamp)
        entries = gd.entries()
        result.daily = [p for p, c in cadences(entries).items() if c == "daily"]
        result.last_hash = str(entries[-1].get("hash", ""))
    except MailBusyError as exc:
        result.busy = one_line(str(exc))
    except (PbemError, OSError) as exc:
        result.failure = one_line(str(exc))
    except Exception as exc:  # noqa: BLE001 - quarantine: one game's bug must not stop the others
        result.failure = refusal_for_crash(state_dir(task.folder), exc, f"game folder {task.name}", b"")
    return result


def _tick(gd: GameDir, cfg: MailConfig, outbox: Deferred, report: Report, now: float) -> float:
    """`pbem tick --mail` on one game; returns when its next reminder or deadline falls (0: none)."""
    entries = gd.entries()
    if rules_of(entries[0]) is None and not bot_seats(entries):
        return 0.0                    # no deadlines and no bot seat: nothing a tick could do
    done = tick(gd, now, ready=digest_went_out(gd))   # a reminder never overtakes its digest
    if done.closed is not None:
        return 0.0
    for entry in done.entries:
        report.add(f"log entry {entry['index']}: {entry['action']} for {entry['player']} - {entry['reason']}")
    for address in send_reminders(gd, done.reminders, cfg=cfg, outbox=outbox):
        report.add(f"mailed a reminder to {address}")
    rules = rules_of(gd.entries()[0])
    if rules is None or not done.waiting:
        return 0.0
    times = [d.due - 3600 * rules.remind_hours for d in done.waiting if d.due - 3600 * rules.remind_hours > now]
    times += [d.due for d in done.waiting]
    return min(times)


class Sender(Protocol):
    def send(self, msg: EmailMessage, to: str) -> None: ...


class Marker(Protocol):
    def done(self, source: str) -> None: ...


def deliver(result: GameResult, outbox: Sender, box: Marker) -> None:
    """What a game made, in the main process, in the order it made it: each message sent, then
    what is to be recorded once it is out; each handled message marked in the mailbox.  A game's
    ledger is read once, not once per receipt (the game's lock is held: nothing else writes it),
    and still written whole after each receipt."""
    ledgers: dict[Path, Ledger] = {}
    for action in result.actions:
        if isinstance(action, Send):
            outbox.send(action.msg, action.to)
        elif isinstance(action, Handled):
            box.done(action.source)
        elif isinstance(action, ReplySent):
            if action.path not in ledgers:
                ledgers[action.path] = action.load()
            action.apply_to(ledgers[action.path])
        else:
            action.apply()


def log_stamp(gd: GameDir, before: Stamp) -> Stamp:
    """The log's stamp now (the game's work may have appended to it)."""
    try:
        st = gd.log_path.stat()
    except OSError:
        return before
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def daily_due(gd: GameDir, result: GameResult) -> float:
    """When the next daily digest held back falls due (0: none is held back), once the game's
    digests have been recorded as sent."""
    if not result.daily:
        return 0.0
    state = SentState.load(gd)
    held = [state.last_at(p) + DAY for p in result.daily if state.last_hash(p) != result.last_hash]
    return min(held) if held else 0.0


# --- many games at once ------------------------------------------------------------------

Hold = Callable[[GameTask], contextlib.AbstractContextManager[None]]
Finish = Callable[[GameTask, GameResult], None]


def run_games(tasks: Sequence[GameTask], jobs: int, hold: Hold, finish: Finish) -> None:
    """Work on every game of ``tasks``, in ``jobs`` worker processes when there are several jobs
    and several games (else here), and ``finish`` each result here, in the order of ``tasks``.

    ``hold(task)`` (the game's mail lock) is taken here before the game's work is handed out and
    let go after its ``finish``: no other command works on the game in between.  A game that
    ``hold`` finds busy is not worked on (its result says so).  When ``finish`` raises (the mail
    server), the games being worked on are finished by their workers before their locks are
    let go, and nothing more is started."""
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            with contextlib.ExitStack() as lock:
                result = _held(task, hold, lock) or work_on_game(task)
                finish(task, result)
        return
    _Pool(tasks, min(jobs, len(tasks)), hold, finish).run()


def _held(task: GameTask, hold: Hold, lock: contextlib.ExitStack) -> GameResult | None:
    """Take the game's lock into ``lock``; a result saying it is busy when another command has it
    (or why it cannot be taken)."""
    try:
        lock.enter_context(hold(task))
    except MailBusyError as exc:
        return GameResult(task.name, busy=one_line(str(exc)))
    except (PbemError, OSError) as exc:    # its moderator folder cannot be written, say: this game's line only
        return GameResult(task.name, failure=one_line(str(exc)))
    return None


def _context() -> multiprocessing.context.BaseContext:
    """Forked workers where the system has them (Linux): no start-up, the main process's modules and
    games as they are; the platform's default elsewhere."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """A worker's first step: it is killed when the main process dies (killed by cron's timeout,
    the OOM killer, a crash test), never left behind holding the cycle's output open."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:        # the main process died before that
        os._exit(1)


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(jobs, mp_context=_context(), initializer=_die_with_parent, initargs=(os.getpid(),))


#: a game whose worker died with the pool, to be worked on again in a worker of its own
RETRY = None


class _Pool:
    """The worker processes of one cycle, and the games handed out to them, in the order of ``tasks``."""

    def __init__(self, tasks: Sequence[GameTask], jobs: int, hold: Hold, finish: Finish) -> None:
        self.tasks, self.jobs, self.hold, self.finish = tasks, jobs, hold, finish
        self.pending: deque[tuple[GameTask, contextlib.ExitStack, Future[GameResult] | GameResult | None]] = deque()

    def run(self) -> None:
        todo = iter(self.tasks)
        pool = _new_pool(self.jobs)
        try:
            while True:
                while len(self.pending) < self.jobs * AHEAD_PER_JOB and (task := next(todo, None)) is not None:
                    lock = contextlib.ExitStack()
                    busy = _held(task, self.hold, lock)
                    self.pending.append((task, lock, busy or pool.submit(work_on_game, task)))
                if not self.pending:
                    return
                task, lock, work = self.pending[0]
                if work is RETRY:
                    result = _alone(task)
                elif isinstance(work, GameResult):
                    result = work
                else:
                    try:
                        result = _result(task, work)
                    except BrokenProcessPool:       # a worker died, and the pool with it: each of its games
                        pool.shutdown(wait=True)    # again, alone (the one that killed its worker fails alone)
                        pool = _new_pool(self.jobs)
                        self.pending = deque((t, lk, _settled(w)) for t, lk, w in self.pending)
                        continue
                with lock:
                    self.finish(task, result)
                self.pending.popleft()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)   # a game being worked on is finished before its lock goes
            for _task, lock, _work in self.pending:
                lock.close()


def _settled(work: Future[GameResult] | GameResult | None) -> GameResult | None:
    """After a worker died (its pool shut down): the result of a game that finished before, else
    :data:`RETRY` (its worker was stopped with the pool, or it was the one that died)."""
    if work is None or isinstance(work, GameResult):
        return work
    if work.done() and not work.cancelled() and work.exception() is None:
        return work.result()
    return RETRY


def _alone(task: GameTask) -> GameResult:
    """The game in a worker of its own: after a worker died, each game it may have taken down with it."""
    pool = _new_pool(1)
    try:
        return _result(task, pool.submit(work_on_game, task))
    except BrokenProcessPool:
        return GameResult(task.name, failure=WORKER_DIED)
    finally:
        pool.shutdown(wait=True)


def _result(task: GameTask, work: Future[GameResult]) -> GameResult:
    """The game's result (:class:`BrokenProcessPool` when its worker, or another one, died)."""
    try:
        return work.result()
    except BrokenProcessPool:
        raise
    except Exception as exc:  # noqa: BLE001 - a result that could not come back: this game's failure only
        return GameResult(task.name, failure=refusal_for_crash(state_dir(task.folder), exc,
                                                               f"game folder {task.name}", b""))
