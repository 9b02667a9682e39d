"""Hidden information, views, the board picture, digest sections and the move template."""
from __future__ import annotations

import pytest
from swarm_helpers import GAME, Pos, act

from pbem.base import yamlio
from pbem.core.engine import check_actions
from pbem.core.rng import Rng
from pbem.game import NeedsSecret

ROWS = ["C R . .",
        ". . N .",
        ". . . C"]


def game_pos() -> Pos:
    pos = (Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 2).stack("blue", "B1", 1)
           .hand("red", "Attack +1", "Defense +2").hand("blue", "Movement +1")
           .tech("blue", "Initiative +1").discarded("Strategic +2").deck("Production +1", "Attack +2", "Defense +1"))
    return pos.turn("red", "develop")


def test_hands_and_the_deck_are_hidden_and_play_is_public():
    pos = game_pos()
    s = pos.state()
    red_a, red_b = pos.cards("red")
    (blue_card,) = pos.cards("blue")
    public = GAME.view(s, None)
    assert public["cards"][red_a] is None and public["cards"][blue_card] is None
    assert all(public["cards"][c] is None for c in public["deck"])
    assert public["cards"][s.tech["blue"][0]] == "Initiative +1" and public["cards"][s.discard[0]] == "Strategic +2"
    assert public["hands"] == {"red": [red_a, red_b], "blue": [blue_card]}          # handles and sizes are public
    red = GAME.view(s, "red")
    assert red["cards"][red_a] == "Attack +1" and red["cards"][blue_card] is None
    assert GAME.secrets(s, "red") == {"hand": {red_a: "Attack +1 (technology)", red_b: "Defense +2 (event)"},
                                      "standing": {"combat": "auto", "bid": "never", "slot": "ask"}}


def test_a_public_copy_checks_a_players_own_turn_until_a_hidden_value_is_needed():
    pos = game_pos()
    s = pos.state()
    copy = GAME.from_position(GAME.view(s, None))
    turn = [{"develop": "none"}, {"produce": "A1"}, {"move": "A1", "path": ["B1"], "fleets": 1},
            {"done": "move"}, {"attack": "all"}]
    applied = check_actions(GAME, copy, "red", turn)
    # B1 holds Alien Ruins: drawing needs the hidden deck
    assert len(applied.actions) == 2 and applied.needs_secret and "hidden" in applied.dropped_reason
    with pytest.raises(NeedsSecret):
        GAME.apply(GAME.from_position(GAME.view(s, None)), "red", {"develop": pos.cards("red")[0]}, Rng.unavailable())


def test_positions_round_trip_and_views_read_back():
    s = game_pos().state()
    pos = GAME.to_position(s)
    assert GAME.to_position(GAME.from_position(pos)) == pos
    public = GAME.view(s, None)
    assert GAME.view(GAME.from_position(public), None) == public
    with pytest.raises(ValueError, match="not a valid space-swarm position"):
        GAME.from_position({**pos, "map": {"width": 4, "height": 3, "rows": ["C ? . ."]}})


def test_the_board_picture_shows_terrain_and_stacks_in_race_colours():
    s = game_pos().state()
    act(s, "red", {"develop": "none"})
    act(s, "red", {"produce": "A1"})
    act(s, "red", {"move": "A1", "path": ["B1"], "fleets": 1})
    board = GAME.board_picture(GAME.view(s, None))
    cells = {c.label: c for c in board.cells}
    assert cells["A1"].kind == "star cluster" and cells["A1"].marks == ["r4"]   # 3 + 2 produced - 1 moved
    assert cells["B1"].kind == "visited ruins" and cells["B1"].marks == ["r1", "b1"]
    assert cells["B1"].mark_colours == ["#d55e00", "#0072b2"]     # Okabe-Ito vermillion and blue
    assert [(p.shape, p.colour, p.text) for p in cells["B1"].pieces] == [("fleet", "#d55e00", "1"),
                                                                          ("fleet", "#0072b2", "1")]
    assert cells["C2"].kind == "nebula" and board.symbols["nebula"] == "N" and board.symbols["deep space"] == "."
    assert board.colours["star cluster"] != board.colours["deep space"]
    assert (cells["A2"].q, cells["A2"].r) == (0, 1) and (cells["A3"].q, cells["A3"].r) == (-1, 2)


def test_digest_sections_show_races_technology_turn_order_cards_and_only_your_own_hand():
    pos = game_pos()
    s = pos.state()
    sections = {x.title: x for x in GAME.sections(GAME.view(s, None))}
    assert list(sections) == ["Races", "Technology in play", "Turn order, round 1", "Discard pile (face up)"]
    races = sections["Races"]
    assert races.columns[:4] == ["race", "home", "fleets", "spaces"]
    assert races.rows[1][:5] == ["blue", "D3", "3", "2", "2"]          # Initiative 2 from technology
    assert sections["Technology in play"].rows[1] == ["blue", f"{s.tech['blue'][0]} Initiative +1"]
    assert sections["Turn order, round 1"].current == 0
    assert "Deck: 3 card(s) left" in sections["Discard pile (face up)"].note
    own = {x.title: x for x in GAME.sections(GAME.view(s, "red"))}
    assert own["Your hand"].rows == [[c, f] for c, f in zip(pos.cards("red"), ["Attack +1 (technology)",
                                                                               "Defense +2 (event)"])]
    theirs = {x.title: x for x in GAME.sections(GAME.view(s, "blue"))}
    assert theirs["Your hand"].rows == [[pos.cards("blue")[0], "Movement +1 (technology)"]]


def test_the_template_is_a_whole_turn_that_the_engine_accepts():
    s = game_pos().state()
    text = GAME.move_template(GAME.view(s, "red"), "red")
    actions = yamlio.load_strict(text)["actions"]
    assert [next(iter(a)) for a in actions] == ["develop", "produce", "done", "attack"]
    applied = check_actions(GAME, s, "red", actions)
    assert len(applied.actions) == 4 and not applied.dropped


def test_every_event_is_described_in_words():
    s = game_pos().state()
    events = []
    events += act(s, "blue", {"standing": {"combat": "auto"}})
    events += act(s, "red", {"develop": "none"})
    events += act(s, "red", {"produce": "A1"})
    events += act(s, "red", {"move": "A1", "path": ["B1"]})
    events += act(s, "red", {"done": "move"})
    events += act(s, "red", {"attack": "all"})
    for e in events:
        for text in [GAME.describe_event(e.public)] + [GAME.describe_event(p) for p in e.private.values()]:
            assert "=" not in text and text, (e.public, text)
