"""One mailbox, one cron line, a folder of games: the host's mail cycle (docs/moderating.md,
"Hosting many games").

    FOLDER/pbem-host.toml          the host's mailbox, SMTP login and sender (hostconfig.py)
    FOLDER/GAME/                   each game, as `pbem new` made it, with GAME/moderator/mail.toml
                                   naming its players' addresses
    FOLDER/.pbem-host/             the host's private bookkeeping (hoststate.py)

A cycle, in one process:

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

Only the mail servers stop a cycle: the next cycle goes on from where it stopped.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.base.crashreport import refusal_for_crash
from pbem.base.errors import PbemError, one_line
from pbem.pipeline.deadlines import tick
from pbem.store.gamedir import GameDir
from pbem.store.missedturns import cadences, rules_of
from pbem.store.table import bot_seats
from pbem.transport.mail.cycle import (
    DAY, LazySender, Report, _header, _header_values, _read_moves, _shown, _too_big, open_inbox, send_changed,
    sorted_messages, take_messages,
)
from pbem.transport.mail.config import MailConfig
from pbem.transport.mail.hostconfig import HostConfig, game_config, load_host
from pbem.transport.mail.hoststate import GameIndex, Stamp, game_folders, host_ledger, host_lock, state_dir
from pbem.transport.mail.imap import Inbox, Incoming, MailFetchError
from pbem.transport.mail.ledger import IGNORED, MailBusyError, SentState, mail_lock, message_key
from pbem.transport.mail.remind import digest_went_out, send_reminders
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
             now: float | None = None, ticks: bool = True) -> HostReport:
    """One cycle over every game in ``folder`` (see the module's description); with ``ticks``,
    each game's deadlines are applied too (`pbem tick --mail`), when one may have come."""
    folder = folder.resolve()
    host = load_host(folder, env)
    host.mail.require_smtp().check_login("SMTP")
    now = time.time() if now is None else now
    with host_lock(folder):
        return _Cycle(folder, host, now, ticks).run(inbox)


class _Cycle:
    def __init__(self, folder: Path, host: HostConfig, now: float, ticks: bool) -> None:
        self.folder, self.host, self.now, self.ticks = folder, host, now, ticks
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
                for name, messages in per_game.items():
                    self._game(name, box, outbox, ledger, messages)
                for name, stamp in sorted(self.found.items()):
                    if name not in per_game and self.index.needs_visit(name, stamp, self.now, self.ticks):
                        self._game(name, box, outbox, ledger, [])
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

    def _game(self, name: str, box: Inbox, outbox: LazySender, ledger: Any, messages: list[Routed]) -> None:
        """One game's part of the cycle; a failure stays on this game's line."""
        gd = GameDir(self.folder / name)
        stamp = self.found[name]
        game_report = Report()
        try:
            with mail_lock(gd):
                cfg = game_config(self.host, gd)
                if messages:
                    take_messages(gd, cfg, box, outbox, game_report, lambda _ledger: [m[:2] for m in messages])
                if self.ticks and self.index.needs_tick(name, _stamp(gd, stamp), self.now):
                    tick_at = self._tick(gd, cfg, outbox, game_report)
                    self.index.mark_ticked(name, _stamp(gd, stamp), tick_at)
                sent = send_changed(gd, cfg, outbox)
                if sent.sent:
                    game_report.lines += sent.lines
                    game_report.sent += sent.sent
                self.index.mark_sent(name, _stamp(gd, stamp), _daily_due(gd))
        except (MailFetchError, MailSendError):
            self.report.add_game(name, game_report)
            raise                        # the servers: stop; the next cycle goes on from here
        except MailBusyError as exc:
            self.report.add_game(name, game_report)
            self.report.lines.append(f"{name}: busy ({one_line(str(exc))}); "
                                     f"{len(messages)} message(s) wait for the next cycle")
            return
        except (PbemError, OSError) as exc:
            self._failed(name, game_report, one_line(str(exc)), messages)
            return
        except Exception as exc:  # noqa: BLE001 - quarantine: one game's bug must not stop the others
            reason = refusal_for_crash(state_dir(self.folder), exc, f"game folder {name}", b"")
            self._failed(name, game_report, reason, messages)
            return
        self.report.add_game(name, game_report)
        self.report.looked_at.append(name)
        for item, msg, key in messages:       # recorded only now: a crash before brings them back
            ledger.put(key, {"message_id": _header(msg, "Message-ID"), "game": name, "sources": [item.source],
                             "status": ROUTED})

    def _tick(self, gd: GameDir, cfg: MailConfig, outbox: LazySender, report: Report) -> float:
        """`pbem tick --mail` on one game; returns when its next reminder or deadline falls (0: none)."""
        entries = gd.entries()
        if rules_of(entries[0]) is None and not bot_seats(entries):
            return 0.0                    # no deadlines and no bot seat: nothing a tick could do
        done = tick(gd, self.now, ready=digest_went_out(gd))   # a reminder never overtakes its digest
        if done.closed is not None:
            return 0.0
        for entry in done.entries:
            report.add(f"log entry {entry['index']}: {entry['action']} for {entry['player']} - {entry['reason']}")
        for address in send_reminders(gd, done.reminders, cfg=cfg, outbox=outbox):
            report.add(f"mailed a reminder to {address}")
        rules = rules_of(gd.entries()[0])
        if rules is None or not done.waiting:
            return 0.0
        times = [d.due - 3600 * rules.remind_hours for d in done.waiting if d.due - 3600 * rules.remind_hours > self.now]
        times += [d.due for d in done.waiting]
        return min(times)

    def _failed(self, name: str, game_report: Report, reason: str, messages: list[Routed]) -> None:
        self.report.add_game(name, game_report)
        self.report.failed.append(name)
        news = self.index.mark_broken(name, reason)
        if news or messages:
            waiting = f"; {len(messages)} message(s) wait for the next cycle" if messages else ""
            self.report.lines.append(f"{name}: not run: {reason}{waiting}")


def _stamp(gd: GameDir, before: Stamp) -> Stamp:
    """The log's stamp now (the cycle may have appended to it)."""
    try:
        st = gd.log_path.stat()
    except OSError:
        return before
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _daily_due(gd: GameDir) -> float:
    """When the next daily digest held back falls due (0: none is held back)."""
    entries = gd.entries()
    daily = [p for p, c in cadences(entries).items() if c == "daily"]
    if not daily:
        return 0.0
    state = SentState.load(gd)
    last = str(entries[-1].get("hash", ""))
    held = [state.last_at(p) + DAY for p in daily if state.last_hash(p) != last]
    return min(held) if held else 0.0
