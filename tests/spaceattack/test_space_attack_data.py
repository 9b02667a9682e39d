"""The Survive: Space Attack! data (games/space-attack/) obeys its own constraints.

Most of these numbers are substitutes (components.md §5.4, §5.5): nothing checks them against
the real game, so these tests check that they are at least a possible game: 40 tiles on every
map, the tile counts per kind, every effect present, creature and ship tiles within the token
supply, every slot on the board and off the stargates, Jump Points and Queens, and the crew
totals with and without the 5-6 player kit.  The data is read from the installed package.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pbem.base.data import game_data

GAME = "space-attack"
ROWS = "ABCDEFGHIJKLM"
COLOURS = {"green": 6, "red": 9, "blue": 4, "yellow": 4}   # the rulebook's effects per outline colour


def data(name: str) -> Any:
    return game_data(GAME, f"{name}.yaml")


BOARD, MAPS, TILES, COMP = data("board"), data("maps"), data("tiles"), data("components")
CREATURES = COMP["creatures"]["kinds"]
PLAYABLE = {label for row in BOARD["playable"].values() for label in row}


def neighbours(label: str) -> set[str]:
    """The six neighbours of a space in the even-r offset layout (board.yaml), on or off the grid."""
    row, col = ROWS.index(label[0]), int(label[1:]) - 1
    near = [(row, col - 1), (row, col + 1)]
    shift = 0 if row % 2 == 0 else -1
    near += [(row + dr, col + shift + dc) for dr in (-1, 1) for dc in (0, 1)]
    return {f"{ROWS[r]}{c + 1}" for r, c in near if 0 <= r < len(ROWS) and c >= 0}


def slots(station: dict) -> list[str]:
    return [label for row in station["slots"] for label in row]


def stargates(side: str) -> set[str]:
    return {s for jp in BOARD["sides"][side]["jump_points"].values() for s in jp["stargates"]}


def jump_point_cells(side: str) -> set[str]:
    return {jp["cell"] for jp in BOARD["sides"][side]["jump_points"].values()}


def tiles_with(effect: str) -> int:
    return sum(TILES["counts"]["by_effect"][effect].values())


def kit_pods_at_setup() -> int:
    return max(sum(row["pods"]) for row in COMP["players56"]["by_players"].values())


# --- the board --------------------------------------------------------------------------------------
def test_the_grid_is_the_133_space_atlantis_grid_with_13_rows():
    assert len(PLAYABLE) == 133
    assert all(label[0] == row for row, labels in BOARD["playable"].items() for label in labels)
    assert BOARD["label_rows"] == ROWS


@pytest.mark.parametrize("side, count", [("A", 4), ("B", 2)])
def test_each_jump_point_is_off_the_grid_and_touches_exactly_its_two_stargates(side, count):
    jump_points = BOARD["sides"][side]["jump_points"]
    assert len(jump_points) == count
    for name, jp in jump_points.items():
        assert jp["cell"] not in PLAYABLE, f"Jump Point {name} must be a cell of its own, off the grid"
        assert len(jp["stargates"]) == 2 and set(jp["stargates"]) <= PLAYABLE
        assert neighbours(jp["cell"]) & PLAYABLE == set(jp["stargates"]), \
            f"side {side} Jump Point {name} touches other spaces than its stargates"
    assert len(stargates(side)) == 2 * count, "two Jump Points share a stargate"


def test_side_b_jump_points_are_two_of_side_a_corners_far_apart():
    a, b = BOARD["sides"]["A"]["jump_points"], BOARD["sides"]["B"]["jump_points"]
    assert all(a[name] == jp for name, jp in b.items())
    assert set(b) == {"NW", "SE"}   # diagonally opposite
    assert BOARD["sides"]["B"]["source"] == "substitute"


def test_side_a_queen_symbols_are_the_centre_and_one_stargate_of_each_jump_point():
    side = BOARD["sides"]["A"]
    queens = side["queen_symbols"]
    assert queens[0] == "G6" and len(queens) == CREATURES["queen"]["at_setup"]
    for jp in side["jump_points"].values():
        assert len(set(jp["stargates"]) & set(queens)) == 1 and jp["stargates"][0] in queens


# --- the stations --------------------------------------------------------------------------------
def test_there_is_the_standard_station_and_the_three_challenge_maps():
    assert set(MAPS) == {"standard", "starship-titanus", "jacobs-ladder", "asteroids"}
    assert MAPS["starship-titanus"]["side"] == "A"       # "Use the Four Jump Point side"
    assert MAPS["jacobs-ladder"]["side"] == MAPS["asteroids"]["side"] == "B"
    for name in ("starship-titanus", "jacobs-ladder", "asteroids"):
        assert MAPS[name]["source"] == "substitute", f"{name} is invented and must say so"


def test_the_standard_station_is_side_a_printed_station_with_its_queens():
    standard = MAPS["standard"]
    assert standard["side"] == "A" and standard["slots"] == BOARD["sides"]["A"]["station_slots"]
    assert standard["queens"] == BOARD["sides"]["A"]["queen_symbols"]
    assert standard["reactor_slots"] == []
    assert MAPS["starship-titanus"]["queens"] == BOARD["sides"]["A"]["queen_symbols"]


@pytest.mark.parametrize("name", sorted(MAPS))
def test_every_map_has_40_distinct_slots_on_the_grid(name):
    labels = slots(MAPS[name])
    assert len(labels) == sum(TILES["kind_counts"].values()) == 40
    assert len(set(labels)) == 40, f"{name}: a slot is listed twice"
    assert set(labels) <= PLAYABLE, f"{name}: slots off the grid: {sorted(set(labels) - PLAYABLE)}"
    for row in MAPS[name]["slots"]:
        assert len({label[0] for label in row}) == 1, f"{name}: a slot row mixes board rows"


@pytest.mark.parametrize("name", sorted(MAPS))
def test_no_slot_is_on_a_stargate_a_jump_point_or_a_queen(name):
    station = MAPS[name]
    labels = set(slots(station))
    side = station["side"]
    assert not labels & stargates(side), f"{name}: slots on stargates {sorted(labels & stargates(side))}"
    assert not labels & jump_point_cells(side)
    assert not labels & set(station["queens"]), f"{name}: a Queen starts on a station tile"


@pytest.mark.parametrize("name", sorted(MAPS))
def test_every_map_places_its_queens_on_open_spaces_of_the_grid(name):
    queens = MAPS[name]["queens"]
    assert len(queens) == len(set(queens)) == CREATURES["queen"]["at_setup"]
    assert CREATURES["queen"]["at_setup"] <= CREATURES["queen"]["count"]
    assert set(queens) <= PLAYABLE


@pytest.mark.parametrize("name", ["starship-titanus", "jacobs-ladder", "asteroids"])
def test_every_challenge_map_recommends_a_slot_for_each_reactor(name):
    reactors = MAPS[name]["reactor_slots"]
    assert len(reactors) == len(set(reactors)) == TILES["kind_counts"]["reactor"]
    assert set(reactors) <= set(slots(MAPS[name]))


@pytest.mark.parametrize("name", sorted(MAPS))
def test_every_map_has_room_for_all_escape_pods_at_setup_and_a_first_tile_to_remove(name):
    station = MAPS[name]
    labels = set(slots(station))
    # "an Open Space ... adjacent to a Station tile. The chosen space must also not have a Queen"
    pod_spaces = {n for s in labels for n in neighbours(s) & PLAYABLE} - labels - set(station["queens"])
    assert len(pod_spaces) >= COMP["escape_pods"]["count"]
    # "you must choose a tile adjacent to at least one open space"
    assert any(neighbours(s) & PLAYABLE - labels for s in labels)


# --- the tiles -------------------------------------------------------------------------------------
def test_forty_tiles_of_four_kinds_in_removal_order():
    assert TILES["kinds"] == ["cargo_bay", "habitat", "bridge", "reactor"]
    assert TILES["kind_counts"] == {"cargo_bay": 12, "habitat": 12, "bridge": 12, "reactor": 4}


def test_there_are_the_23_effects_of_the_rulebook_by_colour():
    effects = TILES["effects"]
    assert len(effects) == 23
    assert Counter(e["colour"] for e in effects.values()) == COLOURS
    assert set(TILES["colours"]) == set(COLOURS)
    assert all(e["text"].strip() and e["rule"] for e in effects.values())


def test_the_counts_put_every_effect_under_at_least_one_tile_and_fill_every_kind_exactly():
    by_effect = TILES["counts"]["by_effect"]
    assert TILES["counts"]["source"] == "substitute"
    assert set(by_effect) == set(TILES["effects"])
    for effect, per_kind in by_effect.items():
        assert set(per_kind) == set(TILES["kinds"]), f"{effect}: counts for every kind"
        assert all(isinstance(n, int) and n >= 0 for n in per_kind.values())
        assert sum(per_kind.values()) >= 1, f"{effect} is under no tile"
    for kind, count in TILES["kind_counts"].items():
        assert sum(per_kind[kind] for per_kind in by_effect.values()) == count, f"{kind} tiles do not add up"


def test_exactly_one_core_breach_under_a_reactor_as_the_rulebook_says():
    assert TILES["counts"]["by_effect"]["core_breach"] == {"cargo_bay": 0, "habitat": 0, "bridge": 0, "reactor": 1}
    for effect, per_kind in TILES["counts"]["known"].items():
        for kind, n in per_kind.items():
            assert TILES["counts"]["by_effect"][effect][kind] == n


def test_creature_and_ship_tiles_never_ask_for_more_tokens_than_the_supply_holds():
    creatures = CREATURES
    for effect in ("spawn", "warrior"):
        spare = creatures[effect]["count"] - creatures[effect]["at_setup"]
        assert tiles_with(effect) <= spare, f"more {effect} tiles than {effect} tokens"
    assert tiles_with("fighter") <= COMP["fighters"]["count"]
    pods_at_setup = max(4 * COMP["escape_pods"]["per_player"], kit_pods_at_setup())
    assert tiles_with("escape_pod") <= COMP["escape_pods"]["count"] - pods_at_setup


def test_every_effect_names_pieces_that_exist():
    kinds = set(CREATURES)
    for name, effect in TILES["effects"].items():
        assert effect["colour"] in COLOURS
        for key in ("creature",):
            if key in effect:
                assert effect[key] in kinds, name
        for creature in effect.get("creatures", []):
            assert creature in kinds, name
        for source, targets in effect.get("changes", {}).items():
            assert source in kinds and set(targets) <= kinds - {source}, name
        if "ship" in effect:
            assert effect["ship"] in ("escape_pod", "fighter")
    defended = {e["creature"] for e in TILES["effects"].values() if e["rule"] == "defend"}
    assert defended == kinds, "one defence tile per creature kind"


# --- tokens -----------------------------------------------------------------------------------------
def test_forty_crew_in_four_colours_valued_one_to_six():
    crew = COMP["crew"]
    assert crew["colours_in_box"] == len(crew["colours"]) == 4
    assert crew["per_colour"] == len(crew["values"]) == 10
    assert crew["colours_in_box"] * crew["per_colour"] == 40
    assert set(crew["values"]) == set(range(1, 7))
    prefixes = list(crew["colours"].values()) + list(COMP["players56"]["colours"].values())
    assert len(set(prefixes)) == len(prefixes)


@pytest.mark.parametrize("players, total", [(5, 40), (6, 42)])
def test_the_5_6_player_kit_leaves_40_or_42_crew_and_enough_pods(players, total):
    kit = COMP["players56"]["by_players"][players]
    values = list(COMP["crew"]["values"])
    for v in kit["remove_values"]:
        values.remove(v)   # "Place them back in the box": each removed value must be there
    assert len(values) * players == total
    assert len(kit["pods"]) == players and sum(kit["pods"]) <= COMP["escape_pods"]["count"]
    assert len(COMP["crew"]["colours"]) + len(COMP["players56"]["colours"]) >= players
    # more crew than tiles: that many last crew go on occupied tiles
    assert len(kit["final_on_occupied"]) == total - 40


def test_the_creature_die_shows_each_creature_and_only_creatures():
    faces = COMP["creature_die"]["faces"]
    assert len(faces) == 6 and set(faces) == set(CREATURES)
    assert COMP["creature_die"]["source"] == "substitute"
    assert [CREATURES[k]["die_moves"] for k in ("queen", "spawn", "warrior")] == [1, 2, 3]


def test_handles_never_look_like_space_labels():
    prefixes = [c["prefix"] for c in CREATURES.values()]
    prefixes += [COMP["escape_pods"]["prefix"], COMP["fighters"]["prefix"]]
    assert len(set(prefixes)) == len(prefixes)
    assert not any(p in ROWS for p in prefixes)


def test_every_section_says_where_its_numbers_come_from():
    for name, section in COMP.items():
        assert "source" in section, f"components.yaml {name} has no source"
    for name, station in MAPS.items():
        assert "source" in station
    for side in BOARD["sides"].values():
        assert "source" in side
    for section in (COMP, MAPS, BOARD["sides"], {"tiles": TILES, "counts": TILES["counts"]}):
        for value in section.values():
            source = value["source"]
            assert source in ("rulebook", "substitute") or source.startswith("components.md §5")
