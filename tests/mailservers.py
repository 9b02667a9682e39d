"""Real mail servers for the e-mail tests: aiosmtpd (in process) and Dovecot (a subprocess).

Nothing here is mocked.  The SMTP server routes by recipient: mail to a
Dovecot user is delivered into that user's Maildir, which Dovecot serves over
IMAP; everything else lands in an in-memory inbox per address (the players'
mailboxes).  TLS uses a self-signed certificate made here with
``cryptography``.  A missing tool fails the test with an install hint.
"""
from __future__ import annotations

import datetime
import errno
import functools
import imaplib
import ipaddress
import logging
import mailbox
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from pbem.base.mailpolicy import MAIL_POLICY

DOVECOT = "/usr/sbin/dovecot"
# the test server's implicit-TLS mode is all TLS, which aiosmtpd cannot tell: it warns
QUIET_TLS = "ignore:Requiring AUTH while not requiring TLS:UserWarning"
# aiosmtpd logs "Session.login_data is deprecated" on every login and a traceback when a client
# gives up a TLS handshake (as ours must, for an untrusted certificate): not ours to show
logging.getLogger("mail.log").setLevel(logging.CRITICAL)
PASSWORD = "secret"


def require_dovecot() -> str:
    path = shutil.which("dovecot") or (DOVECOT if os.path.exists(DOVECOT) else None)
    if path is None:
        pytest.fail("Dovecot is not installed; the IMAP tests need it: apt-get install -y dovecot-imapd",
                    pytrace=False)
    return path


def require_aiosmtpd() -> Any:
    try:
        from aiosmtpd import controller
    except ImportError:
        pytest.fail("aiosmtpd is not installed; the mail tests need it: pip install aiosmtpd", pytrace=False)
    return controller


def free_ports(count: int) -> list[int]:
    """``count`` different TCP ports on 127.0.0.1 that are free now (aiosmtpd 1.4.6 cannot bind port 0).

    Another process (a parallel test worker) may take one before our server binds
    it: the servers below then start again on new ports (``START_ATTEMPTS``).
    """
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):      # all open at once, so the ports differ
            s = socket.socket()
            sockets.append(s)
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


START_ATTEMPTS = 5


# --- a self-signed certificate -----------------------------------------------------

@dataclass(frozen=True)
class Cert:
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(str(self.cert), str(self.key))
        return ctx

    def client_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.cert))


def make_cert(folder: Path) -> Cert:
    """A self-signed certificate for 127.0.0.1 and localhost (usable as its own CA)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pbem test mail server")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return Cert(cert_path, key_path)


# --- Dovecot ---------------------------------------------------------------------------

def _run_user() -> tuple[str, int, int]:
    """Dovecot must not run as root: as root, run it as nobody."""
    if os.geteuid() == 0:
        pw = pwd.getpwnam("nobody")
    else:
        pw = pwd.getpwuid(os.geteuid())
    return pw.pw_name, pw.pw_uid, pw.pw_gid


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    if os.geteuid() != 0:
        return
    os.chown(root, uid, gid)
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(dirpath, name), uid, gid)


@dataclass
class Dovecot:
    """A running Dovecot serving ``home/USER/Maildir`` for any user with password ``secret``."""

    root: Path
    port: int            # IMAP, with STARTTLS offered
    imaps_port: int      # implicit TLS
    cert: Cert
    proc: subprocess.Popen[bytes]
    uid: int
    gid: int
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def maildir(self, user: str) -> Path:
        return self.root / "home" / user / "Maildir"

    def deliver(self, user: str, raw: bytes) -> None:
        """Put a message into the user's Maildir, as an MTA's local delivery does."""
        with self._lock:
            home = self.root / "home" / user
            home.mkdir(parents=True, exist_ok=True)
            md = mailbox.Maildir(self.maildir(user), factory=None, create=True)
            md.add(raw)
            _chown_tree(home, self.uid, self.gid)

    def login(self, user: str) -> imaplib.IMAP4:
        conn = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        conn.login(user, PASSWORD)
        return conn

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()          # about 1 ms; its children exit with it
            self.proc.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


DOVECOT_CONF = """\
protocols = imap
listen = 127.0.0.1
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
ssl = yes
ssl_cert = <{d}/tls/cert.pem
ssl_key = <{d}/tls/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
passdb {{
  driver = static
  args = password={password}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={d}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  service_count = 0
  process_min_avail = 1
  inet_listener imap {{
    port = {port}
  }}
  inet_listener imaps {{
    port = {imaps_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service imap {{
  service_count = 0
}}
"""
# Dovecot's "high-performance" process model (service_count = 0): one login process and one imap
# process serve connection after connection, instead of a new pair of processes started for each
# login (Dovecot's default, for isolation between users); the same IMAP, about a tenth of the
# server's CPU per login (a game by mail logs in at every `pbem mail run`)


def start_dovecot() -> Dovecot:
    binary = require_dovecot()
    user, uid, gid = _run_user()
    group = __import__("grp").getgrgid(gid).gr_name
    # not under pytest's tmp_path (mode 0700, which nobody cannot enter)
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    os.chmod(root, 0o755)
    cert = make_cert(root / "tls")
    for sub in ("run", "state", "home"):
        (root / sub).mkdir()
    conf = root / "dovecot.conf"
    cmd = [binary, "-F", "-c", str(conf)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.fail("setpriv is missing (needed to run Dovecot as nobody): apt-get install util-linux",
                        pytrace=False)
        cmd = [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"] + cmd
    for attempt in range(1, START_ATTEMPTS + 1):
        port, imaps_port = free_ports(2)
        conf.write_text(DOVECOT_CONF.format(d=root, user=user, group=group, uid=uid, gid=gid, port=port,
                                            imaps_port=imaps_port, password=PASSWORD))
        for p in (cert.cert, cert.key, conf):
            os.chmod(p, 0o644)
        _chown_tree(root, uid, gid)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        server = Dovecot(root, port, imaps_port, cert, proc, uid, gid)
        problem = _wait_until_dovecot_serves(server)
        if problem is None:
            return server
        kill_quietly(proc)
        if "Address already in use" not in problem or attempt == START_ATTEMPTS:
            server.stop()
            pytest.fail(f"Dovecot did not start: {problem}", pytrace=False)
    raise AssertionError("unreachable")


def _wait_until_dovecot_serves(server: Dovecot) -> str | None:
    """None once a real LOGIN works (not just a TCP connect); else what went wrong."""
    log_path = server.root / "dovecot.log"
    deadline = time.monotonic() + 30
    while True:
        try:
            conn = server.login("probe")
            conn.logout()
            return None
        except (OSError, imaplib.IMAP4.error):
            exited = server.proc.poll() is not None
            if exited or time.monotonic() > deadline:
                log = log_path.read_text() if log_path.exists() else ""
                log_path.unlink(missing_ok=True)
                err = server.proc.stderr.read().decode() if exited and server.proc.stderr else ""
                return f"{err} {log[-2000:]}" if exited else f"no login within 30 s: {log[-2000:]}"
            time.sleep(0.01)


def imap_flags(server: Dovecot, user: str, folder: str = "INBOX") -> list[bytes]:
    """The flags of every message in the folder, in order (read with plain imaplib)."""
    conn = server.login(user)
    try:
        typ, _ = conn.select(f'"{folder}"', readonly=True)
        assert typ == "OK", folder
        _t, data = conn.uid("SEARCH", None, "ALL")
        out = []
        for uid in (data[0] or b"").split():
            _t, resp = conn.uid("FETCH", uid, "(FLAGS)")
            out.append(resp[0] if isinstance(resp[0], bytes) else resp[0][0])
        return out
    finally:
        conn.logout()


# --- SMTP ---------------------------------------------------------------------------------

@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    raw: bytes

    @functools.cached_property
    def msg(self) -> EmailMessage:
        # pbem's policy: the stdlib's default, each header kind's class made once (pbem.base.mailpolicy)
        return BytesParser(policy=MAIL_POLICY).parsebytes(self.raw)  # type: ignore[return-value]


class Router:
    """aiosmtpd handler: local addresses are delivered to a mailbox, all others to an in-memory inbox."""

    def __init__(self, local: dict[str, Callable[[bytes], None]], refused: frozenset[str] = frozenset()) -> None:
        self.local = {k.lower(): v for k, v in local.items()}     # address -> delivery function
        self.refused = {a.lower() for a in refused}               # recipients answered 550
        self.inboxes: dict[str, list[Received]] = {}
        self.log: list[Received] = []
        self.lock = threading.Lock()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any) -> str:
        if address.lower() in self.refused:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        item = Received(envelope.mail_from, list(envelope.rcpt_tos), bytes(raw))
        with self.lock:
            try:
                for rcpt in envelope.rcpt_tos:
                    deliver = self.local.get(rcpt.lower())
                    if deliver is not None:
                        deliver(item.raw)
                    else:
                        self.inboxes.setdefault(rcpt.lower(), []).append(item)
            finally:
                # logged once delivered: a test that sees a message in the log (read without the lock:
                # the mail `pbem play` sends from its own process) may fetch it from the mailbox at once
                self.log.append(item)
        return "250 OK delivered"

    def inbox(self, address: str) -> list[Received]:
        with self.lock:
            return list(self.inboxes.get(address.lower(), []))


@dataclass
class Smtp:
    controller: Any
    router: Router
    port: int
    mode: str                    # none | starttls | tls
    users: dict[str, str]
    logins: list[str] = field(default_factory=list)     # the user names of the accepted logins, in order

    def stop(self) -> None:
        self.controller.stop()


def start_smtp(router: Router, mode: str = "none", cert: Cert | None = None,
               users: dict[str, str] | None = None, idle_timeout: float | None = None) -> Smtp:
    """aiosmtpd on 127.0.0.1: ``mode`` none (no TLS), starttls (required) or tls (implicit);
    ``idle_timeout``: seconds the server waits for a client's next command before it answers 421
    and closes the session (aiosmtpd's default: 300)."""
    controller_mod = require_aiosmtpd()
    from aiosmtpd.smtp import AuthResult, LoginPassword

    users = dict(users or {})
    logins: list[str] = []

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
        ok = (isinstance(auth_data, LoginPassword)
              and users.get(auth_data.login.decode()) == auth_data.password.decode())
        if ok:
            logins.append(auth_data.login.decode())
        return AuthResult(success=ok, handled=False)

    kwargs: dict[str, Any] = {} if idle_timeout is None else {"timeout": idle_timeout}
    if users:
        kwargs.update(authenticator=authenticator, auth_required=True)
    if mode == "starttls":
        assert cert is not None
        kwargs.update(tls_context=cert.server_context(), require_starttls=True)
    elif mode == "tls":
        assert cert is not None
        # aiosmtpd only counts STARTTLS as TLS for auth_require_tls; here all of the session is TLS
        kwargs.update(ssl_context=cert.server_context(), auth_require_tls=False)
    elif users:
        kwargs.update(auth_require_tls=False)
    for attempt in range(1, START_ATTEMPTS + 1):
        [port] = free_ports(1)
        controller = controller_mod.Controller(router, hostname="127.0.0.1", port=port, **kwargs)
        try:
            controller.start()
        except OSError as exc:      # the port was taken meanwhile: try another
            controller.loop.close()
            if exc.errno != errno.EADDRINUSE or attempt == START_ATTEMPTS:
                raise
            continue
        return Smtp(controller, router, port, mode, users, logins)
    raise AssertionError("unreachable")


def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for mail")
        time.sleep(0.01)


def kill_quietly(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


# --- a toy game with mail settings -----------------------------------------------------------

PLAYERS = ["red", "blue", "green"]
GM = "gm@pbem.test"
SMTP_LOGIN = {"gm": "gm-smtp-pass", "red": "red-pass", "blue": "blue-pass", "green": "green-pass"}


def address(player: str) -> str:
    return f"{player}@pbem.test"


@dataclass
class World:
    """A toy game, its moderator's mailbox on Dovecot, and an SMTP server everybody uses."""

    gd: Any                       # pbem.store.gamedir.GameDir
    dovecot: Dovecot
    smtp: Smtp
    cert: Cert
    imap_user: str
    keys: dict[str, Path]
    inbox: str = "imap"           # imap | imaps | maildir
    maildir: Path | None = None

    @property
    def router(self) -> Router:
        return self.smtp.router

    def env(self) -> dict[str, str]:
        env = {"PBEM_IMAP_PASSWORD": PASSWORD}
        if self.smtp.users:
            env["PBEM_SMTP_PASSWORD"] = SMTP_LOGIN["gm"]
        return env

    def config_text(self, **extra_imap: str) -> str:
        lines = [f'from = "Game Moderator <{GM}>"', "", "[players]"]
        lines += [f'{p} = "{p.title()} Player <{address(p)}>"' for p in PLAYERS]
        lines += ["", "[smtp]", 'host = "127.0.0.1"', f"port = {self.smtp.port}",
                  f'security = "{self.smtp.mode}"', f'cafile = "{self.cert.cert}"']
        if self.smtp.users:
            lines.append('username = "gm"')
        if self.inbox == "maildir":
            lines += ["", "[maildir]", f'path = "{self.maildir}"']
        else:
            tls = self.inbox == "imaps"
            lines += ["", "[imap]", 'host = "127.0.0.1"',
                      f"port = {self.dovecot.imaps_port if tls else self.dovecot.port}",
                      f'security = "{"tls" if tls else "none"}"', f'username = "{self.imap_user}"',
                      f'cafile = "{self.cert.cert}"']
            lines += [f'{k} = "{v}"' for k, v in extra_imap.items()]
        return "\n".join(lines) + "\n"

    def write_config(self, **extra_imap: str) -> Path:
        path = self.gd.moderator_dir / "mail.toml"
        path.write_text(self.config_text(**extra_imap))
        os.chmod(path, 0o600)
        return path

    def config(self) -> Any:
        from pbem.transport.mail.config import load_config
        return load_config(self.gd, env=self.env())

    # the players' side
    def player_send(self, player: str, msg: EmailMessage | bytes, to: str = GM) -> None:
        """The player's mail client (smtplib) submits a message to the SMTP server."""
        import smtplib
        if self.smtp.mode == "tls":
            conn = smtplib.SMTP_SSL("127.0.0.1", self.smtp.port, timeout=10, context=self.cert.client_context())
        else:
            conn = smtplib.SMTP("127.0.0.1", self.smtp.port, timeout=10)
        with conn:
            if self.smtp.mode == "starttls":
                conn.starttls(context=self.cert.client_context())
            if self.smtp.users:
                conn.login(player, SMTP_LOGIN[player])
            if isinstance(msg, EmailMessage):
                conn.send_message(msg, from_addr=address(player), to_addrs=[to])
            else:
                conn.sendmail(address(player), [to], msg)

    def mail_to(self, player: str) -> list[Received]:
        return self.router.inbox(address(player))


def start_world(tmp_path: Path, key_pool: dict[str, Path], dovecot: Dovecot, smtp_mode: str = "none",
                inbox: str = "imap", players: list[str] | None = None,
                deadlines: dict[str, Any] | None = None, game: str = "toy",
                position: dict[str, Any] | None = None) -> World:
    from pipeline_helpers import new_game

    gd = new_game(tmp_path / "game", game, key_pool, players or PLAYERS, deadlines=deadlines, position=position)
    imap_user = f"gm-{os.getpid()}-{time.monotonic_ns()}"
    cert = dovecot.cert
    maildir = None
    if inbox == "maildir":
        maildir = tmp_path / "Maildir"
        box = mailbox.Maildir(maildir, factory=None, create=True)
        router = Router({GM: box.add})
    else:
        router = Router({GM: lambda raw: dovecot.deliver(imap_user, raw)})
    users = SMTP_LOGIN if smtp_mode != "none" else {}
    smtp = start_smtp(router, smtp_mode, cert, users)
    world = World(gd, dovecot, smtp, cert, imap_user, key_pool, inbox, maildir)
    world.write_config()
    return world


def deliver_to_gm(world: World, raw: bytes) -> None:
    """Put a message straight into the moderator's mailbox (as if it had arrived earlier)."""
    if world.inbox == "maildir":
        assert world.maildir is not None
        mailbox.Maildir(world.maildir, factory=None, create=False).add(raw)
    else:
        world.dovecot.deliver(world.imap_user, raw)


# --- players' messages --------------------------------------------------------------------------

def move_files(gd: Any, player: str, key: Path, actions: list[dict[str, Any]] | None = None,
               after: int | None = None, after_hash: str | None = None) -> tuple[bytes, str]:
    """A signed move for ``player`` at the current log position (as the player's tools make it)."""
    from pipeline_helpers import signed_move

    from pbem.store.table import Table
    table = Table.load(gd)
    return signed_move(table, player, actions or [{"draw": True}], key, after, after_hash)


def attachment_message(player: str, raw: bytes, sig: str, name: str = "move.yaml",
                       subject: str = "my move", as_text: bool = False) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"{player.title()} Player <{address(player)}>"
    msg["To"] = GM
    msg["Subject"] = subject
    msg["Date"] = __import__("email.utils").utils.formatdate(localtime=True)
    msg["Message-ID"] = __import__("email.utils").utils.make_msgid(player, domain="pbem.test")
    msg.set_content("Hello moderator, my move is attached.\n")
    if as_text:   # 7bit text attachments: CRLF on the wire, as most clients send them
        msg.add_attachment(raw.decode(), subtype="x-yaml", filename=name)
        msg.add_attachment(sig, subtype="plain", filename=name + ".sig")
    else:
        msg.add_attachment(raw, "application", "x-yaml", filename=name)
        msg.add_attachment(sig.encode(), "application", "octet-stream", filename=name + ".sig")
    return msg


def mangle(text: str) -> bytes:
    """What a careless mail client does: CRLF line endings and trailing spaces on some lines."""
    lines = text.split("\n")
    out = [line + ("  " if i % 3 == 0 and line else "") for i, line in enumerate(lines)]
    return "\r\n".join(out).encode()


def inline_message(player: str, raw: bytes, sig: str, subject: str = "move", style: str = "crlf",
                   date: str | None = None) -> EmailMessage:
    """The move pasted into the body, followed by the signature block, damaged as ``style`` says."""
    from email.utils import formatdate, make_msgid
    text = ("Hi,\n\nhere is my move for this turn:\n\n# my move\n" + raw.decode() + "\n" + sig
            + "\nCheers,\n" + player + "\n")
    msg = EmailMessage()
    msg["From"] = address(player)
    msg["To"] = GM
    msg["Subject"] = subject
    msg["Date"] = date or formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(player, domain="pbem.test")
    if style == "crlf":          # base64 keeps the CRLF and trailing spaces through transport
        msg.set_content(mangle(text), "text", "plain", cte="base64", params={"charset": "utf-8"})
    elif style == "html-only":   # sent as HTML alone: paragraphs per line, indentation as &nbsp;
        import html as html_module
        lines = [html_module.escape(line).replace("  ", "&nbsp;&nbsp;") for line in text.split("\n")]
        body = "<html><body>\n" + "\n".join(f"<div>{line or '<br>'}</div>" for line in lines) + "\n</body></html>\n"
        msg.set_content(body, subtype="html")
    elif style == "nbsp":        # indentation turned into non-breaking spaces
        msg.set_content(text.replace("  ", "\u00a0\u00a0"))
    elif style == "flowed":      # RFC 3676 space-stuffing: lines starting with a space get one more
        stuffed = "\n".join(" " + line if line.startswith((" ", ">", "From ")) else line
                            for line in text.split("\n"))
        msg.set_content(stuffed, params={"format": "flowed"}, cte="quoted-printable")
    else:
        msg.set_content(text)
    return msg
