"""The move-file actions: one table from action kind to its handler.

Each handler checks everything first (raising IllegalAction with the state
untouched), then applies the rule step and lets the turn sequence run on
(``flow``) to the next decision.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from pbem.core.rng import Rng
from pbem.game import Event, IllegalAction
from pbem.rules.spaceswarm import (
    attack,
    bid,
    development,
    events,
    flow,
    movement,
    production,
)
from pbem.rules.spaceswarm.cards import draw
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.state import (
    DEVELOP,
    DISCARD,
    FIGHT,
    MOVE,
    OVER,
    PRODUCE,
    REACT,
    SLOT,
    WINDOW_COMBAT,
    SwarmState,
)

Handler = Callable[[SwarmState, str, Mapping[str, Any], Rng], list[Event]]

#: decisions and what each expects, for messages
EXPECTED = {
    DEVELOP: "{develop: C17} or {develop: none}",
    DISCARD: "{discard: [C17]}",
    PRODUCE: "{produce: C4}",
    MOVE: "{move: C4, path: [D4]} or {done: move}",
    FIGHT: "{attack: all}",
    REACT: "{react: none} or {react: [C17]}",
    SLOT: "{slot: 1}",
}


def decision(state: SwarmState) -> tuple[str, str] | None:
    """(player, decision kind) the game waits for, or None when it is over."""
    if state.phase == OVER or not state.step:
        return None
    if state.step == REACT:
        assert state.window is not None
        return state.window.queue[0], REACT
    if state.step == SLOT:
        picker = bid.next_picker(state)
        assert picker is not None
        return picker, SLOT
    return state.active, state.step


def expect(state: SwarmState, player: str, kind: str) -> None:
    now = decision(state)
    if now is None:
        raise IllegalAction("the game is over")
    who, what = now
    if who != player:
        raise IllegalAction(f"it is not your decision now; waiting for {who} ({what})")
    if what != kind:
        raise IllegalAction(f"you are asked for {what} now: {EXPECTED[what]}")


# --- the handlers ---------------------------------------------------------------------------
def do_develop(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    expect(state, player, DEVELOP)
    card = development.check_develop(state, player, action)
    out = [development.place_technology(state, player, card)]
    flow.after_develop(state, out)
    return out


def do_discard(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    expect(state, player, DISCARD)
    cards = development.check_discard(state, player, action)
    out = [development.discard_excess(state, player, cards)]
    flow.start_production(state, out)
    return out


def do_produce(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    expect(state, player, PRODUCE)
    placement = production.check_produce(state, player, action)
    out = [production.place_new_fleets(state, player, placement)]
    flow.start_movement(state, out)
    return out


def do_move(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    expect(state, player, MOVE)
    plan = movement.check_move(state, player, action)
    moved, ruins = movement.move_stack(state, player, plan)
    out = [moved]
    for cell in ruins:
        drawn = draw(state, player, swarm_data().ruins_draw, f"alien ruins at {state.hexmap.label(cell)}")
        if drawn is not None:
            out.append(drawn)
    return out


def do_done(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    if len(action) != 1 or action["done"] != "move":
        raise IllegalAction("end the Move Phase like this: {done: move}")
    expect(state, player, MOVE)
    out = [Event({"event": "moved", "player": player, "stacks": state.stack_moves})]
    flow.end_movement(state, out)
    return out


def do_attack(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    expect(state, player, FIGHT)
    targets = attack.check_attack(state, player, action)
    events.known_for_window(state, attack.involved(state))
    attack.record_targets(state, player, targets)
    out: list[Event] = []
    flow.fight_battles(state, out)
    return out


def do_react(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    if set(action) - {"react", "targets"}:
        raise IllegalAction("react like this: {react: none}, {react: [C17]} or, before battles, "
                            "{react: [C17], targets: {D4: green}}")
    expect(state, player, REACT)
    window = state.window
    assert window is not None
    cards = events.check_react(state, player, action)
    if "targets" in action and window.kind != WINDOW_COMBAT:
        raise IllegalAction("targets are for battles; the Round Bid has none")
    targets = attack.check_targets(state, player, action.get("targets"))
    events.known_for_window(state, window.queue[1:])
    attack.record_targets(state, player, targets)
    out = [events.play_as_event(state, player, card) for card in cards]
    if not cards:
        out.append(Event({"event": "no-reaction", "player": player}))
    window.queue.pop(0)
    if events.run_window(state, out):
        flow.after_window(state, out)
    return out


def do_slot(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    expect(state, player, SLOT)
    place = bid.check_slot(state, player, action)
    out = [bid.take_place(state, player, place)]
    flow.after_slot(state, out)
    return out


def do_event(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    """Any time, in any player's turn or the Round Bid (an Event card: not in the phase where
    Technology cards are placed, unless ``event_phase=any``: events.check_event)."""
    if state.phase == OVER:
        raise IllegalAction("the game is over")
    if player not in state.players:
        raise IllegalAction(f"{player!r} is not playing in this game")
    if not state.in_game(player):
        raise IllegalAction("your race is out of the game")
    cards = events.check_event(state, player, action)
    out = [events.play_as_event(state, player, card) for card in cards]
    if state.step == DISCARD and state.active == player and not development.excess_cards(state, player):
        flow.start_production(state, out)   # a Strategic bonus raised the hand limit
    return out


def do_standing(state: SwarmState, player: str, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    """Any time: standing orders for reaction windows and the Round Bid."""
    orders = events.check_standing(state, player, action)
    return [events.set_standing(state, player, orders)]


HANDLERS: dict[str, Handler] = {
    "develop": do_develop,
    "discard": do_discard,
    "produce": do_produce,
    "move": do_move,
    "done": do_done,
    "attack": do_attack,
    "react": do_react,
    "slot": do_slot,
    "event": do_event,
    "standing": do_standing,
}
#: actions a player may send when it is not their decision
ANYTIME: tuple[str, ...] = ("event", "standing")


def handler_for(action: Mapping[str, Any]) -> Handler:
    if not isinstance(action, Mapping) or not action:
        raise IllegalAction("an action is a mapping such as {develop: C17}")
    kind = next(iter(action))
    if kind not in HANDLERS:
        raise IllegalAction(f"unknown action {kind!r}; Space Swarm actions: {', '.join(HANDLERS)}")
    return HANDLERS[kind]
