"""A tiny hidden-information game used to test the engine core without any real game.

Each player holds hidden cards drawn from a shuffled deck 1..20.  On their
turn a player either `draw`s (a hidden card) or `stop`s.  When everyone has
stopped, or has three cards, the highest total wins.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import (BoardPicture, Decision, Event, Game, HexCell, IllegalAction, NeedsSecret, OptionSpec,
                       Result, Section)
from pbem.core.rng import Rng


class ToyGame(Game):
    name = "toy"
    title = "Toy high card"
    rules_version = "toy-1"
    min_players = 2
    max_players = 4

    def option_specs(self) -> Sequence[OptionSpec]:
        return [OptionSpec("limit", "3", ("2", "3"), "cards per player")]

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> dict[str, Any]:
        deck = rng.shuffled(list(range(1, 21)))
        return {"players": list(players), "limit": int(options["limit"]), "deck": deck,
                "hands": {p: [] for p in players}, "stopped": [], "turn": 0}

    def to_position(self, state: Any) -> dict[str, Any]:
        return {"players": list(state["players"]), "limit": state["limit"], "deck": list(state["deck"]),
                "hands": {p: list(h) for p, h in state["hands"].items()}, "stopped": list(state["stopped"]),
                "turn": state["turn"]}

    def from_position(self, position: Mapping[str, Any]) -> Any:
        return self.to_position(position)

    def position_options(self, position: Mapping[str, Any]) -> dict[str, str]:
        return {"limit": str(position["limit"])}

    def position_with_options(self, position: Mapping[str, Any], options: Mapping[str, str]) -> dict[str, Any]:
        return {**position, "limit": int(options["limit"])}

    def _done(self, state: Any, p: str) -> bool:
        return p in state["stopped"] or len(state["hands"][p]) >= state["limit"]

    def pending(self, state: Any) -> list[Decision]:
        players = state["players"]
        if all(self._done(state, p) for p in players):
            return []
        p = players[state["turn"] % len(players)]
        return [Decision(p, "draw-or-stop", "draw a card or stop")]

    def legal_actions(self, state: Any, player: str) -> list[dict[str, Any]]:
        if not any(d.player == player for d in self.pending(state)):
            return []
        return [{"draw": True}, {"stop": True}]

    def apply(self, state: Any, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
        if {"draw": True} != dict(action) and {"stop": True} != dict(action):
            raise IllegalAction(f"unknown action {dict(action)}; write {{draw: true}} or {{stop: true}}")
        if not any(d.player == player for d in self.pending(state)):
            raise IllegalAction(f"it is not {player}'s turn")
        events: list[Event] = []
        if "draw" in action:
            card = state["deck"][0]
            if card is None:
                raise NeedsSecret("the next card is hidden")
            state["deck"].pop(0)
            state["hands"][player].append(card)
            roll = rng.randbelow(6, "flavour") + 1   # a public die roll on every draw (the fair-play tests read it)
            events.append(Event({"drew": player, "cards": len(state["hands"][player]), "roll": roll},
                                {player: {"card": card}}, chance=True))
        else:
            state["stopped"].append(player)
            events.append(Event({"stopped": player}))
        self._advance(state)
        return events

    def _advance(self, state: Any) -> None:
        players = state["players"]
        for _ in range(len(players)):
            state["turn"] += 1
            if not self._done(state, players[state["turn"] % len(players)]):
                return

    def result(self, state: Any) -> Result | None:
        if self.pending(state):
            return None
        scores = {p: sum(state["hands"][p]) for p in state["players"] if None not in state["hands"][p]}
        if len(scores) < len(state["players"]):
            return Result({p: 0 for p in state["players"]}, [])
        best = max(scores.values())
        return Result(scores, [p for p, s in scores.items() if s == best])

    def view(self, state: Any, viewer: str | None) -> dict[str, Any]:
        pos = self.to_position(state)
        pos["deck"] = [None] * len(pos["deck"])
        pos["hands"] = {p: (h if p == viewer else [None] * len(h)) for p, h in pos["hands"].items()}
        return pos

    def secrets(self, state: Any, player: str) -> dict[str, Any]:
        return {"cards": list(state["hands"][player])}

    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture:
        cells = [HexCell(i, 0, p[:3].upper(), "sea", [f"x{len(view['hands'][p])}"])
                 for i, p in enumerate(view["players"])]
        return BoardPicture(cells)

    def describe_game_event(self, event: Mapping[str, Any]) -> str:
        if "drew" in event:
            return f"{event['drew']} drew a card ({event['cards']} in hand)"
        if "card" in event:
            return f"you drew a {event['card']}"
        return f"{event.get('stopped')} stopped"


class ToyCardGame(ToyGame):
    """The same card game without a board (``Game.board_picture`` left to its default, None): the
    digests and pages show its hands and deck as sections only (tests/test_board_optional.py)."""

    name = "toy-cards"

    def board_picture(self, view: Mapping[str, Any]) -> None:     # type: ignore[override]
        return None

    def sections(self, view: Mapping[str, Any]) -> list[Section]:
        hands = Section("Hands", "table", ["player", "cards"],
                        [[p, str(len(view["hands"][p]))] for p in view["players"]])
        deck = Section("Deck", "cards", rows=[["card", ""] for _ in view["deck"]])
        return [hands, deck]
