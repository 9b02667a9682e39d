"""RESEARCH PHASE: "Draw 2 cards from the deck and put them in your hand.  If no
cards remain, the game ends."

Ruling: the game ends when the deck is empty at the end of a Research Phase
(after the draw); cards drawn from Alien Ruins can empty it earlier, and then
the next Research Phase ends the game.
"""
from __future__ import annotations

from pbem.game import Event
from pbem.rules.spaceswarm.cards import draw
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.state import SwarmState


def research(state: SwarmState, player: str) -> Event | None:
    return draw(state, player, swarm_data().research_draw, "research")


def no_cards_remain(state: SwarmState) -> bool:
    return not state.deck
