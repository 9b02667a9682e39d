"""The 23 tile backs: green at once, red in step 2, blue after the roll (yellow: test_sa_creatures and
test_sa_fighters_turrets), and the kinds' removal order."""
import pytest
from spaceattack_helpers import GAME, Pos, act, die_rng, events_of, kinds, where

from pbem.game import IllegalAction


def removal(back, *crew, kind="cargo_bay"):
    p = Pos().station("F6", "F7", "H6", kind=kind).land("r9", "F7").turn(step="remove-tile")
    for h in crew:
        p.land(h, "F6")
    p.tile("F6", back=back)
    return p


# --- step 3: which tile, and what its back does ------------------------------------------------
def test_tiles_go_cargo_bay_then_habitat_then_bridge_then_reactor():
    p = Pos().station("F6", "F7", "H6", "D5").land("r9", "F7").turn(step="remove-tile")
    for label, kind in (("F6", "habitat"), ("F7", "reactor"), ("H6", "bridge"), ("D5", "cargo_bay")):
        p.tile(label, kind=kind)
    st = p.state()
    assert GAME.legal_actions(st, "red") == [{"remove": "D5"}]
    with pytest.raises(IllegalAction, match="Cargo Bay, Habitat, Bridge, then Reactor"):
        act(st, "red", {"remove": "F6"})


def test_a_tile_surrounded_by_later_kinds_goes_last_of_its_kind():
    labels = ["F5", "F6", "F7", "E5", "E6", "G5", "G7"]
    p = Pos().station(*labels, kind="bridge").land("r9", "F5").turn(step="remove-tile")
    p.tile("F6", kind="habitat")
    st = p.state()
    assert GAME.legal_actions(st, "red") == [{"remove": "F6"}]    # surrounded, but the last habitat


def test_a_red_or_blue_back_goes_face_down_into_the_hand_and_the_public_learns_nothing():
    st = removal("teleport_creature").state()
    events = act(st, "red", {"remove": "F6"}, die_rng("queen"))
    to_hand = events_of(events, "to-hand")[0]
    assert to_hand == {"event": "to-hand", "player": "red", "tile": to_hand["tile"]}
    private = [e for e in events if e.public["event"] == "to-hand"][0].private["red"]
    assert private["back"] == "teleport_creature"
    assert GAME.view(st, None)["tiles"][to_hand["tile"]]["back"] is None
    assert GAME.view(st, "red")["tiles"][to_hand["tile"]]["back"] == "teleport_creature"
    assert GAME.view(st, "blue")["tiles"][to_hand["tile"]]["back"] is None


def test_warrior_tile_places_a_warrior_that_spares_the_fallen_drifters():
    st = removal("warrior", "r1").state()
    events = act(st, "red", {"remove": "F6"}, die_rng("spawn"))
    assert where(st, "W1") == ("sea", "F6") and where(st, "r1") == ("sea", "F6")
    assert events_of(events, "reveal")[0]["back"] == "warrior"


def test_a_creature_tile_with_the_supply_empty_places_nothing_and_spares_the_drifters():
    st = removal("spawn", "r1").state()
    for i in range(1, 7):
        st.creatures[f"S{i}"].where = "lost"        # black-holed: they never come back
    st.rebuild_indexes()
    events = act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert "supply-empty" in kinds(events) and where(st, "r1") == ("sea", "F6")


def test_escape_pod_tile_the_fallen_crew_board_and_the_revealer_chooses_three_of_four():
    st = removal("escape_pod", "r1", "b1").state()
    act(st, "red", {"remove": "F6"}, die_rng("queen"))
    pod = st.boat_at[GAME.base.board.index["F6"]]
    assert pod.startswith("P") and where(st, "r1") == ("boat", pod) and where(st, "b1") == ("boat", pod)
    st = removal("escape_pod", "r1", "r2", "b1", "g1").state()
    act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert GAME.pending(st)[0].kind == "choose-boarders"
    events = act(st, "red", {"board": ["r1", "r2", "g1"]}, die_rng("queen"))
    assert where(st, "b1") == ("sea", "F6") and "roll" in kinds(events)
    st = removal("escape_pod", "r1", "r2", "b1", "g1").state()
    act(st, "red", {"remove": "F6", "board": ["r1", "r2", "b1"]}, die_rng("queen"))   # written ahead
    assert where(st, "g1") == ("sea", "F6") and GAME.pending(st)[0].kind != "choose-boarders"


def test_fighter_tile_one_fallen_crew_pilots_it_and_with_more_the_revealer_chooses():
    st = removal("fighter", "b1").state()
    act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert where(st, "X1") == ("sea", "F6") and where(st, "b1") == ("boat", "X1")
    st = removal("fighter", "r1", "b1").state()
    act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert GAME.pending(st)[0].kind == "choose-boarders"
    assert GAME.legal_actions(st, "red") == [{"board": ["b1"]}, {"board": ["r1"]}]
    act(st, "red", {"board": ["b1"]}, die_rng("queen"))
    assert where(st, "b1") == ("boat", "X1") and where(st, "r1") == ("sea", "F6")
    st = removal("fighter", "r1", "b1").state()
    act(st, "red", {"remove": "F6", "board": ["r1"]}, die_rng("queen"))
    assert where(st, "r1") == ("boat", "X1")


def test_a_fighter_tile_in_a_position_without_fighters_brings_none():
    """``partial: true`` with the fighters left out: the tile finds the supply empty (it used to fail)."""
    p = removal("fighter", "b1")
    p.p["boats"] = {h: b for h, b in p.p["boats"].items() if not h.startswith("X")}
    st = p.state()
    events = act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert events_of(events, "supply-empty") == [{"event": "supply-empty", "kind": "fighter"}]
    assert where(st, "b1") == ("sea", "F6")


def test_black_hole_clears_its_space_and_the_open_spaces_around_it_but_not_the_station():
    p = removal("black_hole", "r1").creature("Q1", "F5").boat("P1", "E6", "b1").drift("g1", "G6")
    p.land("b2", "F7")
    st = p.state()
    events = act(st, "red", {"remove": "F6"}, die_rng("spawn"))
    assert where(st, "r1") == ("lost", None) and where(st, "Q1") == ("lost", None)
    assert where(st, "P1") == ("lost", None) and where(st, "b1") == ("lost", None)
    assert where(st, "g1") == ("lost", None) and where(st, "b2") == ("land", "F7")
    assert all(e.get("cause") == "black hole" for e in public_losses(events))


def public_losses(events):
    return [e.public for e in events if e.public["event"] in ("lost", "ship-lost", "creatures-lost")]


def test_core_breach_ends_the_game_at_once_and_scores_the_jump_points():
    p = removal("core_breach", "r1", kind="reactor").saved("b1", "B1").saved("b2", "L12").saved("r2", "B1")
    st = p.state()
    events = act(st, "red", {"remove": "F6"})
    assert "roll" not in kinds(events)
    over = events_of(events, "game-over")[0]
    assert over["reason"] == "core breach" and where(st, "r1") == ("lost", None)
    values = {h: st.explorers[h].value for h in ("b1", "b2", "r2")}
    assert over["scores"]["blue"] == values["b1"] + values["b2"] + 2
    assert over["scores"]["red"] == values["r2"] + 1 and over["bonus"] == {"red": 1, "blue": 2, "green": 0}
    assert GAME.result(st).detail["bonus"] == {"red": 1, "blue": 2, "green": 0}


# --- red tiles, step 2 ------------------------------------------------------------------------------
def red(back, obtained=4, **kw):
    p = Pos().station("F6", "F7", "H6", "D5").land("r9", "F7")
    tile = p.hand("red", back, obtained=obtained)
    return p, tile


def test_red_tiles_are_played_from_the_next_turn_on_any_number_without_points():
    p, tile = red("teleport_creature", obtained=5)
    p.creature("Q1", "B4")
    st = p.state()
    with pytest.raises(IllegalAction, match="taken this turn"):
        act(st, "red", {"play": tile, "creature": "Q1", "to": "A3"})
    p, tile = red("teleport_creature")
    t2 = p.hand("red", "move_empty_ship", obtained=2, tile="T1")
    p.creature("Q1", "B4").boat("P1", "C4")
    st = p.state()
    act(st, "red", {"play": tile, "creature": "Q1", "to": "A3"})
    act(st, "red", {"play": t2, "ship": "P1", "to": "M5"})
    assert where(st, "Q1") == ("sea", "A3") and where(st, "P1") == ("sea", "M5")
    assert st.turn.moves == 0 and st.tiles[tile].where == "used"
    assert GAME.pending(st)[0].kind == "move"


def test_red_tiles_only_in_step_2_and_never_outside_ones_turn():
    p, tile = red("teleport_creature")
    p.creature("Q1", "B4").turn(step="creature", die="queen")
    st = p.state()
    with pytest.raises(IllegalAction, match="not now"):
        act(st, "red", {"play": tile, "creature": "Q1", "to": "A3"})
    p, tile = red("teleport_creature")
    st = p.creature("Q1", "B4").state()
    with pytest.raises(IllegalAction, match="not your decision"):
        act(st, "blue", {"play": tile, "creature": "Q1", "to": "A3"})


def test_swap_crew_on_station_tiles_and_aboard_ships():
    p, tile = red("swap_crew_station")
    p.land("b1", "F6")
    st = p.state()
    act(st, "red", {"play": tile, "crew": ["r9", "b1"]})
    assert where(st, "r9") == ("land", "F6") and where(st, "b1") == ("land", "F7")
    p, tile = red("swap_crew_ships")
    p.boat("P1", "B4", "r1", "r2").boat("X1", "C6", "b1")
    st = p.state()
    with pytest.raises(IllegalAction, match="same place"):
        act(st, "red", {"play": tile, "crew": ["r1", "r2"]})
    act(st, "red", {"play": tile, "crew": ["r1", "b1"]})
    assert where(st, "r1") == ("boat", "X1") and where(st, "b1") == ("boat", "P1")
    assert GAME.base.controllers(st, "X1") == ["red"]


def test_red_tiles_listed_lazily_read_by_index_and_scored_as_the_plain_listing():
    """The movement step's hand tiles (``hand_choices``: a swap's pairs and a move to an empty
    space made only when read) give the plain ``legal_move`` at every index, and score 0."""
    p, swap = red("swap_crew_ships")
    p.hand("red", "swap_crew_station", obtained=2, tile="T1")
    p.hand("red", "teleport_creature", obtained=2, tile="T2")
    p.hand("red", "move_empty_ship", obtained=2, tile="T3")
    p.hand("red", "place_warrior_and_spawn", obtained=2, tile="T4")
    p.land("b1", "F6").land("b2", "F6").land("r3", "F7")
    p.boat("P1", "B4", "r1", "r2").boat("X1", "C6", "b4").boat("P2", "C4").creature("Q1", "B4").creature("Q2", "E2")
    st = p.state()
    rules = GAME.rules(st)
    listed = rules.legal_move(st, "red")
    choices = GAME.legal_choices(st, "red")
    assert [choices[k] for k in range(len(choices))] == listed == list(choices)
    assert [choices[k] for k in range(-len(choices), 0)] == listed
    swaps = [a["crew"] for a in listed if a.get("play") == swap]
    assert ["b4", "r1"] in swaps and ["r1", "r2"] not in swaps            # aboard two ships, not the same one
    station = [a["crew"] for a in listed if a.get("play") == "T1"]
    assert ["b1", "r3"] in station and ["b1", "b2"] not in station and ["r3", "r9"] not in station
    assert any(a.get("play") == "T2" for a in listed) and any(a.get("play") == "T3" for a in listed)
    near = [(a["warrior"], a["spawn"]) for a in listed if a.get("play") == "T4"]       # (made only when read)
    assert len(near) > 10 and near == sorted(near, key=lambda p: tuple(GAME.base.board.index[c] for c in p))
    scores = [rules.bot_preference(st, "red", a) for a in listed]
    assert rules.bot_preferences(st, "red", choices) == scores
    assert all(s == 0.0 for a, s in zip(listed, scores) if "play" in a)


def test_drifters_back_to_the_station_or_onto_a_ship_in_or_next_to_their_space():
    p, tile = red("drifter_to_station")
    p.drift("b1", "F5")
    st = p.state()
    act(st, "red", {"play": tile, "crew": "b1", "to": "F6"})
    assert where(st, "b1") == ("land", "F6")
    p, tile = red("drifter_to_ship")
    p.drift("r1", "B4").boat("P1", "B5", "b1", "b2", "b3").boat("P2", "C4")
    st = p.state()
    with pytest.raises(IllegalAction, match="ship with room"):
        act(st, "red", {"play": tile, "crew": "r1", "ship": "P1"})
    act(st, "red", {"play": tile, "crew": "r1", "ship": "P2"})
    assert where(st, "r1") == ("boat", "P2")


def test_fire_any_turret_needs_no_crew_and_no_point():
    p, tile = red("fire_any_turret")
    p.tile("F6", kind="reactor").creature("S1", "F4")
    st = p.state()
    turret = st.tile_at[GAME.base.board.index["F6"]]
    act(st, "red", {"play": tile, "turret": turret, "at": "F4"})
    assert st.captured["red"] == ["S1"] and st.turn.moves == 0


def test_move_any_fighter_flies_anybodys_crewed_fighter_and_the_player_keeps_the_catch():
    p, tile = red("move_any_fighter")
    p.boat("X1", "B3", "b1").creature("W1", "B6")
    st = p.state()
    act(st, "red", {"play": tile, "ship": "X1", "to": "B6"})
    assert st.captured["red"] == ["W1"] and st.captured["blue"] == [] and "X1" not in st.flown


def test_place_a_warrior_and_a_spawn_next_to_two_different_queens():
    p, tile = red("place_warrior_and_spawn")
    p.creature("Q1", "B4").creature("Q2", "K4")
    st = p.state()
    with pytest.raises(IllegalAction, match="two different Queens"):
        act(st, "red", {"play": tile, "warrior": "B5", "spawn": "B3"})
    act(st, "red", {"play": tile, "warrior": "B5", "spawn": "K5"})
    assert where(st, "W1") == ("sea", "B5") and where(st, "S1") == ("sea", "K5")
    p, tile = red("place_warrior_and_spawn")
    st = p.creature("Q1", "B4").state()
    assert not [a for a in GAME.legal_actions(st, "red") if a.get("play") == tile]
    with pytest.raises(IllegalAction, match="two different Queens"):
        act(st, "red", {"play": tile, "warrior": "B5", "spawn": "B3"})


def test_place_near_queens_takes_a_token_from_the_board_when_none_is_unused():
    p, tile = red("place_warrior_and_spawn")
    p.creature("Q1", "B4").creature("Q2", "K4")
    for i in range(1, 7):
        p.creature(f"W{i}", "M5")
    st = p.state()
    with pytest.raises(IllegalAction, match="not a warrior on the board"):
        act(st, "red", {"play": tile, "warrior": "B5", "spawn": "K5", "warrior_token": "S1"})
    act(st, "red", {"play": tile, "warrior": "B5", "spawn": "K5", "warrior_token": "W4"})
    assert where(st, "W4") == ("sea", "B5")


# --- blue tiles, after the roll ---------------------------------------------------------------------
def blue(back, die="spawn", obtained=5, **options):
    p = Pos(options=options).station("F6", "F7", "H6", "D5", kind="cargo_bay").land("r9", "F7")
    p.turn(step="remove-tile")
    tile = p.hand("red", back, obtained=obtained)
    return p, tile


def test_after_the_roll_the_blue_tile_decision_comes_when_any_tile_is_in_hand():
    p, tile = blue("extra_space")
    p.creature("S1", "B4").tile("F6", back="black_hole")
    st = p.state()
    act(st, "red", {"remove": "F6"}, die_rng("spawn"))
    assert GAME.pending(st)[0].kind == "blue-tile"
    assert GAME.legal_actions(st, "red") == [{"play": "none"}, {"play": tile}]
    act(st, "red", {"play": tile})
    assert GAME.pending(st)[0].kind == "creature"
    reach = {a["to"] for a in GAME.legal_actions(st, "red") if a.get("creature") == "S1"}
    assert "B7" in reach                                        # three spaces this turn


def test_a_creature_order_at_the_blue_tile_decision_means_no_blue_tile():
    p, tile = blue("extra_space")
    p.creature("S1", "B4").tile("F6", back="black_hole")
    st = p.state()
    act(st, "red", {"remove": "F6"}, die_rng("spawn"))
    events = act(st, "red", {"creature": {"queen": "none", "spawn": {"creature": "S1", "to": "B5"}, "warrior": "none"}})
    assert kinds(events)[0] == "no-play" and where(st, "S1") == ("sea", "B5")
    assert st.tiles[tile].where == "hand"


def test_a_blue_tile_taken_this_turn_may_be_played_at_once():
    p = Pos().station("F6", "F7", kind="cargo_bay").land("r9", "F7").turn(step="remove-tile").creature("S1", "B4")
    p.tile("F6", back="extra_space")
    st = p.state()
    act(st, "red", {"remove": "F6"}, die_rng("spawn"))
    [tile] = [h for h, t in st.tiles.items() if t.where == "hand"]
    assert {"play": tile} in GAME.legal_actions(st, "red")


def test_evolve_uses_an_unused_token_else_one_from_the_board_else_not_at_all():
    p, tile = blue("evolve_spawn_warrior", die="warrior")
    p.creature("S1", "B4").turn(step="blue-tile", die="warrior")
    st = p.state()
    act(st, "red", {"play": tile, "creature": "S1", "into": "warrior"})
    assert where(st, "W1") == ("sea", "B4") and where(st, "S1") == ("supply", None)
    assert GAME.pending(st)[0].kind == "creature"         # "You then move a Creature as normal"
    p, tile = blue("evolve_to_queen", die="warrior")
    p.creature("S1", "B4").turn(step="blue-tile", die="warrior")
    for i in range(1, 7):
        p.creature(f"Q{i}", "M5")
    st = p.state()
    with pytest.raises(IllegalAction, match="name the one to take from the board"):
        act(st, "red", {"play": tile, "creature": "S1", "into": "queen"})
    act(st, "red", {"play": tile, "creature": "S1", "into": "queen", "token": "Q3"})
    assert where(st, "Q3") == ("sea", "B4")


def test_evolve_into_a_queen_where_a_crewed_fighter_is_destroys_it_and_attacks_the_space():
    p, tile = blue("evolve_to_queen", die="warrior")
    p.creature("S1", "B4").boat("X1", "B4", "b1").drift("g1", "B4").turn(step="blue-tile", die="warrior")
    st = p.state()
    act(st, "red", {"play": tile, "creature": "S1", "into": "queen"})
    assert where(st, "X1") == ("lost", None) and where(st, "b1") == ("lost", None)
    assert where(st, "g1") == ("lost", None)                       # evolve_attack=appear
    p, tile = blue("evolve_to_queen", die="warrior", evolve_attack="fighters-only")
    p.creature("S1", "B4").boat("X1", "B4", "b1").drift("g1", "B4").turn(step="blue-tile", die="warrior")
    st = p.state()
    act(st, "red", {"play": tile, "creature": "S1", "into": "queen"})
    assert where(st, "X1") == ("lost", None) and where(st, "g1") == ("sea", "B4")


def test_one_blue_tile_per_roll_unless_blue_tiles_any():
    p, tile = blue("extra_space")
    t2 = p.hand("red", "extra_space", obtained=5, tile="T1")
    p.creature("S1", "B4").turn(step="blue-tile", die="spawn")
    st = p.state()
    act(st, "red", {"play": tile})
    assert GAME.pending(st)[0].kind == "creature"
    p, tile = blue("extra_space", blue_tiles="any")
    t2 = p.hand("red", "extra_space", obtained=5, tile="T1")
    p.creature("S1", "B4").turn(step="blue-tile", die="spawn")
    st = p.state()
    act(st, "red", {"play": tile})
    assert GAME.pending(st)[0].kind == "blue-tile"
    act(st, "red", {"play": t2})
    assert st.extra == 2 and GAME.pending(st)[0].kind == "creature"
