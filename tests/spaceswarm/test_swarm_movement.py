"""MOVE PHASE: stacks, partial stacks, Movement, into-but-not-through, terrain, pick-up and drop-off."""
from __future__ import annotations

from swarm_helpers import GAME, Pos, act, events_of, illegal

OPEN = ["C . . . . .",
        ". . . . . .",
        ". . . . . .",
        ". . . . . C"]


def at(state, player):
    return {state.hexmap.label(c): n for c, n in sorted(state.fleets[player].items())}


def test_a_stack_moves_up_to_its_movement_along_adjacent_spaces():
    s = Pos(OPEN).stack("red", "A1", 3).stack("blue", "F4", 3).turn("red", "move").state()
    assert "more than your Movement of 1" in illegal(s, "red", {"move": "A1", "path": ["B1", "C1"]})
    assert "is not next to A1" in illegal(s, "red", {"move": "A1", "path": ["C1"]})
    events = act(s, "red", {"move": "A1", "path": ["A2"]})
    assert events_of(events, "move")[0]["arrive"] == 3
    assert at(s, "red") == {"A2": 3}


def test_no_more_stacks_than_the_strategic_level_and_partial_stacks_count_as_one():
    s = Pos(OPEN).stack("red", "A1", 3).stack("red", "C3", 1).stack("blue", "F4", 3).turn("red", "move").state()
    act(s, "red", {"move": "A1", "path": ["B1"], "fleets": 2})          # breaking up a larger stack
    assert at(s, "red") == {"A1": 1, "B1": 2, "C3": 1}
    assert "already moved 1 stack(s), your Strategic level" in illegal(s, "red", {"move": "C3", "path": ["D3"]})


def test_strategic_level_from_technology_allows_more_stacks():
    s = (Pos(OPEN).stack("red", "A1", 3).stack("red", "C3", 1).stack("blue", "F4", 3)
         .tech("red", "Strategic +1").turn("red", "move").state())
    act(s, "red", {"move": "A1", "path": ["B1"]})
    act(s, "red", {"move": "C3", "path": ["D3"]})
    assert at(s, "red") == {"B1": 3, "D3": 1}


def test_into_but_not_through_enemy_stacks():
    s = (Pos(OPEN).stack("red", "A1", 3).stack("blue", "B1", 1).stack("blue", "F4", 3)
         .tech("red", "Movement +1", "Movement +1").turn("red", "move").state())
    assert "you may move into (but not through) them" in illegal(s, "red", {"move": "A1", "path": ["B1", "C1"]})
    act(s, "red", {"move": "A1", "path": ["B1"]})
    assert s.races_at(s.hexmap.index("B1")) == ["red", "blue"]


def test_dark_matter_lets_a_stack_pass_through_enemy_stacks():
    rows = ["C M . . . .", ". . . . . .", ". . . . . .", ". . . . . C"]
    s = (Pos(rows).stack("red", "A1", 3).stack("blue", "B1", 1).stack("blue", "F4", 3)
         .tech("red", "Movement +1").turn("red", "move").state())
    act(s, "red", {"move": "A1", "path": ["B1", "C1"]})
    assert at(s, "red") == {"C1": 3}


def test_black_hole_stops_a_stack_entering_it_but_not_one_leaving():
    rows = ["C B . . . .", ". . . . . .", ". . . . . .", ". . . . . C"]
    s = (Pos(rows).stack("red", "A1", 3).stack("blue", "F4", 3).tech("red", "Movement +1", "Strategic +1")
         .turn("red", "move").state())
    assert "B1 is a Black Hole" in illegal(s, "red", {"move": "A1", "path": ["B1", "C1"]})
    act(s, "red", {"move": "A1", "path": ["B1"], "fleets": 1})
    s2 = Pos(rows).stack("red", "B1", 2).stack("blue", "F4", 3).tech("red", "Movement +1").turn("red", "move").state()
    act(s2, "red", {"move": "B1", "path": ["C1", "D1"]})
    assert at(s2, "red") == {"D1": 2}


def test_super_nova_may_not_be_entered():
    rows = ["C S . . . .", ". . . . . .", ". . . . . .", ". . . . . C"]
    s = Pos(rows).stack("red", "A1", 3).stack("blue", "F4", 3).turn("red", "move").state()
    assert "B1 is a Super Nova" in illegal(s, "red", {"move": "A1", "path": ["B1"]})


def test_worm_holes_are_next_to_each_other():
    rows = ["C W . . . .", ". . . . . .", ". . . . . .", ". . . . W C"]
    s = (Pos(rows).stack("red", "A1", 3).stack("blue", "F4", 3).tech("red", "Movement +1", "Movement +1")
         .turn("red", "move").state())
    act(s, "red", {"move": "A1", "path": ["B1", "E4", "F4"]})       # A1 -> worm hole -> worm hole -> enemy home
    assert at(s, "red") == {"F4": 3}


def test_a_moving_stack_picks_up_and_drops_off_fleets():
    s = (Pos(OPEN).stack("red", "A1", 2).stack("red", "B1", 2).stack("blue", "F4", 3)
         .tech("red", "Movement +1", "Movement +1").turn("red", "move").state())
    events = act(s, "red", {"move": "A1", "path": ["B1", "C1", "D1"], "pick": {"B1": 2}, "drop": {"C1": 1}})
    assert at(s, "red") == {"C1": 1, "D1": 3}
    move = events_of(events, "move")[0]
    assert move["pick"] == {"B1": 2} and move["drop"] == {"C1": 1} and move["arrive"] == 3
    assert "must keep at least one" in illegal(
        Pos(OPEN).stack("red", "A1", 1).stack("blue", "F4", 3).tech("red", "Movement +1").turn("red", "move").state(),
        "red", {"move": "A1", "path": ["B1", "C1"], "drop": {"B1": 1}})
    fresh = (Pos(OPEN).stack("red", "A1", 2).stack("blue", "F4", 3).tech("red", "Movement +1")
             .turn("red", "move").state())
    assert "not a space the stack moves through" in illegal(
        fresh, "red", {"move": "A1", "path": ["B1", "C1"], "drop": {"C1": 1}})


def test_no_fleet_moves_more_spaces_than_the_movement_trait_in_a_turn():
    s = (Pos(OPEN).stack("red", "A1", 1).stack("red", "C1", 1).stack("blue", "F4", 3)
         .tech("red", "Movement +1", "Strategic +1", "Strategic +1").turn("red", "move").state())
    act(s, "red", {"move": "A1", "path": ["B1"]})                        # this fleet has moved 1 of 2
    # picked up at B1 it may move one more space, not two
    assert "fleets picked up at B1 cannot move 2 more" in illegal(
        s, "red", {"move": "C1", "path": ["B1", "A2", "A3"], "pick": {"B1": 1}})
    act(s, "red", {"move": "C1", "path": ["B1", "A2"], "pick": {"B1": 1}})
    assert at(s, "red") == {"A2": 2}
    assert "more than your Movement of 2" in illegal(s, "red", {"move": "A2", "path": ["A3"]})


def test_stacks_in_one_space_combine_and_distances_reset_at_the_end_of_the_phase():
    s = (Pos(OPEN).stack("red", "A1", 2).stack("red", "C1", 2).stack("blue", "F4", 3)
         .tech("red", "Strategic +1").turn("red", "move").state())
    act(s, "red", {"move": "A1", "path": ["B1"]})
    act(s, "red", {"move": "C1", "path": ["B1"]})
    assert at(s, "red") == {"B1": 4} and s.moved["red"]
    act(s, "red", {"done": "move"})
    assert s.moved["red"] == {} and s.step == "attack"


def test_the_first_visitor_of_alien_ruins_draws_a_card():
    rows = ["C R . . . .", ". . . . . .", ". . . . . .", ". . . . . C"]
    pos = Pos(rows).stack("red", "A1", 3).stack("blue", "F4", 3).tech("red", "Strategic +1").turn("red", "move")
    pos.deck("Attack +1", "Defense +1")
    top, second = pos.p["deck"]
    s = pos.state()
    events = act(s, "red", {"move": "A1", "path": ["B1"], "fleets": 1})
    draw = events_of(events, "draw")[0]
    assert draw["cards"] == [top] and draw["why"] == "alien ruins at B1"
    assert events[-1].chance and events[-1].private["red"]["cards"] == {top: "Attack +1 (technology)"}
    assert s.hands["red"] == [top]
    events = act(s, "red", {"move": "A1", "path": ["B1"]})            # the second visitor draws nothing
    assert not events_of(events, "draw") and s.deck == [second]


def test_moves_listed_for_a_player_are_all_legal():
    rows = ["C M . B . .", ". . S . . .", ". W . . . .", ". . . . W C"]
    s = (Pos(rows).stack("red", "A1", 3).stack("blue", "B1", 1).stack("blue", "F4", 3)
         .tech("red", "Movement +1", "Movement +1").turn("red", "move").state())
    moves = [a for a in GAME.legal_actions(s, "red") if "move" in a]
    assert moves and {"done": "move"} in GAME.legal_actions(s, "red")
    for action in moves:
        probe = GAME.from_position(GAME.to_position(s))
        act(probe, "red", action)
    ends = {a["path"][-1] for a in moves}
    assert "C2" not in ends and "E4" in ends       # never the Super Nova; A1-A2-B3 (worm hole)-E4 (worm hole)
