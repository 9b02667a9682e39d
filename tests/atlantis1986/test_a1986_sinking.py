"""The sinking phase: ring by ring, occupied tiles last, and what the bottoms bring."""
import pytest
from atlantis1986_helpers import GAME, Pos, act, has_run, kinds, spin_rng, where

from pbem.game import IllegalAction

BEACH = ["D5", "D6", "D7", "D8", "E4", "E8", "F4", "F9", "G3", "G9", "H4", "H9", "I4", "I8", "J5", "J6", "J7", "J8"]


def removable(st):
    return [a["remove"] for a in GAME.legal_actions(st, st.turn.player)]


def test_the_outer_ring_sinks_first():
    st = Pos().turn(step="remove-tile").state()
    assert sorted(removable(st)) == sorted(BEACH)
    with pytest.raises(IllegalAction, match="E5 is further inland: the beach ring"):
        act(st, "red", {"remove": "E5"})


def test_inner_rings_follow_when_the_outer_one_is_gone_and_the_peak_is_last():
    st = Pos().island("E5", "F6", "G6").turn(step="remove-tile").state()
    assert removable(st) == ["E5"]
    st = Pos().island("F6", "G6").turn(step="remove-tile").state()
    assert removable(st) == ["F6"]
    st = Pos().island("G6").turn(step="remove-tile").state()
    assert removable(st) == ["G6"]


def test_occupied_tiles_sink_only_when_the_ring_has_no_empty_tile():
    st = Pos().island("D5", "D6", "E5").land("r1", "D5").turn(step="remove-tile").state()
    assert removable(st) == ["D6"]
    with pytest.raises(IllegalAction, match="D5 has villagers on it and its ring still has empty tiles"):
        act(st, "red", {"remove": "D5"})
    st = Pos().island("D5", "D6", "E5").land("r1", "D5").land("b1", "D6").turn(step="remove-tile").state()
    assert sorted(removable(st)) == ["D5", "D6"]


def sink(label, back, pos=None, face="shark-1", **options):
    pos = pos or Pos(options=options)
    st = pos.island(label, "E5").back(label, back).turn(step="remove-tile").state()
    events = act(st, "red", {"remove": label}, spin_rng(face, options))
    return st, events


def test_villagers_on_a_sunk_tile_fall_into_the_water():
    st, events = sink("D5", "octopus", Pos().land("r1", "D5").land("b1", "D5"))
    assert where(st, "r1") == ("sea", "D5") and where(st, "b1") == ("sea", "D5")
    assert where(st, "O1") == ("sea", "D5")
    assert kinds(events)[:3] == ["remove", "reveal", "appear"]
    assert GAME.view(st, None)["tiles"][st.tiles[pos_tile(st, "D5")].handle]["back"] == "octopus"


def pos_tile(st, label):
    return next(h for h, t in st.tiles.items() if GAME.label(t.cell) == label)


def test_a_shark_or_sea_monster_from_the_bottom_kills_the_fallen_villagers():
    st, _ = sink("D5", "shark", Pos().land("r1", "D5"))
    assert where(st, "r1") == ("lost", None) and where(st, "K1") == ("sea", "D5")
    st, _ = sink("D5", "monster", Pos().land("r1", "D5"))
    assert where(st, "r1") == ("lost", None) and where(st, "S1") == ("sea", "D5")


def test_a_dolphin_from_the_bottom_harms_nobody():
    st, _ = sink("D5", "dolphin", Pos().land("r1", "D5"))
    assert where(st, "r1") == ("sea", "D5") and where(st, "D1") == ("sea", "D5")


def test_a_boat_from_the_bottom_picks_up_the_fallen_villagers():
    st, _ = sink("D5", "boat", Pos().land("r1", "D5").land("b1", "D5"))
    assert where(st, "B1") == ("sea", "D5")
    assert where(st, "r1") == ("boat", "B1") and where(st, "b1") == ("boat", "B1")


def test_more_than_three_fallen_villagers_the_sinker_chooses_who_boards():
    pos = Pos().land("r1", "D5").land("r2", "D5").land("b1", "D5").land("b2", "D5")
    st = pos.island("D5", "E5").back("D5", "boat").turn(step="remove-tile").state()
    act(st, "red", {"remove": "D5"})
    assert GAME.pending(st)[0].kind == "choose-boarders"
    events = act(st, "red", {"board": ["r1", "r2", "b1"]}, spin_rng("shark-1"))
    assert where(st, "b2") == ("sea", "D5") and where(st, "r1") == ("boat", "B1")
    assert [e.public["face"] for e in events if e.public["event"] == "spin"] == ["shark-1"]
    assert has_run(events, "no-creature", "turn")


def whirlpool_position():
    return (Pos().land("r1", "D6").land("b1", "D5").swim("g1", "C5").boat("B3", "C4", "r2")
            .creature("K1", "C4").creature("D2", "C5").swim("r3", "A5"))


def test_whirlpool_destroys_everything_at_sea_here_and_next_door_and_by_default_on_the_land_next_door():
    st = whirlpool_position().island("D5", "D6", "E5").back("D5", "whirlpool").turn(step="remove-tile").state()
    act(st, "red", {"remove": "D5"}, spin_rng("shark-1"))
    for h in ("b1", "g1", "r2", "r1"):
        assert where(st, h) == ("lost", None), h
    for h in ("B3", "K1", "D2"):
        assert where(st, h)[0] == "lost", h
    assert where(st, "r3") == ("sea", "A5")
    assert "D6" in [GAME.label(c) for c in st.tile_at]       # "but not land"


def test_whirlpool_sea_option_spares_villagers_on_land():
    st = (whirlpool_position().island("D5", "D6", "E5").back("D5", "whirlpool").turn(step="remove-tile"))
    st.p["options"]["whirlpool"] = "sea"
    st = st.state()
    act(st, "red", {"remove": "D5"}, spin_rng("shark-1"))
    assert where(st, "r1") == ("land", "D6")
    assert where(st, "b1") == ("lost", None)


def test_the_volcano_ends_the_game_and_counts_the_saved():
    pos = Pos().island("G6").back("G6", "volcano").land("r1", "G6").saved("r2").saved("b1", "L12").saved("b2", "L1")
    st = pos.turn(step="remove-tile").state()
    events = act(st, "red", {"remove": "G6"})
    assert st.phase == "over" and kinds(events)[-1] == "game-over"
    result = GAME.result(st)
    assert result.scores == {"red": 1, "blue": 2, "green": 0} and result.winners == ["blue"]
    assert where(st, "g12") == ("lost", None)                # the bystander
    assert where(st, "r1") == ("lost", None)
    assert GAME.pending(st) == []
