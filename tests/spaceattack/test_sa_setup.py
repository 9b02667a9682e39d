"""Set-up: the station on each map, Reactors and turrets, colours, hidden values, crew and pod placement."""
from collections import Counter

import pytest
from spaceattack_helpers import GAME, act, kinds, where

from pbem.core.rng import Rng
from pbem.game import IllegalAction

MAPS = ("standard", "starship-titanus", "jacobs-ladder", "asteroids")


def setup(players=("red", "blue", "green"), **options):
    return GAME.setup(list(players), options, Rng(b"sa-setup", "x"))


@pytest.mark.parametrize("station", MAPS)
def test_forty_station_tiles_of_four_kinds_on_the_maps_slots(station):
    st = setup(map=station)
    pos = GAME.to_position(st)
    rules = GAME.rules_for(st)
    assert Counter(t["terrain"] for t in pos["tiles"].values()) == {
        "cargo_bay": 12, "habitat": 12, "bridge": 12, "reactor": 4}
    slots = [rules.label(c) for c in rules.board.island_slots]
    assert [t["at"] for t in pos["tiles"].values()] == slots            # T1..T40 in slot order
    assert list(pos["tiles"]) == [f"T{i}" for i in range(1, 41)]
    # "Under one of the Reactor tiles is the Core Breach"
    assert [t["terrain"] for t in pos["tiles"].values() if t["back"] == "core_breach"] == ["reactor"]


@pytest.mark.parametrize("station, side, jump_points", [("standard", "A", 4), ("starship-titanus", "A", 4),
                                                        ("jacobs-ladder", "B", 2), ("asteroids", "B", 2)])
def test_each_map_is_played_on_its_side_of_the_board(station, side, jump_points):
    rules = GAME.rules_for(setup(map=station))
    assert rules.sa.side == side and len(rules.board.isles) == jump_points


@pytest.mark.parametrize("station", ["starship-titanus", "jacobs-ladder", "asteroids"])
def test_a_challenge_map_puts_the_reactors_on_their_recommended_slots_unless_random(station):
    recommended = set(GAME.data_for(station).station["reactor_slots"])
    for seed in range(3):
        st = GAME.setup(["red", "blue"], {"map": station}, Rng(b"r", str(seed)))
        reactors = {t["at"] for t in GAME.to_position(st)["tiles"].values() if t["terrain"] == "reactor"}
        assert reactors == recommended
    spots = set()
    for seed in range(6):
        st = GAME.setup(["red", "blue"], {"map": station, "reactors": "random"}, Rng(b"r", str(seed)))
        spots |= {t["at"] for t in GAME.to_position(st)["tiles"].values() if t["terrain"] == "reactor"}
    assert spots - recommended, "reactors=random never moved a Reactor"


def test_the_standard_station_places_its_reactors_at_random():
    spots = set()
    for seed in range(4):
        st = GAME.setup(["red", "blue"], {}, Rng(b"r", str(seed)))
        spots |= {t["at"] for t in GAME.to_position(st)["tiles"].values() if t["terrain"] == "reactor"}
    assert len(spots) > 4


def test_queens_start_on_the_queen_symbols_and_everything_else_is_set_aside():
    pos = GAME.to_position(setup())
    queens = {h: c["at"] for h, c in pos["creatures"].items() if c["kind"] == "queen"}
    assert queens == {"Q1": "G6", "Q2": "B2", "Q3": "C11", "Q4": "K1", "Q5": "L11", "Q6": None}
    assert all(c["where"] == "supply" for h, c in pos["creatures"].items() if c["kind"] != "queen")
    assert pos["creatures"]["Q6"]["where"] == "supply"
    fighters = {h: b for h, b in pos["boats"].items() if h.startswith("X")}
    assert sorted(fighters) == ["X1", "X2", "X3", "X4", "X5"]
    assert all(b["where"] == "supply" for b in fighters.values())
    # "Each player gets 2 Escape Pod tokens": P1-P2 to the first player, and so on; the rest set aside
    owners = [pos["boats"][f"P{i}"]["owner"] for i in range(1, 13)]
    assert owners == ["red", "red", "blue", "blue", "green", "green"] + [None] * 6


def test_two_players_play_one_colour_each_unless_they_decide_on_two():
    """"Each player chooses a color" (the default); "If you're playing with two players, you can decide
    to use two colors for each player" (colours=auto or 2): two pods each unless pods=per-colour."""
    st = setup(("red", "blue"))
    assert st.colours == {"red": ["red"], "blue": ["blue"]}
    assert sum(1 for b in st.boats.values() if b.where == "reserve") == 4
    assert GAME.full_options({})["colours"] == "1"
    st = setup(("red", "blue"), colours="auto")
    assert st.colours == {"red": ["red", "green"], "blue": ["blue", "yellow"]}
    assert sum(1 for b in st.boats.values() if b.where == "reserve") == 4
    st = setup(("red", "blue"), colours="2", pods="per-colour")
    assert st.colours == {"red": ["red", "green"], "blue": ["blue", "yellow"]}
    assert sum(1 for b in st.boats.values() if b.where == "reserve") == 8


def test_crew_values_are_hidden_but_the_owner_sees_them_during_set_up_only():
    st = setup()
    mine = GAME.view(st, "red")["explorers"]
    assert sorted(e["value"] for h, e in mine.items() if e["colour"] == "red") == [1, 1, 1, 2, 2, 3, 3, 4, 5, 6]
    assert all(e["value"] is None for e in mine.values() if e["colour"] != "red")
    assert all(e["value"] is None for e in GAME.view(st, None)["explorers"].values())


def test_crew_go_one_at_a_time_on_empty_tiles_turret_tiles_included():
    st = setup()
    reactor = next(t for t in st.tiles.values() if t.terrain == "reactor")
    label = GAME.base.label(reactor.cell)
    act(st, "red", {"place": "r1", "on": label})     # "You may place in a tile with a Laser Turret"
    assert where(st, "r1") == ("land", label)
    with pytest.raises(IllegalAction, match="not your decision"):
        act(st, "red", {"place": "r2", "on": "D5"})
    with pytest.raises(IllegalAction, match="not an empty station tile"):
        act(st, "blue", {"place": "b1", "on": label})
    with pytest.raises(IllegalAction, match="not an empty station tile"):
        act(st, "blue", {"place": "b1", "on": "G6"})


def test_pods_go_next_to_the_station_but_not_with_a_queen_or_another_pod():
    st = setup(("red", "blue"))
    spots = [c.cell for c in st.tiles.values()]
    rules = GAME.rules_for(st)
    n = 0
    while st.phase == "setup-place":
        player = GAME.pending(st)[0].player
        act(st, player, GAME.legal_actions(st, player)[0])
        n += 1
    assert n == 20 and st.phase == "setup-boat"          # one colour each: 10 + 10 crew
    legal = GAME.legal_actions(st, "red")
    assert legal and all(set(a) == {"pod", "at"} for a in legal)
    at = {a["at"] for a in legal}
    assert "G6" not in at and "B2" not in at                      # Queens there
    assert all(any(n in spots for n in rules.board.neighbours[rules.board.index[s]]) for s in at)
    act(st, "red", {"pod": "P1", "at": "F2"})
    with pytest.raises(IllegalAction, match="not a free"):
        act(st, "blue", {"pod": "P3", "at": "F2"})
    assert "F2" not in {a["at"] for a in GAME.legal_actions(st, "blue")}


def test_after_the_pods_the_first_player_begins_and_the_roll_is_derived_from_the_draws():
    st = setup(("red", "blue"))
    events = []
    while st.phase != "play":
        player = GAME.pending(st)[0].player
        events += act(st, player, GAME.legal_actions(st, player)[0])
    assert GAME.pending(st)[0].player == "red" and GAME.pending(st)[0].kind == "move"
    assert "turn" in kinds(events)


def test_set_up_is_deterministic_and_the_draws_are_the_documented_ones():
    a, b = setup(), setup()
    assert GAME.to_position(a) == GAME.to_position(b)
    rng = Rng(b"sa-setup", "x")
    GAME.setup(["red", "blue", "green"], {}, rng)
    labels = list(dict.fromkeys(what for what, _n, _r in rng.draws))
    assert labels == ["station layout", "backs cargo_bay", "backs habitat", "backs bridge", "backs reactor",
                      "values red", "values blue", "values green"]
