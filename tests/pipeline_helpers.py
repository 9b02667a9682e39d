"""Driving a game through the real pipeline in tests (keys, signed files, submit).

:class:`PipelineGame` plays a game through the pipeline's own steps without `submit`'s
per-move publishing: each signed move is checked and applied by :func:`accept_move` (what
`submit` calls) and committed to the real log by :func:`commit_entry` (what `submit`'s
append calls), and the derived files (digests, encrypted secrets, snapshot) are written by
the real :func:`publish` once, when asked.  The log and the archived moves are byte for byte
what `submit` writes (see below); the outputs of any entry are
made in memory with the functions `publish` calls (``public_outputs``, ``player_plaintexts``).  The property tests
play their games so (tests/test_*_properties.py); the equality with `submit` is checked by
their ``test_same_seed_same_moves_same_bytes...``.
"""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from pbem.core.rng import Rng
from pbem.crypto import keys, sshsig
from pbem.pipeline.audit import AuditReport, audit
from pbem.pipeline.append import commit_entry, publish
from pbem.pipeline.botmoves import bot_move_file, next_to_move
from pbem.pipeline.moderator import reveal
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import accept_move, moderator_opener, submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import MoveFile, render_move
from pbem.store.table import Table


#: the names of conftest's ``key_pool`` (the players', and "mallory" the moderator's)
KEY_NAMES = ("red", "blue", "green", "yellow", "purple", "orange", "mallory")


def fixed_key_pool(folder: Path) -> dict[str, Path]:
    """A key pool as conftest's ``key_pool`` (the same names, each key with its ``.pub``) whose
    keys are made from their names alone.  A move's draws come from its signature, and an
    Ed25519 signature is deterministic: a game played with these keys is the same game, with the
    same dice, on every run, while ``key_pool``'s keys are new each session (so a game played
    with them takes another course each time the tests run)."""
    folder.mkdir(parents=True, exist_ok=True)
    pool = {}
    for name in KEY_NAMES:
        key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"pbem-test-key/{name}".encode()).digest())
        path = folder / name
        path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
        path.chmod(0o600)
        path.with_name(name + ".pub").write_text(f"{keys.public_key_of(key)} {name}@test\n")
        pool[name] = path
    return pool


def new_game(root: Path, game: str, key_pool: dict[str, Path], names: list[str], seed: bytes = b"s" * 32,
             options: dict[str, str] | None = None, deadlines: dict[str, Any] | None = None,
             position: dict[str, Any] | None = None) -> GameDir:
    """A new game (as `pbem new`), from ``position`` when given (as `pbem new --position`)."""
    specs = [PlayerSpec(n, keys.normalise_public_key(key_pool[n].with_name(key_pool[n].name + ".pub").read_text()))
             for n in names]
    create_game(root, game, specs, options or {}, seed, position=position, moderator_key=key_pool["mallory"],
                deadlines=deadlines)
    return GameDir(root)


def late_position(game_name: str, names: list[str], options: dict[str, str] | None = None,
                  seed: bytes = b"late" * 8, left: int = 40, bot: str = "greedy") -> dict[str, Any]:
    """A position ``left`` actions before the end of a game the bots play in memory (through
    ``Game.setup``/``Game.apply`` only): where the transport tests that need not play a whole
    game start (`pbem new --position`), so that the end, the reveal and the audit are reached soon."""
    from pbem.core.bots import CHOOSERS
    from pbem.core.registry import load_game
    game = load_game(game_name)
    state = game.setup(list(names), game.full_options(options or {}), Rng(seed, "late/setup"))
    choose, bot_rng = CHOOSERS[bot], Rng(seed, "late/bot")
    positions = []
    while game.result(state) is None:
        positions.append(game.to_position(state))
        player = game.pending(state)[0].player
        game.apply(state, player, choose(game, state, player, bot_rng), Rng(seed, f"late/{len(positions)}"))
        assert len(positions) < 5000, f"{game_name}: the bots' game did not end"
    assert len(positions) > 2 * left, f"{game_name}: a game of {len(positions)} actions has no late position"
    return positions[-left]


def turn_position(game_name: str, names: list[str], player: str, turns_before: int,
                  seed: bytes = b"turn" * 8, bot: str = "random") -> dict[str, Any]:
    """The position at the start of ``player``'s turn after ``turns_before`` turns of theirs (a turn:
    their actions until another player is to act) in a game the bots play in memory: a position
    well into the game for a test that needs one turn there (`pbem new --position`), without
    submitting every move before it."""
    from pbem.core.bots import CHOOSERS
    from pbem.core.registry import load_game
    game = load_game(game_name)
    state = game.setup(list(names), game.full_options({}), Rng(seed, "turn/setup"))
    choose, bot_rng = CHOOSERS[bot], Rng(seed, "turn/bot")
    turns, last = 0, None
    for n in range(5000):
        assert game.result(state) is None, f"{game_name}: the game ended before {player}'s turn {turns_before}"
        acting = game.pending(state)[0].player
        if acting == player and last != player:
            if turns == turns_before:
                return game.to_position(state)
            turns += 1
        game.apply(state, acting, choose(game, state, acting, bot_rng), Rng(seed, f"turn/{n}"))
        last = acting
    raise AssertionError(f"{game_name}: {player}'s turn {turns_before} was not reached")


_LOADED_KEYS: dict[tuple[str, bytes], Ed25519PrivateKey] = {}


def private_key(path: Path) -> Ed25519PrivateKey:
    """``keys.load_private_key(path)``, loaded once per key file's bytes (a bot game signs hundreds
    of moves with the same few keys)."""
    ident = (str(path), Path(path).read_bytes())
    if ident not in _LOADED_KEYS:
        _LOADED_KEYS[ident] = keys.load_private_key(path)
    return _LOADED_KEYS[ident]


def signed_move(table: Table, player: str, actions: list[dict[str, Any]], key: Path,
                after: int | None = None, after_hash: str | None = None) -> tuple[bytes, str]:
    mv = MoveFile(table.game_id, player, table.last["index"] if after is None else after,
                  table.last["hash"] if after_hash is None else after_hash, actions)
    raw = render_move(mv).encode()
    return raw, sshsig.sign(private_key(key), raw, sshsig.MOVE_NAMESPACE)


def bot_move(gd: GameDir, key_pool: dict[str, Path], bot_seed: bytes = b"bot",
             bot: str = "random") -> tuple[bytes, str] | None:
    return table_bot_move(Table.load(gd), key_pool, bot_seed, bot)


def table_bot_move(table: Table, key_pool: dict[str, Path], bot_seed: bytes = b"bot",
                   bot: str = "random") -> tuple[bytes, str] | None:
    """The signed move a bot makes for the next player of ``table`` (None when the game is over)."""
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


def finish_in_memory(gd: GameDir, key_pool: dict[str, Path], bot_seed: bytes = b"bot", limit: int = 5000,
                     bot: str = "random") -> int:
    """:func:`play_to_end` with the moves taken by :class:`PipelineGame` (published once at the end):
    for a test whose subject is what comes after the bots' moves (the reveal, the audit)."""
    game = PipelineGame(gd)
    while (mv := game.bot_move(key_pool, bot_seed, bot)) is not None:
        game.take(*mv)
        assert game.moves < limit, "game did not end"
    game.publish()
    return game.moves


def submitted_and_in_memory(root: Path, game: str, key_pool: dict[str, Path], names: list[str], seed: bytes,
                            moves: int, bot: str = "random", options: dict[str, str] | None = None
                            ) -> tuple[GameDir, GameDir]:
    """The same game (same seed, same bots) played twice for ``moves`` moves: through `submit`
    (every move published), and in memory by :class:`PipelineGame` (published once at the end)."""
    submitted = new_game(root / "submitted", game, key_pool, names, seed=seed, options=options)
    for _ in range(moves):
        mv = bot_move(submitted, key_pool, bot=bot)
        if mv is None:
            break
        submit(submitted, *mv)
    in_memory = PipelineGame(new_game(root / "in-memory", game, key_pool, names, seed=seed, options=options))
    for _ in range(moves):
        mv = in_memory.bot_move(key_pool, bot=bot)
        if mv is None:
            break
        in_memory.take(*mv)
    in_memory.publish()
    return submitted, in_memory.gd


def game_files(gd: GameDir) -> dict[str, bytes]:
    """What a game folder holds that the same seed and moves must make byte for byte: the log, the
    archived moves, the public files, and every encrypted file's plaintext (age encrypts each
    time with a new key, so the ciphertexts differ; opened with the moderator's key)."""
    from pbem.crypto import agecrypt
    from pbem.views.outputs import opened_bytes
    files = {str(p.relative_to(gd.root)): p.read_bytes()
             for folder in (gd.moves_dir, gd.public_dir) for p in sorted(folder.rglob("*")) if p.is_file()}
    files["log.yaml"] = gd.log_path.read_bytes()
    for p in sorted(gd.secrets_dir.iterdir()):
        files[str(p.relative_to(gd.root))] = opened_bytes(agecrypt.decrypt(p.read_bytes(), gd.moderator_key_path))
    return files


def reveal_and_audit(gd: GameDir, published: Path) -> AuditReport:
    """Reveal the seed of a finished game, copy it to ``published`` without the moderator's
    folder (what the players have), and audit that copy: the audit must pass."""
    reveal(gd)
    shutil.copytree(gd.root, published, ignore=shutil.ignore_patterns("moderator"))
    report = audit(GameDir(published))
    assert report.ok, report.problems
    return report


class PipelineGame:
    """The moderator's game held in memory between moves (as one long-running `submit` would
    hold it): moves are taken by the pipeline's own functions and committed to the log on disk;
    the digests and secrets are published only by :meth:`publish`."""

    def __init__(self, gd: GameDir) -> None:
        self.gd = gd
        self.table = Table.load(gd)
        self.opener = moderator_opener(gd)
        self.moves = 0

    def take(self, raw: bytes, signature: str) -> dict[str, Any]:
        """Take one signed move (refused as `submit` refuses it); returns its log entry."""
        _move, entry, archive, _applied = accept_move(self.table, raw, signature, self.opener)
        commit_entry(self.table, entry, archive)
        self.moves += 1
        return entry

    def bot_move(self, key_pool: dict[str, Path], bot_seed: bytes = b"bot",
                 bot: str = "random") -> tuple[bytes, str] | None:
        return table_bot_move(self.table, key_pool, bot_seed, bot)

    def publish(self) -> None:
        """Write every derived file as `submit` would after the last entry, the snapshot last."""
        publish(self.table, self.table.log_text)
