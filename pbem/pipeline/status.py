"""`pbem status`: works on the moderator's copy and on a player's copy (no seed needed).

On the moderator's copy it first repairs what an interrupted command left (:mod:`pbem.pipeline.repair`),
like every other moderator command, so that it reads a whole log and digests that match it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pbem.core.engine import game_for
from pbem.pipeline.repair import is_moderator_copy, load_repaired
from pbem.store.gamedir import GameDir
from pbem.store.table import revealed_at


def game_status(game_dir: Path) -> dict[str, Any]:
    gd = GameDir(game_dir)
    table = load_repaired(gd) if is_moderator_copy(gd) else None
    entries = gd.entries()
    header = entries[0]
    game = game_for(header)
    with_pending = [e for e in entries if "pending" in e]
    pending = with_pending[-1]["pending"] if with_pending else []
    view = json.loads((gd.public_dir / "view.json").read_text())["view"]
    info: dict[str, Any] = {
        "id": header["id"], "game": header["game"], "index": entries[-1]["index"],
        "hash": entries[-1]["hash"], "turn": game.turn_number(view),
        "pending": pending,
        "waiting_for": sorted({d["player"] for d in pending}),
        "over": not pending,
        "revealed": any(e.get("kind") == "reveal" for e in entries),
        "closed": revealed_at(entries),
    }
    if info["over"] and gd.seed(entries) is not None:
        if table is None:
            table = load_repaired(gd)
        result = game.result(table.state)
        if result is not None:
            info["scores"] = dict(result.scores)
            info["winners"] = list(result.winners)
    return info
