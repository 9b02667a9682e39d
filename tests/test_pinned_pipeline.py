"""Whole games through the real pipeline, pinned byte for byte.

The golden games (tests/golden/) pin the rules at the Game interface; these pin what the
pipeline writes: the log (every entry's bytes, hashes and signatures), the public digests,
board and view, and what each player's encrypted secrets hold.  With fixed keys (Ed25519
signatures are deterministic, and a move's draws come from its signature), a fixed seed and a
fixed game id, the same moves give the same bytes, so any change to how the engine stores,
appends or renders a game shows here.  Performance work (issue 12) must leave them as they are.

The players' HTML pages were re-pinned when the click-to-move panel landed, and again when every
page's script data went through one escaping function (pbem.views.render.scriptdata: keys sorted, ``>`` and
``&`` escaped too; the only files that changed were the two pages that carry a click panel).  Regenerate only when the output is meant to change: ``PRINT_PINS=1 pytest -q -s
test_pinned_pipeline.py`` prints the hashes of today's bytes.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from pbem.core.rng import Rng
from pbem.crypto import agecrypt, keys, sshsig
from pbem.pipeline.audit import audit
from pbem.pipeline.botmoves import bot_move_file, next_to_move
from pbem.pipeline.moderator import moderate, reveal
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import render_move
from pbem.store.table import Table
from pbem.views.outputs import opened_bytes


def fixed_keypair(path: Path, name: str) -> str:
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"pbem-pinned-key/{name}".encode()).digest())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
    path.chmod(0o600)
    return keys.public_key_of(key)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:24]


def fingerprints(gd: GameDir, players: list[str]) -> dict[str, str]:
    """Hashes of the log, the public files, the archived moves and each player's secrets (plaintext)."""
    out = {"log.yaml": sha(gd.log_path.read_bytes())}
    for path in sorted(gd.public_dir.iterdir()):
        out[f"public/{path.name}"] = sha(path.read_bytes())
    out["moves/"] = sha(b"".join(p.name.encode() + b"\0" + p.read_bytes() for p in sorted(gd.moves_dir.iterdir())))
    for player in players:
        for path in (gd.secrets_path(player), gd.secrets_html_path(player)):
            plain = opened_bytes(agecrypt.decrypt(path.read_bytes(), gd.moderator_key_path))
            out[f"secrets/{path.name}"] = sha(plain)
    return out


def play(root: Path, game: str, players: list[str], moderator_steps: dict[int, tuple[str, dict[str, str]]],
         midway: int) -> tuple[GameDir, dict[str, str]]:
    """Bots play ``game`` to its end through submit; at the given log entries the moderator acts.
    Returns the game and the fingerprints of its files at log entry ``midway``."""
    key_dir = root / "keys"
    specs = [PlayerSpec(n, fixed_keypair(key_dir / n, n)) for n in players]
    fixed_keypair(key_dir / "moderator", "moderator")
    gd = GameDir(root / "game")
    create_game(gd.root, game, specs, {}, b"pinned-seed-0123456789abcdef-012", moderator_key=key_dir / "moderator",
                game_id=f"pinned-{game}")
    middle: dict[str, str] = {}
    while (player := next_to_move(table := Table.load(gd))) is not None:
        index = table.last["index"]
        if index == midway:
            middle = fingerprints(gd, players)
        if index in moderator_steps:
            action, fields = moderator_steps.pop(index)
            moderate(gd, action, f"pinned {action}", **{k: (player if v == "NEXT" else v) for k, v in fields.items()})
            continue
        move = bot_move_file(table, player, Rng(b"pinned-bot", f"{index}/{player}"))
        raw = render_move(move).encode()
        submit(gd, raw, sshsig.sign(keys.load_private_key(key_dir / player), raw, sshsig.MOVE_NAMESPACE))
    reveal(gd)
    return gd, middle


PINS: dict[str, dict[str, str]] = {
    "atlantis": {
        "45:log.yaml": "a88d64c1e7218f8d8eb04a6c",
        "45:public/board.svg": "f40b51b07530cb74e1d0a5e2",
        "45:public/digest.html": "d1715b371b7c896e7f3997cd",
        "45:public/digest.txt": "4f608227a312a54bc8677aba",
        "45:public/view.json": "c9ef56337ef20c9975b9673e",
        "45:moves/": "8f59f4afd2111f4fb8c3ee01",
        "45:secrets/red.age": "97ba2af5d52820f238349965",
        "45:secrets/red.html.gz.age": "808417557a444fb9eb94ce0f",
        "45:secrets/blue.age": "de803a7111107ccb79159739",
        "45:secrets/blue.html.gz.age": "0d274324ec5e0d1061a878dd",
        "45:secrets/green.age": "8b8709e7fc146af80039ccf2",
        "45:secrets/green.html.gz.age": "71a1a6f490f0a09d8796fd22",
        "45:secrets/yellow.age": "5142dc32435cc25f8fbd5587",
        "45:secrets/yellow.html.gz.age": "b157cfa58f57dc07c06ebde6",
        "log.yaml": "12e1287621235c40820f6702",
        "public/board.svg": "5f358196006a06b363a16006",
        "public/digest.html": "dbac173226e6d63e939d8b7f",
        "public/digest.txt": "d9d8d8aff7f44c26dbdee88d",
        "public/view.json": "ffb3652ea4fa8e086e594169",
        "moves/": "d8773fed73776502d4e909af",
        "secrets/red.age": "65855c0ff4591d310725982d",
        "secrets/red.html.gz.age": "e489cd029080220a18b0f4fb",
        "secrets/blue.age": "674b7e13c2098d2501fc21cd",
        "secrets/blue.html.gz.age": "ccf30d0f22b3e436ac5bdfe1",
        "secrets/green.age": "7098772b16e87b2c629900e4",
        "secrets/green.html.gz.age": "c16fa4d62ba92f4a0771787f",
        "secrets/yellow.age": "53d9654baaccc744551adffb",
        "secrets/yellow.html.gz.age": "54664499b9df1f6178ac4c1d",
    },
    "space-swarm": {
        "20:log.yaml": "4da61a8a37f2f2eb9b10f9c3",
        "20:public/board.svg": "610546e78f430e43db0faa2b",
        "20:public/digest.html": "bc45d760c8de12e4660c6389",
        "20:public/digest.txt": "e8f3fee468d00fc3eabd692a",
        "20:public/view.json": "a544e189a69d2d5189494f14",
        "20:moves/": "873d19951c0a292dd716c373",
        "20:secrets/red.age": "e593e22a10f33aacad653319",
        "20:secrets/red.html.gz.age": "c5b4d6973b44cb129c02173e",
        "20:secrets/blue.age": "0fa1efa2381a08321b650465",
        "20:secrets/blue.html.gz.age": "7dc94019d3c5fe73000cc082",
        "log.yaml": "4bfc5f83a94196ce893be57f",
        "public/board.svg": "8612e602e74439bd20f098bc",
        "public/digest.html": "a5316900e9f6f34d83f26114",
        "public/digest.txt": "5f6d8131f5513cd54d217ab1",
        "public/view.json": "5defd73571c36185f51ab637",
        "moves/": "46f65e4c9f2d07900696cf9b",
        "secrets/red.age": "509329999c1b4e858f517d49",
        "secrets/red.html.gz.age": "99df90c7c8199c23642315c5",
        "secrets/blue.age": "1ac95e3ddbe5dea772332e1b",
        "secrets/blue.html.gz.age": "7091e89db5e6cb4507c57274",
    },
}


@pytest.mark.slow(seconds=30)
@pytest.mark.parametrize("game,players,steps,midway", [
    ("atlantis", ["red", "blue", "green", "yellow"],
     {6: ("note", {}), 15: ("timeout", {"player": "NEXT"}), 16: ("undo", {}), 30: ("pause", {}),
      31: ("resume", {})}, 45),
    ("space-swarm", ["red", "blue"], {9: ("timeout", {"player": "NEXT"})}, 20),
], ids=["atlantis-4p", "space-swarm-2p"])
def test_a_whole_game_writes_the_same_bytes(tmp_path: Path, game: str, players: list[str],
                                             steps: dict[int, tuple[str, dict[str, str]]], midway: int) -> None:
    gd, middle = play(tmp_path, game, players, dict(steps), midway)
    got = {**{f"{midway}:{k}": v for k, v in middle.items()}, **fingerprints(gd, players)}
    if os.environ.get("PRINT_PINS"):
        print(f"\n{game}: {got}")
    assert audit(gd).ok
    kinds = {(e["kind"], e.get("action")) for e in gd.entries()}
    assert {("moderator", a) for a, _f in steps.values()} <= kinds and ("reveal", None) in kinds
    expected = PINS[game]
    differ = {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}
    assert not differ and set(got) == set(expected), f"the pipeline wrote other bytes: {differ}"

