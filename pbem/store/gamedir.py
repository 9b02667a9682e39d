"""Where a game's files live, and reading them.

    GAME_DIR/log.yaml            the log (public; entry 0 is the header)
    GAME_DIR/moves/              archived signed move files (public)
    GAME_DIR/public/             digest.txt, digest.html, board.svg, view.json (public)
    GAME_DIR/secrets/P.age       each player's private digest, age-encrypted (player + moderator)
    GAME_DIR/secrets/P.html.gz.age  the same digest as an HTML page with the player's private board (gzip)
    GAME_DIR/moderator/          PRIVATE to the moderator: seed, moderator key, state snapshot, lock
                                 (has its own .gitignore so it never enters a shared repository)
    GAME_DIR/moderator/mail.toml the mail settings, when the game is played by e-mail (or mail.yaml)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.base.errors import PbemError
from pbem.store.log import LOG_NAME, read_entries

#: what `pbem new` accepts as a game id and a player's name (both may name files and folders)
GAME_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
PLAYER_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,19}$")

MAIL_SETTINGS_NAMES = ("mail.toml", "mail.yaml", "mail.yml")   # the first one found is read


class GameDirError(PbemError):
    pass


@dataclass(frozen=True)
class GameDir:
    root: Path

    @property
    def log_path(self) -> Path:
        return self.root / LOG_NAME

    @property
    def moves_dir(self) -> Path:
        return self.root / "moves"

    @property
    def public_dir(self) -> Path:
        return self.root / "public"

    @property
    def secrets_dir(self) -> Path:
        return self.root / "secrets"

    @property
    def moderator_dir(self) -> Path:
        return self.root / "moderator"

    @property
    def seed_path(self) -> Path:
        return self.moderator_dir / "seed"

    @property
    def moderator_key_path(self) -> Path:
        return self.moderator_dir / "moderator_ed25519"

    @property
    def snapshot_path(self) -> Path:
        return self.moderator_dir / "snapshot.json"

    def mail_settings_paths(self) -> list[Path]:
        """The mail settings files there are (the game is played by e-mail when there is one)."""
        return [path for name in MAIL_SETTINGS_NAMES if (path := self.moderator_dir / name).is_file()]

    def secrets_path(self, player: str) -> Path:
        return self.secrets_dir / f"{player}.age"

    def secrets_html_path(self, player: str) -> Path:
        """The player's own digest as an HTML page (their private board), gzip-compressed, then
        encrypted like their secrets: ``age -d -i KEY P.html.gz.age | gunzip > P.html``."""
        return self.secrets_dir / f"{player}.html.gz.age"

    def require(self) -> None:
        if not self.log_path.is_file():
            raise GameDirError(f"{self.root} is not a pbem game (no {LOG_NAME}); create one with `pbem new`")

    def read_log_text(self) -> str:
        self.require()
        return self.log_path.read_text(encoding="utf-8")

    def entries(self) -> list[dict[str, Any]]:
        self.require()
        return read_entries(self.log_path)

    def seed(self, entries: list[dict[str, Any]] | None = None) -> bytes | None:
        """The seed: the moderator's private copy, or the revealed one from the log."""
        if self.seed_path.is_file():
            return bytes.fromhex(self.seed_path.read_text().strip())
        for entry in reversed(entries if entries is not None else self.entries()):
            if entry.get("kind") == "reveal":
                return bytes.fromhex(entry["seed"])
        return None

    def require_seed(self, entries: list[dict[str, Any]] | None = None) -> bytes:
        seed = self.seed(entries)
        if seed is None:
            raise GameDirError(f"no seed in {self.seed_path}: only the moderator's copy of the game can do this")
        return seed
