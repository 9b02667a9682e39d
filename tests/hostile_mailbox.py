"""The hostile-input corpus as mail, made once per test session (tests/session_cache.py) and
shared by test_hostile_mail.py and test_hostile_host.py (every pytest-xdist worker too).

:func:`build` makes, in a folder: the players' and the moderator's keys (``keys/``), a toy game
(``game/``, as `pbem new`), and a Maildir (``Maildir/``) holding, for every corpus entry bound
to that game, a message from red with it attached twice (signed, and with a garbage signature
or none) and a stranger's message with it pasted inline twice; then the messages that are
hostile as mail (:func:`mail_hostile`).  ``corpus.json`` says how many of each.  A test copies
the game and the Maildir before it writes to them (:meth:`HostileMailbox.copy_to`).
"""
from __future__ import annotations

import json
import mailbox
import shutil
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from hostile import make_corpus as mc
from hostile_harness import bind, entries_for, garbage_signature, sign
from mailservers import GM, PLAYERS, address
from pipeline_helpers import new_game, signed_move

from pbem.base.mailpolicy import MAIL_POLICY
from pbem.crypto import keys as pbem_keys
from pbem.store.gamedir import GameDir
from pbem.store.table import Table
from pbem.transport.mail.imap import MAX_MESSAGE

STRANGER = "Mallory <mallory@evil.test>"
OLD_DATE = formatdate(1_600_000_000)           # every corpus message is older than the valid move
SEED = b"1" * 32                               # the game the corpus is sent to
KEY_NAMES = (*PLAYERS, "mallory")               # mallory: the moderator's key (as pipeline_helpers.new_game)


def message(sender: str, subject: str, date: str = OLD_DATE) -> EmailMessage:
    # pbem's policy: the standard library's default, each header kind's class made once
    # (pbem.base.mailpolicy): the same bytes, the mailbox built a quarter faster
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = sender
    msg["To"] = GM
    msg["Subject"] = subject
    msg["Date"] = date
    msg["Message-ID"] = make_msgid("hostile", domain="pbem.test")
    return msg


def attachments(name: str, moves: list[tuple[bytes, str | None]]) -> EmailMessage:
    msg = message(f"Red Player <{address('red')}>", f"move {name}")
    msg.set_content("my move is attached\n")
    for n, (raw, sig) in enumerate(moves, 1):
        filename = f"{name}-{n}.yaml"
        msg.add_attachment(raw, "application", "x-yaml", filename=filename)
        if sig is not None:
            msg.add_attachment(sig.encode("utf-8", "surrogateescape"), "application", "octet-stream",
                               filename=filename + ".sig")
    return msg


def inline(name: str, moves: list[tuple[bytes, str | None]]) -> EmailMessage:
    msg = message(STRANGER, f"inline {name}")
    body = b"Hi,\n\nhere is my move:\n\n"
    for raw, sig in moves:
        body += raw + b"\n" + (sig or "").encode("utf-8", "surrogateescape") + b"\n"
    msg.set_content(body + b"\nCheers\n", "text", "plain", cte="base64", params={"charset": "utf-8"})
    return msg


def mail_hostile(gd: GameDir, keys: dict[str, Path]) -> dict[str, bytes]:
    """Messages that are hostile as mail, whatever they carry."""
    raw, sig = signed_move(Table.load(gd), "red", [{"draw": False}], keys["red"])
    evil = "\u202e\x1b[2J" + "A" * 5000
    out: dict[str, bytes] = {}
    body = EmailMessage(policy=MAIL_POLICY)
    body.set_content("see attachment\n")
    body.add_attachment(raw, "application", "x-yaml", filename="move.yaml")
    body.add_attachment(sig.encode(), "application", "octet-stream", filename="move.yaml.sig")
    headers = (f"From: =?utf-8?q?=E2=80=AERed=0A?= <{address('red')}>\r\n"
               f"Reply-To: {address('red')}\r\n"
               "Subject: =?utf-8?q?move=0ABcc=3A_everyone=E2=80=AE?= " + "x" * 3000 + "\r\n"
               "Message-ID: <\u202e" + "m" * 500 + "@evil.test>\r\n"
               f"Date: {OLD_DATE}\r\n")
    out["hostile headers from red"] = headers.encode() + body.as_bytes()
    msg = message(f"Red Player <{address('red')}>", "file names")
    msg.set_content("see attachments\n")
    msg.add_attachment(raw, "application", "x-yaml", filename=evil + ".yaml")
    msg.add_attachment(raw, "application", "x-yaml", filename="lonely\x07\u2067.yaml")
    msg.add_attachment(sig.encode(), "application", "octet-stream", filename=evil + ".yaml.sig")
    out["hostile attachment names"] = msg.as_bytes()
    nested = b"Content-Type: text/plain\r\n\r\nformat: pbem-move/1\r\n"
    for depth in range(1500):
        nested = (f"Content-Type: multipart/mixed; boundary=b{depth}\r\n\r\n--b{depth}\r\n".encode() + nested
                  + f"\r\n--b{depth}--\r\n".encode())
    out["multipart nested 1500 deep"] = (f"From: {address('red')}\r\nDate: {OLD_DATE}\r\nSubject: deep\r\n"
                                         "MIME-Version: 1.0\r\n").encode() + nested
    out["no headers, binary"] = mc.stream("mail-binary", 5000)
    out["8 MiB of garbage"] = f"From: {address('red')}\r\nDate: {OLD_DATE}\r\n\r\n".encode() + \
        mc.stream("mail-big", 8 << 20)
    out["over the size limit"] = (f"From: {address('red')}\r\nDate: {OLD_DATE}\r\nSubject: huge\r\n"
                                  f"Message-ID: <huge@evil.test>\r\n\r\n").encode() + b"x" * (MAX_MESSAGE + 1)
    out["broken MIME boundary"] = (f"From: {address('red')}\r\nDate: {OLD_DATE}\r\nMIME-Version: 1.0\r\n"
                                   "Content-Type: multipart/mixed; boundary=\"\"\r\n\r\n--\r\n--\r\n").encode()
    out["unknown charset"] = (f"From: {address('red')}\r\nDate: {OLD_DATE}\r\nMIME-Version: 1.0\r\n"
                              "Content-Type: text/plain; charset=x-no-such\r\nContent-Transfer-Encoding: base64\r\n"
                              "\r\n!!!not base64!!!\r\n").encode()
    return out


@dataclass(frozen=True)
class HostileMailbox:
    """A folder :func:`build` filled: read it, or copy it (:meth:`copy_to`) to change it."""
    folder: Path

    @property
    def keys(self) -> dict[str, Path]:
        return {name: self.folder / "keys" / name for name in KEY_NAMES}

    @property
    def counts(self) -> dict[str, int]:
        """``entries`` (corpus entries: one message from red and one from a stranger each), ``messages``."""
        counts: dict[str, int] = json.loads((self.folder / "corpus.json").read_text())
        return counts

    def copy_to(self, game: Path, maildir: Path) -> tuple[GameDir, mailbox.Maildir]:
        """A copy of the game at ``game`` and of the Maildir at ``maildir``, for a test to change."""
        shutil.copytree(self.folder / "game", game, symlinks=True)
        shutil.copytree(self.folder / "Maildir", maildir, symlinks=True)
        return GameDir(game), mailbox.Maildir(maildir, factory=None, create=False)


def build(folder: Path) -> None:
    """Keys, a toy game and the Maildir of every hostile message to it (see the module's description)."""
    (folder / "keys").mkdir()
    keys = {}
    for name in KEY_NAMES:
        pbem_keys.generate_keypair(folder / "keys" / name, f"{name}@test")
        keys[name] = folder / "keys" / name
    gd = new_game(folder / "game", "toy", keys, PLAYERS, seed=SEED)
    box = mailbox.Maildir(folder / "Maildir", factory=None, create=True)
    table = Table.load(gd)
    entries = entries_for(table)
    for n, entry in enumerate(entries.values()):
        raw = bind(entry, table)
        _kind, garbage = garbage_signature(n, keys["red"])
        moves = [(raw, sign(keys["red"], raw)), (raw, garbage)]
        box.add(attachments(entry.name, moves).as_bytes())
        box.add(inline(entry.name, moves).as_bytes())
    for raw_message in mail_hostile(gd, keys).values():
        box.add(raw_message)
    (folder / "corpus.json").write_text(json.dumps({"entries": len(entries), "messages": len(box)}))
