"""Property test: random games to the end keep every piece and never leak a hidden value."""
import pytest
from atlantis_helpers import GAME
from atlantis_positions import check_views_like_the_moderator

from pbem.core.rng import Rng

PLAYERS = (["red", "blue", "green", "yellow"], ["alice", "bob"], ["ann", "bo", "cy"])
OPTIONS = ({}, {"defense": "ask"}, {"defense": "never", "lagoon": "land"}, {"memory": "open", "boats": "per-colour"},
           {"layout": "fixup", "colours": "1"})


def check_conservation(state, n_explorers):
    where = {}
    for e in state.explorers.values():
        where[e.where] = where.get(e.where, 0) + 1
    assert sum(where.values()) == n_explorers
    assert set(where) <= {"reserve", "land", "boat", "sea", "isle", "lost"}
    assert len(state.boats) == 12 and len(state.creatures) == 16
    assert all(b.where in ("reserve", "supply", "sea", "lost") for b in state.boats.values())
    assert all(c.where in ("supply", "sea", "lost") for c in state.creatures.values())
    # indexes agree with the pieces
    on_sea = sorted(b.cell for b in state.boats.values() if b.where == "sea")
    assert on_sea == sorted(state.boat_at) and len(set(on_sea)) == len(on_sea)
    aboard = sum(len(b.passengers) for b in state.boats.values() if b.where == "sea")
    assert aboard == where.get("boat", 0)
    assert all(len(b.passengers) <= 3 for b in state.boats.values())
    assert all(b.passengers == [] for b in state.boats.values() if b.where != "sea")
    assert sum(len(v) for v in state.sea_at.values()) == where.get("sea", 0)
    assert sum(len(v) for v in state.land_at.values()) == where.get("land", 0)
    for cell in state.land_at:
        assert cell in state.tile_at
    for cell in list(state.sea_at) + list(state.boat_at) + list(state.creatures_at):
        assert cell not in state.tile_at


def check_public_view(state):
    view = GAME.view(state, None)
    over = state.phase == "over"
    for h, e in view["explorers"].items():
        if not (over and e["where"] == "isle"):
            assert e["value"] is None, h
    for h, t in view["tiles"].items():
        if t["where"] != "used":
            assert t["back"] is None, h
    assert all(p["standing"] is None for p in view["players"])


def check_events(state, events):
    """Public events carry no explorer value and no back of a tile that is not public."""
    for ev in events:
        assert "value" not in ev.public
        if ev.public.get("event") == "to-hand":
            assert "back" not in ev.public
        if "back" in ev.public:
            assert state.tiles[ev.public["tile"]].where == "used"
        if ev.public.get("event") != "game-over":
            assert "saved" not in ev.public
        assert set(ev.private) <= set(state.players)


def play(i):
    players = PLAYERS[i % len(PLAYERS)]
    options = OPTIONS[i % len(OPTIONS)]
    if len(players) > 2 and options.get("colours") == "2":
        options = {}
    state = GAME.setup(players, options, Rng(b"seed%d" % i, "setup"))
    n_explorers = len(state.explorers)
    bot = Rng(b"seed%d" % i, "bot")
    steps = 0
    while GAME.pending(state):
        decision = GAME.pending(state)[0]
        for other in state.players:
            if other != decision.player:
                assert GAME.legal_actions(state, other) == []
        actions = GAME.legal_actions(state, decision.player)
        assert actions
        events = GAME.apply(state, decision.player, bot.choice(actions), Rng(b"seed%d" % i, f"g/{steps}"))
        check_events(state, events)
        check_conservation(state, n_explorers)
        check_public_view(state)
        steps += 1
        assert steps < 2000
    check_public_view(state)
    result = GAME.result(state)
    assert set(result.scores) == set(players)
    assert all(e.where in ("isle", "lost") for e in state.explorers.values())
    return state


@pytest.mark.slow(seconds=3)
def test_random_games_to_the_end():
    for i in range(50):
        play(i)


def test_a_players_view_checks_moves_like_the_moderator():
    """``pbem check``: from the deciding player's view, legal actions agree with the full state,
    and applying stops with NeedsSecret (state untouched) exactly where a secret is needed."""
    needed = 0
    for i in range(6):
        players = PLAYERS[i % len(PLAYERS)]
        state = GAME.setup(players, {"defense": ("auto", "ask")[i % 2]}, Rng(b"view%d" % i, "setup"))
        needed += check_views_like_the_moderator(GAME, state, b"view%d" % i)
    assert needed > 0
