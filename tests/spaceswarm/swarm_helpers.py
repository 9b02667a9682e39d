"""Building concrete Space Swarm positions for rule tests.

    state = (Pos(["C . . .", ". N . .", ". . . C"])      # rows of terrain codes, A1 top left
             .stack("red", "A1", 3).stack("blue", "D3", 2)
             .hand("red", "Attack +1", "Defense +2")      # new cards C1, C2
             .deck("Movement +1", "Initiative +2")        # top first
             .turn("red", "move")
             .state())

Homes default to the Star Clusters in reading order (then other spaces).  Every other value
(attributes, boosts, standing orders) can be set through the position mapping
``pos.p`` before ``state()``.
"""
from __future__ import annotations

from typing import Any

from pbem.core.rng import Rng
from pbem.game import Event, IllegalAction
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.game import SpaceSwarmGame
from pbem.rules.spaceswarm.state import (
    ATTACK,
    BID,
    DEVELOP,
    DEVELOPMENT,
    DISCARD,
    FIGHT,
    MOVE,
    MOVEMENT,
    PRODUCE,
    PRODUCTION,
    REACT,
    RESEARCH,
    SLOT,
    SwarmState,
)
from pbem.rules.spaceswarm.view import FORMAT

GAME = SpaceSwarmGame()
PHASE_OF = {DEVELOP: DEVELOPMENT, DISCARD: DEVELOPMENT, PRODUCE: PRODUCTION, MOVE: MOVEMENT, FIGHT: ATTACK,
            REACT: ATTACK, SLOT: BID}
__all__ = ["GAME", "Pos", "act", "events_of", "illegal", "rng", "kinds"]


def rng(label: str = "t") -> Rng:
    return Rng(b"space-swarm-tests", label)


def act(state: SwarmState, player: str, action: dict[str, Any], label: str = "t") -> list[Event]:
    return GAME.apply(state, player, action, rng(label))


def illegal(state: SwarmState, player: str, action: dict[str, Any]) -> str:
    """The one-line refusal of ``action``; the state must be untouched."""
    before = GAME.to_position(state)
    try:
        GAME.apply(state, player, action, rng())
    except IllegalAction as exc:
        assert GAME.to_position(state) == before, "a refused action changed the state"
        return str(exc)
    raise AssertionError(f"{action} was accepted")


def events_of(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [e.public for e in events if e.public.get("event") == kind]


def kinds(events: list[Event]) -> list[str]:
    return [str(e.public.get("event")) for e in events]


class Pos:
    def __init__(self, rows: list[str], players: tuple[str, ...] = ("red", "blue"), homes: list[str] | None = None,
                 **options: str) -> None:
        width = len(rows[0].split())
        labels = [(f"{chr(65 + c)}{r + 1}", code) for r, row in enumerate(rows) for c, code in enumerate(row.split())]
        ordered = [lab for lab, code in labels if code == "C"] + [lab for lab, code in labels if code != "C"]
        homes = homes or ordered[:len(players)]
        self.next_card = 1
        self.p: dict[str, Any] = {
            "format": FORMAT,
            "options": GAME.full_options(options),
            "map": {"width": width, "height": len(rows), "rows": list(rows)},
            "players": [{"name": p, "home": h, "standing": {}} for p, h in zip(players, homes)],
            "phase": MOVEMENT, "step": MOVE, "round": 1, "order": list(players), "turn_index": 0, "turns": 1,
            "stack_moves": 0,
            "stacks": {p: {} for p in players}, "cards": {}, "deck": [],
            "hands": {p: [] for p in players}, "tech": {p: [] for p in players}, "discard": [], "boosts": [],
            "visited": [], "window": None, "slots": None, "targets": {},
            "produced": {p: 0 for p in players}, "destroyed": {p: 0 for p in players}, "eliminated": [],
            "victory": "", "winners": [],
        }

    def _cards(self, names: tuple[str, ...]) -> list[str]:
        handles = []
        for name in names:
            assert name in swarm_data().faces, name
            handle = f"C{self.next_card}"
            self.next_card += 1
            self.p["cards"][handle] = name
            handles.append(handle)
        return handles

    def stack(self, player: str, label: str, fleets: int) -> "Pos":
        self.p["stacks"][player][label] = fleets
        return self

    def hand(self, player: str, *names: str) -> "Pos":
        self.p["hands"][player] += self._cards(names)
        return self

    def tech(self, player: str, *names: str) -> "Pos":
        self.p["tech"][player] += self._cards(names)
        return self

    def deck(self, *names: str) -> "Pos":
        self.p["deck"] += self._cards(names)
        return self

    def discarded(self, *names: str) -> "Pos":
        self.p["discard"] += self._cards(names)
        return self

    def standing(self, player: str, **orders: Any) -> "Pos":
        for p in self.p["players"]:
            if p["name"] == player:
                p["standing"].update(orders)
        return self

    def turn(self, player: str, step: str, order: list[str] | None = None) -> "Pos":
        order = order or [player] + [p["name"] for p in self.p["players"] if p["name"] != player]
        self.p.update(order=order, turn_index=order.index(player), step=step, phase=PHASE_OF.get(step, RESEARCH))
        return self

    def state(self) -> SwarmState:
        return GAME.from_position(self.p)

    def cards(self, player: str) -> list[str]:
        return list(self.p["hands"][player])
