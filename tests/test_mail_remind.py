"""`pbem tick --mail`: a silent player gets one reminder email before the deadline, then a bot moves."""
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
        out = tick(30)
        assert "reminder: red's decision is due" in out
        [msg] = world.mail_to("red")
        assert msg.rcpt_tos == [world.config().address_of("red").split("<")[-1].rstrip(">")]
        assert msg.msg["Subject"] == f"Re: [{world.gd.entries()[0]['id']}] Toy high card"   # in the game's thread
        assert msg.msg.get_content().startswith("Reminder: your decision is due")
        assert all(not world.mail_to(p) for p in ("blue", "green"))
        assert tick(31) == ""                       # one reminder per decision
        out = tick(49)
        assert "timeout for red" in out
    finally:
        world.smtp.stop()
