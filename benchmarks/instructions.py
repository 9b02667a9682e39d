"""Instructions per bot game, counted by valgrind (a figure that does not move with the machine's load).

    .venv/bin/python benchmarks/instructions.py [GAME] [BOT] [GAMES]     # default: atlantis random 4

Runs this script under ``valgrind --tool=callgrind`` twice, playing GAMES whole 4-player games
and none (both after the same warm-up), and prints the difference per game.  Needs valgrind;
takes about half a minute.  docs/performance.md uses it to show what each step bought, and
`make bench` (section 1) prints every game's count beside its games per second
(:func:`per_game`).
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys

PLAYERS = ["red", "blue", "green", "yellow"]


def play(warm: list[tuple[str, str]], name: str, bot: str, games: int) -> None:
    """One warm-up game of each (game, bot) in ``warm``, then ``games`` games of ``name`` with ``bot``."""
    from pbem.core.bots import simulate
    from pbem.core.registry import load_game
    for warm_name, warm_bot in warm:
        simulate(load_game(warm_name), PLAYERS, {}, b"warm", bot=warm_bot)
    game = load_game(name)
    for k in range(games):
        simulate(game, PLAYERS, {}, f"bench/{name}/{k}".encode(), bot=bot)


def available() -> bool:
    """Is valgrind installed?"""
    return shutil.which("valgrind") is not None


def instructions(name: str, bot: str, games: int, warm: list[tuple[str, str]] | None = None) -> int:
    """The instructions of a process that warms up (by default one game of ``name`` with ``bot``)
    and then plays ``games`` games."""
    warm = [(name, bot)] if warm is None else warm
    spec = ",".join(f"{g}:{b}" for g, b in warm)
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                          __file__, "--play", spec, name, bot, str(games)], capture_output=True, text=True, check=True)
    found = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no count:\n{run.stderr[-500:]}")
    return int(found.group(1))


def per_game(pairs: list[tuple[str, str]], games: int) -> dict[tuple[str, str], float]:
    """Instructions per game of each (game, bot) of ``pairs``, each counted on its own as the
    command line does (a process warmed up with every game's caches spends a few percent more
    a game in the garbage collector)."""
    return {(n, b): (instructions(n, b, games) - instructions(n, b, 0)) / games for n, b in pairs}


def main() -> None:
    if sys.argv[1:2] == ["--play"]:
        if len(sys.argv) == 5:         # --play GAME BOT GAMES: warmed up with one game of GAME and BOT
            sys.argv[2:2] = [f"{sys.argv[2]}:{sys.argv[3]}"]
        warm = [(spec.split(":")[0], spec.split(":")[1]) for spec in sys.argv[2].split(",")]
        play(warm, sys.argv[3], sys.argv[4], int(sys.argv[5]))
        return
    ap = argparse.ArgumentParser(description="instructions per bot game, counted by valgrind")
    ap.add_argument("game", nargs="?", default="atlantis")
    ap.add_argument("bot", nargs="?", default="random", choices=("random", "greedy"))
    ap.add_argument("games", nargs="?", type=int, default=4)
    args = ap.parse_args()
    per = (instructions(args.game, args.bot, args.games) - instructions(args.game, args.bot, 0)) / args.games
    print(f"{args.game} {args.bot}: {per / 1e6:.1f} M instructions a game")


if __name__ == "__main__":
    main()
