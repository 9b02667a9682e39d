"""The hostile-input corpus by mail: every entry in ONE Maildir, fetched in ONE `pbem mail fetch` run.

Each entry arrives twice as attachments (signed by red, and with a garbage signature
or none) from red's address, and twice pasted inline from a stranger's address; then
messages that are hostile as mail (headers, file names, MIME nesting, raw binary);
then, last, a valid signed move that must be accepted in the same run.  Every
message must be recorded once in the ledger with a one-line reason, answered only
if it came from a player's address; nothing but
the ledger may change before the valid move; no crash report.  The SMTP server
(aiosmtpd) is real; the Maildir is read as `pbem mail fetch` reads it.
"""
from __future__ import annotations

import json
import mailbox
import time
from dataclasses import dataclass, field
from email.utils import formatdate

import pytest
from click.testing import CliRunner
from conftest import tree_snapshot
from hostile_harness import all_entry_names, assert_clean_line
from hostile_mailbox import OLD_DATE, message
from mailservers import GM, PLAYERS, Router, World, address, make_cert, start_smtp
from pipeline_helpers import new_game, signed_move

from pbem.cli.group import main as pbem_main
from pbem.pipeline.audit import audit
from pbem.store.table import Table
from pbem.transport.mail import cycle as mail_cycle
from pbem.transport.mail.imap import MAX_MESSAGE

#: files the mail run may change before the valid move: its own bookkeeping
BOOKKEEPING = {"moderator/mail-ledger.json", "moderator/mail.lock"}


@pytest.fixture
def maildir_world(tmp_path, key_pool, toy_registered):
    """A toy game whose moves arrive in a local Maildir; receipts go out through a real SMTP server."""
    cert = make_cert(tmp_path / "tls")
    gd = new_game(tmp_path / "game", "toy", key_pool, PLAYERS)
    maildir = tmp_path / "Maildir"
    box = mailbox.Maildir(maildir, factory=None, create=True)
    smtp = start_smtp(Router({GM: box.add}), "none", cert, {})
    world = World(gd, None, smtp, cert, "gm", key_pool, "maildir", maildir)
    world.write_config()
    yield world
    smtp.stop()


@dataclass
class Seen:
    handled: list[str] = field(default_factory=list)     # Message-IDs
    before_valid: dict[str, str] | None = None


@pytest.fixture
def corpus_world(tmp_path, hostile_mailbox):
    """A copy of the session's hostile mailbox (tests/hostile_mailbox.py): its toy game, whose moves
    arrive in its Maildir; receipts go out through a real SMTP server."""
    cert = make_cert(tmp_path / "tls")
    gd, box = hostile_mailbox.copy_to(tmp_path / "game", tmp_path / "Maildir")
    smtp = start_smtp(Router({GM: box.add}), "none", cert, {})
    world = World(gd, None, smtp, cert, "gm", hostile_mailbox.keys, "maildir", tmp_path / "Maildir")
    world.write_config()
    yield world
    smtp.stop()


@pytest.mark.slow(seconds=10)
def test_every_corpus_message_in_one_fetch_is_refused_once_and_the_valid_move_behind_is_taken(
        corpus_world, hostile_mailbox, monkeypatch):
    world = corpus_world
    gd = world.gd
    table = Table.load(gd)
    box = mailbox.Maildir(world.maildir, factory=None, create=False)
    # for every corpus entry one message from red (attached) and one from a stranger (inline); then
    # the messages hostile as mail
    counts = hostile_mailbox.counts
    from_red = from_others = counts["entries"]
    assert from_red == len(all_entry_names()) and len(box) == counts["messages"] > 2 * from_red
    total = len(box)
    raw, sig = signed_move(table, "red", [{"draw": True}], world.keys["red"])
    valid = message(f"Red Player <{address('red')}>", "my real move", formatdate(time.time() + 3600))
    valid.set_content("here it is\n")
    valid.add_attachment(raw, "application", "x-yaml", filename="move.yaml")
    valid.add_attachment(sig.encode(), "application", "octet-stream", filename="move.yaml.sig")
    valid_id = valid["Message-ID"]
    box.add(valid.as_bytes())
    before = tree_snapshot(gd.root)

    seen = Seen()
    real_handle = mail_cycle._handle

    def watched_handle(gd_, header, ledger, item, msg, *rest):   # the real _handle, message by message
        message_id = mail_cycle._header(msg, "Message-ID")
        if message_id == valid_id:
            seen.before_valid = tree_snapshot(gd.root)
        real_handle(gd_, header, ledger, item, msg, *rest)
        seen.handled.append(message_id)

    monkeypatch.setattr(mail_cycle, "_handle", watched_handle)
    result = CliRunner().invoke(pbem_main, ["mail", "fetch", str(gd.root)], env=world.env())
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"pbem mail fetch: {result.exception!r}") from result.exception
    assert result.exit_code == 0, result.output

    # one run handled every message
    assert len(seen.handled) == total + 1

    # nothing changed on disk but the ledger until the valid move came
    assert seen.before_valid is not None
    changed = {k for k in before.keys() | seen.before_valid.keys()
               if before.get(k) != seen.before_valid.get(k)}
    assert changed <= BOOKKEEPING, f"changed by refused messages: {sorted(changed - BOOKKEEPING)}"
    assert not (gd.moderator_dir / "crashes").exists(), list((gd.moderator_dir / "crashes").iterdir())

    # the valid move behind them all was taken
    lines = result.output.splitlines()
    assert lines[-2].startswith("accepted: attachment move.yaml from Red Player"), lines[-3:]
    assert len(gd.entries()) == 2 and gd.entries()[1]["player"] == "red"
    report = audit(gd)
    assert report.ok, report.problems

    # one clean line per refusal: on the terminal, in the ledger, in every receipt
    for line in lines:
        assert_clean_line(line, "mail fetch output")
    ledger = json.loads((gd.moderator_dir / "mail-ledger.json").read_text())["messages"]
    assert len(ledger) == total + 1
    replied = 0
    for key, record in ledger.items():
        assert record["status"] in ("replied", "ignored"), (key, record["status"])
        if record["status"] == "ignored":
            assert_clean_line(record["reason"], f"ledger {key}")
            continue
        replied += bool(record["reply"]["to"])
        assert record["reply"]["to"] in ("", address("red")), record["reply"]["to"]
        for r in record.get("results", []):          # a message without a move was answered with what pbem expects
            if r["verdict"] == "rejected":
                assert len(r["lines"]) == 1
                assert_clean_line(r["lines"][0], f"ledger {key}")
            assert_clean_line(r["label"], f"ledger {key}")
    receipts = [m for m in world.router.log if m.msg["X-PBEM-Receipt"]]
    assert len(receipts) == replied and replied >= from_red      # answered once each, only to red
    assert {tuple(m.rcpt_tos) for m in receipts} == {(address("red"),)}
    for m in receipts:
        for line in m.msg.get_body(("plain",)).get_content().splitlines():
            assert_clean_line(line, f"receipt {m.msg['Subject']}")
    assert from_others > 0 and not world.router.inbox("mallory@evil.test")

    [huge] = [r for r in ledger.values() if r["message_id"] == "<huge@evil.test>"]
    assert "pbem reads messages of up to" in huge["reason"]
    [deep] = [r for r in ledger.values() if r["subject"] == "deep"]     # MIME nested 1500 deep: its header read
    assert "declares 1500 multipart sections; pbem reads messages of up to 64" in deep["reason"]
    helped = [m for m in receipts if m.msg["X-PBEM-Receipt"] == "not a move"]
    assert len(helped) <= 1                                        # what pbem expects: once a day per sender

    # and a second run finds nothing new: each message was handled once
    again = CliRunner().invoke(pbem_main, ["mail", "fetch", str(gd.root)], env=world.env())
    assert again.exit_code == 0 and again.output == "no new messages\n", again.output


# --- a full disk and a crash in mail mode ------------------------------------------------------------------------

def _attached_move(world: World, player: str, actions: list[dict]) -> bytes:
    raw, sig = signed_move(Table.load(world.gd), player, actions, world.keys[player])
    msg = message(f"{player.title()} Player <{address(player)}>", "my move", formatdate())
    msg.set_content("attached\n")
    msg.add_attachment(raw, "application", "x-yaml", filename="move.yaml")
    msg.add_attachment(sig.encode(), "application", "octet-stream", filename="move.yaml.sig")
    return msg.as_bytes()


def test_a_disk_full_after_the_commit_counts_the_move_as_taken(maildir_world, monkeypatch):
    world = maildir_world
    mailbox.Maildir(world.maildir, factory=None, create=False).add(_attached_move(world, "red", [{"draw": True}]))
    monkeypatch.setenv("PBEM_FAULT", "enospc:/public/digest.txt")     # the first write after the log
    result = CliRunner().invoke(pbem_main, ["mail", "fetch", str(world.gd.root)], env=world.env())
    assert result.exit_code == 0 and result.output.startswith("accepted: attachment move.yaml"), result.output
    [receipt] = [m for m in world.router.log if m.msg["X-PBEM-Receipt"]]
    assert receipt.msg["X-PBEM-Receipt"] == "accepted"
    assert not (world.gd.moderator_dir / "crashes").exists()
    monkeypatch.delenv("PBEM_FAULT")                                  # space is freed
    assert CliRunner().invoke(pbem_main, ["mail", "send", str(world.gd.root)], env=world.env()).exit_code == 0
    digests = [m.msg for m in world.router.log if m.msg["X-PBEM-Entry"]]
    assert digests and {d["X-PBEM-Entry"] for d in digests} == {"1"}
    report = audit(world.gd)
    assert report.ok, report.problems


def test_digests_are_never_sent_from_files_that_lag_the_log(maildir_world):
    """A submit killed just past its commit leaves old digests; `pbem mail run` repairs before it sends."""
    import os
    import subprocess
    import sys
    from test_hostile_corpus import PBEM
    world = maildir_world
    raw, sig = signed_move(Table.load(world.gd), "red", [{"draw": True}], world.keys["red"])
    move = world.gd.root.parent / "move.yaml"
    move.write_bytes(raw)
    move.with_name("move.yaml.sig").write_text(sig)
    proc = subprocess.run([sys.executable, "-c", PBEM, "submit", str(world.gd.root), str(move)],
                          env={**os.environ, "PBEM_FAULT": "kill:committed"}, capture_output=True, timeout=120)
    assert proc.returncode == -9 and len(world.gd.entries()) == 2
    assert "red drew" not in (world.gd.public_dir / "digest.txt").read_text()     # the digest lags the log
    result = CliRunner().invoke(pbem_main, ["mail", "run", str(world.gd.root)], env=world.env())
    assert result.exit_code == 0, result.output
    digests = [m.msg for m in world.router.log if m.msg["X-PBEM-Entry"]]
    assert len(digests) == len(PLAYERS) and {d["X-PBEM-Entry"] for d in digests} == {"1"}
    for d in digests:
        text = d.get_body(("plain",)).get_content()
        assert "red drew a card" in text, text[:500]


def test_a_message_too_big_to_read_is_left_alone_over_imap_too(world):
    """Dovecot over IMAP: only the header of a message over the limit is downloaded."""
    from mailservers import deliver_to_gm
    deliver_to_gm(world, (f"From: {address('red')}\r\nDate: {OLD_DATE}\r\nSubject: huge\r\n"
                          "Message-ID: <huge@evil.test>\r\n\r\n").encode() + b"x" * (MAX_MESSAGE + 1))
    deliver_to_gm(world, _attached_move(world, "red", [{"draw": True}]))
    result = CliRunner().invoke(pbem_main, ["mail", "fetch", str(world.gd.root)], env=world.env())
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("not a move: message <huge@evil.test>") and "bytes; pbem reads messages" in lines[0]
    assert lines[1] == f"  receipt (not a move) sent to {address('red')}"      # told what pbem reads, once
    assert lines[2].startswith("accepted: attachment move.yaml")
    assert CliRunner().invoke(pbem_main, ["mail", "fetch", str(world.gd.root)], env=world.env()).output == "no new messages\n"
