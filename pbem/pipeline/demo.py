"""`pbem demo`: a whole game played by bots through the real pipeline."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Callable

from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.core.registry import game_names, load_game
from pbem.core.rng import Rng
from pbem.crypto import agecrypt, keys, sshsig
from pbem.pipeline.audit import audit
from pbem.pipeline.botmoves import bot_move_file, next_to_move
from pbem.pipeline.moderator import reveal
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.repair import load_repaired
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import render_move

MARKER = ".pbem-demo"
COLOURS = ["red", "blue", "green", "yellow", "purple", "orange"]


def _prepare(directory: Path) -> None:
    if directory.exists() and any(directory.iterdir()):
        if not (directory / MARKER).exists():
            raise PbemError(f"{directory} exists and is not a pbem demo folder; choose another --dir")
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MARKER).write_text("made by `pbem demo`; safe to delete\n")


def _sign(key_path: Path, move_path: Path, use_ssh_keygen: bool) -> str:
    """Sign like a player would: with ssh-keygen when available, else with pbem."""
    if use_ssh_keygen:
        sig_path = move_path.with_name(move_path.name + ".sig")
        subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", sshsig.MOVE_NAMESPACE, "-f", str(key_path),
                        str(move_path)], check=True, capture_output=True)
        return sig_path.read_text()
    signature = sshsig.sign(keys.load_private_key(key_path), move_path.read_bytes(), sshsig.MOVE_NAMESPACE)
    write_atomic(move_path.with_name(move_path.name + ".sig"), signature)
    return signature


def run_demo(directory: Path, n_players: int, seed: bytes | None, echo: Callable[[str], None] = print,
             game_name: str = "", bot: str = "greedy") -> GameDir:
    game_name = game_name or game_names()[0]
    game = load_game(game_name)
    most = min(game.max_players, len(COLOURS))
    if not game.min_players <= n_players <= most:
        raise PbemError(f"--players must be {game.min_players}-{most} for {game_name}")
    _prepare(directory)
    names = COLOURS[:n_players]
    key_dir, outbox = directory / "keys", directory / "outbox"
    outbox.mkdir()
    specs = [PlayerSpec(n, keys.generate_keypair(key_dir / n, f"{n}@demo")) for n in names]
    echo(f"players {', '.join(names)}: keys in {key_dir}/")
    gd = GameDir(directory / "game")
    table = create_game(gd.root, game_name, specs, {}, seed)
    echo(f"created {table.game_id} in {gd.root}")
    have_ssh_keygen = shutil.which("ssh-keygen") is not None
    submitted = 0
    while (player := next_to_move(table := load_repaired(gd))) is not None:
        index = table.last["index"] + 1
        move = bot_move_file(table, player, Rng(b"pbem-demo-bot", f"{table.game_id}/{index}/{player}"), bot)
        path = outbox / f"{index:06d}-{player}.yaml"
        write_atomic(path, render_move(move, f"{player}'s move, written by the {bot} bot"))
        signature = _sign(key_dir / player, path, have_ssh_keygen and player == names[0])
        submit(gd, path.read_bytes(), signature)
        submitted += 1
    table = load_repaired(gd)
    result = table.game.result(table.state)
    echo(f"game over after {submitted} signed move files")
    if result is not None:
        echo("scores: " + ", ".join(f"{p} {s}" for p, s in result.scores.items())
             + "; winner(s): " + ", ".join(result.winners))
    reveal(gd)
    report = audit(gd)
    for note in report.notes:
        echo(f"audit ok: {note}")
    for problem in report.problems:
        echo(f"audit FAIL: {problem}")
    if not report.ok:
        raise PbemError("the demo game failed its audit")
    secret = agecrypt.decrypt(gd.secrets_path(names[0]).read_bytes(), key_dir / names[0]).decode()
    echo(f"{names[0]}'s secrets decrypt with their key ({len(secret.splitlines())} lines)")
    echo(f"look at: {gd.root}/public/digest.txt, {gd.root}/public/digest.html, {gd.root}/log.yaml, "
         f"{gd.root}/secrets/ (age -d -i {key_dir}/{names[0]} {gd.root}/secrets/{names[0]}.age)")
    return gd
