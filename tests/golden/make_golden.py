"""Record the golden games (tests/golden/data/gameNN.json.gz) by letting bots play them.

Run only when a rule change is intended (tests/golden/README.md):

    .venv/bin/python tests/golden/make_golden.py            # every game
    .venv/bin/python tests/golden/make_golden.py 3 17       # only these game numbers

The bots (pbem/core/bots.py, "random" or "greedy") choose each action from
``legal_actions``; their own randomness comes from ``Rng(seed, "golden-bot/N")``.
The test replays the recorded actions, not the bots, so a later bot change does
not break it.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from golden_games import (  # noqa: E402
    CONFIGS,
    FORMAT,
    Config,
    canonical,
    events_record,
    pending_record,
    plain,
    result_record,
    sampled,
    snapshot,
    step_rng,
    write,
)

from pbem.core.bots import CHOOSERS  # noqa: E402
from pbem.core.registry import load_game  # noqa: E402
from pbem.core.rng import Rng  # noqa: E402

MAX_STEPS = 5000


def record(config: Config) -> dict[str, Any]:
    game = load_game(config.game)
    players = list(config.players)
    options = game.full_options(config.options)
    game.check_options(options, players)
    state = game.setup(players, options, step_rng(config, 0))
    seen: set[str] = set()
    out: dict[str, Any] = {
        "format": FORMAT, "game_no": config.game_no, "game": config.game, "rules_version": game.rules_version,
        "players": players, "options": options, "seed": config.seed.decode(), "bot": config.bot,
        "setup": {"pending": plain(pending_record(game, state)),
                  "snapshot": canonical(snapshot(game, state, players))},
        "steps": [],
    }
    choose, bot_rng = CHOOSERS[config.bot], Rng(config.seed, f"golden-bot/{config.game_no}")
    opening = list(config.opening)
    step = 0
    while game.result(state) is None:
        pending = game.pending(state)
        if not pending or step >= MAX_STEPS:
            raise RuntimeError(f"{config.describe()} stuck after {step} steps")
        step += 1
        if opening:
            player, action = opening.pop(0)
            action = plain(action)
        else:
            player = pending[0].player
            action = plain(choose(game, state, player, bot_rng))
        events = game.apply(state, player, action, step_rng(config, step))
        entry: dict[str, Any] = {"player": player, "action": action, "events": plain(events_record(events)),
                                 "pending": plain(pending_record(game, state))}
        kinds = {f"decision:{d[1]}" for d in entry["pending"]} | {f"event:{e[0].get('event')}" for e in entry["events"]}
        if sampled(step, kinds, seen) or game.result(state) is not None:
            entry["snapshot"] = canonical(snapshot(game, state, players))
        out["steps"].append(entry)
    out["result"] = plain(result_record(game, state))
    return out


def main(argv: list[str]) -> None:
    wanted = {int(a) for a in argv}
    for config in CONFIGS:
        if wanted and config.game_no not in wanted:
            continue
        rec = record(config)
        write(config, rec)
        print(f"{config.describe()}: {len(rec['steps'])} steps, "
              f"{config.file.stat().st_size // 1024} KiB, winners {rec['result']['winners']}")


if __name__ == "__main__":
    main(sys.argv[1:])
