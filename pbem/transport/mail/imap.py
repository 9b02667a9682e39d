"""Where moves arrive: an IMAP folder, or a local Maildir.

Both give :class:`Incoming` messages (raw bytes, a stable ``source`` id and
the arrival time) and skip the sources the ledger already knows, so a
message is downloaded once.  Reading never changes a message (IMAP uses
``BODY.PEEK``); :meth:`done` marks a handled move message as seen and, for
IMAP with ``done_folder``, moves it there.  Messages that are not moves are
never touched.
"""
from __future__ import annotations

import imaplib
import mailbox
import os
import re
import ssl
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Protocol

from pbem.base.errors import PbemError
from pbem.transport.mail.config import ImapServer
from pbem.transport.mail.smtp import tls_context


class MailFetchError(PbemError):
    """Reading the inbox failed; one line naming the server and the reason."""


@dataclass(frozen=True)
class Incoming:
    source: str        # stable id in this inbox (IMAP UIDVALIDITY+UID, Maildir key)
    raw: bytes         # the message; only its header when it is bigger than MAX_MESSAGE
    arrival: float     # server arrival time, seconds since the epoch
    order: int         # position in the inbox, oldest first
    size: int = -1     # the whole message's size in bytes, when the inbox says
    cut: bool = False  # too big: only the header was read (the message is left alone)

    @cached_property
    def sections(self) -> int:
        """:func:`multipart_count` of the message, counted once (its parse and its answer both ask)."""
        return multipart_count(self.raw)


#: the biggest message read whole: a move is at most 64 KiB, so bigger mail is only answered
#: as too big (a stranger's huge messages must not cost the moderator's machine its memory)
MAX_MESSAGE = 16 * 1024 * 1024
_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")


#: the most multipart sections a message read whole may declare: a move needs one (two with an HTML
#: body); the mail parser checks every line against each open section's boundary, so a message of
#: sections nested thousands deep costs seconds a 100 KB (quadratic): it is read as its header only
MAX_MULTIPARTS = 64
_BOUNDARY = re.compile(rb"boundary\s*=")


def multipart_count(data: bytes) -> int:
    """How many multipart sections the message declares at most (each needs a ``boundary=``, in
    any case).  Counted in the message made lower case (ASCII letters only, as a bytes pattern's
    IGNORECASE matches them): the search then skips to each ``boundary`` at memchr speed, about
    seven times faster than a case-blind pattern on a message of 8 MiB."""
    return len(_BOUNDARY.findall(data.lower()))


def header_of(data: bytes) -> bytes:
    """The header block of a message (up to the first empty line), at most 64 KiB of it."""
    head = data[: 64 * 1024]
    ends = [i for i in (head.find(b"\r\n\r\n"), head.find(b"\n\n")) if i >= 0]
    return head[: min(ends)] + b"\r\n\r\n" if ends else head


class Inbox(Protocol):
    @property
    def name(self) -> str: ...

    def __enter__(self) -> Inbox: ...
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...
    def fetch(self, known: set[str]) -> list[Incoming]: ...
    def done(self, source: str) -> None: ...


def _quote(mailbox_name: str) -> str:
    return '"' + mailbox_name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _imap_reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({exc.verify_message}); set cafile in the [imap] settings if the server uses its own CA"
    text = exc.args[0] if exc.args else exc
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return (str(text) or exc.__class__.__name__).splitlines()[0]


@dataclass
class ImapInbox:
    server: ImapServer
    search: tuple[str, ...] = ("ALL",)      # the IMAP SEARCH criteria of the messages read
    _conn: imaplib.IMAP4 | None = field(default=None, init=False, repr=False)
    _validity: str = field(default="", init=False)

    @property
    def name(self) -> str:
        s = self.server
        return f"imap://{s.username + '@' if s.username else ''}{s.host}:{s.port}/{s.folder}"

    def __enter__(self) -> ImapInbox:
        s = self.server
        s.check_login("IMAP")
        try:
            if s.security == "tls":
                conn: imaplib.IMAP4 = imaplib.IMAP4_SSL(s.host, s.port, ssl_context=tls_context(s), timeout=s.timeout)
            else:
                conn = imaplib.IMAP4(s.host, s.port, timeout=s.timeout)
                if s.security == "starttls":
                    conn.starttls(ssl_context=tls_context(s))
            if s.username:
                conn.login(s.username, s.password)
            typ, data = conn.select(_quote(s.folder))
            if typ != "OK":
                raise imaplib.IMAP4.error(f"cannot open folder {s.folder!r}: {data[0]!r}")
        except (imaplib.IMAP4.error, OSError) as exc:
            raise MailFetchError(f"cannot read {self.name} ({s.security}): {_imap_reason(exc)}") from None
        _typ, validity = conn.response("UIDVALIDITY")
        self._validity = (validity[0] or b"0").decode() if validity and validity[0] else "0"
        self._conn = conn
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.close()
            conn.logout()
        except (imaplib.IMAP4.error, OSError):
            pass

    def _source(self, uid: str) -> str:
        return f"{self.name};UIDVALIDITY={self._validity};UID={uid}"

    def _uid(self, source: str) -> str:
        return source.rpartition(";UID=")[2]

    def fetch(self, known: set[str]) -> list[Incoming]:
        conn = self._require()
        try:
            _typ, data = conn.uid("SEARCH", *self.search)
            uids = [u.decode() for u in (data[0] or b"").split()]
            out = []
            for order, uid in enumerate(sorted(uids, key=int)):
                source = self._source(uid)
                if source in known:
                    continue
                _typ, sized = conn.uid("FETCH", uid, "(RFC822.SIZE)")
                size = _size(sized)
                cut = size > MAX_MESSAGE
                typ, parts = conn.uid("FETCH", uid, "(INTERNALDATE BODY.PEEK[HEADER])" if cut
                                      else "(INTERNALDATE BODY.PEEK[])")
                raw, arrival = _fetched(parts)
                if typ != "OK" or raw is None:
                    continue          # expunged meanwhile
                out.append(Incoming(source, raw, arrival, order, size, cut))
            return out
        except (imaplib.IMAP4.error, OSError) as exc:
            raise MailFetchError(f"cannot read {self.name}: {_imap_reason(exc)}") from None

    def done(self, source: str) -> None:
        conn = self._require()
        uid = self._uid(source)
        try:
            conn.uid("STORE", uid, "+FLAGS", "(\\Seen)")
            target = self.server.done_folder
            if not target:
                return
            conn.create(_quote(target))          # "already exists" is answered NO: fine
            if "MOVE" in conn.capabilities:
                conn.uid("MOVE", uid, _quote(target))
            else:
                typ, _ = conn.uid("COPY", uid, _quote(target))
                if typ == "OK":
                    conn.uid("STORE", uid, "+FLAGS", "(\\Deleted)")
                    conn.expunge()
        except (imaplib.IMAP4.error, OSError) as exc:
            raise MailFetchError(f"cannot mark a handled message in {self.name}: {_imap_reason(exc)}") from None

    def _require(self) -> imaplib.IMAP4:
        assert self._conn is not None, "use ImapInbox as a context manager"
        return self._conn


def _size(parts: list[object]) -> int:
    for part in parts:
        head = part[0] if isinstance(part, tuple) else part
        found = _SIZE.search(head) if isinstance(head, bytes) else None
        if found:
            return int(found.group(1))
    return -1


def _fetched(parts: list[object]) -> tuple[bytes | None, float]:
    for part in parts:
        if isinstance(part, tuple) and len(part) == 2:
            head, body = part
            stamp = imaplib.Internaldate2tuple(head) if b"INTERNALDATE" in head else None
            return body, (time.mktime(stamp) if stamp else 0.0)
    return None, 0.0


_FLAGS = re.compile(r":2,[A-Za-z]*$")


@dataclass
class MaildirInbox:
    path: Path

    @property
    def name(self) -> str:
        return f"maildir:{self.path}"

    def __enter__(self) -> MaildirInbox:
        if not (self.path / "new").is_dir() or not (self.path / "cur").is_dir():
            raise MailFetchError(f"{self.path} is not a Maildir (no new/ and cur/ folders)")
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        return None

    def _files(self) -> dict[str, Path]:
        found: dict[str, Path] = {}
        for sub in ("cur", "new"):
            for entry in os.scandir(self.path / sub):
                if entry.is_file() and not entry.name.startswith("."):
                    found[entry.name.split(":", 1)[0]] = Path(entry.path)
        return found

    def fetch(self, known: set[str]) -> list[Incoming]:
        files = self._files()
        box = mailbox.Maildir(self.path, factory=None, create=False)
        dated = sorted(files.items(), key=lambda kv: (kv[1].stat().st_mtime, kv[0]))
        out = []
        for order, (key, path) in enumerate(dated):
            source = f"{self.name};{key}"
            if source in known:
                continue
            try:
                size = path.stat().st_size
                if size > MAX_MESSAGE:
                    with open(path, "rb") as fh:
                        raw, cut = header_of(fh.read(64 * 1024)), True
                else:
                    raw, cut = box.get_bytes(key), False
            except (KeyError, FileNotFoundError):
                continue              # moved away meanwhile
            out.append(Incoming(source, raw, path.stat().st_mtime, order, size, cut))
        return out

    def done(self, source: str) -> None:
        """Mark as seen the Maildir way: new/KEY -> cur/KEY:2,S (the message bytes stay as they are)."""
        key = source.rpartition(";")[2]
        unread = self.path / "new" / key               # where a message not yet seen is: no need to list the box
        path = unread if not key.startswith(".") and "/" not in key and unread.is_file() else self._files().get(key)
        if path is None:
            return
        flags = _FLAGS.search(path.name)
        letters = set(flags.group(0)[3:]) if flags else set()
        if path.parent.name == "cur" and "S" in letters:
            return
        name = f"{key}:2,{''.join(sorted(letters | {'S'}))}"
        os.replace(path, self.path / "cur" / name)
