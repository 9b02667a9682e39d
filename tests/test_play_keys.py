"""`pbem play` with a passphrase-protected key: opened once (the passphrase asked, never stored),
it opens the player's secrets and signs; with the key in a real ssh-agent, the real
`ssh-keygen -Y sign` signs through the agent."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from crypto_helpers import require_tool
from test_git_helpers import GAME, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.cli.group import main
from pbem.client import config as settings
from pbem.client.server import PlayApp
from pbem.client.unlock import UnlockError, unlock

PASSPHRASE = "correct horse battery"


@pytest.fixture
def locked(tmp_path, key_pool, toy_registered, monkeypatch):
    """A git game whose red seat has a passphrase-protected key, added with `pbem play init`."""
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    key = tmp_path / "red-locked"
    subprocess.run([require_tool("ssh-keygen"), "-q", "-t", "ed25519", "-N", PASSPHRASE, "-C", "red", "-f", str(key)],
                   check=True)
    shared = make_shared(tmp_path, {**key_pool, "red": key})
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(shared.players["red"].clone),
                                       "--game-dir", GAME, "--player", "red", "--key", str(key)])
    assert result.exit_code == 0, result.output
    return shared, key


def test_a_wrong_passphrase_is_asked_again_then_refused_in_one_line(locked):
    _shared, key = locked
    asked: list[str] = []
    answers = iter(["wrong", PASSPHRASE])
    unlocked = unlock(settings.load(), lambda prompt: asked.append(prompt) or next(answers))
    assert asked == [f"passphrase for {key}"] * 2 and list(unlocked.keys) == [key]
    with pytest.raises(UnlockError, match=rf"^the passphrase does not open {key} \(3 tries\); nothing was opened$"):
        unlock(settings.load(), lambda prompt: "wrong")


def _turn(app: PlayApp, shared) -> str:
    step = app.step({"game": "club", "actions": []})
    assert step["notes"] == []                                     # the secrets opened: the private view
    sent = app.send({"game": "club", "actions": [{"stop": True}]})
    return shared.sync().output + sent["sent"]


def test_the_opened_key_reads_the_secrets_and_signs_without_an_agent(locked):
    shared, key = locked
    app = PlayApp(settings.load(), unlocked=unlock(settings.load(), lambda prompt: PASSPHRASE))
    assert app.unlocked.signer(key) is not None                    # no agent: signed in memory
    out = _turn(app, shared)
    assert "accepted red/entry-0000.yaml: entry 1" in out
    assert PASSPHRASE not in Path(os.environ["PBEM_PLAY_CONFIG"]).read_text()


def test_with_the_key_in_a_real_ssh_agent_ssh_keygen_signs_through_it(locked, tmp_path, monkeypatch):
    shared, key = locked
    sock = tmp_path / "agent.sock"
    agent = subprocess.Popen([require_tool("ssh-agent"), "-D", "-a", str(sock)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if sock.exists():
                break
            time.sleep(0.05)
        askpass = tmp_path / "askpass"
        askpass.write_text(f"#!/bin/sh\necho '{PASSPHRASE}'\n")
        askpass.chmod(0o700)
        env = {**os.environ, "SSH_AUTH_SOCK": str(sock), "SSH_ASKPASS": str(askpass),
               "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"}
        subprocess.run([require_tool("ssh-add"), str(key)], env=env, check=True, capture_output=True,
                       stdin=subprocess.DEVNULL)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))
        app = PlayApp(settings.load(), unlocked=unlock(settings.load(), lambda prompt: PASSPHRASE))
        assert app.unlocked.signer(key) is None                    # the agent holds it: ssh-keygen signs
        assert "accepted red/entry-0000.yaml: entry 1" in _turn(app, shared)
    finally:
        agent.send_signal(signal.SIGTERM)
        agent.wait(timeout=10)
