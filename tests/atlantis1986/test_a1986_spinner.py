"""The spinning phase: the Atlantean Swirler (or the dice), creature moves, dives and attacks."""
from collections import Counter

import pytest
from atlantis1986_helpers import GAME, Pos, act, creature_step, has_run, kinds, spin_rng, where

from pbem.core.rng import Rng
from pbem.game import IllegalAction, NeedsSecret


def dests(st, handle):
    return sorted((a["to"] for a in GAME.legal_actions(st, st.turn.player) if a.get("creature") == handle
                   or a.get("dive") == handle), key=GAME.board.index.get)


def test_the_swirler_has_sixteen_equal_faces_and_the_dice_option_two_dice():
    st = Pos().state()
    faces = Counter(GAME.roll_die(st, Rng(b"spin", str(i))) for i in range(3200))
    assert len(faces) == 16 and set(faces) == {f"{k}-{m}" for k in ("shark", "octopus", "monster", "dolphin")
                                                 for m in ("1", "2", "3", "dive")}
    st = Pos(options={"spinner": "dice"}).state()
    faces = Counter(GAME.roll_die(st, Rng(b"spin", str(i))) for i in range(3600))
    assert faces["dolphin-1"] > faces["shark-1"]          # three dolphin faces on the creature die
    assert sum(n for f, n in faces.items() if f.endswith("-dive")) < sum(n for f, n in faces.items() if f.endswith("-1"))
    with pytest.raises(NeedsSecret):
        GAME.roll_die(st, None)


def test_the_spin_follows_the_sinking_and_nothing_happens_without_such_a_creature():
    st = Pos().island("D5", "E5").turn(step="remove-tile").creature("K1", "A5").state()
    events = act(st, "red", {"remove": "D5"}, spin_rng("octopus-2"))
    assert has_run(events, "spin", "no-creature", "turn")
    st = Pos().island("D5", "E5").turn(step="remove-tile").creature("K1", "A5").state()
    act(st, "red", {"remove": "D5"}, spin_rng("shark-2"))
    d = GAME.pending(st)[0]
    assert (d.player, d.kind) == ("red", "creature")
    assert "shark-2" in d.prompt


def hex_distance(a, b):
    (q1, r1), (q2, r2) = GAME.board.axial[GAME.board.index[a]], GAME.board.axial[GAME.board.index[b]]
    return max(abs(q1 - q2), abs(r1 - r2), abs(q1 + r1 - q2 - r2))


def test_a_creature_moves_up_to_the_spun_number_of_sea_spaces():
    st = Pos().creature("K1", "C6").state()
    creature_step(st, "shark-2")
    sea = [lab for lab in GAME.board.labels[:GAME.board.playable_count] if GAME.board.index[lab] not in st.tile_at]
    assert dests(st, "K1") == [lab for lab in sea if hex_distance(lab, "C6") <= 2]   # C6 itself: out and back
    assert "D6" not in dests(st, "K1")                                               # land
    act(st, "red", {"creature": "K1", "path": ["B6", "A6"]})
    assert where(st, "K1") == ("sea", "A6")
    st = Pos().creature("K1", "C6").state()
    creature_step(st, "shark-2")
    with pytest.raises(IllegalAction, match="1 to 2 spaces, not 3"):
        act(st, "red", {"creature": "K1", "path": ["B6", "A6", "A7"]})
    with pytest.raises(IllegalAction, match="cannot enter D6"):
        act(st, "red", {"creature": "K1", "path": ["D6"]})


def test_a_creature_stops_on_contact_and_cannot_pass_its_prey():
    st = Pos().creature("K1", "A5").swim("b1", "A6").state()
    creature_step(st, "shark-3")
    with pytest.raises(IllegalAction, match="must stop at A6"):
        act(st, "red", {"creature": "K1", "path": ["A6", "A7"]})
    st = Pos().creature("O1", "A5").boat("B1", "A6").state()   # an empty boat is prey by default
    creature_step(st, "octopus-3")
    with pytest.raises(IllegalAction, match="must stop at A6"):
        act(st, "red", {"creature": "O1", "path": ["A6", "A7"]})
    st = Pos().creature("D1", "A5").swim("b1", "A6").boat("B1", "A7").state()
    creature_step(st, "dolphin-3")
    act(st, "red", {"creature": "D1", "path": ["A6", "A7", "A8"]})
    assert where(st, "D1") == ("sea", "A8")


def test_sharks_kill_swimmers_but_not_passengers():
    st = Pos().creature("K1", "A5").swim("b1", "A6").swim("g1", "A6").boat("B1", "A6", "b2").state()
    creature_step(st, "shark-1")
    act(st, "red", {"creature": "K1", "to": "A6"})
    assert where(st, "b1") == ("lost", None) and where(st, "g1") == ("lost", None)
    assert where(st, "b2") == ("boat", "B1")


def test_the_octopus_destroys_boats_and_drops_the_passengers_in_the_water():
    st = Pos().creature("O1", "A5").boat("B1", "A6", "b1", "g1").swim("b2", "A6").state()
    creature_step(st, "octopus-1")
    act(st, "red", {"creature": "O1", "to": "A6"})
    assert where(st, "B1") == ("lost", None)
    assert where(st, "b1") == ("sea", "A6") and where(st, "b2") == ("sea", "A6")
    # ... where a shark waiting in that space eats them
    st = Pos().creature("O1", "A5").creature("K1", "A6").boat("B1", "A6", "b1").state()
    creature_step(st, "octopus-1")
    act(st, "red", {"creature": "O1", "to": "A6"})
    assert where(st, "b1") == ("lost", None)


def test_sea_monsters_destroy_boats_and_kill_villagers():
    st = Pos().creature("S1", "A5").boat("B1", "A6", "b1").swim("g1", "A6").state()
    creature_step(st, "monster-1")
    events = act(st, "red", {"creature": "S1", "to": "A6"})
    assert where(st, "B1") == ("lost", None) and where(st, "b1") == ("lost", None)
    assert where(st, "g1") == ("lost", None)
    assert "ship-lost" in kinds(events)


def test_empty_boats_safe_option_keeps_creatures_off_empty_boats():
    st = Pos(options={"empty_boats": "safe"}).creature("S1", "A5").boat("B1", "A6").state()
    creature_step(st, "monster-1")
    act(st, "red", {"creature": "S1", "to": "A6"})
    assert where(st, "B1") == ("sea", "A6")


def test_a_dive_appears_anywhere_at_sea_without_villagers_or_boats():
    st = Pos().creature("K1", "A5").swim("b1", "M5").boat("B1", "M6").creature("O1", "M7").state()
    creature_step(st, "shark-dive")
    d = GAME.pending(st)[0]
    assert d.kind == "dive"
    spots = dests(st, "K1")
    assert "M5" not in spots and "M6" not in spots and "M7" in spots and "G6" not in spots
    assert len(spots) == GAME.board.playable_count - 37 - 3   # and the bystander at M9
    with pytest.raises(IllegalAction, match="M5 is not one"):
        act(st, "red", {"dive": "K1", "to": "M5"})
    with pytest.raises(IllegalAction, match="not now"):
        act(st, "red", {"remove": "D5"})
    events = act(st, "red", {"dive": "K1", "to": "M8"})
    assert where(st, "K1") == ("sea", "M8")
    assert GAME.describe_event(events[0].public) == "red's shark K1 dives at A5 and appears at M8"
    assert GAME.pending(st)[0].player == "blue"


def test_the_creature_move_is_compulsory_unless_optional():
    st = Pos().creature("K1", "A5").state()
    creature_step(st, "shark-1")
    assert {"creature": "none"} not in GAME.legal_actions(st, "red")
    with pytest.raises(IllegalAction, match="you must move a shark"):
        act(st, "red", {"creature": "none"})
    st = Pos(options={"creature_move": "optional"}).creature("K1", "A5").state()
    creature_step(st, "shark-dive")
    assert GAME.legal_actions(st, "red")[0] == {"dive": "none"}
    act(st, "red", {"dive": "none"})
    assert where(st, "K1") == ("sea", "A5") and GAME.pending(st)[0].player == "blue"


def test_a_creature_with_nowhere_to_go_is_skipped():
    st = Pos().island(*[lab for lab in ("F6", "F7", "G5", "G7", "H6", "H7")]).creature("K1", "G6").turn(
        step="remove-tile").state()
    events = act(st, "red", {"remove": "F6"}, spin_rng("shark-1"))
    assert "no-move" not in kinds(events)           # F6 is sea now: K1 can go there
    st = Pos().island("F6", "F7", "G5", "G7", "H6", "H7", "D5").creature("K1", "G6").turn(step="remove-tile").state()
    events = act(st, "red", {"remove": "D5"}, spin_rng("shark-1"))
    assert has_run(events, "no-move", "turn")


def test_written_ahead_orders_by_face_or_by_kind():
    orders = {"creature": {"shark-dive": {"creature": "K1", "to": "M8"}, "shark": {"creature": "K1", "to": "A6"},
                           "octopus": "none"}}
    for face, expected in (("shark-dive", "M8"), ("shark-2", "A6")):
        st = Pos().creature("K1", "A5").state()
        creature_step(st, face)
        act(st, "red", orders)
        assert where(st, "K1") == ("sea", expected)
    st = Pos().creature("K1", "A5").state()
    creature_step(st, "shark-1")
    with pytest.raises(IllegalAction, match="no order for it"):
        act(st, "red", {"creature": {"octopus": "none"}})
    with pytest.raises(IllegalAction, match="not 'whale'"):
        act(st, "red", {"creature": {"whale": "none"}})
    with pytest.raises(IllegalAction, match="move a shark on the board, not O1"):
        act(st, "red", {"creature": "O1", "to": "A6"})
