"""VICTORY: "There are 2 ways to Win: 1. Control all the Star Cluster spaces in
play  2. Occupy the most spaces when the deck runs out."

Rulings: control means your stacks and no enemy's on every Star Cluster, checked
at the end of every turn.  When the deck runs out, ties for the most spaces share
the win.  When only one race has fleets left it wins at once (no other race can
ever occupy a space again), and if none has, everybody ties at 0.
"""
from __future__ import annotations

from pbem.rules.spaceswarm import terrain
from pbem.rules.spaceswarm.state import SwarmState

CONTROL, DECK, LAST_RACE = "control", "deck", "last-race"


def scores(state: SwarmState) -> dict[str, int]:
    """Spaces occupied by each race."""
    return {p: state.spaces_occupied(p) for p in state.players}


def controls_every_star_cluster(state: SwarmState) -> str | None:
    clusters = state.hexmap.cells_of(terrain.STAR_CLUSTER)
    for player in state.players:
        if clusters and all(state.races_at(c) == [player] for c in clusters):
            return player
    return None


def most_spaces(state: SwarmState) -> list[str]:
    points = scores(state)
    best = max(points.values())
    return [p for p in state.players if points[p] == best]


def last_race(state: SwarmState) -> list[str] | None:
    """The winners when at most one race is left, else None."""
    alive = state.alive()
    if len(alive) == 1:
        return alive
    if not alive:
        return list(state.players)
    return None
