"""One mailbox, one cron line, a folder of games: the host's mail cycle (docs/moderating.md,
"Hosting many games").

    FOLDER/pbem-host.toml          the host's mailbox, SMTP login and sender (hostconfig.py)
    FOLDER/GAME/                   each game, as `pbem new` made it, with GAME/moderator/mail.toml
                                   naming its players' addresses
    FOLDER/.pbem-host/             the host's private bookkeeping (hoststate.py)

A cycle, in one process with the mail servers (and ``--jobs N`` worker processes for the games'
work: hostwork.py):

1. Read the new messages of the one mailbox, oldest first.
2. Route each to its game: the signed move's own ``game:`` line, read from the raw bytes
   with a bounded scan (route.py); a message without one by its thread.  The game's own
   ``pbem submit`` then checks the signature with *that* game's seat keys.
3. For each game with messages, under that game's own mail lock: the receipts an earlier run
   owes, then its messages as ``pbem mail run`` takes them (its own ledger: each message
   submitted and answered once), then its new digests.  Whatever goes wrong in one game (a
   damaged log, a missing settings file, a game busy with a command by hand) is reported on
   that game's line and its messages wait for the next cycle; the other games go on.
4. The digests of every other game whose log changed since its digests were last sent (a
   ``stat`` per game tells: an idle game costs no read).

Steps 3 and 4 are the games' work, game after game by folder name: with several jobs and several
games to work on, each game is taken whole by one worker process while the others take others;
what the games send comes back here, and goes out over the one SMTP session in that order.

Only the mail servers stop a cycle: the next cycle goes on from where it stopped.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.store.gamedir import GameDir
from pbem.transport.mail.cycle import (
    LazySender, Report, _header, _header_values, _read_moves, _shown, _too_big, open_inbox, sorted_messages,
)
from pbem.transport.mail.hostconfig import HostConfig, default_jobs, load_host
from pbem.transport.mail.hoststate import GameIndex, game_folders, host_ledger, host_lock
from pbem.transport.mail.hostwork import GameResult, GameTask, daily_due, deliver, run_games
from pbem.transport.mail.imap import Inbox, Incoming, MailFetchError
from pbem.transport.mail.ledger import IGNORED, mail_lock, message_key
from pbem.transport.mail.route import hinted_games, named_games, route
from pbem.transport.mail.smtp import MailSendError

ROUTED = "routed"


@dataclass
class HostReport:
    """What happened, game by game (a game's lines start with its folder's name)."""

    lines: list[str] = field(default_factory=list)
    games: int = 0                   # game folders in the host folder
    looked_at: list[str] = field(default_factory=list)  # games with mail or a changed log this cycle
    failed: list[str] = field(default_factory=list)     # games that could not be run
    accepted: int = 0
    rejected: int = 0
    ignored: int = 0
    replies: int = 0
    sent: int = 0

    @property
    def idle(self) -> bool:
        return not self.lines

    def add_game(self, name: str, report: Report) -> None:
        for line in report.lines:
            self.lines.append(f"{name}: {line}")
        self.accepted += report.accepted
        self.rejected += report.rejected
        self.ignored += report.ignored
        self.replies += report.replies
        self.sent += report.sent


Routed = tuple[Incoming, EmailMessage, str]     # the message, parsed, its key


def run_host(folder: Path, env: Mapping[str, str] | None = None, inbox: Inbox | None = None,
             now: float | None = None, ticks: bool = True, jobs: int | None = None) -> HostReport:
    """One cycle over every game in ``folder`` (see the module's description); with ``ticks``,
    each game's deadlines are applied too (`pbem tick --mail`), when one may have come.  ``jobs``:
    the worker processes that take the games (``--jobs``; else the host's ``jobs`` setting, else
    :func:`~pbem.transport.mail.hostconfig.default_jobs`)."""
    folder = folder.resolve()
    host = load_host(folder, env)
    host.mail.require_smtp().check_login("SMTP")
    now = time.time() if now is None else now
    with host_lock(folder):
        return _Cycle(folder, host, now, ticks, jobs or host.jobs or default_jobs()).run(inbox)


class _Cycle:
    def __init__(self, folder: Path, host: HostConfig, now: float, ticks: bool, jobs: int) -> None:
        self.folder, self.host, self.now, self.ticks, self.jobs = folder, host, now, ticks, jobs
        self.report = HostReport()
        self.found = game_folders(folder)
        self.index = GameIndex.load(folder)
        self.report.games = len(self.found)

    def run(self, inbox: Inbox | None) -> HostReport:
        try:
            self.report.lines += self.index.refresh(self.folder, self.found)
            folders = self.index.folders_of()
            with (inbox or open_inbox(self.host.mail)) as box, LazySender(self.host.mail) as outbox:
                ledger = host_ledger(self.folder)
                per_game: dict[str, list[Routed]] = {}
                for item, msg in sorted_messages(box, ledger.sources()):
                    self._route(ledger, item, msg, folders, per_game)
                names = [name for name, stamp in sorted(self.found.items()) if name in per_game
                         or self.index.needs_visit(name, stamp, self.now, self.ticks)]     # by folder name
                tasks = [self._task(name, box.name, per_game.get(name, [])) for name in names]
                run_games(tasks, self.jobs, lambda task: mail_lock(GameDir(self.folder / task.name)),
                          lambda task, result: self._finish(result, box, outbox, ledger, per_game.get(task.name, [])))
        finally:
            self.index.save()
        return self.report

    def _route(self, ledger: Any, item: Incoming, msg: EmailMessage, folders: dict[str, str],
               per_game: dict[str, list[Routed]]) -> None:
        message_id = _header(msg, "Message-ID")
        key = message_key(message_id, item.raw)
        if key in ledger.records:              # the same message again (in another folder, say)
            ledger.add_source(key, item.source)
            return
        intake = _too_big(item) or _read_moves(msg)
        hints = hinted_games(msg, lambda name: _header(msg, name), lambda name: _header_values(msg, name))
        named = named_games(intake)
        game, how = route(named, hints, folders.__contains__)
        if game:
            per_game.setdefault(folders[game], []).append((item, msg, key))
            return
        waiting = [g for g in (*named, *hints) if g in self.index.clashing_ids()]
        if waiting:                            # its game is in two folders: it waits until one is left
            self.report.lines.append(f"waiting: message {_shown(message_id) or '(no Message-ID)'} is for game "
                                     f"{waiting[0]}, which is in two folders")
            return
        ledger.put(key, {"message_id": message_id, "from": _header(msg, "From"), "subject": _header(msg, "Subject"),
                         "sources": [item.source], "status": IGNORED, "reason": how})
        self.report.ignored += 1
        self.report.lines.append(f"left alone: message {_shown(message_id) or '(no Message-ID)'} from "
                                 f"{_shown(_header(msg, 'From')) or '?'}: {how}")

    def _task(self, name: str, box_name: str, messages: list[Routed]) -> GameTask:
        rec = self.index.games[name]
        return GameTask(self.folder, name, self.host, box_name, tuple(m[:2] for m in messages), self.now,
                        self.ticks, rec.ticked, rec.tick_at, self.found[name])

    def _finish(self, result: GameResult, box: Inbox, outbox: LazySender, ledger: Any,
                messages: list[Routed]) -> None:
        """One game's result, here in the main process: send what it made, over the one SMTP
        session, recording each message once it is out; then the game's line and the host's ledger."""
        name = result.name
        try:
            deliver(result, outbox, box)
        except (MailFetchError, MailSendError):
            self.report.add_game(name, result.report)
            raise                        # the servers: stop; the next cycle goes on from here
        gd = GameDir(self.folder / name)
        if result.tick_at is not None and result.stamp is not None:
            self.index.mark_ticked(name, result.stamp, result.tick_at)
        if result.busy:
            self.report.add_game(name, result.report)
            self.report.lines.append(f"{name}: busy ({result.busy}); {len(messages)} message(s) wait for the next cycle")
            return
        if result.failure:
            self._failed(name, result.report, result.failure, messages)
            return
        self.index.mark_sent(name, result.stamp or self.found[name], daily_due(gd, result))
        self.report.add_game(name, result.report)
        self.report.looked_at.append(name)
        for item, msg, key in messages:       # recorded only now: a crash before brings them back
            ledger.put(key, {"message_id": _header(msg, "Message-ID"), "game": name, "sources": [item.source],
                             "status": ROUTED})

    def _failed(self, name: str, game_report: Report, reason: str, messages: list[Routed]) -> None:
        self.report.add_game(name, game_report)
        self.report.failed.append(name)
        news = self.index.mark_broken(name, reason)
        if news or messages:
            waiting = f"; {len(messages)} message(s) wait for the next cycle" if messages else ""
            self.report.lines.append(f"{name}: not run: {reason}{waiting}")
