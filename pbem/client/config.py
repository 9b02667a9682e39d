"""The player's settings: the games they play in, who they are in each, their key.

One YAML file, ``$PBEM_PLAY_CONFIG`` or ``$XDG_CONFIG_HOME/pbem/play.yaml`` (default
``~/.config/pbem/play.yaml``), written with mode 0600.  It names files (the key, the clone); it
never holds a password or a key's contents::

    games:
      club-7:                      # the name the player gives the game
        transport: git
        clone: /home/alice/games/club    # the player's clone of the game's repository
        game_dir: game1                  # the game's folder inside the clone
        player: red
        key: /home/alice/.ssh/id_ed25519 # signs moves (ssh-keygen: passphrases and the agent work) and opens secrets
      club-8:
        transport: mail
        clone: /home/alice/.local/share/pbem/play/club-8   # pbem keeps the game's public copy here
        game_dir: atlantis-c6c470935d    # the game's id (its folder in there)
        player: red
        key: /home/alice/.ssh/id_ed25519
        mail:
          moderator: gm@example.org      # the game's address: moves go there, its mail is read
          address: alice@example.org     # the player's own address (From: of the moves)
          imap: {host: imap.example.org, security: tls, username: alice}   # or maildir: /home/alice/Maildir
          smtp: {host: smtp.example.org, security: starttls, username: alice}

Mail passwords come from ``PBEM_PLAY_IMAP_PASSWORD`` and ``PBEM_PLAY_SMTP_PASSWORD`` (the
environment only: never this file, never the command line).
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.base.yamlio import SETTINGS_LIMITS, dump, load_strict

TRANSPORTS = ("git", "mail")
GAME_KEYS = {"transport", "clone", "game_dir", "player", "key"}
MAIL_KEYS = {"moderator", "address", "imap", "maildir", "smtp", "moderator_key"}
PASSWORD_ENV = {"imap": "PBEM_PLAY_IMAP_PASSWORD", "smtp": "PBEM_PLAY_SMTP_PASSWORD"}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")



class PlayConfigError(PbemError):
    """One line: what is wrong with the player's settings and how to put it right."""


@dataclass(frozen=True)
class MailSettings:
    """How a mail game reaches the player: their mailbox (IMAP, or a Maildir) and their SMTP server.
    The server tables are kept as written (no password in them) and become servers, with the
    password from the environment, when used (:meth:`imap_server`, :meth:`smtp_server`)."""

    moderator: str
    address: str
    smtp: dict[str, Any]
    imap: dict[str, Any] | None = None
    maildir: str | None = None
    moderator_key: str | None = None      # the game's moderator key, when the player pinned it (init)

    def as_yaml(self) -> dict[str, Any]:
        data: dict[str, Any] = {"moderator": self.moderator, "address": self.address}
        data.update({"imap": dict(self.imap)} if self.imap is not None else {"maildir": self.maildir})
        data["smtp"] = dict(self.smtp)
        if self.moderator_key:
            data["moderator_key"] = self.moderator_key
        return data

    def imap_server(self, path: Path, env: Mapping[str, str] | None = None) -> Any:
        return self._server(path, "imap", env)

    def smtp_server(self, path: Path, env: Mapping[str, str] | None = None) -> Any:
        return self._server(path, "smtp", env)

    def _server(self, path: Path, kind: str, env: Mapping[str, str] | None) -> Any:
        from pbem.transport.mail.config import MailConfigError, server_settings
        env = os.environ if env is None else env
        table = dict((self.imap if kind == "imap" else self.smtp) or {})
        table["password"] = env.get(PASSWORD_ENV[kind], "")
        try:
            return server_settings(path, kind, table)
        except MailConfigError as exc:
            raise PlayConfigError(str(exc).replace("PBEM_IMAP_PASSWORD", PASSWORD_ENV["imap"])
                                  .replace("PBEM_SMTP_PASSWORD", PASSWORD_ENV["smtp"])) from None


@dataclass(frozen=True)
class PlayedGame:
    """One game the player takes part in."""

    name: str
    transport: str
    clone: Path
    game_dir: str
    player: str
    key: Path
    mail: MailSettings | None = None      # a mail game's mailbox and SMTP server

    @property
    def folder(self) -> Path:
        """The game's folder in the player's copy."""
        return self.clone / self.game_dir

    @property
    def play_dir(self) -> Path:
        """What `pbem play` keeps beside a mail game's copy (the mail it read, what it sent)."""
        return self.clone / ".pbem-play"

    def as_yaml(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("name")
        data["clone"], data["key"] = str(self.clone), str(self.key)
        if self.mail is None:
            data.pop("mail")
        else:
            data["mail"] = self.mail.as_yaml()
        return data


@dataclass
class PlayConfig:
    path: Path
    games: dict[str, PlayedGame] = field(default_factory=dict)

    def game(self, name: str | None) -> PlayedGame:
        """The game called ``name``, or the only one when ``name`` is None."""
        if name is None:
            if len(self.games) == 1:
                return next(iter(self.games.values()))
            if not self.games:
                raise PlayConfigError(f"no games in {self.path}; add one with `pbem play init`")
            raise PlayConfigError(f"you play in {len(self.games)} games ({', '.join(sorted(self.games))}); "
                                  "name one with --game")
        if name not in self.games:
            raise PlayConfigError(f"no game {name!r} in {self.path}; yours: {', '.join(sorted(self.games)) or 'none'}")
        return self.games[name]

    def save(self) -> None:
        text = ("# pbem play: the games you play in (written by `pbem play init`; no passwords here)\n"
                + dump({"games": {name: g.as_yaml() for name, g in sorted(self.games.items())}}))
        write_atomic(self.path, text, mode=0o600)


def config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("PBEM_PLAY_CONFIG"):
        return Path(env["PBEM_PLAY_CONFIG"])
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "pbem" / "play.yaml"


def load(path: Path | None = None) -> PlayConfig:
    """The settings (none yet: an empty set of games)."""
    path = path or config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return PlayConfig(path)
    except OSError as exc:
        raise PlayConfigError(f"cannot read {path}: {exc.strerror}") from None
    mode = path.stat().st_mode
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise PlayConfigError(f"{path} may be changed by others; run `chmod 600 {path}`")
    data = load_strict(raw, str(path), SETTINGS_LIMITS) or {}
    games = data.get("games") if isinstance(data, dict) else None
    if not isinstance(games, dict):
        raise PlayConfigError(f"{path} has no `games:` mapping; rewrite it with `pbem play init`")
    config = PlayConfig(path)
    for name, entry in games.items():
        config.games[name] = _game(path, name, entry)
    return config


def _game(path: Path, name: str, entry: Any) -> PlayedGame:
    where = f"{path}: game {name!r}"
    if not NAME.match(name):
        raise PlayConfigError(f"{where}: a name is letters, digits, '.', '_', '-' (up to 64)")
    if not isinstance(entry, dict):
        raise PlayConfigError(f"{where} is not a mapping")
    missing = [k for k in sorted(GAME_KEYS) if not isinstance(entry.get(k), str)]
    if missing:
        raise PlayConfigError(f"{where} lacks {', '.join(missing)}; add it again with `pbem play init`")
    extra = sorted(set(entry) - GAME_KEYS - ({"mail"} if entry.get("transport") == "mail" else set()))
    if extra:
        raise PlayConfigError(f"{where} has unknown keys {', '.join(extra)} (a password never goes here)")
    if entry["transport"] not in TRANSPORTS:
        raise PlayConfigError(f"{where}: transport {entry['transport']!r} is not one of {', '.join(TRANSPORTS)}")
    rel = Path(entry["game_dir"])
    if rel.is_absolute() or ".." in rel.parts:
        raise PlayConfigError(f"{where}: game_dir is a folder inside the clone, such as game1")
    mail = mail_settings(path, where, entry.get("mail")) if entry["transport"] == "mail" else None
    return PlayedGame(name, entry["transport"], Path(entry["clone"]), rel.as_posix(), entry["player"],
                      Path(entry["key"]), mail)


def mail_settings(path: Path, where: str, raw: Any) -> MailSettings:
    """A mail game's settings, checked now (the servers as the moderator's are; no password)."""
    if not isinstance(raw, dict):
        raise PlayConfigError(f"{where}: a mail game needs `mail:` (moderator, address, imap or maildir, smtp)")
    extra = sorted(str(k) for k in set(raw) - MAIL_KEYS)
    if extra:
        raise PlayConfigError(f"{where}: mail has unknown keys {', '.join(extra)} (a password never goes here)")
    for kind in ("imap", "smtp"):
        if isinstance(raw.get(kind), dict) and "password" in raw[kind]:
            raise PlayConfigError(f"{where}: a password never goes here; set {PASSWORD_ENV[kind]} instead")
    for key in ("moderator", "address"):
        if not isinstance(raw.get(key), str) or "@" not in raw[key]:
            raise PlayConfigError(f"{where}: mail.{key} must be an e-mail address")
    if ("imap" in raw) == ("maildir" in raw):
        raise PlayConfigError(f"{where}: mail needs either imap (your mailbox) or maildir, not both or neither")
    if not isinstance(raw.get("smtp"), dict):
        raise PlayConfigError(f"{where}: mail.smtp must be your SMTP server's settings (host, port, security, username)")
    if "maildir" in raw and not isinstance(raw["maildir"], str):
        raise PlayConfigError(f"{where}: mail.maildir must be the path of a Maildir")
    pinned = raw.get("moderator_key")
    if pinned is not None:
        from pbem.crypto import keys
        try:
            pinned = keys.normalise_public_key(str(pinned))
        except PbemError:
            raise PlayConfigError(f"{where}: mail.moderator_key is not an SSH ed25519 public key") from None
    settings = MailSettings(raw["moderator"], raw["address"], dict(raw["smtp"]),
                            dict(raw["imap"]) if isinstance(raw.get("imap"), dict) else None, raw.get("maildir"),
                            pinned)
    if "imap" in raw and settings.imap is None:
        raise PlayConfigError(f"{where}: mail.imap must be your mailbox's settings (host, port, security, username)")
    quiet: dict[str, str] = {}          # checked without a password: it is asked for only when used
    if settings.imap is not None:
        settings.imap_server(path, quiet)
    settings.smtp_server(path, quiet)
    return settings
