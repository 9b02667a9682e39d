"""A bot's move file: the pipeline's use of the bots (:mod:`pbem.core.bots`) on a loaded game
(`pbem move --bot`, the demo)."""
from __future__ import annotations

from pbem.core.bots import bot_actions
from pbem.core.draws import preview_draws
from pbem.core.rng import Rng
from pbem.store.movefile import MoveFile
from pbem.store.table import Table

__all__ = ["next_to_move", "bot_move_file"]


def next_to_move(table: Table) -> str | None:
    """The first player with a pending decision, or None when the game is over."""
    pending = table.game.pending(table.state)
    return pending[0].player if pending else None


def bot_move_file(table: Table, player: str, bot_rng: Rng, bot: str = "random") -> MoveFile:
    """An unsigned move file with a bot's actions for ``player``, bound to the log's end."""
    actions = bot_actions(table.game, table.state, player, preview_draws(), bot_rng, bot)
    return MoveFile(table.game_id, player, table.last["index"], table.last["hash"], actions)
