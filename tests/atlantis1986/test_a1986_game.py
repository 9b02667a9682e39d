"""Options, the end of the game, positions and views, whole random games, and the real pipeline."""
import json

import pytest
import yaml
from atlantis1986_helpers import GAME, Pos, act, kinds, where
from atlantis_positions import check_views_like_the_moderator
from pipeline_helpers import new_game, play_to_end, reveal_and_audit

from pbem.core.bots import simulate
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import OPTION_REFUSALS, IllegalAction, NeedsSecret
from pbem.store.table import Table

PLAYERS = {2: ["red", "blue"], 3: ["ann", "bo", "cy"], 4: ["red", "blue", "green", "yellow"]}
OPTIONS = ({}, {"spinner": "dice"}, {"empty_boats": "safe", "whirlpool": "sea"},
           {"creature_move": "optional", "start_boats": "placed"}, {"setup_limit": "three"})


# --- options ----------------------------------------------------------------------------
def test_registered_under_its_own_name():
    game = load_game("atlantis-1986")
    assert type(game).__name__ == "Atlantis1986Game"
    assert (game.name, game.rules_version) == ("atlantis-1986", "atlantis-1986/1")
    assert load_game("atlantis").name == "atlantis"


def test_options_and_their_defaults():
    assert GAME.full_options({}) == {"spinner": "swirler", "creature_move": "compulsory", "empty_boats": "sunk",
                                     "whirlpool": "all", "setup_limit": "beach", "start_boats": "fixed"}


@pytest.mark.parametrize("options, players, message", [
    ({"memory": "open"}, ["red", "blue"], "unknown option 'memory'"),        # a 30th-anniversary option
    ({"squid": "yes"}, ["red", "blue"], "unknown option 'squid'"),           # a mini-expansion
    ({"spinner": "wheel"}, ["red", "blue"], "spinner='wheel' is not one of swirler, dice"),
    ({"whirlpool": "land"}, ["red", "blue"], "is not one of all, sea"),
    ({}, ["red"], "takes 2-4 players, not 1"),
    ({}, ["a", "b", "c", "d", "e"], "takes 2-4 players, not 5"),
    ({}, ["red", "red"], "player names must differ"),
])
def test_options_refused(options, players, message):
    with pytest.raises(OPTION_REFUSALS, match=message):
        GAME.check_options(options, players)
    with pytest.raises(OPTION_REFUSALS, match=message):
        GAME.setup(players, options, Rng(b"x", "setup"))


def test_actions_of_the_30th_anniversary_game_are_refused():
    st = Pos().state()
    for action, message in (({"play": "none"}, "unknown action"), ({"standing": {"shark_defense": "ask"}},
                                                                   "unknown action"),
                            ({"defend": "none"}, "unknown action")):
        with pytest.raises(IllegalAction, match=message):
            act(st, "red", action)


# --- the end ----------------------------------------------------------------------------------
def test_the_game_ends_as_soon_as_every_villager_is_safe_or_dead():
    pos = Pos().swim("r1", "B2").saved("b1")
    pos.p["explorers"][pos.bystander].update(where="lost", at=None)
    st = pos.state()
    events = act(st, "red", {"move": "r1", "to": "B1"})     # with two movement points left
    assert st.phase == "over" and kinds(events)[-1] == "game-over"
    assert events[-1].public["reason"] == "all villagers saved or lost"
    result = GAME.result(st)
    assert result.scores == {"red": 1, "blue": 1, "green": 0} and result.winners == ["red", "blue"]
    with pytest.raises(IllegalAction, match="the game is over"):
        act(st, "red", {"done": "move"})


def test_the_game_goes_on_after_the_island_has_sunk():
    st = Pos().island().swim("r1", "C5").state()
    act(st, "red", {"move": "r1", "to": "C6"})
    act(st, "red", {"done": "move"})
    assert st.phase == "play"
    assert GAME.pending(st)[0].kind == "move" and GAME.pending(st)[0].player in ("green", "red")


# --- positions and views ------------------------------------------------------------------------
def test_position_round_trip_through_yaml_and_json_along_a_game():
    st = GAME.setup(["red", "blue", "green"], {}, Rng(b"pos", "setup"))
    bot = Rng(b"pos", "bot")
    for i in range(300):
        if not GAME.pending(st):
            break
        pos = GAME.to_position(st)
        text = yaml.safe_dump(pos) if i % 50 == 0 else json.dumps(pos)
        again = GAME.from_position(yaml.safe_load(text) if i % 50 == 0 else json.loads(text))
        assert GAME.to_position(again) == pos
        view = GAME.view(st, None)
        assert GAME.to_position(GAME.from_position(view)) == view
        d = GAME.pending(st)[0]
        act(st, d.player, bot.choice(GAME.legal_actions(st, d.player)), Rng(b"pos", f"a{i}"))


def test_a_players_view_checks_moves_like_the_moderator():
    """``pbem check``: from a player's view the legal actions agree with the full state, and
    applying stops with NeedsSecret (state untouched) exactly where the bottom or the spin is needed."""
    needed = 0
    for i, n in enumerate((2, 3, 4)):
        st = GAME.setup(PLAYERS[n], {}, Rng(b"view%d" % i, "setup"))
        needed += check_views_like_the_moderator(GAME, st, b"view%d" % i, max_steps=150)
    assert needed > 0


def shuffle_bottoms(pos, rng):
    """The same position with the bottoms of the tiles still on the island permuted within each terrain."""
    pos = json.loads(json.dumps(pos))
    for terrain in ("beach", "forest", "mountain"):
        handles = [h for h, t in pos["tiles"].items() if t["where"] == "island" and t["terrain"] == terrain]
        for h, back in zip(handles, rng.shuffled([pos["tiles"][h]["back"] for h in handles])):
            pos["tiles"][h]["back"] = back
    return pos


def test_nothing_a_player_sees_depends_on_unsunk_bottoms():
    """Differential: permute the hidden bottoms; views, texts, legal actions and error messages stay the same."""
    st = GAME.setup(["red", "blue", "green"], {}, Rng(b"leak", "setup"))
    bot, r = Rng(b"leak", "bot"), Rng(b"leak", "shuffle")
    probes = [{"remove": "G6"}, {"remove": "D5"}, {"move": "r1", "to": "A3"}, {"creature": "K1", "to": "A3"},
              {"dive": "K1", "to": "A3"}, {"move": "r1", "to": "C5", "ride": "D1"}]
    for i in range(200):
        if not GAME.pending(st):
            break
        if i % 10 == 0:
            twin = GAME.from_position(shuffle_bottoms(GAME.to_position(st), r))
            player = GAME.pending(st)[0].player
            for viewer in (None, "red", "blue", "green"):
                assert GAME.view(twin, viewer) == GAME.view(st, viewer)
            assert GAME.template(GAME.view(twin, player), player) == GAME.template(GAME.view(st, player), player)
            assert GAME.legal_actions(twin, player) == GAME.legal_actions(st, player)
            assert GAME.pending(twin) == GAME.pending(st)
            for probe in probes:
                outcomes = []
                for s in (st, twin):
                    try:   # accepted, or stopped at the sinking/spin that needs the moderator: both fine
                        GAME.apply(GAME.from_position(GAME.to_position(s)), player, probe, Rng.unavailable())
                        outcomes.append("accepted")
                    except NeedsSecret:
                        outcomes.append("accepted")
                    except IllegalAction as exc:
                        outcomes.append(str(exc))
                assert outcomes[0] == outcomes[1], probe
        d = GAME.pending(st)[0]
        act(st, d.player, bot.choice(GAME.legal_actions(st, d.player)), Rng(b"leak", f"a{i}"))


def test_texts_for_players():
    st = Pos().swim("r1", "C5").creature("D1", "C5").state()
    assert "ride: D1" in GAME.template(GAME.view(st, "red"), "red")
    assert "waiting for red" in GAME.template(GAME.view(st, "red"), "blue")
    lines = GAME.summary(GAME.view(st, None))
    assert lines[0] == "In play: 3 players, the standard rules."
    assert lines[1].startswith("Turn 5: red (move")
    picture = GAME.board_picture(GAME.view(st, None))
    assert picture.legend["O1..O6"] == "octopus (giant squid)"
    assert any(c.label == "C5" and c.marks == ["D1", "r1"] for c in picture.cells)
    assert {c.kind for c in picture.cells} == {"sea", "beach", "forest", "mountain", "isle"}


# --- whole games -----------------------------------------------------------------------------------
def check_conservation(state, n_players):
    assert len(state.explorers) == 12 * n_players and len(state.tiles) == 37
    assert len(state.boats) == 12 and len(state.creatures) == 24
    assert {e.where for e in state.explorers.values()} <= {"reserve", "land", "boat", "sea", "isle", "lost"}
    on_sea = sorted(b.cell for b in state.boats.values() if b.where == "sea")
    assert on_sea == sorted(state.boat_at) and len(set(on_sea)) == len(on_sea)
    assert all(len(b.passengers) <= 3 for b in state.boats.values())
    assert all(b.passengers == [] for b in state.boats.values() if b.where != "sea")
    aboard = sum(len(b.passengers) for b in state.boats.values())
    assert aboard == sum(1 for e in state.explorers.values() if e.where == "boat")
    for cell in list(state.sea_at) + list(state.boat_at) + list(state.creatures_at):
        assert cell not in state.tile_at and not GAME.board.is_isle(cell)
    for cell in state.land_at:
        assert cell in state.tile_at


def check_public_view(state):
    view = GAME.view(state, None)
    for h, t in view["tiles"].items():
        assert (t["back"] is None) == (t["where"] == "island"), h
    assert all(p["standing"] is None for p in view["players"])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_to_the_end(n):
    players = PLAYERS[n]
    for i in range(30):
        options = OPTIONS[i % len(OPTIONS)]
        state, steps = simulate(GAME, players, options, b"sim%d-%d" % (n, i))
        result = GAME.result(state)
        check_conservation(state, n)
        check_public_view(state)
        assert all(e.where in ("isle", "lost") for e in state.explorers.values())
        assert result.scores == {p: sum(1 for e in state.explorers.values() if e.owner == p and e.where == "isle")
                                 for p in players}
        assert 0 < steps < 5000


def test_random_games_checked_after_every_action():
    for i, n in enumerate((2, 3, 4, 4)):
        players = PLAYERS[n]
        state = GAME.setup(players, OPTIONS[i], Rng(b"step%d" % i, "setup"))
        bot = Rng(b"step%d" % i, "bot")
        steps = 0
        while GAME.pending(state):
            decision = GAME.pending(state)[0]
            for other in players:
                if other != decision.player:
                    assert GAME.legal_actions(state, other) == []
            events = GAME.apply(state, decision.player, bot.choice(GAME.legal_actions(state, decision.player)),
                                Rng(b"step%d" % i, f"g/{steps}"))
            for ev in events:
                if "back" in ev.public:
                    assert state.tiles[ev.public["tile"]].where == "used"
                assert ev.private == {}
            check_conservation(state, n)
            check_public_view(state)
            steps += 1
        assert GAME.result(state) is not None


def test_greedy_bots_save_villagers():
    saved = 0
    for i in range(6):
        state, _ = simulate(GAME, PLAYERS[2 + i % 3], {}, b"greedy%d" % i, bot="greedy")
        saved += sum(GAME.result(state).scores.values())
    assert saved > 0


# --- the real pipeline ---------------------------------------------------------------------------------
@pytest.mark.slow(seconds=3)
def test_a_game_through_the_pipeline_reveal_and_audit(tmp_path, key_pool):
    gd = new_game(tmp_path / "g", "atlantis-1986", key_pool, ["red", "blue"], seed=b"1986" * 8)
    n = play_to_end(gd, key_pool)
    assert n > 10
    table = Table.load(gd)
    assert table.game.name == "atlantis-1986" and table.game.result(table.state) is not None
    log = gd.log_path.read_text()
    assert "rules_version: atlantis-1986/1" in log or "atlantis-1986/1" in log
    reveal_and_audit(gd, tmp_path / "published")
    assert where(table.state, "B1")[0] in ("sea", "lost")
