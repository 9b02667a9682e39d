"""Games played by e-mail to their end: whole games of the toy game, Survive: Escape from
Atlantis! and Space Swarm (one per game family), and Survive: Space Attack! from a late position
(`pbem new --position`), by 3 players who answer every digest with its fill-in move template as it
stands.

The players are separate mail users: they read the digests the moderator's
`pbem mail run` sends them, decrypt their own secrets, fill in the move
template from them, sign it with the real ssh-keygen and mail it back with
smtplib (over STARTTLS with a login) -- half of them as attachments, half
pasted inline and mangled the way mail clients do.  The moderator's mail
arrives in a Maildir that Dovecot serves over IMAP.
"""
from __future__ import annotations

import re
import subprocess
from email.message import EmailMessage

import pytest
import yaml
from click.testing import CliRunner
from crypto_helpers import require_tool
from mailservers import (
    GM,
    PLAYERS,
    address,
    attachment_message,
    inline_message,
    start_world,
)
from pipeline_helpers import late_position

from pbem.cli.group import main as pbem_main
from pbem.crypto import agecrypt
from pbem.pipeline.audit import audit


def toy_fill_in(template: str, secrets: dict) -> str:
    action = "{draw: true}" if sum(secrets["cards"]) < 25 else "{stop: true}"
    return template.replace("  - {}  # see `pbem legal`", f"  - {action}")


def as_suggested(template: str, secrets: dict) -> str:
    """Send the digest's fill-in template as it is: its suggestions are legal moves."""
    return template


class Player:
    """A player at their mail client: reads digests, answers with signed moves."""

    def __init__(self, name, world, folder, fill_in=None):
        self.name, self.world, self.folder = name, world, folder
        self.fill_in = fill_in or toy_fill_in
        self.read = 0
        self.moves_sent = 0
        self.game_over = False
        folder.mkdir()

    def new_mail(self):
        mail_ = self.world.mail_to(self.name)[self.read:]
        self.read += len(mail_)
        return [m.msg for m in mail_]

    def take_turn(self) -> bool:
        """Read new mail; answer a digest that asks for our move.  True if a move was sent."""
        sent = False
        for msg in self.new_mail():
            if msg["X-PBEM-Receipt"]:
                assert msg["X-PBEM-Receipt"] == "accepted", msg.get_content()
                continue
            assert msg["X-PBEM-Game"] and msg["To"].addresses[0].addr_spec == address(self.name)
            self.game_over = msg["X-PBEM-Status"] == "over"
            if msg["X-PBEM-Status"] == "your-move":
                self.answer(msg)
                sent = True
        return sent

    def answer(self, digest: EmailMessage) -> None:
        [age] = [p for p in digest.walk() if (p.get_filename() or "").endswith(".age")
                 and not p.get_filename().endswith(".html.gz.age")]       # the text one; the HTML page is beside it
        assert age.get_filename() == f"{self.name}-entry{digest['X-PBEM-Entry']}.age"
        mine = agecrypt.decrypt(age.get_content(), self.world.keys[self.name]).decode()
        template = re.search(r"----- BEGIN move.yaml -----\n(.*?)----- END move.yaml -----", mine, re.DOTALL).group(1)
        secrets = re.search(r"----- BEGIN secrets -----\n(.*?)----- END secrets -----", mine, re.DOTALL).group(1)
        move = self.fill_in(template, yaml.safe_load(secrets))
        path = self.folder / "move.yaml"
        path.write_text(move)
        sig_path = self.folder / "move.yaml.sig"
        sig_path.unlink(missing_ok=True)
        subprocess.run([require_tool("ssh-keygen"), "-q", "-Y", "sign", "-n", "pbem-move",
                        "-f", str(self.world.keys[self.name]), str(path)], check=True, capture_output=True)
        raw, sig = path.read_bytes(), sig_path.read_text()
        subject = "Re: " + digest["Subject"]
        if self.moves_sent % 2 == 0:
            reply = attachment_message(self.name, raw, sig, subject=subject)
        else:
            reply = inline_message(self.name, raw, sig, subject=subject, style="crlf")
        reply.replace_header("To", digest["Reply-To"] or digest["From"])
        reply["In-Reply-To"] = digest["Message-ID"]
        self.world.player_send(self.name, reply)
        self.moves_sent += 1


@pytest.mark.parametrize("game, fill_in, cycles, late", [
    pytest.param("toy", toy_fill_in, 40, False, marks=pytest.mark.slow(seconds=4)),
    pytest.param("atlantis", as_suggested, 400, False, marks=pytest.mark.slow(seconds=50)),
    pytest.param("space-swarm", as_suggested, 400, False, marks=pytest.mark.slow(seconds=50)),
    # one whole game per game family: Space Attack, Atlantis's sibling, starts late (`pbem new --position`)
    pytest.param("space-attack", as_suggested, 400, True, marks=pytest.mark.slow(seconds=10)),
])
def test_a_game_by_email_to_its_end(tmp_path, key_pool, toy_registered, dovecot, game, fill_in, cycles, late):
    position = late_position(game, PLAYERS) if late else None
    world = start_world(tmp_path, key_pool, dovecot, smtp_mode="starttls", game=game, position=position)
    assert (world.gd.entries()[0]["start"] != "setup") == late
    try:
        players = {p: Player(p, world, tmp_path / f"player-{p}", fill_in) for p in PLAYERS}

        def mail_run():
            before = world.smtp.logins.count("gm")
            result = CliRunner().invoke(pbem_main, ["mail", "run", str(world.gd.root)], env=world.env())
            assert result.exit_code == 0, result.output
            # the receipts and the digests over one SMTP session, opened only when something goes out
            sent = "receipt (" in result.output or "sent the digest" in result.output
            assert world.smtp.logins.count("gm") - before == sent, result.output
            return result.output

        for cycle in range(cycles):
            out = mail_run()
            assert "rejected" not in out and "left alone" not in out, out
            moved = [p.take_turn() for p in players.values()]
            if all(p.game_over for p in players.values()):
                break
            assert any(moved), f"cycle {cycle}: nobody was asked to move\n{out}"
        else:
            pytest.fail("the game did not end by mail")

        entries = world.gd.entries()
        moves = [e for e in entries if e["kind"] == "move"]
        assert len(moves) == sum(p.moves_sent for p in players.values()) >= 4
        assert audit(world.gd).ok
        for name, p in players.items():
            receipts = [r for r in world.mail_to(name) if r.msg["X-PBEM-Receipt"]]
            assert len(receipts) == p.moves_sent
        # every message went to its own player only: one digest per decision (plus the first and the
        # last), never one per log entry, all in one thread per player
        for received in world.router.log:
            assert len(received.rcpt_tos) == 1
        for name, p in players.items():
            mine = [r.msg for r in world.mail_to(name)]
            digests = [m for m in mine if m["X-PBEM-Entry"]]
            assert p.moves_sent <= len(digests) <= p.moves_sent + 2, (name, len(digests), p.moves_sent)
            root = digests[0]["Message-ID"].strip()
            assert all(root in m["References"].split() for m in mine[1:] if m["References"]), name
            assert len({d["Subject"] for d in digests}) == 1
            assert digests[-1]["X-PBEM-Status"] == "over"
            assert any(a.get_filename().endswith("-public.tar.gz") for a in digests[-1].iter_attachments())
            for received in world.mail_to(name):             # every message <= 100 KB, the game's log aside
                log_copy = sum(len(part.as_bytes()) for part in received.msg.iter_attachments()
                               if (part.get_filename() or "").endswith("-public.tar.gz"))
                assert len(received.raw) - log_copy < 100_000, (name, received.msg["X-PBEM-Entry"], len(received.raw))
        assert len([r for r in world.router.log if r.msg["X-PBEM-Entry"]]) < len(PLAYERS) * len(entries) / 2
        assert mail_run() == ""                                        # cron keeps running: no repeats
        result = CliRunner().invoke(pbem_main, ["mail", "run", "--verbose", str(world.gd.root)], env=world.env())
        assert result.output.startswith("no new messages\nnothing to send")
        assert GM not in world.router.inboxes
    finally:
        world.smtp.stop()
