"""Scoring (values, the Jump Point bonus, the tie-breaks), the end, the challenges, the 5-6 kit and the
option checks."""
import pytest
from spaceattack_helpers import GAME, Pos, act, die_rng, events_of, kinds, where

from pbem.core.rng import Rng
from pbem.game import OptionError


def over(p):
    """End the game by the Core Breach under F6 (red's step 3)."""
    p.station("F6", kind="reactor").tile("F6", back="core_breach").turn(step="remove-tile")
    st = p.state()
    events = act(st, "red", {"remove": "F6"})
    return st, events_of(events, "game-over")[0]


def values(st, *handles):
    return sum(st.explorers[h].value for h in handles)


def test_score_is_the_saved_values_plus_one_per_jump_point_reached():
    st, ev = over(Pos().saved("r1", "B1").saved("r2", "B1").saved("r3", "L1").saved("b1", "L12"))
    assert ev["scores"]["red"] == values(st, "r1", "r2", "r3") + 2
    assert ev["scores"]["blue"] == values(st, "b1") + 1 and ev["scores"]["green"] == 0


def test_two_colours_score_a_bonus_per_colour_and_jump_point():
    p = Pos(players=("red", "blue"), options={"colours": "auto"})
    green = p.p["players"][0]["colours"][1]
    g = next(h for h, e in p.p["explorers"].items() if e["colour"] == green)
    st, ev = over(p.saved("r1", "B1").saved(g, "B1").saved("r2", "L1"))
    assert ev["bonus"]["red"] == 3                 # red at NW and SW, green at NW
    assert ev["scores"]["red"] == values(st, "r1", g, "r2") + 3


def test_ties_go_to_most_crew_saved_then_most_jump_points_then_latest_in_turn_order():
    p = Pos().saved("r1", "B1").saved("r2", "B1").saved("b1", "B1")
    p.p["explorers"]["r1"]["value"], p.p["explorers"]["r2"]["value"], p.p["explorers"]["b1"]["value"] = 2, 2, 4
    st, ev = over(p)
    assert ev["scores"]["red"] == ev["scores"]["blue"] == 5
    assert ev["winners"] == ["red"] and ev["tiebreak"]["rescued"] == {"red": 2, "blue": 1}
    p = Pos().saved("r1", "B1").saved("r2", "B1").saved("b1", "B1").saved("b2", "L1")
    for h, v in (("r1", 3), ("r2", 3), ("b1", 2), ("b2", 3)):
        p.p["explorers"][h]["value"] = v
    st, ev = over(p)                                # red 6 + 1 bonus, blue 5 + 2 bonuses
    assert ev["scores"]["red"] == 7 and ev["scores"]["blue"] == 7
    assert ev["winners"] == ["blue"] and ev["tiebreak"]["jump_points"] == {"red": 1, "blue": 2}
    p = Pos().saved("r1", "B1").saved("g1", "L1")
    p.p["explorers"]["r1"]["value"] = p.p["explorers"]["g1"]["value"] = 4
    st, ev = over(p)
    assert ev["winners"] == ["green"] and ev["tiebreak"]["seat"] == {"red": 0, "green": 2}


def test_the_end_flips_the_saved_crew_for_everybody():
    st, ev = over(Pos().saved("r1", "B1").land("b1", "F7"))
    assert ev["saved"] == {"r1": st.explorers["r1"].value} and ev["lost"] == ["b1"]
    assert GAME.view(st, None)["explorers"]["r1"]["value"] == st.explorers["r1"].value


def test_to_the_last_the_core_breach_is_a_black_hole_and_the_game_ends_with_the_last_crew():
    p = Pos(options={"end": "to-the-last"}).station("F6", "F7", kind="reactor").land("r1", "F7").drift("b1", "F5")
    p.tile("F6", back="core_breach").turn(step="remove-tile")
    st = p.state()
    events = act(st, "red", {"remove": "F6"}, die_rng("queen"))
    assert "core-breach" in kinds(events) and where(st, "b1") == ("lost", None)
    assert GAME.result(st) is None and "roll" in kinds(events)
    p = Pos(options={"end": "to-the-last"}).station("F6").boat("P1", "B2", "r1")
    st = p.state()
    events = act(st, "red", {"move": "r1", "to": "B1"})
    assert events_of(events, "game-over")[0]["reason"] == "the last crew token has left the board"


# --- challenge #1, enclosed spaces ---------------------------------------------------------------
def place_all(st):
    while st.phase == "setup-place":
        player = GAME.pending(st)[0].player
        act(st, player, GAME.legal_actions(st, player)[0])


def test_overpopulated_two_crew_on_inner_tiles_one_on_edge_tiles():
    st = GAME.setup(["red", "blue"], {"overpopulated": "yes"}, Rng(b"o", "1"))
    rules = GAME.rules_for(st)
    inner = [t.cell for t in st.tiles.values() if not rules.on_the_edge(st, t.cell)]
    edge = [t.cell for t in st.tiles.values() if rules.on_the_edge(st, t.cell)]
    assert inner and edge
    act(st, "red", {"place": "r1", "on": rules.label(inner[0])})
    act(st, "blue", {"place": "b1", "on": rules.label(inner[0])})
    act(st, "red", {"place": "r2", "on": rules.label(edge[0])})
    spots = {a["on"] for a in GAME.legal_actions(st, "blue")}
    assert rules.label(inner[0]) not in spots and rules.label(edge[0]) not in spots


def test_enclosed_station_makes_the_ring_round_g6_inner_for_challenge_1_and_removal():
    st = GAME.setup(["red", "blue"], {"overpopulated": "yes"}, Rng(b"o", "1"))
    st2 = GAME.setup(["red", "blue"], {"overpopulated": "yes", "enclosed": "station"}, Rng(b"o", "1"))
    r1, r2 = GAME.rules_for(st), GAME.rules_for(st2)
    g6 = r1.board.index["G6"]
    ring = [c for c in r1.board.neighbours[g6]]
    assert all(r1.on_the_edge(st, c) for c in ring)
    assert not any(r2.on_the_edge(st2, c) for c in ring)


def test_enclosed_spaces_of_the_maps():
    enclosed = {name: sorted(GAME.rules_for(GAME.setup(["a", "b"], {"map": name}, Rng(b"e", name)))
                             .label(c) for c in GAME.data_for(name).enclosed)
                for name in ("standard", "starship-titanus", "jacobs-ladder", "asteroids")}
    assert enclosed["standard"] == ["G6"] and enclosed["starship-titanus"] == ["G6"]
    assert enclosed["asteroids"] == ["E8", "I4", "I9"] and len(enclosed["jacobs-ladder"]) == 16


# --- the 5-6 player kit ----------------------------------------------------------------------------
def test_five_players_eight_crew_each_and_pods_one_one_two_two_two():
    st = GAME.setup(["a", "b", "c", "d", "e"], {}, Rng(b"k", "5"))
    assert len(st.explorers) == 40
    colours = [st.colours[p][0] for p in st.players]
    assert colours == ["red", "blue", "green", "yellow", "orange"]
    orange = sorted(e.value for e in st.explorers.values() if e.colour == "orange")
    assert orange == [1, 1, 2, 2, 3, 4, 5, 6]
    pods = [sum(1 for b in st.boats.values() if b.owner == p) for p in st.players]
    assert pods == [1, 1, 2, 2, 2]


def test_six_players_the_fifth_and_sixth_place_their_last_crew_on_an_occupied_tile():
    st = GAME.setup(["a", "b", "c", "d", "e", "f"], {}, Rng(b"k", "6"))
    assert len(st.explorers) == 42 and sorted(e.value for e in st.explorers.values() if e.owner == "f") == \
        [1, 1, 2, 3, 4, 5, 6]
    checked = 0
    while st.phase == "setup-place":
        player = GAME.pending(st)[0].player
        if player in ("e", "f") and len([e for e in st.explorers.values()
                                          if e.owner == player and e.where == "reserve"]) == 1:
            legal = GAME.legal_actions(st, player)
            own = set(st.colours[player])
            assert legal and all(st.on_land(GAME.base.board.index[a["on"]]) for a in legal)
            assert not any(st.explorers[h].colour in own for a in legal
                           for h in st.on_land(GAME.base.board.index[a["on"]]))
            checked += 1
        act(st, player, GAME.legal_actions(st, player)[0])
    assert st.phase == "setup-boat" and checked == 2


# --- refusals --------------------------------------------------------------------------------------
@pytest.mark.parametrize("options, players, words", [
    ({"colours": "2"}, 3, "colours=2"),
    ({"pods": "per-colour"}, 5, "5-6"),
    ({"reactors": "recommended"}, 2, "challenge map"),
    ({"lagoon": "land"}, 2, "known options: blue_tiles"),
    ({"crew_strikes_back": "yes"}, 2, "not supported"),
    ({}, 1, "2-6 players"),
    ({}, 7, "2-6 players"),
])
def test_impossible_combinations_are_refused_in_one_line(options, players, words):
    names = [f"p{i}" for i in range(players)]
    with pytest.raises(OptionError) as exc:
        GAME.check_options(options, names)
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_recommended_reactors_on_a_challenge_map_and_every_map_is_accepted():
    for name in ("standard", "starship-titanus", "jacobs-ladder", "asteroids"):
        GAME.check_options({"map": name}, ["a", "b"])
    GAME.check_options({"map": "asteroids", "reactors": "recommended"}, ["a", "b"])
