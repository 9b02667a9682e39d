"""One mailbox and one cron line for a folder of games (issue 24): `pbem mail run HOST_DIR`.

Real servers: Dovecot serves the host's one mailbox over IMAP, aiosmtpd takes what the host
sends (mailservers.py).  Three games of different kinds in one folder (the toy game, Space
Swarm from a late position, a finished toy game), plus a game whose log is damaged.  Each
message must reach the game its signed move names; a poison message is answered once and never
holds up the valid move behind it; a move naming one game but signed with a seat key of
another is refused; the broken game is reported while the others go on; the finished game
stays quiet; a crash at any point of the cycle neither loses nor doubles a move.
"""
from __future__ import annotations

import os
import subprocess
import time
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from crash_runner import CrashRunner
from mailservers import GM, PASSWORD, Router, address, attachment_message, start_smtp
from pipeline_helpers import bot_move, late_position, new_game, play_to_end, signed_move

from pbem.cli.group import main as pbem_main
from pbem.pipeline.audit import audit
from pbem.pipeline.moderator import reveal
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

TOY_PLAYERS = ["red", "blue"]
SWARM_PLAYERS = ["green", "yellow"]


class Host:
    """A folder of games served by one mailbox on Dovecot and one SMTP server."""

    def __init__(self, tmp_path: Path, key_pool, dovecot) -> None:
        self.folder = tmp_path / "host"
        self.folder.mkdir()
        self.key_pool, self.dovecot = key_pool, dovecot
        self.imap_user = f"host-{os.getpid()}-{time.monotonic_ns()}"
        self.router = Router({GM: lambda raw: dovecot.deliver(self.imap_user, raw)})
        self.smtp = start_smtp(self.router, "none")
        settings = self.folder / "pbem-host.toml"
        settings.write_text("\n".join([
            f'from = "Club Moderator <{GM}>"',
            "[smtp]", 'host = "127.0.0.1"', f"port = {self.smtp.port}", 'security = "none"',
            "[imap]", 'host = "127.0.0.1"', f"port = {dovecot.port}", 'security = "none"',
            f'username = "{self.imap_user}"', ""]))
        os.chmod(settings, 0o600)

    def game(self, folder: str, kind: str, players: list[str], seed: bytes, position=None,
             deadlines=None) -> GameDir:
        gd = new_game(self.folder / folder, kind, self.key_pool, players, seed=seed, position=position,
                      deadlines=deadlines)
        lines = ["[players]"] + [f'{p} = "{address(p)}"' for p in players]
        (gd.moderator_dir / "mail.toml").write_text("\n".join(lines) + "\n")
        return gd

    def env(self) -> dict[str, str]:
        return {"PBEM_IMAP_PASSWORD": PASSWORD}

    def run(self, *extra: str) -> str:
        result = CliRunner().invoke(pbem_main, ["mail", "run", *extra, str(self.folder)], env=self.env())
        assert result.exit_code == 0, result.output
        return result.output

    def deliver(self, msg: EmailMessage | bytes) -> None:
        self.dovecot.deliver(self.imap_user, msg if isinstance(msg, bytes) else msg.as_bytes())

    def mail_to(self, player: str) -> list[EmailMessage]:
        return [r.msg for r in self.router.inbox(address(player))]


def _move_message(player: str, raw: bytes, sig: str, subject: str = "my move") -> EmailMessage:
    return attachment_message(player, raw, sig, subject=subject)


def _plain(player: str, text: str, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = address(player)
    msg["To"] = GM
    msg["Subject"] = headers.pop("Subject", "hello")
    msg["Date"] = formatdate()
    msg["Message-ID"] = make_msgid(player, domain="pbem.test")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(text)
    return msg


def _receipts(host: Host, player: str, game_id: str) -> list[EmailMessage]:
    return [m for m in host.mail_to(player) if m["X-PBEM-Receipt"] and m["X-PBEM-Game"] == game_id]


@pytest.fixture
def host(tmp_path, key_pool, dovecot):
    h = Host(tmp_path, key_pool, dovecot)
    yield h
    h.smtp.stop()


def test_one_mailbox_serves_three_games_routing_each_move_by_its_signed_game(host, key_pool, toy_registered):
    toy = host.game("club-toy", "toy", TOY_PLAYERS, b"t" * 32)
    swarm = host.game("club-swarm", "space-swarm", SWARM_PLAYERS, b"w" * 32,
                      position=late_position("space-swarm", SWARM_PLAYERS, left=30))
    done = host.game("club-done", "toy", TOY_PLAYERS, b"d" * 32)
    play_to_end(done, key_pool)
    reveal(done)                                 # finished, then closed: the seed is public
    broken = host.game("club-broken", "toy", TOY_PLAYERS, b"b" * 32)
    toy_id, swarm_id, done_id, broken_id = (Table.load(g).game_id for g in (toy, swarm, done, broken))

    first = host.run()                           # every game's first digests, from one process
    for name in ("club-toy", "club-swarm", "club-done", "club-broken"):
        assert f"{name}: sent the digest" in first, first
    toy_digest = next(m for m in host.mail_to("red") if m["X-PBEM-Game"] == toy_id)
    assert host.run() == ""                      # idle: quiet for cron
    done_log = done.log_path.read_bytes()

    # the broken game's log is damaged after its first digests
    with open(broken.log_path, "ab") as fh:
        fh.write(b"--- # entry 99\n: : not yaml [\n")

    toy_move = bot_move(toy, key_pool)
    swarm_move = bot_move(swarm, key_pool)
    assert toy_move and swarm_move
    mover = next(p for p in TOY_PLAYERS if f"player: {p}".encode() in toy_move[0])
    swarm_mover = next(p for p in SWARM_PLAYERS if f"player: {p}".encode() in swarm_move[0])
    # poison first: garbage in the toy game's thread, a forged signature, a move naming the toy
    # game but signed with a Space Swarm seat's key, a move for the finished game, mail for no game
    host.deliver(_plain(mover, "what do I do now?", Subject="Re: " + str(toy_digest["Subject"]),
                        In_Reply_To=str(toy_digest["Message-ID"])))
    host.deliver(_move_message(mover, toy_move[0] + b"# changed after signing\n", toy_move[1]))
    foreign = signed_move(Table.load(toy), mover, [{"draw": True}], key_pool[swarm_mover])
    host.deliver(_move_message(mover, *foreign))
    late = signed_move(Table.load(done), "red", [{"draw": True}], key_pool["red"])
    host.deliver(_move_message("red", *late))
    host.deliver(_plain("purple", "hello, is this the club?"))
    broken_move = signed_move(Table.load(toy), mover, [{"draw": True}], key_pool[mover])
    host.deliver(_move_message(mover, broken_move[0].replace(toy_id.encode(), broken_id.encode()), broken_move[1]))
    # then the valid moves
    host.deliver(_move_message(mover, *toy_move))
    host.deliver(_move_message(swarm_mover, *swarm_move))

    out = host.run()
    lines = out.splitlines()
    assert f"club-toy: accepted: attachment move.yaml from {mover.title()} Player <{address(mover)}>" in out, out
    assert (f"club-swarm: accepted: attachment move.yaml from {swarm_mover.title()} Player "
            f"<{address(swarm_mover)}>") in out, out
    assert any(l.startswith("club-toy: not a move:") for l in lines), out
    assert any(l.startswith("club-toy: rejected:") and f"bad signature for {mover}" in l for l in lines), out
    assert any(l.startswith("club-toy: rejected:") and "not the key of any player of this game" in l
               for l in lines), out
    assert any(l.startswith("club-done: rejected:") and ("is over" in l or "is closed" in l) for l in lines), out
    assert any(l.startswith("left alone:") and "purple" in l and "names no game" in l for l in lines), out
    assert any(l.startswith("club-broken: not run:") and "1 message(s) wait" in l for l in lines), out
    assert len(toy.entries()) == 2 and len(swarm.entries()) == len(Table.load(swarm).entries) >= 2
    assert done.log_path.read_bytes() == done_log                 # the finished game: nothing appended
    # every sender answered once: the toy game's mover got its help answer, two refusals, one receipt
    mine = _receipts(host, mover, toy_id)
    assert sorted(m["X-PBEM-Receipt"] for m in mine) == ["accepted", "not a move", "rejected", "rejected"]
    assert [m["X-PBEM-Receipt"] for m in _receipts(host, swarm_mover, swarm_id)] == ["accepted"]
    assert [m["X-PBEM-Receipt"] for m in _receipts(host, "red", done_id)] == ["rejected"]
    assert not host.router.inbox("purple@pbem.test")
    assert audit(toy).ok and audit(swarm).ok

    # the next cycle: nothing is taken twice; the broken game's message still waits, said once more
    again = host.run()
    assert "accepted" not in again and "club-toy" not in again and "club-swarm" not in again, again
    assert "club-broken: not run:" in again
    assert len(_receipts(host, mover, toy_id)) == 4


@pytest.fixture(scope="module")
def zygote() -> Iterator[CrashRunner]:
    """`pbem` in processes of their own, forked from a process that has imported it (tests/crash_runner.py:
    a fork is a pbem process as `pbem mail run` starts it, with the toy game registered as the tests
    register it, without the interpreter's start and pbem's imports each time)."""
    runner = CrashRunner(preload=("pbem.cli.mail", "pbem.transport.mail.host", "pbem.transport.mail.hostwork",
                                  "pbem.transport.mail.cycle", "pbem.rules.spaceswarm.game"))
    try:
        yield runner
    finally:
        runner.close()


def _cli(zygote: CrashRunner, host: Host, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`pbem mail run [EXTRA] HOST` in a process of its own, with the test's environment and ``env``."""
    out, err = host.folder.parent / "cli.out", host.folder.parent / "cli.err"
    args = ["mail", "run", *extra, str(host.folder)]
    pid = zygote.start(args, out, {"": "replace", **os.environ, **host.env(), **env}, err=err)
    done = zygote.wait(pid, out, timeout=120)
    return subprocess.CompletedProcess(args, done.status, done.output, err.read_text(encoding="utf-8"))


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fault", [
    "kill-after:club-a/moderator/mail-ledger.json",        # the move submitted and recorded, no receipt yet
    "kill-before:.pbem-host/mail-ledger.json",             # the game done, the host ledger not yet written
    "kill:host-game:club-a",                               # whatever process takes club-a, as it starts
])
def test_a_killed_host_cycle_neither_loses_nor_doubles_a_move(host, key_pool, tmp_path, fault, jobs, toy_registered,
                                                             zygote):
    """Installed pbem in a process of its own (forked from the zygote), killed at a step; the next cycle finishes the work.
    With --jobs 2 a worker takes club-a: killed as it starts on the game (every time), club-a is
    reported and club-b taken all the same; killed once its move is in (club-a's ledger), the game
    is taken again in a worker of its own and the main process is killed recording its receipt;
    the host's ledger is the main process's, which is killed with its workers."""
    a = host.game("club-a", "toy", ["red", "blue"], b"a" * 32)
    b = host.game("club-b", "space-swarm", SWARM_PLAYERS, b"c" * 32,
                  position=late_position("space-swarm", SWARM_PLAYERS, left=20))
    first = _cli(zygote, host)
    assert first.returncode == 0, first.stderr
    move_a, move_b = bot_move(a, key_pool), bot_move(b, key_pool)
    assert move_a and move_b
    mover_a = next(p for p in ("red", "blue") if f"player: {p}".encode() in move_a[0])
    mover_b = next(p for p in SWARM_PLAYERS if f"player: {p}".encode() in move_b[0])
    host.deliver(_move_message(mover_a, *move_a))
    host.deliver(_move_message(mover_b, *move_b))
    entries_a = len(a.entries())
    killed = _cli(zygote, host, "--jobs", jobs, PBEM_FAULT=fault)
    if jobs == "2" and fault == "kill:host-game:club-a":      # only the workers taking club-a died
        assert killed.returncode == 0, (killed.returncode, killed.stdout, killed.stderr)
        assert "club-a: not run: the worker process taking this game stopped before it finished" in killed.stdout
        assert "club-b: accepted:" in killed.stdout and len(a.entries()) == entries_a, killed.stdout
    else:
        assert killed.returncode == -9, (killed.returncode, killed.stdout, killed.stderr)
    _wait_for_the_killed_cycles_workers(host, a, b)
    after = _cli(zygote, host, "--jobs", jobs)
    assert after.returncode == 0, after.stderr
    again = _cli(zygote, host, "--jobs", jobs)
    assert again.returncode == 0 and again.stdout == "", again.stdout + again.stderr
    assert len(a.entries()) == entries_a + 1 and audit(a).ok and audit(b).ok
    header_a = a.entries()[0]["id"]
    header_b = b.entries()[0]["id"]
    assert [m["X-PBEM-Receipt"] for m in _receipts(host, mover_a, header_a)] == ["accepted"]
    assert [m["X-PBEM-Receipt"] for m in _receipts(host, mover_b, header_b)] == ["accepted"]


def _wait_for_the_killed_cycles_workers(host, *games: GameDir) -> None:
    """A killed cycle's forked workers die with it (PR_SET_PDEATHSIG), but a moment later: until then
    they hold the locks they inherited. Cron's next cycle starts minutes later; the test waits until
    the host's and the games' locks are free, as they are by then (a generous bound against a hang)."""
    import fcntl

    from pbem.transport.mail.hoststate import HOST_LOCK, state_dir
    from pbem.transport.mail.ledger import LOCK
    paths = [state_dir(host.folder) / HOST_LOCK, *(gd.moderator_dir / LOCK for gd in games)]
    deadline = time.monotonic() + 30
    for path in paths:
        if not path.exists():
            continue
        with open(path, "a+b") as fh:
            while True:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    assert time.monotonic() < deadline, f"{path} is still locked 30 s after the killed cycle"
                    time.sleep(0.01)
                    continue
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
                break


def test_a_hosted_game_by_hand_sends_with_the_hosts_settings_but_never_reads_the_shared_mailbox(
        host, key_pool, toy_registered):
    gd = host.game("club-one", "toy", TOY_PLAYERS, b"o" * 32)
    other = host.game("club-two", "toy", TOY_PLAYERS, b"p" * 32)
    move = bot_move(other, key_pool)
    assert move
    host.deliver(_move_message("red", *move))
    for command in ("run", "fetch"):
        result = CliRunner().invoke(pbem_main, ["mail", command, str(gd.root)], env=host.env())
        assert result.exit_code == 1
        assert result.output == (f"pbem: error: {gd.root} is one of the games of the host {host.folder} "
                                 f"(pbem-host.toml), whose mailbox all of them share: run `pbem mail run "
                                 f"{host.folder}`\n")
    result = CliRunner().invoke(pbem_main, ["mail", "send", str(gd.root), "--player", "blue"], env=host.env())
    assert result.exit_code == 0, result.output
    [digest] = host.mail_to("blue")
    assert digest["From"] == f"Club Moderator <{GM}>" and digest["X-PBEM-Game"] == Table.load(gd).game_id
    assert len(other.entries()) == 1                      # the other game's move still waits in the mailbox
    out = host.run()
    assert "club-two: accepted:" in out and "club-one: sent the digest of log entry 0 to red" in out, out
    assert "club-one: sent the digest of log entry 0 to blue" not in out      # blue has it already


def test_the_host_cycle_applies_each_games_deadlines_only_when_one_may_be_due(host, key_pool, toy_registered):
    """One cron line is enough for games with deadlines: the host ticks a game (as `pbem tick --mail`)
    when its log moved or its next reminder or deadline has come, never otherwise."""
    from pbem.transport.mail.host import run_host
    # the timed game: 48 hours a decision, a reminder 24 hours before, then a bot decides
    timed = host.game("club-timed", "toy", TOY_PLAYERS, b"q" * 32,
                      deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24})
    plain = host.game("club-plain", "toy", TOY_PLAYERS, b"r" * 32)
    now = time.time()
    first = run_host(host.folder, host.env(), now=now)
    assert set(first.looked_at) == {"club-timed", "club-plain"}
    waiting = Table.load(timed).entries[-1]["pending"][0]["player"]
    assert run_host(host.folder, host.env(), now=now + 3600).idle          # nothing due: nothing read

    reminded = run_host(host.folder, host.env(), now=now + 25 * 3600)     # inside the reminder window
    assert reminded.looked_at == ["club-timed"], reminded.lines
    assert f"club-timed: mailed a reminder to {address(waiting)}" in reminded.lines
    reminders = [m for m in host.mail_to(waiting) if "reminder" in str(m["Message-ID"])]
    assert len(reminders) == 1 and reminders[0]["From"] == f"Club Moderator <{GM}>"
    assert run_host(host.folder, host.env(), now=now + 26 * 3600).idle     # reminded once

    assert run_host(host.folder, host.env(), now=now + 49 * 3600, ticks=False).idle   # --no-tick: left alone
    assert len(timed.entries()) == 1
    expired = run_host(host.folder, host.env(), now=now + 49 * 3600)      # past the deadline: a bot decides
    assert any(line.startswith(f"club-timed: log entry 1: timeout for {waiting}") for line in expired.lines), \
        expired.lines
    assert any(line.startswith("club-timed: sent the digest of log entry") for line in expired.lines)
    assert "club-plain" not in " ".join(expired.lines)
    assert len(timed.entries()) >= 2 and len(plain.entries()) == 1 and audit(timed).ok


def test_a_move_for_a_game_kept_in_two_folders_waits_until_one_is_left(host, key_pool, toy_registered):
    import shutil
    gd = host.game("club-one", "toy", TOY_PLAYERS, b"o" * 32)
    host.run()
    shutil.copytree(gd.root, host.folder / "club-one-copy")
    move = bot_move(gd, key_pool)
    assert move
    mover = next(p for p in TOY_PLAYERS if f"player: {p}".encode() in move[0])
    host.deliver(_move_message(mover, *move))
    out = host.run()
    game_id = Table.load(gd).game_id
    assert f"club-one, club-one-copy: game {game_id} is in 2 folders" in out, out
    assert f"is for game {game_id}, which is in two folders" in out, out
    assert len(gd.entries()) == 1 and not _receipts(host, mover, game_id)
    shutil.rmtree(host.folder / "club-one-copy")
    out = host.run()
    assert "club-one: accepted:" in out, out
    assert [m["X-PBEM-Receipt"] for m in _receipts(host, mover, game_id)] == ["accepted"]


def _red_times_out_then_blue_draws(gd: GameDir, key_pool) -> list[dict]:
    """On a copy of a game (no mail): red's deadline passes, blue draws, and the tick puts red into
    civil disorder; the entries the bot and the moderator appended for red."""
    from pbem.pipeline.deadlines import tick
    from pbem.pipeline.submit import submit
    tick(gd)
    submit(gd, *signed_move(Table.load(gd), "blue", [{"draw": True}], key_pool["blue"]))
    tick(gd)
    return [e for e in gd.entries() if e.get("player") == "red" and e["kind"] == "moderator"]


def _disorder_game(host: Host, key_pool, tmp_path: Path) -> GameDir:
    """A toy game with civil disorder after one missed deadline, started 49 hours ago (red's first
    deadline has passed), whose bot draws for red both times (so red still has a card to draw once
    the seat is back): a seed tried on a copy first."""
    import shutil

    from pbem.store.entryclock import record_time
    rules = {"hours": 48, "on_expiry": "bot", "remind_hours": 24, "disorder_after": 1}
    for n in range(32):
        gd = host.game("club-disorder", "toy", TOY_PLAYERS, bytes([n]) * 32, deadlines=rules)
        record_time(gd.moderator_dir, 0, time.time() - 49 * 3600)
        probe = GameDir(shutil.copytree(gd.root, tmp_path / f"probe{n}"))
        acted = _red_times_out_then_blue_draws(probe, key_pool)
        if [(e["action"], e.get("actions")) for e in acted] == [
                ("timeout", [{"draw": True}]), ("disorder", None), ("bot-move", [{"draw": True}])]:
            return gd
        shutil.rmtree(gd.root)
    raise AssertionError("no seed of 32 lets the bot draw for red twice")


def _digest_text(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def test_a_player_in_civil_disorder_is_told_by_mail_and_takes_the_seat_back_with_a_stale_move(
        host, key_pool, tmp_path, toy_registered):
    """The QA tester's game by mail through a host: red misses a deadline, then goes into civil
    disorder in the cycle that makes red pending again (the bot decides at once). red is mailed
    that entry (the default cadence would not: red has no decision), the digest says how to come
    back; red's move, written on red's first digest, comes in stale: refused, but the seat is
    red's again; red is mailed the next decision and moves."""
    from pbem.transport.mail.host import run_host
    gd = _disorder_game(host, key_pool, tmp_path)
    game_id = Table.load(gd).game_id
    written = signed_move(Table.load(gd), "red", [{"draw": True}], key_pool["red"])   # red's move, never sent in time
    expired = run_host(host.folder, host.env())
    assert any(line.startswith("club-disorder: log entry 1: timeout for red") for line in expired.lines), expired.lines
    host.deliver(_move_message("blue", *signed_move(Table.load(gd), "blue", [{"draw": True}], key_pool["blue"])))
    before = len(host.mail_to("red"))
    disordered = run_host(host.folder, host.env())
    actions = [(e.get("action"), e.get("player")) for e in gd.entries()[3:]]
    assert actions[:2] == [("disorder", "red"), ("bot-move", "red")], actions
    told = [m for m in host.mail_to("red")[before:] if not m["X-PBEM-Receipt"]]
    assert len(told) == 1, disordered.lines                            # the disorder entry, though red has no decision
    text = " ".join(_digest_text(told[0]).split())
    assert "CIVIL DISORDER: red missed too many deadlines" in text
    assert 'to take your seat back, press "Take my seat back" in pbem play' in text
    assert "send a move - any move you sign" in text

    host.deliver(_move_message("red", *written, subject="sorry, I was away"))
    before = len(host.mail_to("red"))
    back = run_host(host.folder, host.env())
    returned = gd.entries()[-1]
    assert (returned["action"], returned["player"]) == ("return", "red"), back.lines
    assert returned["reason"].startswith("red sent a move (attachment move.yaml), written after entry 0")
    new = host.mail_to("red")[before:]
    [receipt] = [m for m in new if m["X-PBEM-Receipt"]]
    assert receipt["X-PBEM-Receipt"] == "rejected"
    said = " ".join(_digest_text(receipt).split())
    assert f"red's seat is red's again: civil disorder is over (moderator entry {returned['index']})" in said, said
    assert "This move itself is not taken: stale move" in said and "Your seat is yours again. The new digest" in said
    [digest] = [m for m in new if not m["X-PBEM-Receipt"]]             # the new digest, as the receipt says
    assert "CIVIL DISORDER" not in _digest_text(digest)

    host.deliver(_move_message("blue", *signed_move(Table.load(gd), "blue", [{"draw": True}], key_pool["blue"])))
    before = len(host.mail_to("red"))
    run_host(host.folder, host.env())
    assert [d["player"] for d in gd.entries()[-1]["pending"]] == ["red"]   # red's decision waits for red
    [digest] = [m for m in host.mail_to("red")[before:] if not m["X-PBEM-Receipt"]]
    assert digest["X-PBEM-Game"] == game_id
    host.deliver(_move_message("red", *signed_move(Table.load(gd), "red", [{"draw": True}], key_pool["red"])))
    run_host(host.folder, host.env())
    last = gd.entries()[-1]
    assert (last["kind"], last["player"]) == ("move", "red")
    assert [m["X-PBEM-Receipt"] for m in _receipts(host, "red", game_id)] == ["rejected", "accepted"]
    assert audit(gd).ok
