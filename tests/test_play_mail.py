"""`pbem play` for a game by e-mail: the public update each digest carries, the player's mailbox
read over IMAP (a real Dovecot) with the copy extended only by what checks out, the move signed
and mailed over SMTP (the tests' real aiosmtpd) in the game's thread, the moderator's real mail
cycle taking it, and the receipt fetched, checked and kept.  A forged update and a forged receipt
are refused, shown, and never applied."""
from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import time
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from mailservers import GM, PASSWORD, address, attachment_message, move_files, start_world

from pbem.cli.group import main
from pbem.client import config as settings
from pbem.client.fetch import fetch
from pbem.client.server import PlayApp
from pbem.store.gamedir import GameDir
from pbem.store.update import UpdateError, armoured_size, public_update, read_update, update_within
from pbem.transport.mail.compose import attach_update
from pbem.transport.mail.cycle import run_cycle, send_digests


@pytest.fixture
def mail_game(tmp_path, key_pool, toy_registered, dovecot, monkeypatch):
    """A toy game by mail; red reads their mail on Dovecot and plays with `pbem play`."""
    return _mail_game(tmp_path, key_pool, dovecot, monkeypatch)


def _mail_game(tmp_path, key_pool, dovecot, monkeypatch, **world_args):
    world = start_world(tmp_path, key_pool, dovecot, **world_args)
    settings_file = world.gd.moderator_dir / "mail.toml"          # a digest to everyone after every entry
    settings_file.write_text('cadence = "entry"\n' + settings_file.read_text())
    red_user = f"red-{os.getpid()}-{time.monotonic_ns()}"
    world.router.local[address("red")] = lambda raw: dovecot.deliver(red_user, raw)
    dovecot.deliver(red_user, _note())            # a mailbox is never empty: mail of no game stays alone
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("PBEM_PLAY_IMAP_PASSWORD", PASSWORD)
    result = CliRunner().invoke(main, [
        "play", "init", "club", "--mail", "--game-id", world.gd.entries()[0]["id"], "--player", "red",
        "--key", str(key_pool["red"]), "--moderator", GM, "--address", address("red"),
        "--imap-host", "127.0.0.1", "--imap-port", str(dovecot.port), "--imap-security", "none",
        "--imap-user", red_user, "--smtp-host", "127.0.0.1", "--smtp-port", str(world.smtp.port),
        "--smtp-security", "none"])
    assert result.exit_code == 0, result.output
    return world, settings.load().game("club")


def _note() -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "friend@pbem.test", address("red"), "lunch?"
    msg["Message-ID"] = make_msgid("note", domain="pbem.test")
    msg.set_content("not a game\n")
    return msg.as_bytes()


def test_init_writes_mail_settings_without_a_password(mail_game):
    world, game = mail_game
    path = settings.config_path()
    assert path.stat().st_mode & 0o777 == 0o600
    text = path.read_text()
    assert PASSWORD not in text and "password" not in text.replace("no passwords here", "")
    assert game.transport == "mail" and game.mail is not None and game.mail.moderator == GM
    assert game.game_dir == world.gd.entries()[0]["id"]
    result = CliRunner().invoke(main, ["play", "init", "other", "--mail", "--game-id", "g-1", "--player", "red",
                                       "--key", str(world.keys["red"]), "--moderator", GM,
                                       "--address", address("red"), "--smtp-host", "smtp.example.org"])
    assert result.exit_code != 0 and "--imap-host (or --maildir)" in result.output
    assert "other" not in settings.load().games                # nothing written


def test_a_turn_by_mail_fetched_checked_sent_and_receipted(mail_game, key_pool):
    world, game = mail_game
    gd = world.gd
    cfg = world.config()
    send_digests(gd, cfg)                                       # the first digests: the whole copy in each
    fetched = fetch(game)
    assert fetched.index == 0 and fetched.trusted and not fetched.refused, fetched
    copy = GameDir(game.folder)
    assert copy.log_path.read_bytes() == gd.log_path.read_bytes()
    assert copy.secrets_path("red").read_bytes() == gd.secrets_path("red").read_bytes()

    app = PlayApp(settings.load())
    [row] = app.games()["games"]
    assert row["your_turn"] and row["index"] == 0 and row["problems"] == []
    step = app.step({"game": "club", "actions": []})
    draw = next(c["action"] for c in step["choices"] if c["action"] == {"draw": True})
    sent = app.send({"game": "club", "actions": [draw]})
    assert sent["by"] == "mail" and sent["index"] == 0
    report = run_cycle(gd, cfg)                                 # the moderator's real cycle: IMAP, submit, SMTP
    assert report.accepted == 1, report.lines
    [move_mail] = [r for r in world.router.log if r.mail_from == address("red")]
    assert move_mail.msg["In-Reply-To"] and move_mail.msg["Subject"].startswith("Re: [")   # in the thread
    assert {p.get_filename() for p in move_mail.msg.iter_attachments()} == {"move.yaml", "move.yaml.sig"}

    answer = app.refresh({"game": "club"})
    assert answer["index"] == 1 and answer["problems"] == [], answer
    assert any(n.startswith("receipt checked and kept: entry 1") for n in answer["notes"]), answer["notes"]
    assert copy.log_path.read_bytes() == gd.log_path.read_bytes()
    assert (Path(os.environ["XDG_DATA_HOME"]) / "pbem" / "receipts" / copy.root.name).is_dir()
    past = app.entries({"game": "club"})                        # the game so far, as red saw it
    assert [e["index"] for e in past["entries"]] == [0, 1] and past["seen"] == [0, 1]
    assert app.seen({"game": "club", "index": 1})["as_of"] == 1
    listed = CliRunner().invoke(main, ["play", "list"])
    assert listed.exit_code == 0 and f"club: {copy.root.name} as red, log entry 1" in listed.output, listed.output
    # the update holds public files only, byte for byte those of the public copy (which the leak
    # tests cover): the entry's own text, its signed move and .sig, the public view
    update = read_update(*public_update(gd, copy.root.name, 1, 1))
    assert gd.read_log_text().endswith(update.log_text) and update.log_text.startswith("--- # entry 1\n")
    assert sorted(update.files) == sorted([gd.entries()[1]["move"]["file"], gd.entries()[1]["move"]["file"] + ".sig",
                                           "public/view.json"])
    assert all((gd.root / rel).read_bytes() == data for rel, data in update.files.items())


def test_the_move_composed_on_the_players_own_page_is_mailed_and_taken(mail_game):
    """A mail game's own page (/page: made from the player's copy, as `pbem show --as` makes it) and
    the move its board composed (/api/send-move): checked, signed and mailed in the thread as the
    list's move is, taken by the moderator's real mail cycle."""
    from pbem.store.movefile import MoveFile, render_move
    world, game = mail_game
    gd = world.gd
    cfg = world.config()
    send_digests(gd, cfg)
    fetch(game)
    app = PlayApp(settings.load())
    page, nonce = app.player_page("club")
    made = CliRunner().invoke(main, ["show", str(game.folder), "--as", "red", "--key", str(game.key),
                                     "--format", "html"])
    marked = f'<script nonce="{nonce}">'                        # its one script, marked for the page's policy
    sender = ' data-sent-by="pbem play"'                      # and its panel says to press Send
    assert made.exit_code == 0 and page.count(marked) == 1 and page.count(sender) == 1
    assert page.replace(marked, "<script>").replace(sender, "") == made.output
    assert 'id="pbem-click-data"' in page
    entries = GameDir(game.folder).entries()                     # red's copy
    text = render_move(MoveFile(entries[0]["id"], "red", entries[-1]["index"], entries[-1]["hash"], [{"stop": True}]),
                       "written on the board of red's digest")
    sent = app.send_composed({"game": "club", "move": text})
    assert sent["by"] == "mail" and sent["composed"] == "board" and sent["index"] == 0
    report = run_cycle(gd, cfg)
    assert report.accepted == 1, report.lines
    assert gd.entries()[-1]["actions"] == [{"stop": True}]
    [move_mail] = [r for r in world.router.log if r.mail_from == address("red")]
    assert move_mail.msg["In-Reply-To"] and move_mail.msg["Subject"].startswith("Re: [")   # in the thread


def test_once_the_receipt_says_the_move_is_in_it_is_not_the_players_turn_until_its_digest_comes(mail_game):
    """A mail copy lags its receipts: the moderator's receipt (at once) says red's move became entry 1,
    and the entry itself comes with the next digest.  Meanwhile the page and `pbem play list` say the
    move is in, not "your turn", and Send refuses to send another move."""
    from pbem.client.server import RequestError
    from pbem.transport.mail.cycle import fetch_moves
    world, game = mail_game
    gd, cfg = world.gd, world.config()
    send_digests(gd, cfg)
    fetch(game)
    app = PlayApp(settings.load())
    [row] = app.games()["games"]
    assert row["your_turn"] and row["accepted_ahead"] is None
    app.send({"game": "club", "actions": [{"draw": True}]})
    assert fetch_moves(gd, cfg).accepted == 1                   # taken, the receipt mailed; no digest yet
    fetched = fetch(game)
    assert fetched.index == 0 and any(n.startswith("receipt checked and kept: entry 1") for n in fetched.notes)
    app = PlayApp(settings.load())
    [row] = app.games()["games"]
    assert (row["index"], row["your_turn"], row["accepted_ahead"]) == (0, False, 1)
    with pytest.raises(RequestError, match="your move is in: the moderator took it as log entry 1"):
        app.send({"game": "club", "actions": [{"draw": True}]})
    listed = CliRunner().invoke(main, ["play", "list"])
    assert listed.exit_code == 0 and "log entry 0: your move is in (log entry 1); its digest comes next" in listed.output
    send_digests(gd, cfg, only_changed=True)                     # the digest of entry 1 brings the entry
    assert fetch(game).index == 1
    [row] = PlayApp(settings.load()).games()["games"]
    assert row["index"] == 1 and row["accepted_ahead"] is None


def test_a_seat_in_civil_disorder_is_taken_back_by_mail(tmp_path, key_pool, toy_registered, dovecot, monkeypatch):
    """red misses a deadline and their seat goes into civil disorder; "Take my seat back" mails the
    signed move that asks for the seat in the game's thread, the moderator's real mail cycle refuses
    it and returns the seat, and the digest that says so brings the `return` entry to red's copy:
    no more seat to take back, and a click then sends nothing."""
    from pbem.client.send import SendError
    from pbem.pipeline.deadlines import tick
    from pbem.pipeline.moderator import moderate
    from pbem.store.missedturns import in_disorder
    from pbem.store.movefile import SEAT_BACK, parse_move
    world, game = _mail_game(tmp_path, key_pool, dovecot, monkeypatch,
                             deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24, "disorder_after": 1})
    gd, cfg = world.gd, world.config()
    assert [e["action"] for e in tick(gd, now=time.time() + 49 * 3600, max_entries=1).entries] == ["timeout"]
    moderate(gd, "disorder", "missed one", player="red", missed=1)          # as the tick would, by hand
    send_digests(gd, cfg)
    assert fetch(game).index == gd.entries()[-1]["index"]
    app = PlayApp(settings.load())
    [row] = app.games()["games"]
    assert row["disorder"].startswith("Your seat (red) is in civil disorder") and row["asked_back"] == ""
    head = gd.entries()[-1]
    sent = app.seat_back({"game": "club"})
    assert sent == {"sent": f"red/entry-{head['index']:04d}.yaml", "index": head["index"], "by": "mail"}
    with pytest.raises(SendError, match=r"you asked for your seat back already \(red/entry-"):
        app.seat_back({"game": "club"})
    [mailed] = [r for r in world.router.log if r.mail_from == address("red")]
    assert mailed.msg["In-Reply-To"] and mailed.msg["Subject"].startswith("Re: [")     # in the thread
    files = {p.get_filename(): p.get_payload(decode=True) for p in mailed.msg.iter_attachments()}
    move = parse_move(files["move.yaml"])
    assert move.actions == [dict(SEAT_BACK)] and (move.player, move.after) == ("red", head["index"])
    run_cycle(gd, cfg)                                          # the moderator's real cycle: IMAP, submit, SMTP
    back = gd.entries()[-1]
    assert (back["action"], back["player"]) == ("return", "red") and not in_disorder(gd.entries(), "red")
    assert back["reason"].endswith("(the move itself was refused: it only asked for the seat back)")
    assert app.refresh({"game": "club"})["index"] == back["index"]
    [row] = app.games()["games"]
    assert row["disorder"] == "" and row["asked_back"] == ""
    mailed_before = len(world.router.log)
    with pytest.raises(SendError, match=r"your seat \(red\) is yours"):
        app.seat_back({"game": "club"})
    assert len(world.router.log) == mailed_before


def test_a_forged_update_and_a_forged_receipt_are_refused_and_never_applied(mail_game, key_pool, tmp_path):
    world, game = mail_game
    gd = world.gd
    cfg = world.config()
    send_digests(gd, cfg)
    assert fetch(game).index == 0
    copy = GameDir(game.folder)
    app = PlayApp(settings.load())
    app.send({"game": "club", "actions": [{"draw": True}]})
    deliver_to_red = world.router.local.pop(address("red"))    # the real news waits while the forger mails
    assert run_cycle(gd, cfg).accepted == 1
    # what a forger mails red: entry 1 with its actions changed (the hash made again, so only the
    # moderator's signature can tell) and a well-formed receipt signed by a key of the forger's
    name, real = public_update(gd, copy.root.name, 1, 1)
    forged = _rewrite(real, copy.root.name, lambda text: text.replace("draw: true", "stop: true"))
    assert forged != real
    unbound = _rewrite(real, copy.root.name, lambda text: text, view_hash="0" * 64)   # the true entry, another view
    deliver_to_red(_forger_mail(copy.root.name, [(name, forged)] + _forged_receipt(gd, tmp_path / "forger")))
    deliver_to_red(_forger_mail(copy.root.name, [(name, unbound)]))
    before = copy.log_path.read_bytes()
    fetched = fetch(game)
    shown = " | ".join(fetched.refused)
    assert f"refused: {name} in message" in shown and "does not check out" in shown, shown
    assert "refused: receipt:" in shown, shown
    assert "its public view is not the one of entry 1" in shown, shown
    assert fetched.index == 0 and copy.log_path.read_bytes() == before          # never applied
    assert not list((Path(os.environ["XDG_DATA_HOME"]) / "pbem" / "receipts").rglob("*.yaml"))
    page = app.refresh({"game": "club"})
    assert any("does not check out" in p for p in page["problems"]) and page["index"] == 0   # shown on the page
    for received in world.mail_to("red"):                     # now the moderator's real mail arrives
        deliver_to_red(received.raw)
    fetched = fetch(game)
    assert fetched.index == 1 and fetched.trusted, fetched
    assert copy.log_path.read_bytes() == gd.log_path.read_bytes()
    assert any(n.startswith("receipt checked and kept: entry 1") for n in fetched.notes), fetched.notes


def test_an_update_is_read_with_its_size_and_names_capped(tmp_path, mail_game):
    world, game = mail_game
    gd = world.gd
    name, data = public_update(gd, gd.entries()[0]["id"], 0, 0)
    assert read_update(name, data).log_text == gd.read_log_text()
    game_id = gd.entries()[0]["id"]
    for bad_name, members in [(name, [(f"{game_id}/../evil", b"x")]),
                              (name, [(f"{game_id}/secrets/red.age", b"x")]),
                              ("other-update-0-0.tar.gz", [(f"{game_id}/log.yaml", b"")])]:
        with pytest.raises(UpdateError):
            read_update(bad_name, _tar(members))
    with pytest.raises(UpdateError, match="more than"):
        read_update(name, gzip.compress(b"\0" * (17 * 2**20)))
    # over its budget, an update stays out of the message (the player's program asks for the copy)
    assert update_within(gd, game_id, 0, 0) == (name, data)
    assert update_within(gd, game_id, 0, 0, budget=armoured_size(data) - 1) is None
    assert update_within(gd, game_id, 1, 0) is None and public_update(gd, game_id, 0, 5) is None
    msg = EmailMessage()
    msg.set_content("x" * 1000)
    assert not attach_update(msg, (name, data), limit=len(msg.as_bytes()) + 100)
    assert not list(msg.iter_attachments())
    assert attach_update(msg, (name, data))
    assert [p.get_filename() for p in msg.iter_attachments()] == [name]


# --- helpers -------------------------------------------------------------------------------------

def _tar(members: list[tuple[str, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for member, data in members:
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


def _rewrite(data: bytes, game_id: str, change, view_hash: str | None = None) -> bytes:
    """The update with its entries' text changed and each entry's hash made again (a careful forger)."""
    from pbem.store.log import render_entry, seal, split_chunks
    members = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as tar:
        for m in tar:
            members[m.name] = tar.extractfile(m).read()
    chunks = split_chunks(change(members[f"{game_id}/log.yaml"].decode()))
    entries = [seal({k: v for k, v in c.entry.items() if k != "hash"}) for c in chunks]
    members[f"{game_id}/log.yaml"] = "".join(render_entry(e) for e in entries).encode()
    view = json.loads(members[f"{game_id}/public/view.json"])
    view["hash"] = view_hash or entries[-1]["hash"]           # the public view bound to the forged entry
    members[f"{game_id}/public/view.json"] = json.dumps(view).encode()
    return _tar(sorted(members.items()))


def _forged_receipt(gd: GameDir, key: Path) -> list[tuple[str, bytes]]:
    """A well-formed receipt of entry 1, signed by someone who is not the moderator."""
    from pbem.crypto import keys
    from pbem.store import receipts
    keys.generate_keypair(key, "forger@test")
    entries = gd.entries()
    body, sig = receipts.issue(entries[0], entries[1], key)
    return [("receipt-entry1.yaml", body), ("receipt-entry1.yaml.sig", sig.encode())]


def _forger_mail(game_id: str, files: list[tuple[str, bytes]]) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"Game Moderator <{GM}>"
    msg["To"] = address("red")
    msg["Subject"] = f"[{game_id}] Toy high card"
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid("forged", domain="pbem.test")
    msg["X-PBEM-Game"] = game_id
    msg["X-PBEM-Receipt"] = "accepted"
    msg.set_content("the news\n")
    for name, data in files:
        msg.add_attachment(data, "application", "octet-stream", filename=name)
    return msg.as_bytes()


def _many_sections_mail(game_id: str, name: str) -> bytes:
    """A message of the game declaring 66 multipart sections (pbem reads up to 64): 65 small
    alternatives and a broken update that would be refused if the message were read."""
    parts = [b"--outer\r\nContent-Type: multipart/alternative; boundary=inner%d\r\n\r\n--inner%d\r\n"
             b"Content-Type: text/plain\r\n\r\nhi\r\n--inner%d--\r\n" % (n, n, n) for n in range(65)]
    update = (b"--outer\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="
              + name.encode() + b"\r\n\r\nnot gzip\r\n")
    return (b"From: " + GM.encode() + b"\r\nMessage-ID: <many-sections@pbem.test>\r\nX-PBEM-Game: "
            + game_id.encode() + b"\r\nContent-Type: multipart/mixed; boundary=outer\r\n\r\n"
            + b"".join(parts) + update + b"--outer--\r\n")


def test_a_lost_update_leaves_a_gap_and_the_button_asks_for_the_copy(mail_game):
    world, game = mail_game
    gd = world.gd
    cfg = world.config()
    send_digests(gd, cfg)
    app = PlayApp(settings.load())
    assert app.refresh({"game": "club"})["index"] == 0
    app.send({"game": "club", "actions": [{"draw": True}]})
    deliver_to_red = world.router.local.pop(address("red"))    # red's mail of entry 1 is lost
    assert run_cycle(gd, cfg).accepted == 1
    for seat in ("blue", "green"):                              # two more entries
        raw, sig = move_files(gd, seat, world.keys[seat])
        world.player_send(seat, attachment_message(seat, raw, sig))
        if seat == "green":
            world.router.local[address("red")] = deliver_to_red    # red's mail arrives again
        assert run_cycle(gd, cfg).accepted == 1
    assert gd.entries()[-1]["index"] == 3
    page = app.refresh({"game": "club"})
    assert page["index"] == 0 and page["needs_copy"] and page["problems"] == [], page
    assert any("wait for entries your copy lacks" in n for n in page["notes"])
    assert app.games()["games"][0]["needs_copy"]
    asked = app.ask_log({"game": "club"})                       # the page's button
    [request] = [r for r in world.router.log if r.msg["Subject"] == "send log"]
    assert request.rcpt_tos == [GM] and request.mail_from == address("red") and asked["asked"]
    run_cycle(gd, cfg)                                          # the moderator answers with the public copy
    page = app.refresh({"game": "club"})
    assert page["index"] == 3 and not page["needs_copy"] and page["problems"] == [], page
    assert GameDir(game.folder).log_path.read_bytes() == gd.log_path.read_bytes()


def test_a_pinned_moderator_key_refuses_a_game_another_key_signs(mail_game, key_pool, tmp_path):
    world, game = mail_game
    imap = game.mail.imap                                                  # type: ignore[union-attr]
    common = ["--mail", "--game-id", game.game_dir, "--player", "red", "--key", str(key_pool["red"]),
              "--moderator", GM, "--address", address("red"), "--imap-host", "127.0.0.1",
              "--imap-port", str(imap["port"]), "--imap-security", "none", "--imap-user", imap["username"],
              "--smtp-host", "127.0.0.1", "--smtp-port", str(world.smtp.port), "--smtp-security", "none"]
    for name, pin in [("wrong", key_pool["blue"].with_name("blue.pub")),
                      ("right", key_pool["mallory"].with_name("mallory.pub"))]:   # the tests' moderator key
        result = CliRunner().invoke(main, ["play", "init", name, *common, "--moderator-key", str(pin),
                                           "--copy", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    send_digests(world.gd, world.config())
    wrong = fetch(settings.load().game("wrong"))
    assert wrong.index == -1 and any("not the one you pinned" in r for r in wrong.refused), wrong
    assert not (tmp_path / "wrong" / game.game_dir / "log.yaml").exists()
    right = fetch(settings.load().game("right"))
    assert right.index == 0 and right.trusted and not right.refused


def test_a_maildir_mailbox_is_read_as_well(mail_game, key_pool, tmp_path):
    import mailbox
    world, game = mail_game
    box = mailbox.Maildir(tmp_path / "Maildir", factory=None, create=True)
    world.router.local[address("red")] = box.add                # red's mail program keeps a Maildir
    result = CliRunner().invoke(main, [
        "play", "init", "local", "--mail", "--game-id", game.game_dir, "--player", "red",
        "--key", str(key_pool["red"]), "--moderator", GM, "--address", address("red"),
        "--maildir", str(tmp_path / "Maildir"), "--smtp-host", "127.0.0.1", "--smtp-port", str(world.smtp.port),
        "--smtp-security", "none", "--copy", str(tmp_path / "local")])
    assert result.exit_code == 0, result.output
    send_digests(world.gd, world.config())
    fetched = fetch(settings.load().game("local"))
    assert fetched.index == 0 and fetched.trusted and not fetched.refused
    assert sorted(p.name for p in (tmp_path / "Maildir" / "new").iterdir()) != []   # left as it was: unread


def test_a_move_file_an_interrupted_fetch_left_is_removed_by_the_next(mail_game):
    world, game = mail_game
    send_digests(world.gd, world.config())
    assert fetch(game).index == 0
    copy = GameDir(game.folder)
    stray = copy.moves_dir / "000001-red.yaml"        # written before the log, then the fetch stopped
    copy.moves_dir.mkdir(exist_ok=True)
    stray.write_text("format: pbem-move/1\n")
    fetched = fetch(game)
    assert not stray.exists() and fetched.trusted, fetched
    assert "removed 000001-red.yaml (left by an interrupted fetch)" in fetched.notes


def test_each_digest_carries_the_entries_since_the_last_update_sent_or_else_its_own(mail_game, monkeypatch):
    """An update left out of one message (no room) comes with the next one, joined to that one's
    entries; where the joined update has no room either, the new entries alone come, and the
    player's program asks for the copy once."""
    from pbem.transport.mail import cycle
    world, game = mail_game
    gd, cfg = world.gd, world.config()
    room = {"entries": 1}                              # how many entries a message has room for, in this test
    real = cycle.update_within

    def update_within_room(gd_, game_id, start, end, budget=8_000):
        return real(gd_, game_id, start, end, budget) if end - start < room["entries"] else None

    monkeypatch.setattr(cycle, "update_within", update_within_room)

    def updates_to(player):
        return [p.get_filename() for r in world.router.log if r.rcpt_tos == [address(player)]
                for p in r.msg.iter_attachments() if "-update-" in (p.get_filename() or "")]

    send_digests(gd, cfg)
    game_id = gd.entries()[0]["id"]
    for seat, entries_room in [("red", 0), ("blue", 2), ("green", 0), ("red", 1)]:
        room["entries"] = entries_room   # entry 1: no room; 2: room for 1-2; 3: none; 4: for 4 alone, not 3-4
        raw, sig = move_files(gd, seat, world.keys[seat])
        world.player_send(seat, attachment_message(seat, raw, sig))
        assert run_cycle(gd, cfg).accepted == 1
    assert updates_to("blue") == [f"{game_id}-update-{a}-{b}.tar.gz" for a, b in [(0, 0), (1, 2), (4, 4)]]
    fetched = fetch(game)                              # red's copy came the same way: 0, then 1-2, then a gap
    assert fetched.index == 2 and fetched.needs_copy and fetched.trusted, fetched


def test_a_password_in_the_settings_is_refused(mail_game):
    _world, _game = mail_game
    path = settings.config_path()
    text = path.read_text()
    path.write_text(text.replace("username:", "password: hunter2\n        username:", 1))
    with pytest.raises(settings.PlayConfigError, match="a password never goes here; set PBEM_PLAY_"):
        settings.load()


def test_broken_mail_of_the_game_is_refused_one_line_each_and_blocks_nothing(mail_game):
    world, game = mail_game
    game_id = game.game_dir
    red_user = game.mail.imap["username"]                                  # type: ignore[union-attr,index]
    world.dovecot.deliver(red_user, _forger_mail(game_id, [(f"{game_id}-update-0-0.tar.gz", b"not gzip")]))
    world.dovecot.deliver(red_user, _forger_mail(game_id, [(f"{game_id}-public.tar.gz",
                                                            _tar([(f"{game_id}/../../evil", b"x")]))]))
    world.dovecot.deliver(red_user, b"X-PBEM-Game: " + game_id.encode() + b"\r\nContent-Type: multipart/mixed\r\n\r\n\xff")
    world.dovecot.deliver(red_user, _many_sections_mail(game_id, f"{game_id}-update-0-0.tar.gz"))
    send_digests(world.gd, world.config())
    fetched = fetch(game)
    # the message of 66 multipart sections is left unread: its broken update is not even refused
    assert not any("many-sections@pbem.test" in line for line in [*fetched.refused, *fetched.notes]), fetched
    assert fetched.index == 0 and fetched.trusted, fetched
    assert any("not a gzip file" in r for r in fetched.refused), fetched.refused
    assert any("no file of a game's public copy" in r for r in fetched.refused), fetched.refused
    assert all("\n" not in r for r in fetched.refused)
    assert not (GameDir(game.folder).root.parent.parent / "evil").exists()
