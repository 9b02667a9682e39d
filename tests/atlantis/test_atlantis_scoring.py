"""Scoring and the end of the game."""
from atlantis_helpers import GAME, Pos, act, die_rng


def volcano(p: Pos):
    p.island("F3").tile("F3", "mountain", "volcano").turn(step="remove-tile")
    st = p.state()
    act(st, st.turn.player, {"remove": "F3"}, die_rng("shark"))
    return st


def test_no_result_before_the_end():
    assert GAME.result(Pos().state()) is None


def test_two_player_two_colour_scores_add_up():
    p = Pos(players=("alice", "bob"), options={"colours": "auto"})
    p.saved("r1", "B1").saved("g2", "L1").saved("b3", "L12").swim("y1", "F2")
    st = volcano(p)
    v = {h: st.explorers[h].value for h in ("r1", "g2", "b3")}
    res = GAME.result(st)
    assert res.scores == {"alice": v["r1"] + v["g2"], "bob": v["b3"]}
    assert res.detail["saved"] == {"alice": ["g2", "r1"], "bob": ["b3"]}
    assert st.explorers["y1"].where == "lost"


def test_points_not_explorer_count_and_ties_share():
    p = Pos(players=("red", "blue"), options={"colours": "1"})
    st = p.state()
    low = [h for h in ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10") if st.explorers[h].value == 1]
    six = [h for h in st.explorers if h.startswith("b") and st.explorers[h].value == 6][0]
    p.saved(low[0]).saved(low[1]).saved(six, "L12")
    res = GAME.result(volcano(p))
    assert res.scores == {"red": 2, "blue": 6} and res.winners == ["blue"]
    p = Pos(players=("red", "blue"), options={"colours": "1"})
    res = GAME.result(volcano(p))
    assert res.scores == {"red": 0, "blue": 0} and res.winners == ["red", "blue"]
