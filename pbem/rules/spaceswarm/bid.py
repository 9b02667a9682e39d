"""ROUND BID.

"In the first round, a random player goes first followed by the other players
going clockwise around the table.  In later rounds the player with the highest
Initiative picks his place in the turn order of the round ... and this cannot be
overturned by another player later in the Round Bid.  This is followed by the
player with the next highest initiative and so on.  If Initiative is tied the
race with the highest Strategic Level picks next.  If Strategic Level is tied
the highest Movement rating picks next.  If Movements are tied go in clockwise
order."

Rulings: "clockwise order" starts with the player who went first in the round
just ended.  The next picker is worked out again before every pick, with the
attributes as they are then (a card played during the bid counts from then on).
A race that is out of the game has no place.  The last picker takes the last
place without being asked.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import Event, IllegalAction
from pbem.rules.spaceswarm.attributes import current
from pbem.rules.spaceswarm.state import SwarmState


def bidders(state: SwarmState) -> list[str]:
    """Races still in the game, clockwise from the first player of the round just ended."""
    return [p for p in state.seat_order_from(state.order[0]) if state.in_game(p)]


def rank(state: SwarmState, player: str) -> tuple[int, int, int, int]:
    clockwise = bidders(state).index(player)
    return (-current(state, player, "initiative"), -current(state, player, "strategy"),
            -current(state, player, "movement"), clockwise)


def next_picker(state: SwarmState) -> str | None:
    assert state.slots is not None
    waiting = [p for p in bidders(state) if p not in state.slots]
    return min(waiting, key=lambda p: rank(state, p)) if waiting else None


def free_places(state: SwarmState) -> list[int]:
    """Free places in the new turn order, numbered from 1."""
    assert state.slots is not None
    return [i + 1 for i, who in enumerate(state.slots) if who is None]


def check_slot(state: SwarmState, player: str, action: Mapping[str, Any]) -> int:
    place = action["slot"]
    free = free_places(state)
    if len(action) != 1 or not isinstance(place, int) or isinstance(place, bool) or place not in free:
        raise IllegalAction(f"pick a free place in the turn order: {{slot: N}} with N one of "
                            f"{', '.join(map(str, free))}")
    return place


def by_standing_order(state: SwarmState, order: Any) -> int | None:
    """The place a ``slot`` standing order takes (None: ask)."""
    free = free_places(state)
    if len(free) == 1:
        return free[0]
    if order == "first":
        return free[0]
    if order == "last":
        return free[-1]
    if isinstance(order, list):
        for place in order:
            if place in free:
                return place
        return free[0]
    return None


def take_place(state: SwarmState, player: str, place: int, auto: str = "") -> Event:
    assert state.slots is not None
    state.slots[place - 1] = player
    return Event({"event": "bid", "player": player, "place": place}, auto=auto)
