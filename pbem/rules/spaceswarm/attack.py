"""ATTACK PHASE.

"If two or more opposing stacks occupy the same space, they will fight.  The
Stack with the highest Initiative Attacks first.  Attacks by Stacks with the
same Initiative are simultaneous.  If there is more than one opposing stack
present choose one to target.  Each stack inflicts damage = The Races Attack
Value x The number of Fleets in the Stack.  A Fleet can take as much damage as
its Defense value before being killed.  Excess damage not enough to kill a Fleet
is ignored.  The phase may end with stacks from more than 1 player occupying
the same space."

Rulings: one exchange in every space with opposing stacks in the active
player's Attack Phase (``combat_hexes=active``: only where the active race is);
damage from simultaneous attacks on one stack is added up before it is divided
by the Defense; a stack whose target has been destroyed strikes another enemy
there.  Targets: the active player names them in ``{attack: all, targets: {D4:
green}}``, other players in their ``react`` answer; otherwise the default: the
enemy that loses most fleets to the strike, then the active race, then turn order.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import Event, IllegalAction
from pbem.rules.spaceswarm.attributes import current, stack_attack, stack_defense
from pbem.rules.spaceswarm.options import Settings
from pbem.rules.spaceswarm.state import SwarmState


def battle_spaces(state: SwarmState) -> list[int]:
    """Spaces where opposing stacks fight in this Attack Phase, in space order."""
    cells = state.contested()
    if Settings.of(state.options).combat_hexes == "active":
        cells = [c for c in cells if state.fleets_at(state.active, c) > 0]
    return cells


def involved(state: SwarmState) -> list[str]:
    """The other players with a stack in a battle, in turn order after the active player."""
    races = {p for c in battle_spaces(state) for p in state.races_at(c)}
    return [p for p in state.turn_order_after(state.active) if p in races]


def check_targets(state: SwarmState, player: str, value: Any) -> dict[int, str]:
    """``targets: {D4: green}``: for each named battle space with ``player``'s stack, an enemy there."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise IllegalAction("targets: write a battle space and the race to strike, e.g. targets: {D4: green}")
    battles = battle_spaces(state)
    out: dict[int, str] = {}
    for label, race in value.items():
        try:
            cell = state.hexmap.index(label)
        except ValueError as exc:
            raise IllegalAction(f"targets: {exc}") from None
        if cell not in battles or state.fleets_at(player, cell) == 0:
            raise IllegalAction(f"targets: you have no stack in a battle at {state.hexmap.label(cell)}")
        if race not in state.enemies_at(player, cell):
            raise IllegalAction(f"targets: {race!r} has no stack at {state.hexmap.label(cell)}; enemies there: "
                                f"{', '.join(state.enemies_at(player, cell))}")
        out[cell] = str(race)
    return out


def check_attack(state: SwarmState, player: str, action: Mapping[str, Any]) -> dict[int, str]:
    if set(action) - {"attack", "targets"} or action["attack"] != "all":
        raise IllegalAction("fight the battles like this: {attack: all}, or {attack: all, targets: {D4: green}}")
    return check_targets(state, player, action.get("targets"))


def record_targets(state: SwarmState, player: str, targets: dict[int, str]) -> None:
    for cell, race in targets.items():
        state.targets.setdefault(cell, {})[player] = race


def kills(state: SwarmState, attacker: str, target: str, cell: int) -> int:
    damage = stack_attack(state, attacker, cell) * state.fleets_at(attacker, cell)
    return min(state.fleets_at(target, cell), damage // stack_defense(state, target, cell))


def default_target(state: SwarmState, chooser: str, cell: int) -> str | None:
    """The enemy that loses most fleets, then the active race, then turn order after the chooser."""
    enemies = state.enemies_at(chooser, cell)
    if not enemies:
        return None
    after = state.turn_order_after(chooser) if chooser in state.order else state.players
    rank = {p: i for i, p in enumerate(after)}
    return min(enemies, key=lambda e: (-kills(state, chooser, e, cell), e != state.active, rank.get(e, 99)))


def target_of(state: SwarmState, chooser: str, cell: int) -> str | None:
    chosen = state.targets.get(cell, {}).get(chooser)
    if chosen is not None and state.fleets_at(chosen, cell) > 0:
        return chosen
    return default_target(state, chooser, cell)


def fight(state: SwarmState, cell: int) -> Event:
    """One exchange in ``cell``: by Initiative, highest first; equal Initiative at once."""
    races = state.races_at(cell)
    initiative = {r: current(state, r, "initiative") for r in races}
    exchanges: list[dict[str, Any]] = []
    for level in sorted(set(initiative.values()), reverse=True):
        group = [r for r in races if initiative[r] == level and state.fleets_at(r, cell) > 0]
        damage: dict[str, int] = {}
        strikes = []
        for race in group:
            target = target_of(state, race, cell)
            if target is None:
                continue
            dealt = stack_attack(state, race, cell) * state.fleets_at(race, cell)
            damage[target] = damage.get(target, 0) + dealt
            strikes.append({"by": race, "fleets": state.fleets_at(race, cell), "target": target, "damage": dealt})
        losses: dict[str, int] = {}
        for target in [p for p in state.players if p in damage]:
            lost = min(state.fleets_at(target, cell), damage[target] // stack_defense(state, target, cell))
            if lost:
                state.add_fleets(target, cell, -lost)
                state.destroyed[target] = state.destroyed.get(target, 0) + lost
            losses[target] = lost
        if strikes:
            exchanges.append({"initiative": level, "strikes": strikes, "losses": losses})
    return Event({"event": "battle", "at": state.hexmap.label(cell), "exchanges": exchanges,
                  "left": {r: state.fleets_at(r, cell) for r in races}})


def resolve_battles(state: SwarmState) -> list[Event]:
    events = [fight(state, cell) for cell in battle_spaces(state)]
    state.targets = {}
    return events
