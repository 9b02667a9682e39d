"""DEVELOPMENT PHASE.

"Place one Technology card from your hand face up on the table in front of you.
Your race immediately gets the ability or attribute bonus indicated on the card
you just played.  These Technology cards remain in play permanently.  Max hand
size is 2+ your Strategic score.  Discard excess cards."

Ruling: placing a card is optional (``{develop: none}``): a player may keep a
Technology card to use as an event, and may hold none.  With
``tech_phase=research`` the card is placed in the Research Phase instead
("Technology cards are played in Research Phase only").
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import Event, IllegalAction
from pbem.rules.spaceswarm import cards as deck
from pbem.rules.spaceswarm.attributes import hand_limit, permanent
from pbem.rules.spaceswarm.state import SwarmState


def is_none(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() == "none")


def check_develop(state: SwarmState, player: str, action: Mapping[str, Any]) -> str | None:
    """The Technology card to place, or None for ``{develop: none}``."""
    if len(action) != 1:
        raise IllegalAction("place a Technology card like this: {develop: C17}, or {develop: none}")
    if is_none(action["develop"]):
        return None
    card = deck.card_arg(action["develop"], "develop")
    deck.require_in_hand(state, player, [card])
    if not deck.face_of(state, card).is_technology:
        raise IllegalAction(f"{card} is an Event card; only a Technology card can be placed in play "
                            f"(play an Event card with {{event: {card}}})")
    return card


def place_technology(state: SwarmState, player: str, card: str | None) -> Event:
    """ "Place one Technology card from your hand face up on the table in front of you." """
    if card is None:
        return Event({"event": "develop", "player": player, "card": None})
    face = deck.face_of(state, card)
    state.hands[player].remove(card)
    state.tech[player].append(card)
    return Event({"event": "develop", "player": player, "card": card, "name": face.name,
                  "now": permanent(state, player, face.attribute), "attribute": face.attribute})


def excess_cards(state: SwarmState, player: str) -> int:
    """How many cards over "2+ your Strategic score" the player holds."""
    return max(0, len(state.hands[player]) - hand_limit(state, player))


def check_discard(state: SwarmState, player: str, action: Mapping[str, Any]) -> list[str]:
    if len(action) != 1:
        raise IllegalAction("discard like this: {discard: [C17, C20]}")
    cards = deck.card_list(action["discard"], "discard")
    deck.require_in_hand(state, player, cards)
    excess = excess_cards(state, player)
    if len(cards) != excess:
        raise IllegalAction(f"your hand limit is {hand_limit(state, player)}: discard exactly {excess} card(s), "
                            f"not {len(cards)}")
    return cards


def discard_excess(state: SwarmState, player: str, cards: list[str]) -> Event:
    """ "Discard excess cards." (face up: the discard pile is public)"""
    shown = deck.discard_from_hand(state, player, cards)
    return Event({"event": "discard", "player": player, "cards": shown})
