"""Builds click-to-move choice graphs on request, for `make bench` (benchmarks/graph_bench.py).

    python graph_worker.py GAMES EVERY LIMIT

plays a seeded 3-player game of each of GAMES (comma-separated) with the random bot and keeps
every EVERY-th decision point, LIMIT per game; prints ``ready N`` (N points), then for each
line ``K CAPS`` read (CAPS: ``mail``, ``show`` or ``turn``) builds the graph at point K with those caps
and its page data, and prints ``GAME CPU FINGERPRINT NODES`` (CPU seconds of this process).  The
bench runs one worker on today's pbem and one on the pbem of before issue 19 (its files from
git), asking both in turn: the same points, the same seeds, two versions of the code.  Only
what both versions have is used here.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from typing import Any

try:
    from pbem.core.bots import random_action
    from pbem.core.draws import setup_rng
    from pbem.core.engine import action_rng
    from pbem.core.registry import load_game
    from pbem.core.rng import Rng
    from pbem.views.choicegraph import Caps, build_graph, graph_data
    from pbem.views.clickpage import MAIL_CAPS, SHOW_CAPS
except ModuleNotFoundError:    # the pbem of before issue 20's layers (the bench's "before", from git)
    from pbem.bots import random_action  # type: ignore[no-redef]
    from pbem.draws import setup_rng  # type: ignore[no-redef]
    from pbem.engine import action_rng  # type: ignore[no-redef]
    from pbem.registry import load_game  # type: ignore[no-redef]
    from pbem.rng import Rng  # type: ignore[no-redef]
    from pbem.choicegraph import Caps, build_graph, graph_data  # type: ignore[no-redef]
    from pbem.clickpage import MAIL_CAPS, SHOW_CAPS  # type: ignore[no-redef]

PLAYERS = ["red", "blue", "green"]
SEED = b"pbem-bench-graphs-0123456789abcd"
#: the page mailed, the page ``pbem show`` makes, and a whole turn up to its real stops
CAPS = {"mail": MAIL_CAPS, "show": SHOW_CAPS, "turn": Caps(nodes=20000, applies=400000, gzip_bytes=10**9)}


def points(names: list[str], every: int, limit: int) -> list[tuple[str, Any, Any, str]]:
    """(name, game, state, player) at every ``every``-th decision of a seeded random-bot game of each game."""
    out = []
    for name in names:
        game = load_game(name)
        state = game.setup(PLAYERS, game.full_options({}), setup_rng(SEED, name))
        bot = Rng(SEED, f"{name}/bot")
        taken, step = 0, 0
        while game.result(state) is None and taken < limit:
            player = game.pending(state)[0].player
            if step % every == 0:
                out.append((name, game, game.copy_state(state), player))
                taken += 1
            game.apply(state, player, random_action(game, state, player, bot), action_rng(SEED, name, step, 0))
            step += 1
    return out


def main() -> None:
    names, every, limit = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
    todo = points(names, every, limit)
    print(f"ready {len(todo)}", flush=True)
    for line in sys.stdin:
        number, caps = line.split()
        name, game, state, player = todo[int(number)]
        start = time.process_time()
        graph = build_graph(game, state, player, CAPS[caps])
        data = graph_data(graph) if graph is not None else None
        cpu = time.process_time() - start
        nodes = len(graph.nodes) if graph is not None else 0
        fingerprint = hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()[:16]
        print(f"{name} {cpu:.6f} {fingerprint} {nodes}", flush=True)


if __name__ == "__main__":
    main()
