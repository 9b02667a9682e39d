"""TURN SEQUENCE: the Round Bid, then each player's five phases.

"Players take turns.  A round is when all players have had a turn.  Turn order
is determined at the beginning of a round in the Round Bid.  Each player's turn
has 5 phases: 1. Development Phase 2. Production Phase 3. Move Phase 4. Attack
Phase 5. Research Phase"

Each function here is one step of that sequence: it runs what happens by itself
(draws, battles, standing orders) and stops where the game waits for a player
(``state.step``).  End of a turn (rulings): Quasars take their fleet, cards
played "for the remainder of the current turn" expire, and the victories are
checked (control of every Star Cluster, one race left, the deck run out at the
Research Phase).  A race with no fleets left is out: it takes no more turns.
"""
from __future__ import annotations

from pbem.game import Event
from pbem.rules.spaceswarm import attack, bid, research, terrain, victory
from pbem.rules.spaceswarm.development import excess_cards
from pbem.rules.spaceswarm.events import (
    clear_boosts,
    open_window,
    run_window,
    standing_order,
)
from pbem.rules.spaceswarm.movement import end_of_move_phase
from pbem.rules.spaceswarm.options import Settings
from pbem.rules.spaceswarm.state import (
    ATTACK,
    BID,
    DEVELOP,
    DEVELOPMENT,
    DISCARD,
    FIGHT,
    MOVE,
    MOVEMENT,
    OVER,
    PRODUCE,
    PRODUCTION,
    REACT,
    RESEARCH,
    SLOT,
    UNTIL_PHASE,
    UNTIL_TURN,
    WINDOW_BID,
    WINDOW_COMBAT,
    SwarmState,
)


def set_phase(state: SwarmState, phase: str) -> None:
    """A new phase: "The bonuses/effects of Event cards last only the current Phase"."""
    if state.phase != phase:
        clear_boosts(state, (UNTIL_PHASE,))
        state.phase = phase


def tech_in_research(state: SwarmState) -> bool:
    return Settings.of(state.options).tech_phase == "research"


# --- a player's turn ------------------------------------------------------------------
def start_turn(state: SwarmState, events: list[Event]) -> None:
    state.turns += 1
    state.stack_moves = 0
    state.phase = DEVELOPMENT
    events.append(Event({"event": "turn", "player": state.active, "round": state.round, "turn": state.turns}))
    if tech_in_research(state):
        check_hand_limit(state, events)
    else:
        state.step = DEVELOP


def after_develop(state: SwarmState, events: list[Event]) -> None:
    if state.phase == RESEARCH:
        research_draw(state, events)
    else:
        check_hand_limit(state, events)


def check_hand_limit(state: SwarmState, events: list[Event]) -> None:
    """ "Max hand size is 2+ your Strategic score.  Discard excess cards." """
    if excess_cards(state, state.active):
        state.step = DISCARD
    else:
        start_production(state, events)


def start_production(state: SwarmState, events: list[Event]) -> None:
    set_phase(state, PRODUCTION)
    state.step = PRODUCE


def start_movement(state: SwarmState, events: list[Event]) -> None:
    set_phase(state, MOVEMENT)
    state.stack_moves = 0
    state.step = MOVE


def end_movement(state: SwarmState, events: list[Event]) -> None:
    end_of_move_phase(state, state.active)
    set_phase(state, ATTACK)
    state.step = FIGHT


def fight_battles(state: SwarmState, events: list[Event]) -> None:
    """After the active player's ``attack`` order: the other races in battles may
    react (standing orders), then every battle is fought."""
    if not attack.battle_spaces(state):
        finish_battles(state, events)
        return
    note = open_window(state, WINDOW_COMBAT, attack.involved(state))
    events.append(note)
    if run_window(state, events, note):
        finish_battles(state, events)
    else:
        state.step = REACT


def finish_battles(state: SwarmState, events: list[Event]) -> None:
    events.extend(attack.resolve_battles(state))
    note_eliminations(state, events)
    if state.in_game(state.active):
        start_research(state, events)
    else:
        end_turn(state, events, researched=False)


def start_research(state: SwarmState, events: list[Event]) -> None:
    set_phase(state, RESEARCH)
    if tech_in_research(state):
        state.step = DEVELOP
    else:
        research_draw(state, events)


def research_draw(state: SwarmState, events: list[Event]) -> None:
    drawn = research.research(state, state.active)
    if drawn is not None:
        events.append(drawn)
    end_turn(state, events, researched=True)


def end_turn(state: SwarmState, events: list[Event], researched: bool) -> None:
    player = state.active
    quasars_strike(state, player, events)
    note_eliminations(state, events)
    clear_boosts(state, (UNTIL_PHASE, UNTIL_TURN))
    state.step = ""
    if check_victory(state, events, researched):
        return
    next_turn(state, events)


def quasars_strike(state: SwarmState, player: str, events: list[Event]) -> None:
    """Quasar: "Any Stack that ends its turn here has 1 Fleet destroyed" (ruling: at
    the end of the owner's turn)."""
    for cell in sorted(state.fleets[player]):
        if terrain.is_quasar(state.hexmap, cell):
            state.add_fleets(player, cell, -1)
            state.destroyed[player] = state.destroyed.get(player, 0) + 1
            events.append(Event({"event": "quasar", "player": player, "at": state.hexmap.label(cell),
                                 "left": state.fleets_at(player, cell)}))


def note_eliminations(state: SwarmState, events: list[Event]) -> None:
    for p in state.players:
        if not state.in_game(p) and p not in state.eliminated:
            state.eliminated.append(p)
            events.append(Event({"event": "eliminated", "player": p}))


def check_victory(state: SwarmState, events: list[Event], researched: bool) -> bool:
    controller = victory.controls_every_star_cluster(state)
    if controller is not None:
        end_game(state, victory.CONTROL, [controller], events)
        return True
    survivors = victory.last_race(state)
    if survivors is not None:
        end_game(state, victory.LAST_RACE, survivors, events)
        return True
    if researched and research.no_cards_remain(state):
        end_game(state, victory.DECK, victory.most_spaces(state), events)
        return True
    return False


def end_game(state: SwarmState, how: str, winners: list[str], events: list[Event]) -> None:
    state.phase, state.step = OVER, ""
    state.victory, state.winners = how, list(winners)
    state.window, state.slots = None, None
    events.append(Event({"event": "game-over", "victory": how, "winners": list(winners),
                         "spaces": victory.scores(state)}))


def next_turn(state: SwarmState, events: list[Event]) -> None:
    for i in range(state.turn_index + 1, len(state.order)):
        if state.in_game(state.order[i]):
            state.turn_index = i
            start_turn(state, events)
            return
    start_bid(state, events)


# --- the Round Bid ------------------------------------------------------------------------
def start_bid(state: SwarmState, events: list[Event]) -> None:
    events.append(Event({"event": "round-end", "round": state.round}))
    set_phase(state, BID)
    state.step = ""
    players = bid.bidders(state)
    state.slots = [None] * len(players)
    note = open_window(state, WINDOW_BID, players)
    events.append(note)
    if run_window(state, events, note):
        run_picks(state, events)
    else:
        state.step = REACT


def after_window(state: SwarmState, events: list[Event]) -> None:
    if state.phase == BID:
        run_picks(state, events)
    else:
        finish_battles(state, events)


def run_picks(state: SwarmState, events: list[Event]) -> None:
    """Each bidder in turn takes a place, by standing order or when asked."""
    while (player := bid.next_picker(state)) is not None:
        if len(bid.free_places(state)) == 1:
            events.append(bid.take_place(state, player, bid.free_places(state)[0], auto="the last free place"))
            continue
        order = standing_order(state, player, "slot")
        place = bid.by_standing_order(state, order)
        if place is None:
            state.step = SLOT
            return
        events.append(bid.take_place(state, player, place, auto=f"standing order slot: {order}"))
    end_bid(state, events)


def end_bid(state: SwarmState, events: list[Event]) -> None:
    assert state.slots is not None
    clear_boosts(state, (UNTIL_PHASE, UNTIL_TURN))   # "for the remainder of the current turn (or Bid)"
    state.order = [p for p in state.slots if p is not None]
    state.slots = None
    state.round += 1
    state.turn_index = 0
    events.append(Event({"event": "round", "round": state.round, "order": list(state.order)}))
    start_turn(state, events)


def after_slot(state: SwarmState, events: list[Event]) -> None:
    run_picks(state, events)

