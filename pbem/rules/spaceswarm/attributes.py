"""ATTRIBUTES: "Your Race has the following six basic attributes ... As you gain
cards, the values of your attributes will increase.  Certain terrain types will
give attribute bonuses to your Race or occupying stacks."
"""
from __future__ import annotations

from pbem.rules.spaceswarm import terrain
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.state import SwarmState


def permanent(state: SwarmState, player: str, attribute: str) -> int:
    """The base value 1 plus the Technology cards in play ("remain in play permanently")."""
    total = swarm_data().base
    for card in state.tech[player]:
        face = state.faces[card]
        if face is not None and face.attribute == attribute:
            total += face.bonus
    return total


def current(state: SwarmState, player: str, attribute: str) -> int:
    """The attribute now: permanent value plus cards played as events that still last."""
    return permanent(state, player, attribute) + sum(
        b.amount for b in state.boosts if b.player == player and b.attribute == attribute)


def all_current(state: SwarmState, player: str) -> dict[str, int]:
    return {a: current(state, player, a) for a in swarm_data().attributes}


def hand_limit(state: SwarmState, player: str) -> int:
    """ "Max hand size is 2+ your Strategic score." """
    return swarm_data().hand_limit_base + current(state, player, "strategy")


def stack_attack(state: SwarmState, player: str, cell: int) -> int:
    """The Race's Attack, +1 in an Asteroid Field."""
    return current(state, player, "attack") + terrain.attack_bonus(state.hexmap, cell)


def stack_defense(state: SwarmState, player: str, cell: int) -> int:
    """The Race's Defense, +1 in a Nebula."""
    return current(state, player, "defense") + terrain.defense_bonus(state.hexmap, cell)


def star_clusters_held(state: SwarmState, player: str) -> list[int]:
    """Star Clusters the race occupies alone (ruling: "+1 Production per cluster
    occupied (only your stacks there)")."""
    return [c for c in sorted(state.fleets[player]) if terrain.is_star_cluster(state.hexmap, c)
            and state.races_at(c) == [player]]


def production(state: SwarmState, player: str) -> int:
    """New fleets this Production Phase: the Production attribute plus one per Star Cluster held."""
    return current(state, player, "production") + len(star_clusters_held(state, player))
