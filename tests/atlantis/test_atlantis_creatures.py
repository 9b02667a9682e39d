"""Step 4: the creature die and each creature."""
import pytest
from atlantis_helpers import FACES, GAME, Pos, act, die_rng, kinds, public_events, where

from pbem.game import IllegalAction


def creature_pos(face, **kw):
    return Pos(**kw).island("F3", "F4").turn(step="creature", die=face)


# --- sea serpent ---------------------------------------------------------------------------

def test_serpent_destroys_an_occupied_ship_its_passengers_and_swimmers():
    st = creature_pos("serpent").creature("S1", "F1").boat("B1", "F2", "r1", "b1").swim("g1", "F2").state()
    events = act(st, "red", {"creature": "S1", "to": "F2"})
    for h in ("B1", "r1", "b1", "g1"):
        assert where(st, h) == ("lost", None), h
    assert where(st, "S1") == ("sea", "F2")
    assert "ship-lost" in kinds(events) and GAME.pending(st)[0].player == "blue"


def test_serpent_leaves_an_empty_ship():
    st = creature_pos("serpent").creature("S1", "F1").boat("B1", "F2").swim("g1", "F2").state()
    act(st, "red", {"creature": "S1", "to": "F2"})
    assert where(st, "B1") == ("sea", "F2") and where(st, "g1") == ("lost", None)


def test_serpent_moves_one_space():
    st = creature_pos("serpent").creature("S1", "A3").state()
    legal = GAME.legal_actions(st, "red")
    assert sorted(a["to"] for a in legal if a["creature"] == "S1") == ["A4", "B3", "B4"]
    with pytest.raises(IllegalAction):
        act(st, "red", {"creature": "S1", "to": "A5"})


# --- shark ----------------------------------------------------------------------------------

def test_shark_moves_up_to_two_and_stops_at_swimmers():
    st = creature_pos("shark").creature("K1", "A3").swim("b1", "A4").state()
    with pytest.raises(IllegalAction, match="must stop"):
        act(st, "red", {"creature": "K1", "path": ["A4", "A5"]})
    with pytest.raises(IllegalAction):
        act(st, "red", {"creature": "K1", "path": ["B4", "B5", "B6"]})
    assert not any(a.get("to") == "A5" for a in GAME.legal_actions(st, "red"))   # only reachable through A4
    act(st, "red", {"creature": "K1", "to": "A4"})
    assert where(st, "b1") == ("lost", None) and where(st, "K1") == ("sea", "A4")


def test_shark_does_not_affect_ships_or_passengers():
    st = creature_pos("shark").creature("K1", "A3").boat("B1", "A4", "b1").swim("g1", "A4").state()
    act(st, "red", {"creature": "K1", "to": "A4"})
    assert where(st, "B1") == ("sea", "A4") and where(st, "b1") == ("boat", "B1")
    assert where(st, "g1") == ("lost", None)


def test_shark_passes_an_empty_space_and_ships():
    st = creature_pos("shark").creature("K1", "A3").boat("B1", "A4", "b1").state()
    act(st, "red", {"creature": "K1", "path": ["A4", "A5"]})
    assert where(st, "K1") == ("sea", "A5")


# --- whale ------------------------------------------------------------------------------------

def test_whale_moves_up_to_three_and_stops_at_an_occupied_ship():
    st = creature_pos("whale").creature("W1", "A3").boat("B1", "A4", "b1").state()
    with pytest.raises(IllegalAction, match="must stop"):
        act(st, "red", {"creature": "W1", "path": ["A4", "A5"]})
    with pytest.raises(IllegalAction):
        act(st, "red", {"creature": "W1", "path": ["B3", "B4", "B5", "B6"]})
    events = act(st, "red", {"creature": "W1", "to": "A4"})
    assert where(st, "B1") == ("lost", None) and where(st, "b1") == ("sea", "A4")
    assert "ship-lost" in kinds(events)


def test_whale_capsizing_next_to_a_shark_loses_the_passengers():
    st = creature_pos("whale").creature("W1", "A3").creature("K1", "A4").boat("B1", "A4", "b1", "g1").state()
    act(st, "red", {"creature": "W1", "to": "A4"})
    assert where(st, "b1") == ("lost", None) and where(st, "g1") == ("lost", None)


def test_whale_ignores_swimmers_and_empty_ships():
    st = creature_pos("whale").creature("W1", "A3").boat("B1", "A4").swim("b1", "A5").state()
    act(st, "red", {"creature": "W1", "path": ["A4", "A5", "A6"]})
    assert where(st, "W1") == ("sea", "A6")
    assert where(st, "B1") == ("sea", "A4") and where(st, "b1") == ("sea", "A5")


def test_creatures_share_spaces_and_end_on_any_sea_space():
    st = creature_pos("shark").creature("K1", "A3").creature("S2", "A4").creature("W1", "A4").state()
    act(st, "red", {"creature": "K1", "to": "A4"})
    assert where(st, "K1") == ("sea", "A4") and where(st, "S2") == ("sea", "A4")
    st = creature_pos("shark").creature("K1", "F2").state()
    with pytest.raises(IllegalAction):
        act(st, "red", {"creature": "K1", "to": "F3"})        # land


def test_a_creature_of_the_rolled_kind_only():
    st = creature_pos("shark").creature("K1", "A3").creature("W1", "A5").state()
    with pytest.raises(IllegalAction, match="die shows shark"):
        act(st, "red", {"creature": "W1", "to": "A6"})


def test_creature_none_passes_the_turn():
    st = creature_pos("shark").creature("K1", "A3").state()
    events = act(st, "red", {"creature": "none"})
    assert where(st, "K1") == ("sea", "A3")
    assert kinds(events)[:2] == ["creature", "turn"] and st.turn.player == "blue"


def test_rolled_creature_absent_nothing_happens():
    p = Pos().island("F3", "F4").tile("F3", "beach", "dolphin").tile("F4", "beach").creature("S1", "G6")
    st = p.turn(step="remove-tile").state()
    events = act(st, "red", {"remove": "F3"}, die_rng("whale"))
    assert [e for e in public_events(events) if e["event"] in ("roll", "no-creature")] == [
        {"event": "roll", "player": "red", "face": "whale"},
        {"event": "no-creature", "player": "red", "kind": "whale"}]
    assert st.turn.player == "blue"
    roll = [e for e in events if e.public["event"] == "roll"][0]
    assert roll.chance


def test_the_roll_happens_inside_the_removal():
    p = Pos().island("F3", "F4").tile("F3", "beach", "dolphin").tile("F4", "beach").creature("K1", "A3")
    st = p.turn(step="remove-tile").state()
    act(st, "red", {"remove": "F3"}, die_rng("shark"))
    assert GAME.pending(st)[0].kind == "creature" and st.turn.die == "shark"


ORDERS = {"creature": {"serpent": {"creature": "S1", "to": "A4"},
                       "shark": {"creature": "K1", "path": ["B6", "B7"]},
                       "whale": {"creature": "W1", "to": "M9"}}}


@pytest.mark.parametrize("face", FACES)
def test_written_ahead_orders_use_the_rolled_face(face):
    p = Pos().island("F3", "F4").tile("F3", "beach", "dolphin").tile("F4", "beach")
    p.creature("S1", "A3").creature("K1", "B5").creature("W1", "M6")
    st = p.turn(step="remove-tile").state()
    act(st, "red", {"remove": "F3"}, die_rng(face))
    act(st, "red", ORDERS)
    expected = {"serpent": ("S1", "A4"), "shark": ("K1", "B7"), "whale": ("W1", "M9")}
    start = {"S1": "A3", "K1": "B5", "W1": "M6"}
    for kind, (handle, dest) in expected.items():
        assert where(st, handle) == ("sea", dest if kind == face else start[handle])
    assert st.turn.player == "blue"


def test_written_ahead_order_that_no_longer_fits_stops():
    p = creature_pos("whale").creature("W1", "M6").boat("B1", "M7", "b1")
    st = p.state()
    before = GAME.to_position(st)
    with pytest.raises(IllegalAction):
        act(st, "red", ORDERS)          # W1 must stop at the occupied ship in M7 on its way
    assert GAME.to_position(st) == before
    with pytest.raises(IllegalAction, match="no order"):
        act(st, "red", {"creature": {"serpent": "none"}})
    with pytest.raises(IllegalAction):
        act(st, "red", {"creature": {"squid": "none"}})
    act(st, "red", {"creature": {"serpent": "none", "shark": "none", "whale": "none"}})
    assert st.turn.player == "blue"
