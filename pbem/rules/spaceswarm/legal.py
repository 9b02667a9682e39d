"""What a player may write now: the legal actions (``pbem legal``, the bots),
the deadline default and the move-file template of a whole turn."""
from __future__ import annotations

import itertools
from typing import Any, Sequence

from pbem.core.choices import Chain
from pbem.rules.spaceswarm import attack, bid, movement
from pbem.rules.spaceswarm.actions import decision
from pbem.rules.spaceswarm.attributes import current, production
from pbem.rules.spaceswarm.development import excess_cards
from pbem.rules.spaceswarm.events import event_phase_allows
from pbem.rules.spaceswarm.state import (
    DEVELOP,
    DISCARD,
    FIGHT,
    MOVE,
    PRODUCE,
    REACT,
    RESEARCH,
    SLOT,
    WINDOW_COMBAT,
    SwarmState,
)

Action = dict[str, Any]


def event_plays(state: SwarmState, player: str) -> list[Action]:
    return [{"event": c} for c in state.hands[player]]


def legal_develop(state: SwarmState, player: str) -> list[Action]:
    """Placing nothing, or a Technology card from the hand (cards whose face this
    state does not know, on a public copy, are not listed: see your secrets)."""
    return [{"develop": "none"}] + [{"develop": c} for c in state.hands[player]
                                    if (f := state.faces.get(c)) is not None and f.is_technology]


def legal_discard(state: SwarmState, player: str) -> list[Action]:
    return [{"discard": list(combo)}
            for combo in itertools.combinations(state.hands[player], excess_cards(state, player))]


def legal_produce(state: SwarmState, player: str) -> list[Action]:
    lab = state.hexmap.label
    out: list[Action] = [{"produce": lab(c)} for c in sorted(state.fleets[player])]
    return out + event_plays(state, player)


def legal_move(state: SwarmState, player: str) -> list[Action]:
    return movement.simple_moves(state, player) + [{"done": "move"}] + event_plays(state, player)


def move_choices(state: SwarmState, player: str) -> Sequence[Action]:
    """:func:`legal_move` in its order, the moves made only when read (:class:`movement.SimpleMoves`)."""
    moves = movement.SimpleMoves(state.hexmap.labels, movement.simple_steps(state, player))
    return Chain([moves, [{"done": "move"}, *event_plays(state, player)]])


def legal_attack(state: SwarmState, player: str) -> list[Action]:
    out: list[Action] = [{"attack": "all"}]
    for cell in attack.battle_spaces(state):
        enemies = state.enemies_at(player, cell)
        if state.fleets_at(player, cell) and len(enemies) > 1:
            out += [{"attack": "all", "targets": {state.hexmap.label(cell): e}} for e in enemies]
    return out + event_plays(state, player)


def legal_react(state: SwarmState, player: str) -> list[Action]:
    return [{"react": "none"}] + [{"react": [c]} for c in state.hands[player]]


def legal_slot(state: SwarmState, player: str) -> list[Action]:
    return [{"slot": n} for n in bid.free_places(state)]


LISTERS = {DEVELOP: legal_develop, DISCARD: legal_discard, PRODUCE: legal_produce, MOVE: legal_move,
           FIGHT: legal_attack, REACT: legal_react, SLOT: legal_slot}


def legal_actions(state: SwarmState, player: str) -> list[Action]:
    now = decision(state)
    if now is None or now[0] != player:
        return []
    return LISTERS[now[1]](state, player)


def legal_choices(state: SwarmState, player: str) -> Sequence[Action]:
    """:func:`legal_actions`, the movement step's moves made only when read (:func:`move_choices`)."""
    now = decision(state)
    if now is None or now[0] != player:
        return []
    return move_choices(state, player) if now[1] == MOVE else LISTERS[now[1]](state, player)


def pass_action(state: SwarmState, player: str) -> Action | None:
    """What happens when a deadline passes: nothing placed, nothing played, the earliest
    free place, the first stack for new fleets, the newest cards discarded."""
    now = decision(state)
    if now is None or now[0] != player:
        return None
    kind = now[1]
    if kind == DEVELOP:
        return {"develop": "none"}
    if kind == DISCARD:
        return {"discard": state.hands[player][-excess_cards(state, player):]}
    if kind == PRODUCE:
        return {"produce": state.hexmap.label(min(state.fleets[player]))}
    if kind == MOVE:
        return {"done": "move"}
    if kind == FIGHT:
        return {"attack": "all"}
    if kind == REACT:
        return {"react": "none"}
    return {"slot": bid.free_places(state)[0]}


def template_step(state: SwarmState, player: str, kind: str) -> tuple[list[str], str]:
    """The comment lines and the suggested action (move-file syntax) for ``player``'s decision ``kind``."""
    lab = state.hexmap.label
    stacks = sorted(state.fleets[player])
    if kind == REACT:
        targets = " (before battles you may add targets: {D4: green})" if state.window and \
            state.window.kind == WINDOW_COMBAT else ""
        return [f"  # play cards as events now{targets}, or none"], "{react: none}"
    if kind == SLOT:
        free = ", ".join(map(str, bid.free_places(state)))
        return [f"  # pick your place in the next round's turn order: one of {free}"], \
            f"{{slot: {bid.free_places(state)[0]}}}"
    no_events = [] if event_phase_allows(state) else \
        [f"  # Event cards are not played in the {state.phase} phase (a Technology card as an event is)"]
    if kind == DEVELOP:
        phase = "Research Phase (then you draw)" if state.phase == RESEARCH else "Development Phase"
        return [f"  # {phase}: place a Technology card from your hand (see your secrets), or none"] + no_events, \
            "{develop: none}"
    if kind == DISCARD:
        excess = excess_cards(state, player)
        return [f"  # hand limit: discard {excess} card(s)"] + no_events, \
            f"{{discard: [{', '.join(state.hands[player][-excess:])}]}}"
    if kind == PRODUCE:
        return [f"  # Production Phase: {production(state, player)} new fleet(s) on your stacks "
                f"({', '.join(lab(c) for c in stacks)}); e.g. {{produce: {{{lab(stacks[0])}: 1}}}}"], \
            f"{{produce: {lab(stacks[0])}}}"
    if kind == MOVE:
        return [f"  # Move Phase: up to {movement.stacks_left(state, player)} stack(s), "
                f"up to {current(state, player, 'movement')} space(s) each",
                f"  # - {{move: {lab(stacks[0])}, path: [SPACE, ...], fleets: N, pick: {{}}, drop: {{}}}}"], \
            "{done: move}"
    if kind == FIGHT:
        return ["  # Attack Phase: every space with opposing stacks fights; name targets where several "
                "enemies share one"], "{attack: all}"
    return [f"  # {kind}: see `pbem legal`"], ""
