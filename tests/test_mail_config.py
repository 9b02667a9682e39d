"""Mail settings (TOML or YAML, plus PBEM_* environment variables) and the pieces of intake."""
from __future__ import annotations

import pytest

from pbem.store.gamedir import GameDir
from pbem.transport.mail.config import MailConfigError, load_config
from pbem.transport.mail.intake import unflow

TOML = """\
from = "GM <gm@example.org>"
[players]
red = "alice@example.org"
blue = "Bob <bob@example.org>"
[smtp]
host = "smtp.example.org"
username = "gm@example.org"
[imap]
host = "imap.example.org"
username = "gm@example.org"
"""

YAML = """\
from: GM <gm@example.org>
players:
  red: alice@example.org
  blue: Bob <bob@example.org>
smtp:
  host: smtp.example.org
  username: gm@example.org
imap:
  host: imap.example.org
  username: gm@example.org
"""

ENV = {"PBEM_SMTP_PASSWORD": "s3cret", "PBEM_IMAP_PASSWORD": "1map"}


@pytest.fixture
def gd(tmp_path):
    (tmp_path / "moderator").mkdir()
    return GameDir(tmp_path)


@pytest.mark.parametrize("name,text", [("mail.toml", TOML), ("mail.yaml", YAML)])
def test_toml_and_yaml_give_the_same_settings_with_safe_defaults(gd, name, text):
    (gd.moderator_dir / name).write_text(text)
    cfg = load_config(gd, ENV)
    assert cfg.players == {"red": "alice@example.org", "blue": "Bob <bob@example.org>"}
    assert (cfg.smtp.host, cfg.smtp.port, cfg.smtp.security, cfg.smtp.password) == (
        "smtp.example.org", 587, "starttls", "s3cret")
    assert (cfg.imap.port, cfg.imap.security, cfg.imap.folder, cfg.imap.password) == (993, "tls", "INBOX", "1map")
    assert cfg.sender_address == "gm@example.org" and cfg.domain == "example.org"
    assert "s3cret" not in repr(cfg)


def test_environment_overrides_the_file(gd):
    (gd.moderator_dir / "mail.toml").write_text(TOML)
    env = dict(ENV, PBEM_SMTP_HOST="relay.example.net", PBEM_SMTP_PORT="465", PBEM_SMTP_SECURITY="tls",
               PBEM_IMAP_FOLDER="Games", PBEM_MAIL_FROM="Other <o@example.net>")
    cfg = load_config(gd, env)
    assert (cfg.smtp.host, cfg.smtp.port, cfg.smtp.security) == ("relay.example.net", 465, "tls")
    assert cfg.imap.folder == "Games" and cfg.sender == "Other <o@example.net>"


def test_two_settings_files_or_a_bad_value_are_refused(gd):
    (gd.moderator_dir / "mail.toml").write_text(TOML)
    (gd.moderator_dir / "mail.yaml").write_text(YAML)
    with pytest.raises(MailConfigError, match="keep one"):
        load_config(gd, ENV)
    (gd.moderator_dir / "mail.yaml").unlink()
    (gd.moderator_dir / "mail.toml").write_text(TOML.replace('blue = "Bob <bob@example.org>"', 'blue = "bob, eve"'))
    with pytest.raises(MailConfigError, match="not one e-mail address"):
        load_config(gd, ENV)
    (gd.moderator_dir / "mail.toml").write_text(TOML + "[maildir]\npath = \"/tmp\"\n")
    with pytest.raises(MailConfigError, match="either \\[imap\\] or \\[maildir\\]"):
        load_config(gd, ENV)
    (gd.moderator_dir / "mail.toml").write_text(TOML + "port = 99999\n")
    with pytest.raises(MailConfigError, match="out of range"):
        load_config(gd, ENV)


def test_unflow_undoes_format_flowed():
    sent = "actions:\n   - {draw: true}\nsoft \nbreak\n>quoted\n-- \nsig"
    assert unflow(sent) == "actions:\n  - {draw: true}\nsoft break\n>quoted\n-- \nsig"
    assert unflow("a \nb", delsp=True) == "ab"


def test_receipts_go_only_to_a_players_registered_address(tmp_path):
    from email.message import EmailMessage

    from pbem.transport.mail.config import MailConfig
    from pbem.transport.mail.cycle import receipt_address
    cfg = MailConfig(tmp_path / "mail.toml", "Moderator <mod@example.org>", "", {"red": "Alice <alice@example.org>"},
                     None, None, None)
    msg = EmailMessage()
    msg["From"] = "Alice <ALICE@example.org>"
    msg["Reply-To"] = "someone.else@example.net"
    assert receipt_address(msg, cfg) == "alice@example.org"     # never the Reply-To of a stranger
    msg.replace_header("From", "Mallory <mallory@example.net>")
    assert receipt_address(msg, cfg) == ""                      # a stranger gets no answer
    msg.replace_header("Reply-To", "alice@example.org")
    assert receipt_address(msg, cfg) == "alice@example.org"     # replies asked to go to a player: to the player
