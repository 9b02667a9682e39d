"""The greedy bot's preferences: attack weaker stacks, grab Star Clusters and
Alien Ruins, keep the clusters it holds, place useful Technology.

Only what the bot's player may see is used: the map, the stacks, cards in play
and in the discard pile, and the faces of the player's own hand.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.core.choices import Chain
from pbem.rules.spaceswarm import terrain
from pbem.rules.spaceswarm.attack import battle_spaces, kills
from pbem.rules.spaceswarm.attributes import current, stack_attack, stack_defense
from pbem.rules.spaceswarm.data import CardFace
from pbem.rules.spaceswarm.hexmap import HexMap
from pbem.rules.spaceswarm.movement import MoveStep, SimpleMoves
from pbem.rules.spaceswarm.state import SwarmState

#: how much the bot values a permanent +1 in each attribute
TECH_VALUE = {"production": 6.0, "movement": 5.0, "attack": 4.5, "strategy": 3.5, "defense": 3.0, "initiative": 2.0}
#: attributes whose Event cards help in each of the bot's own steps
USEFUL_IN = {"produce": ("production",), "attack": ("attack", "defense", "initiative")}


def own_face(state: SwarmState, player: str, card: str) -> CardFace | None:
    return state.faces.get(card) if card in state.hands[player] else None


def card_value(face: CardFace | None) -> float:
    if face is None:
        return 0.0
    return TECH_VALUE.get(face.attribute, 1.0) if face.is_technology else 1.5


def preference(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    kind = next(iter(action))
    scorer = SCORERS.get(kind)
    return scorer(state, player, action) if scorer else 0.0


def preferences(state: SwarmState, player: str, actions: Sequence[Mapping[str, Any]]) -> list[float]:
    """:func:`preference` of each action; what a move is scored against (the goals, each space's
    distance to the nearest, the stacks in a space, an exchange) is worked out once for the whole
    list (it depends on the position only: :class:`MoveFacts`)."""
    if isinstance(actions, Chain):
        return [s for part in actions.parts for s in preferences(state, player, part)]
    if isinstance(actions, SimpleMoves):            # the moves' steps, scored without making them
        shared = MoveFacts(state, player, goal_cells(state, player))
        return [_step(state, player, step, shared) for step in actions.steps]
    facts: MoveFacts | None = None
    out: list[float] = []
    for action in actions:
        if next(iter(action)) == "move":
            if facts is None:
                facts = MoveFacts(state, player, goal_cells(state, player))
            out.append(_move(state, player, action, facts=facts))
        else:
            out.append(preference(state, player, action))
    return out


class MoveFacts:
    """What :func:`_move` reads of the position for one player, each fact worked out once (a
    greedy decision scores dozens of moves of the same stacks to the same spaces)."""

    def __init__(self, state: SwarmState, player: str, goals: list[int]) -> None:
        self.state, self.player, self.goals = state, player, goals
        self._nearest: dict[int, int] = {}
        self._enemies: dict[int, list[str]] = {}
        self._alone: dict[int, bool] = {}
        self._exchange: dict[tuple[int, int], tuple[int, int]] = {}

    def nearest(self, cell: int) -> int:
        """:func:`nearest` goal from ``cell``."""
        found = self._nearest.get(cell)
        if found is None:
            found = self._nearest[cell] = nearest(self.state.hexmap, cell, self.goals)
        return found

    def enemies_at(self, cell: int) -> list[str]:
        found = self._enemies.get(cell)
        if found is None:
            found = self._enemies[cell] = self.state.enemies_at(self.player, cell)
        return found

    def held_alone(self, cell: int) -> bool:
        """Are the player's the only fleets in ``cell``?"""
        found = self._alone.get(cell)
        if found is None:
            found = self._alone[cell] = self.state.races_at(cell) == [self.player]
        return found

    def exchange(self, cell: int, mine: int) -> tuple[int, int]:
        """:func:`exchange` at ``cell`` with ``mine`` fleets there."""
        found = self._exchange.get((cell, mine))
        if found is None:
            found = self._exchange[(cell, mine)] = exchange(self.state, self.player, cell, mine)
        return found


def _develop(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    card = action["develop"]
    return 0.0 if card == "none" else 1.0 + card_value(own_face(state, player, str(card)))


def _discard(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    return -sum(card_value(own_face(state, player, c)) for c in action["discard"])


def _produce(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    """New fleets where the enemy is nearest."""
    cell = state.hexmap.index(action["produce"])
    return -nearest(state.hexmap, cell, enemy_cells(state, player)) / 10.0


def _event(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    face = own_face(state, player, str(action["event"]))
    if face is None or face.is_technology:
        return -1.0
    if state.step == "produce" and face.attribute in USEFUL_IN["produce"]:
        return 2.0
    mine = [c for c in battle_spaces(state) if state.fleets_at(player, c)]
    if state.step == "attack" and mine and face.attribute in USEFUL_IN["attack"]:
        return 1.0
    return -1.0


def _react(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    value = action["react"]
    if value == "none":
        return 0.0
    face = own_face(state, player, str(value[0]))
    if face is None or face.is_technology:
        return -1.0
    helps = ("attack", "defense", "initiative") if state.window and state.window.kind == "combat" else ("initiative",)
    return 1.0 if face.attribute in helps else -1.0


def _slot(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    return -float(action["slot"])


def _attack(state: SwarmState, player: str, action: Mapping[str, Any]) -> float:
    targets = action.get("targets") or {}
    return sum(kills(state, player, race, state.hexmap.index(at)) for at, race in targets.items()) / 10.0


def _move(state: SwarmState, player: str, action: Mapping[str, Any], goals: list[int] | None = None,
          facts: MoveFacts | None = None) -> float:
    """How much better the board is for the bot after this move (``goals``: :func:`goal_cells`;
    ``facts``: the position's, shared by the moves of one decision)."""
    hexmap = state.hexmap
    if facts is None:
        facts = MoveFacts(state, player, goal_cells(state, player) if goals is None else goals)
    fleets = action.get("fleets")
    step = (hexmap.index(action["move"]), None if fleets is None else int(fleets), [hexmap.index(p) for p in action["path"]])
    return _step(state, player, step, facts)


def _step(state: SwarmState, player: str, step: MoveStep, facts: MoveFacts) -> float:
    """:func:`_move` of a move given as its step (:data:`~pbem.rules.spaceswarm.movement.MoveStep`).
    (The terrain's rules, :func:`terrain.is_star_cluster` and the others, read from the map's
    table at once: this is scored for every move of a greedy decision.)"""
    kinds, visited = state.hexmap.terrain, state.visited
    start, fleets, path = step
    end = path[-1]
    mine = state.fleets[player]
    here = mine.get(start, 0)
    moving = here if fleets is None else fleets
    score = 0.0
    enemies = facts.enemies_at(end)
    if enemies:
        mine_after = mine.get(end, 0) + moving
        mine_lost, theirs_lost = facts.exchange(end, mine_after)
        if mine_lost >= mine_after:
            score -= 20.0
        score += 2.0 * theirs_lost - 3.0 * mine_lost
    arrival = kinds[end]
    if arrival == terrain.STAR_CLUSTER and not facts.held_alone(end):
        score += 8.0
    if arrival == terrain.ALIEN_RUINS and end not in visited:
        score += 4.0
    for k in range(len(path) - 1):        # ruins passed on the way (the score is a whole number here: exact)
        c = path[k]
        if kinds[c] == terrain.ALIEN_RUINS and c not in visited:
            score += 3.0
    if arrival == terrain.QUASAR:
        score -= 2.5
    if arrival == terrain.BLACK_HOLE:     # (terrain.must_stop)
        score -= 0.5
    if moving == here and kinds[start] == terrain.STAR_CLUSTER and not facts.enemies_at(start):
        score -= 9.0     # leaving a held cluster empty
    score += 0.7 * (facts.nearest(start) - facts.nearest(end))
    return score


def exchange(state: SwarmState, player: str, cell: int, mine: int) -> tuple[int, int]:
    """(fleets the bot would lose, fleets its enemies would lose) in one exchange at
    ``cell`` with ``mine`` fleets there, every enemy striking the bot, by Initiative."""
    enemies = {e: state.fleets_at(e, cell) for e in state.enemies_at(player, cell)}
    my_init = current(state, player, "initiative")
    attack_mine = stack_attack(state, player, cell)
    defense_mine = stack_defense(state, player, cell)

    def their_hits(alive: dict[str, int], who: list[str]) -> int:
        return sum(alive[e] * stack_attack(state, e, cell) for e in who) // defense_mine

    def my_hits(n: int, alive: dict[str, int]) -> dict[str, int]:
        if not alive:
            return alive
        target = max(alive, key=lambda e: alive[e])
        lost = min(alive[target], n * attack_mine // stack_defense(state, target, cell))
        return {**alive, target: alive[target] - lost}

    initiative = {e: current(state, e, "initiative") for e in enemies}     # (once per enemy race)
    first = [e for e in enemies if initiative[e] > my_init]
    same = [e for e in enemies if initiative[e] == my_init]
    later = [e for e in enemies if initiative[e] < my_init]
    n = max(0, mine - their_hits(enemies, first))
    after = my_hits(n, enemies)
    n = max(0, n - their_hits(enemies, same))
    n = max(0, n - their_hits(after, later))
    return mine - n, sum(enemies.values()) - sum(after.values())


def goal_cells(state: SwarmState, player: str) -> list[int]:
    """Star Clusters not held alone, unvisited ruins, and enemy stacks the bot outnumbers."""
    hexmap = state.hexmap
    goals = [c for c in hexmap.cells_of(terrain.STAR_CLUSTER) if state.races_at(c) != [player]]
    goals += [c for c in hexmap.cells_of(terrain.ALIEN_RUINS) if c not in state.visited]
    strength = current(state, player, "attack") * max(state.fleets[player].values(), default=0)
    for p in state.players:
        if p != player and state.fleets[p]:
            defense = current(state, p, "defense")      # (once per race, not once per stack)
            goals += [c for c, n in state.fleets[p].items() if n * defense < strength]
    return goals


def enemy_cells(state: SwarmState, player: str) -> list[int]:
    return [c for p in state.players if p != player for c in state.fleets[p]]


def nearest(hexmap: HexMap, cell: int, goals: list[int]) -> int:
    row = hexmap.distances_from(cell)
    return min((row[g] for g in goals), default=0)


SCORERS = {"develop": _develop, "discard": _discard, "produce": _produce, "event": _event, "react": _react,
           "slot": _slot, "attack": _attack, "move": _move}
