"""Issue 24's idle host cycle: `pbem mail run HOST_DIR` over 1,000 games with nothing new.

The games are 1,000 games of the four kinds, each with its own id and log (made by `pbem
new`'s code; their digest files copied from one game of the kind, which an idle cycle never
reads), their first digests recorded as sent, as after a first cycle; no mail comes in (the
host's Maildir is empty).  One warm-up cycle first (it reads each game once, as a host's first
cycle does), then whole processes, timed wall-clock; peak memory (the process's maxrss) of
the same cycle over 100 games and over 1,000: flat means a game adds no memory.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from timing import Goal, Report

IDLE_GOAL_S = 5.0          # a cycle over 1,000 games with nothing new, wall, on 2 cores
RSS_GOAL = 1.10            # peak memory over 1,000 games / over 100 games
KINDS = ("space-swarm", "atlantis", "atlantis-1986", "space-attack")


def _make_games(root: Path, games: int) -> Path:
    """``games`` games, each with its own id, seed and log (made by `pbem new`'s code), a quarter of
    each kind; their digest files copied from one game of that kind made whole (an idle cycle
    reads a game's log and mail state only, and making 1,000 digests would take minutes); the
    players' addresses set and the first digests marked as sent, as after a host's first cycle."""
    from run import fixed_keypair

    import pbem.pipeline.newgame as newgame
    from pbem.store.gamedir import GameDir
    from pbem.transport.mail.compose import Turn
    from pbem.transport.mail.ledger import SentState

    players = ["red", "blue"]
    specs = [newgame.PlayerSpec(n, fixed_keypair(root / "keys" / n, n)) for n in players]
    moderator = root / "keys" / "moderator"
    fixed_keypair(moderator, "moderator")
    sources = {}
    for k, kind in enumerate(KINDS):
        sources[kind] = root / "sources" / kind
        newgame.create_game(sources[kind], kind, specs, {}, bytes([k + 1]) * 32, moderator_key=moderator,
                            game_id=f"source-{kind}")
    folder = root / "games"
    whole = newgame.write_outputs

    def copied_outputs(table: Any) -> list[Path]:
        source = sources[table.header["game"]]
        out: list[Path] = []
        for sub in ("public", "secrets"):
            shutil.copytree(source / sub, table.gd.root / sub)
            out += sorted(p for p in (table.gd.root / sub).rglob("*") if p.is_file())
        return out

    newgame.write_outputs = copied_outputs
    try:
        for i in range(games):
            kind = KINDS[i % len(KINDS)]
            gd = GameDir(folder / f"game{i:04d}")
            newgame.create_game(gd.root, kind, specs, {}, i.to_bytes(4, "big") * 8, moderator_key=moderator,
                                game_id=f"bench-{i:04d}")
            (gd.moderator_dir / "mail.toml").write_text("[players]\n" + "".join(f'{p} = "{p}@club.test"\n'
                                                                                for p in players))
            turn = Turn.read(gd)
            state = SentState.load(gd)
            for p in players:
                state.mark(p, turn.index, turn.entry_hash, f"<bench.{i}.{p}@club.test>", time.time())
    finally:
        newgame.write_outputs = whole
    return folder


def _host(root: Path, name: str, games: Path, count: int) -> Path:
    folder = root / name
    folder.mkdir()
    maildir = root / f"{name}-Maildir"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    settings = folder / "pbem-host.toml"
    settings.write_text(f'from = "Club <gm@club.test>"\n[smtp]\nhost = "127.0.0.1"\nport = 9\nsecurity = "none"\n'
                        f'[maildir]\npath = "{maildir}"\n')
    for game in sorted(games.iterdir())[:count]:
        shutil.copytree(game, folder / game.name, symlinks=True)
    return folder


def _run(pbem: str, folder: Path) -> tuple[float, int, str]:
    """Like _cycle, with the child's own peak RSS from wait4 (subprocess does not keep it)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([pbem, "mail", "run", "--verbose", str(folder)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"pbem mail run {folder} failed ({proc.returncode}): {err.strip()[-500:]}")
    return wall, int(usage.ru_maxrss), out


def bench_host(report: Report, root: Path, pbem: str, rounds: int, games: int = 1000) -> None:
    report.say(f"\n9. one host cycle (`pbem mail run HOST_DIR`) over {games} games with nothing new "
               f"(an empty Maildir; games of the four kinds)")
    t0 = time.perf_counter()
    made = _make_games(root, games)
    small = _host(root, f"host-{games // 10}", made, games // 10)
    big = _host(root, f"host-{games}", made, games)
    shutil.rmtree(made)
    report.say(f"  made the games in {time.perf_counter() - t0:.1f} s")
    for folder in (small, big):
        wall, _rss, out = _run(pbem, folder)
        report.say(f"  warm-up cycle over {folder.name}: {wall:.2f} s; {out.strip().splitlines()[-1]}")
    walls: list[float] = []
    rss: dict[str, list[int]] = {small.name: [], big.name: []}
    for _ in range(rounds):
        for folder in (small, big):
            wall, peak, out = _run(pbem, folder)
            if "; 0 looked at" not in out:
                raise RuntimeError(f"the idle cycle over {folder} was not idle: {out[-500:]}")
            rss[folder.name].append(peak)
            if folder is big:
                walls.append(wall)
    median = statistics.median(walls)
    peak_small, peak_big = statistics.median(rss[small.name]), statistics.median(rss[big.name])
    report.say(f"  {games} games: {median:.2f} s wall ({min(walls):.2f}-{max(walls):.2f}, {len(walls)} runs); "
               f"peak RSS {peak_big / 1024:.1f} MiB, over {games // 10} games {peak_small / 1024:.1f} MiB")
    report.figures["host"] = {"walls": walls, "rss_small": rss[small.name], "rss_big": rss[big.name]}
    group = "issue 24: hosting many games"
    report.goal(Goal(f"idle host cycle over {games} games (s, wall)", median, IDLE_GOAL_S, False, " s", group))
    report.goal(Goal(f"peak RSS over {games} games / over {games // 10}", peak_big / peak_small, RSS_GOAL, False,
                     "", group))


def main() -> None:
    import argparse
    import tempfile
    ap = argparse.ArgumentParser(description="the idle host cycle alone")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pbem-bench-host-"))
    try:
        report = Report()
        bench_host(report, root, str(Path(sys.executable).with_name("pbem")), args.rounds, args.games)
        report.summary()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
