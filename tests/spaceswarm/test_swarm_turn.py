"""The turn: Development (technology, hand limit), Production, Research, Quasars and the victories."""
from __future__ import annotations

from swarm_helpers import GAME, Pos, act, events_of, illegal, kinds

from pbem.rules.spaceswarm.attributes import current, permanent

ROWS = ["C . R .",
        ". Q . .",
        ". . . C"]


def test_development_places_a_technology_card_face_up_for_good():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", "Attack +1", "Attack +2")
    tech, event = pos.cards("red")
    s = pos.turn("red", "develop").state()
    assert "is an Event card; only a Technology card" in illegal(s, "red", {"develop": event})
    assert "is not in your hand" in illegal(s, "red", {"develop": "C99"})
    events = act(s, "red", {"develop": tech})
    assert events_of(events, "develop")[0] == {"event": "develop", "player": "red", "card": tech,
                                               "name": "Attack +1", "now": 2, "attribute": "attack"}
    assert s.tech["red"] == [tech] and permanent(s, "red", "attack") == 2 and s.step == "produce"


def test_placing_no_card_is_allowed():
    s = Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", "Attack +1").turn("red", "develop").state()
    act(s, "red", {"develop": "none"})
    assert s.tech["red"] == [] and s.step == "produce"


def test_hand_limit_is_two_plus_strategic_and_excess_cards_are_discarded_face_up():
    pos = (Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3)
           .hand("red", "Attack +1", "Defense +1", "Movement +2", "Initiative +1", "Production +2"))
    cards = pos.cards("red")
    s = pos.turn("red", "develop").state()
    act(s, "red", {"develop": cards[0]})          # 4 left, limit 3
    assert s.step == "discard"
    assert "discard exactly 1 card(s), not 2" in illegal(s, "red", {"discard": cards[1:3]})
    events = act(s, "red", {"discard": [cards[2]]})
    assert events_of(events, "discard")[0]["cards"] == {cards[2]: "Movement +2"}
    assert s.discard == [cards[2]] and s.step == "produce"


def test_a_strategic_bonus_played_as_an_event_raises_the_hand_limit():
    hand = ("Strategic +2", "Defense +1", "Movement +1", "Initiative +1", "Attack +1")
    for options in ({"event_phase": "any"}, {"tech_phase": "research"}):
        pos = Pos(ROWS, **options).stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", *hand)
        s = pos.turn("red", "discard").state()
        act(s, "red", {"event": pos.cards("red")[0]})     # limit 2 + 3 = 5 > 4 cards
        assert s.step == "produce", options
    pos = (Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3)
           .hand("red", "Strategic +1", "Defense +1", "Movement +1", "Initiative +1", "Attack +1"))
    s = pos.turn("red", "discard").state()
    act(s, "red", {"event": pos.cards("red")[0]})         # a Technology card as an event: limit 2 + 2 = 4
    assert s.step == "produce"


def test_an_event_card_is_not_played_in_the_phase_where_technology_is_placed():
    """ "Event cards are played in other Phases": by default the Development Phase (its discard
    too) is where Technology is placed, with tech_phase=research the Research Phase; a Technology
    card used as an event is played at any time; event_phase=any allows an Event card anywhere."""
    hand = ("Strategic +2", "Defense +1", "Movement +1", "Initiative +1", "Attack +1")
    pos = Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", *hand).hand("blue", "Defense +2")
    event, blue_event = pos.cards("red")[0], pos.cards("blue")[0]
    for step in ("develop", "discard"):
        s = pos.turn("red", step).state()
        assert illegal(s, "red", {"event": event}) == (f"{event} is an Event card: Event cards are not played in "
                                                       "the development phase, where Technology cards are placed "
                                                       "(a Technology card may be used as an event at any time)")
        assert "is an Event card" in illegal(s, "blue", {"event": blue_event})     # nor by another race
        assert "is an Event card" in illegal(s, "red", {"event": [pos.cards("red")[1], event]})   # nothing played
        assert s.hands["red"] == pos.cards("red") and s.discard == [] and s.boosts == []
    s = pos.turn("red", "produce").state()
    act(s, "blue", {"event": blue_event})
    assert s.discard == [blue_event]
    research = Pos(ROWS, tech_phase="research").stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", *hand)
    research.turn("red", "develop").p["phase"] = "research"
    s = research.state()
    assert "Event cards are not played in the research phase" in illegal(s, "red", {"event": event})
    act(s, "red", {"event": research.cards("red")[1]})   # Defense +1: Technology, played at any time
    assert s.discard == [research.cards("red")[1]]


def test_production_places_new_fleets_on_existing_stacks_plus_one_per_star_cluster_held_alone():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("red", "D3", 1).stack("red", "B2", 1).stack("blue", "D3", 1)
    s = pos.turn("red", "produce").state()
    # Production 1, A1 held alone (+1); D3 is shared with blue (no bonus)
    assert "place exactly 2 new fleet(s), not 1" in illegal(s, "red", {"produce": {"A1": 1}})
    assert "no stack at C1" in illegal(s, "red", {"produce": {"C1": 2}})
    for odd in (["A1"], None, 5):                      # refused in one line (a list was a TypeError)
        assert "place new fleets like this" in illegal(s, "red", {"produce": odd})
    events = act(s, "red", {"produce": {"A1": 1, "B2": 1}})
    assert events_of(events, "produce")[0]["clusters"] == ["A1"]
    assert s.fleets_at("red", 0) == 4 and s.produced["red"] == 2 and s.step == "move"


def test_production_event_cards_last_the_production_phase_only():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", "Production +2")
    s = pos.turn("red", "produce").state()
    act(s, "red", {"event": pos.cards("red")[0]})
    act(s, "red", {"produce": "A1"})                   # 1 + 2 + 1 (cluster)
    assert s.fleets_at("red", 0) == 7
    assert current(s, "red", "production") == 1        # the Move Phase has begun


def test_research_draws_two_cards_and_a_quasar_takes_a_fleet_at_the_end_of_the_turn():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("red", "B2", 2).stack("blue", "D3", 3)
    pos.deck("Attack +1", "Defense +1", "Movement +1")
    s = pos.turn("red", "attack").state()
    events = act(s, "red", {"attack": "all"})
    draw = events_of(events, "draw")[0]
    assert draw["why"] == "research" and len(draw["cards"]) == 2 and draw["deck"] == 1
    assert len(s.hands["red"]) == 2 and len(s.deck) == 1
    assert events_of(events, "quasar") == [{"event": "quasar", "player": "red", "at": "B2", "left": 1}]
    assert s.active == "blue" and s.step == "develop"        # blue's turn; blue's stacks are not hit
    assert kinds(events)[-1] == "turn"


def test_the_game_ends_when_no_cards_remain_after_research_and_most_spaces_wins():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("red", "C1", 1).stack("blue", "D3", 3).deck("Attack +1")
    s = pos.turn("red", "attack").state()
    events = act(s, "red", {"attack": "all"})
    over = events_of(events, "game-over")[0]
    assert over == {"event": "game-over", "victory": "deck", "winners": ["red"], "spaces": {"red": 2, "blue": 1}}
    result = GAME.result(s)
    assert result.scores == {"red": 2, "blue": 1} and result.winners == ["red"]
    assert GAME.pending(s) == [] and "the game is over" in illegal(s, "blue", {"event": "C1"})


def test_ties_for_most_spaces_share_the_win():
    s = Pos(ROWS).stack("red", "A1", 3).stack("blue", "D3", 3).turn("red", "attack").state()
    act(s, "red", {"attack": "all"})
    assert GAME.result(s).winners == ["red", "blue"]


def test_controlling_every_star_cluster_at_the_end_of_a_turn_wins():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("red", "D3", 1).stack("blue", "C1", 2).deck("Attack +1", "Defense +1",
                                                                                          "Movement +1")
    s = pos.turn("red", "attack").state()
    events = act(s, "red", {"attack": "all"})
    assert events_of(events, "game-over")[0]["victory"] == "control"
    assert GAME.result(s).winners == ["red"] and s.deck        # cards were left


def test_an_enemy_on_a_cluster_denies_control():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("red", "D3", 4).stack("blue", "D3", 1).tech("blue", "Defense +1",
                                                                                         "Defense +1", "Defense +1",
                                                                                         "Defense +1")
    pos.deck("Attack +1", "Defense +1", "Movement +1")
    s = pos.turn("red", "attack").state()
    act(s, "red", {"attack": "all"})
    assert GAME.result(s) is None


def test_the_prompt_and_the_template_say_where_event_cards_wait():
    hand = ("Strategic +2", "Defense +1")
    for options, phase, step, says in (({}, "development", "develop", True), ({}, "development", "discard", True),
                                       ({"event_phase": "any"}, "development", "develop", False),
                                       ({"tech_phase": "research"}, "research", "develop", True),
                                       ({"tech_phase": "research"}, "development", "discard", False)):
        pos = Pos(ROWS, **options).stack("red", "A1", 3).stack("blue", "D3", 3).hand("red", *hand)
        pos.turn("red", step).p["phase"] = phase
        if step == "discard":
            pos.hand("red", "Attack +1", "Attack +1")               # 4 cards, limit 3
        s = pos.state()
        prompt = GAME.pending(s)[0].prompt
        template = GAME.move_template(GAME.view(s, "red"), "red")
        line = f"  # Event cards are not played in the {phase} phase (a Technology card as an event is)\n"
        assert prompt.endswith("; Event cards are played in the other phases") is says, (options, step, prompt)
        assert (line in template) is says, (options, step, template)
        if phase == "research":
            assert prompt.startswith("Research Phase (then you draw): place a Technology card")
            assert "  # Research Phase (then you draw): place a Technology card" in template
