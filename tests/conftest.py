"""Shared fixtures: real keys, and a registry that also knows the toy test game."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from pbem import registry
from pbem.crypto import keys


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, "toy", "toygame:ToyGame")


@pytest.fixture(scope="session")
def key_pool(tmp_path_factory) -> dict[str, Path]:
    """ed25519 keys for up to six players, made once per test session."""
    folder = tmp_path_factory.mktemp("keys")
    pool = {}
    for name in ["red", "blue", "green", "yellow", "purple", "orange", "mallory"]:
        keys.generate_keypair(folder / name, f"{name}@test")
        pool[name] = folder / name
    return pool


def tree_snapshot(root: Path) -> dict[str, str]:
    """Hash of every file under root, to prove nothing changed on disk."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="session")
def dovecot():
    """A real Dovecot IMAP server for the mail tests, started once per test session."""
    from mailservers import start_dovecot

    server = start_dovecot()
    yield server
    server.stop()


@pytest.fixture
def world(tmp_path, key_pool, toy_registered, dovecot):
    """A toy game with three players, its moderator's inbox on Dovecot and SMTP over STARTTLS."""
    from mailservers import start_world

    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="starttls")
    yield w
    w.smtp.stop()
