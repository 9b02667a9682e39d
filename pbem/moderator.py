"""Moderator entries: revealing the seed at the end of the game."""
from __future__ import annotations

from typing import Any

from pbem.fsutil import locked, write_atomic
from pbem.gamedir import GameDir
from pbem.log import render_entry, seal
from pbem.newgame import sign_entry
from pbem.outputs import write_outputs
from pbem.table import Table, start_position


class ModeratorError(ValueError):
    pass


def reveal(gd: GameDir, force: bool = False) -> dict[str, Any]:
    """Append a signed `reveal` entry publishing the seed (and a --position start)."""
    with locked(gd.root):
        table = Table.load(gd)
        if any(e.get("kind") == "reveal" for e in table.entries):
            raise ModeratorError("the seed is already revealed in the log")
        if table.game.result(table.state) is None and not force:
            raise ModeratorError("the game is not over; revealing the seed now would show every hidden value "
                                 "(use --force to abandon the game and reveal anyway)")
        assert table.seed is not None
        entry: dict[str, Any] = {"index": table.last["index"] + 1, "kind": "reveal", "prev": table.last["hash"],
                                 "seed": table.seed.hex()}
        start = start_position(gd, table.entries)
        if start is not None:
            entry["start_position"] = start
        entry["state"] = table.current_state_hash()
        entry = seal(sign_entry(entry, gd.moderator_key_path))
        old = gd.read_log_text()
        table.entries.append(entry)
        table.save_snapshot()
        write_outputs(table)
        write_atomic(gd.log_path, old + render_entry(entry))
        return entry
