"""`pbem mail run HOST_DIR --jobs N`: the games' work in worker processes changes nothing a player
or the moderator sees (issue 24).

Two hosts with the same games (the same seeds, keys and positions), each on its own Dovecot
mailbox and SMTP server (mailservers.py), are sent the same messages, byte for byte; one runs
with --jobs 1, the other with --jobs 2.  The reports, the logs and the mail each host sends
(to whom, in which order, what each receipt says) must be the same, and the outcomes the ones a
moderator expects: the moves taken once, the poison answered, a game that fails in a worker (a
damaged log, a damaged settings file, an unreadable file of its own) reported on its line while
the others go on.  The kill test is in test_mail_host.py (`--jobs 1` and `--jobs 2`).
"""
from __future__ import annotations

import os
from email.message import EmailMessage

import pytest
from email.utils import parseaddr

from mailservers import address
from pipeline_helpers import bot_move, late_position, signed_move
from test_mail_host import SWARM_PLAYERS, TOY_PLAYERS, Host, _move_message, _plain

from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

GAMES = ("club-broken", "club-conf", "club-sent", "club-swarm", "club-toy", "club-toy2")


@pytest.fixture
def hosts(tmp_path, key_pool, dovecot):
    made = []
    for jobs in ("1", "2"):
        (tmp_path / jobs).mkdir()
        made.append(Host(tmp_path / jobs, key_pool, dovecot))
    yield made
    for h in made:
        h.smtp.stop()


def _games(host: Host) -> dict[str, GameDir]:
    swarm = late_position("space-swarm", SWARM_PLAYERS, left=30)
    return {"club-toy": host.game("club-toy", "toy", TOY_PLAYERS, b"t" * 32),
            "club-toy2": host.game("club-toy2", "toy", TOY_PLAYERS, b"u" * 32),
            "club-swarm": host.game("club-swarm", "space-swarm", SWARM_PLAYERS, b"w" * 32, position=swarm),
            "club-broken": host.game("club-broken", "toy", TOY_PLAYERS, b"b" * 32),
            "club-conf": host.game("club-conf", "toy", TOY_PLAYERS, b"c" * 32),
            "club-sent": host.game("club-sent", "toy", TOY_PLAYERS, b"s" * 32)}


def _run(hosts: list[Host]) -> list[str]:
    """One cycle of each host, the first with one job, the second with two; each report with its
    host's folder written HOST (a game's failure names its files)."""
    return [h.run("--jobs", jobs).replace(str(h.folder), "HOST") for h, jobs in zip(hosts, ("1", "2"))]


def _text(msg: EmailMessage) -> str:
    body = msg.get_body(preferencelist=("plain",))
    return body.get_content() if body is not None else ""


def _sent(host: Host) -> list[tuple[str, str, str, str]]:
    """Every message the host sent, in the order the SMTP server took them: to whom, for which
    game, the receipt's verdict (or the digest's subject) and a receipt's text."""
    out = []
    for r in host.router.log:
        msg = r.msg
        receipt = str(msg["X-PBEM-Receipt"] or "")
        out.append((parseaddr(str(msg["To"]))[1], str(msg["X-PBEM-Game"]), receipt or str(msg["Subject"]),
                    _text(msg) if receipt else ""))
    return out


def test_two_jobs_take_the_same_moves_send_the_same_mail_and_report_the_same_as_one(hosts, key_pool,
                                                                                   toy_registered):
    one, two = hosts
    games = [_games(h) for h in hosts]
    first = _run(hosts)
    assert first[0] == first[1]
    assert all(f"{name}: sent the digest of log entry 0" in first[1] for name in GAMES), first[1]
    assert [h.run("--jobs", "2") for h in hosts] == ["", ""]          # idle: quiet, and no worker started

    broken_id = Table.load(games[0]["club-broken"]).game_id
    for g in games:                               # three games fail, each in its own way, in the worker
        with open(g["club-broken"].log_path, "ab") as fh:
            fh.write(b"--- # entry 99\n: : not yaml [\n")
        (g["club-conf"].moderator_dir / "mail.toml").write_text("[players\n")
        sent = g["club-sent"].moderator_dir / "mail-sent.json"
        sent.unlink()
        sent.mkdir()                              # a file of the game's own that cannot be read

    mine = games[0]
    messages: list[bytes] = []
    movers = {}
    for name in ("club-toy", "club-toy2", "club-swarm", "club-broken", "club-conf", "club-sent"):
        move = bot_move(mine[name], key_pool) if name != "club-broken" else _broken_move(mine, broken_id, key_pool)
        assert move
        mover = next(p for p in (*TOY_PLAYERS, *SWARM_PLAYERS) if f"player: {p}".encode() in move[0])
        movers[name] = mover
        if name == "club-toy":                    # poison first: a move changed after signing, a question
            messages.append(_move_message(mover, move[0] + b"# changed after signing\n", move[1]).as_bytes())
            digest = next(m for m in one.mail_to(mover) if m["X-PBEM-Game"] == Table.load(mine[name]).game_id)
            messages.append(_plain(mover, "what now?", Subject="Re: " + str(digest["Subject"]),
                                   In_Reply_To=str(digest["Message-ID"])).as_bytes())
        messages.append(_move_message(mover, *move).as_bytes())
    for h in hosts:
        for raw in messages:
            h.deliver(raw)
    start = [len(h.router.log) for h in hosts]

    out = _run(hosts)
    assert out[0] == out[1], f"--jobs 1:\n{out[0]}\n--jobs 2:\n{out[1]}"
    lines = out[1].splitlines()
    for name in ("club-toy", "club-toy2", "club-swarm"):
        assert any(line.startswith(f"{name}: accepted: attachment move.yaml") for line in lines), out[1]
        assert any(line.startswith(f"{name}: sent the digest of log entry 1") for line in lines), out[1]
    assert any(line.startswith("club-toy: rejected:") and "bad signature" in line for line in lines), out[1]
    assert any(line.startswith("club-toy: not a move:") for line in lines), out[1]
    for name in ("club-broken", "club-conf", "club-sent"):
        assert any(line.startswith(f"{name}: not run:") and "1 message(s) wait" in line for line in lines), out[1]
    assert [line.split(":", 1)[0] for line in lines] == [line.split(":", 1)[0] for line in out[0].splitlines()]

    for name in GAMES:
        assert games[0][name].log_path.read_bytes() == games[1][name].log_path.read_bytes(), name
    for name in ("club-toy", "club-toy2", "club-swarm"):
        assert len(games[1][name].entries()) == 2 and audit(games[1][name]).ok, name
    sent = [_sent(h)[s:] for h, s in zip(hosts, start)]
    assert sent[0] == sent[1]
    receipts = sorted((to, game, verdict) for to, game, verdict, _text in sent[1] if verdict in
                      ("accepted", "rejected", "not a move"))
    ids = {name: Table.load(games[1][name]).game_id for name in ("club-toy", "club-toy2", "club-swarm")}
    addr = {name: address(movers[name]) for name in ids}
    assert receipts == sorted([(addr["club-toy"], ids["club-toy"], v) for v in ("accepted", "not a move", "rejected")]
                              + [(addr[n], ids[n], "accepted") for n in ("club-toy2", "club-swarm")])

    # the next cycle: nothing taken or sent twice; the failed games' messages still wait
    again = _run(hosts)
    assert again[0] == again[1]
    assert "accepted" not in again[1] and "sent the digest" not in again[1], again[1]
    assert {line.split(":", 1)[0] for line in again[1].splitlines()} == {"club-broken", "club-conf", "club-sent"}
    # repaired, the games that failed are taken, the same with one job as with two
    for g in games:
        (g["club-conf"].moderator_dir / "mail.toml").write_text(
            "[players]\n" + "".join(f'{p} = "{address(p)}"\n' for p in TOY_PLAYERS))
        (g["club-sent"].moderator_dir / "mail-sent.json").rmdir()
    fixed = _run(hosts)
    assert fixed[0] == fixed[1]
    assert "club-conf: accepted:" in fixed[1], fixed[1]
    assert "club-sent: receipt owed from an earlier run" in fixed[1], fixed[1]     # its move was in already
    assert os.path.isfile(games[1]["club-sent"].moderator_dir / "mail-sent.json")


def _broken_move(games: dict[str, GameDir], broken_id: str, key_pool) -> tuple[bytes, str]:
    """A move naming the broken game (whose log no longer loads): the toy game's, renamed."""
    table = Table.load(games["club-toy"])
    player = table.entries[-1]["pending"][0]["player"]
    raw, sig = signed_move(table, player, [{"draw": True}], key_pool[player])
    return raw.replace(table.game_id.encode(), broken_id.encode()), sig


@pytest.mark.parametrize("value, error", [
    ("2", ""),
    ("0", "jobs must be a whole number from 1 to 64, not 0"),
    ("65", "jobs must be a whole number from 1 to 64, not 65"),
    ('"4"', "jobs must be a whole number from 1 to 64, not '4'"),
    ("true", "jobs must be a whole number from 1 to 64, not True"),
])
def test_the_hosts_jobs_setting_is_a_small_whole_number(tmp_path, value, error):
    from pbem.transport.mail.config import MailConfigError
    from pbem.transport.mail.hostconfig import DEFAULT_JOBS_CAP, default_jobs, load_host
    settings = tmp_path / "pbem-host.toml"
    settings.write_text(f'from = "Club <judge@club.test>"\njobs = {value}\n[smtp]\nhost = "127.0.0.1"\n'
                        'security = "none"\n[maildir]\npath = "Maildir"\n')
    os.chmod(settings, 0o600)
    if error:
        with pytest.raises(MailConfigError) as caught:
            load_host(tmp_path, {})
        assert str(caught.value) == f"{settings}: {error}"
    else:
        host = load_host(tmp_path, {})
        assert host.jobs == 2 and "jobs" not in host.data        # not a game's setting: never merged into one
    assert 1 <= default_jobs() <= min(DEFAULT_JOBS_CAP, len(os.sched_getaffinity(0)))
