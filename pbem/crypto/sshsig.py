"""Strict SSHSIG (OpenSSH ``PROTOCOL.sshsig``) signatures with ed25519 keys.

Signatures made here are byte-identical to ``ssh-keygen -Y sign``; signatures
made by ``ssh-keygen`` verify here.  Parsing is lenient about the armor (line
endings, wrap width, surrounding whitespace) and strict about the binary blob.

Every failure raises :class:`SignatureError` with a one-line, actionable text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pbem.crypto.keys import (
    ED25519,
    KeyFileError,
    WireError,
    WireReader,
    ed25519_blob,
    fingerprint,
    normalise_public_key,
    pack_string,
    public_key_line,
    raw_from_ed25519_blob,
)
from pbem.base.errors import PbemError, excerpt

MOVE_NAMESPACE = "pbem-move"
MODERATOR_NAMESPACE = "pbem-moderator"

MAGIC = b"SSHSIG"
SIG_VERSION = 1
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
WRAP = 70  # ssh-keygen's line width
HASHES: dict[str, Callable[[bytes], bytes]] = {
    "sha256": lambda data: hashlib.sha256(data).digest(),
    "sha512": lambda data: hashlib.sha512(data).digest(),
}
INVALID = "signature is not valid for this file (was the file changed after signing?)"


class SignatureError(PbemError):
    """A signature was rejected; the message is one line a person can act on."""


@dataclass(frozen=True)
class ParsedSig:
    """The fields of an SSHSIG blob that matter for verification."""

    public_key_line: str  # "ssh-ed25519 BASE64"
    namespace: str
    hashalg: str
    signature: bytes  # raw 64-byte Ed25519 signature


# --------------------------------------------------------------------------
# Signed data and signing
# --------------------------------------------------------------------------


def signed_data(message: bytes, namespace: str, hashalg: str) -> bytes:
    """The exact bytes Ed25519 signs: magic, namespace, reserved, hash name, H(message)."""
    digest = HASHES[hashalg](message)
    return (
        MAGIC
        + pack_string(namespace.encode("utf-8"))
        + pack_string(b"")
        + pack_string(hashalg.encode("ascii"))
        + pack_string(digest)
    )


def _check_sign_args(namespace: str, hashalg: str) -> None:
    if not namespace:
        raise ValueError("namespace must not be empty")
    if hashalg not in HASHES:
        raise ValueError(f"hashalg must be sha256 or sha512, not {hashalg!r}")


def _blob(raw_public: bytes, namespace: str, hashalg: str, raw_sig: bytes) -> bytes:
    sig_field = pack_string(ED25519.encode()) + pack_string(raw_sig)
    return (
        MAGIC
        + struct.pack(">I", SIG_VERSION)
        + pack_string(ed25519_blob(raw_public))
        + pack_string(namespace.encode("utf-8"))
        + pack_string(b"")
        + pack_string(hashalg.encode("ascii"))
        + pack_string(sig_field)
    )


def armor(blob: bytes) -> str:
    """ssh-keygen's armor: BEGIN line, base64 wrapped at 70 columns, END line, newline."""
    text = base64.b64encode(blob).decode("ascii")
    lines = [text[i : i + WRAP] for i in range(0, len(text), WRAP)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def sign(
    private_key: Ed25519PrivateKey,
    message: bytes,
    namespace: str,
    hashalg: str = "sha512",
) -> str:
    """Sign ``message``; output equals ``ssh-keygen -Y sign -n NAMESPACE -f KEY FILE``."""
    _check_sign_args(namespace, hashalg)
    raw_sig = private_key.sign(signed_data(message, namespace, hashalg))
    raw_public = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return armor(_blob(raw_public, namespace, hashalg, raw_sig))


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def _armor_text(armored: str | bytes) -> str:
    if isinstance(armored, str):
        return armored
    try:
        return armored.decode("ascii")
    except UnicodeDecodeError:
        raise SignatureError("not an SSH signature: the file contains non-text bytes") from None


def _armor_body(text: str) -> str:
    """The base64 text between BEGIN and END, whitespace removed."""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if BEGIN not in lines:
        raise SignatureError(f"not an SSH signature: missing {BEGIN} line")
    if lines[0] != BEGIN:
        raise SignatureError(f"unexpected text before the {BEGIN} line")
    if END not in lines:
        raise SignatureError(f"SSH signature is cut short: missing {END} line")
    if lines[-1] != END:
        raise SignatureError(f"unexpected text after the {END} line")
    return "".join("".join(line.split()) for line in lines[1:-1])


def _dearmor(armored: str | bytes) -> bytes:
    body = _armor_body(_armor_text(armored))
    try:
        blob = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError("SSH signature is damaged: its base64 text is not valid (was it cut short?)") from None
    if not blob:
        raise SignatureError("SSH signature is empty")
    return blob


def _text_field(value: bytes, what: str) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise SignatureError(f"SSH signature is damaged: its {what} is not text") from None


def _read_public_key(reader: WireReader) -> str:
    blob = reader.string()
    key_type = WireReader(blob).string()
    if key_type != ED25519.encode():
        name = _text_field(key_type, "key type")
        raise SignatureError(f"signature was made with a key of type {excerpt(name)}; only {ED25519} keys "
                             "are supported")
    return public_key_line(raw_from_ed25519_blob(blob))


def _read_namespace(reader: WireReader) -> str:
    namespace = _text_field(reader.string(), "namespace")
    if not namespace:
        raise SignatureError("SSH signature has an empty namespace")
    return namespace


def _read_hashalg(reader: WireReader) -> str:
    hashalg = _text_field(reader.string(), "hash algorithm")
    if hashalg not in HASHES:
        raise SignatureError(f"signature uses hash algorithm {excerpt(hashalg)}; only sha256 and sha512 are allowed")
    return hashalg


def _read_signature(reader: WireReader) -> bytes:
    inner = WireReader(reader.string())
    algorithm = inner.string()
    if algorithm != ED25519.encode():
        name = _text_field(algorithm, "signature algorithm")
        raise SignatureError(f"signature algorithm {excerpt(name)} is not supported; only {ED25519} is")
    raw = inner.string()
    inner.expect_end()
    if len(raw) != 64:
        raise WireError(f"ed25519 signature is {len(raw)} bytes, expected 64")
    return raw


def _read_preamble(reader: WireReader) -> None:
    if reader.take(len(MAGIC)) != MAGIC:
        raise SignatureError("not an SSH signature: the data does not start with 'SSHSIG'")
    version = reader.uint32()
    if version != SIG_VERSION:
        raise SignatureError(f"SSH signature version {version} is not supported (only version 1 is)")


def _parse_blob(blob: bytes) -> ParsedSig:
    reader = WireReader(blob)
    _read_preamble(reader)
    key = _read_public_key(reader)
    namespace = _read_namespace(reader)
    reader.string()  # reserved: ignored, as the spec says
    hashalg = _read_hashalg(reader)
    raw_sig = _read_signature(reader)
    reader.expect_end()
    return ParsedSig(key, namespace, hashalg, raw_sig)


def signature_blob(armored: str | bytes) -> bytes:
    """The binary SSHSIG blob inside an armoured signature (raises :class:`SignatureError`)."""
    try:
        return _dearmor(armored)
    except WireError as exc:
        raise SignatureError(f"SSH signature is damaged: {exc}") from None


def parse_signature(armored: str | bytes) -> ParsedSig:
    """Parse an armored SSH signature; raise :class:`SignatureError` if malformed."""
    try:
        return _parse_blob(_dearmor(armored))
    except WireError as exc:
        raise SignatureError(f"SSH signature is damaged: {exc}") from None


# --------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------


def _normalised_allowed(allowed_keys: Sequence[str]) -> list[str]:
    if isinstance(allowed_keys, str):
        raise TypeError("allowed_keys must be a sequence of key lines, not one string")
    result = []
    for index, line in enumerate(allowed_keys, start=1):
        try:
            result.append(normalise_public_key(line))
        except KeyFileError as exc:
            raise SignatureError(f"allowed key #{index} cannot be used: {exc}") from None
    return result


def _check_claims(parsed: ParsedSig, allowed_keys: Sequence[str], namespace: str, signer: str | None) -> str:
    """Check namespace and signer key; return the matching normalised key line."""
    if parsed.namespace != namespace:
        raise SignatureError(f"signature was made for namespace {excerpt(parsed.namespace)}, expected {namespace!r}")
    if parsed.public_key_line not in _normalised_allowed(allowed_keys):
        owner = f"{signer}'s key" if signer else "one of the allowed keys"
        raise SignatureError(f"signed by key {fingerprint(parsed.public_key_line)} which is not {owner}")
    return parsed.public_key_line


def _signature_ok(parsed: ParsedSig, message: bytes) -> bool:
    return _verifies(parsed.public_key_line, parsed.signature, signed_data(message, parsed.namespace, parsed.hashalg))


@lru_cache(maxsize=4096)
def _verifies(public_key_line: str, signature: bytes, data: bytes) -> bool:
    """Is ``signature`` the key ``public_key_line``'s Ed25519 signature of ``data`` (the signed data:
    the message's hash, never the message itself, so each answer kept is some 200 bytes)?  A pure
    function of its arguments, remembered: the audit of a game this process took the moves of (a
    host, a player's client auditing each update) checks each signature again."""
    raw_public = raw_from_ed25519_blob(base64.b64decode(public_key_line.split()[1]))
    public = Ed25519PublicKey.from_public_bytes(raw_public)
    try:
        public.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def verify(
    message: bytes,
    armored: str | bytes,
    allowed_keys: Sequence[str],
    namespace: str,
    *,
    signer: str | None = None,
) -> str:
    """Verify ``armored`` over the exact ``message`` bytes.

    Returns the allowed key line ("ssh-ed25519 BASE64") that made the
    signature.  ``signer`` (a player name) only improves the error text.
    """
    parsed = parse_signature(armored)
    key = _check_claims(parsed, allowed_keys, namespace, signer)
    if not _signature_ok(parsed, message):
        raise SignatureError(INVALID)
    return key


def mail_variants(message: bytes) -> list[bytes]:
    """Plausible originals of a message a mail client changed: CRLF→LF, then also trailing spaces removed."""
    if b"\r\n" not in message:
        return []
    unix = message.replace(b"\r\n", b"\n")
    stripped = b"\n".join(line.rstrip(b" \t") for line in unix.split(b"\n"))
    return [unix] if stripped == unix else [unix, stripped]


def verify_tolerant(
    message: bytes,
    armored: str | bytes,
    allowed_keys: Sequence[str],
    namespace: str,
    *,
    signer: str | None = None,
) -> tuple[str, bytes]:
    """Like :func:`verify`, but undo mail-client damage if the exact bytes fail.

    Returns ``(key line, message bytes that verified)``; use those bytes from
    then on, since they are what the player signed.
    """
    parsed = parse_signature(armored)
    key = _check_claims(parsed, allowed_keys, namespace, signer)
    for candidate in [message, *mail_variants(message)]:
        if _signature_ok(parsed, candidate):
            return key, candidate
    raise SignatureError(INVALID)
