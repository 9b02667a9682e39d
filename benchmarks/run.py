"""`make bench`: speed figures and ratios (printed, never asserted).

1. random-bot games per second (whole 4-player games, in memory);
2. median `pbem submit` time early and late in a game, and late/early;
3. `pbem audit` of a finished game against the floor (parse the log and
   verify every signature), as a ratio;
4. `pbem --help` start-up time.
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pbem.audit import audit
from pbem.bots import bot_move_file, next_to_move, simulate
from pbem.crypto import keys, sshsig
from pbem.gamedir import GameDir
from pbem.log import split_chunks, verify_chain
from pbem.moderator import reveal
from pbem.movefile import render_move
from pbem.newgame import PlayerSpec, create_game
from pbem.registry import load_game
from pbem.rng import Rng
from pbem.submit import submit
from pbem.table import Table

GAME = "atlantis"
PLAYERS = ["red", "blue", "green", "yellow"]


def bench_games_per_second(bot: str, seconds: float = 10.0) -> None:
    game = load_game(GAME)
    count, actions, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds or count < 3:
        _state, steps = simulate(game, PLAYERS, {}, f"bench/{count}".encode(), bot=bot)
        count += 1
        actions += steps
    elapsed = time.perf_counter() - start
    print(f"{bot} bot games (4 players, in memory): {count / elapsed:.2f} games/s "
          f"({actions / count:.0f} actions per game, {actions / elapsed:.0f} actions/s)")


def play_pipeline(root: Path) -> tuple[GameDir, list[float], dict[str, Path]]:
    key_dir = root / "keys"
    specs = [PlayerSpec(n, keys.generate_keypair(key_dir / n, n)) for n in PLAYERS]
    gd = GameDir(root / "game")
    create_game(gd.root, GAME, specs, {}, b"bench-seed-0123456789abcdef-0123")
    times: list[float] = []
    while (player := next_to_move(table := Table.load(gd))) is not None:
        move = bot_move_file(table, player, Rng(b"bench-bot", f"{table.last['index']}/{player}"))
        raw = render_move(move).encode()
        sig = sshsig.sign(keys.load_private_key(key_dir / player), raw, sshsig.MOVE_NAMESPACE)
        t0 = time.perf_counter()
        submit(gd, raw, sig)
        times.append(time.perf_counter() - t0)
    return gd, times, {n: key_dir / n for n in PLAYERS}


def audit_floor(gd: GameDir) -> None:
    """What any audit must do at least: parse the log, check the chain, verify each signature."""
    text = gd.read_log_text()
    chunks = split_chunks(text)
    verify_chain(chunks)
    header = chunks[0].entry
    assert header is not None
    keys_by = {p["name"]: p["key"] for p in header["players"]}
    for c in chunks[1:]:
        e = c.entry
        if e and e.get("kind") == "move":
            raw = (gd.root / e["move"]["file"]).read_bytes()
            sshsig.verify(raw, e["move"]["signature"], [keys_by[e["player"]]], sshsig.MOVE_NAMESPACE)


def timed(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best.append(time.perf_counter() - t0)
    return statistics.median(best)


def main() -> None:
    print(f"pbem benchmarks ({GAME}), python {sys.version.split()[0]}")
    bench_games_per_second("random")
    bench_games_per_second("greedy", seconds=5.0)
    root = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    try:
        gd, times, _keys = play_pipeline(root)
        k = max(5, len(times) // 10)
        early, late = statistics.median(times[:k]), statistics.median(times[-k:])
        print(f"pbem submit: {len(times)} submits; median early {early * 1000:.1f} ms, late {late * 1000:.1f} ms, "
              f"late/early ratio {late / early:.2f}")
        reveal(gd)
        t_audit = timed(lambda: audit(gd))
        t_floor = timed(lambda: audit_floor(gd))
        print(f"pbem audit (full replay): {t_audit * 1000:.0f} ms; floor (parse + chain + signatures): "
              f"{t_floor * 1000:.0f} ms; ratio {t_audit / t_floor:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    exe = Path(sys.executable).with_name("pbem")
    help_times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([str(exe), "--help"], check=True, capture_output=True)
        help_times.append(time.perf_counter() - t0)
    print(f"pbem --help start-up: median {statistics.median(help_times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
