"""THE BOARD: the hex rectangle, the seeded generator and hand-made maps."""
from __future__ import annotations

import collections

import pytest

from pbem.core.bots import simulate
from pbem.core.draws import setup_rng
from pbem.core.playable import check_playable
from pbem.core.rng import Rng
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.game import SpaceSwarmGame
from pbem.rules.spaceswarm.hexmap import HexMap
from pbem.rules.spaceswarm.mapgen import (
    MapError,
    MapSettings,
    display_value,
    generate,
    homes_connected,
    map_text,
    parse_map_text,
)
from pbem.rules.spaceswarm.terrain import SUPER_NOVA, links

GAME = SpaceSwarmGame()
HAZARDS = {"super_nova", "quasar", "black_hole"}


def blank(width: int, height: int) -> HexMap:
    return HexMap(width, height, tuple(["deep_space"] * (width * height)))


def test_spaces_are_named_by_column_letter_and_row_and_odd_rows_shift_right():
    m = blank(4, 3)
    assert m.labels[:5] == ("A1", "B1", "C1", "D1", "A2")
    lab = m.label
    assert [lab(c) for c in m.neighbours(m.index("A1"))] == ["B1", "A2"]
    assert [lab(c) for c in m.neighbours(m.index("B2"))] == ["B1", "C1", "A2", "C2", "B3", "C3"]
    assert m.distance(m.index("A1"), m.index("D3")) == 4
    with pytest.raises(ValueError, match="no space E1 on this 4x3 map"):
        m.index("E1")
    with pytest.raises(ValueError, match="spaces look like C4"):
        m.index("hello")


@pytest.mark.parametrize("players, size", [(2, (8, 8)), (3, (8, 8)), (4, (7, 7)), (5, (9, 7)), (6, (9, 7))])
def test_generated_maps_are_sized_by_player_count_with_homes_forced_to_star_cluster(players, size):
    fixes = MapSettings(home_hazards="reroll", cut_homes="reroll")     # the generator fixes (options)
    for i in range(5):
        board = generate(fixes, players, Rng(b"map" * 8, f"{players}/{i}"))
        m = board.hexmap
        assert (m.width, m.height) == size and len(board.homes) == players
        assert all(m.terrain[h] == "star_cluster" for h in board.homes)
        corners = set(m.corners())
        assert set(board.homes) <= corners if players <= 4 else corners <= set(board.homes)
        assert homes_connected(m, board.homes)
        near = {n for h in board.homes for n in m.neighbours(h)} - set(board.homes)
        assert not any(m.terrain[c] in HAZARDS for c in near)


def test_two_players_start_in_opposite_corners_and_five_take_a_mid_edge():
    two = generate(MapSettings(), 2, Rng(b"m" * 16, "x"))
    assert [two.hexmap.label(h) for h in two.homes] == ["A1", "H8"]
    five = generate(MapSettings(), 5, Rng(b"m" * 16, "x"))
    assert [five.hexmap.label(h) for h in five.homes] == ["A1", "E1", "I1", "I7", "A7"]


def test_the_generator_is_deterministic_per_seed():
    a = generate(MapSettings(), 4, Rng(b"same" * 4, "g"))
    b = generate(MapSettings(), 4, Rng(b"same" * 4, "g"))
    c = generate(MapSettings(), 4, Rng(b"other" * 4, "g"))
    assert a == b and a.hexmap.terrain != c.hexmap.terrain


def test_by_default_every_space_is_rolled_once_as_the_text_says():
    """"Randomly distribute the following terrain types (roll 1D20)": no re-rolls by default, so a
    hazard next to a home stays and a map whose Super Novas cut homes apart is played."""
    assert MapSettings() == MapSettings(home_hazards="keep", cut_homes="allow")
    boards = [generate(MapSettings(), 2, Rng(b"text" * 4, str(i))) for i in range(40)]
    near_hazard = [b for b in boards
                   if any(b.hexmap.terrain[n] in HAZARDS for h in b.homes for n in b.hexmap.neighbours(h))]
    assert near_hazard, "40 maps without a hazard next to a home: are hazards still re-rolled?"
    for b in near_hazard:
        rerolled = generate(MapSettings(home_hazards="reroll"), 2, Rng(b"text" * 4, str(boards.index(b))))
        assert not any(rerolled.hexmap.terrain[n] in HAZARDS for h in rerolled.homes
                       for n in rerolled.hexmap.neighbours(h))


def test_a_map_whose_super_novas_cut_the_homes_apart_starts_a_game_that_ends():
    """With the text's defaults about one map in two hundred walls a home in (cut_homes=allow): the
    playable check accepts its start, and a whole game on it ends (the deck runs out)."""
    game = SpaceSwarmGame()
    seed = b"cut-2-215"
    state = game.setup(["red", "blue"], game.full_options({}), setup_rng(seed, "sim"))
    assert not homes_connected(state.hexmap, list(state.homes.values()))
    check_playable(game, state)
    final, steps = simulate(game, ["red", "blue"], {}, seed, bot="random")
    result = game.result(final)
    assert result is not None and result.detail["victory"] == "deck"
    rerolled = game.setup(["red", "blue"], game.full_options({"cut_homes": "reroll"}), setup_rng(seed, "sim"))
    assert homes_connected(rerolled.hexmap, list(rerolled.homes.values()))


def test_terrain_follows_the_d20_table():
    counts: collections.Counter[str] = collections.Counter()
    for i in range(40):
        counts.update(generate(MapSettings(), 2, Rng(b"dist" * 4, str(i))).hexmap.terrain)
    total = sum(counts.values())
    assert 0.45 < counts["deep_space"] / total < 0.65                 # 11 in 20
    for key in swarm_data().terrains:
        if key not in ("deep_space", "star_cluster"):
            assert 0.02 < counts[key] / total < 0.09, key            # 1 in 20 each


def test_the_half_turn_symmetry_option():
    board = generate(MapSettings(symmetry="half-turn"), 2, Rng(b"sym" * 8, "g"))
    m = board.hexmap
    assert all(m.terrain[c] == m.terrain[m.mirror(c)] for c in m.cells)


def test_the_map_size_option():
    board = generate(MapSettings(size="10x6"), 3, Rng(b"size" * 4, "g"))
    assert (board.hexmap.width, board.hexmap.height) == (10, 6)
    with pytest.raises(MapError, match="write auto or COLUMNSxROWS"):
        generate(MapSettings(size="big"), 3, Rng(b"size" * 4, "g"))
    with pytest.raises(MapError, match="wrong size"):
        generate(MapSettings(size="2x40"), 3, Rng(b"size" * 4, "g"))


def test_worm_holes_link_to_each_other_and_super_novas_cut_maps():
    rows = ["CWS.", "SS..", "..WC"]                   # A1's only way out: the worm hole B1 to C3
    board = parse_map_text(map_text(rows, ["A1", "D3"]), 2)
    m = board.hexmap
    assert m.index("C3") in links(m, m.index("B1")) and m.terrain[m.index("A2")] == SUPER_NOVA
    cut = ["CWS.", "SS..", "...C"]
    with pytest.raises(MapError, match="homes A1 and D3 are cut apart by Super Novas"):
        parse_map_text(map_text(cut, ["A1", "D3"]), 2)


@pytest.mark.parametrize("rows, homes, players, message", [
    (["C...", "....", "...."], ["A1", "D3"], 2, "home D3 is Deep Space; every home must be a Star Cluster (C)"),
    (["C...", "..X.", "...C"], ["A1", "D3"], 2, "unknown terrain 'X' at C2"),
    (["C...", "...", "...C"], ["A1", "D3"], 2, "row 2 has 3 spaces but row 1 has 4"),
    (["C.", "..", ".C"], ["A1", "B3"], 2, "a map of 2x3 is the wrong size"),
    (["C...", "....", "...C"], ["A1"], 2, "1 homes for 2 players"),
    (["C...", "....", "...C"], ["A1", "Z9"], 2, "home there is no space Z9"),
    (["C...", "....", "...C"], ["A1", "A1"], 2, "home A1 is given twice"),
])
def test_a_hand_made_map_that_breaks_the_rules_is_refused_in_one_line(rows, homes, players, message):
    with pytest.raises(MapError) as exc:
        parse_map_text(map_text(rows, homes), players)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_a_hand_made_map_file_is_read_into_the_options(tmp_path):
    path = tmp_path / "duel.yaml"
    path.write_text("rows:\n  - C . R .\n  - . N . .\n  - . . . C\nhomes: [a1, D3]\n")
    options = GAME.resolve_options({"map": str(path)}, ["red", "blue"])
    assert options["map"].startswith("space-swarm-map:") and "row: C . R ." in options["map"]
    GAME.check_options(options, ["red", "blue"])
    assert display_value(options["map"]).startswith("custom (sha256 ")
    state = GAME.setup(["red", "blue"], GAME.full_options(options), Rng(b"x" * 16, "s"))
    assert state.hexmap.label(state.homes["blue"]) == "D3" and state.fleets_at("blue", state.homes["blue"]) == 3
    with pytest.raises(MapError, match="3 homes for 2 players|2 homes for 3 players"):
        GAME.check_options(options, ["red", "blue", "green"])
    with pytest.raises(MapError, match="does not match the hand-made map"):
        GAME.check_options({**options, "size": "8x8"}, ["red", "blue"])
    path.write_text("rows: [C.]\n")
    with pytest.raises(MapError, match="exactly the keys rows and homes"):
        GAME.resolve_options({"map": str(path)}, ["red", "blue"])
    with pytest.raises(MapError, match="no such map file"):
        GAME.resolve_options({"map": str(tmp_path / "missing.yaml")}, ["red", "blue"])
