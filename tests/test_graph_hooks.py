"""The hooks the click-to-move choices ask a game (pbem/views/choicegraph.py), with their neutral
defaults: a game that declares nothing gets every action tried on a copy, its nodes keyed by
the view's canonical JSON, its written-ahead forms from ``order_forms`` and its pieces' places
from ``action_places``, both of the view.  (What the Survive
games and Space Swarm declare is checked against the engine in tests/golden/test_choice_graphs.py.)
"""
from __future__ import annotations

import hashlib
from typing import Any, Mapping

import pytest

from toygame import ToyGame

from pbem.base.canonical import canonical
from pbem.base.yamlio import dump_flow
from pbem.core.actiontext import action_key, action_text
from pbem.core.game import pending_players
from pbem.core.rng import Rng
from pbem.game import OrderField, OrderForm
from pbem.views.choicegraph import DONE, STOP, build_graph


def toy_start(game: ToyGame) -> tuple[Any, Any, str]:
    state = game.setup(["ann", "bob"], game.full_options({}), Rng(b"t" * 32, "setup"))
    player = pending_players(game, state)[0]
    return state, game.from_position(game.view(state, player)), player


def test_a_game_that_declares_nothing_gets_every_action_tried() -> None:
    game = ToyGame()
    state, mine, player = toy_start(game)
    legal = game.legal_actions(mine, player)
    assert game.known_outcomes(mine, player, legal) == ["", ""]
    assert game.view_key(mine, player) == hashlib.sha256(canonical(game.view(mine, player))).digest()
    assert game.ahead_order_forms(mine, player) == []
    assert game.state_action_places(mine, player, legal) == game.action_places(game.view(mine, player), player, legal)
    graph = build_graph(game, state, player)
    assert graph is not None
    # drawing needs the hidden card (found by trying it on a copy); stopping hands the turn over
    assert [graph.texts[a] for a in graph.nodes[0].actions] == ["{draw: true}", "{stop: true}"]
    assert graph.nodes[0].after == [STOP, DONE]


class FormsGame(ToyGame):
    """The toy game with a standing order and an order written ahead."""

    def order_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        field = OrderField("card", "a card", ("low", "high"))
        return [OrderForm("standing", "Standing", (field,), "first"), OrderForm("next", "Next", (field,), "ahead")]


def test_the_written_ahead_forms_default_to_those_order_forms_gives() -> None:
    game = FormsGame()
    _state, mine, player = toy_start(game)
    assert [f.key for f in game.ahead_order_forms(mine, player)] == ["next"]


def test_actions_are_written_and_keyed_as_their_repr_tells() -> None:
    for action in ({"move": "r1", "to": "F5"}, {"move": "C4", "path": ["D4", "E5"], "fleets": 2},
                   {"slot": 1}, {"slot": True}, {"play": "none"}, {"attack": "all", "targets": {"D4": "green"}},
                   {"discard": [["C1"], ["C2"]]}, {"x": 1.5, "y": None}):
        assert action_text(action) == dump_flow(dict(action)) == ToyGame().describe_action(action)
    assert action_key({"slot": 1}) != action_key({"slot": True}) != action_key({"slot": 1.0})
    assert action_key({"a": ["x"]}) != action_key({"a": "x"})
    assert action_key({"attack": "all", "targets": {"D4": "green"}}) is None    # not plain: its repr is used


@pytest.mark.slow(seconds=2)
def test_a_smaller_page_is_the_page_made_again_with_fewer_choices(tmp_path) -> None:
    """The mail-fitting loop (outputs.player_plaintexts) swaps the panel's choices in the page it
    made instead of making the page again: the same bytes either way.

    The game is played in memory (PipelineGame: the pipeline's own steps without `submit`'s
    publishing) with fixed keys, so that the same pages are checked on every run: a move's dice
    come from its signature, so with fresh keys each session would play (and check) another game.
    The table in memory gives the same click pages as the one `submit` loads from the snapshot
    and as a replay of the log (tests/test_table_every_way.py)."""
    from dataclasses import replace

    from pipeline_helpers import PipelineGame, fixed_key_pool, new_game

    from pbem.views.clickpage import MAIL_CAPS, smaller
    from pbem.views.outputs import digest_context, with_other_choices
    from pbem.views.render.digest import render_digest

    key_pool = fixed_key_pool(tmp_path / "keys")
    game = PipelineGame(new_game(tmp_path / "game", "space-attack", key_pool, ["red", "blue", "green"],
                                 seed=b"w" * 32))
    swapped = 0
    for n in range(150):
        if swapped >= 2:
            break
        move = game.bot_move(key_pool, b"smaller")
        assert move is not None
        game.take(*move)
        if n % 6:
            continue
        table = game.table
        player = pending_players(table.game, table.state)[0]
        ctx = digest_context(table, player, clicks=MAIL_CAPS)
        if ctx.click is None:
            continue
        if ctx.click.graph is None:         # Space Attack's own model (survive.js): it cannot shrink, the
            generic = smaller(table, ctx.click, 1)     # generic model's page over the capped graph comes instead
            assert generic is not None and generic.family == "graph" and ctx.click.family == "survive"
            family_html = render_digest(ctx, "html").encode()
            assert with_other_choices(family_html, ctx.click, generic) is None     # another script: made again
            ctx = replace(ctx, click=generic)
        assert ctx.click.graph is not None
        if len(ctx.click.graph.nodes) < 3:
            continue
        html = render_digest(ctx, "html").encode()
        small = smaller(table, ctx.click, ctx.click.size // 3)
        assert small is not None and small.data != ctx.click.data
        assert with_other_choices(html, ctx.click, small) == render_digest(replace(ctx, click=small), "html").encode()
        assert with_other_choices(html, ctx.click, None) is None
        swapped += 1
    assert swapped >= 2
