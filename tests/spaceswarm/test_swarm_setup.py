"""THE DECK, SETUP and the mulligan; the data files."""
from __future__ import annotations

import collections

import pytest
from swarm_helpers import GAME, Pos

from pbem.base.data import game_data
from pbem.core.rng import Rng
from pbem.game import OPTION_REFUSALS
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.setup import deal_starting_hand

PLAYERS = ["red", "blue", "green"]


def test_the_deck_holds_six_times_seven_technology_and_six_times_two_event_cards():
    deck = swarm_data().deck
    assert len(deck) == 54
    by_type = collections.Counter((f.type, f.bonus) for f in deck)
    assert by_type == {("technology", 1): 42, ("event", 2): 12}
    assert collections.Counter(f.attribute for f in deck) == {a: 9 for a in swarm_data().attributes}


def test_the_d20_table_gives_every_roll_exactly_one_terrain():
    rolls = sorted(r for t in swarm_data().terrains.values() for r in t.rolls)
    assert rolls == list(range(1, 21))
    assert len({t.code for t in swarm_data().terrains.values()}) == 10


def test_every_substitute_is_marked_with_the_components_wording():
    data = game_data("space-swarm", "game.yaml")
    for key in ("map", "homes", "generator", "rulings"):
        assert data[key]["source"] == "substitute" and data[key]["wording"], key
    for key in ("attributes", "setup", "players"):
        assert data[key]["source"] == "rules"


def test_set_up_three_fleets_on_each_home_and_two_cards_with_technology():
    for i in range(10):
        s = GAME.setup(PLAYERS, GAME.full_options({}), Rng(b"setup" * 4, str(i)))
        for p in PLAYERS:
            assert s.fleets[p] == {s.homes[p]: 3}
            assert len(s.hands[p]) == 2 and any(s.faces[c].is_technology for c in s.hands[p])
        cards = s.deck + s.discard + [c for p in PLAYERS for c in s.hands[p]]
        assert sorted(cards, key=lambda c: int(c[1:])) == [f"C{i}" for i in range(1, 55)]
        assert all(not s.faces[c].is_technology for c in s.discard)        # only mulligans were discarded
        assert s.step == "develop" and s.turns == 1 and s.active == s.order[0]


def mulligan_pos(*deck: str) -> Pos:
    return Pos(["C . .", ". . C"]).deck(*deck)


def test_a_draw_without_technology_is_a_mulligan_revealed_discarded_and_drawn_again():
    pos = mulligan_pos("Attack +2", "Defense +2", "Movement +2", "Initiative +2", "Attack +1", "Defense +1")
    s = pos.state()
    deal_starting_hand(s, "red", "repeat")
    assert [s.faces[c].name for c in s.hands["red"]] == ["Attack +1", "Defense +1"]
    assert [s.faces[c].name for c in s.discard] == ["Attack +2", "Defense +2", "Movement +2", "Initiative +2"]


def test_with_mulligan_once_the_second_draw_stands():
    pos = mulligan_pos("Attack +2", "Defense +2", "Movement +2", "Initiative +2", "Attack +1", "Defense +1")
    s = pos.state()
    deal_starting_hand(s, "red", "once")
    assert [s.faces[c].name for c in s.hands["red"]] == ["Movement +2", "Initiative +2"]


def test_two_decks_for_long_games():
    s = GAME.setup(PLAYERS, GAME.full_options({"decks": "2"}), Rng(b"two" * 6, "s"))
    assert len(s.faces) == 108


def test_bad_options_and_player_counts_are_refused_in_one_line():
    with pytest.raises(OPTION_REFUSALS, match="takes 2-6 players, not 7"):
        GAME.check_options({}, [f"p{i}" for i in range(7)])
    with pytest.raises(OPTION_REFUSALS, match="option decks='3' is not one of 1, 2"):
        GAME.check_options({"decks": "3"}, PLAYERS)
    with pytest.raises(OPTION_REFUSALS, match="give map=generated or the path"):
        GAME.check_options({"map": "maps/duel.yaml"}, PLAYERS)
