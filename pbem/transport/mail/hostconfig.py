"""The settings of a host: one mailbox and one SMTP login for a folder of games.

``FOLDER/pbem-host.toml`` (or ``pbem-host.yaml``) has the keys of a game's ``mail.toml``
except ``[players]``: ``from``, ``reply_to``, ``[smtp]``, ``[imap]`` or ``[maildir]`` and the
defaults ``cadence``, ``summary`` and ``attach_log``, and the host's own ``jobs`` (how many
games' moves are taken at once: :func:`default_jobs` when it is not set).  Each game keeps its own
``GAME/moderator/mail.toml`` with its ``[players]`` (and, if it likes, its own
``cadence``, ``summary`` and ``attach_log``); its server settings and ``from`` are not
used when the host runs the game: every game of a host is mailed from one address and
read from one mailbox.  Passwords and overrides come from the same ``PBEM_*``
environment variables as for one game (docs/email.md).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.store.gamedir import GameDir
from pbem.transport.mail.config import (
    CHOICES, MailConfig, MailConfigError, apply_env, build_config, check_file_passwords, read_settings, config_path,
    load_config,
)

HOST_SETTINGS_NAMES = ("pbem-host.toml", "pbem-host.yaml", "pbem-host.yml")
#: what a game's own mail.toml contributes when a host runs it
GAME_KEYS = ("players", *CHOICES)


@dataclass(frozen=True)
class HostConfig:
    folder: Path                 # the folder of games
    path: Path                   # the host's settings file
    data: dict[str, Any]         # its settings, environment applied, paths made absolute
    mail: MailConfig             # the same as a game's settings without players (the mailbox, SMTP)
    jobs: int = 0                # `jobs = N`: the worker processes of a cycle (0: not set, default_jobs())


#: the most worker processes the default asks for, however many CPUs there are
DEFAULT_JOBS_CAP = 4
MAX_JOBS = 64


def default_jobs() -> int:
    """The CPUs this process may use, at most :data:`DEFAULT_JOBS_CAP` (docs/moderating.md, "--jobs")."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return max(1, min(usable, DEFAULT_JOBS_CAP))


def check_jobs(value: object, where: str) -> int:
    """A number of worker processes, 1 to :data:`MAX_JOBS` (one line naming ``where`` when it is not)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_JOBS:
        raise MailConfigError(f"{where}: jobs must be a whole number from 1 to {MAX_JOBS}, not {value!r}")
    return value


def host_settings_paths(folder: Path) -> list[Path]:
    return [path for name in HOST_SETTINGS_NAMES if (path := folder / name).is_file()]


def is_host_folder(folder: Path) -> bool:
    return bool(host_settings_paths(folder))


def load_host(folder: Path, env: Mapping[str, str] | None = None) -> HostConfig:
    """The host's settings (one line naming the file and the problem when they are wrong)."""
    env = os.environ if env is None else env
    found = host_settings_paths(folder)
    if not found:
        raise MailConfigError(f"{folder} has no host settings: write {folder / HOST_SETTINGS_NAMES[0]} "
                              "(see docs/moderating.md, \"Hosting many games\")")
    if len(found) > 1:
        raise MailConfigError(f"both {found[0]} and {found[1]} exist; keep one")
    path = found[0]
    data = read_settings(path)
    if "players" in data:
        raise MailConfigError(f"{path}: [players] belongs in each game's moderator/mail.toml, not in the host's "
                              "settings")
    jobs = check_jobs(data.pop("jobs"), str(path)) if "jobs" in data else 0
    check_file_passwords(path, data)
    apply_env(data, env)
    _absolute_paths(path, data)
    return HostConfig(folder, path, data, build_config(path, data), jobs)


def _absolute_paths(path: Path, data: dict[str, Any]) -> None:
    """The host's relative paths (Maildir, CA files) are relative to its settings file, not to a game's."""
    for section, key in (("maildir", "path"), ("smtp", "cafile"), ("imap", "cafile")):
        table = data.get(section)
        if isinstance(table, dict) and table.get(key):
            table[key] = str((path.parent / os.path.expanduser(str(table[key]))).resolve())


def game_config(host: HostConfig, gd: GameDir) -> MailConfig:
    """A game's settings when the host runs it: the host's server, sender and defaults, the game's
    players (and its own cadence, summary and attach_log where it sets them)."""
    path = config_path(gd)
    own = read_settings(path)
    merged = {k: v for k, v in host.data.items()}
    merged.update({k: own[k] for k in GAME_KEYS if k in own})
    return build_config(path, merged)


def load_game_config(gd: GameDir, env: Mapping[str, str] | None = None) -> MailConfig:
    """A game's mail settings for a command on that game alone (`pbem mail send`, `pbem tick
    --mail`): the host's merged with the game's when the game sits in a host's folder, else the
    game's own ``mail.toml``."""
    parent = gd.root.resolve().parent
    if is_host_folder(parent):
        return game_config(load_host(parent, env), gd)
    return load_config(gd, env)
