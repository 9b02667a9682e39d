"""ATTACK PHASE: initiative order, simultaneous strikes, damage, Defense, excess ignored, targets, terrain."""
from __future__ import annotations

from swarm_helpers import GAME, Pos, act, events_of, illegal

ROWS = ["C . . .",
        ". N A .",
        ". . . C"]


def fleets(state, player, label):
    return state.fleets_at(player, state.hexmap.index(label))


def battle(pos, attacker="red"):
    state = pos.turn(attacker, "attack").state()
    events = act(state, attacker, {"attack": "all"})
    return state, events


def test_the_rule_texts_example_of_combat():
    """Joe: Attack 1, Defense 1, 5 fleets; Ron: Attack 1, Defense 2, 3 fleets.  "Ron inflicts 3
    damage, so 3 of Joe's Fleets are killed.  Joe inflicts 5 damage, so 2 of Ron's Fleets are killed." """
    pos = (Pos(ROWS, players=("joe", "ron")).stack("joe", "B1", 5).stack("ron", "B1", 3)
           .stack("joe", "A1", 1).stack("ron", "D3", 1).tech("ron", "Defense +1"))
    state, events = battle(pos, "joe")
    assert fleets(state, "joe", "B1") == 2 and fleets(state, "ron", "B1") == 1
    fight = events_of(events, "battle")[0]
    assert fight["exchanges"] == [{"initiative": 1, "losses": {"joe": 3, "ron": 2}, "strikes": [
        {"by": "joe", "fleets": 5, "target": "ron", "damage": 5},
        {"by": "ron", "fleets": 3, "target": "joe", "damage": 3}]}]


def test_the_higher_initiative_strikes_first_and_the_dead_do_not_strike_back():
    pos = (Pos(ROWS).stack("red", "B1", 3).stack("blue", "B1", 3).stack("red", "A1", 1).stack("blue", "D3", 1)
           .tech("blue", "Initiative +1"))
    state, events = battle(pos)
    assert fleets(state, "red", "B1") == 0 and fleets(state, "blue", "B1") == 3
    assert [ex["initiative"] for ex in events_of(events, "battle")[0]["exchanges"]] == [2]


def test_excess_damage_is_ignored_and_the_phase_may_end_with_both_stacks_there():
    pos = (Pos(ROWS).stack("red", "B1", 3).stack("blue", "B1", 4).stack("red", "A1", 1).stack("blue", "D3", 1)
           .tech("blue", "Defense +1"))
    state, _ = battle(pos)
    assert fleets(state, "blue", "B1") == 3          # 3 damage / Defense 2 = 1 fleet; 1 damage ignored
    assert fleets(state, "red", "B1") == 0            # 4 damage / Defense 1 = all 3
    pos = Pos(ROWS).stack("red", "B1", 1).stack("blue", "B1", 3).stack("red", "A1", 1).stack("blue", "D3", 1) \
        .tech("red", "Defense +1", "Defense +1", "Defense +1").tech("blue", "Defense +1")
    state, _ = battle(pos)
    assert fleets(state, "red", "B1") == 1 and fleets(state, "blue", "B1") == 3   # neither kills: both stay


def test_nebula_adds_defense_and_asteroid_field_adds_attack():
    pos = Pos(ROWS).stack("red", "B2", 2).stack("blue", "B2", 2).stack("red", "A1", 1).stack("blue", "D3", 1)
    state, _ = battle(pos)                             # Nebula: Defense 2 each; 2 damage kills 1
    assert fleets(state, "red", "B2") == 1 and fleets(state, "blue", "B2") == 1
    pos = Pos(ROWS).stack("red", "C2", 2).stack("blue", "C2", 3).stack("red", "A1", 1).stack("blue", "D3", 1)
    state, _ = battle(pos)                             # Asteroid Field: Attack 2 each
    assert fleets(state, "red", "C2") == 0 and fleets(state, "blue", "C2") == 0


def test_with_several_enemies_the_active_player_chooses_a_target():
    pos = (Pos(ROWS, players=("red", "blue", "green")).stack("red", "B1", 2).stack("blue", "B1", 2)
           .stack("green", "B1", 2).stack("red", "A1", 1).stack("blue", "D3", 1).stack("green", "A3", 1)
           .tech("red", "Initiative +1", "Initiative +1").tech("blue", "Initiative +1"))
    state = pos.turn("red", "attack").state()
    assert {"attack": "all", "targets": {"B1": "green"}} in GAME.legal_actions(state, "red")
    assert "has no stack at B1" in illegal(state, "red", {"attack": "all", "targets": {"B1": "yellow"}})
    events = act(state, "red", {"attack": "all", "targets": {"B1": "green"}})
    ex = events_of(events, "battle")[0]["exchanges"]
    assert ex[0]["strikes"] == [{"by": "red", "fleets": 2, "target": "green", "damage": 2}]
    # blue (initiative 2) strikes next and, by default, the race that loses most, then the active race
    assert ex[1]["strikes"][0]["by"] == "blue" and ex[1]["strikes"][0]["target"] == "red"
    assert fleets(state, "green", "B1") == 0


def test_simultaneous_strikes_on_one_stack_add_up():
    pos = (Pos(ROWS, players=("red", "blue", "green")).stack("red", "B1", 1).stack("blue", "B1", 1)
           .stack("green", "B1", 2).stack("red", "A1", 1).stack("blue", "D3", 1).stack("green", "A3", 1)
           .tech("green", "Defense +1"))
    pos.p["targets"] = {"B1": {"blue": "green"}}     # as blue answered in the reaction window
    state = pos.turn("red", "attack").state()
    events = act(state, "red", {"attack": "all", "targets": {"B1": "green"}})
    # 1 + 1 damage at once against Defense 2 kills one fleet (alone, each would be ignored)
    assert events_of(events, "battle")[0]["exchanges"][0]["losses"]["green"] == 1
    # green's default target: red and blue would each lose 1; the active race first
    assert fleets(state, "red", "B1") == 0 and fleets(state, "blue", "B1") == 1


def test_battles_everywhere_or_only_where_the_active_race_is():
    pos = (Pos(ROWS, players=("red", "blue", "green")).stack("blue", "B1", 2).stack("green", "B1", 2)
           .stack("red", "A1", 1).stack("blue", "D3", 1).stack("green", "A3", 1))
    state, events = battle(pos)
    assert events_of(events, "battle") and fleets(state, "blue", "B1") == 0
    pos.p["options"]["combat_hexes"] = "active"
    state, events = battle(pos)
    assert not events_of(events, "battle") and fleets(state, "blue", "B1") == 2


def test_a_race_without_fleets_is_out_and_the_last_race_wins():
    pos = Pos(ROWS).stack("red", "A1", 3).stack("blue", "A1", 1)
    state, events = battle(pos)
    assert events_of(events, "eliminated") == [{"event": "eliminated", "player": "blue"}]
    result = GAME.result(state)
    assert result is not None and result.winners == ["red"] and result.detail == {"victory": "last-race"}
