"""Key generation and loading, checked against the real ssh-keygen."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from crypto_helpers import public_line, run, ssh_keygen_key, ssh_sign

from pbem.crypto.keys import (
    KeyFileError,
    fingerprint,
    generate_keypair,
    load_private_key,
    normalise_public_key,
    public_key_of,
)
from pbem.crypto.sshsig import MOVE_NAMESPACE, verify


def test_generated_key_loads_in_ssh_keygen(tmp_path: Path) -> None:
    key_path = tmp_path / "moderator"
    line = generate_keypair(key_path, comment="moderator@example.org")
    derived = run(["ssh-keygen", "-y", "-f", str(key_path)]).stdout.decode().split()
    assert " ".join(derived[:2]) == line
    assert public_line(key_path) == f"{line} moderator@example.org"
    assert public_key_of(load_private_key(key_path)) == line


def test_generated_files_modes_and_no_leftovers(tmp_path: Path) -> None:
    key_path = tmp_path / "k"
    generate_keypair(key_path)
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    assert key_path.with_name("k.pub").read_text().endswith("\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k", "k.pub"]


def test_generated_key_signs_with_ssh_keygen(tmp_path: Path) -> None:
    key_path = tmp_path / "player"
    line = generate_keypair(key_path)
    message = tmp_path / "move.yaml"
    message.write_bytes(b"turn: 1\n")
    sig = ssh_sign(key_path, message, MOVE_NAMESPACE)
    assert verify(message.read_bytes(), sig, [line], MOVE_NAMESPACE) == line


def test_fingerprint_matches_ssh_keygen(tmp_path: Path) -> None:
    for key_path in (ssh_keygen_key(tmp_path, "red"), tmp_path / "ours"):
        if not key_path.exists():
            generate_keypair(key_path, comment="ours")
        pub = key_path.with_name(key_path.name + ".pub")
        listed = run(["ssh-keygen", "-l", "-f", str(pub)]).stdout.decode().split()
        assert fingerprint(pub.read_text()) == listed[1]


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    key_path = tmp_path / "k"
    generate_keypair(key_path)
    before = key_path.read_bytes()
    with pytest.raises(KeyFileError, match="already exists; refusing to overwrite"):
        generate_keypair(key_path)
    assert key_path.read_bytes() == before


def test_refuses_when_only_pub_exists(tmp_path: Path) -> None:
    (tmp_path / "k.pub").write_text("old\n")
    with pytest.raises(KeyFileError, match="k.pub already exists"):
        generate_keypair(tmp_path / "k")
    assert not (tmp_path / "k").exists()
    assert (tmp_path / "k.pub").read_text() == "old\n"


def test_missing_folder_is_created(tmp_path: Path) -> None:
    generate_keypair(tmp_path / "nope" / "k")
    assert (tmp_path / "nope" / "k").is_file() and (tmp_path / "nope" / "k.pub").is_file()


def test_a_file_in_the_way_of_the_folder(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(KeyFileError, match="is not a folder"):
        generate_keypair(tmp_path / "file" / "k")


def test_passphrase_key_gives_clear_error(tmp_path: Path) -> None:
    key_path = ssh_keygen_key(tmp_path, "locked", passphrase="secret")
    with pytest.raises(KeyFileError) as caught:
        load_private_key(key_path)
    assert str(caught.value) == (
        f"key {key_path} is protected by a passphrase; "
        f"sign with `ssh-keygen -Y sign -n pbem-move -f {key_path} FILE` instead"
    )


def test_rsa_key_refused(tmp_path: Path) -> None:
    key_path = ssh_keygen_key(tmp_path, "old", key_type="rsa")
    with pytest.raises(KeyFileError, match="is an ssh-rsa key; only ssh-ed25519 keys are supported"):
        load_private_key(key_path)
    with pytest.raises(KeyFileError, match="key type 'ssh-rsa' is not supported"):
        normalise_public_key(public_line(key_path))


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="does not exist"):
        load_private_key(tmp_path / "missing")
    junk = tmp_path / "junk"
    junk.write_text("hello\n")
    with pytest.raises(KeyFileError, match="not an OpenSSH private key"):
        load_private_key(junk)
    key_path = ssh_keygen_key(tmp_path, "red")
    with pytest.raises(KeyFileError, match="is a public key; give the private key file"):
        load_private_key(key_path.with_name("red.pub"))


def test_normalise_public_key_forms(tmp_path: Path) -> None:
    key_path = ssh_keygen_key(tmp_path, "red")
    full = public_line(key_path)
    bare = " ".join(full.split()[:2])
    assert normalise_public_key(full) == bare
    assert normalise_public_key(bare) == bare
    assert normalise_public_key(f"# red's key\n\n  {full}  \r\n") == bare
    with pytest.raises(KeyFileError, match="damaged"):
        normalise_public_key(bare[:-5])
    with pytest.raises(KeyFileError, match="expected one public key"):
        normalise_public_key(f"{full}\n{full}\n")
    with pytest.raises(KeyFileError, match="private key"):
        normalise_public_key(key_path.read_text())
    with pytest.raises(KeyFileError, match="no public key found"):
        normalise_public_key("")
