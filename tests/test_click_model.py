"""The player's page over the turn model API (pbem/views/clickpage.py, templates/click.js,
templates/turnmodel/): which model a page carries, and whether it says it holds the whole turn.

Every decision page of bot games of every game says on its panel (``data-choices``) whether it
holds the whole turn (``complete``), stops at a real stop (``stop``) or was cut (``cut``), and
that is what its choices really are; a game whose ``Game.turn_model`` gives a model gets that
family's script and data and no choice graph (none is built); the generic model otherwise.
The page in a real browser: tests/test_click_browser.py.
"""
from __future__ import annotations

import hashlib
import random
import re

import pytest

from click_helpers import random_game, random_point
from pipeline_helpers import new_game
from pbem.core.registry import load_game
from pbem.core.turnmodel import TurnModel
from pbem.store.gamedir import GameDir
from pbem.store.table import Table
from pbem.views import clickpage
from pbem.views.boardmoves import BoardHistory
from pbem.views.choicegraph import CUT, STOP, build_graph, fit
from pbem.views.clickpage import MAIL_CAPS, graph_choices, model_code
from pbem.views.outputs import digest_context
from pbem.views.render.digest import render_digest

POINTS = [  # game, players, options, seed, decisions made before each look
    ("atlantis", ["red", "blue", "green"], {}, b"m1" * 16, [0, 30, 60, 100]),
    ("atlantis-1986", ["red", "blue"], {}, b"m2" * 16, [5, 40, 90]),
    ("space-attack", ["red", "blue", "green"], {}, b"m3" * 16, [0, 50, 120]),
    ("space-swarm", ["red", "blue"], {}, b"m4" * 16, [0, 15, 60]),
]
CHOICES = re.compile(r'<section class="click" id="pbem-click"[^>]* data-family="([a-z0-9-]*)" data-choices="([a-z]*)"')


def page_at(tmp_path, key_pool, name, players, options, seed, steps):
    """The page of the player to decide after ``steps`` random decisions, on a new game's table (one
    game folder per game and seed in ``tmp_path``: the table is loaded from it afresh each time)."""
    folder = tmp_path / hashlib.sha256(repr((name, players, sorted(options.items()), seed)).encode()).hexdigest()[:16]
    gd = GameDir(folder) if folder.is_dir() else new_game(folder, name, key_pool, players, seed=seed, options=options)
    table = Table.load(gd)
    point = random_point(table.game, players, options, seed, steps, random.Random(seed + bytes([steps % 256])))
    if point is None:
        return None
    table.state, player = table.game.copy_state(point[0]), point[1]
    ctx = digest_context(table, player, history=BoardHistory(table, []), clicks=MAIL_CAPS)
    return table, player, ctx, render_digest(ctx, "html")


@pytest.mark.slow(seconds=30)
@pytest.mark.parametrize("name, players, options, seed, looks", POINTS, ids=[p[0] for p in POINTS])
def test_every_decision_page_says_whether_it_holds_the_whole_turn(tmp_path, key_pool, name, players, options, seed,
                                                                  looks):
    seen = set()
    for steps in looks:
        made = page_at(tmp_path, key_pool, name, players, options, seed, steps)
        if made is None:
            continue
        table, player, ctx, html = made
        assert ctx.click is not None
        found = CHOICES.search(html)
        assert found is not None, "the panel says nothing of its choices"
        family, choices = found.groups()
        model = table.game.turn_model(table.game.view(table.state, player), player)
        if model is not None:                                # the game's own model: no graph, worked out on opening
            assert family == model.family and choices == "" and ctx.click.graph is None
            assert model_code(model.family) in html and model_code("graph") not in html   # its script, not the graph's
            seen.add(family)
            continue
        assert family == "graph" and choices == ctx.click.choices == graph_choices(ctx.click.graph)
        afters = [a for n in ctx.click.graph.nodes for a in n.after]
        assert (choices == "cut") == (CUT in afters)
        assert choices != "complete" or (STOP not in afters and CUT not in afters)
        assert "PBEM_MODELS.graph = model" in html          # the generic model's script, in the page
        seen.add(choices)
    assert seen


def test_the_graph_choices_read_the_graph():
    game = load_game("atlantis")
    # the points random_point(game, ..., steps, random.Random(3)) for steps 40 to 119: one game
    for steps, state, player in random_game(game, ["red", "blue"], {}, b"q" * 32, random.Random(3)):
        if steps < 40:
            continue
        if steps >= 120:
            raise AssertionError("no decision with follow-up choices")
        whole = build_graph(game, state, player)
        if whole is not None and len(whole.nodes) > 1 and not whole.cut:
            break
    else:
        raise AssertionError(f"the game ended after {steps} decisions")
    assert graph_choices(whole) in ("stop", "complete")
    assert graph_choices(fit(whole, 0)) == "cut"          # only the first choices kept: the rest cut


PROBE_JS = "PBEM_MODELS.probe = { start() { return {}; } };  // probe-family-script\n"


def test_a_game_with_a_turn_model_gets_its_family_and_no_graph(tmp_path, key_pool, monkeypatch):
    made = page_at(tmp_path, key_pool, "atlantis", ["red", "blue"], {}, b"f" * 32, 30)
    assert made is not None
    table, player, _ctx, _html = made
    given = []

    def turn_model(view, who):
        given.append((view, who))
        return TurnModel("probe", {"board": ["F6", "F7"], "moves": 3})

    def no_graph(*args, **kwargs):
        raise AssertionError("a page with a turn model needs no choice graph")

    monkeypatch.setattr(table.game, "turn_model", turn_model)
    monkeypatch.setattr(clickpage, "build_graph", no_graph)
    monkeypatch.setattr(clickpage, "model_code", lambda family: PROBE_JS if family == "probe" else model_code(family))
    ctx = digest_context(table, player, history=BoardHistory(table, []), clicks=MAIL_CAPS)
    html = render_digest(ctx, "html")
    assert given == [(table.game.view(table.state, player), player)]      # made from the player's own view
    found = CHOICES.search(html)
    assert found is not None and found.groups() == ("probe", "")          # the page works it out when it opens
    assert "probe-family-script" in html and "PBEM_MODELS.graph = model" not in html
    data = ctx.click.data
    assert data["family"] == "probe" and data["model"] == {"board": ["F6", "F7"], "moves": 3}
    assert data["view"] == table.game.view(table.state, player)


@pytest.mark.parametrize("family", ["../click", "Graph", "", "graph.js", "a/b"])
def test_a_family_is_a_plain_name(family):
    with pytest.raises(ValueError):
        model_code(family)
