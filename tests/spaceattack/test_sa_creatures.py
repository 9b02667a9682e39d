"""Step 4 and the creatures: Queen, Spawn and Warrior, their attacks, and defence by redirection."""
import pytest
from spaceattack_helpers import GAME, Pos, act, die_rng, events_of, kinds, where

from pbem.game import IllegalAction


def at_sea(die, **options):
    """Red's step 4 with the die showing ``die``; red keeps a crew token on the station."""
    return Pos(options=options).station("F6", "F7", "H6").land("r9", "F6").turn(step="creature", die=die)


def test_a_queen_removes_an_occupied_ship_and_drifters_but_not_an_empty_ship():
    st = at_sea("queen").creature("Q1", "B4").boat("P1", "B5", "r1").drift("r2", "B5").state()
    events = act(st, "red", {"creature": "Q1", "to": "B5"})
    assert where(st, "P1") == ("lost", None) and where(st, "r1") == ("lost", None)
    assert where(st, "r2") == ("lost", None)
    st = at_sea("queen").creature("Q1", "B4").boat("P1", "B5").state()
    act(st, "red", {"creature": "Q1", "to": "B5"})
    assert where(st, "P1") == ("sea", "B5")
    with pytest.raises(IllegalAction, match="1 to 1"):
        act(at_sea("queen").creature("Q1", "B4").state(), "red", {"creature": "Q1", "path": ["B5", "B6"]})


def test_a_spawn_moves_one_or_two_stops_at_drifters_and_spares_ships():
    p = at_sea("spawn").creature("S1", "B4").drift("r1", "B5").boat("P1", "C4", "r2")
    st = p.state()
    reach = {a["to"] for a in GAME.legal_actions(st, "red") if a.get("creature") == "S1"}
    assert {"B5", "C4", "A3", "C5"} <= reach and "B6" not in reach     # B6 only through the drifter at B5
    with pytest.raises(IllegalAction, match="must stop at B5"):
        act(st, "red", {"creature": "S1", "path": ["B5", "B6"]})
    act(st, "red", {"creature": "S1", "to": "B5"})
    assert where(st, "r1") == ("lost", None)
    st = p.state()
    act(st, "red", {"creature": "S1", "to": "C4"})
    assert where(st, "P1") == ("sea", "C4") and where(st, "r2") == ("boat", "P1")


def test_a_warrior_stops_at_an_occupied_ship_and_its_crew_drift_unless_a_spawn_is_there():
    p = at_sea("warrior").creature("W1", "B3").boat("P1", "B5", "r1", "b1")
    st = p.state()
    events = act(st, "red", {"creature": "W1", "path": ["B4", "B5"]})
    assert where(st, "P1") == ("lost", None)
    assert where(st, "r1") == ("sea", "B5") and where(st, "b1") == ("sea", "B5")
    st = p.creature("S1", "B5").state()
    act(st, "red", {"creature": "W1", "path": ["B4", "B5"]})
    assert where(st, "r1") == ("lost", None) and where(st, "b1") == ("lost", None)
    st = at_sea("warrior").creature("W1", "B3").boat("P1", "B5").drift("r1", "B5").state()
    act(st, "red", {"creature": "W1", "path": ["B4", "B5", "B6"]})      # an empty ship does not stop it
    assert where(st, "W1") == ("sea", "B6") and where(st, "r1") == ("sea", "B5")


def test_no_creature_of_the_rolled_kind_means_nothing_happens():
    p = Pos().station("F6", "F7", kind="cargo_bay").land("r9", "F7").turn(step="remove-tile")
    p.tile("F6", back="black_hole")
    st = p.state()
    events = act(st, "red", {"remove": "F6"}, die_rng("spawn"))
    assert "no-creature" in kinds(events)
    assert GAME.pending(st)[0].player == "blue"


# --- defence ---------------------------------------------------------------------------------------
def queen_attack(order="auto", spaces_free=True):
    p = at_sea("queen").creature("Q1", "B4").drift("b1", "B5").drift("r1", "B5")
    tile = p.hand("blue", "defend_queen_2")
    p.standing("blue", queen_defense=order)
    return p, tile


def test_a_defence_tile_saves_everybody_in_the_space_and_sends_the_creature_away():
    p, tile = queen_attack("auto")
    st = p.state()
    events = act(st, "red", {"creature": "Q1", "to": "B5"})
    assert where(st, "b1") == ("sea", "B5") and where(st, "r1") == ("sea", "B5")     # red's too
    defend = events_of(events, "defend")[0]
    assert defend["player"] == "blue" and defend["tile"] == tile and defend["at"] == "B5"
    assert where(st, "Q1")[1] == defend["to"] != "B5" and 1 <= len(defend["path"]) <= 2
    assert st.tiles[tile].where == "used"
    assert GAME.pending(st)[0].player == "blue"         # red's turn is over


def test_defence_by_order_auto_aims_where_the_fewest_of_the_defenders_crew_are_hit():
    p, tile = queen_attack("auto")
    p.drift("b2", "A4").drift("b3", "A5").drift("b4", "C5").drift("b5", "B6")
    st = p.state()
    events = act(st, "red", {"creature": "Q1", "to": "B5"})
    dest = events_of(events, "defend")[0]["to"]
    assert dest not in ("A4", "A5", "C5", "B6")


def test_defence_ask_lets_the_defender_aim_and_the_creature_attacks_where_it_ends():
    p, tile = queen_attack("ask")
    p.drift("g1", "C5")
    st = p.state()
    act(st, "red", {"creature": "Q1", "to": "B5"})
    assert GAME.pending(st)[0].player == "blue" and GAME.pending(st)[0].kind == "defense"
    legal = GAME.legal_actions(st, "blue")
    assert {"defend": "none"} in legal and {"defend": tile, "to": "C5"} in legal
    assert {"defend": tile, "to": "B5"} not in legal
    with pytest.raises(IllegalAction, match="send Q1 away"):
        act(st, "blue", {"defend": tile, "path": ["B6", "B5"]})
    act(st, "blue", {"defend": tile, "to": "C5"})
    assert where(st, "g1") == ("lost", None) and where(st, "b1") == ("sea", "B5")
    assert GAME.pending(st)[0].player == "blue" and GAME.pending(st)[0].kind == "move"


def test_defence_never_or_declined_lets_the_attack_happen():
    p, tile = queen_attack("never")
    st = p.state()
    events = act(st, "red", {"creature": "Q1", "to": "B5"})
    assert where(st, "b1") == ("lost", None) and st.tiles[tile].where == "hand"
    attack = events_of(events, "attack")[0]
    assert attack["threatened"] == ["blue"]
    p, tile = queen_attack("ask")
    st = p.state()
    act(st, "red", {"creature": "Q1", "to": "B5"})
    act(st, "blue", {"defend": "none"})
    assert where(st, "b1") == ("lost", None)


def test_the_active_player_is_never_asked_and_a_minority_aboard_cannot_defend():
    p = at_sea("warrior").creature("W1", "B3").boat("P1", "B5", "r1", "r2", "b1")
    tile = p.hand("red", "defend_warrior_4")
    blue_tile = p.hand("blue", "defend_warrior_4", tile="T2")
    st = p.state()
    events = act(st, "red", {"creature": "W1", "path": ["B4", "B5"]})
    assert where(st, "P1") == ("lost", None)                   # blue is a minority aboard red's pod
    assert st.tiles[tile].where == "hand" and st.tiles[blue_tile].where == "hand"
    assert not events_of(events, "attack")


def test_a_redirected_creature_attacks_again_and_another_player_may_defend():
    p = at_sea("spawn").creature("S1", "B3").drift("b1", "B4").drift("g1", "B5")
    t_blue = p.hand("blue", "defend_spawn_3")
    t_green = p.hand("green", "defend_spawn_3", tile="T2")
    p.standing("blue", spawn_defense="ask")
    st = p.state()
    act(st, "red", {"creature": "S1", "to": "B4"})
    act(st, "blue", {"defend": t_blue, "to": "B5"})         # onto green's drifter: green defends by auto
    assert where(st, "g1") == ("sea", "B5") and where(st, "b1") == ("sea", "B4")
    assert st.tiles[t_green].where == "used" and where(st, "S1")[1] != "B5"


def test_a_spawn_tile_appearing_on_fallen_crew_is_an_attack_the_owners_may_answer():
    p = Pos().station("F6", "F7", "H6", kind="cargo_bay").land("r1", "F6").land("b1", "F6").land("r9", "F7").turn(step="remove-tile")
    p.tile("F6", back="spawn")
    tile = p.hand("blue", "defend_spawn_3")
    st = p.state()
    events = act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert where(st, "b1") == ("sea", "F6") and where(st, "r1") == ("sea", "F6")
    spawn = events_of(events, "appear")[0]["piece"]
    assert where(st, spawn)[1] != "F6" and events_of(events, "defend")
    assert "roll" in kinds(events)


def test_a_spawn_tile_removes_the_fallen_crew_when_nobody_defends():
    p = Pos().station("F6", "F7", "H6", kind="cargo_bay").land("r1", "F6").land("b1", "F6").land("r9", "F7").turn(step="remove-tile")
    p.tile("F6", back="spawn")
    st = p.state()
    act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert where(st, "b1") == ("lost", None) and where(st, "r1") == ("lost", None)


def test_a_defence_asked_in_step_3_resumes_the_turn_with_the_roll():
    p = Pos().station("F6", "F7", "H6", kind="cargo_bay").land("b1", "F6").land("r9", "F7").turn(step="remove-tile")
    p.tile("F6", back="spawn")
    tile = p.hand("blue", "defend_spawn_3")
    p.standing("blue", spawn_defense="ask")
    st = p.state()
    act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert GAME.pending(st)[0].player == "blue" and st.resume == "remove-tile"
    events = act(st, "blue", {"defend": "none"}, die_rng("spawn"))
    assert where(st, "b1") == ("lost", None)
    assert [e["face"] for e in events_of(events, "roll")] == ["spawn"]
    assert GAME.pending(st)[0].player == "red" and GAME.pending(st)[0].kind == "creature"
