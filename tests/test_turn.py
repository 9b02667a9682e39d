"""`pbem turn`: a whole turn composed in a real pseudo-terminal, signed with ssh-keygen, accepted."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from crypto_helpers import require_tool
from pipeline_helpers import new_game

from pbem.store.movefile import parse_move
from pbem.core.engine import Rejected
from pbem.pipeline.submit import read_move_files, submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table
from pbem.views.compose import Composer

TOY_PBEM = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); sys.argv[0] = 'pbem'; "
            "from pbem.core import registry; registry.GAMES['toy'] = 'toygame:ToyGame'; "
            "from pbem.cli.group import main; main()")


@pytest.fixture
def toy(tmp_path, key_pool, toy_registered):
    gd = new_game(tmp_path / "moderator", "toy", key_pool, ["red", "blue"])
    copy = tmp_path / "red-copy"
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    return gd, copy


def _spawn(args: list[str], cwd: Path) -> pexpect.spawn:
    # as in a user's terminal, Ctrl-C interrupts (a test runner's worker may ignore SIGINT, and an
    # ignored signal stays ignored across exec)
    return pexpect.spawn(sys.executable, ["-c", TOY_PBEM, *args], cwd=str(cwd), encoding="utf-8", timeout=60,
                         dimensions=(40, 100), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_a_whole_turn_in_a_terminal_then_accepted(toy, key_pool, tmp_path):
    require_tool("ssh-keygen")
    gd, copy = toy
    term = _spawn(["turn", str(copy), "--player", "red", "--key", str(key_pool["red"])], tmp_path)
    term.expect("choice 1:")
    term.expect(r"\[1-2, u, d, q\] > ")
    term.sendline("17")                                     # a wrong number: one line, then asked again
    term.expect("pbem: no choice '17'; 1-2, or u, d, q")
    term.expect("> ")
    term.sendline("")                                       # an empty answer: one line, then asked again
    term.expect("pbem: type a number, or")
    term.expect("> ")
    term.sendline("d")                                      # done with nothing chosen
    term.expect("pbem: nothing chosen yet")
    term.expect("> ")
    term.sendline("1")                                      # {draw: true}: the card is the moderator's to draw
    term.expect("depends on a die roll or a hidden value")
    term.expect("> ")
    term.sendline("u")
    term.expect("undone")
    term.expect("choice 1:")
    term.expect("> ")
    term.sendline("1")
    term.expect("> ")
    term.sendline("d")
    term.expect("checked: ")
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 0, term.before
    raw, sig = read_move_files(tmp_path / "move.yaml", None)
    assert b"- {draw: true}" in raw and sig.startswith("-----BEGIN SSH SIGNATURE-----")
    receipt = submit(gd, raw, sig)                           # the moderator accepts it
    assert receipt.index == 1 and receipt.player == "red"


def test_ctrl_c_stops_with_one_line_and_writes_nothing(toy, key_pool, tmp_path):
    _gd, copy = toy
    term = _spawn(["turn", str(copy), "--player", "red"], tmp_path)
    term.expect("> ")
    term.sendintr()
    term.expect(pexpect.EOF)
    term.close()
    lines = [line for line in term.before.splitlines() if line.strip()]
    assert lines[-1].startswith("pbem: error: interrupted") and term.exitstatus == 130
    assert not (tmp_path / "move.yaml").exists()


def test_json_lines_for_scripts(toy, key_pool, tmp_path):
    _gd, copy = toy
    proc = subprocess.run([sys.executable, "-c", TOY_PBEM, "turn", str(copy), "--player", "red", "--json",
                           "--out", str(tmp_path / "m.yaml")], input="2\nd\n", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert records[0]["choices"][1] == {"n": 2, "action": {"stop": True}, "text": "{stop: true}"}
    # every line says what may be answered: a script learns how to finish a turn (d) from the output
    assert all(set(r["answers"]) == {"N", "u", "d", "q"} for r in records if "step" in r)
    assert "done" in records[0]["answers"]["d"]
    assert records[-1]["done"] is True and records[-1]["actions"] == ["{stop: true}"]
    assert (tmp_path / "m.yaml").read_text().count("- {stop: true}") == 1


def test_private_view_offers_the_players_own_hidden_choices(tmp_path, key_pool):
    """With the key, the composer works on the player's own view (their secrets decrypted)."""
    from pbem.pipeline.turn import player_table
    gd = new_game(tmp_path / "a", "atlantis", key_pool, ["red", "blue"])
    copy = tmp_path / "copy"
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    table, private = player_table(GameDir(copy), "red", key_pool["red"], None)
    assert private
    public = Table.load_public(GameDir(copy))
    assert table.game.view(table.state, "red") != public.game.view(public.state, None)   # red's values known
    composer = Composer(table.game, table.state, "red")
    first = composer.step().choices[0]
    composer.choose(first)
    assert composer.actions == [first]
    with pytest.raises(Rejected, match="not one of the choices"):
        composer.choose({"place": "nobody", "on": "nowhere"})


def test_long_lists_come_in_groups_first(tmp_path, key_pool):
    """800 set-up placements: first the piece, then where (a terminal page each, not 800 lines)."""
    gd = new_game(tmp_path / "a", "atlantis", key_pool, ["red", "blue"])
    copy = tmp_path / "copy"
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    pbem = str(Path(sys.executable).with_name("pbem"))
    proc = subprocess.run([pbem, "turn", str(copy), "--player", "red", "--key", str(key_pool["red"]),
                           "--out", str(tmp_path / "move.yaml")], input="3\nb\n3\n5\nd\n", capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "first pick one of these" in proc.stdout and "(b = back to the groups)" in proc.stdout
    menus = proc.stdout.split("] > ")
    assert max(sum(1 for line in menu.splitlines() if line.strip()[:4].rstrip(")").isdigit()) for menu in menus) <= 60
    receipt = submit(gd, *read_move_files(tmp_path / "move.yaml", None))
    assert receipt.index == 1


def test_a_view_patch_rebuilds_the_private_view_exactly():
    from pbem.views.viewpatch import apply_patch, make_patch, patch_or_whole
    public = {"a": 1, "b": {"x": None, "y": [1, 2]}, "gone": 3}
    private = {"a": 1, "b": {"x": 5, "y": [1, 2]}, "new": {"k": "v"}}
    patch = make_patch(public, private)
    assert patch == {"b": {"x": 5}, "new": {"k": "v"}, "gone": None}
    assert apply_patch(public, patch) == private
    hidden_again = {"a": None, "b": public["b"], "gone": 3}         # null in the private view: no merge patch
    assert patch_or_whole(public, hidden_again) == {"view": hidden_again}


@pytest.mark.parametrize("game", ["atlantis", "atlantis-1986", "space-attack", "space-swarm"])
def test_every_game_composes_its_first_turn_in_the_terminal_and_the_moderator_accepts_it(tmp_path, key_pool, game):
    """`pbem turn --json` on a player's copy with their key: the first choice, done; signed with
    ssh-keygen; `pbem submit` on the moderator's side accepts it."""
    require_tool("ssh-keygen")
    gd = new_game(tmp_path / "moderator", game, key_pool, ["red", "blue"])
    player = Table.load(gd).game.pending(Table.load(gd).state)[0].player
    copy = tmp_path / "copy"
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    pbem = str(Path(sys.executable).with_name("pbem"))
    proc = subprocess.run([pbem, "turn", str(copy), "--player", player, "--key", str(key_pool[player]), "--json",
                           "--out", str(tmp_path / "move.yaml")], input="1\nd\n", capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert records[0]["choices"] and records[-1]["done"] is True
    first = records[0]["choices"][0]["action"]                   # ("text": how it reads, in words)
    assert "{" not in records[0]["choices"][0]["text"]
    raw, sig = read_move_files(tmp_path / "move.yaml", None)
    assert parse_move(raw).actions == [first] and sig.startswith("-----BEGIN SSH SIGNATURE-----")
    receipt = submit(gd, raw, sig)
    assert receipt.index == 1 and receipt.player == player
