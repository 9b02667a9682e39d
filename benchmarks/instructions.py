"""Instructions per bot game, counted by valgrind (a figure that does not move with the machine's load).

    .venv/bin/python benchmarks/instructions.py [GAME] [BOT] [GAMES]     # default: atlantis random 4

Runs this script under ``valgrind --tool=callgrind`` twice, playing GAMES whole 4-player games
and none (both after one warm-up game), and prints the difference per game.  Needs valgrind;
takes about half a minute.  docs/performance.md uses it to show what each step bought.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys

PLAYERS = ["red", "blue", "green", "yellow"]


def play(name: str, bot: str, games: int) -> None:
    from pbem.core.bots import simulate
    from pbem.core.registry import load_game
    game = load_game(name)
    simulate(game, PLAYERS, {}, b"warm", bot=bot)
    for k in range(games):
        simulate(game, PLAYERS, {}, f"bench/{name}/{k}".encode(), bot=bot)


def instructions(name: str, bot: str, games: int) -> int:
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                          __file__, "--play", name, bot, str(games)], capture_output=True, text=True, check=True)
    found = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no count:\n{run.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    if sys.argv[1:2] == ["--play"]:
        play(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description="instructions per bot game, counted by valgrind")
    ap.add_argument("game", nargs="?", default="atlantis")
    ap.add_argument("bot", nargs="?", default="random", choices=("random", "greedy"))
    ap.add_argument("games", nargs="?", type=int, default=4)
    args = ap.parse_args()
    per_game = (instructions(args.game, args.bot, args.games) - instructions(args.game, args.bot, 0)) / args.games
    print(f"{args.game} {args.bot}: {per_game / 1e6:.1f} M instructions a game")


if __name__ == "__main__":
    main()
