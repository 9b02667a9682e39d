"""The generic turn model (templates/turnmodel/graph.js) against the engine, in node.

At random points of random games of every game, the player's page data for the generic model
(the capped choice graph and the pieces on their board, pbem.views.clickpage.graph_model) is
run in node through the model API and random paths walked through the turn: at every step the
model's `legal` is exactly the engine's legal actions (as canonical JSON; in the graph's
numbering), its `words` the engine's describe_action, its `text` the move file's text; `apply`
says stop exactly where the engine needs a roll or a hidden value; `decision` is null exactly
where the player's part is over; `legal` is null only where the graph was cut; the pieces the
model moved stand where the engine's board has them.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from click_helpers import random_point  # noqa: E402
from harness import ModelProcess, model_files  # noqa: E402
from pbem.base.canonical import canonical  # noqa: E402
from pbem.core.actiontext import action_text  # noqa: E402
from pbem.core.draws import preview_draws  # noqa: E402
from pbem.core.engine import apply_actions  # noqa: E402
from pbem.core.registry import load_game  # noqa: E402
from pbem.views.choicegraph import build_graph  # noqa: E402
from pbem.views.clickpage import MAIL_CAPS, graph_choices, graph_model  # noqa: E402

CASES = [  # game, players, options, seed, decisions made before each look
    ("atlantis", ["red", "blue", "green"], {}, b"g1" * 16, [0, 7, 40, 90, 150]),
    ("atlantis", ["red", "blue"], {"dolphins": "yes", "squid": "yes"}, b"g2" * 16, [60, 120]),
    ("atlantis-1986", ["red", "blue", "green"], {}, b"g3" * 16, [10, 60, 120]),
    ("space-attack", ["red", "blue", "green"], {}, b"g4" * 16, [0, 40, 110, 160]),
    ("space-swarm", ["red", "blue", "green"], {}, b"g5" * 16, [0, 20, 80]),
]


@pytest.fixture(scope="module")
def node() -> Iterator[ModelProcess]:
    """One node process for the module's walks (each test drops the states it made)."""
    with ModelProcess(model_files(["graph"])) as process:
        yield process


def _top_cells(game, view) -> dict[str, str]:
    return {p.handle: c.label for c in game.board_picture(view).cells for p in c.pieces}


@pytest.mark.slow(seconds=30)
@pytest.mark.parametrize("name, players, options, seed, looks", CASES, ids=[f"{c[0]}-{n}" for n, c in enumerate(CASES)])
def test_the_graph_model_offers_exactly_what_the_engine_allows(name, players, options, seed, looks, node):
    game = load_game(name)
    walked = 0
    states: list[int] = []                    # the states made here, dropped at the end
    try:
        for steps in looks:
            rng = random.Random(seed + bytes([steps % 256]))
            point = random_point(game, players, options, seed, steps, rng)
            if point is None:
                continue
            state, player = point
            graph = build_graph(game, state, player, MAIL_CAPS)
            assert graph is not None
            view = game.view(state, player)
            data = graph_model(game, view, graph)
            start = node.start("graph", data, view, player)
            states.append(start)
            start_pieces = {p["handle"]: p["cell"] for p in node.pieces(start) if not p["aboard"]}
            assert start_pieces == _top_cells(game, view)
            for _walk in range(4):
                s, engine = start, game.copy_state(state)
                for _step in range(30):
                    if node.state(s)["n"] == -3:      # cut: the page stops here
                        assert graph_choices(graph) == "cut" and node.legal(s) is None
                        break
                    mine = any(d.player == player for d in game.pending(engine))
                    decision = node.decision(s)
                    assert (decision is None) == (not mine), (name, steps, "decision")
                    if decision is None:
                        break
                    legal = node.legal(s)
                    if legal is None:
                        assert graph_choices(graph) == "cut"
                        break
                    expected = game.legal_actions(engine, player)
                    # (the generic model lists them in the graph's numbering, which is the engine's
                    # order at the graph's first node only: the page's data keeps no other order)
                    assert sorted(canonical(a) for a in legal) == sorted(canonical(a) for a in expected), (name, steps)
                    assert len(legal) == len(expected)
                    action = rng.choice(legal)
                    assert node.words(s, action) == game.describe_action(action)
                    s, stop = node.apply(s, action)
                    states.append(s)
                    applied = apply_actions(game, engine, player, [dict(action)], preview_draws())
                    needs = applied.needs_secret or any(e.chance for e in applied.events)
                    # a step that needs a roll or a hidden value is a stop, unless the game knows
                    # that the player's part is over with it (Game.known_outcomes: HANDS_OVER), or the
                    # graph was cut there
                    assert stop == needs or (needs and (node.decision(s) is None or node.state(s)["n"] == -3)), (name, steps, action)
                    if stop or needs:
                        break
                    walked += 1
                    cells = _top_cells(game, game.view(engine, player))
                    moved = node.state(s)["at"]
                    for piece, cell in moved.items():
                        # (a stack named by its space, split by the move, stays where it was)
                        if piece in cells and cells[piece] != start_pieces.get(piece):
                            assert cells[piece] == cell, (name, steps, piece)
    finally:
        node.drop(states)
    assert walked > 0
