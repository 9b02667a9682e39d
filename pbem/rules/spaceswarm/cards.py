"""THE DECK: a shared deck with hidden hands; drawing and discarding."""
from __future__ import annotations

from typing import Any

from pbem.game import Event, IllegalAction, NeedsSecret
from pbem.rules.spaceswarm.data import CardFace
from pbem.rules.spaceswarm.state import SwarmState


def face_of(state: SwarmState, card: str) -> CardFace:
    """The face of a card whose face this state must know (NeedsSecret when it does not)."""
    face = state.faces.get(card)
    if face is None:
        raise NeedsSecret(f"card {card} is hidden")
    return face


def card_arg(value: Any, what: str) -> str:
    """A card handle from a move file (``C17``)."""
    text = str(value).strip().upper() if isinstance(value, (str, int)) else ""
    if not text.startswith("C") or not text[1:].isdigit():
        raise IllegalAction(f"{what}: {value!r} is not a card; cards are named like C17 (see your secrets)")
    return text


def card_list(value: Any, what: str) -> list[str]:
    """One card or a list of cards, without repeats."""
    items = value if isinstance(value, list) else [value]
    cards = [card_arg(v, what) for v in items]
    if len(set(cards)) != len(cards):
        raise IllegalAction(f"{what}: a card is named twice")
    return cards


def require_in_hand(state: SwarmState, player: str, cards: list[str]) -> None:
    """Hand membership is checked before any face, so an error never tells a card's face to others."""
    for card in cards:
        if card not in state.hands[player]:
            raise IllegalAction(f"{card} is not in your hand (your cards are in your secrets)")


def describe_face(face: CardFace | None) -> str:
    if face is None:
        return "?"
    return f"{face.name} ({face.type})"


def draw(state: SwarmState, player: str, count: int, why: str) -> Event | None:
    """Draw ``count`` cards from the top of the deck (fewer if it runs out).

    Public: who drew which handles; private to the drawer: the faces."""
    cards = state.deck[:count]
    if not cards:
        return None
    for card in cards:
        face_of(state, card)           # the moderator knows every face; a public copy cannot draw
    del state.deck[:len(cards)]
    state.hands[player].extend(cards)
    private = {"event": "drew", "player": player, "cards": {c: describe_face(state.faces[c]) for c in cards}}
    return Event({"event": "draw", "player": player, "cards": list(cards), "why": why,
                  "deck": len(state.deck)}, {player: private}, chance=True)


def discard_from_hand(state: SwarmState, player: str, cards: list[str]) -> dict[str, str]:
    """Cards go face up onto the discard pile; returns their faces (now public)."""
    shown = {card: face_of(state, card).name for card in cards}
    for card in cards:
        state.hands[player].remove(card)
        state.discard.append(card)
    return shown
