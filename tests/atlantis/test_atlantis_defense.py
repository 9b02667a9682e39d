"""Defense tiles, standing orders and reaction windows."""
import pytest
from atlantis_helpers import GAME, Pos, act, kinds, public_events, where

from pbem.game import IllegalAction


def shark_attack(order="auto", **kw):
    p = Pos(options={"defense": order}).island("F3").turn(step="creature", die="shark")
    p.creature("K1", "A3").swim("b1", "A4").swim("r1", "A4")
    tile = p.hand("blue", "shark_defense")
    return p, tile


def whale_attack(order="auto"):
    p = Pos(options={"defense": order}).island("F3").turn(step="creature", die="whale")
    p.creature("W1", "A3").boat("B1", "A4", "b1", "r1", "r2")
    tile = p.hand("blue", "whale_defense")
    return p, tile


def test_shark_defense_auto():
    p, tile = shark_attack("auto")
    st = p.state()
    events = act(st, "red", {"creature": "K1", "to": "A4"})
    assert where(st, "K1") == ("lost", None)
    assert where(st, "b1") == ("sea", "A4") and where(st, "r1") == ("sea", "A4")   # all swimmers remain
    defend = [e for e in events if e.public["event"] == "defend"][0]
    assert defend.auto and "auto" in defend.auto and defend.chance
    assert defend.public == {"event": "defend", "player": "blue", "tile": tile, "back": "shark_defense",
                             "creature": "K1", "at": "A4"}
    assert st.tiles[tile].where == "used"
    assert st.turn.player == "blue"


def test_shark_defense_never():
    p, tile = shark_attack("never")
    st = p.state()
    events = act(st, "red", {"creature": "K1", "to": "A4"})
    assert where(st, "b1") == ("lost", None) and where(st, "K1") == ("sea", "A4")
    attack = [e for e in events if e.public["event"] == "attack"][0]
    assert attack.public == {"event": "attack", "creature": "K1", "at": "A4", "threatened": ["blue"]}
    assert attack.private["blue"]["reason"].endswith("never") and not attack.auto
    assert tile in GAME.hand(st, "blue")


def test_shark_defense_ask_play():
    p, tile = shark_attack("ask")
    st = p.state()
    events = act(st, "red", {"creature": "K1", "to": "A4"})
    assert "defend" not in [e.public["event"] for e in events]
    d = GAME.pending(st)[0]
    assert (d.player, d.kind) == ("blue", "defense") and tile not in d.prompt
    assert GAME.legal_actions(st, "red") == []
    assert GAME.legal_actions(st, "blue") == [{"defend": tile}, {"defend": "none"}]
    with pytest.raises(IllegalAction):
        act(st, "red", {"defend": "none"})
    assert where(st, "b1") == ("sea", "A4")
    act(st, "blue", {"defend": tile})
    assert where(st, "K1") == ("lost", None) and where(st, "b1") == ("sea", "A4")
    assert st.turn.player == "blue" and GAME.pending(st)[0].player == "blue"


def test_shark_defense_ask_decline():
    p, tile = shark_attack("ask")
    st = p.state()
    act(st, "red", {"creature": "K1", "to": "A4"})
    events = act(st, "blue", {"defend": "none"})
    assert where(st, "b1") == ("lost", None) and where(st, "r1") == ("lost", None)
    assert kinds(events)[0] == "no-defense" and st.turn.player == "blue"


def test_standing_order_overrides_the_default():
    p, tile = shark_attack("auto")
    st = p.standing("blue", shark_defense="ask").state()
    act(st, "red", {"creature": "K1", "to": "A4"})
    assert GAME.pending(st)[0].kind == "defense"


@pytest.mark.parametrize("order", ["auto", "never"])
def test_whale_defense(order):
    p, tile = whale_attack(order)
    st = p.state()
    act(st, "red", {"creature": "W1", "to": "A4"})
    if order == "auto":
        assert where(st, "W1") == ("lost", None) and where(st, "B1") == ("sea", "A4")
        assert where(st, "b1") == ("boat", "B1")
    else:
        assert where(st, "B1") == ("lost", None) and where(st, "b1") == ("sea", "A4")


def test_whale_defense_ask():
    p, tile = whale_attack("ask")
    st = p.state()
    act(st, "red", {"creature": "W1", "to": "A4"})
    assert GAME.legal_actions(st, "blue") == [{"defend": tile}, {"defend": "none"}]
    with pytest.raises(IllegalAction):
        act(st, "blue", {"defend": "T1"})
    act(st, "blue", {"defend": tile})
    assert where(st, "B1") == ("sea", "A4") and where(st, "W1") == ("lost", None)


def test_defense_only_in_another_players_turn():
    p = Pos().island("F3").turn(step="creature", die="shark").creature("K1", "A3").swim("r1", "A4")
    tile = p.hand("red", "shark_defense")
    st = p.state()
    act(st, "red", {"creature": "K1", "to": "A4"})
    assert where(st, "r1") == ("lost", None) and tile in GAME.hand(st, "red")


def test_a_shark_defense_tile_does_not_answer_a_whale():
    p = Pos().island("F3").turn(step="creature", die="whale").creature("W1", "A3").boat("B1", "A4", "b1")
    p.hand("blue", "shark_defense")
    st = p.state()
    act(st, "red", {"creature": "W1", "to": "A4"})
    assert where(st, "B1") == ("lost", None)


def test_defenders_in_seat_order_after_the_mover():
    p, tile = shark_attack("auto")
    p.swim("g1", "A4")
    green_tile = p.hand("green", "shark_defense", tile="T39")
    st = p.turn(player="red").state()
    act(st, "red", {"creature": "K1", "to": "A4"})
    assert st.tiles[tile].where == "used" and green_tile in GAME.hand(st, "green")


def test_ask_declined_passes_to_the_next_defender():
    p, tile = shark_attack("auto")
    p.swim("g1", "A4").standing("blue", shark_defense="ask")
    green_tile = p.hand("green", "shark_defense", tile="T39")
    st = p.state()
    act(st, "red", {"creature": "K1", "to": "A4"})
    assert GAME.pending(st)[0].player == "blue"
    events = act(st, "blue", {"defend": "none"})
    assert st.tiles[green_tile].where == "used" and where(st, "b1") == ("sea", "A4")
    assert [e.public["player"] for e in events if e.public["event"] == "defend"] == ["green"]


def test_standing_orders_any_time():
    p, tile = shark_attack("auto")
    st = p.state()
    assert "standing" in GAME.anytime_actions
    events = act(st, "green", {"standing": {"shark_defense": "never", "whale_defense": "ask"}})
    assert public_events(events) == [{"event": "standing", "player": "green"}]
    assert events[0].private["green"]["orders"] == {"shark_defense": "never", "whale_defense": "ask"}
    assert st.standing["green"] == {"shark_defense": "never", "whale_defense": "ask"}
    assert GAME.view(st, None)["players"][2]["standing"] is None
    assert GAME.view(st, "green")["players"][2]["standing"]["whale_defense"] == "ask"
    for bad in ({"standing": {"shark_defense": "sometimes"}}, {"standing": {"squid": "auto"}},
                {"standing": "auto"}):
        with pytest.raises(IllegalAction):
            act(st, "green", bad)
