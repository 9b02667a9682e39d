"""The 5-6 Players! mini-expansion, challenge #5 and the tie-breaks (pbem/rules/atlantis/players56.py)."""
from collections import Counter

import pytest
from atlantis_helpers import GAME, Pos, act, die_rng, kinds, where

from pbem.core.rng import Rng
from pbem.game import IllegalAction, NeedsSecret

FIVE = ["ann", "bo", "cy", "di", "ed"]
SIX = FIVE + ["fay"]


def new(players, seed=b"56", **options):
    return GAME.setup(list(players), options, Rng(seed, "setup"))


def event_of(events, kind):
    return [e.public for e in events if e.public.get("event") == kind]


def values_of(st, colour):
    return sorted(e.value for e in st.explorers.values() if e.colour == colour)


def ships_of(st):
    return {p: [b.handle for b in st.boats.values() if b.owner == p] for p in st.players}


def place_all(st, choose=lambda legal: legal[0]):
    """Finish the explorer placement; returns [(player, explorer, tile label)]."""
    done = []
    while st.phase == "setup-place":
        p = st.turn.player
        a = choose(GAME.legal_actions(st, p))
        act(st, p, a)
        done.append((p, a["place"], a["on"]))
    return done


# --- setup ------------------------------------------------------------------------------------------

def test_five_players_setup():
    st = new(FIVE)
    assert st.colours == {"ann": ["red"], "bo": ["blue"], "cy": ["green"], "di": ["yellow"], "ed": ["orange"]}
    for colour in ("red", "blue", "green", "yellow", "orange"):
        # "removes one "1" point People Token and one "3" point token"
        assert values_of(st, colour) == [1, 1, 2, 2, 3, 4, 5, 6]
    assert [h for h, e in st.explorers.items() if e.colour == "orange"] == [f"o{i}" for i in range(1, 9)]
    # "give him 1 Boat Token. Also give 1 Boat Token to the second player. The third, fourth, and fifth
    # players in playing order each receive 2 Boat Tokens."
    assert ships_of(st) == {"ann": ["B1"], "bo": ["B2"], "cy": ["B3", "B4"], "di": ["B5", "B6"], "ed": ["B7", "B8"]}
    assert [b.handle for b in st.boats.values() if b.where == "supply"] == ["B9", "B10", "B11", "B12"]


def test_six_players_setup():
    st = new(SIX)
    assert st.colours["ed"] == ["orange"] and st.colours["fay"] == ["white"]
    for colour in ("red", "blue", "green", "yellow", "orange", "white"):
        assert values_of(st, colour) == [1, 1, 2, 3, 4, 5, 6]      # "removes one "1", "2", and "3""
    assert [h for h, e in st.explorers.items() if e.colour == "white"] == [f"wh{i}" for i in range(1, 8)]
    assert ships_of(st) == {"ann": ["B1"], "bo": ["B2"], "cy": ["B3"], "di": ["B4"], "ed": ["B5", "B6"],
                            "fay": ["B7", "B8"]}


def test_colour_names_and_handles_do_not_clash():
    st = new(["white", "ann", "orange", "bo", "cy", "di"])
    assert st.colours["white"] == ["white"] and st.colours["orange"] == ["orange"]
    assert st.colours["ann"] == ["red"]
    new_handles = {h.upper() for h, e in st.explorers.items() if e.colour in ("orange", "white")}
    assert new_handles and {h[:1] for h in new_handles} == {"O", "W"}
    # even ignoring case, o1.. and wh1.. are no whale (W1), ship, tile, creature or board label
    assert not new_handles & (set(st.boats) | set(st.tiles) | set(st.creatures) | set(GAME.board.index))


def test_four_players_keep_the_base_setup():
    st = new(FIVE[:4])
    assert all(values_of(st, c) == [1, 1, 1, 2, 2, 3, 3, 4, 5, 6] for c in ("red", "blue", "green", "yellow"))
    assert all(len(v) == 2 for v in ships_of(st).values())


def test_five_players_fill_the_island_exactly():
    st = new(FIVE)
    placed = place_all(st)
    assert len(placed) == 40 and len({on for _, _, on in placed}) == 40
    assert all(len(v) == 1 for v in st.land_at.values())


def test_six_players_final_explorers_of_seats_five_and_six_go_onto_occupied_tiles():
    st = new(SIX)
    placed = []
    while len(placed) < 40:
        p = st.turn.player
        a = GAME.legal_actions(st, p)[0]
        act(st, p, a)
        placed.append(a["on"])
    assert len(set(placed)) == 40                      # seats 1-4 placed their 7th on the last empty tiles
    assert st.turn.player == "ed"
    d = GAME.pending(st)[0]
    assert "occupied tile" in d.prompt
    own = {GAME.label(e.cell) for e in st.explorers.values() if e.colour == "orange" and e.where == "land"}
    legal = {a["on"] for a in GAME.legal_actions(st, "ed")}
    assert legal == set(placed) - own and own
    with pytest.raises(IllegalAction, match="explorer of your colour"):
        act(st, "ed", {"place": GAME.reserve_explorers(st, "ed")[0], "on": sorted(own)[0]})
    target = next(lab for lab in placed
                  if lab not in own and not any(st.explorers[h].colour == "white"
                                                for h in st.land_at[GAME.board.index[lab]]))
    act(st, "ed", {"place": GAME.reserve_explorers(st, "ed")[0], "on": target})
    # the sixth player may even join the tile the fifth just used (nothing in the text forbids it)
    assert target in {a["on"] for a in GAME.legal_actions(st, "fay")}
    act(st, "fay", {"place": GAME.reserve_explorers(st, "fay")[0], "on": target})
    assert len(st.land_at[GAME.board.index[target]]) == 3
    assert st.phase == "setup-boat"


def test_ship_placement_order_with_five_players():
    st = new(FIVE)
    place_all(st)
    order = []
    while st.phase == "setup-boat":
        p = st.turn.player
        act(st, p, GAME.legal_actions(st, p)[0])
        order.append(p)
    # "the first two players will not be able to place a second Boat"
    assert order == ["ann", "bo", "cy", "di", "ed", "cy", "di", "ed"]


def test_picture_legend_names_the_new_colours():
    st = new(SIX)
    legend = GAME.board_picture(GAME.view(st, None)).legend
    assert legend["o1..o7"].startswith("orange explorer") and legend["wh1..wh7"].startswith("white explorer")


# --- challenge #5 setup --------------------------------------------------------------------------------

def test_challenge5_all_ten_tokens_and_two_ships_each():
    st = new(SIX, overpopulated="yes")
    assert all(values_of(st, c) == [1, 1, 1, 2, 2, 3, 3, 4, 5, 6] for c in ("orange", "white"))
    assert all(len(v) == 2 for v in ships_of(st).values())
    assert not [b for b in st.boats.values() if b.where == "supply"]       # all 12 ships go to the players


def test_challenge5_second_explorers_once_the_island_is_full():
    st = new(FIVE, overpopulated="yes")
    for _ in range(40):
        p = st.turn.player
        assert all(not st.land_at.get(GAME.board.index[a["on"]]) for a in GAME.legal_actions(st, p))
        act(st, p, GAME.legal_actions(st, p)[0])
    p = st.turn.player
    assert p == "ann" and "island is full" in GAME.pending(st)[0].prompt
    own = {GAME.label(e.cell) for e in st.explorers.values() if e.owner == p and e.where == "land"}
    legal = {a["on"] for a in GAME.legal_actions(st, p)}
    assert len(legal) == 40 - len(own) and not legal & own
    with pytest.raises(IllegalAction, match="your colour"):
        act(st, p, {"place": GAME.reserve_explorers(st, p)[0], "on": sorted(own)[0]})
    target = sorted(legal)[0]
    act(st, p, {"place": GAME.reserve_explorers(st, p)[0], "on": target})
    q = st.turn.player
    assert target not in {a["on"] for a in GAME.legal_actions(st, q)}       # two already
    with pytest.raises(IllegalAction, match="two explorers"):
        act(st, q, {"place": GAME.reserve_explorers(st, q)[0], "on": target})
    place_all(st)
    counts = Counter(len(v) for v in st.land_at.values())
    assert counts == {1: 30, 2: 10}
    for cell, handles in st.land_at.items():
        assert len({st.explorers[h].owner for h in handles}) == len(handles)


def test_challenge5_with_early_occupied_tile_refused():
    st = new(FIVE, overpopulated="yes")
    act(st, "ann", {"place": "r1", "on": "E6"})
    with pytest.raises(IllegalAction, match="only once the island is full"):
        act(st, "bo", {"place": "b1", "on": "E6"})


# --- challenge #5: the sunk-tile mini-round --------------------------------------------------------------

def sunk_position(back="whale", on_tile=("b1", "o1"), remover="cy"):
    p = Pos(FIVE, options={"overpopulated": "yes"}).island("F3", "F4")
    p.tile("F3", "beach", back).tile("F4", "forest", "whale").turn(player=remover, step="remove-tile")
    for h in on_tile:
        p.land(h, "F3")
    p.swim("o2", "K1")
    return p


def test_sunk_tile_gives_one_point_each_in_turn_order_before_the_die():
    p = sunk_position()
    st = p.state()
    events = act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    assert "roll" not in kinds(events)
    rounds = event_of(events, "sunk-round")
    assert rounds == [{"event": "sunk-round", "tile": p.tile_at("F3"), "at": "F3", "explorers": ["o1", "b1"],
                       "players": ["ed", "bo"]}]                     # turn order from cy: cy, di, ed, ann, bo
    d = GAME.pending(st)[0]
    assert (d.player, d.kind) == ("ed", "sunk-move") and "o1" in d.prompt
    assert GAME.legal_actions(st, "bo") == [] and GAME.legal_actions(st, "cy") == []
    legal = GAME.legal_actions(st, "ed")
    assert legal[0] == {"done": "move"}
    assert {a["to"] for a in legal[1:]} == {"E2", "E3", "F2", "G2", "G3"} and {a["move"] for a in legal[1:]} == {"o1"}
    with pytest.raises(IllegalAction, match="not your decision"):
        act(st, "bo", {"move": "b1", "to": "F2"})
    with pytest.raises(IllegalAction, match="only for your explorer"):
        act(st, "ed", {"move": "o2", "to": "K2"})
    with pytest.raises(IllegalAction, match="only for your explorer"):
        act(st, "ed", {"move": "B1", "to": "F2"})
    with pytest.raises(IllegalAction, match="not next to"):
        act(st, "ed", {"move": "o1", "to": "A3"})
    events = act(st, "ed", {"move": "o1", "to": "F2"}, die_rng("whale"))
    assert where(st, "o1") == ("sea", "F2") and "roll" not in kinds(events)
    assert GAME.pending(st)[0].player == "bo"
    events = act(st, "bo", {"done": "move"}, die_rng("whale"))
    assert kinds(events)[:2] == ["sunk-pass", "roll"]                  # then the current player's die
    assert (st.turn.player, st.turn.step) == ("cy", "creature") and st.sunk is None
    assert where(st, "b1") == ("sea", "F3")


def test_current_player_goes_first_in_the_mini_round():
    st = sunk_position(on_tile=("b1", "g1", "o1")).state()
    act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    assert st.sunk.queue == ["cy", "ed", "bo"]
    act(st, "cy", {"move": "g1", "to": "E3"})
    assert GAME.pending(st)[0].player == "ed"


def test_one_point_per_player_even_with_two_explorers_on_the_tile():
    p = sunk_position(on_tile=("b1", "b2"))
    st = p.state()
    act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    assert st.sunk.queue == ["bo"]
    assert {a["move"] for a in GAME.legal_actions(st, "bo")[1:]} == {"b1", "b2"}
    events = act(st, "bo", {"move": "b2", "to": "G2"}, die_rng("serpent"))
    assert "roll" in kinds(events) and where(st, "b1") == ("sea", "F3")


def test_shark_tile_first_then_no_point():
    st = sunk_position(back="shark").state()
    events = act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    assert "sunk-round" not in kinds(events) and "roll" in kinds(events)
    assert where(st, "b1") == ("lost", None) and st.sunk is None


def test_boat_tile_first_then_the_point_from_aboard():
    p = sunk_position(back="boat")
    st = p.state()
    events = act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    boat = event_of(events, "appear")[0]["piece"]
    assert sorted(st.boats[boat].passengers) == ["b1", "o1"]
    assert st.sunk.queue == ["ed", "bo"]
    act(st, "ed", {"move": "o1", "to": "F3"})                      # jump overboard into its own space
    assert where(st, "o1") == ("sea", "F3")


def test_hand_tile_then_the_point():
    st = sunk_position(back="dolphin").state()
    events = act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    assert kinds(events)[:3] == ["remove", "to-hand", "sunk-round"]


def test_mini_round_position_round_trip_and_public_view():
    st = sunk_position().state()
    act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    pos = GAME.to_position(st)
    assert pos["sunk"] == {"tile": st.sunk.tile, "explorers": ["b1", "o1"], "queue": ["ed", "bo"]}
    assert GAME.to_position(GAME.from_position(pos)) == pos
    public = GAME.from_position(GAME.view(st, None))
    assert GAME.legal_actions(public, "ed") == GAME.legal_actions(st, "ed")
    assert "{done: move}" in GAME.move_template(GAME.view(st, "ed"), "ed")
    assert "waiting for ed" in GAME.move_template(GAME.view(st, "bo"), "bo")
    assert "one movement point each for ed, bo" in GAME.describe_event(
        {"event": "sunk-round", "tile": "T9", "at": "F3", "explorers": ["o1", "b1"], "players": ["ed", "bo"]})


def test_mini_round_from_a_public_view_stops_before_the_die_untouched():
    st = sunk_position().state()
    act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    public = GAME.from_position(GAME.view(st, None))
    GAME.apply(public, "ed", {"move": "o1", "to": "F2"}, None)   # not the last point: no die needed
    assert where(public, "o1") == ("sea", "F2")
    before = GAME.to_position(public)
    with pytest.raises(NeedsSecret):
        GAME.apply(public, "bo", {"move": "b1", "to": "E3"}, None)
    assert GAME.to_position(public) == before


def test_no_mini_round_without_challenge5():
    p = Pos(FIVE).island("F3", "F4").tile("F3", "beach", "whale").tile("F4", "forest")
    p.land("b1", "F3").turn(player="cy", step="remove-tile")
    st = p.state()
    events = act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    assert "sunk-round" not in kinds(events) and "roll" in kinds(events)


def test_to_the_last_ends_after_the_mini_round_without_a_die_roll():
    p = sunk_position()
    p.p["options"]["end"] = "to-the-last"
    p.p["explorers"]["o2"].update(where="lost", at=None)
    p.creature("K1", "F2")
    st = p.state()
    act(st, "cy", {"remove": "F3"}, die_rng("whale"))
    act(st, "ed", {"move": "o1", "to": "F2"})                 # eaten by the shark
    assert st.phase == "play"
    events = act(st, "bo", {"move": "b1", "to": "F2"}, die_rng("whale"))
    assert st.phase == "over" and "roll" not in kinds(events)
    assert event_of(events, "game-over")[0]["reason"] == "the last explorer has left the board"


# --- challenge #5: ships --------------------------------------------------------------------------------

SEA_RING = ["A3", "A4", "A5", "A6", "A7", "A8", "A9", "B3", "B4", "B5", "B6", "B7"]


def ships_position(free=("B11", "B12"), lost=(), options=None):
    """All 12 ships on the board; those in ``free`` are empty, those in ``lost`` destroyed."""
    p = Pos(FIVE, options={"overpopulated": "yes"} if options is None else options).island("F3", "F4")
    p.tile("F3", "beach", "boat").tile("F4", "forest", "whale").land("b1", "F3").turn(player="ann", step="remove-tile")
    crew = iter([f"r{i}" for i in range(1, 9)] + ["y1", "y2", "y3", "y4"])
    for i, label in enumerate(SEA_RING, start=1):
        boat = f"B{i}"
        if boat in lost:
            p.p["boats"][boat].update(where="lost", at=None)
        elif boat in free:
            p.boat(boat, label)
        else:
            p.boat(boat, label, next(crew))
    return p


def test_empty_supply_revealer_chooses_an_unoccupied_ship():
    st = ships_position().state()
    events = act(st, "ann", {"remove": "F3"}, die_rng("whale"))
    assert event_of(events, "choose-ship") == [{"event": "choose-ship", "player": "ann", "at": "F3",
                                               "ships": ["B11", "B12"]}]
    d = GAME.pending(st)[0]
    assert (d.player, d.kind) == ("ann", "choose-ship") and "F3" in d.prompt
    assert GAME.legal_actions(st, "ann") == [{"boat": "B11", "at": "F3"}, {"boat": "B12", "at": "F3"}]
    with pytest.raises(IllegalAction, match="not an unoccupied ship"):
        act(st, "ann", {"boat": "B1", "at": "F3"})
    with pytest.raises(IllegalAction, match="goes to F3"):
        act(st, "ann", {"boat": "B12", "at": "F2"})
    assert GAME.to_position(GAME.from_position(GAME.to_position(st))) == GAME.to_position(st)
    assert "B11, B12" in GAME.move_template(GAME.view(st, "ann"), "ann")
    events = act(st, "ann", {"boat": "B12", "at": "F3"}, die_rng("whale"))
    assert event_of(events, "ship-taken") == [{"event": "ship-taken", "player": "ann", "boat": "B12",
                                               "from": "B7", "to": "F3"}]
    assert where(st, "B12") == ("sea", "F3") and where(st, "b1") == ("boat", "B12")
    # b1 stood on the tile: bo's one-point mini-round comes next, then ann's die
    assert GAME.pending(st)[0].player == "bo" and GAME.pending(st)[0].kind == "sunk-move"


def test_a_single_unoccupied_ship_is_taken_at_once():
    st = ships_position(free=("B12",)).state()
    events = act(st, "ann", {"remove": "F3"}, die_rng("whale"))
    assert event_of(events, "ship-taken")[0]["boat"] == "B12" and where(st, "b1") == ("boat", "B12")


def test_no_unoccupied_ship_nothing_happens():
    st = ships_position(free=()).state()
    events = act(st, "ann", {"remove": "F3"}, die_rng("whale"))
    assert "supply-empty" in kinds(events) and where(st, "b1") == ("sea", "F3")


def test_destroyed_ships_go_back_to_the_supply_in_challenge5():
    st = ships_position(free=("B11",), lost=("B12",)).state()
    events = act(st, "ann", {"remove": "F3"}, die_rng("whale"))
    assert event_of(events, "appear")[0]["piece"] == "B12" and "ship-taken" not in kinds(events)


def test_without_challenge5_destroyed_ships_stay_out_and_no_ship_is_taken():
    st = ships_position(free=("B11",), lost=("B12",), options={}).state()
    events = act(st, "ann", {"remove": "F3"}, die_rng("whale"))
    assert "supply-empty" in kinds(events) and where(st, "B11") == ("sea", "B6")


# --- winning: the tie-breaks -----------------------------------------------------------------------------

def ending(players=FIVE, saves=(), turn=13, remover="cy", **options):
    """``saves``: (explorer, value); the volcano revealed by ``remover`` in turn ``turn`` ends the game."""
    p = Pos(players, options=options).island("F3").tile("F3", "mountain", "volcano")
    p.turn(player=remover, step="remove-tile", number=turn)
    for h, v in saves:
        p.p["explorers"][h]["value"] = v
        p.saved(h)
    st = p.state()
    events = act(st, remover, {"remove": "F3"}, die_rng("whale"))
    return st, event_of(events, "game-over")[0]


def test_turns_taken():
    st, _ = ending()
    # turn 13 by cy: ann 1, 6, 11; bo 2, 7, 12; cy 3, 8, 13; di 4, 9; ed 5, 10
    assert {p: GAME.turns_taken(st, p) for p in FIVE} == {"ann": 3, "bo": 3, "cy": 3, "di": 2, "ed": 2}


def test_tie_broken_by_fewer_turns():
    st, over = ending(saves=(("r1", 4), ("y1", 4)))
    res = GAME.result(st)
    assert res.scores["ann"] == res.scores["di"] == 4 and res.winners == ["di"]
    assert over["winners"] == ["di"]
    assert over["tiebreak"] == res.detail["tiebreak"] == {"rescued": {"ann": 1, "di": 1},
                                                          "turns": {"ann": 3, "di": 2}}
    assert "tie broken by" in GAME.describe_event(over)


def test_tie_broken_by_more_explorers_rescued():
    st, over = ending(saves=(("r1", 2), ("r2", 2), ("y1", 4)))
    assert GAME.result(st).winners == ["ann"]


def test_all_equal_tie_broken_by_points_then_turns():
    st, _ = ending(saves=(("r1", 1), ("y1", 6)), scoring="all-equal")
    res = GAME.result(st)
    assert res.scores["ann"] == res.scores["di"] == 1 and res.winners == ["di"]
    assert res.detail["tiebreak"]["points"] == {"ann": 1, "di": 6}
    st, _ = ending(saves=(("r1", 6), ("y1", 6)), scoring="all-equal")
    assert GAME.result(st).winners == ["di"]


def test_still_tied_shared_victory():
    st, _ = ending(saves=(("y1", 4), ("o1", 4)))
    assert GAME.result(st).winners == ["di", "ed"]


def test_no_tie_no_tiebreak_detail():
    st, over = ending(saves=(("y1", 4), ("o1", 3)))
    assert GAME.result(st).winners == ["di"] and "tiebreak" not in over
    assert "tiebreak" not in GAME.result(st).detail


@pytest.mark.parametrize("ties, winners", [("auto", ["red", "green"]), ("shared", ["red", "green"]),
                                           ("broken", ["green"])])
def test_tie_break_option_in_a_three_player_game(ties, winners):
    st, _ = ending(("red", "blue", "green"), saves=(("r1", 4), ("g1", 4)), turn=8, remover="blue", ties=ties)
    # turn 8 by blue: red 1, 4, 7; blue 2, 5, 8; green 3, 6
    assert GAME.result(st).winners == winners


def test_ties_shared_in_a_five_player_game():
    st, over = ending(saves=(("r1", 4), ("y1", 4)), ties="shared")
    assert GAME.result(st).winners == ["ann", "di"] and "tiebreak" not in over


def test_tiebreak_numbers_are_public():
    st, _ = ending(saves=(("r1", 4), ("y1", 4)))
    public = GAME.from_position(GAME.view(st, None))
    assert GAME.result(public).winners == ["di"]


# --- whole games ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players, options", [(SIX, {"overpopulated": "yes"}), (FIVE, {"overpopulated": "yes"}),
                                              (SIX, {}), (FIVE, {"end": "to-the-last"})])
def test_greedy_games_conserve_pieces_and_hide_values(players, options):
    from pbem.core.bots import greedy_action
    state = GAME.setup(players, options, Rng(b"g56", "setup"))
    n = len(state.explorers)
    assert n == len(players) * (10 if options.get("overpopulated") == "yes" else 13 - len(players))
    bot = Rng(b"g56", "bot")
    steps = 0
    while GAME.pending(state):
        player = GAME.pending(state)[0].player
        GAME.apply(state, player, greedy_action(GAME, state, player, bot), Rng(b"g56", f"g/{steps}"))
        steps += 1
        if steps % 5 == 0:
            view = GAME.view(state, None)
            assert all(e["value"] is None or (state.phase == "over" and e["where"] == "isle")
                       for e in view["explorers"].values())
        assert len(state.explorers) == n and len(state.boats) == 12
        assert sorted(b.cell for b in state.boats.values() if b.where == "sea") == sorted(state.boat_at)
    assert GAME.result(state).winners
