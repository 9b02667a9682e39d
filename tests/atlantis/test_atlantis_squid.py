"""The Giant Squid (options ``squid=yes|replace-whales``, ``squid_take=yes|no``), alone and with the dive dice."""
import itertools
import json

import pytest
from atlantis_helpers import GAME, Pos, act, die_rng, kinds, public_events, where

from pbem.core.bots import simulate
from pbem.core.rng import Rng
from pbem.game import OPTION_REFUSALS, IllegalAction, NeedsSecret
from test_atlantis_dive import check_hidden, check_pieces, dive_rng, diving

SQUID = {"squid": "yes"}


def spos(**options) -> Pos:
    return Pos(options=dict(SQUID, **options))


def whale_tile(p: Pos) -> Pos:
    """F3 (a whale tile) is to be removed; F4 stays land."""
    return p.island("F3", "F4").tile("F3", "beach", "whale").turn(step="remove-tile")


def whale_roll(p: Pos) -> Pos:
    return p.turn(step="creature", die="whale")


def targets(st, piece: str, key: str = "creature") -> list[str]:
    return sorted(a["to"] for a in GAME.legal_actions(st, st.turn.player) if a.get(key) == piece)


# --- the options ----------------------------------------------------------------------------------

def test_defaults_are_the_base_game():
    defaults = {s.name: s.default for s in GAME.option_specs()}
    assert defaults["squid"] == "no" and defaults["squid_take"] == "yes"
    st = GAME.setup(["red", "blue"], {}, Rng(b"sq", "setup"))
    assert not any(c.kind == "squid" for c in st.creatures.values())
    assert "squid" not in GAME.to_position(st)


def test_option_combinations():
    with pytest.raises(OPTION_REFUSALS, match="squid_take=no"):
        GAME.check_options({"squid_take": "no"}, ["red", "blue"])
    with pytest.raises(OPTION_REFUSALS):
        GAME.check_options({"squid": "kraken"}, ["red", "blue"])
    for squid, take, dolphins in itertools.product(("yes", "replace-whales"), ("yes", "no"), ("no", "yes")):
        GAME.check_options({"squid": squid, "squid_take": take, "dolphins": dolphins}, ["red", "blue"])


def test_five_squid_tokens_and_variant_1_removes_the_whales():
    st = GAME.setup(["red", "blue"], SQUID, Rng(b"sq", "setup"))
    squids = sorted(h for h, c in st.creatures.items() if c.kind == "squid")
    assert squids == ["Q1", "Q2", "Q3", "Q4", "Q5"] and not set(squids) & set(GAME.board.labels)
    assert sum(c.kind == "whale" for c in st.creatures.values()) == 5
    st = GAME.setup(["red", "blue"], {"squid": "replace-whales"}, Rng(b"sq", "setup"))
    assert not any(c.kind == "whale" for c in st.creatures.values())
    assert sum(c.kind == "squid" for c in st.creatures.values()) == 5


# --- a squid comes with every whale ------------------------------------------------------------------

def test_a_squid_comes_with_the_whale_next_to_land_before_the_die_is_rolled():
    st = whale_tile(spos()).state()
    events = act(st, "red", {"remove": "F3"}, Rng.unavailable())     # no roll yet
    assert where(st, "W1") == ("sea", "F3") and "roll" not in kinds(events)
    decision = GAME.pending(st)[0]
    assert (decision.player, decision.kind) == ("red", "squid-place") and "Q1" in decision.prompt
    assert GAME.legal_actions(st, "red") == [{"squid": "Q1", "at": s} for s in ("E3", "E4", "F5", "G3", "G4")]
    with pytest.raises(IllegalAction, match="not a vacant sea space next to a land tile"):
        act(st, "red", {"squid": "Q1", "at": "A3"})
    with pytest.raises(IllegalAction, match="not a vacant"):
        act(st, "red", {"squid": "Q1", "at": "F3"})                   # the whale is there
    with pytest.raises(IllegalAction, match="Q1, not Q2"):
        act(st, "red", {"squid": "Q2", "at": "E3"})
    events = act(st, "red", {"squid": "Q1", "at": "E3"}, die_rng("serpent"))
    assert where(st, "Q1") == ("sea", "E3") and kinds(events)[:2] == ["appear", "roll"]


def test_a_squid_placed_next_to_people_must_take_one():
    st = whale_tile(spos().land("r1", "F4")).state()
    act(st, "red", {"remove": "F3"})
    act(st, "red", {"squid": "Q1", "at": "E3"}, die_rng("serpent"))
    assert where(st, "r1") == ("lost", None)
    st = whale_tile(spos().land("r1", "F4").land("b1", "F4")).state()
    act(st, "red", {"remove": "F3"})
    events = act(st, "red", {"squid": "Q1", "at": "E3"}, Rng.unavailable())
    assert "roll" not in kinds(events) and GAME.pending(st)[0].kind == "squid-take"
    assert GAME.legal_actions(st, "red") == [{"take": "b1"}, {"take": "r1"}]
    with pytest.raises(IllegalAction, match="takes one of b1, r1"):
        act(st, "red", {"take": "g1"})
    events = act(st, "red", {"take": "b1"}, die_rng("serpent"))
    assert where(st, "b1") == ("lost", None) and where(st, "r1") == ("land", "F4")
    assert {"event": "lost", "explorers": ["b1"], "at": "F4", "cause": "squid Q1"} in public_events(events)
    assert "roll" in kinds(events)


def test_variant_2_a_placed_squid_takes_nobody():
    st = whale_tile(spos(squid_take="no").land("r1", "F4")).state()
    act(st, "red", {"remove": "F3"})
    act(st, "red", {"squid": "Q1", "at": "E3"}, die_rng("serpent"))
    assert where(st, "r1") == ("land", "F4") and where(st, "Q1") == ("sea", "E3")


def test_variant_1_the_whale_tile_brings_only_a_squid():
    st = whale_tile(Pos(options={"squid": "replace-whales"})).state()
    events = act(st, "red", {"remove": "F3"})
    assert "W1" not in st.creatures and "supply-empty" not in kinds(events)
    assert {"squid": "Q1", "at": "F3"} in GAME.legal_actions(st, "red")   # no whale took the tile's space


def test_no_squid_left_then_the_whale_comes_alone():
    p = whale_tile(spos()).creature("Q1", "A3").creature("Q2", "A4").creature("Q3", "A5").creature("Q4", "A6")
    st = p.creature("Q5", "A7").state()
    events = act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert "supply-empty" in kinds(events) and "roll" in kinds(events)


# --- moving a squid instead of a whale ------------------------------------------------------------------

def test_the_whale_face_may_move_a_squid_up_to_three_spaces_or_leave_it():
    st = whale_roll(spos().island("F3", "F4").creature("Q1", "A3")).state()
    spots = targets(st, "Q1")
    assert "A3" in spots and "A6" in spots and "A7" not in spots
    events = act(st, "red", {"creature": "Q1", "to": "A3"})                 # "not move" is a movement too
    assert where(st, "Q1") == ("sea", "A3") and "leaves giant squid Q1" in GAME.describe_event(events[0].public)


def test_variant_1_the_whale_face_moves_squids():
    p = Pos(options={"squid": "replace-whales"}).island("F3", "F4").creature("Q1", "A3")
    st = whale_roll(p).state()
    assert "A4" in targets(st, "Q1")


def test_squid_movement_ends_next_to_people_at_an_occupied_ship_or_a_whale():
    p = spos().island("F3", "F4").land("r1", "F3").creature("Q1", "C2").boat("B1", "D2", "b1").creature("W1", "B3")
    st = whale_roll(p).state()
    with pytest.raises(IllegalAction, match="must stop at D2"):
        act(st, "red", {"creature": "Q1", "path": ["D2", "E2"]})
    with pytest.raises(IllegalAction, match="must stop at B3"):
        act(st, "red", {"creature": "Q1", "path": ["B3", "B4"]})
    st = whale_roll(p.copy().saved("b1")).state()                          # an empty ship does not stop it
    with pytest.raises(IllegalAction, match="must stop at E2"):
        act(st, "red", {"creature": "Q1", "path": ["D2", "E2", "E3"]})      # E2 touches F3 with r1
    act(st, "red", {"creature": "Q1", "path": ["D2", "E2"]})
    assert where(st, "r1") == ("lost", None)                                # the one person next to it


def test_after_moving_the_squid_eats_a_whale_and_takes_from_the_ship_or_the_land():
    p = spos().island("F3", "F4").land("r1", "F3").boat("B1", "E2", "g1").creature("W1", "E2")
    st = whale_roll(p.creature("Q1", "D2")).state()
    events = act(st, "red", {"creature": "Q1", "to": "E2"})
    assert where(st, "W1") == ("lost", None)
    assert {"event": "creatures-lost", "creatures": ["W1"], "at": "E2", "cause": "squid Q1"} in public_events(events)
    assert GAME.pending(st)[0].kind == "squid-take"
    assert GAME.legal_actions(st, "red") == [{"take": "g1"}, {"take": "r1"}]
    act(st, "red", {"take": "g1"})
    assert where(st, "g1") == ("lost", None) and where(st, "r1") == ("land", "F3")   # either, not both
    assert where(st, "B1") == ("sea", "E2") and st.turn.player == "blue"


def test_a_squid_left_in_place_still_takes():
    st = whale_roll(spos().island("F3", "F4").land("r1", "F3").creature("Q1", "E2")).state()
    act(st, "red", {"creature": "Q1", "to": "E2"})
    assert where(st, "r1") == ("lost", None)


def test_the_move_whale_tile_moves_a_squid_to_any_unoccupied_space():
    p = spos().island("F3", "F4").land("r1", "F3").creature("Q1", "A3").swim("b1", "E3")
    tile = p.hand("red", "move_whale")
    st = p.turn(step="play-tile").state()
    options = [a for a in GAME.legal_actions(st, "red") if a.get("play") == tile]
    assert {"play": tile, "creature": "Q1", "to": "A3"} in options               # it may stay
    assert {"play": tile, "creature": "Q1", "to": "E3"} not in options           # a swimmer is there
    with pytest.raises(IllegalAction, match="unoccupied"):
        act(st, "red", {"play": tile, "creature": "Q1", "to": "E3"})
    act(st, "red", {"play": tile, "creature": "Q1", "to": "E2"})
    assert where(st, "Q1") == ("sea", "E2") and where(st, "r1") == ("lost", None)


def test_a_squid_take_in_step_1_waits_then_the_turn_goes_on():
    p = spos().island("F3", "F4").land("r1", "F3").land("b1", "F3").creature("Q1", "A3").land("r2", "F4")
    tile = p.hand("red", "move_whale")
    st = p.turn(step="play-tile").state()
    act(st, "red", {"play": tile, "creature": "Q1", "to": "E2"})
    assert GAME.pending(st)[0].kind == "squid-take"
    act(st, "red", {"take": "b1"})
    assert GAME.pending(st)[0].kind == "move" and st.turn.player == "red"


# --- whales end squids; ships keep away; whirlpools ------------------------------------------------------

def test_a_whale_entering_a_squid_space_stops_removes_it_and_capsizes_the_ship():
    p = spos().island("F3", "F4").creature("W1", "A3").creature("Q1", "A4").boat("B1", "A4", "b1")
    st = whale_roll(p).state()
    with pytest.raises(IllegalAction, match="must stop at A4"):
        act(st, "red", {"creature": "W1", "path": ["A4", "A5"]})
    events = act(st, "red", {"creature": "W1", "to": "A4"})
    assert where(st, "Q1") == ("lost", None) and where(st, "B1") == ("lost", None)
    assert where(st, "b1") == ("sea", "A4")
    assert {"event": "creatures-lost", "creatures": ["Q1"], "at": "A4", "cause": "whale W1"} in public_events(events)
    st = whale_roll(spos().island("F3", "F4").creature("W1", "A3").creature("Q1", "A4")).state()
    act(st, "red", {"creature": "W1", "to": "A4"})                          # no ship: the squid goes anyway
    assert where(st, "Q1") == ("lost", None) and where(st, "W1") == ("sea", "A4")


def test_an_occupied_ship_may_not_enter_a_squid_space():
    p = spos().island("F3", "F4").creature("Q1", "A4").boat("B1", "A3", "r1").boat("B2", "A5")
    st = p.state()
    legal = GAME.legal_actions(st, "red")
    assert {"move": "B1", "to": "A4"} not in legal and {"move": "B2", "to": "A4"} in legal
    with pytest.raises(IllegalAction, match="giant squid"):
        act(st, "red", {"move": "B1", "to": "A4"})
    act(st, "red", {"move": "B2", "to": "A4"})                              # an empty ship may
    assert where(st, "B2") == ("sea", "A4")
    tile = p.hand("red", "wind")
    st = p.turn(step="play-tile").state()
    assert {"play": tile, "boat": "B1", "to": "A4"} not in GAME.legal_actions(st, "red")
    with pytest.raises(IllegalAction):
        act(st, "red", {"play": tile, "boat": "B1", "to": "A4"})


def test_whirlpools_remove_squids():
    p = spos().island("F3", "F4").tile("F3", "forest", "whirlpool").creature("Q1", "F2").creature("Q2", "F3")
    st = p.turn(step="remove-tile").state()
    act(st, "red", {"remove": "F3"}, die_rng("serpent"))
    assert where(st, "Q1") == ("lost", None)


def test_squids_serpents_sharks_and_dolphins_share_spaces():
    p = Pos(options={"squid": "yes", "dolphins": "yes"}).island("F3", "F4").creature("Q1", "A3")
    p.creature("S1", "A4").creature("K1", "A4").creature("P1", "A4")
    st = diving(p, "whale/1").state()
    act(st, "red", {"dive": "Q1", "to": "A4"})
    assert all(where(st, h) == ("sea", "A4") for h in ("Q1", "S1", "K1", "P1"))


# --- with the dive dice ------------------------------------------------------------------------------------

def test_the_dive_dice_move_a_squid_instead_of_a_whale():
    p = Pos(options={"squid": "yes", "dolphins": "yes"}).island("F3", "F4").land("r1", "F3").creature("Q1", "A3")
    st = diving(p, "whale/D").state()
    assert "E2" in targets(st, "Q1", "dive") and "A3" in targets(st, "Q1", "dive")   # dive, or stay
    act(st, "red", {"dive": "Q1", "to": "E2"})
    assert where(st, "Q1") == ("sea", "E2") and where(st, "r1") == ("lost", None)
    st = diving(p.copy().land("b1", "F3").creature("Q1", "D2"), "whale/1").state()
    act(st, "red", {"dive": "Q1", "to": "E2"})
    assert GAME.pending(st)[0].kind == "squid-take" and st.squid_step.resume == "creature"
    act(st, "red", {"take": "r1"})
    assert where(st, "r1") == ("lost", None) and st.turn.player == "blue"


def test_whale_tile_with_the_dive_dice_rolls_them_after_the_squid():
    p = whale_tile(Pos(options={"squid": "yes", "dolphins": "yes"}))
    st = p.state()
    act(st, "red", {"remove": "F3"}, Rng.unavailable())
    events = act(st, "red", {"squid": "Q1", "at": "E3"}, dive_rng("whale", "1"))
    assert [e for e in public_events(events) if e["event"] == "roll"][0]["dice"] == ["whale", "1"]
    assert GAME.pending(st)[0].kind == "dive"


# --- positions, views, texts ---------------------------------------------------------------------------------

def test_an_open_squid_decision_round_trips_and_is_explained():
    st = whale_tile(spos().land("r1", "F4").land("b1", "F4")).state()
    act(st, "red", {"remove": "F3"})
    pos = GAME.to_position(st)
    assert pos["squid"] == {"kind": "squid-place", "squid": "Q1", "resume": "remove-tile", "roll": True}
    assert GAME.to_position(GAME.from_position(json.loads(json.dumps(pos)))) == pos
    view = GAME.view(st, None)
    assert "{squid: Q1, at: E3}" in GAME.move_template(view, "red")
    act(st, "red", {"squid": "Q1", "at": "E3"})
    view = GAME.view(st, None)
    assert view["squid"]["kind"] == "squid-take"
    assert "{take: b1}" in GAME.move_template(view, "red") and "take" in GAME.pending(st)[0].prompt
    mine = GAME.from_position(GAME.view(st, "red"))
    before = GAME.to_position(mine)
    with pytest.raises(NeedsSecret):                                   # the die comes after the take
        act(mine, "red", {"take": "b1"}, Rng.unavailable())
    assert GAME.to_position(mine) == before
    pic = GAME.board_picture(view)
    assert "Q1" in next(c for c in pic.cells if c.label == "E3").marks and pic.legend["Q1..Q5"] == "giant squid"
    assert "W1..W5" in pic.legend
    pic = GAME.board_picture(GAME.view(GAME.setup(["red", "blue"], {"squid": "replace-whales"},
                                                  Rng(b"sq", "setup")), None))
    assert "W1..W5" not in pic.legend and "Q1..Q5" in pic.legend


# --- whole games ------------------------------------------------------------------------------------------------

COMBOS = [dict(squid=s, squid_take=t, dolphins=d)
          for d in ("no", "yes") for s in ("no", "yes", "replace-whales") for t in ("yes", "no")
          if not (s == "no" and t == "no")]


def creature_count(options) -> int:
    n = 16 + (4 if options["dolphins"] == "yes" else 0)
    if options["squid"] != "no":
        n += 5 - (5 if options["squid"] == "replace-whales" else 0)
    return n


@pytest.mark.parametrize("options", COMBOS, ids=lambda o: "-".join(o.values()))
def test_every_combination_plays_to_the_end(options):
    for seed, players in enumerate((["red", "blue"], ["ann", "bo", "cy"], ["red", "blue", "green", "yellow"])):
        state, steps = simulate(GAME, players, options, b"squid-sim%d" % seed)
        assert GAME.result(state) is not None
        check_pieces(state, 10 * len(state.colours) * len(state.colours[players[0]]), creature_count(options))
        assert all(e.where in ("isle", "lost") for e in state.explorers.values())
        check_hidden(state)


@pytest.mark.parametrize("options", [{"squid": "yes"}, {"squid": "replace-whales", "squid_take": "no", "dolphins": "yes"},
                                     {"squid": "yes", "dolphins": "yes"}])
def test_random_games_step_by_step(options):
    seen = set()
    for i in range(3):
        seed = b"squid-steps%d" % i
        state = GAME.setup(["red", "blue", "green"], options, Rng(seed, "setup"))
        n_explorers, n_creatures = len(state.explorers), len(state.creatures)
        bot = Rng(seed, "bot")
        steps = 0
        while GAME.pending(state):
            decision = GAME.pending(state)[0]
            seen.add(decision.kind)
            actions = GAME.legal_actions(state, decision.player)
            action = bot.choice(actions)
            if decision.kind.startswith("squid"):
                mine = GAME.from_position(GAME.view(state, decision.player))
                assert GAME.legal_actions(mine, decision.player) == actions
                before = GAME.to_position(mine)
                try:
                    GAME.apply(mine, decision.player, action, Rng.unavailable())
                except NeedsSecret:
                    assert GAME.to_position(mine) == before
            events = GAME.apply(state, decision.player, action, Rng(seed, f"g/{steps}"))
            assert all("value" not in e.public for e in events)
            check_pieces(state, n_explorers, n_creatures)
            check_hidden(state)
            steps += 1
        assert GAME.result(state) is not None
    assert "squid-place" in seen
