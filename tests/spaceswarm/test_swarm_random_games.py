"""Property tests: many whole games in memory, random and greedy bots, 2-6 players.

After every action: cards and fleets are conserved, the position round-trips,
the public view has no hidden face, and every listed legal action is accepted.
Same seed, same game; every game ends.
"""
from __future__ import annotations

import itertools

import pytest
from swarm_helpers import GAME

from pbem.core.bots import CHOOSERS
from pbem.core.draws import setup_rng
from pbem.core.engine import action_rng
from pbem.core.rng import Rng
from pbem.game import IllegalAction

NAMES = ["red", "blue", "green", "yellow", "purple", "orange"]
CASES = [(n, bot, options) for n, bot, options in [
    (2, "random", {}), (2, "greedy", {}), (3, "random", {"tech_phase": "research"}), (3, "greedy", {}),
    (3, "greedy", {"home_hazards": "reroll", "cut_homes": "reroll"}),
    (4, "random", {"react_combat": "ask", "react_bid": "auto", "slot": "first"}), (4, "greedy", {}),
    (5, "random", {"combat_hexes": "active", "mulligan": "once"}), (5, "greedy", {"decks": "2"}),
    (6, "random", {"symmetry": "half-turn", "slot": "last"}), (6, "greedy", {"react_combat": "never"}),
]]


def cards_everywhere(s) -> list[str]:
    return s.deck + s.discard + [c for p in s.players for c in s.hands[p] + s.tech[p]]


def check_invariants(s, n_cards: int, start_fleets: dict[str, int]) -> None:
    cards = cards_everywhere(s)
    assert len(cards) == n_cards and len(set(cards)) == n_cards, "a card appeared or vanished"
    for p in s.players:
        assert s.total_fleets(p) == start_fleets[p] + s.produced[p] - s.destroyed[p], p
        assert all(n > 0 for n in s.fleets[p].values())
        for cell, used in s.moved[p].items():
            assert len(used) <= s.fleets[p][cell] and all(u > 0 for u in used)
    pos = GAME.to_position(s)
    assert GAME.to_position(GAME.from_position(pos)) == pos
    public = GAME.view(s, None)
    hidden = set(s.deck) | {c for p in s.players for c in s.hands[p]}
    assert all(public["cards"][c] is None for c in hidden)


def play(n: int, bot: str, options: dict[str, str], seed: bytes, check_legal: bool = True):
    names = NAMES[:n]
    s = GAME.setup(names, GAME.full_options(options), setup_rng(seed, "g"))
    start = {p: s.total_fleets(p) for p in names}
    n_cards = len(s.faces)
    chooser = CHOOSERS[bot]
    bot_rng = Rng(seed, "bot")
    trace = []
    for step in itertools.count(1):
        check_invariants(s, n_cards, start)
        if GAME.result(s) is not None:
            return s, trace
        assert step < 3000, "the game did not end"
        player = GAME.pending(s)[0].player
        if check_legal and step % 5 == 0:
            for action in GAME.legal_actions(s, player):
                try:
                    GAME.apply(GAME.from_position(GAME.to_position(s)), player, action, Rng(seed, "probe"))
                except IllegalAction as exc:
                    raise AssertionError(f"listed action {action} refused: {exc}") from None
        action = chooser(GAME, s, player, bot_rng)
        events = GAME.apply(s, player, action, action_rng(seed, "g", step, 0))
        trace.append((player, action, [e.public for e in events]))


@pytest.mark.parametrize("n, bot, options", CASES, ids=[f"{n}p-{b}-{i}" for i, (n, b, _) in enumerate(CASES)])
def test_whole_games_conserve_cards_and_fleets_and_end(n, bot, options):
    for k in range(2):
        s, trace = play(n, bot, options, f"{n}/{bot}/{k}".encode() * 4)
        result = GAME.result(s)
        assert result.winners and set(result.winners) <= set(s.players)
        assert result.detail["victory"] in ("control", "deck", "last-race")
        if result.detail["victory"] == "deck":
            assert not s.deck
        assert len(trace) > 20


def test_the_same_seed_plays_the_same_game():
    a, trace_a = play(3, "random", {}, b"same-seed" * 3, check_legal=False)
    b, trace_b = play(3, "random", {}, b"same-seed" * 3, check_legal=False)
    c, trace_c = play(3, "random", {}, b"other-seed" * 3, check_legal=False)
    assert trace_a == trace_b and GAME.to_position(a) == GAME.to_position(b)
    assert trace_a != trace_c


def test_greedy_bots_fight_and_take_star_clusters():
    battles = clusters = 0
    for k in range(4):
        s, trace = play(3, "greedy", {}, f"greedy{k}".encode() * 4, check_legal=False)
        battles += sum(1 for _, _, events in trace for e in events if e.get("event") == "battle")
        clusters += sum(1 for _, _, events in trace for e in events if e.get("event") == "produce" and e["clusters"]
                        and len(e["clusters"]) > 1)
    assert battles > 0 and clusters > 0
