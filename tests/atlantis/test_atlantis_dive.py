"""Dolphins & Dive Dice (challenge #6): option ``dolphins=yes``."""
import copy
import json

import pytest
from atlantis_helpers import GAME, Pos, act, kinds, public_events, rng, where

from pbem.core.bots import simulate
from pbem.core.rng import Rng
from pbem.game import OPTION_REFUSALS, IllegalAction, NeedsSecret

DIVE = {"dolphins": "yes"}
DATA = GAME.dive_data()


def dive_rng(creature: str, distance: str) -> Rng:
    """An Rng whose first dive roll shows ``creature`` and ``distance``."""
    first, second = DATA["dive_die_creature"], DATA["dive_die_distance"]
    for i in range(5000):
        probe = Rng(b"atlantis-tests", f"dive{i}")
        if first[probe.randbelow(len(first))] == creature and second[probe.randbelow(len(second))] == distance:
            return Rng(b"atlantis-tests", f"dive{i}")
    raise AssertionError("no seed found")


def dpos(**kw) -> Pos:
    return Pos(options=dict(DIVE, **kw.pop("options", {})), **kw)


def diving(p: Pos, roll: str, player: str = "red") -> Pos:
    """Step 4 with the dive dice showing ``roll`` (e.g. "shark/2")."""
    return p.turn(player=player, step="dive", die=roll)


def protects(p: Pos, dolphin: str, swimmer: str) -> Pos:
    p.p["dolphins"]["protects"][dolphin] = swimmer
    return p


def dests(st, piece: str) -> list[str]:
    return sorted(a["to"] for a in GAME.legal_actions(st, st.turn.player) if a.get("dive") == piece and "to" in a)


# --- the option -----------------------------------------------------------------------------

def test_default_is_the_base_game():
    assert {s.name: s.default for s in GAME.option_specs()}["dolphins"] == "no"
    st = GAME.setup(["red", "blue"], {}, rng("setup"))
    assert not any(c.kind == "dolphin" for c in st.creatures.values())
    assert "dolphins" not in GAME.to_position(st)
    with pytest.raises(OPTION_REFUSALS, match="dolphins"):
        GAME.check_options({"dolphins": "maybe"}, ["red", "blue"])


def test_four_dolphin_tokens_in_the_supply_with_handles_unlike_spaces():
    st = GAME.setup(["red", "blue", "green"], DIVE, rng("setup"))
    dolphins = sorted(h for h, c in st.creatures.items() if c.kind == "dolphin")
    assert dolphins == ["P1", "P2", "P3", "P4"]
    assert all(st.creatures[h].where == "supply" for h in dolphins)
    assert not set(dolphins) & set(GAME.board.labels)


# --- step 3: the dolphin tile ----------------------------------------------------------------

def test_dolphin_tile_is_played_at_once_and_places_a_dolphin():
    p = dpos().island("F3", "F4").tile("F3", "beach", "dolphin").land("r1", "F3").creature("S1", "A3")
    st = p.turn(step="remove-tile").state()
    events = act(st, "red", {"remove": "F3"}, dive_rng("serpent", "1"))
    tile = p.tile_at("F3")
    assert st.tiles[tile].where == "used"                       # "Do NOT keep it in your hand"
    assert {"event": "reveal", "player": "red", "tile": tile, "back": "dolphin"} in public_events(events)
    assert where(st, "P1") == ("sea", "F3")
    assert st.protects == {"P1": "r1"}                          # the one swimmer there is protected
    assert kinds(events)[-1] == "roll" and GAME.pending(st)[0].kind == "dive"


def test_dolphin_tile_among_several_swimmers_the_revealer_chooses_before_the_roll():
    p = dpos().island("F3", "F4").tile("F3", "beach", "dolphin").land("r1", "F3").land("b1", "F3")
    p.creature("K1", "A3")
    st = p.turn(step="remove-tile").state()
    events = act(st, "red", {"remove": "F3"}, Rng.unavailable())   # no roll yet: no secret needed
    assert "roll" not in kinds(events)
    assert GAME.pending(st)[0].kind == "protect" and GAME.pending(st)[0].player == "red"
    assert GAME.legal_actions(st, "red") == [{"protect": "b1"}, {"protect": "r1"}]
    with pytest.raises(IllegalAction):
        act(st, "red", {"protect": "g1"})
    events = act(st, "red", {"protect": "b1"}, dive_rng("shark", "2"))
    assert st.protects == {"P1": "b1"}
    assert kinds(events)[-1] == "roll" and st.turn.die == "shark/2"


def test_dolphin_tile_without_dolphins_option_stays_a_hand_tile():
    p = Pos().island("F3", "F4").tile("F3", "beach", "dolphin")
    st = p.turn(step="remove-tile").state()
    act(st, "red", {"remove": "F3"})
    assert st.tiles[p.tile_at("F3")].where == "hand"


# --- step 4: the dive dice --------------------------------------------------------------------

def test_dive_dice_replace_the_creature_die():
    p = dpos().island("F3", "F4").tile("F3", "beach", "shark").creature("S1", "A3")
    st = p.turn(step="remove-tile").state()
    events = act(st, "red", {"remove": "F3"}, dive_rng("serpent", "3"))
    roll = [e for e in public_events(events) if e["event"] == "roll"][0]
    assert roll["dice"] == ["serpent", "3"] and roll["face"] == "serpent/3"
    assert GAME.pending(st)[0].kind == "dive" and st.turn.step == "dive"
    assert set(DATA["dive_die_creature"]) == {"serpent", "shark", "whale", "dolphin", "boat", "starfish"}
    assert sorted(DATA["dive_die_distance"]) == ["1", "1", "2", "2", "3", "D"]


def test_the_number_is_the_most_sea_spaces():
    st = diving(dpos().island("F3", "F4").creature("K1", "A3"), "shark/1").state()
    assert dests(st, "K1") == ["A4", "B3", "B4"]
    with pytest.raises(IllegalAction):
        act(st, "red", {"dive": "K1", "path": ["A4", "A5"]})
    st = diving(dpos().island("F3", "F4").creature("K1", "A3"), "shark/3").state()
    assert "A6" in dests(st, "K1") and "A7" not in dests(st, "K1")
    act(st, "red", {"dive": "K1", "path": ["A4", "A5", "A6"]})
    assert where(st, "K1") == ("sea", "A6")


def test_a_creature_stops_where_it_can_attack():
    p = dpos().island("F3", "F4").creature("S1", "A3").swim("b1", "A4")
    st = diving(p, "serpent/2").state()                          # a serpent moves up to 2 with a 2
    assert "A5" not in dests(st, "S1") and "B5" in dests(st, "S1")     # A5 only through b1 at A4
    with pytest.raises(IllegalAction, match="must stop"):
        act(st, "red", {"dive": "S1", "path": ["A4", "A5"]})
    act(st, "red", {"dive": "S1", "to": "A4"})
    assert where(st, "b1") == ("lost", None)


def test_d_dives_to_any_unoccupied_sea_space():
    p = dpos().island("F3", "F4").creature("K1", "A3").swim("b1", "L5").boat("B1", "L7")
    st = diving(p, "shark/D").state()
    spots = dests(st, "K1")
    assert "M5" in spots and "L5" not in spots and "L7" not in spots and "A3" not in spots and "F3" not in spots
    with pytest.raises(IllegalAction, match="not an unoccupied"):
        act(st, "red", {"dive": "K1", "to": "L5"})
    with pytest.raises(IllegalAction, match="path"):
        act(st, "red", {"dive": "K1", "path": ["A4"]})
    events = act(st, "red", {"dive": "K1", "to": "M5"})
    assert where(st, "K1") == ("sea", "M5") and "dived" in GAME.describe_event(public_events(events)[0])


def test_starfish_is_wild_and_an_occupied_ship_never_moves():
    p = dpos().island("F3", "F4").creature("S1", "A3").creature("K1", "A5").boat("B1", "B3")
    p.boat("B2", "B5", "r1").creature("P1", "L5")
    st = diving(p, "starfish/1").state()
    pieces = {a["dive"] for a in GAME.legal_actions(st, "red")}
    assert pieces == {"none", "S1", "K1", "B1", "P1"}
    with pytest.raises(IllegalAction, match="never an occupied ship"):
        act(st, "red", {"dive": "B2", "to": "B6"})
    st = diving(p, "boat/2").state()
    assert {a["dive"] for a in GAME.legal_actions(st, "red")} == {"none", "B1"}
    act(st, "red", {"dive": "B1", "path": ["B4", "A4"]})
    assert where(st, "B1") == ("sea", "A4")


def test_nothing_to_move_skips_the_step():
    p = dpos().island("F3", "F4").tile("F3", "beach", "shark")
    st = p.turn(step="remove-tile").state()
    events = act(st, "red", {"remove": "F3"}, dive_rng("whale", "2"))
    assert "no-creature" in kinds(events) and st.turn.player == "blue"


def test_dive_none():
    st = diving(dpos().island("F3", "F4").creature("K1", "A3"), "shark/2").state()
    act(st, "red", {"dive": "none"})
    assert where(st, "K1") == ("sea", "A3") and st.turn.player == "blue"


# --- dolphins protect swimmers -------------------------------------------------------------------

def test_a_protected_swimmer_is_safe_from_sharks_and_serpents():
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").swim("b1", "A4"), "P1", "b1")
    p.creature("K1", "A3").creature("S1", "B4")
    st = diving(p, "shark/2").state()
    assert "A5" in dests(st, "K1")                               # nothing to attack at A4: no stop
    act(st, "red", {"dive": "K1", "to": "A4"})
    assert where(st, "b1") == ("sea", "A4")
    st = diving(p, "serpent/1").state()
    act(st, "red", {"dive": "S1", "to": "A4"})
    assert where(st, "b1") == ("sea", "A4")


def test_a_swimmer_joining_a_free_dolphin_is_safe_even_with_a_shark_there():
    p = dpos().island("F3", "F4").swim("r1", "A3").creature("P1", "A4").creature("K1", "A4")
    st = p.state()
    events = act(st, "red", {"move": "r1", "to": "A4"})
    assert where(st, "r1") == ("sea", "A4") and st.protects == {"P1": "r1"}
    assert "protect" in kinds(events)


def test_a_dolphin_protects_only_one_swimmer():
    p = protects(dpos().island("F3", "F4").swim("r1", "A3").creature("P1", "A4").swim("b1", "A4"), "P1", "b1")
    st = p.creature("K1", "A4").state()
    act(st, "red", {"move": "r1", "to": "A4"})
    assert where(st, "r1") == ("lost", None) and where(st, "b1") == ("sea", "A4")


def test_several_dolphins_each_protect_a_different_swimmer():
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").creature("P2", "A4").swim("b1", "A4"), "P1", "b1")
    st = p.swim("r1", "A3").state()
    act(st, "red", {"move": "r1", "to": "A4"})
    assert st.protects == {"P1": "b1", "P2": "r1"}


def test_a_dolphin_moved_onto_swimmers_protects_one_chosen_by_the_mover():
    p = dpos().island("F3", "F4").creature("P1", "A3").swim("b1", "A4").swim("g1", "A4").swim("b2", "A5")
    st = diving(p, "dolphin/2").state()
    legal = [a for a in GAME.legal_actions(st, "red") if a.get("to") == "A4"]
    assert legal == [{"dive": "P1", "to": "A4", "protect": "b1"}, {"dive": "P1", "to": "A4", "protect": "g1"}]
    with pytest.raises(IllegalAction, match="choose"):
        act(st, "red", {"dive": "P1", "to": "A4"})
    act(st, "red", {"dive": "P1", "to": "A4", "protect": "g1"})
    assert st.protects == {"P1": "g1"}
    st = diving(p, "dolphin/2").state()
    act(st, "red", {"dive": "P1", "to": "A5"})                    # one swimmer: no choice needed
    assert st.protects == {"P1": "b2"}


def test_moving_the_dolphin_away_exposes_its_swimmer():
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").swim("b1", "A4").creature("K1", "A4"), "P1", "b1")
    st = diving(p, "dolphin/1").state()
    act(st, "red", {"dive": "P1", "to": "A5"})
    assert where(st, "b1") == ("lost", None) and where(st, "P1") == ("sea", "A5") and st.protects == {}
    st = diving(p.copy(), "dolphin/D").state()                    # a dive away does the same
    act(st, "red", {"dive": "P1", "to": "M5"})
    assert where(st, "b1") == ("lost", None)


def test_switching_protection_to_another_swimmer_in_the_space():
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").swim("b1", "A4").swim("g1", "A4"), "P1", "b1")
    st = diving(p.copy().creature("K1", "A4"), "starfish/3").state()
    assert {"dive": "P1", "protect": "g1"} in GAME.legal_actions(st, "red")
    with pytest.raises(IllegalAction):
        act(st, "red", {"dive": "P1", "protect": "b1"})          # already its swimmer
    act(st, "red", {"dive": "P1", "protect": "g1"})
    assert st.protects == {"P1": "g1"} and where(st, "b1") == ("lost", None)   # the shark takes b1


def test_a_protected_swimmer_takes_its_dolphin_along():
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").swim("r1", "A4"), "P1", "r1").creature("K1", "A5")
    st = p.state()
    legal = GAME.legal_actions(st, "red")
    assert {"move": "r1", "to": "A5", "dolphin": True} in legal and {"move": "r1", "to": "A5"} in legal
    events = act(st, "red", {"move": "r1", "to": "A5", "dolphin": True})
    assert where(st, "P1") == ("sea", "A5") and where(st, "r1") == ("sea", "A5") and st.protects == {"P1": "r1"}
    assert kinds(events)[:2] == ["dolphin", "move"]
    st = p.state()                                                # without it: the dolphin stays, r1 is eaten
    act(st, "red", {"move": "r1", "to": "A5"})
    assert where(st, "P1") == ("sea", "A4") and where(st, "r1") == ("lost", None) and st.protects == {}


def test_taking_a_dolphin_along_needs_a_protected_swimmer_swimming_one_space():
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").swim("r1", "A4"), "P1", "r1").swim("r2", "A3")
    st = p.boat("B1", "A4").state()
    with pytest.raises(IllegalAction, match="not one"):
        act(st, "red", {"move": "r2", "to": "A4", "dolphin": True})
    with pytest.raises(IllegalAction, match="swims to another sea space"):
        act(st, "red", {"move": "r1", "to": "A4", "dolphin": True})   # boarding the ship
    act(st, "red", {"move": "r1", "to": "A4"})                        # boards: protection ends
    assert where(st, "r1") == ("boat", "B1") and st.protects == {}
    st = Pos().island("F3", "F4").swim("r1", "A4").state()
    with pytest.raises(IllegalAction, match="dolphins=no"):
        act(st, "red", {"move": "r1", "to": "A5", "dolphin": True})


def test_a_protected_swimmer_that_swam_with_its_dolphin_cannot_board_a_ship_there():
    """"only one sea space per turn as per the rules on moving Swimmers": swimming along with the
    dolphin is the swimmer's one sea movement, so it cannot also board the ship it reached."""
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").swim("r1", "A4"), "P1", "r1")
    st = p.boat("B1", "A5").state()
    act(st, "red", {"move": "r1", "to": "A5", "dolphin": True})
    assert where(st, "r1") == ("sea", "A5")
    assert {"move": "r1", "to": "A5"} not in GAME.legal_actions(st, "red")
    with pytest.raises(IllegalAction, match="cannot also board ship B1"):
        act(st, "red", {"move": "r1", "to": "A5"})


def test_whirlpool_removes_dolphins():
    p = protects(dpos().island("F3", "F4").tile("F3", "beach", "whirlpool").creature("P1", "F2"), "P1", "b1")
    st = p.swim("b1", "F2").turn(step="remove-tile").state()
    act(st, "red", {"remove": "F3"}, dive_rng("serpent", "1"))
    assert where(st, "P1") == ("lost", None) and where(st, "b1") == ("lost", None) and st.protects == {}


def test_defense_tiles_still_answer_a_shark_moved_by_the_dive_dice():
    p = dpos().island("F3", "F4").creature("K1", "A3").swim("b1", "A4")
    p.hand("blue", "shark_defense")
    st = diving(p, "shark/2").state()
    events = act(st, "red", {"dive": "K1", "to": "A4"})
    assert "defend" in kinds(events) and where(st, "b1") == ("sea", "A4")


# --- positions, views and texts ----------------------------------------------------------------------

def test_protection_round_trips_and_is_drawn():
    p = protects(dpos().island("F3", "F4").creature("P1", "A4").swim("b1", "A4"), "P1", "b1")
    st = diving(p, "dolphin/2").state()
    pos = GAME.to_position(st)
    assert pos["dolphins"] == {"protects": {"P1": "b1"}, "choosing": None}
    assert GAME.to_position(GAME.from_position(json.loads(json.dumps(pos)))) == pos
    view = GAME.view(st, None)
    pic = GAME.board_picture(view)
    cell = next(c for c in pic.cells if c.label == "A4")
    assert "P1:b1" in cell.marks and "b1" in cell.marks
    assert pic.legend["P1..P4"].startswith("dolphin")
    assert "dive" in GAME.pending(st)[0].prompt and "dolphin and 2" in GAME.pending(st)[0].prompt
    assert "{dive: none}" in GAME.move_template(view, "red")
    assert any("Dive dice" in line for line in GAME.summary(view))
    assert any("protecting b1" in line for line in GAME.summary(view))


def test_move_template_of_earlier_steps_mentions_the_dive_dice():
    st = dpos().island("F3", "F4").swim("r1", "A4").state()
    text = GAME.move_template(GAME.view(st, "red"), "red")
    assert "{dive: K2, to: F4}" in text and "creature:" not in text


def test_a_players_view_stops_with_needs_secret_before_the_dive_roll():
    p = dpos().island("F3", "F4").tile("F3", "beach", "dolphin").land("r1", "F3")
    st = p.turn(step="remove-tile").state()
    mine = GAME.from_position(GAME.view(st, "red"))
    before = GAME.to_position(mine)
    with pytest.raises(NeedsSecret):
        act(mine, "red", {"remove": "F3"}, Rng.unavailable())
    assert GAME.to_position(mine) == before


# --- whole games ------------------------------------------------------------------------------------------

def check_pieces(state, n_explorers, n_creatures):
    assert len(state.explorers) == n_explorers and len(state.creatures) == n_creatures
    assert all(c.where in ("supply", "sea", "lost") for c in state.creatures.values())
    assert sum(len(v) for v in state.creatures_at.values()) == sum(c.where == "sea" for c in state.creatures.values())
    for d, s in state.protects.items():
        assert state.creatures[d].kind == "dolphin" and state.creatures[d].where == "sea"
        assert state.explorers[s].where == "sea" and state.explorers[s].cell == state.creatures[d].cell
    assert len(set(state.protects.values())) == len(state.protects)
    for cell in state.creatures_at:
        assert cell not in state.tile_at


def check_hidden(state):
    view = GAME.view(state, None)
    for e in view["explorers"].values():
        assert e["value"] is None or (state.phase == "over" and e["where"] == "isle")
    for t in view["tiles"].values():
        assert t["where"] == "used" or t["back"] is None


@pytest.mark.parametrize("players", [["red", "blue"], ["ann", "bo", "cy"], ["red", "blue", "green", "yellow"]])
def test_random_games_step_by_step(players):
    """Every decision listed, every piece kept, nothing hidden leaked, positions round-trip, and a
    player's view stops with NeedsSecret (untouched) exactly where the moderator's secret is needed."""
    for i in range(2):
        seed = b"dive%d%d" % (len(players), i)
        state = GAME.setup(players, DIVE, Rng(seed, "setup"))
        n_explorers, n_creatures = len(state.explorers), len(state.creatures)
        assert n_creatures == 16 + 4
        bot = Rng(seed, "bot")
        steps = 0
        while GAME.pending(state):
            player = GAME.pending(state)[0].player
            actions = GAME.legal_actions(state, player)
            action = bot.choice(actions)
            if steps % 5 == 0:
                mine = GAME.from_position(copy.deepcopy(GAME.view(state, player)))
                assert GAME.legal_actions(mine, player) == actions
                before = GAME.to_position(mine)
                try:
                    GAME.apply(mine, player, action, Rng.unavailable())
                except NeedsSecret:
                    assert GAME.to_position(mine) == before
            events = GAME.apply(state, player, action, Rng(seed, f"g/{steps}"))
            assert all("value" not in e.public for e in events)
            check_pieces(state, n_explorers, n_creatures)
            check_hidden(state)
            steps += 1
        assert GAME.result(state) is not None


def test_simulated_games_end():
    for seed in range(6):
        state, steps = simulate(GAME, ["red", "blue", "green"], DIVE, b"dive-sim%d" % seed)
        assert GAME.result(state) is not None and steps > 50
        assert all(e.where in ("isle", "lost") for e in state.explorers.values())
        check_hidden(state)
