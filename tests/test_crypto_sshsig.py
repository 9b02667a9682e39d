"""SSHSIG sign/verify, checked against the real ssh-keygen."""

from __future__ import annotations

import base64
import hashlib
import struct
from pathlib import Path

import pytest
from crypto_helpers import public_line, ssh_keygen_key, ssh_sign, ssh_verify

from pbem.crypto.keys import fingerprint, load_private_key, pack_string
from pbem.crypto.sshsig import (
    MODERATOR_NAMESPACE,
    MOVE_NAMESPACE,
    SignatureError,
    armor,
    parse_signature,
    sign,
    verify,
    verify_tolerant,
)

MESSAGE = b"game: demo\nturn: 4\nplayer: red\norders:\n  - move A1 B2\n"


@pytest.fixture()
def red(tmp_path: Path) -> Path:
    """An ed25519 key made by ssh-keygen."""
    return ssh_keygen_key(tmp_path, "red")


@pytest.fixture()
def blue(tmp_path: Path) -> Path:
    """A second ed25519 key made by ssh-keygen."""
    return ssh_keygen_key(tmp_path, "blue")


@pytest.fixture()
def move_file(tmp_path: Path) -> Path:
    """A move file on disk."""
    path = tmp_path / "turn-0004-red.yaml"
    path.write_bytes(MESSAGE)
    return path


def _blob(armored: str) -> bytes:
    body = "".join(armored.strip().splitlines()[1:-1])
    return base64.b64decode(body)


# ---------------------------------------------------------------- interop


def test_ssh_keygen_signature_verifies(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, MOVE_NAMESPACE)
    key = verify(MESSAGE, sig, [public_line(red)], MOVE_NAMESPACE)
    assert key == " ".join(public_line(red).split()[:2])


def test_sign_is_byte_identical_to_ssh_keygen(red: Path, move_file: Path) -> None:
    expected = ssh_sign(red, move_file, MOVE_NAMESPACE)
    ours = sign(load_private_key(red), MESSAGE, MOVE_NAMESPACE)
    assert ours == expected
    assert ours.endswith("-----END SSH SIGNATURE-----\n")
    assert max(len(line) for line in ours.splitlines()[1:-1]) == 70


def test_our_signature_verifies_with_ssh_keygen(tmp_path: Path, red: Path, move_file: Path) -> None:
    sig_path = tmp_path / "ours.sig"
    sig_path.write_text(sign(load_private_key(red), MESSAGE, MOVE_NAMESPACE))
    good = ssh_verify(tmp_path, "red", public_line(red), MOVE_NAMESPACE, sig_path, MESSAGE)
    assert good.returncode == 0, good.stderr
    assert b"Good" in good.stdout + good.stderr
    tampered = ssh_verify(tmp_path, "red", public_line(red), MOVE_NAMESPACE, sig_path, MESSAGE + b"x")
    assert tampered.returncode != 0


def test_sha256_interop(tmp_path: Path, red: Path, move_file: Path) -> None:
    expected = ssh_sign(red, move_file, MOVE_NAMESPACE, hashalg="sha256")
    ours = sign(load_private_key(red), MESSAGE, MOVE_NAMESPACE, hashalg="sha256")
    assert ours == expected
    assert parse_signature(expected).hashalg == "sha256"
    verify(MESSAGE, expected, [public_line(red)], MOVE_NAMESPACE)
    sig_path = tmp_path / "ours256.sig"
    sig_path.write_text(ours)
    result = ssh_verify(tmp_path, "red", public_line(red), MOVE_NAMESPACE, sig_path, MESSAGE)
    assert result.returncode == 0, result.stderr


def test_parse_fields(red: Path, move_file: Path) -> None:
    parsed = parse_signature(ssh_sign(red, move_file, MODERATOR_NAMESPACE))
    assert parsed.namespace == MODERATOR_NAMESPACE
    assert parsed.hashalg == "sha512"
    assert parsed.public_key_line == " ".join(public_line(red).split()[:2])
    assert len(parsed.signature) == 64


# ---------------------------------------------------------------- rejections


def test_tampered_message_rejected(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, MOVE_NAMESPACE)
    with pytest.raises(SignatureError, match="not valid for this file"):
        verify(MESSAGE.replace(b"B2", b"B3"), sig, [public_line(red)], MOVE_NAMESPACE)


def test_wrong_namespace_rejected(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, "git")
    with pytest.raises(SignatureError, match="namespace 'git', expected 'pbem-move'"):
        verify(MESSAGE, sig, [public_line(red)], MOVE_NAMESPACE)


def test_key_not_allowed_rejected(red: Path, blue: Path, move_file: Path) -> None:
    sig = ssh_sign(blue, move_file, MOVE_NAMESPACE)
    with pytest.raises(SignatureError) as caught:
        verify(MESSAGE, sig, [public_line(red)], MOVE_NAMESPACE, signer="red")
    assert str(caught.value) == f"signed by key {fingerprint(public_line(blue))} which is not red's key"
    with pytest.raises(SignatureError, match="not one of the allowed keys"):
        verify(MESSAGE, sig, [], MOVE_NAMESPACE)


def test_blue_key_accepted_when_allowed(red: Path, blue: Path, move_file: Path) -> None:
    sig = ssh_sign(blue, move_file, MOVE_NAMESPACE)
    key = verify(MESSAGE, sig, [public_line(red), public_line(blue)], MOVE_NAMESPACE)
    assert key == " ".join(public_line(blue).split()[:2])


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda s: "hello world\n", "missing -----BEGIN SSH SIGNATURE----- line"),
        (lambda s: "", "missing -----BEGIN SSH SIGNATURE----- line"),
        (lambda s: s.splitlines()[0] + "\n" + s.splitlines()[1] + "\n", "missing -----END SSH SIGNATURE-----"),
        (lambda s: "\n".join(s.splitlines()[:2] + s.splitlines()[-1:]), "damaged"),
        (lambda s: s.replace("U1NIU0lH", "U1NIU0lI", 1), "does not start with 'SSHSIG'"),
        (lambda s: "Hi!\n" + s, "before the -----BEGIN"),
        (lambda s: s + "-- \nsent from my phone\n", "after the -----END"),
    ],
    ids=["no-armor", "empty", "no-end", "truncated", "bad-magic", "text-before", "text-after"],
)
def test_bad_armor_rejected(red: Path, move_file: Path, mangle, message: str) -> None:
    sig = mangle(ssh_sign(red, move_file, MOVE_NAMESPACE))
    with pytest.raises(SignatureError, match=message) as caught:
        verify(MESSAGE, sig, [public_line(red)], MOVE_NAMESPACE)
    assert "\n" not in str(caught.value)


def test_binary_garbage_rejected() -> None:
    with pytest.raises(SignatureError, match="non-text bytes"):
        parse_signature(b"\x00\xff\xfe garbage")


def test_trailing_bytes_in_blob_rejected_like_ssh_keygen(tmp_path: Path, red: Path, move_file: Path) -> None:
    padded = armor(_blob(ssh_sign(red, move_file, MOVE_NAMESPACE)) + b"\x00")
    with pytest.raises(SignatureError, match="trailing bytes"):
        parse_signature(padded)
    sig_path = tmp_path / "padded.sig"
    sig_path.write_text(padded)
    assert ssh_verify(tmp_path, "red", public_line(red), MOVE_NAMESPACE, sig_path, MESSAGE).returncode != 0


def test_unsupported_version_rejected(red: Path, move_file: Path) -> None:
    blob = bytearray(_blob(ssh_sign(red, move_file, MOVE_NAMESPACE)))
    blob[6:10] = struct.pack(">I", 2)
    with pytest.raises(SignatureError, match="version 2 is not supported"):
        parse_signature(armor(bytes(blob)))


def _sha1_signature(red: Path) -> str:
    """A correctly signed SSHSIG whose hash algorithm is sha1 (forbidden by the spec)."""
    key = load_private_key(red)
    data = (
        b"SSHSIG"
        + pack_string(MOVE_NAMESPACE.encode())
        + pack_string(b"")
        + pack_string(b"sha1")
        + pack_string(hashlib.sha1(MESSAGE).digest())
    )
    good = _blob(sign(key, MESSAGE, MOVE_NAMESPACE))
    pub = good[10 : 10 + 4 + 51]
    sig = pack_string(pack_string(b"ssh-ed25519") + pack_string(key.sign(data)))
    return armor(
        b"SSHSIG"
        + struct.pack(">I", 1)
        + pub
        + pack_string(MOVE_NAMESPACE.encode())
        + pack_string(b"")
        + pack_string(b"sha1")
        + sig
    )


def test_sha1_rejected_like_ssh_keygen(tmp_path: Path, red: Path) -> None:
    armored = _sha1_signature(red)
    with pytest.raises(SignatureError, match="hash algorithm 'sha1'; only sha256 and sha512"):
        verify(MESSAGE, armored, [public_line(red)], MOVE_NAMESPACE)
    sig_path = tmp_path / "sha1.sig"
    sig_path.write_text(armored)
    result = ssh_verify(tmp_path, "red", public_line(red), MOVE_NAMESPACE, sig_path, MESSAGE)
    assert result.returncode != 0


def test_sign_refuses_bad_arguments(red: Path) -> None:
    key = load_private_key(red)
    with pytest.raises(ValueError):
        sign(key, MESSAGE, MOVE_NAMESPACE, hashalg="sha1")
    with pytest.raises(ValueError):
        sign(key, MESSAGE, "")


# ---------------------------------------------------------------- tolerance


def test_crlf_mangled_armor_accepted(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, MOVE_NAMESPACE)
    mangled = "\r\n\r\n  " + sig.replace("\n", "  \r\n") + "\r\n\r\n"
    assert verify(MESSAGE, mangled.encode("ascii"), [public_line(red)], MOVE_NAMESPACE)


def test_rewrapped_armor_accepted(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, MOVE_NAMESPACE)
    lines = sig.splitlines()
    body = "".join(lines[1:-1])
    for width in (76, 64, len(body)):
        wrapped = [body[i : i + width] for i in range(0, len(body), width)]
        verify(MESSAGE, "\n".join([lines[0], *wrapped, lines[-1]]), [public_line(red)], MOVE_NAMESPACE)


def test_verify_tolerant_undoes_crlf(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, MOVE_NAMESPACE)
    crlf = MESSAGE.replace(b"\n", b"\r\n")
    with pytest.raises(SignatureError):
        verify(crlf, sig, [public_line(red)], MOVE_NAMESPACE)
    key, used = verify_tolerant(crlf, sig, [public_line(red)], MOVE_NAMESPACE)
    assert used == MESSAGE
    assert key == " ".join(public_line(red).split()[:2])


def test_verify_tolerant_strips_trailing_spaces(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, MOVE_NAMESPACE)
    mangled = MESSAGE.replace(b"\n", b"  \r\n")
    _, used = verify_tolerant(mangled, sig, [public_line(red)], MOVE_NAMESPACE)
    assert used == MESSAGE


def test_verify_tolerant_exact_bytes_first(red: Path, tmp_path: Path) -> None:
    crlf_file = tmp_path / "windows.yaml"
    crlf_file.write_bytes(MESSAGE.replace(b"\n", b"\r\n"))
    sig = ssh_sign(red, crlf_file, MOVE_NAMESPACE)
    _, used = verify_tolerant(crlf_file.read_bytes(), sig, [public_line(red)], MOVE_NAMESPACE)
    assert used == crlf_file.read_bytes()


def test_verify_tolerant_still_rejects_real_changes(red: Path, move_file: Path) -> None:
    sig = ssh_sign(red, move_file, MOVE_NAMESPACE)
    changed = MESSAGE.replace(b"B2", b"C3").replace(b"\n", b"\r\n")
    with pytest.raises(SignatureError, match="not valid for this file"):
        verify_tolerant(changed, sig, [public_line(red)], MOVE_NAMESPACE)
    with pytest.raises(SignatureError, match="namespace"):
        verify_tolerant(MESSAGE, sig, [public_line(red)], MODERATOR_NAMESPACE)
