"""The click-to-move page's choices (pbem/views/choicegraph.py, pbem/views/clickpage.py) against the engine.

At random points of random games of every game: every choice the page's data offers is one the
engine accepts, every legal action the engine lists is offered, each leads where the page says;
the forms' orders (standing orders, orders written ahead for each die face) are accepted; the
data stays within its cap.  The page in a real browser: tests/test_browser.py.
"""
from __future__ import annotations

import random
import shutil

import pytest
from click.testing import CliRunner

from click_helpers import check_page_against_engine, page_data, page_nodes, random_point
from pipeline_helpers import PipelineGame, new_game
from pbem.cli.group import main
from pbem.core.draws import Draws
from pbem.core.engine import apply_actions
from pbem.core.game import pending_players
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import ActionPlaces
from pbem.store.table import Table
from pbem.views.choicegraph import Caps, build_graph, graph_data, packed_size
from pbem.views.clickpage import MAIL_CAPS, SHOW_CAPS
from pbem.views.render.scriptdata import script_json

CASES = [  # game, players, options, seed, the numbers of random decisions made before each look
    ("atlantis", ["red", "blue", "green"], {}, b"c1" * 16, [0, 40, 61, 90, 130, 170]),
    ("atlantis", ["red", "blue"], {"dolphins": "yes", "squid": "yes", "defense": "ask"}, b"c2" * 16, [50, 90, 140]),
    ("atlantis", ["a1", "a2", "a3", "a4", "a5"], {"overpopulated": "yes", "end": "to-the-last"}, b"c3" * 16,
     [3, 70, 150, 400]),
    ("atlantis-1986", ["red", "blue", "green"], {}, b"c4" * 16, [10, 44, 70, 100, 140]),
    ("atlantis-1986", ["red", "blue"], {"spinner": "dice"}, b"c5" * 16, [35, 60, 120]),
    ("space-attack", ["red", "blue", "green"], {}, b"c6" * 16, [0, 40, 75, 110, 160]),
    ("space-attack", ["red", "blue"], {"map": "asteroids", "overpopulated": "yes"}, b"c7" * 16, [50, 100, 180]),
    ("space-attack", ["a1", "a2", "a3", "a4", "a5"], {"end": "to-the-last", "reactions": "ask"}, b"c8" * 16,
     [20, 60, 150, 400]),
    ("space-swarm", ["red", "blue", "green"], {}, b"c9" * 16, [0, 6, 20, 40, 80, 120]),
    ("space-swarm", ["red", "blue"], {}, b"ca" * 16, [3, 30, 60, 120]),
]


@pytest.mark.slow(seconds=20)
@pytest.mark.parametrize("name, players, options, seed, looks", CASES,
                         ids=[f"{c[0]}-{n}" for n, c in enumerate(CASES)])
def test_every_offered_choice_is_accepted_and_every_legal_action_offered(name, players, options, seed, looks):
    game = load_game(name)
    looked, followed = 0, 0
    for steps in looks:
        rng = random.Random(seed + steps.to_bytes(2, "big"))
        point = random_point(game, players, options, seed, steps, rng)
        if point is None:
            continue
        state, player = point
        caps = SHOW_CAPS if steps == looks[-1] else MAIL_CAPS
        graph = build_graph(game, state, player, caps)
        assert graph is not None
        data = graph_data(graph)
        # the first choices are always all there; the orders written ahead come on top
        assert packed_size({**data, "ahead": []}) <= caps.gzip_bytes or len(data["nodes"]) == 1
        data = page_data(f'<script type="application/json" id="pbem-click-data">{script_json(data)}</script>')
        data["head"] = "format: pbem-move/1\ngame: g\nplayer: p\nafter: 0\nafter_hash: abcdef0123456789\n"
        checked = check_page_against_engine(game, state, player, data, seed, rng)
        assert checked.nodes == len(page_nodes(data)) and checked.edges >= len(page_nodes(data)[0].acts)
        looked += 1
        followed += checked.nodes > 1
    assert looked >= len(looks) - 1 and followed >= 1


def test_the_graph_joins_orders_that_reach_the_same_view_and_stops_at_the_roll():
    game = load_game("atlantis")
    rng = random.Random(1)
    # the first decision of the play phase (every explorer and ship placed): the moves lead on to the
    # removal, the removal to the roll
    for steps in range(30, 200):
        point = random_point(game, ["red", "blue"], {}, b"j" * 32, steps, rng)
        assert point is not None
        state, player = point
        if game.view(state, player)["phase"] == "play":
            break
    graph = build_graph(game, state, player)
    assert graph is not None
    data = graph_data(graph)
    nodes = page_nodes(data)
    targets = [a for n in nodes for a in n.after.values()]
    assert len(set(t for t in targets if t >= 0)) < len([t for t in targets if t >= 0])   # two ways to one node
    assert -1 in targets                                                  # a stop: the creature die
    assert any(data["ahead"]) and all(f["key"] == "creature" for f in data["ahead"])


def test_no_decision_no_graph_and_the_caps_hold():
    game = load_game("space-swarm")
    point = random_point(game, ["red", "blue"], {}, b"k" * 32, 4, random.Random(2))
    assert point is not None
    state, player = point
    other = next(p for p in ["red", "blue"] if p != player)
    if other not in [d.player for d in game.pending(state)]:
        assert build_graph(game, state, other) is None
    small = build_graph(game, state, player, Caps(nodes=3, applies=10, gzip_bytes=1500))
    assert small is not None and len(small.nodes) <= 3 and packed_size(graph_data(small)) <= 1500


def _where(view, handle: str) -> str:
    """The space a piece of a Survive view is on ("" off the board)."""
    for kind in ("explorers", "boats", "creatures"):
        piece = view[kind].get(handle)
        if piece is not None:
            if kind == "explorers" and piece["where"] == "boat":
                return str(view["boats"][piece["at"]]["at"] or "")
            return str(piece["at"] or "")
    return ""


@pytest.mark.slow(seconds=10)
def test_space_attack_shows_crew_pods_fighters_turrets_and_captured_creatures_on_the_board():
    game = load_game("space-attack")
    seen: set[str] = set()
    for seed in range(6):
        rng = random.Random(seed)
        state = game.setup(["red", "blue"], game.resolve_options({}, ["red", "blue"]), Rng(bytes([seed]) * 32, "s"))
        for n in range(400):
            pending = pending_players(game, state)
            if not pending:
                break
            player = pending[0]
            legal = game.legal_actions(state, player)
            view = game.view(state, player)
            for action, place in zip(legal, game.action_places(view, player, legal)):
                kind = next(iter(action))
                if kind == "move":
                    piece = str(action["move"])
                    what = "fighter" if piece.startswith("X") else "pod" if piece.startswith("P") else "crew"
                    assert place == ActionPlaces(piece, _where(view, piece), str(action["to"])), action
                    seen.add(what)
                elif kind == "fire":
                    turret = str(action["fire"])
                    assert place == ActionPlaces(turret, view["tiles"][turret]["at"], str(action["at"])), action
                    seen.add("turret")
                elif kind == "deploy" and action["deploy"] != "none":
                    assert place == ActionPlaces(str(action["deploy"]), "", str(action["to"])), action
                    seen.add("captured")
                elif kind in ("pod", "place"):
                    piece, to = str(action[kind]), str(action.get("at", action.get("on")))
                    assert place == ActionPlaces(piece, "", to), action
                    seen.add(kind)
                elif kind == "remove" and set(action) == {"remove"}:
                    assert place == ActionPlaces(tile=str(action["remove"])), action
                    seen.add("remove")
                elif kind in ("done", "board", "steal") or action.get(kind) == "none":
                    assert place == ActionPlaces(), action                    # a button
            apply_actions(game, state, player, [rng.choice(legal)], Draws(bytes([seed]) * 32, f"r/{n}"))
        if seen >= {"crew", "pod", "fighter", "turret", "captured", "place", "remove"}:
            return
    raise AssertionError(f"only saw {sorted(seen)}")


def test_a_players_copy_makes_the_same_page_with_pbem_show_and_their_key(tmp_path, key_pool):
    gd = new_game(tmp_path / "game", "atlantis", key_pool, ["red", "blue"], seed=b"v" * 32)
    game = PipelineGame(gd)
    for _ in range(26):                                  # into the play phase (published once, after the last)
        move = game.bot_move(key_pool, b"show-bot")
        assert move is not None
        game.take(*move)
    game.publish()
    table = Table.load(gd)
    player = pending_players(table.game, table.state)[0]
    copy = tmp_path / "copy"                             # what the player has: no moderator folder, no seed
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    theirs = CliRunner().invoke(main, ["show", str(gd.root), "--as", player, "--format", "html"])
    mine = CliRunner().invoke(main, ["show", str(copy), "--as", player, "--key", str(key_pool[player]),
                                     "--format", "html"])
    assert mine.exit_code == 0 and theirs.exit_code == 0, mine.output + theirs.output
    assert page_data(mine.output) == page_data(theirs.output)
    other = next(p for p in ["red", "blue"] if p != player)
    wrong = CliRunner().invoke(main, ["show", str(copy), "--as", other, "--key", str(key_pool[player]),
                                      "--format", "html"])
    assert wrong.exit_code != 0 and len(wrong.output.strip().splitlines()) == 1


def test_pbem_show_as_a_player_on_their_copy_without_key_says_to_give_it(tmp_path, key_pool):
    gd = new_game(tmp_path / "game", "atlantis", key_pool, ["red", "blue"], seed=b"k" * 32)
    copy = tmp_path / "copy"                             # a player's copy: no moderator folder, no seed
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    result = CliRunner().invoke(main, ["show", str(copy), "--as", "red", "--format", "html"])
    assert result.exit_code != 0
    assert result.output.strip().splitlines() == [
        "pbem: error: a player's copy shows --as red only with --key: your SSH private key, to read your "
        "secrets (secrets/red.age)"]
    assert CliRunner().invoke(main, ["show", str(copy), "--format", "text"]).exit_code == 0   # the public view


MAIL_SETTINGS = """\
sender = "gm@example.org"

[players]
red = "red@example.org"
blue = "blue@example.org"
green = "green@example.org"

[maildir]
path = "/nonexistent/Maildir"
"""


@pytest.mark.slow(seconds=6)
def test_pbem_move_on_a_players_copy_plays_their_own_tiles_with_their_key(tmp_path, key_pool):
    """Where a decision's choices hang on the player's hidden hand, the public files cannot list them:
    `pbem move` on a player's copy says to give --key, and with it the bot reads the player's secrets
    and writes a move the moderator accepts."""
    gd = new_game(tmp_path / "game", "atlantis", key_pool, ["red", "blue", "green"], seed=b"m" * 32)
    game = PipelineGame(gd)
    copy, out = tmp_path / "copy", tmp_path / "move.yaml"
    for _ in range(200):
        player = pending_players(game.table.game, game.table.state)[0]
        if game.table.game.pending(game.table.state)[0].kind == "play-tile":
            game.publish()
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))   # no seed
            public = CliRunner().invoke(main, ["move", str(copy), "--player", player, "--out", str(out)])
            if public.exit_code != 0:
                break
        game.take(*game.bot_move(key_pool))
    else:
        raise AssertionError("no tile play hung on a hidden hand in 200 moves")
    assert public.output.strip().splitlines() == [
        f"pbem: error: {player} has a decision to make, but its choices depend on hidden information the public "
        "files do not hold (your tiles or cards): give --key to read your secrets, or write the move from the "
        "template in your decrypted digest"]
    assert not out.exists()
    private = CliRunner().invoke(main, ["move", str(copy), "--player", player, "--key", str(key_pool[player]),
                                        "--out", str(out)])
    assert private.exit_code == 0, private.output
    raw = out.read_bytes()
    assert b"- {play: T" in raw                                   # one of their own tiles
    from pbem.crypto import sshsig
    from pbem.crypto.keys import load_private_key
    entry = game.take(raw, sshsig.sign(load_private_key(key_pool[player]), raw, sshsig.MOVE_NAMESPACE))
    assert entry["player"] == player and entry["actions"][0]["play"].startswith("T")


def test_the_page_is_made_from_the_log_alone_whether_or_not_the_game_is_mailed(tmp_path, key_pool):
    """A player's page fits in a digest message in every game (taking the board picture's room, its
    panel trimmed or left out by the same rule), so mail settings that come or go mid-game change nothing an audit finds."""
    from pbem.crypto import agecrypt
    from pbem.pipeline.audit import audit
    from pbem.pipeline.repair import repair
    from pbem.views.outputs import HTML_SUFFIX, opened_bytes, page_budget, player_plaintexts, secrets_file

    gd = new_game(tmp_path / "game", "space-attack", key_pool, ["red", "blue", "green"], seed=b"m" * 32)
    settings = gd.moderator_dir / "mail.toml"
    trimmed = 0
    game = PipelineGame(gd)       # the moves: logged by submit's own functions, published at the checked entries
    for n in range(64):
        move = game.bot_move(key_pool, b"mail-budget")
        if move is None:
            break
        game.take(*move)
        if n % 8:
            continue
        game.publish()
        table = Table.load(gd)
        for player in pending_players(table.game, table.state):
            page = opened_bytes(agecrypt.decrypt(secrets_file(table, player, HTML_SUFFIX).read_bytes(),
                                                 key_pool["mallory"]))
            assert page == player_plaintexts(table, player)[HTML_SUFFIX]
            whole = CliRunner().invoke(main, ["show", str(gd.root), "--as", player, "--format", "html"]).output
            trimmed += ("pbem-click-data" not in page.decode() or page_data(whole) != page_data(page.decode())
                        or page_budget(table, player) < 0)      # or the page takes the board picture's room
        settings.write_text(MAIL_SETTINGS)               # the moderator starts mailing the game now ...
        report = audit(gd)
        assert report.ok, report.problems
        before = {p.name: p.read_bytes() for p in sorted(gd.secrets_dir.iterdir())}
        repair(gd)                                       # ... nothing is rewritten for it
        assert {p.name: p.read_bytes() for p in sorted(gd.secrets_dir.iterdir())} == before
        settings.unlink()                                # ... and stops
        assert audit(gd).ok
    assert trimmed, "no page had its panel trimmed or took the picture's room: the test shows nothing"
