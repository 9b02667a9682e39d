"""Step 2: crew on the station, drifters, escape pods, Jump Points, and the step itself."""
import pytest
from spaceattack_helpers import GAME, Pos, act, events_of, kinds, where

from pbem.game import IllegalAction


def move_pos(**options):
    return Pos(options=options).station("F3", "F4", "F5", "G3", "G4")


def test_crew_walk_between_station_tiles_even_onto_occupied_ones():
    st = move_pos().land("r1", "F4").land("b1", "F5").state()
    act(st, "red", {"move": "r1", "to": "F5"})
    assert where(st, "r1") == ("land", "F5")
    with pytest.raises(IllegalAction, match="another player's"):
        act(st, "red", {"move": "b1", "to": "F4"})


def test_a_crew_token_boards_a_pod_in_an_adjacent_open_space_or_drifts_with_drift_true():
    st = move_pos().land("r1", "F3").land("r2", "F3").boat("P1", "F2").state()
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("boat", "P1")
    act(st, "red", {"move": "r2", "to": "F2", "drift": True})
    assert where(st, "r2") == ("sea", "F2")
    assert {"move": "r2", "to": "F2"} not in GAME.legal_actions(st, "red")   # it has drifted this turn


def test_drifters_move_one_open_space_a_turn_and_never_back_onto_the_station():
    st = move_pos().drift("r1", "F2").state()
    with pytest.raises(IllegalAction, match="can no longer return onto a Station tile"):
        act(st, "red", {"move": "r1", "to": "F3"})
    act(st, "red", {"move": "r1", "to": "F1"})
    with pytest.raises(IllegalAction, match="already drifted"):
        act(st, "red", {"move": "r1", "to": "E1"})


def test_a_drifter_boards_a_ship_only_in_its_own_space():
    st = move_pos().drift("r1", "E2").boat("P1", "E1").boat("P2", "E2").state()
    assert {"move": "r1", "to": "E1"} in GAME.legal_actions(st, "red")     # drifting there, not boarding
    act(st, "red", {"move": "r1", "to": "E2"})
    assert where(st, "r1") == ("boat", "P2")


def test_drifting_into_a_queen_or_spawn_is_the_end():
    st = move_pos().drift("r1", "E2").drift("r2", "E2").creature("Q1", "E1").creature("S1", "D2").state()
    events = act(st, "red", {"move": "r1", "to": "E1"})
    assert where(st, "r1") == ("lost", None) and "lost" in kinds(events)
    act(st, "red", {"move": "r2", "to": "D2"})
    assert where(st, "r2") == ("lost", None)


def test_a_drifting_warrior_space_is_harmless():
    st = move_pos().drift("r1", "E2").creature("W1", "E1").state()
    act(st, "red", {"move": "r1", "to": "E1"})
    assert where(st, "r1") == ("sea", "E1")


def test_pods_move_one_space_per_point_one_ship_per_space():
    st = move_pos().boat("P1", "E2", "r1").boat("P2", "E1").state()
    with pytest.raises(IllegalAction, match="one ship per"):
        act(st, "red", {"move": "P1", "to": "E1"})
    act(st, "red", {"move": "P1", "to": "D2"})
    assert where(st, "P1") == ("sea", "D2") and where(st, "r1") == ("boat", "P1")


def test_control_goes_by_majority_and_ties_share_and_an_empty_pod_is_anybodys():
    st = move_pos().boat("P1", "E2", "r1", "b1", "b2").boat("P2", "D3", "r2", "b3").boat("P3", "C3").state()
    with pytest.raises(IllegalAction, match="do not control"):
        act(st, "red", {"move": "P1", "to": "D2"})
    act(st, "red", {"move": "P2", "to": "D4"})           # a tie: red controls it too
    act(st, "red", {"move": "P3", "to": "C4"})           # an empty pod: anybody's
    assert where(st, "P2") == ("sea", "D4") and where(st, "P3") == ("sea", "C4")


def test_an_occupied_pod_moved_into_a_queen_is_lost_with_its_crew():
    st = move_pos().boat("P1", "E2", "r1", "r2").creature("Q1", "E1").state()
    events = act(st, "red", {"move": "P1", "to": "E1"})
    assert where(st, "P1") == ("lost", None)
    assert where(st, "r1") == ("lost", None) and where(st, "r2") == ("lost", None)
    assert "ship-lost" in kinds(events)


def test_an_occupied_pod_moved_into_a_warrior_is_lost_and_its_crew_drift():
    st = move_pos().boat("P1", "E2", "r1").creature("W1", "E1").state()
    act(st, "red", {"move": "P1", "to": "E1"})
    assert where(st, "P1") == ("lost", None) and where(st, "r1") == ("sea", "E1")


def test_an_empty_pod_may_enter_creature_spaces():
    st = move_pos().boat("P1", "E2").creature("Q1", "E1").land("r1", "F3").state()
    act(st, "red", {"move": "P1", "to": "E1"})
    assert where(st, "P1") == ("sea", "E1")


def test_crew_disembark_on_a_jump_point_from_its_stargates_only():
    st = move_pos().boat("P1", "B2", "r1").boat("P2", "B3", "r2").drift("r3", "C1").state()
    act(st, "red", {"move": "r1", "to": "B1"})
    assert where(st, "r1") == ("isle", "B1") and where(st, "P1") == ("sea", "B2")
    with pytest.raises(IllegalAction, match="Jump Point"):
        act(st, "red", {"move": "r2", "to": "B1"})
    act(st, "red", {"move": "r3", "to": "B1"})
    assert where(st, "r3") == ("isle", "B1")


def test_three_points_then_the_step_ends_unless_a_tile_from_an_earlier_turn_is_in_hand():
    st = move_pos().land("r1", "F3").state()
    for to in ("F4", "F5", "F4"):
        act(st, "red", {"move": "r1", "to": to})
    assert GAME.pending(st)[0].kind == "remove-tile"
    p = move_pos().land("r1", "F3")
    p.hand("red", "defend_queen_2", obtained=2)
    st = p.state()
    for to in ("F4", "F5", "F4"):
        act(st, "red", {"move": "r1", "to": to})
    assert GAME.pending(st)[0].kind == "move"
    with pytest.raises(IllegalAction, match="movement points are spent"):
        act(st, "red", {"move": "r1", "to": "F5"})
    assert GAME.legal_actions(st, "red") == [{"done": "move"}]
    act(st, "red", {"done": "move"})
    assert GAME.pending(st)[0].kind == "remove-tile"


def test_with_no_crew_left_only_tiles_may_be_played_and_empty_ships_stay():
    p = move_pos().saved("r1", "B1").boat("P1", "E2")
    p.hand("red", "move_empty_ship", obtained=2)
    st = p.state()
    assert GAME.pending(st)[0].kind == "move"
    with pytest.raises(IllegalAction, match="no crew left"):
        act(st, "red", {"move": "P1", "to": "D2"})
    legal = GAME.legal_actions(st, "red")
    assert {"done": "move"} in legal and all(a.get("move") is None for a in legal)
    assert any("play" in a for a in legal)


def test_the_move_step_is_skipped_with_no_crew_and_no_tile():
    st = move_pos().saved("r1", "B1").land("b1", "F3").turn(step="creature", die="queen").state()
    events = act(st, "red", {"creature": "none"})
    assert GAME.pending(st)[0].player == "blue"
    st2 = move_pos().land("b1", "F3").turn(player="blue", step="creature", die="queen").state()
    events = act(st2, "blue", {"creature": "none"})
    skip = events_of(events, "skip")
    assert skip and skip[0]["player"] == "green" and skip[0]["reason"] == "no crew left"


def test_error_messages_speak_space_attack():
    st = move_pos().drift("r1", "F2").state()
    with pytest.raises(IllegalAction) as exc:
        act(st, "red", {"move": "r1", "to": "F3"})
    text = str(exc.value)
    assert "Crew token" in text and "Station tile" in text and "Explorer" not in text
