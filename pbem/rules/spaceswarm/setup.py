"""SETUP: the map, three fleets on each home Cluster, two cards each with the
mulligan, and the random first player.

"Each player starts with three Fleet counters on one Cluster space.  Players
should start in opposite corners (or as far apart as possible).  Each player
draws 2 cards.  If a player has no Technology cards in his draw it is a
Mulligan: He reveals the cards, discards them and draws 2 new cards."
"""
from __future__ import annotations

from typing import Mapping, Sequence

from pbem.core.rng import Rng
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.mapgen import GENERATED, Board, generate, parse_map_text
from pbem.rules.spaceswarm.options import Settings
from pbem.rules.spaceswarm.state import DEVELOPMENT, SwarmState


def make_board(settings: Settings, n_players: int, rng: Rng) -> Board:
    if settings.map == GENERATED:
        return generate(settings.map_settings, n_players, rng)
    return parse_map_text(settings.map, n_players)


def shuffled_deck(settings: Settings, rng: Rng) -> tuple[list[str], dict]:
    """The deck (one or two copies of the card list), shuffled; handles C1.. in deck order."""
    faces = list(swarm_data().deck) * settings.decks
    rng.shuffle(faces, "deck")
    handles = [f"C{i + 1}" for i in range(len(faces))]
    return handles, dict(zip(handles, faces))


def new_state(players: Sequence[str], options: Mapping[str, str], rng: Rng) -> SwarmState:
    """Everything before the first turn (the first turn is begun by the turn sequence)."""
    data = swarm_data()
    settings = Settings.of(options)
    board = make_board(settings, len(players), rng)
    homes = {p: board.homes[i] for i, p in enumerate(players)}
    deck, faces = shuffled_deck(settings, rng)
    state = SwarmState(
        players=list(players), options=dict(options), hexmap=board.hexmap, homes=homes,
        phase=DEVELOPMENT, step="", round=1, order=list(players), turn_index=0, turns=0, stack_moves=0,
        fleets={p: {homes[p]: data.start_fleets} for p in players}, moved={p: {} for p in players},
        faces=faces, deck=deck, hands={p: [] for p in players}, tech={p: [] for p in players}, discard=[],
        boosts=[], visited=[], standing={p: {} for p in players},
        produced={p: 0 for p in players}, destroyed={p: 0 for p in players})
    for p in players:
        deal_starting_hand(state, p, settings.mulligan)
    # "In the first round, a random player goes first followed by the other
    # players going clockwise around the table."
    first = players[rng.randbelow(len(players), "first player")]
    state.order = state.seat_order_from(first)
    return state


def deal_starting_hand(state: SwarmState, player: str, mulligan: str) -> None:
    """Draw 2; a draw without Technology is a Mulligan (repeated while it happens,
    or only once with ``mulligan=once``)."""
    count = swarm_data().start_cards
    while True:
        cards, state.deck = state.deck[:count], state.deck[count:]
        state.hands[player] = cards
        faces = [state.faces[c] for c in cards]
        if any(f is not None and f.is_technology for f in faces) or len(state.deck) < count:
            return
        # "He reveals the cards, discards them and draws 2 new cards."
        state.discard.extend(cards)
        state.hands[player] = []
        if mulligan == "once":
            cards, state.deck = state.deck[:count], state.deck[count:]
            state.hands[player] = cards
            return
