"""OpenSSH ed25519 keys: make them, load them, name them.

Only ``ssh-ed25519`` keys are supported.  Every error is a :class:`KeyFileError`
whose text is a single line telling the person what to do.

The module also holds the tiny SSH wire-format helpers (RFC 4251 ``string``
and ``uint32``) shared with :mod:`pbem.crypto.sshsig`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_ssh_private_key,
)

from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic

ED25519 = "ssh-ed25519"
OPENSSH_BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----"
OPENSSH_MAGIC = b"openssh-key-v1\x00"
MAKE_KEY_HINT = "make one with `ssh-keygen -t ed25519`"


class KeyFileError(PbemError):
    """A key file or key line cannot be used; the message is one actionable line."""


class WireError(ValueError):
    """Malformed SSH wire-format data (too short or trailing bytes)."""


# --------------------------------------------------------------------------
# SSH wire format
# --------------------------------------------------------------------------


def pack_string(data: bytes) -> bytes:
    """Encode ``data`` as an SSH ``string``: uint32 big-endian length, then the bytes."""
    return struct.pack(">I", len(data)) + data


class WireReader:
    """Reads SSH wire-format fields from a byte string, front to back."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def take(self, n: int) -> bytes:
        """Return the next ``n`` raw bytes."""
        if n < 0 or self._pos + n > len(self._data):
            raise WireError("data ends too early")
        chunk = self._data[self._pos : self._pos + n]
        self._pos += n
        return chunk

    def uint32(self) -> int:
        """Return the next big-endian uint32."""
        return int(struct.unpack(">I", self.take(4))[0])

    def string(self) -> bytes:
        """Return the next SSH ``string`` (length-prefixed bytes)."""
        return self.take(self.uint32())

    def remaining(self) -> int:
        """Number of bytes not read yet."""
        return len(self._data) - self._pos

    def expect_end(self) -> None:
        """Raise :class:`WireError` if anything is left unread."""
        if self.remaining():
            raise WireError(f"{self.remaining()} unexpected trailing bytes")


# --------------------------------------------------------------------------
# Public keys
# --------------------------------------------------------------------------


def ed25519_blob(raw_public: bytes) -> bytes:
    """SSH wire blob of an ed25519 public key given its 32 raw bytes."""
    return pack_string(ED25519.encode()) + pack_string(raw_public)


def raw_from_ed25519_blob(blob: bytes) -> bytes:
    """The 32 raw key bytes of an ``ssh-ed25519`` wire blob; WireError if it is not one."""
    reader = WireReader(blob)
    key_type = reader.string()
    if key_type != ED25519.encode():
        raise WireError(f"key type {key_type.decode('ascii', 'replace')!r} is not {ED25519}")
    raw = reader.string()
    reader.expect_end()
    if len(raw) != 32:
        raise WireError(f"ed25519 key is {len(raw)} bytes, expected 32")
    return raw


def public_key_line(raw_public: bytes) -> str:
    """``"ssh-ed25519 BASE64"`` for 32 raw public key bytes."""
    return f"{ED25519} {base64.b64encode(ed25519_blob(raw_public)).decode('ascii')}"


def public_key_of(private_key: Ed25519PrivateKey) -> str:
    """The ``"ssh-ed25519 BASE64"`` line of a private key's public half."""
    return public_key_line(_raw_public(private_key.public_key()))


def _raw_public(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _key_lines(text: str) -> list[str]:
    """Non-blank, non-comment lines of a .pub file or a pasted key."""
    stripped = (line.strip() for line in text.splitlines())
    return [line for line in stripped if line and not line.startswith("#")]


def _single_key_line(text: str) -> str:
    if "PRIVATE KEY-----" in text:
        raise KeyFileError("this is a private key; give the public key (the .pub file) instead")
    lines = _key_lines(text)
    if not lines:
        raise KeyFileError(f"no public key found (expected a line like 'ssh-ed25519 AAAA...'; {MAKE_KEY_HINT})")
    if len(lines) > 1:
        raise KeyFileError(f"expected one public key but found {len(lines)} lines")
    return lines[0]


def _decode_key_blob(b64: str) -> bytes:
    try:
        return base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise KeyFileError("public key is damaged: its base64 part is not valid") from None


def normalise_public_key(text: str) -> str:
    """Return ``"ssh-ed25519 BASE64"`` from a .pub line or file content (comment dropped).

    Raises :class:`KeyFileError` for anything that is not exactly one valid
    ssh-ed25519 public key.
    """
    fields = _single_key_line(text).split()
    if fields[0] != ED25519:
        raise KeyFileError(f"key type {fields[0]!r} is not supported; only {ED25519} keys are ({MAKE_KEY_HINT})")
    if len(fields) < 2:
        raise KeyFileError(f"public key line has no key data after {ED25519!r}")
    try:
        raw = raw_from_ed25519_blob(_decode_key_blob(fields[1]))
    except WireError as exc:
        raise KeyFileError(f"public key is damaged: {exc}") from None
    return public_key_line(raw)


def fingerprint(public_key_line: str) -> str:
    """``"SHA256:..."`` exactly as ``ssh-keygen -l`` prints it (unpadded base64)."""
    blob = base64.b64decode(normalise_public_key(public_key_line).split()[1])
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode("ascii")
    return "SHA256:" + digest.rstrip("=")


# --------------------------------------------------------------------------
# Private keys
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenSSHKeyInfo:
    """What the unencrypted header of an OpenSSH private key file says."""

    key_type: str
    encrypted: bool


def _openssh_body(text: str) -> bytes:
    lines = [line.strip() for line in text.strip().splitlines()]
    if not lines or lines[0] != OPENSSH_BEGIN or not lines[-1].startswith("-----END"):
        raise WireError("not an OpenSSH private key")
    try:
        return base64.b64decode("".join(lines[1:-1]), validate=True)
    except (binascii.Error, ValueError):
        raise WireError("damaged base64") from None


def openssh_key_info(data: bytes) -> OpenSSHKeyInfo:
    """Read key type and encryption from an OpenSSH private key file's header.

    Works for passphrase-protected keys too (the header is not encrypted).
    Raises :class:`WireError` if ``data`` is not an OpenSSH private key.
    """
    reader = WireReader(_openssh_body(data.decode("ascii", "replace")))
    if reader.take(len(OPENSSH_MAGIC)) != OPENSSH_MAGIC:
        raise WireError("not an OpenSSH private key")
    cipher = reader.string()
    reader.string()  # kdf name
    reader.string()  # kdf options
    if reader.uint32() < 1:
        raise WireError("OpenSSH key file holds no key")
    key_type = WireReader(reader.string()).string()
    return OpenSSHKeyInfo(key_type.decode("ascii", "replace"), cipher != b"none")


def _read_key_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise KeyFileError(f"key file {path} does not exist") from None
    except IsADirectoryError:
        raise KeyFileError(f"{path} is a folder, not a key file") from None
    except OSError as exc:
        raise KeyFileError(f"cannot read key file {path}: {exc.strerror}") from None


def _key_info_or_error(path: Path, data: bytes) -> OpenSSHKeyInfo:
    if data.lstrip().startswith(b"ssh-"):
        raise KeyFileError(f"{path} is a public key; give the private key file (without .pub)")
    try:
        return openssh_key_info(data)
    except WireError:
        if b"PRIVATE KEY-----" in data:
            raise KeyFileError(
                f"{path} is not in OpenSSH format; only ssh-ed25519 OpenSSH keys are supported ({MAKE_KEY_HINT})"
            ) from None
        raise KeyFileError(f"{path} is not an OpenSSH private key") from None


def check_private_key_file(path: Path) -> OpenSSHKeyInfo:
    """Check ``path`` is a readable OpenSSH ed25519 private key; say why not.

    Passphrase-protected keys pass this check (``encrypted`` is True).
    """
    info = _key_info_or_error(path, _read_key_file(path))
    if info.key_type != ED25519:
        raise KeyFileError(f"key {path} is an {info.key_type} key; only {ED25519} keys are supported ({MAKE_KEY_HINT})")
    return info


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """Load an unencrypted OpenSSH ed25519 private key from ``path``."""
    path = Path(path)
    if check_private_key_file(path).encrypted:
        raise KeyFileError(
            f"key {path} is protected by a passphrase; "
            f"sign with `ssh-keygen -Y sign -n pbem-move -f {path} FILE` instead"
        )
    try:
        key = load_ssh_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError):
        raise KeyFileError(f"key {path} is damaged and cannot be loaded") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"key {path} is not an {ED25519} key ({MAKE_KEY_HINT})")
    return key


def unlock_private_key(path: Path, passphrase: str) -> Ed25519PrivateKey:
    """An OpenSSH ed25519 private key, protected by ``passphrase`` or not, held in memory only."""
    path = Path(path)
    info = check_private_key_file(path)
    try:
        key = load_ssh_private_key(path.read_bytes(), password=passphrase.encode() if info.encrypted else None)
    except ValueError:
        raise KeyFileError(f"the passphrase does not open key {path}") from None
    except TypeError:
        raise KeyFileError(f"key {path} is damaged and cannot be loaded") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"key {path} is not an {ED25519} key ({MAKE_KEY_HINT})")
    return key


# --------------------------------------------------------------------------
# Key generation
# --------------------------------------------------------------------------


def _refuse_existing(*paths: Path) -> None:
    for path in paths:
        if path.exists() or path.is_symlink():
            raise KeyFileError(f"{path} already exists; refusing to overwrite it")


def _pub_path(path: Path) -> Path:
    return path.with_name(path.name + ".pub")


def generate_keypair(path: Path, comment: str = "") -> str:
    """Create an unencrypted ed25519 key at ``path`` (0600) and ``path.pub``.

    Refuses to overwrite either file.  Returns the public key line
    ``"ssh-ed25519 BASE64"`` (without the comment).
    """
    path = Path(path)
    pub = _pub_path(path)
    if "\n" in comment or "\r" in comment:
        raise KeyFileError("key comment must be a single line")
    _refuse_existing(path, pub)
    if path.parent.exists() and not path.parent.is_dir():
        raise KeyFileError(f"{path.parent} is not a folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption())
    line = public_key_of(key)
    write_atomic(path, private_pem, 0o600)
    write_atomic(pub, f"{line} {comment}".rstrip().encode("utf-8") + b"\n", 0o644)
    return line
