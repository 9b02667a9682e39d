"""Setup: colours, the random island, hidden values, placing explorers and ships."""
from collections import Counter

import pytest
from atlantis_helpers import GAME, act, kinds

from pbem.core.rng import Rng
from pbem.game import OPTION_REFUSALS, IllegalAction


def new(players=("red", "blue", "green"), seed=b"s1", **options):
    return GAME.setup(list(players), options, Rng(seed, "setup"))


def test_setup_is_deterministic_and_seeded():
    assert GAME.to_position(new()) == GAME.to_position(new())
    assert GAME.to_position(new(seed=b"s2")) != GAME.to_position(new())


def test_colours_by_name_and_free_colours():
    st = new(("red", "blue", "green"))
    assert st.colours == {"red": ["red"], "blue": ["blue"], "green": ["green"]}
    st = new(("alice", "yellow", "bob"))
    assert st.colours == {"alice": ["red"], "yellow": ["yellow"], "bob": ["blue"]}


def test_two_players_get_one_colour_by_default_and_two_when_they_decide_on_it():
    """"Each player chooses a color" (the default); "If you're playing with two players, you can
    decide to use two colors for each player" (colours=auto or 2)."""
    st = new(("alice", "bob"))
    assert st.colours == {"alice": ["red"], "bob": ["blue"]}
    assert sum(1 for e in st.explorers.values() if e.owner == "alice") == 10
    for choice in ("auto", "2"):
        two = new(("alice", "bob"), colours=choice)
        assert two.colours == {"alice": ["red", "green"], "bob": ["blue", "yellow"]}
        assert sum(1 for e in two.explorers.values() if e.owner == "alice") == 20
    assert new(("alice", "bob", "carol"), colours="auto").colours == {"alice": ["red"], "bob": ["blue"],
                                                                      "carol": ["green"]}
    assert GAME.full_options({})["colours"] == "1"


def test_bad_player_counts_and_colour_options():
    with pytest.raises(OPTION_REFUSALS):
        GAME.check_options({"colours": "2"}, ["a", "b", "c"])
    with pytest.raises(OPTION_REFUSALS):
        GAME.check_options({}, ["a"])
    with pytest.raises(OPTION_REFUSALS):
        GAME.check_options({}, ["a", "b", "c", "d", "e", "f", "g"])   # 5-6: the 5-6 Players! expansion
    with pytest.raises(OPTION_REFUSALS):
        GAME.check_options({"memory": "maybe"}, ["a", "b"])
    with pytest.raises(OPTION_REFUSALS):
        GAME.check_options({"colour": "1"}, ["a", "b"])


def test_explorer_values_and_handles():
    st = new(("red", "blue", "green", "yellow"))
    for prefix in "rbgy":
        values = sorted(st.explorers[f"{prefix}{i}"].value for i in range(1, 11))
        assert values == [1, 1, 1, 2, 2, 3, 3, 4, 5, 6]
    # the shuffle differs between colours/seeds (not simply 1..10 in order)
    assert [st.explorers[f"r{i}"].value for i in range(1, 11)] != [1, 1, 1, 2, 2, 3, 3, 4, 5, 6]


def test_island_terrain_and_backs():
    st = new()
    assert list(st.tiles) == [f"T{i}" for i in range(1, 41)]
    assert [t.cell for t in st.tiles.values()] == list(GAME.board.island_slots)
    assert Counter(t.terrain for t in st.tiles.values()) == {"beach": 16, "forest": 16, "mountain": 8}
    for terrain in ("beach", "forest", "mountain"):
        backs = Counter(t.back for t in st.tiles.values() if t.terrain == terrain)
        expected = {b: spec[terrain] for b, spec in GAME.tile_backs.items() if spec[terrain]}
        assert backs == expected
    volcano = [t for t in st.tiles.values() if t.back == "volcano"]
    assert len(volcano) == 1 and volcano[0].terrain == "mountain"


def test_layout_fixup_leaves_no_isolated_tile():
    for i in range(5):
        st = new(seed=b"fix%d" % i, layout="fixup")
        layout = [t.terrain for t in st.tiles.values()]
        assert GAME.isolated_slots(layout, st.options) == []


def test_pieces_at_setup():
    st = new(("red", "blue", "green"))
    serpents = {c.handle: GAME.label(c.cell) for c in st.creatures.values() if c.kind == "serpent"}
    assert serpents == {"S1": "G6", "S2": "B2", "S3": "C11", "S4": "K1", "S5": "L11"}
    assert all(c.where == "supply" for c in st.creatures.values() if c.kind != "serpent")
    assert sorted(c.handle for c in st.creatures.values() if c.kind == "shark") == [f"K{i}" for i in range(1, 7)]
    assert sorted(c.handle for c in st.creatures.values() if c.kind == "whale") == [f"W{i}" for i in range(1, 6)]
    reserve = {b.handle: b.owner for b in st.boats.values() if b.where == "reserve"}
    assert reserve == {"B1": "red", "B2": "red", "B3": "blue", "B4": "blue", "B5": "green", "B6": "green"}
    assert sum(1 for b in st.boats.values() if b.where == "supply") == 6
    per_colour = new(("alice", "bob"), boats="per-colour", colours="auto")
    assert sum(1 for b in per_colour.boats.values() if b.where == "reserve") == 8
    assert sum(1 for b in new(("alice", "bob")).boats.values() if b.where == "reserve") == 4
    assert sum(1 for b in new(("alice", "bob"), colours="auto").boats.values() if b.where == "reserve") == 4


def test_placement_in_turn_order_on_empty_tiles_only():
    st = new(("red", "blue"), colours="1")
    assert GAME.pending(st)[0].kind == "setup-place" and GAME.pending(st)[0].player == "red"
    with pytest.raises(IllegalAction):
        act(st, "blue", {"place": "b1", "on": "D5"})          # not blue's turn
    with pytest.raises(IllegalAction):
        act(st, "red", {"place": "b1", "on": "D5"})           # not red's explorer
    with pytest.raises(IllegalAction):
        act(st, "red", {"place": "r1", "on": "G6"})           # the central sea hex is no tile
    act(st, "red", {"place": "r1", "on": "D5"})
    assert GAME.pending(st)[0].player == "blue"
    with pytest.raises(IllegalAction):
        act(st, "blue", {"place": "b1", "on": "D5"})          # tile not empty
    act(st, "blue", {"place": "b1", "on": "D6"})
    with pytest.raises(IllegalAction):
        act(st, "red", {"place": "r1", "on": "D7"})           # already placed
    assert {"place": "r2", "on": "D5"} not in GAME.legal_actions(st, "red")
    assert {"place": "r2", "on": "D7"} in GAME.legal_actions(st, "red")


def place_all(st):
    while GAME.pending(st)[0].kind == "setup-place":
        p = GAME.pending(st)[0].player
        act(st, p, GAME.legal_actions(st, p)[0])


def test_boat_placement_rules_then_play_starts():
    st = new(("red", "blue"), colours="1")
    place_all(st)
    assert st.phase == "setup-boat" and GAME.pending(st)[0].player == "red"
    spots = {a["at"] for a in GAME.legal_actions(st, "red")}
    assert "G6" not in spots          # the central sea serpent
    assert "A3" not in spots          # not next to a terrain tile
    assert "F2" in spots and "E3" in spots
    assert len(spots) == 28
    for bad in ({"boat": "B1", "at": "G6"}, {"boat": "B1", "at": "A3"}, {"boat": "B3", "at": "F2"},
                {"boat": "B1", "at": "F4"}):
        with pytest.raises(IllegalAction):
            act(st, "red", bad)
    act(st, "red", {"boat": "B1", "at": "F2"})
    with pytest.raises(IllegalAction):
        act(st, "blue", {"boat": "B3", "at": "F2"})        # one ship per sea space
    act(st, "blue", {"boat": "B3", "at": "E3"})
    act(st, "red", {"boat": "B2", "at": "C5"})
    events = act(st, "blue", {"boat": "B4", "at": "C6"})
    assert st.phase == "play"
    assert "turn" in kinds(events)
    d = GAME.pending(st)[0]
    assert (d.player, d.kind) == ("red", "move") and st.turn.number == 1


def test_two_colour_placement_alternates_players():
    st = new(("alice", "bob"), colours="auto")
    order = []
    for _ in range(4):
        p = GAME.pending(st)[0].player
        order.append(p)
        act(st, p, GAME.legal_actions(st, p)[-1])
    assert order == ["alice", "bob", "alice", "bob"]
    assert {a["place"][0] for a in GAME.legal_actions(st, "alice")} == {"r", "g"}
