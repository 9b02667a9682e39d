"""What the command modules share: the GAME_DIR argument and loading a game for a command that
only looks at it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

GAME_DIR = click.argument("game_dir", type=click.Path(path_type=Path))


def load_table(game_dir: Path, public_ok: bool = False) -> Any:
    """The moderator's table (repaired first, like every moderator command); on a player's copy
    (no seed) the public view, where that is enough."""
    from pbem.pipeline.repair import is_moderator_copy, load_repaired
    from pbem.store.gamedir import GameDir
    from pbem.store.table import Table
    gd = GameDir(game_dir)
    if is_moderator_copy(gd):
        return load_repaired(gd)
    if public_ok and gd.seed() is None:
        return Table.load_public(gd)
    return Table.load(gd)
