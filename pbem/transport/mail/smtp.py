"""Sending mail over SMTP: STARTTLS (port 587) or implicit TLS (port 465), with login.

Certificates are checked against the system's CA store, or against
``cafile`` from the settings when the server uses its own CA.  ``security = "none"`` is
accepted by the settings only for a server on this machine.
"""
from __future__ import annotations

import functools
import os
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import parseaddr
from types import TracebackType

from pbem.base.errors import PbemError
from pbem.transport.mail.config import Server


class MailSendError(PbemError):
    """Sending failed; one line naming the server and the reason."""


def tls_context(server: Server) -> ssl.SSLContext:
    """Verifying TLS: the system's CA store, or only ``cafile`` when the settings name one.

    Made once per process for the same CA files as they are on disk (:func:`_context`): loading
    the system's store costs about 30 ms, and a cycle that fetches and sends opens an IMAP and
    an SMTP connection (``pbem play`` one per fetch or send).  A context is shared by the
    connections it makes (none changes it); a CA file changed or replaced since gets a new one."""
    if server.cafile is not None:
        stamp = _stamp(str(server.cafile))
        if stamp is None:             # missing or unreadable: refused as before, with the ssl module's words
            return ssl.create_default_context(cafile=str(server.cafile))
        return _context(str(server.cafile), stamp)
    paths = ssl.get_default_verify_paths()
    return _context(None, (_stamp(paths.cafile), _stamp(paths.capath)))


def _stamp(path: str | None) -> tuple[int, int, int, int] | None:
    """What tells a file (or folder) apart from another or from its earlier self, cheaply."""
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


@functools.lru_cache(maxsize=8)
def _context(cafile: str | None, stamp: object) -> ssl.SSLContext:
    """The verifying context for ``cafile`` (None: the system's store) as ``stamp`` found it."""
    return ssl.create_default_context(cafile=cafile)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, smtplib.SMTPResponseException):
        text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
        return f"{exc.smtp_code} {text}".splitlines()[0]
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "recipient refused: " + ", ".join(f"{a} ({c} {m.decode('utf-8', 'replace')})"
                                                 for a, (c, m) in exc.recipients.items())
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({exc.verify_message}); set cafile in the [smtp] settings if the server uses its own CA"
    return (str(exc) or exc.__class__.__name__).splitlines()[0]


def _session_closed(exc: BaseException) -> bool:
    """Whether sending failed because the server had closed the session (it hung up, or answered
    421 "closing transmission channel", as servers do to a session idle past their timeout)."""
    if isinstance(exc, smtplib.SMTPResponseException):
        return exc.smtp_code == 421
    return isinstance(exc, (smtplib.SMTPServerDisconnected, ConnectionError))


@dataclass
class SmtpSender:
    """One SMTP session; use as a context manager, then :meth:`send` each message.  A session the
    server closed meanwhile (idle past its timeout) is opened again, once per message."""

    server: Server
    _conn: smtplib.SMTP | None = field(default=None, init=False, repr=False)

    def __enter__(self) -> SmtpSender:
        self._conn = self._connect()
        return self

    def _connect(self) -> smtplib.SMTP:
        """A new session, logged in."""
        s = self.server
        s.check_login("SMTP")
        try:
            if s.security == "tls":
                conn: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=s.timeout, context=tls_context(s))
            else:
                conn = smtplib.SMTP(s.host, s.port, timeout=s.timeout)
            conn.ehlo()
            if s.security == "starttls":
                if not conn.has_extn("starttls"):
                    conn.close()
                    raise MailSendError(f"SMTP server {s.host}:{s.port} does not offer STARTTLS; "
                                        "use security = \"tls\" (port 465) if it expects TLS from the start")
                conn.starttls(context=tls_context(s))
                conn.ehlo()
            if s.username:
                conn.login(s.username, s.password)
        except MailSendError:
            raise
        except (TimeoutError, smtplib.SMTPException, OSError) as exc:
            raise MailSendError(f"cannot log in to SMTP server {s.host}:{s.port} ({s.security}): {_reason(exc)}") from None
        return conn

    def send(self, msg: EmailMessage, to: str) -> None:
        """Send ``msg`` to exactly one envelope recipient, whatever its headers say."""
        assert self._conn is not None, "use SmtpSender as a context manager"
        addr = parseaddr(to)[1] or to
        sender = parseaddr(str(msg["From"]))[1]
        try:
            try:
                self._conn.send_message(msg, from_addr=sender, to_addrs=[addr])
            except (smtplib.SMTPException, OSError) as exc:
                if not _session_closed(exc):
                    raise
                # the server closed a session left idle (a long fetch or game between two messages):
                # log in again and send the message once more (the failed attempt was not taken)
                self._conn.close()
                self._conn = self._connect()
                self._conn.send_message(msg, from_addr=sender, to_addrs=[addr])
        except (smtplib.SMTPException, OSError) as exc:
            raise MailSendError(f"SMTP server {self.server.host} did not take the message to {addr}: "
                                f"{_reason(exc)}") from None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.quit()
        except (smtplib.SMTPException, OSError):
            conn.close()
