"""What `pbem play` seals before it signs a move: the player's intentions.

A preference list (``{prefer: [...]}``) and a standing order (the game's ``private_orders``) say
what the player means to do, not anything on the board yet.  Sent as they are, they would be
read by every other player in the log and the archived move (a whole set-up list before the
others place).  `pbem play` seals each one to the moderator's key (:func:`pbem.core.sealed.seal_action`,
what `pbem seal` does): the moderator opens and applies it, the log shows only the sealed form,
and `pbem reveal` publishes it at the end (docs/move-file.md, "Sealed actions").
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.core.game import Game
from pbem.core.preferences import is_prefer
from pbem.core.sealed import is_sealed, seal_action
from pbem.store.table import Table

__all__ = ["private", "sealed_orders"]


def private(game: Game[Any], action: Mapping[str, Any]) -> bool:
    """Is ``action`` one of the player's intentions, to be sealed (not already sealed)?"""
    if not action or is_sealed(action):
        return False
    return is_prefer(action) or next(iter(action)) in game.private_orders


def sealed_orders(table: Table, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``actions`` with each private one sealed to the moderator's key (log entry 0's)."""
    key = str(table.header["moderator"]["key"])
    return [seal_action(a, key) if private(table.game, a) else a for a in actions]
