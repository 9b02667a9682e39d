"""The missed-turn policy of a game, read from its public header and its log: deadlines, civil
disorder after missed deadlines in a row, leave days (docs/moderating.md, "Missed turns").

Pure functions of the header and the entries (a store module: they read the log only), shared by
`pbem tick` (pbem.pipeline.deadlines), the moderator's entries (pbem.pipeline.moderator), the
audit, the digests' footer and the mail cadence."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pbem.base.errors import PbemError

ON_EXPIRY = ("bot", "pass", "wait")


@dataclass(frozen=True)
class DeadlineRules:
    hours: float
    on_expiry: str = "bot"       # bot: a random bot decides; pass: decline where the rules allow; wait: remind only
    remind_hours: float = 24.0   # remind this long before the deadline
    #: civil disorder after this many missed deadlines in a row (0: never): a bot decides every
    #: decision of the seat, without waiting, until the player sends a move again
    disorder_after: int = 0
    #: days of leave per player per year that stop their clock (0: none; ICCF's leave)
    leave_days: float = 0

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"hours": self.hours, "on_expiry": self.on_expiry, "remind_hours": self.remind_hours}
        if self.disorder_after:             # only when set: the headers of games without them stay as they were
            data["disorder_after"] = self.disorder_after
        if self.leave_days:
            data["leave_days"] = self.leave_days
        return data


def rules_of(header: dict[str, Any]) -> DeadlineRules | None:
    data = header.get("deadlines")
    return DeadlineRules(**data) if data else None


def check_rules(hours: float | None, on_expiry: str, remind_hours: float, disorder_after: int = 0,
                leave_days: float = 0) -> DeadlineRules | None:
    if hours is None:
        if disorder_after or leave_days:
            raise PbemError("--disorder-after and --leave-days need deadlines: give --deadline-hours too")
        return None
    if hours <= 0 or remind_hours < 0:
        raise PbemError("--deadline-hours must be positive and --remind-hours not negative")
    if on_expiry not in ON_EXPIRY:
        raise PbemError(f"--on-expiry must be one of {', '.join(ON_EXPIRY)}")
    if disorder_after < 0 or leave_days < 0 or leave_days > 366:
        raise PbemError("--disorder-after must not be negative and --leave-days between 0 and 366")
    if disorder_after and on_expiry == "wait":
        raise PbemError("--disorder-after needs missed deadlines to be decided (--on-expiry bot or pass), not wait")
    return DeadlineRules(hours, on_expiry, remind_hours, disorder_after, leave_days)


def _ends_disorder(entry: Mapping[str, Any], player: str) -> bool:
    """``player``'s own move, or the moderator's ``return`` of their seat: the end of civil disorder
    and of a run of missed deadlines."""
    own = entry.get("kind") == "move" or entry.get("action") == "return"
    return own and entry.get("player") == player


def missed_in_a_row(entries: Sequence[Mapping[str, Any]], player: str) -> int:
    """How many deadlines ``player`` has missed since their own last move or the return of their
    seat (timeouts in a row)."""
    missed = 0
    for entry in reversed(entries):
        if _ends_disorder(entry, player):
            break
        if entry.get("action") == "timeout" and entry.get("player") == player:
            missed += 1
    return missed


def disorder_since(entries: Sequence[Mapping[str, Any]], player: str) -> int | None:
    """The index of the ``disorder`` entry that put ``player``'s seat into civil disorder, while
    it lasts (None once their own move or a ``return`` entry ended it, or if it never began)."""
    for entry in reversed(entries):
        if _ends_disorder(entry, player):
            return None
        if entry.get("action") == "disorder" and entry.get("player") == player:
            return int(entry["index"])
    return None


def returns_the_seat(entries: Sequence[Mapping[str, Any]], player: str, after: int) -> bool:
    """Does a refused move of ``player``'s, written after entry ``after``, end their civil disorder?
    Only while the seat is in it, and only a move written since the player last showed up (their own
    last move, or the last ``return`` of their seat): an older move of theirs - one that returned the
    seat before, say, which a git game's history shows to everyone - replayed by someone else does not
    pull the seat out of civil disorder."""
    if disorder_since(entries, player) is None:
        return False
    last = next((int(e["index"]) for e in reversed(entries) if _ends_disorder(e, player)), 0)
    return after >= last


def in_disorder(entries: Sequence[Mapping[str, Any]], player: str) -> bool:
    """Civil disorder: a ``disorder`` entry for ``player`` after their own last move (and after the
    last ``return`` of their seat)."""
    return disorder_since(entries, player) is not None


def in_disorder_now(entries: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Every player in civil disorder now, with the index of the entry that began it."""
    players = [str(p["name"]) for p in entries[0].get("players", [])]
    return {p: since for p in players if (since := disorder_since(entries, p)) is not None}


def disorder_note(entries: Sequence[Mapping[str, Any]], player: str) -> str:
    """What ``player`` is told where they look for their decision while their seat is in civil
    disorder (`pbem move`, `pbem play`): "" when it is not."""
    if not in_disorder(entries, player):
        return ""
    return (f"{player}'s seat is in civil disorder and a bot decides for it. To take the seat back, run "
            "`pbem play back` (or press \"Take my seat back\" in pbem play), or send a move you signed, written "
            "since your own last move (it is refused, but the seat is yours again), or ask the moderator")


def seat_news_since(entries: Sequence[Mapping[str, Any]], player: str, index: int) -> bool:
    """Did ``player``'s seat go into civil disorder, or come back from it, after entry ``index``?
    (The player is mailed that entry whatever their cadence.)"""
    for e in reversed(entries):
        if int(e.get("index", 0)) <= index:
            return False
        if e.get("action") in ("disorder", "return") and e.get("player") == player:
            return True
    return False


CADENCES = ("daily", "game")     # one mail a day at most, or the game's own cadence (mail settings)


def cadences(entries: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each player's mail cadence as the log last set it (``cadence`` moderator entries); a player
    the log never named has the game's cadence."""
    chosen: dict[str, str] = {}
    for entry in entries:
        if entry.get("action") == "cadence":
            chosen[str(entry["player"])] = str(entry["cadence"])
    return {p: c for p, c in chosen.items() if c != "game"}
