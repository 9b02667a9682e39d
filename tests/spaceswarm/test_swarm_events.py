"""Event cards, Technology used as an event, reaction windows and standing orders."""
from __future__ import annotations

from swarm_helpers import GAME, Pos, act, events_of, illegal

from pbem.core.draws import Draws
from pbem.core.engine import apply_actions
from pbem.rules.spaceswarm.attributes import current

ROWS = ["C . . .",
        ". . . .",
        ". . . C"]


def fight_pos() -> Pos:
    """red (active) 3 fleets and blue 3 fleets meet at B1."""
    return (Pos(ROWS).stack("red", "B1", 3).stack("blue", "B1", 3).stack("red", "A1", 1).stack("blue", "D3", 1)
            .deck("Attack +1", "Defense +1", "Movement +1", "Strategic +1"))


def test_an_event_card_lasts_only_the_current_phase():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", "Movement +2")
    s = pos.turn("red", "move").state()
    events = act(s, "red", {"event": pos.cards("red")[0]})
    assert events_of(events, "play")[0]["lasts"] == "until the end of the movement phase"
    assert current(s, "red", "movement") == 3 and s.discard == pos.cards("red")
    act(s, "red", {"move": "A1", "path": ["B1", "C1", "D1"]})
    act(s, "red", {"done": "move"})
    assert current(s, "red", "movement") == 1


def test_a_technology_card_discarded_as_an_event_lasts_the_rest_of_the_turn():
    pos = fight_pos().hand("red", "Attack +1")
    s = pos.turn("red", "move").state()
    events = act(s, "red", {"event": pos.cards("red")[0]})
    assert events_of(events, "play")[0]["lasts"] == "until the end of this turn"
    act(s, "red", {"done": "move"})
    assert current(s, "red", "attack") == 2
    act(s, "red", {"attack": "all"})
    assert s.fleets_at("blue", 1) == 0                 # 3 fleets x Attack 2 = 6 damage
    assert current(s, "red", "attack") == 1 and s.active == "blue"


def test_any_player_may_play_a_card_in_another_players_turn():
    pos = fight_pos().hand("blue", "Defense +1")
    s = pos.turn("red", "move").state()
    card = pos.cards("blue")[0]
    assert "event" in GAME.anytime_actions
    applied = apply_actions(GAME, s, "blue", [{"event": card}], Draws(b"s" * 32, "g/1"))
    assert [e.public["event"] for e in applied.events] == ["play"]
    assert current(s, "blue", "defense") == 2 and s.active == "red"
    assert "is not in your hand" in illegal(s, "blue", {"event": card})


def test_the_combat_window_plays_combat_event_cards_by_standing_order_auto():
    pos = fight_pos().hand("blue", "Defense +2", "Attack +1", "Movement +2")
    defense, tech, movement = pos.cards("blue")
    s = pos.turn("red", "attack").state()
    events = act(s, "red", {"attack": "all"})
    window = events_of(events, "window")[0]
    assert window == {"event": "window", "window": "combat", "players": ["blue"]}
    plays = [e for e in events if e.public.get("event") == "play"]
    assert [p.public["card"] for p in plays] == [defense]          # not the Technology, not Movement
    assert plays[0].auto == "standing order combat: auto" and plays[0].chance
    assert s.fleets_at("blue", 1) == 2 and s.fleets_at("red", 1) == 0   # Defense 3: red's 3 damage kills 1
    assert s.hands["blue"] == [tech, movement]


def test_standing_order_never_plays_nothing_and_only_that_player_learns_it():
    pos = fight_pos().hand("blue", "Defense +2").standing("blue", combat="never")
    s = pos.turn("red", "attack").state()
    events = act(s, "red", {"attack": "all"})
    assert not events_of(events, "play")
    window = next(e for e in events if e.public.get("event") == "window")
    assert window.private == {"blue": {"event": "no-reaction", "player": "blue",
                                       "reason": "standing order combat: never"}}


def test_standing_order_ask_stops_and_asks_with_a_target_choice():
    pos = fight_pos().hand("blue", "Attack +1").standing("blue", combat="ask")
    card = pos.cards("blue")[0]
    s = pos.turn("red", "attack").state()
    events = act(s, "red", {"attack": "all"})
    assert not events_of(events, "battle")
    assert [(d.player, d.kind) for d in GAME.pending(s)] == [("blue", "react")]
    assert {"react": [card]} in GAME.legal_actions(s, "blue")
    assert "not your decision" in illegal(s, "red", {"react": "none"})
    events = act(s, "blue", {"react": [card], "targets": {"B1": "red"}})
    assert events_of(events, "play")[0]["card"] == card and events_of(events, "battle")
    assert s.fleets_at("red", 1) == 0 and s.active == "blue"     # blue strikes with Attack 2: 6 damage


def test_a_listed_standing_order_plays_exactly_those_cards_even_technology():
    pos = fight_pos().hand("blue", "Attack +1", "Defense +2")
    tech, event = pos.cards("blue")
    pos.standing("blue", combat=[tech])
    s = pos.turn("red", "attack").state()
    events = act(s, "red", {"attack": "all"})
    assert [e["card"] for e in events_of(events, "play")] == [tech]
    assert s.hands["blue"] == [event]


def test_standing_orders_are_checked_and_private():
    s = fight_pos().turn("red", "move").state()
    assert "unknown standing order" in illegal(s, "blue", {"standing": {"defense": "auto"}})
    assert "must be one of auto, never, ask" in illegal(s, "blue", {"standing": {"combat": "always"}})
    events = act(s, "blue", {"standing": {"combat": "ask", "slot": [2, 1]}})
    assert events[0].public == {"event": "standing", "player": "blue"}
    assert events[0].private["blue"]["orders"] == {"combat": "ask", "slot": [2, 1]}
    assert GAME.view(s, None)["players"][1]["standing"] is None
    assert GAME.view(s, "blue")["players"][1]["standing"] == {"combat": "ask", "slot": [2, 1]}
    assert GAME.secrets(s, "blue")["standing"] == {"combat": "ask", "bid": "never", "slot": [2, 1]}


def test_the_option_sets_everybodys_default_standing_order():
    pos = fight_pos().hand("blue", "Defense +2")
    pos.p["options"]["react_combat"] = "never"
    s = pos.turn("red", "attack").state()
    assert not events_of(act(s, "red", {"attack": "all"}), "play")
