"""Moderator entries: signed, reasoned, public repairs and the end-of-game reveal.

Every moderator action is a log entry of kind ``moderator`` (or ``reveal``)
signed with the moderator's key (SSHSIG namespace ``pbem-moderator``), with a
``reason`` shown in every digest.  Actions:

* ``pause`` / ``resume``: while paused, moves are refused.
* ``extend``: more time for a player's pending decision (``hours``).
* ``replace-key``: a player lost their key; later moves are checked against ``new_key``.
* ``seat``: hand a seat to a bot (``to: bot``) or to a new player (``to: player`` + ``new_key``).
* ``undo``: undo the last player's entry; it stays in the log, visibly undone.
* ``timeout`` / ``bot-move``: decisions made for a player whose deadline expired, or
  whose seat a bot holds (or is in civil disorder); the actions are in the entry like a move's.
* ``disorder``: civil disorder after the header's ``disorder_after`` missed deadlines in a row:
  a bot decides for the seat without waiting until the player's next move.
* ``return``: the end of civil disorder: the player sent a move (a stale one is refused, but it
  returns the seat) or asked the moderator; their decisions wait for them again.
* ``leave``: the player's clock stops for ``days`` (within the header's ``leave_days`` a year).
* ``cadence``: a player's mail cadence (``daily``: one digest a day at most; ``game``: the game's).
"""
from __future__ import annotations

import time
from typing import Any, Callable

from pbem.base.errors import PbemError
from pbem.core.bots import bot_actions
from pbem.core.draws import auto_draws
from pbem.core.engine import apply_actions, event_record
from pbem.crypto import keys
from pbem.pipeline.append import add_outcome, append_entry
from pbem.store.missedturns import CADENCES, in_disorder, missed_in_a_row, rules_of
from pbem.pipeline.newgame import sign_entry
from pbem.pipeline.repair import open_game
from pbem.store.entryclock import read_clock
from pbem.store.gamedir import GameDir
from pbem.store.log import seal
from pbem.store.table import Table, acting_player, closed_message, replay, sealed_store, start_position


class ModeratorError(PbemError):
    pass


def _base(table: Table, kind: str = "moderator") -> dict[str, Any]:
    return {"index": table.last["index"] + 1, "kind": kind, "prev": table.last["hash"]}


def _commit(table: Table, entry: dict[str, Any]) -> dict[str, Any]:
    """Sign (covering the outcome too), seal and append."""
    entry = seal(sign_entry(add_outcome(table, entry), table.gd.moderator_key_path))
    append_entry(table, entry)
    return entry


def _need_reason(reason: str) -> None:
    if not reason.strip():
        raise ModeratorError("give a --reason: moderator actions are shown to every player with their reason")


def _need_player(table: Table, player: str) -> None:
    if player not in table.players:
        raise ModeratorError(f"no player {player!r}; players: {', '.join(table.players)}")


def _refuse_after_reveal(table: Table, action: str = "") -> None:
    if table.revealed_at is not None and action not in AFTER_REVEAL:
        raise ModeratorError(closed_message(table.revealed_at))


def moderate(gd: GameDir, action: str, reason: str, **fields: Any) -> dict[str, Any]:
    """Append one moderator entry (see the module docstring for the actions)."""
    _need_reason(reason)
    with open_game(gd) as table:
        _refuse_after_reveal(table, action)
        entry = _base(table)
        entry.update({"action": action, "reason": reason})
        handler = _HANDLERS.get(action)
        if handler is None:
            raise ModeratorError(f"unknown moderator action {action!r}; one of {', '.join(sorted(_HANDLERS))}")
        table = handler(table, entry, **fields)
        return _commit(table, entry)


def _note(table: Table, entry: dict[str, Any]) -> Table:
    """A note to every player: changes nothing in the game (allowed after the reveal too)."""
    return table


def _pause(table: Table, entry: dict[str, Any]) -> Table:
    if table.paused:
        raise ModeratorError(f"the game is already paused ({table.paused})")
    return table


def _resume(table: Table, entry: dict[str, Any]) -> Table:
    if not table.paused:
        raise ModeratorError("the game is not paused")
    return table


def _extend(table: Table, entry: dict[str, Any], player: str, hours: float) -> Table:
    _need_player(table, player)
    if hours <= 0:
        raise ModeratorError("--hours must be positive")
    entry.update({"player": player, "hours": hours})
    return table


def _new_key(table: Table, player: str, new_key: str) -> str:
    """The new key of ``player``'s seat: a valid ed25519 key that no other seat holds."""
    key = keys.normalise_public_key(new_key)
    for other in table.players:
        if other != player and key in table.player_keys(other):
            raise ModeratorError(f"that key ({keys.fingerprint(key)}) is {other}'s; each seat needs its own key")
    return key


def _replace_key(table: Table, entry: dict[str, Any], player: str, new_key: str) -> Table:
    _need_player(table, player)
    key = _new_key(table, player, new_key)
    entry.update({"player": player, "new_key": key, "fingerprint": keys.fingerprint(key)})
    return table


def _seat(table: Table, entry: dict[str, Any], player: str, to: str, new_key: str | None = None) -> Table:
    _need_player(table, player)
    entry["player"] = player
    if to == "bot":
        entry["to"] = "bot"
    elif new_key:
        key = _new_key(table, player, new_key)
        entry.update({"to": "player", "new_key": key, "fingerprint": keys.fingerprint(key)})
    else:
        raise ModeratorError("hand the seat to a bot (--bot) or to a new player (--key NEW.pub)")
    return table


def _undo(table: Table, entry: dict[str, Any]) -> Table:
    undone = {e["undoes"] for e in table.entries if e.get("action") == "undo"}
    candidates = [e for e in table.entries[1:] if acting_player(e) is not None and e["index"] not in undone]
    if not candidates:
        raise ModeratorError("there is no move to undo")
    target = candidates[-1]
    later = [e for e in table.entries if e["index"] > target["index"] and acting_player(e) is not None]
    if later:
        raise ModeratorError("only the last move can be undone")
    entry.update({"undoes": target["index"], "player": acting_player(target)})
    rebuilt = None
    for rebuilt, _e, _a in replay(table.gd, table.game, table.entries + [seal(dict(entry))], table.seed):
        pass
    assert rebuilt is not None
    rebuilt.entries.pop()   # the provisional copy of this entry; _commit appends the real one
    rebuilt.board_views = table.board_views   # the boards after earlier entries stay what they were
    rebuilt.log_text = table.log_text         # the log as it is on disk: the snapshot names it
    return rebuilt


def _acting(table: Table, entry: dict[str, Any], player: str, bot: str = "random") -> Table:
    """A bot (seeded from the game seed and the entry) decides for ``player``."""
    _need_player(table, player)
    if player not in {d.player for d in table.game.pending(table.state)}:
        raise ModeratorError(f"{player} has no pending decision")
    draws = auto_draws(table.header, table.seed, entry["index"], table.entries, player)
    actions = bot_actions(table.game, table.state, player, draws, draws.bot_rng(), bot)
    applied = apply_actions(table.game, table.state, player, actions, draws, prefs=table.prefs)
    entry.update({"player": player, "actions": applied.actions,
                  "events": [event_record(e) for e in applied.events]})
    table.note_private(player, applied)
    return table


def _timeout(table: Table, entry: dict[str, Any], player: str, policy: str = "bot") -> Table:
    entry["policy"] = policy
    return _acting(table, entry, player, "pass" if policy == "pass" else "random")


def _bot_move(table: Table, entry: dict[str, Any], player: str) -> Table:
    if table.seats().get(player) != "bot" and not in_disorder(table.entries, player):
        raise ModeratorError(f"{player}'s seat is not held by a bot nor in civil disorder")
    return _acting(table, entry, player)


def _disorder(table: Table, entry: dict[str, Any], player: str, missed: int) -> Table:
    """Civil disorder (the header's ``deadlines.disorder_after``): from this entry a bot decides
    for ``player`` without waiting, until their next move."""
    _need_player(table, player)
    rules = rules_of(table.header)
    if rules is None or not rules.disorder_after:
        raise ModeratorError("this game has no civil disorder rule (pbem new --disorder-after N)")
    if missed_in_a_row(table.entries, player) < rules.disorder_after:
        raise ModeratorError(f"{player} has missed {missed_in_a_row(table.entries, player)} deadlines in a row, "
                             f"fewer than the {rules.disorder_after} the rule asks for")
    entry.update({"player": player, "missed": missed})
    return table


def _return(table: Table, entry: dict[str, Any], player: str) -> Table:
    """The end of civil disorder: ``player``'s seat is theirs again (they sent a move, even a stale
    one, or asked the moderator); from this entry their decisions wait for them, deadlines as for
    everyone."""
    _need_player(table, player)
    if not in_disorder(table.entries, player):
        raise ModeratorError(f"{player} is not in civil disorder; nothing to return")
    entry["player"] = player
    return table


def _leave(table: Table, entry: dict[str, Any], player: str, days: float, now: float | None = None) -> Table:
    """Leave (the header's ``deadlines.leave_days`` per player per year): ``player``'s clock stops
    for ``days`` days from this entry; at most the rule's days within any 365 days."""
    _need_player(table, player)
    rules = rules_of(table.header)
    if rules is None or not rules.leave_days:
        raise ModeratorError("this game gives no leave (pbem new --leave-days N); use `pbem mod extend` instead")
    if days <= 0:
        raise ModeratorError("--days must be positive")
    now = time.time() if now is None else now
    clock = read_clock(table.gd.moderator_dir)
    taken = sum(float(e["days"]) for e in table.entries if e.get("action") == "leave" and e.get("player") == player
                and now - float(clock.get(str(e["index"]), now)) < 365 * 86400)
    if taken + days > rules.leave_days:
        raise ModeratorError(f"{player} has {rules.leave_days - taken:g} of {rules.leave_days:g} leave days left "
                             f"in these 365 days; {days:g} asked")
    entry.update({"player": player, "days": days})
    return table


#: moderator actions that change nothing in the game, so they are taken after the reveal too
AFTER_REVEAL = ("note",)

def _cadence(table: Table, entry: dict[str, Any], player: str, cadence: str) -> Table:
    """A player's mail cadence: ``daily`` (one digest a day at most, with everything since the
    last) or ``game`` (the game's own, back again)."""
    _need_player(table, player)
    if cadence not in CADENCES:
        raise ModeratorError(f"cadence {cadence!r} is not one of {', '.join(CADENCES)}")
    entry.update({"player": player, "cadence": cadence})
    return table


_HANDLERS: dict[str, Callable[..., Table]] = {"note": _note, "pause": _pause, "resume": _resume, "extend": _extend, "replace-key": _replace_key,
             "seat": _seat, "undo": _undo, "timeout": _timeout, "bot-move": _bot_move, "disorder": _disorder,
             "return": _return, "leave": _leave, "cadence": _cadence}


def reveal(gd: GameDir, force: bool = False, reason: str = "") -> dict[str, Any]:
    """Append a signed `reveal` entry publishing the seed (and a --position start); it closes the game.

    Revealing an unfinished game (``force``) abandons it: the entry says so, and why."""
    with open_game(gd) as table:
        _refuse_after_reveal(table)
        unfinished = table.game.result(table.state) is None
        if unfinished and not force:
            raise ModeratorError("the game is not over; revealing the seed now would show every hidden value "
                                 "(use --force --reason WHY to abandon the game and reveal anyway)")
        if unfinished and not reason.strip():
            raise ModeratorError("give a --reason for revealing an unfinished game: it is shown to every player")
        assert table.seed is not None
        entry = _base(table, "reveal")
        entry["seed"] = table.seed.hex()
        if unfinished:
            entry.update({"forced": True, "reason": reason})
        start = start_position(gd, table.entries)
        if start is not None:
            entry["start_position"] = start
        sealed = sealed_store(gd, table.entries)
        if sealed:
            entry["sealed"] = dict(sorted(sealed.items()))
        return _commit(table, entry)
