"""Whole games through the real pipeline, pinned byte for byte.

The golden games (tests/golden/) pin the rules at the Game interface; these pin what the
pipeline writes: the log (every entry's bytes, hashes and signatures), the public digests,
board and view, and what each player's encrypted secrets hold.  With fixed keys (Ed25519
signatures are deterministic, and a move's draws come from its signature), a fixed seed and a
fixed game id, the same moves give the same bytes, so any change to how the engine stores,
appends or renders a game shows here.  Performance work (issue 12) must leave them as they are.

The players' HTML pages were re-pinned when the click-to-move panel landed, and again when every
page's script data went through one escaping function (pbem.views.render.scriptdata: keys sorted, ``>`` and
``&`` escaped too; the only files that changed were the two pages that carry a click panel).  The
Space Swarm game was re-pinned when its rules became space-swarm/2 (issue 23: the header's rules
and its new option event_phase change every hash, and so the moderator's timeout bot, whose draws
are anchored on the log's hashes, plays another turn; the game then differs from there on).
The two pages with a click panel were re-pinned when Atlantis's page got its own turn model
(templates/turnmodel/survive.js) and the page's forms were read as OrderForms (templates/click.js).
Regenerate only when the output is meant to change: ``PRINT_PINS=1 pytest -q -s
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
        "45:secrets/red.html.gz.age": "707b7bdde2ef1f89aef73358",
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
        "20:log.yaml": "224dcd01fa63408fe4634f6b",
        "20:public/board.svg": "5f43f4ec2589d9ae2c6d45be",
        "20:public/digest.html": "76d6d4537af2afdb646e15e4",
        "20:public/digest.txt": "739f83aa4873c7c9f5195ca4",
        "20:public/view.json": "d0f2061e7ad3262a93b8dca1",
        "20:moves/": "199b51198338054d4aa1c788",
        "20:secrets/red.age": "1b343241e5c9eb53567c701f",
        "20:secrets/red.html.gz.age": "93a2c72ca3b6ec2926b71f28",
        "20:secrets/blue.age": "0e5e7846b30268a0f3e819f0",
        "20:secrets/blue.html.gz.age": "7f55a9a0242d3ec68160e6a6",
        "log.yaml": "2cb7c717f57468ad4f8db08a",
        "public/board.svg": "4f69ce31df7659512d09b346",
        "public/digest.html": "0543c0ee3e63e7f6eb6cd0ae",
        "public/digest.txt": "4877fa873087c24807034a59",
        "public/view.json": "56a29643c912b5376fc5943b",
        "moves/": "5f03f8c90f88f8f7d9f5c430",
        "secrets/red.age": "095808f9af8e31fb63bc368e",
        "secrets/red.html.gz.age": "46405b92e35ae03acccd691d",
        "secrets/blue.age": "18018fe4f0594f1aa9ac980e",
        "secrets/blue.html.gz.age": "f8dc1c07010508762735533c",
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

