"""ROUND BID: the first round clockwise from a random player; later rounds picked by
Initiative, then Strategic Level, then Movement, then clockwise."""
from __future__ import annotations

from swarm_helpers import GAME, Pos, act, events_of, illegal

from pbem.core.rng import Rng
from pbem.rules.spaceswarm.attributes import current
from pbem.rules.spaceswarm.bid import next_picker

ROWS = ["C . . C",
        ". . . .",
        "C . . C"]
PLAYERS = ("red", "blue", "green", "yellow")


def end_of_round(**options) -> Pos:
    """The last turn of round 1 (order blue, green, yellow, red) is about to end."""
    pos = Pos(ROWS, players=PLAYERS, **options)
    for p, home in zip(PLAYERS, ["A1", "D1", "A3", "D3"]):
        pos.stack(p, home, 3)
    pos.deck(*["Movement +1"] * 12)
    return pos.turn("red", "attack", order=["blue", "green", "yellow", "red"])


def to_bid(pos: Pos):
    state = pos.state()
    events = act(state, "red", {"attack": "all"})
    return state, events


def test_the_highest_initiative_picks_first_then_strategic_then_movement_then_clockwise():
    pos = end_of_round().tech("yellow", "Initiative +1").tech("green", "Strategic +1").tech("red", "Movement +1")
    s, events = to_bid(pos)
    assert events_of(events, "round-end") == [{"event": "round-end", "round": 1}]
    assert s.phase == "bid" and [(d.player, d.kind) for d in GAME.pending(s)] == [("yellow", "slot")]
    act(s, "yellow", {"slot": 2})
    assert next_picker(s) == "green"                   # Strategic 2
    assert "one of 1, 3, 4" in illegal(s, "green", {"slot": 2})
    act(s, "green", {"slot": 1})
    assert next_picker(s) == "red"                     # Movement 2 beats blue
    events = act(s, "red", {"slot": 4})
    bids = events_of(events, "bid")
    assert bids[-1] == {"event": "bid", "player": "blue", "place": 3}   # the last free place, not asked
    assert s.order == ["green", "yellow", "blue", "red"] and s.round == 2 and s.active == "green"
    assert events_of(events, "round") == [{"event": "round", "round": 2, "order": ["green", "yellow", "blue", "red"]}]


def test_ties_all_the_way_go_clockwise_from_the_first_player_of_the_round_just_ended():
    s, _ = to_bid(end_of_round())
    assert next_picker(s) == "blue"                    # blue went first in round 1; clockwise: blue, green, ...
    act(s, "blue", {"slot": 4})
    assert next_picker(s) == "green"


def test_standing_orders_pick_places_without_asking():
    pos = end_of_round().standing("red", slot="first").standing("blue", slot="last").standing("green", slot=[3, 2])
    pos.standing("yellow", slot=[3, 1])
    s, events = to_bid(pos)
    bids = [(e.public["player"], e.public["place"], e.auto) for e in events if e.public.get("event") == "bid"]
    assert bids == [("blue", 4, "standing order slot: last"), ("green", 3, "standing order slot: [3, 2]"),
                    ("yellow", 1, "standing order slot: [3, 1]"), ("red", 2, "the last free place")]
    assert s.order == ["yellow", "red", "green", "blue"]


def test_initiative_event_cards_in_the_bid_window_and_they_expire_with_the_bid():
    pos = end_of_round(react_bid="auto").hand("green", "Initiative +2", "Attack +2")
    boost, other = pos.cards("green")
    s, events = to_bid(pos)
    assert [e["card"] for e in events_of(events, "play")] == [boost]
    assert events_of(events, "play")[0]["lasts"] == "until the Round Bid ends"
    assert next_picker(s) == "green" and current(s, "green", "initiative") == 3
    act(s, "green", {"slot": 1})
    act(s, "blue", {"slot": 2})
    act(s, "yellow", {"slot": 3})                      # red takes the last place unasked
    assert s.order == ["green", "blue", "yellow", "red"]
    assert s.phase != "bid" and current(s, "green", "initiative") == 1 and s.hands["green"] == [other]


def test_a_race_that_is_out_has_no_place():
    pos = end_of_round()
    pos.p["stacks"]["green"] = {}
    pos.p["eliminated"] = ["green"]
    s, _ = to_bid(pos)
    assert s.slots == [None, None, None]
    act(s, "blue", {"slot": 1})
    act(s, "yellow", {"slot": 2})
    assert s.order == ["blue", "yellow", "red"]


def test_the_first_round_begins_with_a_random_player_then_clockwise():
    firsts = set()
    for i in range(12):
        s = GAME.setup(list(PLAYERS), GAME.full_options({}), Rng(b"k" * 16, f"s{i}"))
        i0 = PLAYERS.index(s.order[0])
        assert s.order == list(PLAYERS[i0:] + PLAYERS[:i0])
        firsts.add(s.order[0])
    assert len(firsts) > 1
