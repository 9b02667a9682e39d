"""Board geometry and component data against components.md sections 1-4."""
from atlantis_helpers import GAME

from pbem.base.data import game_data
from pbem.rules.atlantis.board import axial_of, label_of, offset_of

B = GAME.board

ISLAND_AXIAL = [
    [[0, -3], [1, -3], [2, -3], [3, -3]],
    [[-1, -2], [0, -2], [1, -2], [2, -2], [3, -2]],
    [[-3, -1], [-2, -1], [-1, -1], [0, -1], [1, -1], [2, -1], [3, -1], [4, -1]],
    [[-3, 0], [-2, 0], [-1, 0], [1, 0], [2, 0], [3, 0]],
    [[-4, 1], [-3, 1], [-2, 1], [-1, 1], [0, 1], [1, 1], [2, 1], [3, 1]],
    [[-3, 2], [-2, 2], [-1, 2], [0, 2], [1, 2]],
    [[-3, 3], [-2, 3], [-1, 3], [0, 3]],
]
ROWS_AXIAL = {-6: (0, 6), -5: (-2, 7), -4: (-3, 7), -3: (-3, 6), -2: (-4, 6), -1: (-5, 6), 0: (-5, 5),
              1: (-6, 5), 2: (-6, 4), 3: (-6, 3), 4: (-7, 3), 5: (-7, 2), 6: (-6, 0)}


def test_counts():
    assert B.playable_count == 133
    assert len(B.island_slots) == 40
    assert len(B.isles) == 4
    assert 133 - 40 == 93


def test_playable_rows_match_axial_data():
    cells = {B.axial[i] for i in range(B.playable_count)}
    expected = {(q, r) for r, (lo, hi) in ROWS_AXIAL.items() for q in range(lo, hi + 1)}
    assert cells == expected


def test_island_slots_match_axial_data_in_slot_order():
    assert [list(B.axial[c]) for c in B.island_slots] == [qr for row in ISLAND_AXIAL for qr in row]


def test_labels_and_conversions():
    assert B.labels[B.central] == "G6"
    assert B.axial[B.central] == (0, 0)
    assert label_of(6, 5) == "G6" and offset_of("G6") == (6, 5) and axial_of(6, 5) == (0, 0)
    assert sorted(B.labels[c] for c in B.isles) == ["B1", "B12", "L1", "L12"]
    assert [B.labels[c] for c in B.serpent_starts] == ["G6", "B2", "C11", "K1", "L11"]
    assert [B.axial[c] for c in B.serpent_starts] == [(0, 0), (-2, -5), (7, -4), (-7, 4), (2, 5)]


def test_safe_isles_touch_exactly_two_sea_hexes():
    expected = {"B1": {"B2", "C1"}, "B12": {"C11", "B11"}, "L1": {"K1", "L2"}, "L12": {"L11", "K11"}}
    for cell in B.isles:
        assert {B.labels[n] for n in B.neighbours[cell]} == expected[B.labels[cell]]
        for n in B.neighbours[cell]:
            assert cell in B.isles_next_to[n]
    axial = {B.isle_names[c]: B.axial[c] for c in B.isles}
    assert axial == {"NW": (-3, -5), "NE": (8, -5), "SW": (-8, 5), "SE": (3, 5)}


def test_neighbours_are_axial_neighbours():
    deltas = {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}
    for cell in range(B.playable_count):
        q, r = B.axial[cell]
        for n in B.neighbours[cell]:
            nq, nr = B.axial[n]
            assert (nq - q, nr - r) in deltas
        assert len(B.neighbours[cell]) <= 6


def test_derived_counts():
    slots = set(B.island_slots)
    sea = [c for c in range(B.playable_count) if c not in slots]
    assert len(sea) == 93
    assert sum(1 for c in sea if any(n in slots for n in B.neighbours[c])) == 29
    outer = [s for s in slots if any(n not in slots and n != B.central for n in B.neighbours[s])]
    assert len(outer) == 22
    assert sum(1 for s in slots if B.central in B.neighbours[s]) == 6


def test_tile_data():
    tiles = game_data("atlantis", "tiles.yaml")
    totals = {t: sum(b[t] for b in tiles["backs"].values()) for t in tiles["terrains"]}
    assert totals == {"beach": 16, "forest": 16, "mountain": 8}
    kinds = {k: v["kind"] for k, v in tiles["backs"].items()}
    assert {k for k, v in kinds.items() if v == "immediate"} == {"whale", "shark", "boat", "whirlpool", "volcano"}
    assert {k for k, v in kinds.items() if v == "hand"} == {"dolphin", "wind", "move_serpent", "move_shark",
                                                             "move_whale"}
    assert {k for k, v in kinds.items() if v == "defense"} == {"shark_defense", "whale_defense"}
    assert tiles["backs"]["volcano"]["mountain"] == 1


def test_component_data():
    comp = game_data("atlantis", "components.yaml")
    assert comp["explorer_values"] == [1, 1, 1, 2, 2, 3, 3, 4, 5, 6]
    assert {k: v["count"] for k, v in comp["creatures"].items()} == {"serpent": 5, "shark": 6, "whale": 5}
    assert comp["boats"]["count"] == 12 and comp["boats"]["per_player"] == 2
    assert sorted(comp["creature_die"]) == ["serpent", "serpent", "shark", "shark", "whale", "whale"]
