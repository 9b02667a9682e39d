"""Checking a Space Attack position before a game starts from it (placeholder, filled in below)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from pbem.rules.spaceattack.game import SpaceAttackGame


class SpaceAttackPositionCheck:
    def __init__(self, game: SpaceAttackGame, position: Mapping[str, Any]) -> None:
        self.game, self.pos = game, position

    def run(self) -> None:
        self.game.from_position(self.pos)
