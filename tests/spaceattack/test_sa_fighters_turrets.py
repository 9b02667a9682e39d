"""Fighters, laser turrets, captured creatures (step 1) and the steal window."""
import pytest
from spaceattack_helpers import GAME, Pos, act, events_of, kinds, where

from pbem.core.rng import Rng
from pbem.game import IllegalAction, NeedsSecret


def base(**options):
    return Pos(options=options).station("F6", "F7", "G3", "D5")


def test_a_flight_is_any_distance_in_one_of_six_straight_lines():
    st = base().boat("X1", "F2", "r1").state()
    rules = GAME.rules_for(st)
    dests = {a["to"] for a in GAME.legal_actions(st, "red") if a.get("move") == "X1"}
    assert {"F1", "F3", "F4", "F5"} <= dests and "F6" not in dests and "F8" not in dests   # F6 is a tile
    lines = [ray for ray in rules.rays[rules.board.index["F2"]]]
    assert len(lines) == 6
    on_lines = {rules.label(c) for ray in lines for c in ray}
    assert dests <= on_lines and "E1" in dests
    events = act(st, "red", {"move": "X1", "to": "F5"})
    assert where(st, "X1") == ("sea", "F5") and where(st, "r1") == ("boat", "X1")
    assert events_of(events, "fly")[0] == {"event": "fly", "player": "red", "ship": "X1", "from": "F2", "to": "F5"}


def test_a_fighter_passes_over_ships_but_never_ends_on_one_nor_on_a_tile():
    st = base().boat("X1", "F2", "r1").boat("P1", "F3").state()
    dests = {a["to"] for a in GAME.legal_actions(st, "red") if a.get("move") == "X1"}
    assert "F3" not in dests and "F4" in dests
    with pytest.raises(IllegalAction, match="straight line"):
        act(st, "red", {"move": "X1", "to": "F3"})
    with pytest.raises(IllegalAction, match="straight line"):
        act(st, "red", {"move": "X1", "to": "G4"})    # not on a line from F2
    with pytest.raises(IllegalAction, match="straight line"):
        act(st, "red", {"move": "X1", "to": "F6"})    # a station tile


def test_a_crewed_fighter_stops_at_creatures_and_captures_them_all():
    st = base().boat("X1", "F1", "r1").creature("Q1", "F3").creature("S1", "F3").creature("W1", "F4").state()
    dests = {a["to"] for a in GAME.legal_actions(st, "red") if a.get("move") == "X1"}
    assert "F3" in dests and "F4" not in dests
    events = act(st, "red", {"move": "X1", "to": "F3"})
    assert where(st, "Q1") == ("captured", None) and where(st, "S1") == ("captured", None)
    assert st.captured["red"] == ["Q1", "S1"] and where(st, "W1") == ("sea", "F4")
    capture = events_of(events, "capture")[0]
    assert capture["creatures"] == ["Q1", "S1"] and capture["player"] == "red"
    assert GAME.view(st, None)["captured"]["red"] == ["Q1", "S1"]      # "in front of you": public


def test_an_empty_fighter_stops_at_creatures_but_captures_nothing_and_anybody_may_fly_it():
    st = base().land("r1", "F6").boat("X1", "F1").creature("W1", "F3").state()
    act(st, "red", {"move": "X1", "to": "F3"})
    assert where(st, "X1") == ("sea", "F3") and where(st, "W1") == ("sea", "F3")
    assert st.captured["red"] == []


def test_one_point_per_fighter_per_turn_and_only_its_pilot_flies_it():
    st = base().boat("X1", "F1", "r1").boat("X2", "E1", "b1").state()
    act(st, "red", {"move": "X1", "to": "F2"})
    with pytest.raises(IllegalAction, match="at most 1 movement point"):
        act(st, "red", {"move": "X1", "to": "F3"})
    assert not [a for a in GAME.legal_actions(st, "red") if a.get("move") == "X1"]
    with pytest.raises(IllegalAction, match="another player's crew"):
        act(st, "red", {"move": "X2", "to": "E2"})


def test_crew_board_and_leave_a_fighter_like_a_pod_one_aboard():
    st = base().land("r1", "F6").land("r2", "F6").boat("X1", "F5").state()
    act(st, "red", {"move": "r1", "to": "F5"})
    assert where(st, "r1") == ("boat", "X1")
    with pytest.raises(IllegalAction, match="full"):
        act(st, "red", {"move": "r2", "to": "F5"})
    act(st, "red", {"move": "r1", "to": "F5"})          # jump out into its space
    assert where(st, "r1") == ("sea", "F5")


def test_queen_and_warrior_moving_into_a_crewed_fighter_destroy_it_a_spawn_does_not():
    p = base().boat("X1", "E2", "r1").boat("X2", "C4", "b1").boat("X3", "H2", "g1").land("r9", "F6")
    p.creature("Q1", "E1").creature("W1", "C3").creature("S1", "H1").turn(step="creature")
    st = p.turn(die="queen").state()
    act(st, "red", {"creature": "Q1", "to": "E2"})
    assert where(st, "X1") == ("lost", None) and where(st, "r1") == ("lost", None)
    st = p.turn(die="warrior").state()
    act(st, "red", {"creature": "W1", "to": "C4"})
    assert where(st, "X2") == ("lost", None) and where(st, "b1") == ("sea", "C4")
    st = p.turn(die="spawn").state()
    act(st, "red", {"creature": "S1", "to": "H2"})
    assert where(st, "X3") == ("sea", "H2") and where(st, "g1") == ("boat", "X3")


# --- laser turrets -------------------------------------------------------------------------------
def turret_pos(**options):
    p = Pos(options=options).station("F6", "F7", "G3", "D5")
    p.tile("F6", kind="reactor")
    return p


def test_a_crew_on_the_reactor_fires_along_a_line_and_captures_the_first_creatures_hit():
    st = turret_pos().land("r1", "F6").creature("S1", "F4").creature("Q1", "F3").boat("P1", "F5").drift("b1", "F5").state()
    turret = st.tile_at[GAME.base.board.index["F6"]]
    legal = [a for a in GAME.legal_actions(st, "red") if "fire" in a]
    assert {"fire": turret, "at": "F4"} in legal and {"fire": turret, "at": "F3"} not in legal
    events = act(st, "red", {"fire": turret, "at": "F4"})
    assert where(st, "S1") == ("captured", None) and st.captured["red"] == ["S1"]
    assert st.turn.moves == 1 and kinds(events)[:2] == ["fire", "capture"]
    act(st, "red", {"fire": "F6", "at": "F3"})           # "another movement point to capture the Queen"
    assert st.captured["red"] == ["Q1", "S1"]


def test_a_turret_does_not_fire_through_station_tiles_nor_without_own_crew_nor_at_nothing():
    st = turret_pos().land("b1", "F6").land("r1", "F7").creature("S1", "F9").creature("W1", "F2").state()
    turret = st.tile_at[GAME.base.board.index["F6"]]
    with pytest.raises(IllegalAction, match="crew token of your own"):
        act(st, "red", {"fire": turret, "at": "F2"})
    st = turret_pos().land("r1", "F6").creature("S1", "F9").state()
    with pytest.raises(IllegalAction, match="cannot hit"):
        act(st, "red", {"fire": turret, "at": "F9"})     # F7 is a station tile in between
    assert not [a for a in GAME.legal_actions(st, "red") if "fire" in a]


def test_deploy_captured_creatures_in_step_1_onto_empty_spaces():
    p = turret_pos().land("r1", "F6").captured("red", "S1", "W1").turn(step="deploy").drift("b1", "E2")
    st = p.state()
    legal = GAME.legal_actions(st, "red")
    assert {"deploy": "none"} in legal and {"deploy": "S1", "to": "E2"} not in legal
    with pytest.raises(IllegalAction, match="not an empty space"):
        act(st, "red", {"deploy": "S1", "to": "E2"})
    with pytest.raises(IllegalAction, match="not an empty space"):
        act(st, "red", {"deploy": "S1", "to": "F6"})            # a station tile
    act(st, "red", {"deploy": "S1", "to": "E1"})
    assert where(st, "S1") == ("sea", "E1") and where(st, "b1") == ("sea", "E2")
    assert GAME.pending(st)[0].kind == "deploy"
    act(st, "red", {"deploy": "none"})
    assert GAME.pending(st)[0].kind == "move" and st.captured["red"] == ["W1"]


def test_the_deploy_step_opens_at_the_start_of_a_turn_only_with_captured_creatures():
    p = turret_pos().land("r1", "F6").land("b1", "F7").captured("blue", "S1")
    st = p.turn(step="creature", die="queen").state()
    act(st, "red", {"creature": "none"})
    assert GAME.pending(st)[0].player == "blue" and GAME.pending(st)[0].kind == "deploy"
    st = turret_pos().land("r1", "F6").land("b1", "F7").turn(step="creature", die="queen").state()
    act(st, "red", {"creature": "none"})
    assert GAME.pending(st)[0].kind == "move"


# --- the steal window ----------------------------------------------------------------------------
def steal_pos(order="auto"):
    p = turret_pos().land("r1", "F6").creature("S1", "F4").creature("W1", "F4")
    tile = p.hand("green", "steal_creature")
    p.standing("green", steal=order)
    return p, tile


def test_a_steal_tile_takes_a_capture_by_standing_order_auto():
    p, tile = steal_pos("auto")
    st = p.state()
    events = act(st, "red", {"fire": "F6", "at": "F4"})
    assert st.captured["green"] == ["S1", "W1"] and st.captured["red"] == []
    steal = events_of(events, "steal")[0]
    assert steal["player"] == "green" and steal["tile"] == tile and steal["from"] == "red"
    assert st.tiles[tile].where == "used"
    assert GAME.pending(st)[0].player == "red" and GAME.pending(st)[0].kind == "move"


def test_a_steal_order_never_keeps_the_tile_and_says_so_only_to_its_holder():
    p, tile = steal_pos("never")
    st = p.state()
    events = act(st, "red", {"fire": "F6", "at": "F4"})
    assert st.captured["red"] == ["S1", "W1"] and st.tiles[tile].where == "hand"
    capture = [e for e in events if e.public["event"] == "capture"][0]
    assert capture.private["green"]["event"] == "no-steal" and "steal" not in str(capture.public)


def test_a_steal_order_ask_opens_a_decision_and_the_move_step_goes_on_after_it():
    p, tile = steal_pos("ask")
    st = p.state()
    act(st, "red", {"fire": "F6", "at": "F4"})
    assert GAME.pending(st)[0].player == "green" and GAME.pending(st)[0].kind == "steal"
    assert GAME.legal_actions(st, "green") == [{"steal": tile}, {"steal": "none"}]
    with pytest.raises(IllegalAction, match="not your decision"):
        act(st, "red", {"move": "r1", "to": "F7"})
    act(st, "green", {"steal": tile})
    assert st.captured["green"] == ["S1", "W1"]
    assert GAME.pending(st)[0].player == "red" and GAME.pending(st)[0].kind == "move"
    p, tile = steal_pos("ask")
    st = p.state()
    act(st, "red", {"fire": "F6", "at": "F4"})
    act(st, "green", {"steal": "none"})
    assert st.captured["red"] == ["S1", "W1"] and GAME.pending(st)[0].player == "red"


def test_a_capture_with_the_last_point_goes_on_to_step_3_once_the_window_closes():
    p, tile = steal_pos("ask")
    st = p.turn(moves=2).state()
    act(st, "red", {"fire": "F6", "at": "F4"})
    act(st, "green", {"steal": "none"})
    assert GAME.pending(st)[0].kind == "remove-tile"


def test_a_capture_needs_the_other_players_hidden_tiles_so_a_preview_stops_there():
    p, tile = steal_pos("auto")
    st = p.state()
    mine = GAME.from_position(GAME.view(st, "red"))
    before = GAME.to_position(mine)
    with pytest.raises(NeedsSecret):
        GAME.apply(mine, "red", {"fire": "F6", "at": "F4"}, Rng.unavailable())
    assert GAME.to_position(mine) == before
