"""PRODUCTION PHASE.

"Gain a number of new Fleet counters equal to your Production attribute.  Place
the new Fleets on top of your existing stacks."  Star Cluster: "A Race occupying
this space gets Production +1" (ruling: +1 per cluster occupied with only your
stacks there).
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import Event, IllegalAction
from pbem.rules.spaceswarm.attributes import production, star_clusters_held
from pbem.rules.spaceswarm.state import SwarmState


def check_produce(state: SwarmState, player: str, action: Mapping[str, Any]) -> dict[int, int]:
    """``{produce: C4}`` (all on one stack) or ``{produce: {C4: 2, D5: 1}}``: where the new fleets go."""
    if len(action) != 1:
        raise IllegalAction("place new fleets like this: {produce: C4} or {produce: {C4: 2, D5: 1}}")
    total = production(state, player)
    value = action["produce"]
    if not isinstance(value, (str, Mapping)):        # a list is no space (nor a key: TypeError before)
        raise IllegalAction("place new fleets like this: {produce: C4} or {produce: {C4: 2, D5: 1}}")
    wanted = value if isinstance(value, Mapping) else {value: total}
    placement: dict[int, int] = {}
    for label, count in wanted.items():
        try:
            cell = state.hexmap.index(label)
        except ValueError as exc:
            raise IllegalAction(f"produce: {exc}") from None
        if state.fleets_at(player, cell) == 0:
            raise IllegalAction(f"produce: you have no stack at {state.hexmap.label(cell)}; new fleets go on "
                                "your existing stacks")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise IllegalAction(f"produce: {label}: {count!r} is not a number of fleets (1 or more)")
        if cell in placement:
            raise IllegalAction(f"produce: {state.hexmap.label(cell)} is named twice")
        placement[cell] = count
    if sum(placement.values()) != total:
        raise IllegalAction(f"your production is {total} this turn: place exactly {total} new fleet(s), "
                            f"not {sum(placement.values())}")
    return placement


def place_new_fleets(state: SwarmState, player: str, placement: dict[int, int]) -> Event:
    for cell, count in sorted(placement.items()):
        state.add_fleets(player, cell, count)
    total = sum(placement.values())
    state.produced[player] = state.produced.get(player, 0) + total
    return Event({"event": "produce", "player": player, "fleets": total,
                  "clusters": [state.hexmap.label(c) for c in star_clusters_held(state, player)],
                  "placed": {state.hexmap.label(c): n for c, n in sorted(placement.items())}})
