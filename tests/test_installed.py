"""The commands as a user runs them: the installed `pbem` program, the real ssh-keygen and age."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pbem
from pbem.base.data import games_dir, templates_dir

IN_VENV = sys.prefix != sys.base_prefix


def pbem_cmd() -> list[str]:
    script = Path(sys.executable).with_name("pbem")
    if IN_VENV:
        assert script.exists(), "the pbem console script is not installed in this environment"
        return [str(script)]
    return [sys.executable, "-m", "pbem"]


def run(*args, cwd=None, ok=True, process=True):
    """`pbem ARGS` as the installed program in a process of its own; with ``process=False``, the same
    command in this process through click's CliRunner (for a command whose process was run already)."""
    if process:
        proc = subprocess.run(pbem_cmd() + [str(a) for a in args], capture_output=True, text=True, cwd=cwd)
    else:
        from click.testing import CliRunner
        from pbem.cli.group import main
        assert cwd is None
        result = CliRunner().invoke(main, [str(a) for a in args])
        proc = subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_data_is_found_next_to_the_installed_package():
    assert (templates_dir() / "digest.txt.j2").is_file()
    assert (games_dir() / "atlantis" / "board.yaml").is_file()
    if IN_VENV and "site-packages" in pbem.__file__:
        assert Path(pbem.__file__).parent in templates_dir().parents


def test_help_and_version():
    assert "Example" in run("--help").stdout
    assert pbem.__version__ in run("--version").stdout


@pytest.mark.slow(seconds=7)
def test_players_use_only_ssh_keygen_and_age(tmp_path):
    """A 2-player Atlantis game where players sign with ssh-keygen and read secrets with age."""
    for name in ("alice", "bob"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", tmp_path / name], check=True)
    game = tmp_path / "game"
    run("new", game, "--game", "atlantis", "--player", f"red={tmp_path / 'alice.pub'}",
        "--player", f"blue={tmp_path / 'bob.pub'}", "--seed", "11" * 32)
    plain = subprocess.run(["age", "-d", "-i", tmp_path / "alice", game / "secrets" / "red.age"],
                           capture_output=True, text=True, check=True).stdout
    assert "Your secrets" in plain
    denied = subprocess.run(["age", "-d", "-i", tmp_path / "bob", game / "secrets" / "red.age"], capture_output=True)
    assert denied.returncode != 0
    for turn in range(6):
        process = turn == 0         # each command once as the installed program; then in this process
        status = json.loads(run("status", game, "--json", process=process).stdout)
        assert isinstance(status["turn"], int) and status["over"] is False
        player = status["waiting_for"][0]
        key = tmp_path / ("alice" if player == "red" else "bob")
        move = tmp_path / f"{player}.yaml"
        for f in (move, move.with_name(move.name + ".sig")):
            if f.exists():
                f.unlink()
        run("move", game, "--player", player, "--out", move, process=process)
        subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "pbem-move", "-f", key, move], check=True)
        # the moderator can check it by hand with ssh-keygen too
        allowed = tmp_path / "allowed_signers"
        allowed.write_text(f"{player} namespaces=\"pbem-move\" {(key.with_suffix('.pub')).read_text()}")
        with open(move, "rb") as fh:
            subprocess.run(["ssh-keygen", "-Y", "verify", "-f", allowed, "-I", player, "-n", "pbem-move", "-s",
                            f"{move}.sig"], stdin=fh, check=True, capture_output=True)
        assert "accepted" in run("submit", game, move, process=process).stdout
    # a player's copy (no moderator folder) lists legal actions and lets a bot write a move
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(game, copy, ignore=shutil.ignore_patterns("moderator"))
    waiting = json.loads(run("status", copy, "--json").stdout)["waiting_for"][0]
    assert "from the public view" in run("legal", copy, "--player", waiting).stdout
    run("move", copy, "--player", waiting, "--bot", "greedy", "--out", tmp_path / "from-copy.yaml")
    bad = run("submit", game, move, ok=False)
    assert bad.returncode == 1 and bad.stderr.startswith("pbem: error: rejected:") and bad.stdout == ""
    assert "audit passed" in run("audit", game).stdout
