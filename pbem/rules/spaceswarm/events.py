"""Event cards, Technology used as an event, standing orders and reaction windows.

"Event cards are played in other Phases and are discarded when played.  The
bonuses/effects of Event cards last only the current Phase."

"USING TECHNOLOGY CARDS AS EVENT CARDS: You may at any time during your turn or
another players turn discard an Technology card from your hand to give your Race
the indicated Bonus/Ability for the remainder of the current turn (or Bid)."

A player may play a card as an event with ``{event: C17}`` (it is an "any time"
action, accepted when it is not their decision): a Technology card at any time, an
Event card in the phases other than the one where Technology cards are placed (the
Development Phase, or the Research Phase with ``tech_phase=research``); with
``event_phase=any`` (pbem's earlier ruling, kept by games begun under
space-swarm/1) an Event card too may be played in any phase.  Because nobody can time an email to the moment a battle
starts, two reaction windows give everyone their chance where a card in another
player's turn matters: before the Round Bid (Initiative decides who picks first)
and before the battles of an Attack Phase (Attack, Defense, Initiative).  Each
player's standing order decides there: ``auto`` plays their Event cards that
help, ``never`` plays nothing, ``ask`` stops and asks, and a list of cards plays
exactly those (send that one sealed: it shows your hand).
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import Event, IllegalAction, NeedsSecret
from pbem.rules.spaceswarm import cards as deck
from pbem.rules.spaceswarm.options import ORDERS, SLOT_ORDERS, Settings
from pbem.rules.spaceswarm.state import (
    BID,
    DEVELOPMENT,
    RESEARCH,
    UNTIL_PHASE,
    UNTIL_TURN,
    WINDOW_BID,
    WINDOW_COMBAT,
    Boost,
    SwarmState,
    Window,
)

#: what an ``auto`` standing order plays in each window: Event cards for these attributes
HELPS_IN: dict[str, tuple[str, ...]] = {
    WINDOW_BID: ("initiative",),
    WINDOW_COMBAT: ("attack", "defense", "initiative"),
}
#: standing order keys -> the option that gives their default
STANDING_KEYS = ("combat", "bid", "slot")


# --- playing a card as an event ---------------------------------------------------------
def check_event(state: SwarmState, player: str, action: Mapping[str, Any]) -> list[str]:
    if len(action) != 1:
        raise IllegalAction("play a card as an event like this: {event: C17} (or {event: [C17, C20]})")
    cards = deck.card_list(action["event"], "event")
    deck.require_in_hand(state, player, cards)
    for card in cards:
        face = deck.face_of(state, card)
        if not face.is_technology and not event_phase_allows(state):
            raise IllegalAction(f"{card} is an Event card: Event cards are not played in the {state.phase} phase, "
                                "where Technology cards are placed (a Technology card may be used as an event "
                                "at any time)")
    return cards


def technology_phase(state: SwarmState) -> str:
    """The phase where Technology cards are placed (``tech_phase``)."""
    return RESEARCH if Settings.of(state.options).tech_phase == "research" else DEVELOPMENT


def event_phase_allows(state: SwarmState) -> bool:
    """ "Event cards are played in other Phases": not in the phase where Technology cards are
    placed, unless ``event_phase=any``."""
    return Settings.of(state.options).event_phase == "any" or state.phase != technology_phase(state)


def lasts(state: SwarmState, technology: bool) -> str:
    if state.phase == BID:
        return "until the Round Bid ends"
    return "until the end of this turn" if technology else f"until the end of the {state.phase} phase"


def play_as_event(state: SwarmState, player: str, card: str, auto: str = "") -> Event:
    """Discard ``card`` from ``player``'s hand for its bonus: an Event card for the
    current phase, a Technology card for the rest of the turn (or Bid)."""
    face = deck.face_of(state, card)
    state.hands[player].remove(card)
    state.discard.append(card)
    until = UNTIL_TURN if face.is_technology else UNTIL_PHASE
    state.boosts.append(Boost(player, face.attribute, face.bonus, card, until))
    return Event({"event": "play", "player": player, "card": card, "name": face.name,
                  "lasts": lasts(state, face.is_technology)}, chance=bool(auto), auto=auto)


def clear_boosts(state: SwarmState, until: tuple[str, ...]) -> None:
    state.boosts = [b for b in state.boosts if b.until not in until]


# --- standing orders --------------------------------------------------------------------
def check_standing(state: SwarmState, player: str, action: Mapping[str, Any]) -> dict[str, Any]:
    if player not in state.players:
        raise IllegalAction(f"{player!r} is not playing in this game")
    orders = action.get("standing")
    if len(action) != 1 or not isinstance(orders, Mapping) or not orders:
        raise IllegalAction("standing orders look like {standing: {combat: auto, bid: never, slot: first}}")
    checked: dict[str, Any] = {}
    for key, value in orders.items():
        if key not in STANDING_KEYS:
            raise IllegalAction(f"unknown standing order {key!r}; known: {', '.join(STANDING_KEYS)}")
        checked[key] = _check_order(key, value, len(state.players))
    return checked


def _check_order(key: str, value: Any, n_players: int) -> Any:
    if key == "slot":
        if isinstance(value, list):
            if not value or not all(isinstance(v, int) and 1 <= v <= n_players for v in value):
                raise IllegalAction(f"standing order slot: a list of places 1-{n_players}, e.g. [1, 2]")
            return list(value)
        if value not in SLOT_ORDERS:
            raise IllegalAction(f"standing order slot must be one of {', '.join(SLOT_ORDERS)} or a list of places")
        return value
    if isinstance(value, list):
        return deck.card_list(value, f"standing order {key}")   # cards need not be held now
    if value not in ORDERS:
        raise IllegalAction(f"standing order {key} must be one of {', '.join(ORDERS)} or a list of cards "
                            "(send a list sealed: it shows your hand)")
    return value


def set_standing(state: SwarmState, player: str, orders: dict[str, Any]) -> Event:
    current = state.standing.get(player)
    if current is None:
        raise NeedsSecret(f"{player}'s standing orders are private")
    current.update(orders)
    shown = {k: current[k] for k in STANDING_KEYS if k in current}
    return Event({"event": "standing", "player": player},
                 {player: {"event": "standing", "player": player, "orders": shown}})


def standing_order(state: SwarmState, player: str, key: str) -> Any:
    orders = state.standing.get(player)
    if orders is None:
        raise NeedsSecret(f"{player}'s standing orders are private")
    if key in orders:
        return orders[key]
    settings = Settings.of(state.options)
    return {"combat": settings.react_combat, "bid": settings.react_bid, "slot": settings.slot}[key]


# --- reaction windows ---------------------------------------------------------------------
def open_window(state: SwarmState, kind: str, players: list[str]) -> Event:
    state.window = Window(kind, list(players))
    return Event({"event": "window", "window": kind, "players": list(players)})


def auto_cards(state: SwarmState, player: str, kind: str) -> list[str]:
    """What an ``auto`` order plays: the player's Event cards that help in this window."""
    out = []
    for card in state.hands[player]:
        face = deck.face_of(state, card)
        if not face.is_technology and face.attribute in HELPS_IN[kind]:
            out.append(card)
    return out


def run_window(state: SwarmState, events: list[Event], note: Event | None = None) -> bool:
    """Go through the waiting players by standing order; stop at an ``ask``.

    True when the window has closed.  A ``never`` is noted only in that player's
    private part of ``note`` (the public window event), so nobody learns it."""
    window = state.window
    assert window is not None
    while window.queue:
        player = window.queue[0]
        if not state.hands[player]:
            window.queue.pop(0)
            continue
        order = standing_order(state, player, window.kind)
        if order == "ask":
            return False
        if order == "never":
            if note is not None:
                note.private[player] = {"event": "no-reaction", "player": player,
                                        "reason": f"standing order {window.kind}: never"}
        else:
            chosen = auto_cards(state, player, window.kind) if order == "auto" else \
                [c for c in order if c in state.hands[player]]
            why = f"standing order {window.kind}: " + ("auto" if order == "auto" else "listed cards")
            for card in chosen:
                events.append(play_as_event(state, player, card, auto=why))
        window.queue.pop(0)
    state.window = None
    return True


def check_react(state: SwarmState, player: str, action: Mapping[str, Any]) -> list[str]:
    """``{react: none}``, ``{react: C17}`` or ``{react: [C17, C20]}`` (targets are checked by attack.py)."""
    value = action["react"]
    if value is None or str(value).strip().lower() == "none":
        return []
    cards = deck.card_list(value, "react")
    deck.require_in_hand(state, player, cards)
    return cards


def known_for_window(state: SwarmState, players: list[str]) -> None:
    """Raise NeedsSecret (before anything changes) when a window would depend on
    hands or standing orders this state does not know."""
    for p in players:
        if state.hands[p] and (state.standing.get(p) is None
                               or any(state.faces.get(c) is None for c in state.hands[p])):
            raise NeedsSecret(f"whether {p} reacts depends on their hidden cards")
