"""Deadlines for pending decisions, and `pbem tick`.

The deadline rules are public (in the log header, set by `pbem new
--deadline-hours`); the times entries were appended are moderator-private
(`moderator/clock.json`) and never logged, so logs and digests stay
deterministic.  A decision's deadline is the time of the entry since which
the player has been waiting (or of their own last move, if it left them a new
decision), plus the rule's hours, plus every `extend` granted to that player
since then.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.store.missedturns import in_disorder, missed_in_a_row, rules_of
from pbem.pipeline.moderator import moderate
from pbem.pipeline.repair import load_repaired
from pbem.store.entryclock import read_clock
from pbem.store.gamedir import GameDir
from pbem.store.table import bot_seats, revealed_at

REMINDERS = "reminders.json"


def _leave_seconds(entries: list[dict[str, Any]], clock: Mapping[str, float], player: str, start: float,
                   due: float) -> float:
    """The leave that stops ``player``'s clock between ``start`` and the deadline it pushes back."""
    for entry in entries:
        if entry.get("action") != "leave" or entry.get("player") != player or str(entry["index"]) not in clock:
            continue
        begins = float(clock[str(entry["index"])])
        ends = begins + 86400 * float(entry["days"])
        if begins < due and ends > start:         # the clock stops for the whole leave from its start on
            due += ends - max(begins, start)
    return due


def waiting_since(entries: list[dict[str, Any]], player: str) -> int | None:
    """Index of the entry since which ``player`` has been pending without a break, or since their
    own last move: a player whose move leaves them a new decision (a turn of several steps, a
    draw that asks again) gets that decision's whole time, counted from the move (a moderator's
    timeout or bot move for them does not restart it: a silent player's turn expires at once).  The
    ``return`` of their seat from civil disorder starts a new clock too: the seat is theirs again."""
    since = None
    for entry in entries:
        if "pending" not in entry:
            continue
        if any(d["player"] == player for d in entry["pending"]):
            own = entry.get("player") == player and (entry.get("kind") == "move" or entry.get("action") == "return")
            since = entry["index"] if since is None or own else since
        else:
            since = None
    return since


@dataclass
class Deadline:
    player: str
    since: int
    due: float


def deadlines(gd: GameDir, entries: list[dict[str, Any]]) -> list[Deadline]:
    rules = rules_of(entries[0])
    if rules is None:
        return []
    clock = read_clock(gd.moderator_dir)
    pending = [e for e in entries if "pending" in e]
    players = sorted({d["player"] for d in pending[-1]["pending"]}) if pending else []
    out = []
    for player in players:
        since = waiting_since(entries, player)
        if since is None or str(since) not in clock:
            continue
        extra = sum(e.get("hours", 0) for e in entries[since + 1:]
                    if e.get("action") == "extend" and e.get("player") == player)
        start = float(clock[str(since)])
        due = _leave_seconds(entries, clock, player, start, start + 3600 * (rules.hours + extra))
        out.append(Deadline(player, since, due))
    return out


@dataclass
class TickReport:
    reminders: list[Deadline] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)
    waiting: list[Deadline] = field(default_factory=list)
    closed: int | None = None      # the game is closed: the seed was revealed at this entry; nothing was done


def tick(gd: GameDir, now: float | None = None, max_entries: int = 200,
         ready: Callable[[Deadline], bool] | None = None) -> TickReport:
    """Remind, apply the expiry rule, and let bot seats move; returns what it did.  ``ready``: may
    this reminder go out now?  (By mail: only once the player's digest of the decision went out,
    so that a reminder never overtakes it.)  A reminder not ready is neither reported nor noted as
    sent: a later tick sends it."""
    now = time.time() if now is None else now
    report = TickReport()
    closed = revealed_at(gd.entries())
    if closed is not None:                       # a closed game has nothing left to tick: quietly nothing
        report.closed = closed
        return report
    for _ in range(max_entries):
        table = load_repaired(gd)
        if table.paused or table.game.result(table.state) is not None:
            break
        pending = [d.player for d in table.game.pending(table.state)]
        bots = [p for p in pending if bot_seats(table.entries).get(p) == "bot"]
        if bots:
            report.entries.append(moderate(gd, "bot-move", "seat held by a bot", player=bots[0]))
            continue
        rules = rules_of(table.header)
        disorder = [p for p in pending if in_disorder(table.entries, p)]
        if disorder:
            report.entries.append(moderate(gd, "bot-move", "civil disorder: a bot decides until the player "
                                                           "sends a move", player=disorder[0]))
            continue
        after = rules.disorder_after if rules is not None else 0
        missed = [p for p in pending if after and missed_in_a_row(table.entries, p) >= after]
        if missed:
            p = missed[0]
            report.entries.append(moderate(gd, "disorder", f"{p} missed {after} deadlines in a row: "
                                                           "civil disorder, a bot decides every decision of the seat "
                                                           f"until {p} sends a move", player=p,
                                           missed=missed_in_a_row(table.entries, p)))
            continue
        expired = [d for d in deadlines(gd, table.entries) if d.due <= now]
        if rules is None or not expired or rules.on_expiry == "wait":
            break
        d = expired[0]
        how = {"bot": "a bot decides", "pass": "the decision is declined where the rules allow"}[rules.on_expiry]
        report.entries.append(moderate(gd, "timeout", f"no move from {d.player} within {rules.hours:g} hours "
                                                      f"(deadline rule: {how})", player=d.player,
                                       policy=rules.on_expiry))
    entries = gd.entries()
    rules = rules_of(entries[0])
    if rules is not None:
        sent = _read_reminders(gd)
        for d in deadlines(gd, entries):
            report.waiting.append(d)
            if d.due - 3600 * rules.remind_hours <= now and sent.get(d.player) != d.since \
                    and (ready is None or ready(d)):
                report.reminders.append(d)
                sent[d.player] = d.since
        write_atomic(gd.moderator_dir / REMINDERS, json.dumps(sent, sort_keys=True), mode=0o600)
    return report


def _read_reminders(gd: GameDir) -> dict[str, int]:
    try:
        return json.loads((gd.moderator_dir / REMINDERS).read_text())
    except (FileNotFoundError, ValueError):
        return {}
