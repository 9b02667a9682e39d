"""The mutable game state: typed records, no hidden behaviour.

Cards have opaque handles ``C1..C54`` (``C1..C108`` with two decks) given in
the order of the shuffled deck at set-up.  Which card a handle is (its face) is
hidden while it lies in the deck or in a hand: a view replaces it with ``None``
for a viewer who may not see it (pbem/rules/spaceswarm/view.py).  Fleets are
counters: a player's stack in a space is just a number of fleets there.
"""
from __future__ import annotations

from copy import copy as shallow_copy
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from pbem.rules.spaceswarm.data import CardFace
from pbem.rules.spaceswarm.hexmap import HexMap

# Phases ("Each player's turn has 5 phases"), the Round Bid, and the end.
BID, DEVELOPMENT, PRODUCTION, MOVEMENT, ATTACK, RESEARCH, OVER = (
    "bid", "development", "production", "movement", "attack", "research", "over")

# Decisions the game waits for (Decision.kind).
REACT, SLOT, DEVELOP, DISCARD, PRODUCE, MOVE, FIGHT = (
    "react", "slot", "develop", "discard", "produce", "move", "attack")

# Reaction windows, and how long a card played as an event lasts.
WINDOW_BID, WINDOW_COMBAT = "bid", "combat"
UNTIL_PHASE, UNTIL_TURN = "phase", "turn"


@dataclass(slots=True)
class Boost:
    """A card played as an event: its bonus lasts until the phase or the turn ends
    ("the current Phase" for an Event card; "the remainder of the current turn (or
    Bid)" for a Technology card discarded as an event)."""

    player: str
    attribute: str
    amount: int
    card: str
    until: str          # UNTIL_PHASE | UNTIL_TURN


@dataclass(slots=True)
class Window:
    """A reaction window: players who may play cards before the bid or a battle."""

    kind: str           # WINDOW_BID | WINDOW_COMBAT
    queue: list[str]    # players not yet considered; queue[0] is asked when their order is "ask"


@dataclass
class SwarmState:
    players: list[str]                          # seat order = clockwise
    options: dict[str, str]
    hexmap: HexMap
    homes: dict[str, int]                       # player -> home space
    phase: str
    step: str                                   # the decision kind waited for ("" when none)
    round: int                                  # 1 = the first round
    order: list[str]                            # this round's turn order (during the bid: the last round's)
    turn_index: int                             # whose turn: order[turn_index]
    turns: int                                  # turns begun so far in the game
    stack_moves: int                            # stacks moved in this Move Phase
    fleets: dict[str, dict[int, int]]           # player -> space -> fleets there
    moved: dict[str, dict[int, list[int]]]      # player -> space -> spaces moved by fleets that moved this phase
    faces: dict[str, CardFace | None]           # card handle -> face (None = hidden)
    deck: list[str]                             # top first
    hands: dict[str, list[str]]
    tech: dict[str, list[str]]                  # technology in play, per player
    discard: list[str]                          # face up, oldest first
    boosts: list[Boost]
    visited: list[int]                          # Alien Ruins already visited
    standing: dict[str, dict[str, Any] | None]  # player -> standing orders (None = unknown)
    window: Window | None = None
    slots: list[str | None] | None = None       # the Round Bid: the next round's order being filled
    targets: dict[int, dict[str, str]] = field(default_factory=dict)   # battle space -> chooser -> target race
    produced: dict[str, int] = field(default_factory=dict)
    destroyed: dict[str, int] = field(default_factory=dict)
    eliminated: list[str] = field(default_factory=list)   # races out of the game, in the order they went
    victory: str = ""                           # how the game ended: control | deck | last-race | ""
    winners: list[str] = field(default_factory=list)

    # --- who and where ---------------------------------------------------------------
    @property
    def active(self) -> str:
        """The player whose turn it is ("" during the Round Bid)."""
        return self.order[self.turn_index] if self.phase not in (BID, OVER) else ""

    def copy(self) -> SwarmState:
        """An independent copy (nothing mutable shared: an action applied to it leaves this state
        as it was); the map and the card faces are frozen records, shared."""
        new = shallow_copy(self)
        new.players, new.order, new.deck = list(self.players), list(self.order), list(self.deck)
        new.options, new.homes, new.faces = dict(self.options), dict(self.homes), dict(self.faces)
        new.fleets = {p: dict(stacks) for p, stacks in self.fleets.items()}
        new.moved = {p: {c: list(to) for c, to in spaces.items()} for p, spaces in self.moved.items()}
        new.hands = {p: list(cards) for p, cards in self.hands.items()}
        new.tech = {p: list(cards) for p, cards in self.tech.items()}
        new.discard, new.visited = list(self.discard), list(self.visited)
        new.boosts = [Boost(b.player, b.attribute, b.amount, b.card, b.until) for b in self.boosts]
        new.standing = {p: None if orders is None else deepcopy(orders) for p, orders in self.standing.items()}
        new.window = None if self.window is None else Window(self.window.kind, list(self.window.queue))
        new.slots = None if self.slots is None else list(self.slots)
        new.targets = {c: dict(chosen) for c, chosen in self.targets.items()}
        new.produced, new.destroyed = dict(self.produced), dict(self.destroyed)
        new.eliminated, new.winners = list(self.eliminated), list(self.winners)
        return new

    def stacks(self, player: str) -> dict[int, int]:
        return self.fleets[player]

    def fleets_at(self, player: str, cell: int) -> int:
        return self.fleets[player].get(cell, 0)

    def races_at(self, cell: int) -> list[str]:
        """Players with fleets in ``cell``, in seat order."""
        return [p for p in self.players if self.fleets[p].get(cell, 0) > 0]

    def enemies_at(self, player: str, cell: int) -> list[str]:
        return [p for p in self.races_at(cell) if p != player]

    def in_game(self, player: str) -> bool:
        """A race with no fleets left is out of the game."""
        return any(n > 0 for n in self.fleets[player].values())

    def alive(self) -> list[str]:
        return [p for p in self.players if self.in_game(p)]

    def spaces_occupied(self, player: str) -> int:
        return sum(1 for n in self.fleets[player].values() if n > 0)

    def total_fleets(self, player: str) -> int:
        return sum(self.fleets[player].values())

    def add_fleets(self, player: str, cell: int, n: int) -> None:
        self.fleets[player][cell] = self.fleets[player].get(cell, 0) + n
        if self.fleets[player][cell] == 0:
            del self.fleets[player][cell]
            self.moved[player].pop(cell, None)

    def contested(self) -> list[int]:
        """Spaces where stacks of two or more races meet, in space order."""
        races: dict[int, int] = {}          # space -> how many races have fleets there (:meth:`races_at`, at once)
        for p in self.players:
            for c, n in self.fleets[p].items():
                if n > 0:
                    races[c] = races.get(c, 0) + 1
        return sorted(c for c, k in races.items() if k >= 2)

    def seat_order_from(self, first: str) -> list[str]:
        """Everybody clockwise (seat order) starting with ``first``."""
        i = self.players.index(first)
        return self.players[i:] + self.players[:i]

    def turn_order_after(self, player: str) -> list[str]:
        """The other players in this round's turn order, starting after ``player``."""
        i = self.order.index(player)
        return self.order[i + 1:] + self.order[:i]

    def holder_of(self, card: str) -> str | None:
        for p in self.players:
            if card in self.hands[p]:
                return p
        return None
