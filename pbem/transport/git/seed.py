"""The moderator's seed in a shared repository: sealed with age, never in plain text.

``GAME_DIR/moderator/`` is git-ignored.  For a moderator that runs somewhere
else (CI), :func:`seal_seed` stores ``moderator/seed`` encrypted to the
moderator's public key from the log header (entry 0, ``moderator.key``) as
``GAME_DIR/moderator.seed.age``; :func:`unseal_seed` restores it with the
moderator's private key (for example from the CI secret ``PBEM_MODERATOR_KEY``).
A game begun with ``--position`` also needs its private start position, sealed
the same way as ``moderator.start_position.age``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.core.rng import seed_commitment
from pbem.crypto import agecrypt, keys
from pbem.store.gamedir import GameDir
from pbem.store.table import START_POSITION

SEALED_SEED = "moderator.seed.age"
SEALED_POSITION = "moderator.start_position.age"
MODERATOR_GITIGNORE = "# the moderator's private files never go into a shared repository\n*\n"


class SeedError(PbemError):
    """One line: why the seed cannot be sealed or restored."""


@dataclass
class SealResult:
    written: list[Path] = field(default_factory=list)


def sealed_seed_path(gd: GameDir) -> Path:
    return gd.root / SEALED_SEED


def _moderator_public_key(gd: GameDir) -> str:
    header = gd.entries()[0]
    key = header.get("moderator", {}).get("key")
    if not key:
        raise SeedError(f"{gd.log_path} has no moderator key in entry 0 (moderator.key)")
    return str(key)


def seal_seed(gd: GameDir) -> SealResult:
    """Write moderator.seed.age (and moderator.start_position.age) encrypted to the moderator's key."""
    recipient = _moderator_public_key(gd)
    if not gd.seed_path.is_file():
        raise SeedError(f"no {gd.seed_path}: only the moderator's own copy of the game can seal the seed")
    result = SealResult()
    plain = gd.seed_path.read_bytes()
    write_atomic(sealed_seed_path(gd), agecrypt.encrypt(plain, [recipient]))
    result.written.append(sealed_seed_path(gd))
    position = gd.moderator_dir / START_POSITION
    if position.is_file():
        write_atomic(gd.root / SEALED_POSITION, agecrypt.encrypt(position.read_bytes(), [recipient]))
        result.written.append(gd.root / SEALED_POSITION)
    return result


def prepare_moderator_dir(gd: GameDir) -> None:
    """Make GAME_DIR/moderator/ (private, git-ignored) if a fresh clone lacks it."""
    gd.moderator_dir.mkdir(mode=0o700, exist_ok=True)
    ignore = gd.moderator_dir / ".gitignore"
    if not ignore.is_file():
        write_atomic(ignore, MODERATOR_GITIGNORE)
    lock = gd.moderator_dir / "lock"
    if not lock.exists():
        write_atomic(lock, b"")


def install_key_text(gd: GameDir, key_text: str) -> Path:
    """Put the moderator's private key (given as text, e.g. from a CI secret) in moderator/."""
    text = key_text.replace("\r\n", "\n").strip()
    if not text:
        raise SeedError("the moderator key is empty (is the game's CI secret set? its name is in the "
                        "workflow, PBEM_MODERATOR_KEY_<GAME ID> by default)")
    return _install_key_bytes(gd, (text + "\n").encode("utf-8"))


def install_key_file(gd: GameDir, path: Path) -> Path:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SeedError(f"cannot read the moderator key {path}: {exc.strerror}") from None
    if path.resolve() == gd.moderator_key_path.resolve():
        return gd.moderator_key_path
    return _install_key_bytes(gd, data)


def _install_key_bytes(gd: GameDir, data: bytes) -> Path:
    """Check the key is this game's moderator key, then store it as moderator/moderator_ed25519 (0600)."""
    prepare_moderator_dir(gd)
    target = gd.moderator_key_path
    candidate = gd.moderator_dir / ".moderator_key.new"
    write_atomic(candidate, data, mode=0o600)
    try:
        _check_moderator_key(gd, candidate)
        if target.is_file() and target.read_bytes() != data:
            raise SeedError(f"{target} already holds a different key; remove it first if you mean to replace it")
        os.replace(candidate, target)
    finally:
        candidate.unlink(missing_ok=True)
    return target


def _check_moderator_key(gd: GameDir, key_path: Path) -> None:
    expected = keys.normalise_public_key(_moderator_public_key(gd))
    actual = keys.public_key_of(keys.load_private_key(key_path))
    if actual != expected:
        raise SeedError(f"key {key_path} ({keys.fingerprint(actual)}) is not this game's moderator key "
                        f"({keys.fingerprint(expected)})")


def unseal_seed(gd: GameDir, key_path: Path | None = None, key_text: str | None = None) -> list[Path]:
    """Restore moderator/seed (and the start position) from the sealed copies in the repository."""
    sealed = sealed_seed_path(gd)
    if not sealed.is_file():
        raise SeedError(f"no {sealed}; the moderator must run `pbem git seal-seed {gd.root}` and push it")
    if key_text is not None:
        key = install_key_text(gd, key_text)
    elif key_path is not None:
        key = install_key_file(gd, key_path)
    else:
        key = gd.moderator_key_path
        if not key.is_file():
            raise SeedError(f"no moderator key: give --key FILE or --key-env VARIABLE (no {key})")
    prepare_moderator_dir(gd)
    _check_moderator_key(gd, key)
    plain = agecrypt.decrypt(sealed.read_bytes(), key)
    try:
        seed = bytes.fromhex(plain.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        raise SeedError(f"{sealed} does not hold a seed") from None
    if seed_commitment(seed) != gd.entries()[0].get("seed_commitment"):
        raise SeedError(f"{sealed} holds a seed that does not match this game's seed commitment")
    restored = [_restore(gd.seed_path, plain)]
    position = gd.root / SEALED_POSITION
    if position.is_file():
        restored.append(_restore(gd.moderator_dir / START_POSITION, agecrypt.decrypt(position.read_bytes(), key)))
    return restored


def _restore(target: Path, data: bytes) -> Path:
    if target.is_file() and target.read_bytes().strip() != data.strip():
        raise SeedError(f"{target} exists and differs from the sealed copy; remove it first if it is wrong")
    write_atomic(target, data, mode=0o600)
    os.chmod(target.parent, 0o700)
    return target
