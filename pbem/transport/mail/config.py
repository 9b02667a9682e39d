"""The moderator's mail settings: ``GAME_DIR/moderator/mail.toml`` (or ``mail.yaml``) plus environment.

The file lives in the moderator's private, git-ignored folder because it
holds the players' addresses.  Example (TOML; YAML has the same shape)::

    from = "Game Moderator <gm@example.org>"
    # reply_to = "moves@example.org"     # where players send moves (default: from)
    # cadence = "decision"     # mail a player when they have a decision to make (default), or "entry": every entry
    # summary = "none"         # "round": also a summary to everyone when a new round starts
    # attach_log = "end"       # the public game copy (log, moves) at the end and on request, or "always"

    [players]
    red = "alice@example.org"
    blue = "Bob <bob@example.org>"

    [smtp]
    host = "smtp.example.org"
    port = 587                # default: 587 for starttls, 465 for tls
    security = "starttls"     # starttls | tls | none (none: loopback only, for tests)
    username = "gm@example.org"

    [imap]                    # or instead: [maildir] path = "/home/gm/Maildir"
    host = "imap.example.org"
    security = "tls"          # tls (port 993) | starttls (port 143) | none
    username = "gm@example.org"
    folder = "INBOX"
    # done_folder = "pbem-done"   # move handled move messages there

Passwords come from ``PBEM_SMTP_PASSWORD`` and ``PBEM_IMAP_PASSWORD`` (or a
``password`` key, accepted only while the file is readable by its owner
alone); never from the command line.  Every other key can be overridden by
``PBEM_SMTP_HOST``, ``PBEM_SMTP_PORT``, ``PBEM_SMTP_SECURITY``,
``PBEM_SMTP_USER``, ``PBEM_IMAP_HOST``, ``PBEM_IMAP_PORT``,
``PBEM_IMAP_SECURITY``, ``PBEM_IMAP_USER``, ``PBEM_IMAP_FOLDER``,
``PBEM_MAILDIR`` and ``PBEM_MAIL_FROM``.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from pbem.base.errors import PbemError
from pbem.store.gamedir import MAIL_SETTINGS_NAMES, GameDir

SECURITY = ("starttls", "tls", "none")
SMTP_PORTS = {"starttls": 587, "tls": 465, "none": 25}
IMAP_PORTS = {"starttls": 143, "tls": 993, "none": 143}
LOOPBACK = ("127.0.0.1", "::1", "localhost")

TOP_KEYS = {"from", "reply_to", "players", "smtp", "imap", "maildir", "cadence", "summary", "attach_log"}
CHOICES = {"cadence": ("decision", "entry"), "summary": ("none", "round"), "attach_log": ("end", "always")}
SERVER_KEYS = {"host", "port", "security", "username", "password", "cafile", "timeout"}
IMAP_KEYS = SERVER_KEYS | {"folder", "done_folder"}
MAILDIR_KEYS = {"path"}


class MailConfigError(PbemError):
    """One line saying what is wrong with the mail settings and where."""


@dataclass(frozen=True)
class Server:
    """How to reach and log in to an SMTP or IMAP server."""

    host: str
    port: int
    security: str                  # starttls | tls | none
    username: str = ""
    password: str = field(default="", repr=False)
    cafile: Path | None = None     # trust only this CA bundle (own CA, self-signed); default: the system's
    timeout: float = 30.0

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK or self.host.startswith("127.")

    def check_login(self, kind: str) -> None:
        """Before connecting: a username needs a password (asked for only when the server is used)."""
        if self.username and not self.password:
            raise MailConfigError(f"no {kind} password: set PBEM_{kind}_PASSWORD (for {self.username} at {self.host})")


@dataclass(frozen=True)
class ImapServer(Server):
    folder: str = "INBOX"
    done_folder: str = ""          # "" = leave handled messages where they are (flagged \\Seen)


@dataclass(frozen=True)
class MailConfig:
    path: Path                     # the settings file
    sender: str                    # From: of everything the moderator sends
    reply_to: str                  # where players send moves ("" = the sender)
    players: dict[str, str]        # player name -> address
    smtp: Server | None
    imap: ImapServer | None
    maildir: Path | None
    cadence: str = "decision"      # decision: mail a player when they have a decision to make; entry: every entry
    summary: str = "none"          # round: also mail everyone a summary when a new round starts
    attach_log: str = "end"        # end: the public copy at the end (and on request); always: with every digest

    @property
    def sender_address(self) -> str:
        return parseaddr(self.sender)[1]

    @property
    def domain(self) -> str:
        return self.sender_address.rpartition("@")[2] or "pbem.invalid"

    def address_of(self, player: str) -> str:
        try:
            return self.players[player]
        except KeyError:
            raise MailConfigError(f"{self.path}: no address for player {player!r}; add it under [players]") from None

    def require_smtp(self) -> Server:
        if self.smtp is None:
            raise MailConfigError(f"{self.path}: no [smtp] section; add host, port, security and username")
        return self.smtp

    def check_players(self, players: list[str]) -> None:
        """Every player of the game has an address, and every address belongs to a player."""
        missing = [p for p in players if p not in self.players]
        if missing:
            raise MailConfigError(f"{self.path}: no address for player(s) {', '.join(missing)}; add them under [players]")
        unknown = sorted(set(self.players) - set(players))
        if unknown:
            raise MailConfigError(f"{self.path}: [players] names {', '.join(unknown)} who are not in this game "
                                  f"(players: {', '.join(players)})")


# --- loading ---------------------------------------------------------------

def config_path(gd: GameDir) -> Path:
    found = gd.mail_settings_paths()
    if not found:
        raise MailConfigError(f"no mail settings: write {gd.moderator_dir / MAIL_SETTINGS_NAMES[0]} (see docs/email.md)")
    if len(found) > 1:
        raise MailConfigError(f"both {found[0]} and {found[1]} exist; keep one")
    return found[0]


def load_config(gd: GameDir, env: Mapping[str, str] | None = None) -> MailConfig:
    """Read the settings file and apply the ``PBEM_*`` environment variables."""
    env = os.environ if env is None else env
    path = config_path(gd)
    data = read_settings(path)
    check_file_passwords(path, data)
    apply_env(data, env)
    return build_config(path, data)


def read_settings(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        data = _parse_toml(text, path)
    else:
        from pbem.base.yamlio import SETTINGS_LIMITS, load_strict
        data = load_strict(text, str(path), SETTINGS_LIMITS)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MailConfigError(f"{path} must be a mapping of settings (see docs/email.md)")
    return data


def _parse_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            raise MailConfigError(f"{path}: reading TOML needs Python 3.11 or `pip install tomli`; "
                                  "or write mail.yaml instead") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MailConfigError(f"{path}: malformed TOML: {exc}") from None


def check_file_passwords(path: Path, data: dict[str, Any]) -> None:
    """A password may sit in the file only while nobody but its owner can read the file."""
    if not (path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO)):
        return
    for name in ("smtp", "imap"):
        table = data.get(name)
        if isinstance(table, dict) and table.get("password"):
            raise MailConfigError(f"{path} holds a password but others can read it: run `chmod 600 {path}`, "
                                  f"or use PBEM_{name.upper()}_PASSWORD instead")


ENV_KEYS: dict[str, tuple[str, str]] = {
    "PBEM_SMTP_HOST": ("smtp", "host"), "PBEM_SMTP_PORT": ("smtp", "port"),
    "PBEM_SMTP_SECURITY": ("smtp", "security"), "PBEM_SMTP_USER": ("smtp", "username"),
    "PBEM_SMTP_PASSWORD": ("smtp", "password"),
    "PBEM_IMAP_HOST": ("imap", "host"), "PBEM_IMAP_PORT": ("imap", "port"),
    "PBEM_IMAP_SECURITY": ("imap", "security"), "PBEM_IMAP_USER": ("imap", "username"),
    "PBEM_IMAP_PASSWORD": ("imap", "password"), "PBEM_IMAP_FOLDER": ("imap", "folder"),
    "PBEM_MAILDIR": ("maildir", "path"),
}
def apply_env(data: dict[str, Any], env: Mapping[str, str]) -> None:
    for var, (section, key) in ENV_KEYS.items():
        value = env.get(var)
        if not value:
            continue
        if key == "password" and section not in data:
            continue        # a password alone does not switch a server on
        table = data.setdefault(section, {})
        if isinstance(table, dict):     # else reported by build_config
            table[key] = value
    if env.get("PBEM_MAIL_FROM"):
        data["from"] = env["PBEM_MAIL_FROM"]


def build_config(path: Path, data: dict[str, Any]) -> MailConfig:
    _no_unknown(path, "", data, TOP_KEYS)
    sender = _address(path, "from", data.get("from"))
    reply_to = _address(path, "reply_to", data["reply_to"]) if data.get("reply_to") else ""
    players_raw = data.get("players") or {}
    if not isinstance(players_raw, dict):
        raise MailConfigError(f"{path}: [players] must map player names to addresses, e.g. red = \"alice@example.org\"")
    players = {str(k): _address(path, f"players.{k}", v) for k, v in players_raw.items()}
    smtp = _server(path, "smtp", data["smtp"], SMTP_PORTS, "starttls") if "smtp" in data else None
    imap = None
    maildir = None
    if "imap" in data and "maildir" in data:
        raise MailConfigError(f"{path}: use either [imap] or [maildir] for incoming moves, not both")
    if "imap" in data:
        table = _section(path, "imap", data["imap"])
        _no_unknown(path, "imap.", table, IMAP_KEYS)
        base = _server(path, "imap", table, IMAP_PORTS, "tls")
        imap = ImapServer(**{f: getattr(base, f) for f in base.__dataclass_fields__},
                          folder=str(table.get("folder") or "INBOX"), done_folder=str(table.get("done_folder") or ""))
    if "maildir" in data:
        table = _section(path, "maildir", data["maildir"])
        _no_unknown(path, "maildir.", table, MAILDIR_KEYS)
        if not table.get("path"):
            raise MailConfigError(f"{path}: [maildir] needs path = \"/path/to/Maildir\"")
        maildir = (path.parent / os.path.expanduser(str(table["path"]))).resolve()
    choices = {}
    for key, allowed in CHOICES.items():
        value = str(data.get(key, allowed[0]))
        if value not in allowed:
            raise MailConfigError(f"{path}: {key} = {value!r} is not one of {', '.join(allowed)}")
        choices[key] = value
    return MailConfig(path, sender, reply_to, players, smtp, imap, maildir, **choices)


def server_settings(path: Path, name: str, table: Any) -> Server:
    """An ``smtp`` or ``imap`` table of settings (the keys above) as a :class:`Server` (an
    :class:`ImapServer` for ``imap``), checked as the moderator's are: the player's own mail
    settings (``pbem play``) use it."""
    if name == "imap":
        table = _section(path, "imap", table)
        _no_unknown(path, "imap.", table, IMAP_KEYS)
        base = _server(path, "imap", table, IMAP_PORTS, "tls")
        return ImapServer(**{f: getattr(base, f) for f in base.__dataclass_fields__},
                          folder=str(table.get("folder") or "INBOX"), done_folder="")
    return _server(path, "smtp", table, SMTP_PORTS, "starttls")


def _section(path: Path, name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MailConfigError(f"{path}: [{name}] must be a table of settings")
    return value


def _no_unknown(path: Path, prefix: str, table: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(str(k) for k in set(table) - allowed)
    if unknown:
        raise MailConfigError(f"{path}: unknown setting(s) {', '.join(prefix + k for k in unknown)}; "
                              f"allowed: {', '.join(sorted(allowed))}")


def _address(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise MailConfigError(f"{path}: {key} must be an e-mail address such as \"Name <name@example.org>\"")
    _name, addr = parseaddr(value)
    if "@" not in addr or any(c.isspace() for c in addr) or "," in value.replace(f"<{addr}>", ""):
        raise MailConfigError(f"{path}: {key} = {value!r} is not one e-mail address")
    return value.strip()


def _server(path: Path, name: str, value: Any, ports: dict[str, int], default_security: str) -> Server:
    table = _section(path, name, value)
    if name == "smtp":
        _no_unknown(path, "smtp.", table, SERVER_KEYS)
    host = str(table.get("host") or "").strip()
    if not host:
        raise MailConfigError(f"{path}: [{name}] needs host = \"{name}.example.org\" (or PBEM_{name.upper()}_HOST)")
    security = str(table.get("security") or default_security).lower()
    if security not in SECURITY:
        raise MailConfigError(f"{path}: {name}.security = {security!r}; use one of {', '.join(SECURITY)}")
    port = _port(path, name, table.get("port"), ports[security])
    password = str(table.get("password") or "")
    cafile = None
    if table.get("cafile"):
        cafile = (path.parent / os.path.expanduser(str(table["cafile"]))).resolve()
        if not cafile.is_file():
            raise MailConfigError(f"{path}: {name}.cafile {cafile} does not exist")
    try:
        timeout = float(table.get("timeout", 30))
    except (TypeError, ValueError):
        raise MailConfigError(f"{path}: {name}.timeout must be a number of seconds") from None
    server = Server(host, port, security, str(table.get("username") or ""), password, cafile, timeout)
    if security == "none" and not server.loopback:
        raise MailConfigError(f"{path}: {name}.security = \"none\" is only allowed for a server on this machine "
                              f"(127.0.0.1); use starttls or tls for {host}")
    return server


def _port(path: Path, name: str, value: Any, default: int) -> int:
    if value in (None, ""):
        return default
    try:
        port = int(value)
    except (TypeError, ValueError):
        raise MailConfigError(f"{path}: {name}.port must be a number, e.g. {default}") from None
    if not 0 < port < 65536:
        raise MailConfigError(f"{path}: {name}.port {port} is out of range")
    return port
