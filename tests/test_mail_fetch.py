"""`pbem mail fetch`: moves by mail from Dovecot (IMAP) or a Maildir, receipts, exactly-once."""
from __future__ import annotations

import json
from email.utils import formatdate

import pytest
from click.testing import CliRunner
from mailservers import (
    GM,
    QUIET_TLS,
    address,
    attachment_message,
    deliver_to_gm,
    imap_flags,
    inline_message,
    move_files,
    start_world,
    wait_for,
)

from pbem.cli.group import main as pbem_main
from pbem.transport.mail import cycle as mail_cycle
from pbem.transport.mail import ledger as mail_ledger
from pbem.transport.mail.cycle import fetch_moves


def log_length(world) -> int:
    return len(world.gd.entries())


def receipts(world, player):
    return [r.msg for r in world.mail_to(player) if r.msg["X-PBEM-Receipt"]]


def body(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def test_attached_move_sent_by_a_real_client_is_accepted_with_a_receipt(world):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    sent = attachment_message("red", raw, sig)
    world.player_send("red", sent)
    result = CliRunner().invoke(pbem_main, ["mail", "fetch", str(world.gd.root)], env=world.env())
    assert result.exit_code == 0, result.output
    assert result.output.startswith("accepted: attachment move.yaml from Red Player <red@pbem.test> <")
    assert log_length(world) == 2
    [receipt] = receipts(world, "red")
    entry = world.gd.entries()[1]
    text = body(receipt)
    assert "ACCEPTED (attachment move.yaml)" in text
    assert f"red's move {entry['move']['sha256'][:16]} is log entry 1" in text
    assert "red drew a card (1 in hand)" in text and "waiting for: blue" in text
    # red has no decision now: no digest follows at once, and the receipt does not promise one
    assert "The new digest follows" not in text and "when you have a decision to make" in text
    assert receipt["In-Reply-To"] == sent["Message-ID"] and receipt["Auto-Submitted"] == "auto-replied"
    assert receipt["Subject"] == "Re: my move" and receipt["X-PBEM-Receipt"] == "accepted"   # the player's thread
    assert text.startswith("Accepted: your message to game ")
    assert [b"\\Seen" in f for f in imap_flags(world.dovecot, world.imap_user)] == [True]
    signed = {part.get_filename(): part.get_content() for part in receipt.iter_attachments()}
    assert set(signed) == {"receipt-entry1.yaml", "receipt-entry1.yaml.sig"}
    from pbem.store import receipts as signed_receipts
    checked = signed_receipts.verify(signed["receipt-entry1.yaml"].encode(), signed["receipt-entry1.yaml.sig"],
                                     world.gd.entries()[0]["moderator"]["key"])
    assert checked.entry == 1 and checked.entry_hash == entry["hash"] and checked.player == "red"


def test_text_attachments_with_crlf_are_accepted(world):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    world.player_send("red", attachment_message("red", raw, sig, as_text=True))
    report = fetch_moves(world.gd, world.config())
    assert report.accepted == 1, report.lines
    assert (world.gd.moves_dir / "000001-red.yaml").read_bytes() == raw


@pytest.mark.parametrize("style", ["crlf", "flowed", "html-only", "nbsp"])
def test_inline_move_damaged_by_the_mail_client_is_accepted(world, style):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    world.player_send("red", inline_message("red", raw, sig, style=style))
    report = fetch_moves(world.gd, world.config())
    assert report.accepted == 1, report.lines
    assert (world.gd.moves_dir / "000001-red.yaml").read_bytes() == raw     # what red signed, exactly
    assert "ACCEPTED (inline move 1)" in body(receipts(world, "red")[0])


@pytest.mark.parametrize("names", [("move.txt", "move.txt.sig"), ("move.txt", "signature.txt")])
def test_a_move_attached_under_another_name_is_found_by_its_content(world, names):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    msg = attachment_message("red", raw, sig)
    for part, name in zip(list(msg.iter_attachments()), names):
        part.replace_header("Content-Disposition", f'attachment; filename="{name}"')
    world.player_send("red", msg)
    assert fetch_moves(world.gd, world.config()).accepted == 1


def test_a_move_indented_with_non_breaking_spaces_by_the_player_gets_a_clear_refusal(world):
    from pbem.crypto import keys, sshsig
    raw, _sig = move_files(world.gd, "red", world.keys["red"])
    raw = raw.replace(b"  - ", "\u00a0\u00a0- ".encode())
    sig = sshsig.sign(keys.load_private_key(world.keys["red"]), raw, sshsig.MOVE_NAMESPACE)   # signed like that
    world.player_send("red", attachment_message("red", raw, sig))
    assert fetch_moves(world.gd, world.config()).rejected == 1
    assert "indented with non-breaking spaces" in body(receipts(world, "red")[0])


def test_fetch_twice_handles_each_message_once(world):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    world.player_send("red", attachment_message("red", raw, sig))
    first = fetch_moves(world.gd, world.config())
    second = fetch_moves(world.gd, world.config())
    assert first.accepted == 1 and second.lines == ["no new messages"]
    assert log_length(world) == 2 and len(receipts(world, "red")) == 1
    ledger = json.loads((world.gd.moderator_dir / "mail-ledger.json").read_text())["messages"]
    [(key, record)] = ledger.items()
    assert key.startswith("<") and " sha256:" in key and record["status"] == "replied"
    assert ((world.gd.moderator_dir / "mail-ledger.json").stat().st_mode & 0o777) == 0o600


def test_crash_between_submit_and_ledger_write(world, monkeypatch):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    world.player_send("red", attachment_message("red", raw, sig))
    real_put = mail_ledger.Ledger.put

    def crash(self, key, record):
        if record.get("status") == mail_ledger.SUBMITTED:
            raise KeyboardInterrupt("power cut")
        real_put(self, key, record)

    monkeypatch.setattr(mail_ledger.Ledger, "put", crash)
    with pytest.raises(KeyboardInterrupt):
        fetch_moves(world.gd, world.config())
    assert log_length(world) == 2 and receipts(world, "red") == []     # submitted, but nothing recorded
    monkeypatch.setattr(mail_ledger.Ledger, "put", real_put)
    report = fetch_moves(world.gd, world.config())                     # the rerun
    assert log_length(world) == 2 and report.accepted == 1
    [receipt] = receipts(world, "red")
    text = body(receipt)
    assert "is log entry 1" in text and "this move was already in the log" in text
    assert fetch_moves(world.gd, world.config()).lines == ["no new messages"]
    assert len(receipts(world, "red")) == 1


def test_crash_between_ledger_write_and_receipt(world, monkeypatch):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    world.player_send("red", attachment_message("red", raw, sig))
    real_send = mail_cycle.LazySender.send

    def fail(self, msg, to):
        raise mail_cycle.MailFetchError("connection lost")

    monkeypatch.setattr(mail_cycle.LazySender, "send", fail)
    with pytest.raises(mail_cycle.MailFetchError, match="connection lost"):
        fetch_moves(world.gd, world.config())
    ledger = mail_ledger.Ledger.load(world.gd)
    assert [r["status"] for r in ledger.records.values()] == ["submitted"]
    monkeypatch.setattr(mail_cycle.LazySender, "send", real_send)
    report = fetch_moves(world.gd, world.config())
    assert report.replies == 1 and report.accepted == 0 and log_length(world) == 2
    assert report.lines[0].startswith("receipt owed from an earlier run for <")
    text = body(receipts(world, "red")[0])
    assert "ACCEPTED (attachment move.yaml):" in text and "already in the log" not in text


def test_a_message_without_a_move_gets_one_short_answer_a_day_and_never_a_machine(world):
    world.player_send("blue", b"From: blue@pbem.test\r\nTo: gm@pbem.test\r\nSubject: hello\r\n"
                              b"Message-ID: <chat@pbem.test>\r\n\r\nWhen is the next game?\r\n")
    deliver_to_gm(world, b"From: mailer-daemon@pbem.test\r\nTo: gm@pbem.test\r\nSubject: away\r\n"
                         b"Auto-Submitted: auto-replied\r\n\r\nI am on holiday.\r\n")
    world.player_send("blue", b"From: blue@pbem.test\r\nTo: gm@pbem.test\r\nSubject: hello again\r\n"
                              b"Message-ID: <chat2@pbem.test>\r\n\r\nAnyone there?\r\n")
    deliver_to_gm(world, b"From: stranger@elsewhere.test\r\nTo: gm@pbem.test\r\nSubject: offer\r\n"
                         b"Message-ID: <spam@elsewhere.test>\r\n\r\nBuy now\r\n")
    report = fetch_moves(world.gd, world.config())
    assert report.ignored == 4 and report.replies == 1
    assert report.lines[0].startswith("not a move: message <chat@pbem.test> from blue@pbem.test ('hello'): no move")
    assert report.lines[0].endswith("told the sender what pbem expects")
    assert "automatic message" in report.lines[2] and report.lines[2].endswith("(automatic: not answered)")
    assert report.lines[3].endswith("(the sender was told what pbem expects today already)")   # once a day
    assert report.lines[4].endswith("(not from a player's address: not answered)")              # never a stranger
    answers = [m for m in world.router.log if m.msg["X-PBEM-Receipt"]]
    assert [m.rcpt_tos for m in answers] == [["blue@pbem.test"]]
    [answer] = answers
    assert answer.msg["Auto-Submitted"] == "auto-replied" and answer.msg["X-PBEM-Receipt"] == "not a move"
    assert answer.msg["In-Reply-To"] == "<chat@pbem.test>" and answer.msg["Subject"] == "Re: hello"
    text = body(answer.msg)
    assert "pbem found no move in it" in text and "attach move.yaml and its signature move.yaml.sig" in text
    assert "pbem found no move in it (no *.yaml + *.yaml.sig attachments" in text   # said once, not twice
    assert text.count("no move in it") == 1
    assert fetch_moves(world.gd, world.config()).lines == ["no new messages"]


def test_rejected_moves_get_the_reason(world):
    raw, sig = move_files(world.gd, "red", world.keys["red"])
    world.player_send("blue", attachment_message("blue", raw, sig.replace("A", "B", 5)))  # spoiled signature
    world.player_send("red", b"From: red@pbem.test\r\nSubject: question\r\n\r\nhow do I sign?\r\n")
    raw2, _sig2 = move_files(world.gd, "red", world.keys["red"], [{"stop": True}])
    world.player_send("red", inline_message("red", raw2, "", style="plain"))   # pasted without its signature
    report = fetch_moves(world.gd, world.config())
    assert log_length(world) == 1 and report.accepted == 0 and report.rejected == 2 and report.ignored == 1
    [to_blue] = receipts(world, "blue")
    assert "REJECTED (attachment move.yaml): bad signature" in body(to_blue)
    assert "Nothing was changed" in body(to_blue) and to_blue["X-PBEM-Receipt"] == "rejected"
    assert body(to_blue).startswith("Refused: your message to game ")
    help_red, to_red = receipts(world, "red")                     # "how do I sign?" gets what pbem expects
    assert help_red["X-PBEM-Receipt"] == "not a move" and "ssh-keygen -Y sign -n pbem-move" in body(help_red)
    assert "a move without its signature" in body(to_red)


def test_oldest_message_first(world):
    older_raw, older_sig = move_files(world.gd, "red", world.keys["red"], [{"draw": True}])
    newer_raw, newer_sig = move_files(world.gd, "red", world.keys["red"], [{"stop": True}])
    # the newer message arrives first
    world.player_send("red", inline_message("red", newer_raw, newer_sig, subject="second thoughts",
                                            date=formatdate(1_900_000_000)))
    world.player_send("red", inline_message("red", older_raw, older_sig, subject="first",
                                            date=formatdate(1_800_000_000)))
    report = fetch_moves(world.gd, world.config())
    assert report.accepted == 1 and report.rejected == 1
    assert world.gd.entries()[1]["actions"] == [{"draw": True}]
    texts = {r["Subject"].split(" [")[0]: body(r) for r in receipts(world, "red")}
    assert "ACCEPTED" in texts["Re: first"] and "stale move" in texts["Re: second thoughts"]


@pytest.mark.filterwarnings(QUIET_TLS)
def test_fetch_over_imaps_and_smtps_moving_handled_mail_to_a_folder(tmp_path, key_pool, toy_registered, dovecot):
    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="tls", inbox="imaps")
    try:
        w.write_config(done_folder="pbem done")
        raw, sig = move_files(w.gd, "red", w.keys["red"])
        w.player_send("red", attachment_message("red", raw, sig))
        w.player_send("blue", b"From: blue@pbem.test\r\nSubject: hi\r\n\r\nno move here\r\n")
        report = fetch_moves(w.gd, w.config())
        assert report.accepted == 1 and report.ignored == 1 and report.replies == 2   # the chat: what pbem expects
        assert len(imap_flags(w.dovecot, w.imap_user)) == 0                 # both handled: moved
        assert [b"\\Seen" in f for f in imap_flags(w.dovecot, w.imap_user, "pbem done")] == [True, True]
    finally:
        w.smtp.stop()


def test_fetch_from_a_maildir(tmp_path, key_pool, toy_registered, dovecot):
    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="none", inbox="maildir")
    try:
        raw, sig = move_files(w.gd, "red", w.keys["red"])
        w.player_send("red", inline_message("red", raw, sig, style="crlf"))
        wait_for(lambda: any((w.maildir / "new").iterdir()))
        report = fetch_moves(w.gd, w.config())
        assert report.accepted == 1 and report.replies == 1
        assert not any((w.maildir / "new").iterdir())
        [name] = [p.name for p in (w.maildir / "cur").iterdir()]
        assert name.endswith(":2,S")
        assert fetch_moves(w.gd, w.config()).lines == ["no new messages"]
        assert [r.rcpt_tos for r in w.router.log[1:]] == [[address("red")]]
        assert GM not in w.router.inboxes
    finally:
        w.smtp.stop()


def test_a_second_mail_run_at_the_same_time_stops_with_one_line(world):
    with mail_ledger.mail_lock(world.gd):
        result = CliRunner().invoke(pbem_main, ["mail", "run", str(world.gd.root)], env=world.env())
    assert result.exit_code != 0
    assert result.output.startswith("pbem: error: another `pbem mail` is working on") and result.output.count("\n") == 1


def test_a_player_who_asks_for_the_log_gets_a_copy_to_check_and_audit(world, tmp_path):
    import io
    import tarfile

    from pbem.pipeline.audit import audit
    from pbem.pipeline.preview import preview
    from pbem.store.gamedir import GameDir
    from pbem.store.movefile import render_move
    world.player_send("blue", b"From: blue@pbem.test\r\nSubject: send log please\r\n\r\nthanks\r\n")
    world.player_send("green", b"From: mallory@evil.test\r\nSubject: send log\r\n\r\n\r\n")   # a stranger
    report = fetch_moves(world.gd, world.config())
    assert any("sent the public copy of the game to blue@pbem.test" in line for line in report.lines)
    [reply] = receipts(world, "blue")
    [bundle] = [a for a in reply.iter_attachments() if a.get_filename().endswith("-public.tar.gz")]
    game_id = world.gd.entries()[0]["id"]
    with tarfile.open(fileobj=io.BytesIO(bundle.get_content()), mode="r:gz") as tar:
        names = tar.getnames()
        assert all(n.startswith(f"{game_id}/") and "moderator" not in n and "secrets" not in n for n in names)
        tar.extractall(tmp_path / "copy", filter="data")
    copy = GameDir(tmp_path / "copy" / game_id)
    assert audit(copy).ok                                     # chain and signatures, on the player's machine
    from pbem.store.table import Table
    table = Table.load_public(copy)
    from pbem.store.movefile import MoveFile
    move = tmp_path / "move.yaml"
    move.write_text(render_move(MoveFile(game_id, "red", table.last["index"], table.last["hash"], [{"stop": True}])))
    assert "action 1 {stop: true}: legal" in preview(copy.root, move)
    assert [r.rcpt_tos for r in world.router.log if "gm@pbem.test" not in r.rcpt_tos] == [["blue@pbem.test"]]


def test_the_ledger_file_is_its_records_encoded_afresh_after_every_change(tmp_path):
    """The ledger keeps each record's line until the record changes (put, add_source): the file
    written after each change is what encoding every record again gives, and reads back as the records."""
    import copy
    ledger = mail_ledger.Ledger(tmp_path / mail_ledger.LEDGER)

    def plain() -> str:
        return mail_ledger.dumps_by_line({"format": "pbem-mail-ledger/1", "messages": copy.deepcopy(ledger.records)})
    record = {"message_id": "<a@x>", "sources": ["box;1"], "status": mail_ledger.SUBMITTED}
    steps = [lambda: ledger.put("a", record),
             lambda: ledger.put("b", {"message_id": "<b@x>", "sources": ["box;2"], "status": mail_ledger.IGNORED}),
             lambda: ledger.add_source("a", "box;3"),
             lambda: ledger.add_source("a", "box;3"),                 # already there: nothing written
             lambda: (record.update(status=mail_ledger.REPLIED), ledger.put("a", record)),   # changed in place, then put
             lambda: ledger.put("0", {"message_id": "<0@x>", "sources": [], "status": mail_ledger.IGNORED})]
    for step in steps:
        step()
        assert ledger.path.read_text() == plain()
        assert json.loads(ledger.path.read_text())["messages"] == ledger.records
    assert mail_ledger.Ledger.load(type("G", (), {"moderator_dir": tmp_path})()).records == ledger.records  # type: ignore[arg-type]
    assert ledger.records["a"]["sources"] == ["box;1", "box;3"] and ledger.records["a"]["status"] == mail_ledger.REPLIED
