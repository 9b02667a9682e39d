"""The moderator's git exchange settings: ``GAME_DIR/moderator/git.yaml`` (private, git-ignored).

They live in the moderator's own folder, not in the shared repository, so a
player cannot switch signature checks off by pushing a changed file.  A CI
moderator has no such folder and passes the same settings as options
(``pbem git sync --verify-commits``), which ``pbem git init --ci`` writes into
the workflow.  Example::

    verify_commits: true      # incoming files must come in commits signed by their owner
    reveal_at_end: false      # publish the seed in the log when the game is over
    remote: origin            # default: the branch's upstream remote, else origin
    branch: main              # default: the current branch
    attempts: 5               # lost push races in a row retried at once (then with growing pauses)
    patience: 120             # seconds of lost races before a sync gives up (its commits wait for the next)
    tick: false               # also apply deadlines and bot seats (pbem tick) in every sync
    pull_requests: false      # also take moves from GitHub pull requests (refs/pull/N/head)
    user_name: pbem moderator
    user_email: moderator@pbem.invalid
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from pbem.base import yamlio
from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.store.gamedir import GameDir
from pbem.transport.git.repo import MODERATOR_EMAIL, MODERATOR_NAME

SETTINGS_NAME = "git.yaml"


class SettingsError(PbemError):
    pass


@dataclass
class GitSettings:
    verify_commits: bool = False
    reveal_at_end: bool = False
    remote: str | None = None
    branch: str | None = None
    attempts: int = 5
    patience: int = 120
    tick: bool = False
    pull_requests: bool = False
    user_name: str = MODERATOR_NAME
    user_email: str = MODERATOR_EMAIL


def settings_path(gd: GameDir) -> Path:
    return gd.moderator_dir / SETTINGS_NAME


def load_settings(gd: GameDir) -> GitSettings:
    path = settings_path(gd)
    if not path.is_file():
        return GitSettings()
    data = yamlio.load_strict(path.read_bytes(), str(path), yamlio.SETTINGS_LIMITS) or {}
    if not isinstance(data, dict):
        raise SettingsError(f"{path} must be a YAML mapping (see docs/git.md)")
    known = {f.name: f for f in fields(GitSettings)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise SettingsError(f"{path}: unknown setting(s) {', '.join(map(str, unknown))}; "
                            f"known: {', '.join(known)}")
    defaults = GitSettings()
    for name, value in data.items():
        _check_type(path, name, value, getattr(defaults, name))
    settings = GitSettings(**data)
    if settings.attempts < 1:
        raise SettingsError(f"{path}: attempts must be at least 1")
    if settings.patience < 0:
        raise SettingsError(f"{path}: patience must be at least 0")
    return settings


def _check_type(path: Path, name: str, value: Any, default: Any) -> None:
    if value is None and default is None:
        return
    expected: type = bool if isinstance(default, bool) else int if isinstance(default, int) else str
    if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
        raise SettingsError(f"{path}: {name} must be a {expected.__name__} (got {value!r})")


def save_settings(gd: GameDir, settings: GitSettings) -> None:
    gd.moderator_dir.mkdir(mode=0o700, exist_ok=True)
    data = {k: v for k, v in asdict(settings).items() if v is not None}
    write_atomic(settings_path(gd), yamlio.dump(data))
