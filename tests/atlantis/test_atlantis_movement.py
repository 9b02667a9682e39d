"""Step 2: moving explorers and ships."""
import pytest
from atlantis_helpers import GAME, Pos, act, kinds, public_events, where

from pbem.game import IllegalAction

# A small island: F3 F4 G3 G4 E4; everything else is sea (G6 has no serpent here).
ISLAND = ("F3", "F4", "G3", "G4", "E4")


def pos(**kw):
    return Pos(**kw).island(*ISLAND)


def step(st):
    return GAME.pending(st)[0].kind


def test_three_movement_points_then_the_step_ends():
    st = pos().land("r1", "F3").state()
    act(st, "red", {"move": "r1", "to": "F4"})
    act(st, "red", {"move": "r1", "to": "G4"})
    assert step(st) == "move" and st.turn.moves == 2
    act(st, "red", {"move": "r1", "to": "G3"})
    assert step(st) == "remove-tile"
    with pytest.raises(IllegalAction):
        act(st, "red", {"move": "r1", "to": "F3"})
    assert act(st, "red", {"done": "move"}) == []     # harmless once the step is over


def test_done_ends_the_movement_step_early():
    st = pos().land("r1", "F3").state()
    act(st, "red", {"move": "r1", "to": "F4"})
    events = act(st, "red", {"done": "move"})
    assert kinds(events) == ["done"] and step(st) == "remove-tile"


def test_land_moves_to_adjacent_tiles_even_occupied():
    st = pos().land("r1", "F3").land("b1", "F4").land("g1", "F4").state()
    act(st, "red", {"move": "r1", "to": "F4"})
    assert where(st, "r1") == ("land", "F4")
    assert sorted(st.land_at[GAME.board.cell("F4")]) == ["b1", "g1", "r1"]


def test_land_move_must_be_adjacent():
    st = pos().land("r1", "F3").state()
    with pytest.raises(IllegalAction):
        act(st, "red", {"move": "r1", "to": "G4"})


def test_cannot_move_other_players_explorers():
    st = pos().land("r1", "F3").land("b1", "F4").state()
    with pytest.raises(IllegalAction, match="not your explorer"):
        act(st, "red", {"move": "b1", "to": "F3"})


def test_board_a_ship_in_an_adjacent_sea_space():
    st = pos().land("r1", "F3").boat("B1", "F2").state()
    assert {"move": "r1", "to": "F2"} in GAME.legal_actions(st, "red")
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("boat", "B1")


def test_capacity_three_regardless_of_colour():
    st = pos().land("r1", "F3").boat("B1", "F2", "b1", "g1", "r2").state()
    with pytest.raises(IllegalAction, match="full"):
        act(st, "red", {"move": "r1", "to": "F2"})
    assert {"move": "r1", "to": "F2"} not in GAME.legal_actions(st, "red")
    act(st, "red", {"move": "r1", "to": "F2", "swim": True})
    assert where(st, "r1") == ("sea", "F2")


def test_board_a_ship_with_other_colours():
    st = pos().land("r1", "F3").boat("B1", "F2", "b1", "g1").state()
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("boat", "B1")


def test_ship_to_ship_in_adjacent_space():
    st = pos().boat("B1", "F2", "r1").boat("B2", "E2").state()
    act(st, "red", {"move": "r1", "to": "E2"})
    assert where(st, "r1") == ("boat", "B2")


def test_ship_to_ship_not_further_and_not_to_empty_sea():
    st = pos().boat("B1", "F2", "r1").boat("B2", "D2").state()
    with pytest.raises(IllegalAction):
        act(st, "red", {"move": "r1", "to": "D2"})
    with pytest.raises(IllegalAction):
        act(st, "red", {"move": "r1", "to": "E2"})       # no ship there: passengers jump only into their own space


def test_control_by_majority():
    st = pos().boat("B1", "F2", "r1", "r2", "b1").turn(player="blue").state()
    assert GAME.controllers(st, "B1") == ["red"]
    with pytest.raises(IllegalAction, match="control"):
        act(st, "blue", {"move": "B1", "to": "F1"})
    assert not any(a.get("move") == "B1" for a in GAME.legal_actions(st, "blue"))


def test_tied_players_each_control_the_ship():
    p = pos().boat("B1", "F2", "r1", "b1")
    st = p.state()
    assert GAME.controllers(st, "B1") == ["red", "blue"]
    act(st, "red", {"move": "B1", "to": "F1"})
    assert where(st, "B1") == ("sea", "F1")
    st = p.turn(player="blue").state()
    act(st, "blue", {"move": "B1", "to": "F1"})
    assert where(st, "B1") == ("sea", "F1")
    assert where(st, "r1") == ("boat", "B1")


def test_two_colours_count_together_for_control():
    p = Pos(players=("alice", "bob"), options={"colours": "auto"})
    st = p.island(*ISLAND).boat("B1", "F2", "r1", "g1", "b1").state()
    assert GAME.controllers(st, "B1") == ["alice"]


def test_empty_ship_movable_by_anyone_one_point_per_space():
    st = pos().boat("B1", "F2").land("b1", "F3").turn(player="blue").state()
    act(st, "blue", {"move": "B1", "to": "F1"})
    act(st, "blue", {"move": "B1", "to": "E1"})
    assert where(st, "B1") == ("sea", "E1") and st.turn.moves == 2


def test_one_ship_per_sea_space_and_ships_stay_at_sea():
    st = pos().boat("B1", "F2").boat("B2", "F1").land("r9", "F3").state()
    with pytest.raises(IllegalAction, match="one ship per sea space"):
        act(st, "red", {"move": "B1", "to": "F1"})
    with pytest.raises(IllegalAction, match="land"):
        act(st, "red", {"move": "B1", "to": "F3"})
    with pytest.raises(IllegalAction):
        act(st, "red", {"move": "B1", "to": "D2"})


def test_no_return_to_land():
    st = pos().boat("B1", "F2", "r1").swim("r2", "E3").state()
    with pytest.raises(IllegalAction, match="no longer return"):
        act(st, "red", {"move": "r1", "to": "F3"})
    with pytest.raises(IllegalAction, match="no longer return"):
        act(st, "red", {"move": "r2", "to": "F4"})
    legal = GAME.legal_actions(st, "red")
    assert {"move": "r1", "to": "F3"} not in legal and {"move": "r2", "to": "F4"} not in legal


def test_swimmer_moves_one_sea_space_per_turn():
    st = pos().swim("r1", "F2").state()
    act(st, "red", {"move": "r1", "to": "F1"})
    with pytest.raises(IllegalAction, match="already swum"):
        act(st, "red", {"move": "r1", "to": "E1"})
    assert not any(a.get("move") == "r1" for a in GAME.legal_actions(st, "red"))


def test_entering_the_sea_from_land_is_the_swimmers_one_space():
    st = pos().land("r1", "F3").state()
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("sea", "F2")
    with pytest.raises(IllegalAction, match="already swum"):
        act(st, "red", {"move": "r1", "to": "F1"})


def test_jumping_from_a_ship_is_the_swimmers_one_space():
    st = pos().boat("B1", "F2", "r1").state()
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("sea", "F2")
    with pytest.raises(IllegalAction, match="already swum"):
        act(st, "red", {"move": "r1", "to": "F1"})
    # ... and it may not climb back aboard: the jump was its one sea movement
    assert {"move": "r1", "to": "F2"} not in GAME.legal_actions(st, "red")
    with pytest.raises(IllegalAction, match="cannot also board ship B1"):
        act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("sea", "F2")


def test_swimmer_cannot_board_a_ship_in_an_adjacent_space():
    st = pos().swim("r1", "F1").boat("B1", "F2").state()
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("sea", "F2")          # it swam there; it did not board
    assert where(st, "B1") == ("sea", "F2")


def test_swimmer_boards_a_ship_in_its_own_space():
    st = pos().swim("r1", "F2").boat("B1", "F2", "b1", "b2").state()
    assert {"move": "r1", "to": "F2"} in GAME.legal_actions(st, "red")
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("boat", "B1")


def test_swimmer_that_swam_next_to_a_ship_cannot_board_it_in_the_same_turn():
    """"You may not move a Swimmer from a sea space into a Boat in an adjacent sea space (since
    this would be considered 2 movements, and a Swimmer may move only one sea space in a turn)"."""
    st = pos().swim("r1", "F1").boat("B1", "F2").state()
    act(st, "red", {"move": "r1", "to": "F2"})                  # swims into the ship's space
    assert {"move": "r1", "to": "F2"} not in GAME.legal_actions(st, "red")
    with pytest.raises(IllegalAction, match="already swum a sea space this turn, so it cannot also board"):
        act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("sea", "F2") and st.turn.moves == 1


def test_explorer_that_swam_from_land_into_a_ships_space_cannot_board_it_that_turn():
    st = pos().land("r1", "F3").boat("B1", "F2").state()
    act(st, "red", {"move": "r1", "to": "F2", "swim": True})
    assert where(st, "r1") == ("sea", "F2")
    with pytest.raises(IllegalAction, match="cannot also board"):
        act(st, "red", {"move": "r1", "to": "F2"})
    st = pos().land("r1", "F3").boat("B1", "F2").state()        # boarding straight from land is one move
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("boat", "B1")


def test_swimmer_that_swam_may_still_reach_a_safe_isle():
    st = pos().swim("r1", "C1").state()
    act(st, "red", {"move": "r1", "to": "B2"})
    act(st, "red", {"move": "r1", "to": "B1"})
    assert where(st, "r1") == ("isle", "B1")


@pytest.mark.parametrize("creature", ["S1", "K1"])
def test_swimmer_entering_a_serpent_or_shark_space_is_removed(creature):
    st = pos().swim("r1", "F2").creature(creature, "F1").state()
    events = act(st, "red", {"move": "r1", "to": "F1"})
    assert where(st, "r1") == ("lost", None)
    assert "lost" in kinds(events)


def test_explorer_jumping_from_land_into_a_shark_space_is_removed():
    st = pos().land("r1", "F3").creature("K1", "F2").state()
    act(st, "red", {"move": "r1", "to": "F2"})
    assert where(st, "r1") == ("lost", None)


def test_swimmer_may_share_a_space_with_a_whale():
    st = pos().swim("r1", "F2").creature("W1", "F1").state()
    act(st, "red", {"move": "r1", "to": "F1"})
    assert where(st, "r1") == ("sea", "F1")


@pytest.mark.parametrize("creature", ["S1", "W1"])
def test_ship_with_passengers_into_serpent_or_whale_space_is_removed(creature):
    st = pos().boat("B1", "F2", "r1", "b1").creature(creature, "F1").state()
    events = act(st, "red", {"move": "B1", "to": "F1"})
    assert where(st, "B1") == ("lost", None)
    if creature == "S1":   # the swimmers land in a serpent space: removed at once
        assert where(st, "r1") == ("lost", None) and where(st, "b1") == ("lost", None)
    else:                  # a whale alone: they swim
        assert where(st, "r1") == ("sea", "F1") and where(st, "b1") == ("sea", "F1")
    assert "ship-lost" in kinds(events)


def test_ship_into_whale_and_shark_space_loses_its_passengers():
    st = pos().boat("B1", "F2", "r1").creature("W1", "F1").creature("K1", "F1").state()
    act(st, "red", {"move": "B1", "to": "F1"})
    assert where(st, "B1") == ("lost", None) and where(st, "r1") == ("lost", None)


@pytest.mark.parametrize("creature", ["S1", "W1", "K1"])
def test_empty_ship_into_a_creature_space_is_safe(creature):
    st = pos().boat("B1", "F2").creature(creature, "F1").land("r9", "F3").state()
    act(st, "red", {"move": "B1", "to": "F1"})
    assert where(st, "B1") == ("sea", "F1")


def test_ship_with_passengers_unaffected_by_a_shark():
    st = pos().boat("B1", "F2", "r1").creature("K1", "F1").state()
    act(st, "red", {"move": "B1", "to": "F1"})
    assert where(st, "B1") == ("sea", "F1") and where(st, "r1") == ("boat", "B1")


@pytest.mark.parametrize("space", ["B2", "C1"])
def test_disembark_on_a_safe_isle_from_either_adjacent_space(space):
    st = pos().boat("B1", space, "r1").creature("S2", "A9").state()
    assert {"move": "r1", "to": "B1"} in GAME.legal_actions(st, "red")
    act(st, "red", {"move": "r1", "to": "B1"})
    assert where(st, "r1") == ("isle", "B1")
    assert where(st, "B1") == ("sea", space)       # the ship stays


def test_swimmer_reaches_a_safe_isle_from_an_adjacent_space():
    st = pos().swim("r1", "K11").state()
    act(st, "red", {"move": "r1", "to": "L12"})
    assert where(st, "r1") == ("isle", "L12")


def test_safe_isle_not_reachable_from_other_spaces():
    st = pos().boat("B1", "B3", "r1").swim("r2", "D2").state()
    with pytest.raises(IllegalAction, match="two sea spaces"):
        act(st, "red", {"move": "r1", "to": "B1"})
    with pytest.raises(IllegalAction, match="two sea spaces"):
        act(st, "red", {"move": "r2", "to": "B1"})
    assert not any(a.get("to") in ("B1", "B12", "L1", "L12") for a in GAME.legal_actions(st, "red"))


def test_skip_event_when_no_explorers_left():
    st = pos().land("r1", "F3").turn(player="blue", step="creature", die="shark").state()
    events = act(st, "blue", {"creature": "none"})
    skip = [e for e in public_events(events) if e.get("event") == "skip"]
    assert skip == [{"event": "skip", "player": "green", "step": "move", "reason": "no explorers left"}]
    assert GAME.pending(st)[0].kind == "remove-tile" and GAME.pending(st)[0].player == "green"


def test_illegal_move_leaves_state_untouched():
    st = pos().land("r1", "F3").boat("B1", "F2", "b1", "b2", "b3").state()
    before = GAME.to_position(st)
    for bad in ({"move": "r1", "to": "F2"}, {"move": "r1", "to": "Z9"}, {"move": "x1", "to": "F2"},
                {"move": "r1"}, {"move": "r1", "to": "F2", "swim": "yes"}, {"move": "B1", "to": "F1"},
                {"move": "r9", "to": "F2"}, {"move": "B9", "to": "F2"}):
        with pytest.raises(IllegalAction):
            act(st, "red", bad)
        assert GAME.to_position(st) == before
