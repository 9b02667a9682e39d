"""age encryption of secrets, checked against the real age CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from crypto_helpers import public_line, run, ssh_keygen_key

from pbem.crypto.agecrypt import AgeError, decrypt, encrypt
from pbem.crypto.keys import generate_keypair

SECRET = b"red's hand: 3 of cups, 7 of swords\n"


@pytest.fixture()
def player(tmp_path: Path) -> Path:
    """A player's ed25519 key made by ssh-keygen."""
    return ssh_keygen_key(tmp_path, "player")


@pytest.fixture()
def moderator(tmp_path: Path) -> Path:
    """The moderator's key made by our own generate_keypair."""
    path = tmp_path / "moderator"
    generate_keypair(path, comment="moderator")
    return path


def test_player_and_moderator_both_decrypt(tmp_path: Path, player: Path, moderator: Path) -> None:
    ciphertext = encrypt(SECRET, [public_line(player), public_line(moderator)])
    assert ciphertext.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----\n")
    secret_file = tmp_path / "turn-0004-red.secret.age"
    secret_file.write_bytes(ciphertext)
    assert run(["age", "-d", "-i", str(player), str(secret_file)]).stdout == SECRET
    assert decrypt(ciphertext, moderator) == SECRET
    assert decrypt(ciphertext, player) == SECRET


def test_third_key_fails(tmp_path: Path, player: Path, moderator: Path) -> None:
    ciphertext = encrypt(SECRET, [public_line(player), public_line(moderator)])
    stranger = ssh_keygen_key(tmp_path, "stranger")
    with pytest.raises(AgeError, match=f"this file was not encrypted to key {stranger}"):
        decrypt(ciphertext, stranger)
    secret_file = tmp_path / "s.age"
    secret_file.write_bytes(ciphertext)
    assert run(["age", "-d", "-i", str(stranger), str(secret_file)], check=False).returncode != 0


def test_age_cli_output_decrypts(tmp_path: Path, player: Path) -> None:
    pub = player.with_name("player.pub")
    plain = tmp_path / "plain.txt"
    plain.write_bytes(SECRET)
    for armor_flag in ([], ["-a"]):
        out = tmp_path / "cli.age"
        out.unlink(missing_ok=True)
        run(["age", *armor_flag, "-R", str(pub), "-o", str(out), str(plain)])
        assert decrypt(out.read_bytes(), player) == SECRET


def test_age_identity_file(tmp_path: Path, player: Path) -> None:
    identity = tmp_path / "moderator.agekey"
    run(["age-keygen", "-o", str(identity)])
    recipient = run(["age-keygen", "-y", str(identity)]).stdout.decode().strip()
    assert recipient.startswith("age1")
    ciphertext = encrypt(SECRET, [public_line(player), recipient])
    assert decrypt(ciphertext, identity) == SECRET
    secret_file = tmp_path / "s.age"
    secret_file.write_bytes(ciphertext)
    assert run(["age", "-d", "-i", str(identity), str(secret_file)]).stdout == SECRET


def test_passphrase_key_suggests_age_cli(tmp_path: Path, player: Path) -> None:
    locked = ssh_keygen_key(tmp_path, "locked", passphrase="secret")
    ciphertext = encrypt(SECRET, [public_line(locked)])
    with pytest.raises(AgeError) as caught:
        decrypt(ciphertext, locked)
    expected = f"key {locked} is protected by a passphrase; decrypt with `age -d -i {locked} FILE` instead"
    assert str(caught.value) == expected


def test_mail_damaged_armor_still_decrypts(player: Path) -> None:
    ciphertext = encrypt(SECRET, [public_line(player)])
    mangled = b"\r\n  " + ciphertext.replace(b"\n", b"\r\n") + b"\r\n\r\n"
    assert decrypt(mangled, player) == SECRET


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"hello, this is not encrypted", "not an age-encrypted file"),
        (b"", "not an age-encrypted file"),
        (b"age-encryption.org/v1\n-> junk\n", "damaged"),
        (b"-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n-----END AGE ENCRYPTED FILE-----\n", "damaged"),
    ],
    ids=["plain-text", "empty", "bad-header", "bad-armor"],
)
def test_garbage_rejected(player: Path, data: bytes, message: str) -> None:
    with pytest.raises(AgeError, match=message) as caught:
        decrypt(data, player)
    assert "\n" not in str(caught.value)


def test_bad_recipients_rejected(tmp_path: Path) -> None:
    rsa = ssh_keygen_key(tmp_path, "rsa", key_type="rsa")
    with pytest.raises(AgeError, match="cannot encrypt: key type 'ssh-rsa' is not supported"):
        encrypt(SECRET, [public_line(rsa)])
    with pytest.raises(AgeError, match="not valid"):
        encrypt(SECRET, ["age1notarealrecipient"])
    with pytest.raises(AgeError, match="no recipients"):
        encrypt(SECRET, [])


def test_bad_identity_files(tmp_path: Path, player: Path) -> None:
    ciphertext = encrypt(SECRET, [public_line(player)])
    with pytest.raises(AgeError, match="does not exist"):
        decrypt(ciphertext, tmp_path / "missing")
    with pytest.raises(AgeError, match="is a public key"):
        decrypt(ciphertext, player.with_name("player.pub"))
