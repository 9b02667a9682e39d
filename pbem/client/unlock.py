"""The player's keys, opened once per `pbem play` and held in memory only.

A key without a passphrase is read from its file when needed.  A key protected by a passphrase is
opened once, when `pbem play` starts (the passphrase is asked in the terminal, never stored): it
opens the player's secrets (age needs the private key; an ssh-agent cannot decrypt), and signs
moves where the ssh-agent does not hold it.  Where the agent holds it, `ssh-keygen -Y sign` signs
through the agent as it always does.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.client.config import PlayConfig
from pbem.crypto import agecrypt, keys, sshsig

TRIES = 3


class UnlockError(PbemError):
    """One line: a key that could not be opened."""


@dataclass
class Unlocked:
    """Keys a passphrase opened, by the path of their file."""

    keys: dict[Path, Any] = field(default_factory=dict)

    def opener(self, path: Path) -> Callable[[bytes], bytes] | None:
        """What decrypts the player's secrets with this key (None: the key file itself does)."""
        key = self.keys.get(path)
        return None if key is None else (lambda raw: agecrypt.decrypt_with_key(raw, key))

    def signer(self, path: Path) -> Callable[[Path, Path], None] | None:
        """What signs a move with this key (None: `ssh-keygen -Y sign`, which asks the agent first)."""
        key = self.keys.get(path)
        if key is None or agent_holds(key):
            return None

        def sign(move: Path, _key_path: Path) -> None:
            signature = sshsig.sign(key, move.read_bytes(), sshsig.MOVE_NAMESPACE)
            write_atomic(move.with_name(move.name + ".sig"), signature, mode=0o644)
        return sign


def agent_holds(private_key: Any) -> bool:
    """The running ssh-agent (SSH_AUTH_SOCK) holds this key."""
    tool = shutil.which("ssh-add")
    if tool is None:
        return False
    listed = subprocess.run([tool, "-L"], capture_output=True, text=True, check=False).stdout
    mine = keys.normalise_public_key(keys.public_key_of(private_key))
    for line in listed.splitlines():
        try:
            if keys.normalise_public_key(line) == mine:
                return True
        except PbemError:
            continue
    return False


def unlock(config: PlayConfig, ask: Callable[[str], str]) -> Unlocked:
    """Open every passphrase-protected key of the player's games (``ask`` asks for a passphrase)."""
    unlocked = Unlocked()
    for path in sorted({g.key for g in config.games.values()}):
        if not keys.check_private_key_file(path).encrypted:
            continue
        for attempt in range(1, TRIES + 1):
            try:
                unlocked.keys[path] = keys.unlock_private_key(path, ask(f"passphrase for {path}"))
                break
            except keys.KeyFileError:
                if attempt == TRIES:
                    raise UnlockError(f"the passphrase does not open {path} ({TRIES} tries); nothing was opened")
    return unlocked
