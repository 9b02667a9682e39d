"""age encryption of per-player secrets (via pyrage).

Secrets are encrypted to a player's ``ssh-ed25519`` key and to the
moderator's key (``ssh-ed25519`` or ``age1...``), ASCII-armored so they
survive e-mail.  Players decrypt with ``age -d -i ~/.ssh/id_ed25519 FILE``.

Every failure raises :class:`AgeError` with a one-line, actionable text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pyrage
from pyrage import ssh, x25519

from pbem.crypto.keys import (
    ED25519,
    KeyFileError,
    check_private_key_file,
    fingerprint,
    load_private_key,
    normalise_public_key,
    public_key_of,
)
from pbem.base.errors import PbemError

ARMOR_BEGIN = b"-----BEGIN AGE ENCRYPTED FILE-----"
BINARY_MAGIC = b"age-encryption.org/v1\n"
AGE_RECIPIENT_PREFIX = "age1"
AGE_SECRET_PREFIX = "AGE-SECRET-KEY-1"


class AgeError(PbemError):
    """Encryption or decryption failed; the message is one actionable line."""


# --------------------------------------------------------------------------
# Encryption
# --------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _recipient(text: str) -> Any:
    """A pyrage recipient for an ``ssh-ed25519 ...`` line or an ``age1...`` string (a pure function of
    the text, read once: an entry encrypts each player's two files to the same two keys, and a host
    the entries of its games to their players' and moderator's keys again and again)."""
    text = text.strip()
    if text.startswith(AGE_RECIPIENT_PREFIX):
        try:
            return x25519.Recipient.from_str(text)
        except pyrage.RecipientError:
            raise AgeError(f"age recipient {text[:20]}... is not valid") from None
    try:
        return ssh.Recipient.from_str(normalise_public_key(text))
    except KeyFileError as exc:
        raise AgeError(f"cannot encrypt: {exc}") from None
    except pyrage.RecipientError:
        raise AgeError(f"cannot encrypt: {text[:30]!r}... is not a valid {ED25519} key") from None


def encrypt(plaintext: bytes, recipients: Sequence[str]) -> bytes:
    """Encrypt to every recipient; returns ASCII-armored age data."""
    if isinstance(recipients, str):
        raise TypeError("recipients must be a sequence of key strings, not one string")
    if not recipients:
        raise AgeError("cannot encrypt: no recipients given")
    parsed = [_recipient(text) for text in recipients]
    try:
        return bytes(pyrage.encrypt(plaintext, parsed, armored=True))
    except pyrage.EncryptError as exc:
        raise AgeError(f"encryption failed: {exc}") from None


# --------------------------------------------------------------------------
# Identities
# --------------------------------------------------------------------------


def _read_identity(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise AgeError(f"key file {path} does not exist") from None
    except OSError as exc:
        raise AgeError(f"cannot read key file {path}: {exc.strerror}") from None


def _age_identities(path: Path, text: str) -> list[Any]:
    """Parse an age identity file: AGE-SECRET-KEY lines, '#' comments, blank lines."""
    lines = [line.strip() for line in text.splitlines()]
    keys = [line for line in lines if line and not line.startswith("#")]
    if not keys or not all(line.startswith(AGE_SECRET_PREFIX) for line in keys):
        raise AgeError(f"{path} is neither an OpenSSH {ED25519} private key nor an age identity file")
    try:
        return [x25519.Identity.from_str(line) for line in keys]
    except pyrage.IdentityError:
        raise AgeError(f"age identity file {path} holds a damaged AGE-SECRET-KEY line") from None


def _ssh_identity(path: Path, data: bytes) -> Any:
    try:
        info = check_private_key_file(path)
    except KeyFileError as exc:
        raise AgeError(str(exc)) from None
    if info.encrypted:
        raise AgeError(f"key {path} is protected by a passphrase; decrypt with `age -d -i {path} FILE` instead")
    try:
        return ssh.Identity.from_buffer(data)
    except pyrage.IdentityError:
        raise AgeError(f"key {path} is damaged and cannot be loaded") from None


def _identities(path: Path) -> list[Any]:
    """pyrage identities from an ssh private key file or an age identity file."""
    data = _read_identity(path)
    text = data.decode("utf-8", "replace")
    if AGE_SECRET_PREFIX in text and "PRIVATE KEY-----" not in text:
        return _age_identities(path, text)
    return [_ssh_identity(path, data)]


def _key_name(path: Path) -> str:
    """``PATH (SHA256:...)`` for an ssh key, or just the path."""
    try:
        return f"{path} ({fingerprint(public_key_of(load_private_key(path)))})"
    except KeyFileError:
        return str(path)


# --------------------------------------------------------------------------
# Decryption
# --------------------------------------------------------------------------


def _clean_ciphertext(ciphertext: bytes) -> bytes:
    """Check the age header and undo harmless mail damage to armored text."""
    text = ciphertext.strip()
    if text.startswith(ARMOR_BEGIN):
        return text.replace(b"\r\n", b"\n") + b"\n"
    if ciphertext.startswith(BINARY_MAGIC):
        return ciphertext
    raise AgeError(
        "not an age-encrypted file (it should start with "
        "'-----BEGIN AGE ENCRYPTED FILE-----' or 'age-encryption.org/v1')"
    )


def _decrypt_error(exc: Exception, path: Path) -> AgeError:
    text = str(exc)
    if "No matching keys" in text:
        return AgeError(f"this file was not encrypted to key {_key_name(path)}")
    if "decrypted first" in text:
        return AgeError(f"key {path} is protected by a passphrase; decrypt with `age -d -i {path} FILE` instead")
    return AgeError(f"the encrypted file is damaged and cannot be decrypted ({text})")


def decrypt(ciphertext: bytes, identity_path: Path) -> bytes:
    """Decrypt age data (armored or binary) with an ssh-ed25519 key or an age identity file."""
    identity_path = Path(identity_path)
    identities = _identities(identity_path)
    data = _clean_ciphertext(ciphertext)
    try:
        return bytes(pyrage.decrypt(data, identities))
    except (pyrage.DecryptError, pyrage.IdentityError) as exc:
        raise _decrypt_error(exc, identity_path) from None


def decrypt_with_key(ciphertext: bytes, private_key: Any) -> bytes:
    """Decrypt with an ed25519 key held in memory (one a passphrase opened: it is never written)."""
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
    pem = private_key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption())
    try:
        identity = ssh.Identity.from_buffer(pem)
        return bytes(pyrage.decrypt(_clean_ciphertext(ciphertext), [identity]))
    except (pyrage.DecryptError, pyrage.IdentityError) as exc:
        raise AgeError(f"cannot decrypt with this key: {exc}") from None
