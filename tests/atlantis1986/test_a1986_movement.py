"""The movement phase: three points, swimmers, dolphin rides, boats and who may move them."""
import pytest
from atlantis1986_helpers import GAME, Pos, act, kinds, where

from pbem.game import IllegalAction


def test_three_points_shared_freely_then_the_sinking_phase():
    st = Pos().land("r1", "F4").land("r2", "F5").state()
    act(st, "red", {"move": "r1", "to": "G4"})
    act(st, "red", {"move": "r1", "to": "G5"})
    assert GAME.pending(st)[0].kind == "move"
    act(st, "red", {"move": "r2", "to": "E5"})
    assert GAME.pending(st)[0].kind == "remove-tile"


def test_a_swimmer_swims_one_space_a_turn():
    st = Pos().swim("r1", "C5").state()
    act(st, "red", {"move": "r1", "to": "C6"})
    with pytest.raises(IllegalAction, match="already swum"):
        act(st, "red", {"move": "r1", "to": "C7"})
    assert not any(a.get("move") == "r1" for a in GAME.legal_actions(st, "red"))


def test_a_dolphin_carries_one_villager_up_to_three_spaces():
    st = Pos().swim("r1", "C5").swim("r2", "C5").creature("D1", "C5").state()
    rides = [a for a in GAME.legal_actions(st, "red") if "ride" in a]
    assert {"move": "r1", "to": "C6", "ride": "D1"} in rides
    assert all(a["ride"] == "D1" and a["move"] in ("r1", "r2") for a in rides)
    act(st, "red", {"move": "r1", "to": "C6", "ride": "D1"})
    act(st, "red", {"move": "r1", "to": "C7", "ride": "D1"})
    events = act(st, "red", {"move": "r1", "to": "C8", "ride": "D1"})
    assert where(st, "r1") == ("sea", "C8") and where(st, "D1") == ("sea", "C8")
    assert where(st, "r2") == ("sea", "C5")     # one villager at a time
    assert GAME.describe_event(events[0].public) == "red's villager r1 rides dolphin D1 C7 -> C8"
    assert GAME.pending(st)[0].kind == "remove-tile"


def test_riding_is_not_swimming():
    st = Pos().swim("r1", "C5").creature("D1", "C5").state()
    act(st, "red", {"move": "r1", "to": "C6", "ride": "D1"})
    act(st, "red", {"move": "r1", "to": "C7"})              # its one swim of the turn
    assert where(st, "r1") == ("sea", "C7") and where(st, "D1") == ("sea", "C6")
    st = Pos().swim("r1", "C5").creature("D1", "C6").state()
    act(st, "red", {"move": "r1", "to": "C6"})               # swim to the dolphin ...
    act(st, "red", {"move": "r1", "to": "C7", "ride": "D1"})  # ... and ride on
    assert where(st, "r1") == ("sea", "C7")


def test_a_villager_that_swam_into_a_boats_space_cannot_climb_in_that_turn():
    """The 30th-anniversary reading: "You may not move a Swimmer from a sea space into a Boat in an
    adjacent sea space (since this would be considered 2 movements ...)"."""
    st = Pos().swim("r1", "C5").boat("B1", "C6").state()
    act(st, "red", {"move": "r1", "to": "C6"})
    assert {"move": "r1", "to": "C6"} not in GAME.legal_actions(st, "red")
    with pytest.raises(IllegalAction, match="cannot also board"):
        act(st, "red", {"move": "r1", "to": "C6"})
    assert where(st, "r1") == ("sea", "C6")
    st = Pos().swim("r1", "C6").boat("B1", "C6").state()       # a villager that has not swum climbs in
    act(st, "red", {"move": "r1", "to": "C6"})
    assert where(st, "r1") == ("boat", "B1")


def test_a_villager_a_dolphin_carried_to_a_boat_may_climb_in_unless_it_also_swam():
    st = Pos().swim("r1", "C5").creature("D1", "C5").boat("B1", "C6").state()
    act(st, "red", {"move": "r1", "to": "C6", "ride": "D1"})   # riding is not swimming
    act(st, "red", {"move": "r1", "to": "C6"})
    assert where(st, "r1") == ("boat", "B1")
    st = Pos().swim("r1", "C4").creature("D1", "C5").boat("B1", "C6").state()
    act(st, "red", {"move": "r1", "to": "C5"})                 # its one swim ...
    act(st, "red", {"move": "r1", "to": "C6", "ride": "D1"})   # ... a ride ...
    with pytest.raises(IllegalAction, match="cannot also board"):
        act(st, "red", {"move": "r1", "to": "C6"})             # ... and no boarding


def test_ride_refusals():
    st = Pos().swim("r1", "C5").land("r2", "D5").creature("D1", "C6").creature("K1", "C5").swim("b1", "C6").state()
    with pytest.raises(IllegalAction, match="only when swimming in its space"):
        act(st, "red", {"move": "r1", "to": "C7", "ride": "D1"})
    with pytest.raises(IllegalAction, match="not a dolphin"):
        act(st, "red", {"move": "r1", "to": "C6", "ride": "K1"})
    with pytest.raises(IllegalAction, match="not one of your villagers"):
        act(st, "red", {"move": "b1", "to": "C7", "ride": "D1"})
    st = Pos().swim("r1", "C6").creature("D1", "C6").state()
    with pytest.raises(IllegalAction, match="not a sea space next to C6"):
        act(st, "red", {"move": "r1", "to": "D6", "ride": "D1"})       # D6 is land
    with pytest.raises(IllegalAction, match="not a sea space next to C6"):
        act(st, "red", {"move": "r1", "to": "C8", "ride": "D1"})       # two spaces
    with pytest.raises(IllegalAction, match="leave out swim"):
        act(st, "red", {"move": "r1", "to": "C7", "ride": "D1", "swim": True})
    with pytest.raises(IllegalAction, match="unknown key 'dolphin'"):
        act(st, "red", {"move": "r1", "to": "C7", "dolphin": True})


def test_a_dolphin_does_not_protect_its_rider():
    st = Pos().swim("r1", "C5").creature("D1", "C5").creature("S1", "C6").state()
    events = act(st, "red", {"move": "r1", "to": "C6", "ride": "D1"})
    assert where(st, "r1") == ("lost", None) and where(st, "D1") == ("sea", "C6")
    assert "lost" in kinds(events)


def test_swimming_into_a_shark_or_sea_monster_is_death():
    for creature in ("K1", "S1"):
        st = Pos().land("r1", "D5").creature(creature, "C5").state()
        act(st, "red", {"move": "r1", "to": "C5"})
        assert where(st, "r1") == ("lost", None)
    st = Pos().land("r1", "D5").creature("O1", "C5").creature("D1", "C5").state()
    act(st, "red", {"move": "r1", "to": "C5"})
    assert where(st, "r1") == ("sea", "C5")


def test_boat_control_by_a_tribe_not_in_the_minority():
    st = Pos().boat("B1", "C5", "r1", "b1").boat("B2", "C8", "r2", "b2", "b3").boat("B3", "A5").state()
    legal = GAME.legal_actions(st, "red")
    assert {"move": "B1", "to": "C6"} in legal            # a tie: both control
    assert not any(a.get("move") == "B2" for a in legal)  # red is in the minority
    assert {"move": "B3", "to": "A6"} in legal            # an empty boat: anyone
    with pytest.raises(IllegalAction, match="do not control"):
        act(st, "red", {"move": "B2", "to": "C9"})
    act(st, "red", {"move": "B1", "to": "C6"})
    assert where(st, "b1") == ("boat", "B1") and where(st, "B1") == ("sea", "C6")


def test_a_boat_moved_onto_an_octopus_is_destroyed_and_its_passengers_swim():
    st = Pos().boat("B1", "C5", "r1", "b1").creature("O1", "C6").state()
    act(st, "red", {"move": "B1", "to": "C6"})
    assert where(st, "B1") == ("lost", None)
    assert where(st, "r1") == ("sea", "C6") and where(st, "b1") == ("sea", "C6")


def test_a_boat_moved_onto_a_sea_monster_goes_down_with_everyone():
    st = Pos().boat("B1", "C5", "r1", "b1").creature("S1", "C6").state()
    act(st, "red", {"move": "B1", "to": "C6"})
    assert where(st, "B1") == ("lost", None) and where(st, "r1") == ("lost", None)


def test_empty_boats_are_prey_unless_empty_boats_safe():
    st = Pos().boat("B1", "C5").creature("O1", "C6").state()
    act(st, "red", {"move": "B1", "to": "C6"})
    assert where(st, "B1") == ("lost", None)
    pos = Pos(options={"empty_boats": "safe"}).boat("B1", "C5").creature("O1", "C6")
    st = pos.state()
    act(st, "red", {"move": "B1", "to": "C6"})
    assert where(st, "B1") == ("sea", "C6")


def test_sharks_leave_boats_alone():
    st = Pos().boat("B1", "C5", "r1").creature("K1", "C6").state()
    act(st, "red", {"move": "B1", "to": "C6"})
    assert where(st, "r1") == ("boat", "B1")
    act(st, "red", {"move": "r1", "to": "C6"})    # jumping overboard into the shark
    assert where(st, "r1") == ("lost", None)


def test_reaching_a_coral_island_through_its_one_entrance():
    st = Pos().swim("r1", "B2").swim("r2", "C2").boat("B1", "C11", "r3").state()
    legal = GAME.legal_actions(st, "red")
    assert {"move": "r1", "to": "B1"} in legal
    assert not any(a.get("to") == "B1" and a["move"] == "r2" for a in legal)
    act(st, "red", {"move": "r1", "to": "B1"})
    act(st, "red", {"move": "r3", "to": "B12"})
    assert where(st, "r1") == ("isle", "B1") and where(st, "r3") == ("isle", "B12")
