"""The command line, through click's CliRunner, on the toy game and with the real ssh-keygen."""
from __future__ import annotations

import json
import re
import subprocess

import pytest
from click.testing import CliRunner

from conftest import tree_snapshot
from pbem.cli.group import main

def leaf_commands(group=main, prefix=()):
    """Every runnable command, e.g. ("mod", "pause"), found by walking the click tree."""
    import click
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            yield from leaf_commands(cmd, prefix + (name,))
        else:
            yield prefix + (name,)


COMMANDS = list(leaf_commands())


def run(*args, ok=True):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_the_command_tree_is_complete():
    names = {" ".join(c) for c in COMMANDS}
    assert {"new", "submit", "audit", "seal", "tick", "mod pause", "mod undo", "mail run", "git sync"} <= names


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_every_command_has_help_with_an_example(command):
    out = run(*command, "--help").output
    assert "Example" in out


@pytest.mark.parametrize("command", [("new",), ("simulate",)])
def test_the_game_option_names_every_installed_game(command):
    """`--game`'s help says which games there are (it once sent the reader to another command's help,
    which sent them to the README): every game pbem installs, and nothing that is not a game."""
    from pbem.core.registry import _entry_points
    installed = sorted(_entry_points("pbem.games"))
    assert installed == ["atlantis", "atlantis-1986", "space-attack", "space-swarm"]
    text = " ".join(run(*command, "--help").output.split())
    named = re.search(r"--game TEXT which game: (.*?) \(and any installed plug-in game\)", text)
    assert named is not None, text
    assert re.split(r", | or ", named.group(1)) == installed


@pytest.fixture
def cli_game(tmp_path, key_pool, toy_registered):
    game = tmp_path / "game"
    run("new", game, "--game", "toy", "--player", f"red={key_pool['red']}.pub",
        "--player", f"blue={key_pool['blue']}.pub", "--seed", "ab" * 32)
    return game


def _move(game, player, tmp_path, key_pool, use_ssh_keygen=False):
    out = tmp_path / f"{player}.yaml"
    for stale in (out, out.with_name(out.name + ".sig")):
        if stale.exists():
            stale.unlink()
    run("move", game, "--player", player, "--out", out)
    if use_ssh_keygen:
        subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "pbem-move", "-f", key_pool[player], out], check=True)
    else:
        run("sign", out, "--key", key_pool[player])
    return out


def test_a_game_through_the_cli(cli_game, tmp_path, key_pool):
    status = json.loads(run("status", cli_game, "--json").output)
    assert {"turn", "waiting_for", "over"} <= set(status) and status["waiting_for"] == ["red"]
    assert "- {draw: true}" in run("legal", cli_game, "--player", "red").output
    turn = 0
    while not json.loads(run("status", cli_game, "--json").output)["over"]:
        player = json.loads(run("status", cli_game, "--json").output)["waiting_for"][0]
        mv = _move(cli_game, player, tmp_path, key_pool, use_ssh_keygen=(turn % 2 == 0))
        assert "log position" in run("check", cli_game, mv).output
        assert "accepted" in run("submit", cli_game, mv).output
        turn += 1
    status = json.loads(run("status", cli_game, "--json").output)
    assert status["over"] and "scores" in status
    secrets = run("decrypt", cli_game / "secrets" / "red.age", "--key", key_pool["red"]).output
    assert "Your secrets" in secrets
    assert "revealed" in run("reveal", cli_game).output
    assert "audit passed" in run("audit", cli_game).output


def test_show_formats(cli_game):
    assert "Board" in run("show", cli_game).output
    assert "<svg" in run("show", cli_game, "--format", "html").output
    view = json.loads(run("show", cli_game, "--format", "json").output)
    assert all(card is None for card in view["deck"])
    full = json.loads(run("show", cli_game, "--full", "--format", "json").output)
    assert sorted(full["deck"]) == list(range(1, 21))


def test_full_position_round_trips_through_new(cli_game, tmp_path, key_pool, toy_registered):
    pos_file = tmp_path / "pos.yaml"
    pos_file.write_text(run("show", cli_game, "--full").output)
    other = tmp_path / "from-position"
    run("new", other, "--game", "toy", "--player", f"red={key_pool['red']}.pub",
        "--player", f"blue={key_pool['blue']}.pub", "--position", pos_file)
    assert run("show", other, "--full").output == pos_file.read_text()


def test_errors_are_one_line_with_nonzero_exit(tmp_path, cli_game, key_pool):
    cases = [
        ("status", tmp_path / "nothing"),
        ("new", tmp_path / "x", "--game", "chess", "--player", f"red={key_pool['red']}.pub"),
        ("new", cli_game, "--game", "toy", "--player", f"red={key_pool['red']}.pub"),
        ("new", tmp_path / "y", "--game", "toy", "--player", "red=/no/such.pub", "--player", "b=/no.pub"),
        ("new", tmp_path / "z", "--game", "toy", "--player", f"red={key_pool['red']}.pub",
         "--player", f"blue={key_pool['blue']}.pub", "--option", "limit=9"),
        ("keygen", "--out", key_pool["red"]),
        ("submit", cli_game, tmp_path / "missing.yaml"),
        ("sign", tmp_path / "missing.yaml", "--key", key_pool["red"]),
    ]
    for args in cases:
        result = run(*args, ok=False)
        assert result.exit_code != 0, args
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("pbem: error:"), (args, result.output)
    assert not (tmp_path / "x").exists() and not (tmp_path / "z").exists()


def test_rejected_submit_exits_nonzero_and_changes_nothing(cli_game, tmp_path, key_pool):
    mv = _move(cli_game, "red", tmp_path, key_pool)
    mv.write_text(mv.read_text().replace("player: red", "player: blue"))
    before = tree_snapshot(cli_game)
    result = run("submit", cli_game, mv, ok=False)
    assert result.exit_code == 1 and result.output.startswith("pbem: error: rejected: bad signature")
    assert tree_snapshot(cli_game) == before


def test_sign_is_byte_identical_to_ssh_keygen(tmp_path, key_pool):
    f = tmp_path / "m.yaml"
    f.write_text("format: pbem-move/1\n")
    run("sign", f, "--key", key_pool["red"])
    ours = (tmp_path / "m.yaml.sig").read_text()
    (tmp_path / "m.yaml.sig").unlink()
    subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "pbem-move", "-f", key_pool["red"], f], check=True)
    assert (tmp_path / "m.yaml.sig").read_text() == ours


def test_a_players_copy_without_the_seed(cli_game, tmp_path, key_pool):
    import shutil
    copy = tmp_path / "players-copy"
    shutil.copytree(cli_game, copy, ignore=shutil.ignore_patterns("moderator"))
    assert "Board" in run("show", copy).output
    out = run("legal", copy, "--player", "red").output
    assert "from the public view" in out and "- {draw: true}" in out
    mv = _move(copy, "red", tmp_path, key_pool)
    assert "signature by red's key is valid" in run("check", copy, mv).output
    result = run("show", copy, "--full", ok=False)
    assert result.exit_code == 1 and "only the moderator" in result.output
    assert "accepted" in run("submit", cli_game, mv).output


def test_a_bot_that_cannot_see_the_choices_says_so(cli_game, tmp_path, monkeypatch):
    """On a player's copy, a decision whose choices depend on hidden tiles is not 'no decision'."""
    import shutil

    from pbem.game import NeedsSecret
    from toygame import ToyGame
    copy = tmp_path / "players-copy"
    shutil.copytree(cli_game, copy, ignore=shutil.ignore_patterns("moderator"))

    def hidden(self, state, player):
        raise NeedsSecret("the choices depend on your hand")
    monkeypatch.setattr(ToyGame, "legal_actions", hidden)
    result = run("move", copy, "--player", "red", "--out", tmp_path / "m.yaml", ok=False)
    assert result.exit_code == 1 and "red has a decision to make, but its choices depend on hidden" in result.output
    result = run("move", copy, "--player", "blue", "--out", tmp_path / "m.yaml", ok=False)
    assert "blue has no decision to make now" in result.output


def test_click_usage_errors_are_pbem_error_lines_too():
    for args, expected in [(["submit"], "Missing argument 'GAME_DIR'"), (["nosuch"], "No such command 'nosuch'"),
                           (["status", "--bogus"], "No such option '--bogus'")]:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("pbem: error: ") and expected in lines[0], result.output
        assert "Error:" not in result.output and "Usage:" not in result.output


def test_text_digests_wrap_prose_at_78_columns(tmp_path, key_pool):
    game = tmp_path / "a"
    run("new", game, "--game", "atlantis", "--player", f"red={key_pool['red']}.pub",
        "--player", f"blue={key_pool['blue']}.pub", "--player", f"green={key_pool['green']}.pub",
        "--player", f"yellow={key_pool['yellow']}.pub", "--option", "dolphins=yes", "--option", "squid=yes")
    text = (game / "public" / "digest.txt").read_text()
    before_board, _, rest = text.partition("\nBoard\n-----\n")
    after_board = rest[rest.index("\nWhat happened\n"):]
    for line in (before_board + after_board).splitlines():
        assert len(line) <= 78 or " " not in line.strip(), line     # only an unbreakable word may be longer


def test_shell_completion_completes_commands():
    """README's completion set-up works: bash asks, pbem answers with the matching commands."""
    import os
    import sys
    from pathlib import Path
    pbem = str(Path(sys.executable).with_name("pbem"))
    env = {**os.environ, "_PBEM_COMPLETE": "bash_complete", "COMP_WORDS": "pbem sub", "COMP_CWORD": "1"}
    out = subprocess.run([pbem], env=env, capture_output=True, text=True, check=True).stdout
    assert "plain,submit" in out.splitlines()
