"""Driving a game through the real pipeline in tests (keys, signed files, submit)."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pbem.core.rng import Rng
from pbem.crypto import keys, sshsig
from pbem.pipeline.audit import AuditReport, audit
from pbem.pipeline.botmoves import bot_move_file, next_to_move
from pbem.pipeline.moderator import reveal
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import MoveFile, render_move
from pbem.store.table import Table


def new_game(root: Path, game: str, key_pool: dict[str, Path], names: list[str], seed: bytes = b"s" * 32,
             options: dict[str, str] | None = None, deadlines: dict[str, Any] | None = None) -> GameDir:
    specs = [PlayerSpec(n, keys.normalise_public_key(key_pool[n].with_name(key_pool[n].name + ".pub").read_text()))
             for n in names]
    create_game(root, game, specs, options or {}, seed, moderator_key=key_pool["mallory"], deadlines=deadlines)
    return GameDir(root)


def signed_move(table: Table, player: str, actions: list[dict[str, Any]], key: Path,
                after: int | None = None, after_hash: str | None = None) -> tuple[bytes, str]:
    mv = MoveFile(table.game_id, player, table.last["index"] if after is None else after,
                  table.last["hash"] if after_hash is None else after_hash, actions)
    raw = render_move(mv).encode()
    return raw, sshsig.sign(keys.load_private_key(key), raw, sshsig.MOVE_NAMESPACE)


def bot_move(gd: GameDir, key_pool: dict[str, Path], bot_seed: bytes = b"bot",
             bot: str = "random") -> tuple[bytes, str] | None:
    table = Table.load(gd)
    player = next_to_move(table)
    if player is None:
        return None
    move = bot_move_file(table, player, Rng(bot_seed, f"{table.last['index'] + 1}/{player}"), bot)
    return signed_move(table, player, move.actions, key_pool[player])


def play_to_end(gd: GameDir, key_pool: dict[str, Path], bot_seed: bytes = b"bot", limit: int = 5000,
                bot: str = "random") -> int:
    count = 0
    while (mv := bot_move(gd, key_pool, bot_seed, bot)) is not None:
        submit(gd, *mv)
        count += 1
        assert count < limit, "game did not end"
    return count


def reveal_and_audit(gd: GameDir, published: Path) -> AuditReport:
    """Reveal the seed of a finished game, copy it to ``published`` without the moderator's
    folder (what the players have), and audit that copy: the audit must pass."""
    reveal(gd)
    shutil.copytree(gd.root, published, ignore=shutil.ignore_patterns("moderator"))
    report = audit(GameDir(published))
    assert report.ok, report.problems
    return report
