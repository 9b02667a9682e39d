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

TRANSPORTS = ("git",)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")



class PlayConfigError(PbemError):
    """One line: what is wrong with the player's settings and how to put it right."""


@dataclass(frozen=True)
class PlayedGame:
    """One game the player takes part in."""

    name: str
    transport: str
    clone: Path
    game_dir: str
    player: str
    key: Path

    @property
    def folder(self) -> Path:
        """The game's folder in the player's copy."""
        return self.clone / self.game_dir

    def as_yaml(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("name")
        data["clone"], data["key"] = str(self.clone), str(self.key)
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
    missing = [k for k in ("transport", "clone", "game_dir", "player", "key") if not isinstance(entry.get(k), str)]
    if missing:
        raise PlayConfigError(f"{where} lacks {', '.join(missing)}; add it again with `pbem play init`")
    extra = sorted(set(entry) - {"transport", "clone", "game_dir", "player", "key"})
    if extra:
        raise PlayConfigError(f"{where} has unknown keys {', '.join(extra)} (a password never goes here)")
    if entry["transport"] not in TRANSPORTS:
        raise PlayConfigError(f"{where}: transport {entry['transport']!r} is not one of {', '.join(TRANSPORTS)}")
    rel = Path(entry["game_dir"])
    if rel.is_absolute() or ".." in rel.parts:
        raise PlayConfigError(f"{where}: game_dir is a folder inside the clone, such as game1")
    return PlayedGame(name, entry["transport"], Path(entry["clone"]), rel.as_posix(), entry["player"],
                      Path(entry["key"]))
