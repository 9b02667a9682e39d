"""The board, building the island in rings, and setting up the tribes and boats."""
from collections import Counter

import pytest
from atlantis1986_helpers import GAME, Pos, act, rng, where

from pbem.base.data import game_data
from pbem.core.rng import Rng
from pbem.game import IllegalAction
from pbem.rules.atlantis.board import axial_of, offset_of


def distance_from_centre(label: str) -> int:
    q, r = axial_of(*offset_of(label))
    return max(abs(q), abs(r), abs(q + r))


def test_the_island_is_three_rings_round_the_central_peak():
    board = GAME.board
    assert len(board.island_slots) == 37
    for i, (terrain, cells) in enumerate(GAME.rings):
        assert {distance_from_centre(board.labels[c]) for c in cells} == {3 - i}
    assert [(t, len(c)) for t, c in GAME.rings] == [("beach", 18), ("forest", 12), ("mountain", 6), ("mountain", 1)]
    assert board.labels[GAME.rings[-1][1][0]] == "G6"


def test_tile_bottoms_fit_the_rings():
    tiles = game_data("atlantis-1986", "tiles.yaml")
    per_terrain = Counter()
    for terrain, cells in GAME.rings:
        per_terrain[terrain] += len(cells)
    for terrain in tiles["terrains"]:
        assert sum(spec[terrain] for spec in tiles["backs"].values()) == per_terrain[terrain]
    assert all(spec["kind"] == "immediate" for spec in tiles["backs"].values())
    assert sum(spec["mountain"] for b, spec in tiles["backs"].items() if b == "volcano") == 1
    # as many creatures of each kind as tiles that bring them, and enough boats
    comp = GAME.comp
    for kind, spec in comp["creatures"].items():
        assert sum(tiles["backs"][kind][t] for t in tiles["terrains"]) <= spec["count"]
    boat_tiles = sum(tiles["backs"]["boat"][t] for t in tiles["terrains"])
    assert boat_tiles + max(comp["boats"]["start"].values()) <= comp["boats"]["count"]


def test_each_coral_island_has_one_entrance():
    board = GAME.board
    entrances = {board.labels[i]: [board.labels[n] for n in board.neighbours[i]] for i in board.isles}
    assert entrances == {"B1": ["B2"], "B12": ["C11"], "L1": ["K1"], "L12": ["L11"]}


@pytest.mark.parametrize("players, boats", [(["red", "blue"], ["G2", "G10"]),
                                            (["red", "blue", "green"], ["G2", "G10", "C6", "K6"]),
                                            (["red", "blue", "green", "yellow"], ["G2", "G10", "C6", "K6"])])
def test_setup_rings_tribes_and_starting_boats(players, boats):
    st = GAME.setup(players, {}, Rng(b"setup", "s"))
    pos = GAME.to_position(st)
    ring_terrain = {GAME.board.labels[c]: t for t, cells in GAME.rings for c in cells}
    assert all(t["terrain"] == ring_terrain[t["at"]] for t in pos["tiles"].values())
    # bottoms are shuffled within each terrain
    tiles = game_data("atlantis-1986", "tiles.yaml")
    for terrain in tiles["terrains"]:
        got = Counter(t["back"] for t in pos["tiles"].values() if t["terrain"] == terrain)
        assert got == Counter({b: s[terrain] for b, s in tiles["backs"].items() if s[terrain]})
    assert len(pos["explorers"]) == 12 * len(players)
    assert all(e["value"] == 1 and e["where"] == "reserve" for e in pos["explorers"].values())
    assert [p["colours"] for p in pos["players"]] == [[p] for p in players]
    at_sea = sorted((b["at"] for b in pos["boats"].values() if b["where"] == "sea"), key=GAME.board.index.get)
    assert at_sea == sorted(boats, key=GAME.board.index.get)
    assert all(c["where"] == "supply" for c in pos["creatures"].values())
    assert GAME.pending(st)[0].kind == "setup-place"


def test_setup_draws_only_the_tile_bottoms():
    a = GAME.setup(["red", "blue"], {}, Rng(b"one", "s"))
    b = GAME.setup(["red", "blue"], {}, Rng(b"two", "s"))
    pa, pb = GAME.to_position(a), GAME.to_position(b)
    assert pa != pb
    pa["tiles"] = pb["tiles"] = None
    assert pa == pb


def test_one_villager_per_beach_tile_at_setup_any_number_elsewhere():
    st = GAME.setup(["red", "blue"], {}, Rng(b"place", "s"))
    beach, forest = "D5", "E5"
    act(st, "red", {"place": "r1", "on": beach})
    with pytest.raises(IllegalAction, match="D5 is beach and already holds 1 villager"):
        act(st, "blue", {"place": "b1", "on": beach})
    assert {"place": "b1", "on": beach} not in GAME.legal_actions(st, "blue")
    for i in range(5):
        act(st, "blue", {"place": f"b{i + 1}", "on": forest})
        act(st, "red", {"place": f"r{i + 2}", "on": forest})
    assert len(st.on_land(GAME.board.index[forest])) == 10


def test_setup_limit_three_caps_the_other_tiles():
    st = GAME.setup(["red", "blue"], {"setup_limit": "three"}, Rng(b"place", "s"))
    act(st, "red", {"place": "r1", "on": "E5"})
    act(st, "blue", {"place": "b1", "on": "E5"})
    act(st, "red", {"place": "r2", "on": "E5"})
    with pytest.raises(IllegalAction, match="most it may start with"):
        act(st, "blue", {"place": "b2", "on": "E5"})


def test_placed_boats_come_after_the_villagers_last_player_first():
    st = GAME.setup(["red", "blue", "green"], {"start_boats": "placed"}, Rng(b"boats", "s"))
    assert all(b.where != "sea" for b in st.boats.values())
    owners = [b.owner for b in st.boats.values() if b.where == "reserve"]
    assert owners == ["green", "blue", "red", "green"]
    while st.phase == "setup-place":
        p = GAME.pending(st)[0].player
        act(st, p, GAME.legal_actions(st, p)[0])
    assert GAME.pending(st)[0].kind == "setup-boat"
    placed = 0
    while st.phase == "setup-boat":
        p = GAME.pending(st)[0].player
        act(st, p, GAME.legal_actions(st, p)[0])
        placed += 1
    assert placed == 4 and st.phase == "play"
    assert sum(1 for b in st.boats.values() if b.where == "sea") == 4


def test_play_starts_with_the_movement_phase():
    st = GAME.setup(["red", "blue"], {}, Rng(b"start", "s"))
    while st.phase == "setup-place":
        p = GAME.pending(st)[0].player
        act(st, p, GAME.legal_actions(st, p)[0])
    assert st.phase == "play"
    d = GAME.pending(st)[0]
    assert (d.player, d.kind) == ("red", "move")


def test_villagers_have_nothing_hidden_but_tile_bottoms_are():
    st = Pos().land("r1", "D5").state()
    view = GAME.view(st, None)
    assert view["explorers"]["r1"]["value"] == 1
    assert all(t["back"] is None for t in view["tiles"].values() if t["where"] == "island")
    assert GAME.secrets(st, "red") == {}
    assert where(st, "r1") == ("land", "D5")
    assert rng() is not None
