"""Hardening: bounded YAML, signatures checked before parsing, safe file reads, one-line
refusals with escaped excerpts, one key per seat, game ids, file modes, crash repair."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import tree_snapshot
from pipeline_helpers import new_game, signed_move
from pbem.base import yamlio
from pbem.base.errors import excerpt, one_line
from pbem.base.safefile import UnreadableFile, read_regular_file
from pbem.core.engine import Rejected
from pbem.crypto import keys, sshsig
from pbem.pipeline.audit import audit
from pbem.pipeline.moderator import ModeratorError, moderate
from pbem.pipeline.newgame import NewGameError, PlayerSpec, create_game
from pbem.pipeline.repair import load_repaired, open_game
from pbem.pipeline.submit import read_move_files, submit
from pbem.store.movefile import MAX_ACTIONS
from pbem.store.table import Table

BOMB = b"""format: pbem-move/1
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


#: the pbem command line in a subprocess, with the toy test game registered
PBEM_WITH_TOY = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); sys.argv[0] = 'pbem'; "
                 "from pbem.core import registry; registry.GAMES['toy'] = 'toygame:ToyGame'; "
                 "from pbem.cli.group import main; main()")


@pytest.fixture
def game(tmp_path, key_pool, toy_registered):
    return new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])


def _sign(key: Path, raw: bytes) -> str:
    return sshsig.sign(keys.load_private_key(key), raw, sshsig.MOVE_NAMESPACE)


# --- bounded YAML ----------------------------------------------------------------------

HOSTILE_YAML = {
    "alias bomb": (BOMB, "anchors and aliases"),
    "unhashable key": (b"? [a, b]\n: c\n", "a key must be plain text"),
    "mapping as key": (b"- {play: none}: x\n", "a key must be plain text"),
    "deep nesting": (b"[" * 5000, "nested more than"),
    "python tag": (b"a: !!python/object/apply:os.system [ls]\n", "tags such as"),
    "binary tag": (b"a: !!binary aGVsbG8=\n", "tags such as"),
    "set tag": (b"a: !!set {x, y}\n", "tags such as"),
    "integer key": (b"1: x\n", "a key must be plain text"),
    "duplicate key": (b"a: 1\na: 2\n", "duplicate key"),
    "control character": (b"a: \x1b[31mred\n", "character YAML does not allow"),
    "invalid utf-8": (b"a: \xff\xfe\n", "not UTF-8"),
    "too many values": (b"x: [" + b"1," * 5000 + b"1]\n", "more than"),
    "too big": (b"a: " + b"x" * 70000 + b"\n", "the limit is"),
    "two documents": (b"a: 1\n---\nb: 2\n", "single document"),
}


@pytest.mark.parametrize("pure", [False, True], ids=["libyaml", "pure-python"])
@pytest.mark.parametrize("name", sorted(HOSTILE_YAML))
def test_hostile_yaml_is_one_clean_line(name, pure):
    text, why = HOSTILE_YAML[name]
    with pytest.raises(yamlio.YamlError) as caught:
        yamlio.load_strict(text, "move file", pure=pure)
    message = str(caught.value)
    assert why in message and "\n" not in message and len(message) < 300


def test_both_parsers_read_the_same_values():
    corpus = [b"{place: r7, on: G5, a: no, b: yes, c: off, d: 010, e: true, f: False, g: 1.5, h: 2024-01-01}\n",
              b"actions:\n  - {move: r7, to: G5}\n  - {creature: none}\n  - {x: ~, y: null, z: }\n",
              "name: \"caf\u00e9 \\u00e9\"\nlist: [1, -2, +3, '4']\n".encode(),
              b"a: |\n  literal\n  block\nb: >\n  folded\n  text\n"]
    for text in corpus:
        assert yamlio.load_strict(text, pure=True) == yamlio.load_strict(text, pure=False)
    data = yamlio.load_strict(corpus[0])
    assert data == {"place": "r7", "on": "G5", "a": "no", "b": "yes", "c": "off", "d": 10, "e": True,
                    "f": False, "g": "1.5", "h": "2024-01-01"}   # only the move schema's types


def test_log_entries_read_back_floats_but_no_other_types():
    assert yamlio.load_log_entry("hours: 48.0\nn: 3\n") == {"hours": 48.0, "n": 3}
    with pytest.raises(yamlio.YamlError):
        yamlio.load_log_entry("when: 2024-01-01\n")
    with pytest.raises(yamlio.YamlError, match="anchors"):
        yamlio.load_log_entry("a: &x 1\nb: *x\n")


# --- error lines ----------------------------------------------------------------------

def test_excerpts_escape_control_and_bidi_characters_and_stay_short():
    hostile = "evil\u202e\x1b[2J\n" + "A" * 500
    shown = excerpt(hostile)
    assert "\u202e" not in shown and "\x1b" not in shown and "\n" not in shown
    assert "\\u202e" in shown and len(shown) <= 62
    line = one_line("first\u202eline\nsecond line")
    assert line == "first\\u202eline"


# --- signatures before parsing ---------------------------------------------------------

def test_an_unsigned_bomb_is_refused_without_being_parsed(game, monkeypatch):
    from pbem.store import movefile
    def no_parsing(*_a, **_k):
        raise AssertionError("a stranger's file was parsed")
    monkeypatch.setattr(movefile.yamlio, "load_strict", no_parsing)
    before = tree_snapshot(game.root)
    with pytest.raises(Rejected, match="bad signature"):
        submit(game, BOMB, "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n")
    assert tree_snapshot(game.root) == before


def test_a_strangers_signature_is_refused_before_parsing(game, key_pool, tmp_path):
    keys.generate_keypair(tmp_path / "eve", "eve")
    with pytest.raises(Rejected, match="not the key of any player"):
        submit(game, BOMB, _sign(tmp_path / "eve", BOMB))


def test_a_players_signed_bomb_is_refused_in_one_line(game, key_pool):
    before = tree_snapshot(game.root)
    with pytest.raises(Rejected, match="anchors and aliases") as caught:
        submit(game, BOMB, _sign(key_pool["red"], BOMB))
    assert "\n" not in str(caught.value)
    assert tree_snapshot(game.root) == before


def test_a_move_with_too_many_actions_is_refused(game, key_pool):
    table = Table.load(game)
    raw, sig = signed_move(table, "red", [{"draw": True}] * (MAX_ACTIONS + 1), key_pool["red"])
    with pytest.raises(Rejected, match=f"at most {MAX_ACTIONS}"):
        submit(game, raw, sig)


def test_refusals_echo_only_a_short_escaped_excerpt(game, key_pool):
    table = Table.load(game)
    action = {"dance": "\u202e" + "x" * 5000}
    raw, sig = signed_move(table, "red", [action], key_pool["red"])
    with pytest.raises(Rejected) as caught:
        submit(game, raw, sig)
    message = str(caught.value)
    assert "illegal action 1" in message and len(message) < 400 and "\u202e" not in message


# --- reading files ----------------------------------------------------------------------

def test_a_fifo_a_device_a_folder_and_a_huge_file_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "move.yaml"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_regular_file(fifo, 1000, "move file")
    zero = tmp_path / "zero.yaml"
    zero.symlink_to("/dev/zero")
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_regular_file(zero, 1000, "move file")
    with pytest.raises(UnreadableFile, match="symbolic link"):
        read_regular_file(zero, 1000, "move file", follow_symlinks=False)
    with pytest.raises(UnreadableFile, match="folder"):
        read_regular_file(tmp_path, 1000, "move file")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * 2000)
    with pytest.raises(UnreadableFile, match="limit is 1000"):
        read_regular_file(big, 1000, "move file")


def test_pbem_submit_refuses_a_fifo_in_one_line(game, tmp_path):
    fifo = tmp_path / "move.yaml"
    os.mkfifo(fifo)
    (tmp_path / "move.yaml.sig").write_text("x")
    proc = subprocess.run([sys.executable, "-c", PBEM_WITH_TOY, "submit", str(game.root), str(fifo)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "not a regular file" in proc.stderr
    with pytest.raises(Rejected, match="not a regular file"):
        read_move_files(fifo, None)


# --- seats, ids and file modes --------------------------------------------------------------

def _spec(name: str, key: Path) -> PlayerSpec:
    return PlayerSpec(name, keys.normalise_public_key(key.with_name(key.name + ".pub").read_text()))


def test_one_key_cannot_take_two_seats(tmp_path, key_pool, toy_registered):
    with pytest.raises(NewGameError, match="the same key"):
        create_game(tmp_path / "g", "toy", [_spec("red", key_pool["red"]), _spec("blue", key_pool["red"])], {})
    assert not (tmp_path / "g").exists()


def test_replace_key_refuses_another_seats_key(game, key_pool):
    blue_pub = key_pool["blue"].with_name("blue.pub").read_text()
    with pytest.raises(ModeratorError, match="blue's"):
        moderate(game, "replace-key", "lost laptop", player="red", new_key=blue_pub)


@pytest.mark.parametrize("bad", ["a/b", "two\nlines", "x" * 65, "-dash", ""])
def test_game_ids_are_checked(tmp_path, key_pool, toy_registered, bad):
    with pytest.raises(NewGameError, match="game id"):
        create_game(tmp_path / "g", "toy", [_spec("red", key_pool["red"]), _spec("blue", key_pool["blue"])], {},
                    game_id=bad)


def test_public_files_follow_the_umask_and_private_ones_stay_0600(tmp_path, key_pool, toy_registered):
    old = os.umask(0o002)
    try:
        gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])
        table = Table.load(gd)
        submit(gd, *signed_move(table, "red", [{"draw": True}], key_pool["red"]))
    finally:
        os.umask(old)

    def mode(rel: str) -> int:
        return stat.S_IMODE((gd.root / rel).stat().st_mode)
    assert mode(".") == 0o775
    for public in ["log.yaml", "public/digest.txt", "public/view.json", "moves/000001-red.yaml"]:
        assert mode(public) == 0o664, public
    for private in ["secrets/red.age", "moderator/seed", "moderator/snapshot.json", "moderator/moderator_ed25519"]:
        assert mode(private) == 0o600, private


# --- crashes ------------------------------------------------------------------------------------

def _cli_submit(gd, raw: bytes, sig: str, tmp_path: Path, fault: str) -> subprocess.CompletedProcess[str]:
    move = tmp_path / "move.yaml"
    move.write_bytes(raw)
    (tmp_path / "move.yaml.sig").write_text(sig)
    env = {**os.environ, "PBEM_FAULT": fault}
    return subprocess.run([sys.executable, "-c", PBEM_WITH_TOY, "submit", str(gd.root), str(move)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_a_crash_before_the_commit_leaves_nothing_and_the_move_can_be_sent_again(game, key_pool, tmp_path):
    raw, sig = signed_move(Table.load(game), "red", [{"draw": True}], key_pool["red"])
    proc = _cli_submit(game, raw, sig, tmp_path, "kill-rename:log.yaml")
    assert proc.returncode == -9
    assert list(game.moves_dir.iterdir()) and len(game.entries()) == 1   # a stray archive, nothing committed
    before = tree_snapshot(game.root)
    report = audit(game)                                                # audit only reports it ...
    assert report.ok and any("moves/000001-red.yaml is the archive of a move that never reached the log" in n
                             for n in report.notes), report.notes
    assert tree_snapshot(game.root) == before
    load_repaired(game)                                                 # ... the next command removes it
    assert list(game.moves_dir.iterdir()) == []
    receipt = submit(game, raw, sig)                                    # the same move, accepted now
    assert receipt.index == 1 and audit(game).ok


def test_a_crash_after_the_commit_is_finished_by_the_next_command(game, key_pool, tmp_path):
    raw, sig = signed_move(Table.load(game), "red", [{"draw": True}], key_pool["red"])
    proc = _cli_submit(game, raw, sig, tmp_path, "kill:committed")
    assert proc.returncode == -9 and len(game.entries()) == 2
    with open_game(game) as table:
        assert table.last["index"] == 1
    assert audit(game).ok
    with pytest.raises(Rejected, match="already accepted as log entry 1"):
        submit(game, raw, sig)


def test_a_full_disk_is_one_line_and_loses_nothing(game, key_pool, tmp_path):
    raw, sig = signed_move(Table.load(game), "red", [{"draw": True}], key_pool["red"])
    before = tree_snapshot(game.root)
    proc = _cli_submit(game, raw, sig, tmp_path, "enospc:log.yaml")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "no space left" in proc.stderr and "nothing was committed" in proc.stderr
    left = tree_snapshot(game.root)
    assert audit(game).ok and tree_snapshot(game.root) == left           # the audit reports, changes nothing
    load_repaired(game)                                                  # the next command repairs
    assert tree_snapshot(game.root) == before
    submit(game, raw, sig)
