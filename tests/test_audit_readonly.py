"""`pbem audit` only reads, on every copy (issue 18, item 5).

* A log cut back (its last entry removed) is a problem on the moderator's copy and on a player's,
  naming the archived moves no entry refers to, and the audit deletes nothing.
* For each kind of leftover an interrupted command legitimately leaves (temporary files, a torn
  end of the log, the archive of a move that never reached the log, digests that lag the log)
  the audit passes with a note saying what the next moderator command would do, and changes no
  file: every name under the game folder, its bytes, mode and modification time are compared
  before and after; the audit also runs on the game folder made read-only (a read-only bind
  mount as root, `chmod -R a-w` otherwise).  The next moderator command then repairs as before.
* A copy with no snapshot (a fresh clone, as a CI moderator has) reports a changed digest
  instead of rewriting it.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest
from click.testing import CliRunner
from conftest import disk_state
from pipeline_helpers import new_game, signed_move

from pbem.cli.group import main
from pbem.pipeline.audit import AuditReport, audit
from pbem.pipeline.repair import load_repaired
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

PBEM_WITH_TOY = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); sys.argv[0] = 'pbem'; "
                 "from pbem.core import registry; registry.GAMES['toy'] = 'toygame:ToyGame'; "
                 "from pbem.cli.group import main; main()")


@pytest.fixture
def game(tmp_path: Path, key_pool: dict[str, Path], toy_registered: None) -> GameDir:
    """A toy game at entry 3: red, blue and green have drawn (three archived moves)."""
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])
    for player in ("red", "blue", "green"):
        submit(gd, *signed_move(Table.load(gd), player, [{"draw": True}], key_pool[player]))
    return gd


def cut_last_entry(gd: GameDir) -> None:
    """What a moderator who rolls the game back does to the log: the last entry is gone."""
    text = gd.log_path.read_text()
    gd.log_path.write_text(text[:text.rindex("--- # entry ")])


def audited(root: Path) -> AuditReport:
    """Audit ``root`` and prove that nothing under it changed (names, bytes, modes, times)."""
    before = disk_state(root)
    report = audit(GameDir(root))
    assert disk_state(root) == before, "the audit changed the game folder"
    return report


# --- a log cut back --------------------------------------------------------------------------------------------------

def test_a_truncated_log_on_the_moderators_copy_is_a_problem_and_nothing_is_deleted(game: GameDir) -> None:
    cut_last_entry(game)
    report = audited(game.root)
    assert not report.ok
    for name in ("moves/000003-green.yaml", "moves/000003-green.yaml.sig"):
        assert any(p.startswith(f"{name} is an archived move that no entry of the log refers to")
                   and "the log looks cut back" in p for p in report.problems), report.problems
    assert any(p.startswith("log.yaml is shorter") and "entry 3" in p for p in report.problems), report.problems
    assert (game.moves_dir / "000003-green.yaml").is_file() and (game.moves_dir / "000003-green.yaml.sig").is_file()
    before = disk_state(game.root)
    result = CliRunner().invoke(main, ["audit", str(game.root)])          # the command says so and fails
    assert result.exit_code == 1 and "FAIL: moves/000003-green.yaml is an archived move" in result.output
    assert disk_state(game.root) == before


def test_after_a_cut_back_log_every_moderator_command_refuses_and_destroys_no_evidence(game: GameDir) -> None:
    """A crash never makes the log shorter than the snapshot's: the next command does not "repair"
    that (it would delete the players' signed moves); it stops with one line and changes nothing."""
    cut_last_entry(game)
    before = disk_state(game.root)
    for command in (["status", str(game.root)], ["legal", str(game.root), "--player", "red"], ["show", str(game.root)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code != 0, (command, result.output)
        line = result.output.strip()
        assert line.count("\n") == 0 and "log.yaml is shorter" in line and "nothing was changed" in line, line
        assert "restore log.yaml from a good copy" in line, line
        assert disk_state(game.root) == before, command
    # going on from the shorter log is the moderator's explicit choice: as the line says
    game.snapshot_path.unlink()
    for name in ("000003-green.yaml", "000003-green.yaml.sig"):
        (game.moves_dir / name).rename(game.root.parent / name)
    result = CliRunner().invoke(main, ["status", str(game.root)])
    assert result.exit_code == 0, result.output


def test_a_truncated_log_on_a_players_copy_is_a_problem_and_nothing_is_deleted(game: GameDir,
                                                                                tmp_path: Path) -> None:
    copy = tmp_path / "players-copy"
    shutil.copytree(game.root, copy, ignore=shutil.ignore_patterns("moderator"))
    assert audited(copy).ok
    cut_last_entry(GameDir(copy))
    report = audited(copy)
    assert any(p.startswith("moves/000003-green.yaml is an archived move that no entry of the log refers to")
               and "the log looks cut back" in p for p in report.problems), report.problems
    assert not (copy / "moderator").exists()                              # not even a lock file


def test_entries_after_the_snapshots_log_are_a_problem(game: GameDir, key_pool: dict[str, Path]) -> None:
    """No command appends two entries without writing the snapshot: the audit says so, where a
    repair would cut them off as a torn end."""
    snapshot = game.snapshot_path.read_bytes()
    for player in ("red", "blue"):
        submit(game, *signed_move(Table.load(game), player, [{"draw": True}], key_pool[player]))
    game.snapshot_path.write_bytes(snapshot)
    report = audited(game.root)
    assert any("log.yaml holds 2 entries or pieces after the log the moderator's snapshot was made from" in p
               for p in report.problems), report.problems


# --- leftovers: notes, and nothing changed -----------------------------------------------------------------------

def _cli_submit(gd: GameDir, raw: bytes, sig: str, where: Path, fault: str) -> None:
    """`pbem submit`, killed by the fault injection at ``fault`` (docs/moderating.md)."""
    move = where / "move.yaml"
    move.write_bytes(raw)
    (where / "move.yaml.sig").write_text(sig)
    proc = subprocess.run([sys.executable, "-c", PBEM_WITH_TOY, "submit", str(gd.root), str(move)],
                          capture_output=True, text=True, env={**os.environ, "PBEM_FAULT": fault}, timeout=120)
    assert proc.returncode == -9, proc.stderr


def temp_files(gd: GameDir, key_pool: dict[str, Path], where: Path) -> list[str]:
    """A kill between a digest's temporary file and its rename (just past the commit), and
    temporary files beside the log, an archive and a secret."""
    raw, sig = signed_move(Table.load(gd), "red", [{"draw": True}], key_pool["red"])
    _cli_submit(gd, raw, sig, where, "kill-rename:public/board.svg")
    for path in (gd.root / ".log.yaml.0a1b2c3d4e5f.tmp", gd.moves_dir / ".000004-red.yaml.a1b2c3d4e5f6.tmp",
                 gd.secrets_dir / ".red.age.f6e5d4c3b2a1.tmp"):
        path.write_bytes(b"half a file")
    return ["public/.board.svg.", ".log.yaml.0a1b2c3d4e5f.tmp is a temporary file",
            "moves/.000004-red.yaml.a1b2c3d4e5f6.tmp is a temporary file",
            "secrets/.red.age.f6e5d4c3b2a1.tmp is a temporary file"]


def torn_end(gd: GameDir, key_pool: dict[str, Path], where: Path) -> list[str]:
    """A power cut in the middle of an append (a kill cannot leave one: the append is one write)."""
    with open(gd.log_path, "ab") as fh:
        fh.write(b"--- # entry 4\nindex: 4\nkind: move\nprev: 8f3a")
    return ["log.yaml ends in a torn piece of an entry after entry 3", "would cut it off"]


def stray_archive(gd: GameDir, key_pool: dict[str, Path], where: Path) -> list[str]:
    """A submit killed after archiving the move, before the log write (the commit)."""
    raw, sig = signed_move(Table.load(gd), "red", [{"draw": True}], key_pool["red"])
    _cli_submit(gd, raw, sig, where, "kill-rename:log.yaml")
    return ["moves/000004-red.yaml is the archive of a move that never reached the log",
            "moves/000004-red.yaml.sig is the archive of a move that never reached the log"]


def stale_digests(gd: GameDir, key_pool: dict[str, Path], where: Path) -> list[str]:
    """A submit killed just past its commit: the digests and secrets show the entry before."""
    raw, sig = signed_move(Table.load(gd), "red", [{"draw": True}], key_pool["red"])
    _cli_submit(gd, raw, sig, where, "kill:committed")
    return ["were written for entry 3; entry 4 was committed after them", "would rewrite them",
            "public/digest.txt, public/digest.html, public/board.svg, public/view.json, secrets/red.age",
            "differ from what the log produces: they lag the log; the next moderator command would rewrite them"]


LEFTOVERS: dict[str, Callable[[GameDir, dict[str, Path], Path], list[str]]] = {
    "temp files": temp_files, "torn end": torn_end, "stray archive": stray_archive, "stale digests": stale_digests}


@contextlib.contextmanager
def read_only(root: Path, where: Path) -> Iterator[Path]:
    """``root`` where nothing can be written: a read-only bind mount as root (root ignores file
    modes), the tree made read-only (`chmod -R a-w`) otherwise."""
    if os.geteuid() == 0:
        mount = where / "read-only"
        mount.mkdir()
        done = subprocess.run(["mount", "--bind", str(root), str(mount)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"root, but no bind mount here ({done.stderr.strip()}); the byte-for-byte comparison stands")
        try:
            done = subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            with pytest.raises(OSError):
                (mount / "probe").write_text("x")               # it is read-only indeed
            yield mount
        finally:
            subprocess.run(["umount", str(mount)], check=True)
        return
    modes = {path: path.stat().st_mode for path in [root, *root.rglob("*")] if not path.is_symlink()}
    for path in sorted(modes, key=lambda p: -len(p.parts)):     # the files before their folders
        path.chmod(modes[path] & ~0o222)
    try:
        with pytest.raises(OSError):
            (root / "probe").write_text("x")
        yield root
    finally:
        for path in sorted(modes, key=lambda p: len(p.parts)):
            path.chmod(modes[path])


@pytest.mark.parametrize("make", list(LEFTOVERS.values()), ids=list(LEFTOVERS))
def test_audit_reports_each_leftover_and_changes_nothing(game: GameDir, key_pool: dict[str, Path], tmp_path: Path,
                                                          make: Callable[[GameDir, dict[str, Path], Path], list[str]]
                                                          ) -> None:
    expected = make(game, key_pool, tmp_path)
    report = audited(game.root)
    assert report.ok, report.problems
    for words in expected:
        assert any(words in note for note in report.notes), (words, report.notes)

    with read_only(game.root, tmp_path) as root:                # the same on a copy nobody can write
        assert audit(GameDir(root)) == report
        result = CliRunner().invoke(main, ["audit", str(root)])
        assert result.exit_code == 0 and result.output.rstrip().endswith("audit passed"), result.output

    load_repaired(game)                                         # the next moderator command repairs, as ever
    again = audited(game.root)
    assert again.ok and not any("the next moderator command would" in n for n in again.notes), again.notes
    assert not [p for p in game.root.rglob("*") if p.name.endswith(".tmp")]


# --- a fresh clone: nothing to go by but the log -----------------------------------------------------------------

def test_a_changed_digest_on_a_copy_without_a_snapshot_is_a_problem_not_rewritten(game: GameDir) -> None:
    """A CI moderator starts from a fresh clone (no moderator/snapshot.json) and audits before it
    takes moves: a digest a player changed is reported, not quietly rewritten."""
    game.snapshot_path.unlink()
    digest = game.public_dir / "digest.txt"
    digest.write_text(digest.read_text().replace("red", "r3d"))
    report = audited(game.root)
    assert "public/digest.txt differs from what the log produces" in report.problems, report.problems
