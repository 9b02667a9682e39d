"""Issue 24's per-move figure: a cycle that takes 100 moves across 100 games, per move, against
the in-process floor for the same 100 moves.

The games: one 4-player game of each of the four kinds played by random bots through `submit`
(fixed keys, seeds and ids: the same games every time); from each, 25 copies of the moderator's
folder at 25 consecutive log entries in the middle of the game (of its first 100 moves), each with the next move signed
and waiting: 100 games, a quarter of each kind, each at its own position.

The cycle is the in-process `submit(gd, raw, signature)` of each game's move, one after the
other in one process: the call `pbem mail run` (pbem.transport.mail.cycle) and `pbem git sync`
make for each move they take (their mail and git round-trips, which this figure leaves out,
are the same with or without outputs).  The floor is the same 100 moves taken with everything
but the outputs: open the game (lock, check the snapshot, load the table), verify the
signature, parse, check and apply the move, append the entry with fsync (`accept_move` and
`commit_entry`, the first half of `submit`), but no `publish` (digests, pages, secrets, the
encryption, the snapshot) and no signed receipt.  Floor and cycle run in alternating pairs
(benchmarks/timing.py), the 100 folders put back (untimed) before each.

A second row takes the same 100 moves the way a host takes them (`pbem mail run HOST_DIR
--jobs 2`): the 100 folders are the games of one host folder (its pbem-host.toml, each game's
moderator/mail.toml), each move arrives as a player's message, and
``pbem.transport.mail.hostwork.run_games`` -- the host's own code for the games' work, not a
copy of it -- works on the games in 2 worker processes under each game's mail lock: the
message read, the move submitted, the game's ledger, the receipt and the digests made; the
main process then records each message as sent (``deliver``, into a sink: the mail servers'
round-trips are left out, as in the first row).  Each game's players have its last digest, as
after the host's last cycle (``mail-sent.json``): the digests made are those a cycle makes.  Its floor is the same serial in-process floor:
the figure is what a moderator's cycle pays per move on a 2-core host.
"""
from __future__ import annotations

import gc
import os
import resource
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from timing import Goal, Report, forget_kept, paired

PLAYERS = ["red", "blue", "green", "yellow"]
KINDS = ("atlantis", "atlantis-1986", "space-attack", "space-swarm")
PER_KIND = 25
LAST = 100                 # a game is played to its end or this many moves; the middle 25 are taken
PER_MOVE_GOAL = 2.0        # the cycle's per-move time / the floor's
JOBS = 2                   # the host's worker processes in the second row (a 2-core host)
GROUP = "issue 24: hosting many games"


@dataclass(frozen=True)
class Waiting:
    """A game folder kept as it was, and the next signed move for it."""

    source: Path
    raw: bytes
    signature: str


def make_games(root: Path, per_kind: int = PER_KIND, last: int = LAST) -> list[Waiting]:
    """``per_kind`` positions of each kind, each a copy of the moderator's folder and its next move:
    consecutive ones in the middle of a bot game played to its end or to ``last`` moves."""
    from run import fixed_keypair

    from pbem.core.rng import Rng
    from pbem.crypto import keys, sshsig
    from pbem.pipeline.botmoves import bot_move_file, next_to_move
    from pbem.pipeline.newgame import PlayerSpec, create_game
    from pbem.pipeline.submit import submit
    from pbem.store.gamedir import GameDir
    from pbem.store.movefile import render_move
    from pbem.store.table import Table

    key_dir = root / "keys"
    specs = [PlayerSpec(n, fixed_keypair(key_dir / n, n)) for n in PLAYERS]
    fixed_keypair(key_dir / "moderator", "moderator")
    private = {n: keys.load_private_key(key_dir / n) for n in PLAYERS}
    waiting: list[Waiting] = []
    for k, kind in enumerate(KINDS):
        gd = GameDir(root / "play" / kind)
        create_game(gd.root, kind, specs, {}, f"cycle-bench-seed/{kind}".encode().ljust(32, b"."),
                    moderator_key=key_dir / "moderator", game_id=f"cycle-{kind}")
        played: list[Waiting] = []
        while len(played) < last and (player := next_to_move(table := Table.load(gd))) is not None:
            index = table.last["index"]
            move = bot_move_file(table, player, Rng(b"cycle-bench-bot", f"{kind}/{index}/{player}"))
            raw = render_move(move).encode()
            sig = sshsig.sign(private[player], raw, sshsig.MOVE_NAMESPACE)
            source = root / "sources" / f"{kind}-{index:04d}"
            shutil.copytree(gd.root, source, symlinks=True)
            played.append(Waiting(source, raw, sig))
            submit(gd, raw, sig)
        if len(played) < per_kind:
            raise RuntimeError(f"the {kind} game ended after {len(played)} moves; fewer than {per_kind}")
        start = (len(played) - per_kind) // 2          # the middle of the game (or of its first ``last`` moves)
        for w in played[:start] + played[start + per_kind:]:
            shutil.rmtree(w.source)
        waiting += played[start:start + per_kind]
        shutil.rmtree(gd.root)
    return waiting



def cycle_work(waiting: list[Waiting], work: list[Any]) -> tuple[Callable[[], None], Callable[[], None],
                                                                  Callable[[], None]]:
    """(reset, floor, cycle) for the ``waiting`` moves, each game worked on in its copy ``work`` (GameDirs):
    reset puts the copies back as they were and forgets what the last round drew, read and checked
    (:func:`timing.forget_kept`); floor takes each move without the outputs (open, verify,
    parse, check, apply, append with fsync); cycle takes each move with `submit`, outputs and all."""
    from pbem.pipeline.append import commit_entry
    from pbem.pipeline.repair import open_game
    from pbem.pipeline.submit import accept_move, moderator_opener, submit

    def reset() -> None:
        for w, gd in zip(waiting, work):
            shutil.rmtree(gd.root, ignore_errors=True)
            shutil.copytree(w.source, gd.root, symlinks=True)
        forget_kept()       # what the last cycle drew, read and checked: a cycle never takes the same moves twice
        gc.collect()
        # on disk, as a moderator's game folders are when a cycle comes (written by the cycles before,
        # minutes ago): a file just copied and not yet written back costs ext4 about 0.4 ms more CPU to
        # replace (measured: 0.57 against 0.16 ms a write), 16 times a move, which no real cycle pays
        os.sync()

    def floor() -> None:
        for w, gd in zip(waiting, work):
            with open_game(gd) as table:
                _move, entry, archive, _applied = accept_move(table, w.raw, w.signature, moderator_opener(gd))
                commit_entry(table, entry, archive)

    def cycle() -> None:
        for w, gd in zip(waiting, work):
            submit(gd, w.raw, w.signature)

    return reset, floor, cycle

def bench_cycle(report: Report, root: Path, pairs: int) -> None:
    from pbem.store.gamedir import GameDir

    report.say(f"\n10. a cycle that takes 100 moves across 100 games (in-process `submit` of each, as "
               f"`pbem mail run` calls it; {PER_KIND} positions from the middle of a game of each of the four games) against "
               "the floor for the same moves (open, verify, parse, check, apply, append with fsync; no outputs)")
    waiting = make_games(root)
    work = [GameDir(root / "work" / w.source.name) for w in waiting]
    reset, floor, cycle = cycle_work(waiting, work)
    reset()
    cycle()                                            # untimed warm-up: imports, templates, caches
    p = paired(floor, cycle, pairs, reset=reset)
    n = len(waiting)
    per_floor, per_cycle = p.floor.median / n * 1000, p.command.median / n * 1000
    r = p.pair_ratios
    report.say(f"  per move: cycle {per_cycle:.1f} ms, floor {per_floor:.1f} ms "
               f"(100 moves: {p.describe('floor', 'cycle')})")
    report.say(f"  ratio {p.ratio:.2f} (pairs {min(r):.2f}-{max(r):.2f}): the outputs cost "
               f"{per_cycle - per_floor:.1f} ms a move")
    report.figures["cycle"] = {"floor": p.floor.values, "cycle": p.command.values, "moves": n}
    report.goal(Goal("100 moves across 100 games, per move / in-process floor", p.ratio, PER_MOVE_GOAL, False,
                     "", GROUP))

    carriage_row(report, waiting, work, reset, cycle, floor, pairs)

    hosted = host_work(root / "work", waiting, work)
    reset()
    hosted()                                           # untimed warm-up
    q = paired(floor, hosted, pairs, reset=reset)
    per_host = q.command.median / n * 1000
    r = q.pair_ratios
    report.say(f"\n10b. the same 100 moves through the host's parallel game work (`pbem mail run HOST_DIR --jobs "
               f"{JOBS}`: hostwork.run_games, each move a player's message; the mail servers' round-trips left "
               "out) against the same serial in-process floor: what a moderator's cycle pays per move on a "
               f"{JOBS}-core host")
    report.say(f"  per move: host cycle with {JOBS} jobs {per_host:.1f} ms, floor {q.floor.median / n * 1000:.1f} ms "
               f"(100 moves: {q.describe('floor', 'host cycle')})")
    workers_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    main_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report.say(f"  ratio {q.ratio:.2f} (pairs {min(r):.2f}-{max(r):.2f}); peak memory (maxrss): the largest worker "
               f"{workers_mb:.0f} MB, the main process {main_mb:.0f} MB (a worker is a fork of it: pages shared "
               "until written)")
    report.figures["cycle_jobs"] = {"floor": q.floor.values, "cycle": q.command.values, "moves": n, "jobs": JOBS,
                                    "worker_maxrss_mb": workers_mb, "main_maxrss_mb": main_mb}
    report.goal(Goal(f"the same, through the host's game work with --jobs {JOBS} / serial floor", q.ratio,
                     PER_MOVE_GOAL, False, "", GROUP))


def carriage_work(work: list[Any], reset: Callable[[], None], cycle: Callable[[], None]) -> Callable[[], None]:
    """The part of a move's outputs that does not depend on what the digests say, for the games in
    ``work`` after one ``cycle``: each player's two files sealed (the page gzipped) and encrypted to
    the player and the moderator, the 12 files written (not flushed, as ``write_outputs`` writes
    them), the snapshot written (flushed: the next command's crash check rests on it).  The
    plaintexts are those the cycle made (made here untimed); the callable carries them again."""
    from pbem.base.fsutil import public_mode, write_atomic
    from pbem.crypto import agecrypt
    from pbem.store.table import Table
    from pbem.views.outputs import player_plaintexts, public_outputs, secrets_file, seal_bytes

    reset()
    cycle()                                            # the entries whose outputs are carried
    games = []
    for gd in work:
        table = Table.load(gd)
        public = [(gd.root / rel, data) for rel, data in public_outputs(table).items()]
        private = [(secrets_file(table, p, suffix), suffix, plain, [table.player_keys(p)[0],
                                                                    table.header["moderator"]["key"]])
                   for p in table.players for suffix, plain in player_plaintexts(table, p).items()]
        games.append((table, public, private))

    def carriage() -> None:
        mode = public_mode()
        for table, public, private in games:
            derived = []
            for path, data in public:
                write_atomic(path, data, mode=mode, durable=False)
                derived.append(path)
            for path, suffix, plain, keys in private:
                write_atomic(path, agecrypt.encrypt(seal_bytes(suffix, plain), keys), mode=0o600, durable=False)
                derived.append(path)
            table.save_snapshot(table.log_text, derived)

    return carriage


def carriage_row(report: Report, waiting: list[Waiting], work: list[Any], reset: Callable[[], None],
                 cycle: Callable[[], None], floor: Callable[[], None], pairs: int) -> None:
    """Row 10c: :func:`carriage_work` timed alone against the same floor.  It is a lower bound of
    the outputs: with digests that cost nothing, a move would still pay this."""
    c = paired(floor, carriage_work(work, reset, cycle), pairs, reset=reset)
    n = len(waiting)
    per = c.command.median / n * 1000
    r = c.pair_ratios
    report.say("\n10c. the outputs' carriage alone, whatever the digests say (each player's two files sealed and "
               "encrypted, the 12 files written, the snapshot written): a lower bound of the outputs")
    report.say(f"  per move: carriage {per:.1f} ms, floor {c.floor.median / n * 1000:.1f} ms; carriage / floor "
               f"{c.ratio:.2f} (pairs {min(r):.2f}-{max(r):.2f}): with digests that cost nothing, a move would still "
               f"cost {1 + c.ratio:.2f} floors")
    report.figures["cycle_carriage"] = {"floor": c.floor.values, "carriage": c.command.values, "moves": n}


def host_work(folder: Path, waiting: list[Waiting], work: list[Any]) -> Callable[[], None]:
    """The 100 moves as a host with ``JOBS`` workers takes them: one player's message per game,
    through ``run_games`` (the host's code); each game must accept its move."""
    import time
    from email.message import EmailMessage
    from email.utils import formatdate

    from pbem.store.gamedir import GameDir
    from pbem.transport.mail.cycle import parse_message
    from pbem.transport.mail.hostconfig import load_host
    from pbem.transport.mail.hostwork import GameResult, GameTask, deliver, run_games
    from pbem.transport.mail.imap import Incoming
    from pbem.store.log import read_entries
    from pbem.transport.mail.ledger import SentState, mail_lock

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pbem-host.toml").write_text(
        'from = "Club <judge@bench.test>"\n[smtp]\nhost = "127.0.0.1"\nport = 2525\nsecurity = "none"\n'
        f'[maildir]\npath = "{folder / "Maildir"}"\n')
    host = load_host(folder, {})
    tasks = []
    for k, (w, gd) in enumerate(zip(waiting, work)):
        (w.source / "moderator" / "mail.toml").write_text(
            "[players]\n" + "".join(f'{p} = "{p}@bench.test"\n' for p in PLAYERS))
        last = read_entries(w.source / "log.yaml")[-1]
        sent = SentState(w.source / "moderator" / "mail-sent.json")
        for p in PLAYERS:                   # as after the host's last cycle: everyone has the last digest
            sent.mark(p, last["index"], last["hash"], f"<{k}.{last['index']}.{p}@bench.test>", time.time(),
                      last["index"])
        player = next(p for p in PLAYERS if f"player: {p}\n".encode() in w.raw)
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = f"{player}@bench.test", "judge@bench.test", "my move"
        msg["Date"], msg["Message-ID"] = formatdate(0), f"<move.{k}@bench.test>"
        msg.set_content("my move\n")
        msg.add_attachment(w.raw, "application", "x-yaml", filename="move.yaml")
        msg.add_attachment(w.signature.encode(), "application", "octet-stream", filename="move.yaml.sig")
        raw = msg.as_bytes()
        tasks.append(GameTask(folder, gd.root.name, host, "bench", ((Incoming(f"bench;{k}", raw, 0.0, k),
                                                                      parse_message(raw)),),
                              time.time(), True, None, 0.0, [0, 0, 0]))

    class Sink:
        def send(self, msg: EmailMessage, to: str) -> None:
            pass

        def done(self, source: str) -> None:
            pass

    def finish(task: GameTask, result: GameResult) -> None:
        if result.failure or result.busy or result.report.accepted != 1:
            raise RuntimeError(f"{task.name}: {result.failure or result.busy or result.report.lines}")
        deliver(result, Sink(), Sink())

    def run() -> None:
        run_games(tasks, JOBS, lambda task: mail_lock(GameDir(folder / task.name)), finish)
    return run


def main() -> None:
    import argparse
    import tempfile
    ap = argparse.ArgumentParser(description="the per-move cycle figure alone")
    ap.add_argument("--pairs", type=int, default=5)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pbem-bench-cycle-"))
    try:
        report = Report()
        bench_cycle(report, root, args.pairs)
        report.summary()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
