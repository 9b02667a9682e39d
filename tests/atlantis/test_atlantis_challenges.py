"""Base-game challenges #1-#4 as options (pbem/rules/atlantis/challenges.py), and random games for
every accepted combination of the challenge and 5-6 player options."""
import itertools

import pytest
from atlantis_helpers import GAME, Pos, act, die_rng, kinds, where

from pbem.core.rng import Rng
from pbem.game import OPTION_REFUSALS, IllegalAction

NEW_DEFAULTS = {"overpopulated": "no", "end": "volcano", "scoring": "values", "ties": "auto"}


def removal(p: Pos, player="red"):
    return p.turn(player=player, step="remove-tile")


def event_of(events, kind):
    return [e.public for e in events if e.public.get("event") == kind]


# --- options ------------------------------------------------------------------------------------

def test_options_and_defaults():
    specs = {s.name: s for s in GAME.option_specs()}
    assert specs["overpopulated"].choices == ("no", "yes")
    assert specs["end"].choices == ("volcano", "to-the-last", "submerged")
    assert specs["scoring"].choices == ("values", "all-equal")
    assert specs["ties"].choices == ("auto", "shared", "broken")
    assert {k: GAME.full_options({})[k] for k in NEW_DEFAULTS} == NEW_DEFAULTS


def test_defaults_are_the_base_game():
    """Spelling the defaults out changes nothing, and base positions carry no variant keys."""
    players = ["red", "blue", "green"]
    plain = GAME.setup(players, {}, Rng(b"d", "setup"))
    spelled = GAME.setup(players, dict(NEW_DEFAULTS), Rng(b"d", "setup"))
    assert GAME.to_position(plain) == GAME.to_position(spelled)
    assert "sunk" not in GAME.to_position(plain) and "ship_choice" not in GAME.to_position(plain)


@pytest.mark.parametrize("options, players, match", [
    ({"end": "to-the-last,submerged"}, 3, "cannot be combined"),
    ({"end": "submerged + to-the-last"}, 4, "cannot be combined"),
    ({"end": "sudden"}, 3, "not one of"),
    ({"overpopulated": "very"}, 3, "not one of"),
    ({"scoring": "equal"}, 3, "not one of"),
    ({"ties": "coin"}, 5, "not one of"),
    ({"boats": "per-colour"}, 5, "5-6 player rules"),
    ({"boats": "per-colour"}, 6, "5-6 player rules"),
    ({"colours": "2"}, 5, "needs 10 colours"),
    ({"colours": "2"}, 3, "needs 6 colours; there are 4"),     # orange and white are for 5-6 players only
    ({}, 7, "2-6 players"),
])
def test_refused_options(options, players, match):
    names = ["ann", "bo", "cy", "di", "ed", "fay", "gus"][:players]
    with pytest.raises(OPTION_REFUSALS, match=match) as info:
        GAME.check_options(options, names)
    assert "\n" not in str(info.value)


def test_accepted_combinations():
    for n in (2, 3, 4, 5, 6):
        for over, end, scoring, ties in itertools.product(("no", "yes"), ("volcano", "to-the-last", "submerged"),
                                                          ("values", "all-equal"), ("auto", "shared", "broken")):
            GAME.check_options({"overpopulated": over, "end": end, "scoring": scoring, "ties": ties},
                               ["ann", "bo", "cy", "di", "ed", "fay"][:n])


# --- challenge #1: Overpopulated! ------------------------------------------------------------------

def setup_state(players=("red", "blue", "green"), **options):
    return GAME.setup(list(players), options, Rng(b"over", "setup"))


def spots(st):
    return {a["on"] for a in GAME.legal_actions(st, st.turn.player)}


def test_overpopulated_inland_tiles_take_two_explorers():
    st = setup_state(overpopulated="yes")
    act(st, "red", {"place": "r1", "on": "E6"})        # E6: only terrain tiles around it
    assert "E6" in spots(st)
    act(st, "blue", {"place": "b1", "on": "E6"})
    assert "E6" not in spots(st)
    with pytest.raises(IllegalAction, match="E6 is an inland tile and holds 2 explorers"):
        act(st, "green", {"place": "g1", "on": "E6"})


def test_overpopulated_coastal_tiles_take_one():
    st = setup_state(overpopulated="yes")
    act(st, "red", {"place": "r1", "on": "D5"})        # D5 touches the sea
    assert "D5" not in spots(st)
    with pytest.raises(IllegalAction, match="D5 is a coastal tile and holds 1 explorer"):
        act(st, "blue", {"place": "b1", "on": "D5"})


@pytest.mark.parametrize("lagoon, inland", [("sea", False), ("land", True)])
def test_overpopulated_lagoon_counts_as_sea_as_for_removal(lagoon, inland):
    st = setup_state(overpopulated="yes", lagoon=lagoon)
    act(st, "red", {"place": "r1", "on": "F6"})        # F6 touches only the lagoon G6 among sea spaces
    assert ("F6" in spots(st)) is inland


def test_overpopulated_one_player_may_stack_own_explorers_and_setup_completes():
    st = setup_state(("red", "blue"), overpopulated="yes", colours="2")
    act(st, "red", {"place": "r1", "on": "E6"})
    act(st, "blue", {"place": "b1", "on": "D5"})
    act(st, "red", {"place": "g1", "on": "E6"})          # red's second colour on red's tile: allowed
    assert sorted(st.land_at[GAME.board.index["E6"]]) == ["g1", "r1"]
    while st.phase == "setup-place":
        p = st.turn.player
        act(st, p, GAME.legal_actions(st, p)[0])
    assert all(e.where == "land" for e in st.explorers.values())


def test_without_the_option_tiles_take_one_explorer():
    st = setup_state()
    act(st, "red", {"place": "r1", "on": "E6"})
    with pytest.raises(IllegalAction, match="not an empty terrain tile"):
        act(st, "blue", {"place": "b1", "on": "E6"})


# --- challenges #2 and #4: the volcano acts as a whirlpool ---------------------------------------------

def volcano_position(end, **extra_tiles):
    p = removal(Pos(options={"end": end}).island("F3", "F4", "G3"))
    p.tile("F3", "mountain", "volcano").tile("F4", "mountain", "whale").tile("G3", "mountain", "whale")
    p.land("r1", "F3").swim("b1", "F2").boat("B1", "E2", "g2").creature("K1", "G2")
    p.land("g1", "F4").swim("b2", "F1").saved("r3")
    return p


@pytest.mark.parametrize("end", ["to-the-last", "submerged"])
def test_volcano_acts_as_a_whirlpool(end):
    p = volcano_position(end)
    st = p.state()
    events = act(st, "red", {"remove": "F3"}, die_rng("whale"))
    assert st.phase == "play"
    assert event_of(events, "eruption") == [{"event": "eruption", "player": "red", "tile": p.tile_at("F3"),
                                             "at": "F3", "acts_as": "whirlpool"}]
    for gone in ("r1", "b1", "g2", "B1", "K1"):
        assert where(st, gone) == ("lost", None), gone
    assert where(st, "g1") == ("land", "F4") and where(st, "b2") == ("sea", "F1")
    assert "roll" in kinds(events)                     # the game goes on to step 4
    assert "volcano" in GAME.describe_event(event_of(events, "eruption")[0])


def test_base_game_volcano_still_ends_the_game():
    st = volcano_position("volcano").state()
    events = act(st, "red", {"remove": "F3"}, die_rng("whale"))
    assert st.phase == "over" and event_of(events, "game-over")[0]["reason"] == "volcano"
    assert "eruption" not in kinds(events) and "roll" not in kinds(events)


# --- challenge #2: To the last! -----------------------------------------------------------------------

def last_explorer(end="to-the-last"):
    """r1 swims at C1 next to the north-west isle; everybody else is lost or saved."""
    return Pos(options={"end": end}).island("F3", "F4").tile("F3", "beach", "whale").swim("r1", "C1").saved("b1")


def test_to_the_last_ends_when_the_last_explorer_is_saved_mid_step():
    st = last_explorer().state()
    events = act(st, "red", {"move": "r1", "to": "B1"})       # first movement point
    over = event_of(events, "game-over")
    assert st.phase == "over" and over and over[0]["reason"] == "the last explorer has left the board"
    assert GAME.pending(st) == [] and where(st, "r1") == ("isle", "B1")
    assert GAME.result(st).scores["red"] == st.explorers["r1"].value


def test_base_game_does_not_end_when_the_board_is_empty():
    st = last_explorer("volcano").state()
    act(st, "red", {"move": "r1", "to": "B1"})
    assert st.phase == "play"


def test_to_the_last_ends_without_a_die_roll_when_a_shark_takes_the_last_swimmers():
    p = removal(Pos(options={"end": "to-the-last"}).island("F3", "F4"))
    p.tile("F3", "beach", "shark").tile("F4", "forest", "whale").land("r1", "F3").land("b1", "F3")
    st = p.state()
    events = act(st, "red", {"remove": "F3"}, die_rng("shark"))
    assert st.phase == "over" and "roll" not in kinds(events)
    assert event_of(events, "game-over")[0]["reason"] == "the last explorer has left the board"


def test_to_the_last_plays_on_after_the_island_is_gone():
    p = removal(Pos(options={"end": "to-the-last"}).island("F3")).tile("F3", "mountain", "whirlpool")
    p.swim("r1", "K1").swim("b1", "L2")
    st = p.state()
    events = act(st, "red", {"remove": "F3"}, die_rng("whale"))   # the last tile: no whale on the board
    assert st.phase == "play" and not st.tile_at
    assert (st.turn.player, st.turn.step) == ("blue", "move")
    events = act(st, "blue", {"done": "move"}, die_rng("whale"))
    assert {"event": "skip", "player": "blue", "step": "remove-tile", "reason": "no terrain tiles left"} \
        in [e.public for e in events]
    assert st.phase == "play"          # green has no explorers: its turn passes by itself
    assert st.turn.player == "red" and st.turn.step == "move"
    events = act(st, "red", {"move": "r1", "to": "L1"})
    assert st.phase == "play"                                # b1 is still swimming
    act(st, "red", {"done": "move"}, die_rng("whale"))
    events = act(st, "blue", {"move": "b1", "to": "L1"})
    assert st.phase == "over" and event_of(events, "game-over")


# --- challenge #4: Atlantis submerged! ------------------------------------------------------------------

def test_submerged_ends_with_the_last_tile_without_carrying_it_out():
    p = removal(Pos(options={"end": "submerged"}).island("F3")).tile("F3", "beach", "boat")
    p.land("r1", "F3").saved("b1")
    st = p.state()
    tile = p.tile_at("F3")
    events = act(st, "red", {"remove": "F3"}, die_rng("whale"))
    assert st.phase == "over"
    assert event_of(events, "game-over")[0]["reason"] == "the last terrain tile has been removed"
    assert "appear" not in kinds(events) and "roll" not in kinds(events) and "reveal" not in kinds(events)
    assert where(st, "r1") == ("lost", None) and where(st, "B1") == ("supply", None)
    assert st.tiles[tile].where == "used"
    assert GAME.view(st, None)["tiles"][tile]["back"] == "boat"      # out of the game, face up


def test_submerged_volcano_as_the_last_tile_ends_the_game():
    p = removal(Pos(options={"end": "submerged"}).island("F3")).tile("F3", "mountain", "volcano").land("r1", "F3")
    st = p.state()
    events = act(st, "red", {"remove": "F3"}, die_rng("whale"))
    assert st.phase == "over" and "eruption" not in kinds(events)


def test_submerged_goes_on_while_tiles_remain_even_with_no_explorer_left():
    p = removal(Pos(options={"end": "submerged"}).island("F3", "F4")).tile("F3", "beach", "shark")
    p.tile("F4", "beach", "whale").land("r1", "F3")
    st = p.state()
    act(st, "red", {"remove": "F3"}, die_rng("whale"))
    assert where(st, "r1") == ("lost", None) and st.phase == "play"
    assert st.turn.player == "blue"           # moves skipped: no explorers; blue must remove the last tile
    act(st, "blue", {"remove": "F4"}, die_rng("whale"))
    assert st.phase == "over"


# --- challenge #3: All equal! -----------------------------------------------------------------------------

def scored(scoring):
    """red saves r-tokens worth 1+1, blue saves one worth 6; the volcano ends the game."""
    p = removal(Pos(options={"scoring": scoring}).island("F3")).tile("F3", "mountain", "volcano")
    for h, v in (("r1", 1), ("r2", 1), ("b1", 6), ("g1", 5)):
        p.p["explorers"][h]["value"] = v
    p.saved("r1").saved("r2", "B12").saved("b1", "L1").land("g1", "F3")
    st = p.state()
    act(st, "red", {"remove": "F3"}, die_rng("whale"))
    return st


def test_all_equal_counts_explorers():
    res = GAME.result(scored("all-equal"))
    assert res.scores == {"red": 2, "blue": 1, "green": 0} and res.winners == ["red"]


def test_values_scoring_adds_values():
    res = GAME.result(scored("values"))
    assert res.scores == {"red": 2, "blue": 6, "green": 0} and res.winners == ["blue"]


def test_all_equal_public_view_hides_unsaved_values_before_the_end():
    p = Pos(options={"scoring": "all-equal"}).saved("r1").land("b1", "F3")
    view = GAME.view(p.state(), None)
    assert all(e["value"] is None for e in view["explorers"].values())


# --- random games for every accepted option combination --------------------------------------------------

COMBOS = list(itertools.product(("no", "yes"), ("volcano", "to-the-last", "submerged"), ("values", "all-equal"),
                                ("auto", "shared", "broken")))
NAMES = ["ann", "bo", "cy", "di", "ed", "fay"]
COUNTS = (2, 5, 3, 6, 4)


def check_game_step(state, n_explorers, events):
    where_count = {}
    for e in state.explorers.values():
        where_count[e.where] = where_count.get(e.where, 0) + 1
    assert sum(where_count.values()) == n_explorers
    assert len(state.boats) == 12 and len(state.creatures) == 16
    assert sorted(b.cell for b in state.boats.values() if b.where == "sea") == sorted(state.boat_at)
    assert sum(len(b.passengers) for b in state.boats.values()) == where_count.get("boat", 0)
    assert all(len(b.passengers) <= 3 for b in state.boats.values())
    assert sum(len(v) for v in state.sea_at.values()) == where_count.get("sea", 0)
    assert sum(len(v) for v in state.land_at.values()) == where_count.get("land", 0)
    assert all(cell in state.tile_at for cell in state.land_at)
    view = GAME.view(state, None)
    over = state.phase == "over"
    for h, e in view["explorers"].items():
        assert e["value"] is None or (over and e["where"] == "isle"), h
    for ev in events:
        assert "value" not in ev.public
        if ev.public.get("event") != "game-over":
            assert "saved" not in ev.public


@pytest.mark.parametrize("i", range(len(COMBOS)))
def test_random_games_to_the_end(i):
    over, end, scoring, ties = COMBOS[i]
    n = COUNTS[i % len(COUNTS)]
    options = {"overpopulated": over, "end": end, "scoring": scoring, "ties": ties}
    seed = b"combo%d" % i
    state = GAME.setup(NAMES[:n], options, Rng(seed, "setup"))
    n_explorers = len(state.explorers)
    bot = Rng(seed, "bot")
    steps = 0
    while GAME.pending(state):
        player = GAME.pending(state)[0].player
        actions = GAME.legal_actions(state, player)
        assert actions
        events = GAME.apply(state, player, bot.choice(actions), Rng(seed, f"g/{steps}"))
        check_game_step(state, n_explorers, events)
        steps += 1
        assert steps < 20000
    res = GAME.result(state)
    assert res is not None and res.winners
    if end == "submerged":
        assert not state.tile_at
    if end == "to-the-last":
        assert not [e for e in state.explorers.values() if e.where in ("land", "boat", "sea")]
    if scoring == "all-equal":
        assert res.scores == {p: len(res.detail["saved"][p]) for p in NAMES[:n]}
    # round trip of the final position
    assert GAME.to_position(GAME.from_position(GAME.to_position(state))) == GAME.to_position(state)


def test_greedy_games_to_the_last_save_explorers():
    from pbem.core.bots import simulate
    saved = 0
    for n, seed in ((3, b"gr1"), (5, b"gr2"), (6, b"gr3")):
        state, _ = simulate(GAME, NAMES[:n], {"end": "to-the-last", "overpopulated": "yes"}, seed, bot="greedy")
        saved += sum(1 for e in state.explorers.values() if e.where == "isle")
        assert GAME.result(state).winners
    assert saved > 0
