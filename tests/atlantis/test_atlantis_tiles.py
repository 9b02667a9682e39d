"""Step 3 (removing tiles, green tiles) and step 1 (red tiles from the hand)."""
import pytest
from atlantis_helpers import GAME, Pos, act, die_rng, kinds, public_events, where

from pbem.game import IllegalAction


def removal(p: Pos, player="red"):
    return p.turn(player=player, step="remove-tile")


def removable(st):
    return sorted(a["remove"] for a in GAME.legal_actions(st, st.turn.player))


def all_terrain(p: Pos, terrain: str) -> Pos:
    for t in p.p["tiles"].values():
        t["terrain"] = terrain
    return p


# --- which tile may be removed -------------------------------------------------------

def test_beach_then_forest_then_mountain():
    p = removal(Pos().island("F3", "F4", "G3"))
    p.tile("F3", "beach", "whale").tile("F4", "forest", "whale").tile("G3", "mountain", "whale")
    st = p.state()
    assert removable(st) == ["F3"]
    with pytest.raises(IllegalAction, match="beach tiles go first"):
        act(st, "red", {"remove": "F4"})
    act(st, "red", {"remove": "F3"}, die_rng("shark"))
    st = p.tile("F3", "beach").island("F4", "G3").state()
    assert removable(st) == ["F4"]
    st = p.island("G3").state()
    assert removable(st) == ["G3"]


def test_tile_must_touch_a_sea_space():
    st = removal(all_terrain(Pos(), "beach")).state()        # the full island, all beach
    spots = removable(st)
    assert "D5" in spots and "F3" in spots
    assert "F5" not in spots                                   # inland
    with pytest.raises(IllegalAction, match="not next to a sea space"):
        act(st, "red", {"remove": "F5"})


def test_a_removed_tile_space_counts_as_sea():
    p = removal(all_terrain(Pos(), "beach"))
    p.p["tiles"][p.tile_at("F4")]["where"] = "used"
    assert "F5" in removable(p.state())


@pytest.mark.parametrize("lagoon, expected", [("sea", True), ("land", False)])
def test_lagoon_option(lagoon, expected):
    st = removal(all_terrain(Pos(options={"lagoon": lagoon}), "beach")).state()
    assert ("G5" in removable(st)) is expected       # G5 touches only G6 among sea spaces


def test_surrounded_beach_goes_last_even_inland():
    p = removal(all_terrain(Pos(), "forest")).tile("F5", "beach")
    st = p.state()
    assert removable(st) == ["F5"]


def test_surrounded_forest_among_mountains():
    p = removal(all_terrain(Pos(), "mountain")).tile("F5", "forest")
    assert removable(p.state()) == ["F5"]


def test_removed_tile_by_handle_and_explorers_fall_into_the_sea():
    p = removal(Pos().island("F3", "F4")).tile("F3", "beach", "whale").tile("F4", "beach")
    p.land("r1", "F3").land("b1", "F3").land("g1", "F4")
    st = p.state()
    events = act(st, "red", {"remove": p.tile_at("F3")}, die_rng("shark"))
    assert public_events(events)[0] == {"event": "remove", "player": "red", "tile": p.tile_at("F3"), "at": "F3",
                                        "terrain": "beach", "swimmers": ["b1", "r1"]}
    assert where(st, "r1") == ("sea", "F3") and where(st, "b1") == ("sea", "F3")
    assert where(st, "g1") == ("land", "F4")


# --- green tiles ------------------------------------------------------------------------

def green(back, *on_tile, extra=None):
    p = removal(Pos().island("F3", "F4")).tile("F3", "beach", back).tile("F4", "forest")
    for h in on_tile:
        p.land(h, "F3")
    if extra:
        extra(p)
    return p


def test_shark_tile_places_a_shark_and_removes_swimmers():
    p = green("shark", "r1", "b1")
    st = p.state()
    events = act(st, "red", {"remove": "F3"}, die_rng("whale"))
    assert where(st, "K1") == ("sea", "F3")
    assert where(st, "r1") == ("lost", None) and where(st, "b1") == ("lost", None)
    reveal = [e for e in events if e.public["event"] == "reveal"][0]
    assert reveal.chance and reveal.public["back"] == "shark"


def test_whale_tile_places_a_whale_and_swimmers_stay():
    st = green("whale", "r1").state()
    act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert where(st, "W1") == ("sea", "F3") and where(st, "r1") == ("sea", "F3")


def test_boat_tile_with_no_swimmers_places_an_empty_ship():
    st = green("boat").state()
    act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert where(st, "B1") == ("sea", "F3")
    assert st.boats["B1"].passengers == []


def test_boat_tile_takes_up_to_three_swimmers_aboard():
    st = green("boat", "r1", "b1", "g1").state()
    act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert sorted(st.boats["B1"].passengers) == ["b1", "g1", "r1"]


def test_boat_tile_with_more_than_three_swimmers_the_revealer_chooses():
    st = green("boat", "r1", "b1", "g1", "b2").state()
    events = act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert "roll" not in kinds(events)
    d = GAME.pending(st)[0]
    assert (d.player, d.kind) == ("red", "choose-boarders")
    legal = GAME.legal_actions(st, "red")
    assert len(legal) == 4 and {"board": ["b1", "b2", "g1"]} in legal
    for bad in ({"board": ["r1", "b1"]}, {"board": ["r1", "b1", "r9"]}, {"board": ["r1", "r1", "b1"]}):
        with pytest.raises(IllegalAction):
            act(st, "red", bad, die_rng("serpent"))
    events = act(st, "red", {"board": ["r1", "b1", "b2"]}, die_rng("serpent"))
    assert sorted(st.boats["B1"].passengers) == ["b1", "b2", "r1"]
    assert where(st, "g1") == ("sea", "F3")
    assert "roll" in kinds(events)


def test_boat_choice_written_ahead_with_the_removal():
    st = green("boat", "r1", "b1", "g1", "b2").state()
    events = act(st, "red", {"remove": "F3", "board": ["r1", "g1", "b2"]}, die_rng("serpent"))
    assert sorted(st.boats["B1"].passengers) == ["b2", "g1", "r1"]
    assert "roll" in kinds(events)
    with pytest.raises(IllegalAction):
        act(green("boat", "r1").state(), "red", {"remove": "F3", "board": ["b1"]})   # b1 not on the tile


def test_whirlpool_clears_the_space_and_adjacent_sea_spaces():
    def extra(p):
        p.swim("b1", "F2").boat("B1", "E2", "r2").creature("K1", "G2").creature("S1", "E3")
        p.creature("W1", "E3").land("g1", "F4").swim("b2", "F1").boat("B2", "D2", "g2")
    st = green("whirlpool", "r1", extra=extra).state()
    act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    for gone in ("r1", "b1", "r2", "B1", "K1", "S1", "W1"):
        assert where(st, gone) == ("lost", None), gone
    assert where(st, "g1") == ("land", "F4")        # on land next to it: safe
    assert where(st, "b2") == ("sea", "F1")         # two spaces away: safe
    assert where(st, "B2") == ("sea", "D2") and where(st, "g2") == ("boat", "B2")


def test_volcano_ends_the_game_and_scores():
    def extra(p):
        p.saved("r1", "B1").saved("b1", "L12").land("g1", "F4").swim("r2", "F2").boat("B1", "E2", "b2")
    p = green("volcano", "g2", extra=extra).tile("F3", "mountain").tile("F4", "mountain")
    st = p.state()
    events = act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert st.phase == "over" and GAME.pending(st) == [] and "roll" not in kinds(events)
    for h in ("g1", "g2", "r2", "b2"):
        assert where(st, h) == ("lost", None)
    res = GAME.result(st)
    r1, b1 = st.explorers["r1"].value, st.explorers["b1"].value
    assert res.scores == {"red": r1, "blue": b1, "green": 0}
    assert res.winners == [p for p, s in res.scores.items() if s == max(res.scores.values())]
    over = [e for e in events if e.public["event"] == "game-over"][0]
    assert over.public["saved"] == {"b1": b1, "r1": r1} and over.chance
    with pytest.raises(IllegalAction, match="over"):
        act(st, "blue", {"done": "move"})


def test_supply_runs_out():
    p = green("shark", "r1")
    for i in range(1, 7):
        p.p["creatures"][f"K{i}"]["where"] = "lost"
    st = p.state()
    events = act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert "supply-empty" in kinds(events) and where(st, "r1") == ("sea", "F3")


# --- red tiles -----------------------------------------------------------------------------

def test_red_tile_goes_to_hand_privately():
    st = green("dolphin").state()
    tile = Pos().tile_at("F3")
    events = act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    to_hand = [e for e in events if e.public["event"] == "to-hand"][0]
    assert to_hand.public == {"event": "to-hand", "player": "red", "tile": tile}
    assert to_hand.private == {"red": {"event": "to-hand", "player": "red", "tile": tile, "back": "dolphin"}}
    assert to_hand.chance
    assert GAME.view(st, None)["tiles"][tile]["back"] is None
    assert GAME.view(st, "blue")["tiles"][tile]["back"] is None
    assert GAME.view(st, "red")["tiles"][tile]["back"] == "dolphin"
    assert GAME.secrets(st, "red")["hand"] == {tile: {"back": "dolphin", "obtained": 5}}
    assert GAME.secrets(st, "blue")["hand"] == {}


def test_hand_tile_is_not_played_on_the_turn_it_was_obtained():
    p = Pos(players=("red", "blue"), options={"colours": "1"}).island("F3", "F4", "G3")
    p.tile("F3", "beach", "wind").tile("F4", "beach", "shark").tile("G3", "forest").land("r1", "G3")
    p.turn(step="remove-tile")
    st = p.state()
    act(st, "red", {"remove": "F3"}, die_rng("serpent"))       # no serpent on board: turn passes
    assert st.turn.player == "blue" and GAME.pending(st)[0].kind == "remove-tile"   # blue: no explorers
    act(st, "blue", {"remove": "F4"}, die_rng("whale"))        # places K1; whale die: none on board
    d = GAME.pending(st)[0]
    assert (d.player, d.kind, st.turn.number) == ("red", "play-tile", 7)


def test_hand_tile_obtained_this_turn_opens_no_tile_step():
    p = Pos().island("F3").land("r1", "F3")
    tile = p.hand("red", "dolphin", obtained=6)
    p.turn(player="green", number=5, step="creature", die="shark")
    st = p.state()
    act(st, "green", {"creature": "none"})
    # red's turn 6 opens at step 2 since the tile was taken "this" turn (6)
    assert st.turn.number == 6 and GAME.pending(st)[0].kind == "move"
    assert tile in GAME.hand(st, "red")


def play_pos(back, **kw):
    p = Pos().island("F3", "F4")
    tile = p.hand("red", back, obtained=2)
    p.turn(step="play-tile")
    return p, tile


def test_dolphin_moves_one_of_your_swimmers_1_to_3_spaces():
    p, tile = play_pos("dolphin")
    p.swim("r1", "F2").swim("b1", "F2").creature("K1", "D2")
    st = p.state()
    legal = GAME.legal_actions(st, "red")
    assert {"play": tile, "swimmer": "r1", "to": "D3"} in legal
    assert not any(a.get("swimmer") == "b1" for a in legal)
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "swimmer": "b1", "to": "F1"})
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "swimmer": "r1", "to": "B3"})             # 4 spaces
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "swimmer": "r1", "path": ["E2", "D2", "C2"]})   # through a shark
    events = act(st, "red", {"play": tile, "swimmer": "r1", "path": ["E2", "D3", "C3"]})
    assert where(st, "r1") == ("sea", "C3")
    assert public_events(events)[0] == {"event": "play", "player": "red", "tile": tile, "back": "dolphin"}
    assert GAME.view(st, None)["tiles"][tile]["back"] == "dolphin"   # played tiles are public
    assert GAME.pending(st)[0].kind == "move"
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "swimmer": "r1", "to": "C2"})             # once per turn


def test_a_swimmer_the_dolphin_tile_carried_next_to_a_ship_may_board_it():
    """The dolphin carries the swimmer; it has not used its own sea movement, so it may board."""
    p, tile = play_pos("dolphin")
    st = p.swim("r1", "F2").boat("B1", "D3").state()
    act(st, "red", {"play": tile, "swimmer": "r1", "to": "D3"})
    assert where(st, "r1") == ("sea", "D3") and GAME.pending(st)[0].kind == "move"
    assert {"move": "r1", "to": "D3"} in GAME.legal_actions(st, "red")
    act(st, "red", {"move": "r1", "to": "D3"})
    assert where(st, "r1") == ("boat", "B1")


def test_dolphin_into_a_shark_space_loses_the_swimmer():
    p, tile = play_pos("dolphin")
    st = p.swim("r1", "F2").creature("K1", "D2").state()
    act(st, "red", {"play": tile, "swimmer": "r1", "to": "D2"})
    assert where(st, "r1") == ("lost", None)


def test_wind_moves_a_ship_you_control():
    p, tile = play_pos("wind")
    st = p.boat("B1", "F2", "r1").boat("B2", "E1", "b1").state()
    assert not any(a.get("boat") == "B2" for a in GAME.legal_actions(st, "red"))
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "boat": "B2", "to": "D2"})
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "boat": "B1", "to": "E1"})       # occupied by another ship
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "boat": "B1", "to": "A5"})       # too far
    act(st, "red", {"play": tile, "boat": "B1", "to": "C2"})
    assert where(st, "B1") == ("sea", "C2") and where(st, "r1") == ("boat", "B1")


@pytest.mark.parametrize("back, creature", [("move_serpent", "S1"), ("move_shark", "K1"), ("move_whale", "W1")])
def test_move_a_creature_to_any_vacant_sea_space(back, creature):
    p, tile = play_pos(back)
    st = p.creature(creature, "G6").creature("S2", "A5").swim("b1", "A6").boat("B1", "A7").state()
    legal = GAME.legal_actions(st, "red")
    assert {"play": tile, "creature": creature, "to": "M9"} in legal
    for occupied in ("A5", "A6", "A7", "F3", "B1"):
        assert {"play": tile, "creature": creature, "to": occupied} not in legal
        with pytest.raises(IllegalAction):
            act(st, "red", {"play": tile, "creature": creature, "to": occupied})
    wrong = {"move_serpent": "K1", "move_shark": "W1", "move_whale": "S1"}[back]
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "creature": wrong, "to": "M9"})
    act(st, "red", {"play": tile, "creature": creature, "to": "M9"})
    assert where(st, creature) == ("sea", "M9")


def test_play_none_and_defense_tiles_cannot_be_played_in_step_1():
    p, tile = play_pos("shark_defense")
    st = p.land("r1", "F3").state()
    assert GAME.pending(st)[0].kind == "play-tile"      # opened so nobody learns the tile's kind
    assert GAME.legal_actions(st, "red") == [{"play": "none"}]
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile})
    events = act(st, "red", {"play": "none"})
    assert kinds(events) == ["no-play"] and GAME.pending(st)[0].kind == "move"
    assert act(st, "red", {"play": "none"}) == []       # harmless repeat before moving
