"""`pbem tick --mail`: a silent player gets one reminder email before the deadline, then a bot moves.
The reminder is the player's digest again (the board, their secrets and page) with the reminder
first, and it never overtakes the digest it reminds of."""
from __future__ import annotations

import datetime as dt
import time

from click.testing import CliRunner
from mailservers import start_world

from pbem.cli.group import main


def test_reminder_mail_then_timeout(tmp_path, key_pool, toy_registered, dovecot):
    world = start_world(tmp_path, key_pool, dovecot, smtp_mode="starttls",
                        deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24})
    try:
        def tick(hours: float):
            now = dt.datetime.fromtimestamp(time.time() + hours * 3600, dt.timezone.utc).isoformat()
            result = CliRunner().invoke(main, ["tick", str(world.gd.root), "--now", now, "--mail"], env=world.env())
            assert result.exit_code == 0, result.output
            return result.output

        assert tick(1) == ""                        # nothing to do: quiet, so cron mails nothing
        assert not world.mail_to("red")
        assert tick(30) == ""                       # due for a reminder, but red's digest has not gone out yet
        assert not world.mail_to("red")
        sent = CliRunner().invoke(main, ["mail", "send", str(world.gd.root)], env=world.env())
        assert sent.exit_code == 0, sent.output
        [digest] = world.mail_to("red")
        out = tick(30)
        assert "reminder: red's decision is due" in out
        [_digest, msg] = world.mail_to("red")
        assert msg.rcpt_tos == [world.config().address_of("red").split("<")[-1].rstrip(">")]
        assert msg.msg["Subject"] == f"Re: [{world.gd.entries()[0]['id']}] Toy high card"   # in the game's thread
        assert msg.msg["In-Reply-To"] == digest.msg["Message-ID"]
        body = msg.msg.get_body(("plain",)).get_content()
        assert body.startswith("Reminder: your decision is due")
        assert digest.msg.get_body(("plain",)).get_content() in body        # the whole digest again, after it
        files = {p.get_filename(): p.get_content() for p in msg.msg.walk() if p.get_filename()}
        same = {p.get_filename(): p.get_content() for p in digest.msg.walk()
                if p.get_filename() and "-update-" not in p.get_filename()}   # the public update went with the digest
        assert len(same) < len([p for p in digest.msg.walk() if p.get_filename()])
        assert files == same and {"red-entry0.age", "red-entry0.html.gz.age"} <= set(files)   # the same parts
        assert "Reminder: your decision is due" in msg.msg.get_body(("html",)).get_content()
        assert all(len(world.mail_to(p)) == 1 for p in ("blue", "green"))    # their digests only
        assert tick(31) == ""                       # one reminder per decision
        out = tick(49)
        assert "timeout for red" in out
    finally:
        world.smtp.stop()
