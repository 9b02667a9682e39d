"""Decision points for the choice-graph tests (test_choice_graphs.py) and their pins.

The golden games (golden_games.py) replayed to a few steps each, and Space Swarm (which has no
golden games) played by the random bot: every game, option set and player count the golden
games cover.  ``python graph_points.py`` prints the pins of today's graphs (run it only when
the page data is meant to change).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))

from golden_games import CONFIGS, replay  # noqa: E402

from pbem.core.bots import random_action  # noqa: E402
from pbem.views.choicegraph import Caps, build_graph, graph_data  # noqa: E402
from pbem.views.clickpage import MAIL_CAPS, SHOW_CAPS  # noqa: E402
from pbem.core.engine import action_rng  # noqa: E402
from pbem.core.game import pending_players
from pbem.core.registry import load_game  # noqa: E402
from pbem.core.rng import Rng  # noqa: E402

#: the golden games' steps looked at (each game's own decision points: set-up, movement, removal,
#: tiles played, creatures, reactions); the graph at the last one is made with SHOW_CAPS
GOLDEN_STEPS = (9, 41, 66, 97, 140)
SWARM_GAMES = ((("red", "blue"), {}), (("red", "blue", "green"), {}), (("red", "blue", "green", "yellow"),
                                                                       {"decks": "2"}))
SWARM_STEPS = (4, 17, 33, 58, 90, 131)


def points() -> Iterator[tuple[str, Any, Any, str, Caps]]:
    """(name, game, state, player, caps) at every point; ``name`` says where it is."""
    for config in CONFIGS:
        wanted = set(GOLDEN_STEPS)
        for game, state, number, step in replay(config):
            pending = pending_players(game, state)
            if number in wanted and pending:
                caps = SHOW_CAPS if number == GOLDEN_STEPS[-1] else MAIL_CAPS
                yield f"game{config.game_no:02d}/{number}", game, state, pending[0], caps
            if number >= GOLDEN_STEPS[-1]:
                break
    game = load_game("space-swarm")
    for n, (players, options) in enumerate(SWARM_GAMES):
        state = game.setup(list(players), game.full_options(options), Rng(b"graph-points", f"swarm/{n}"))
        bot = Rng(b"graph-points-bot", str(n))
        for steps in range(SWARM_STEPS[-1] + 1):
            pending = pending_players(game, state)
            if not pending:
                break
            if steps in SWARM_STEPS:
                caps = SHOW_CAPS if steps == SWARM_STEPS[-1] else MAIL_CAPS
                yield f"swarm{n}/{steps}", game, state, pending[0], caps
            action = random_action(game, state, pending[0], bot)
            game.apply(state, pending[0], action, action_rng(b"graph-points", f"swarm/{n}", steps, 0))


def fingerprint(data: Any) -> str:
    """A short hash of page data (as JSON: what the page carries)."""
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()[:20]


def graph_pins() -> dict[str, str]:
    out = {}
    for name, game, state, player, caps in points():
        graph = build_graph(game, state, player, caps)
        assert graph is not None, name
        out[name] = fingerprint(graph_data(graph))
    return out


if __name__ == "__main__":
    for name, pin in graph_pins().items():
        print(f"    {name!r}: {pin!r},")
