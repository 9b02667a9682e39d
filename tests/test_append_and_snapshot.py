"""The log grows by appending; the snapshot names the log and the files derived from it.

* `submit` appends the new entry to log.yaml (one write, flushed) instead of rewriting it;
  a failed append leaves the log as it was; a torn end (a power cut in the middle of the
  append) is cut off by the next command, while an end that is one whole entry (committed,
  then the command stopped) stays and is finished.
* The derived files (digests, secrets, the moderator's caches) are not flushed one by one;
  the snapshot records each one's size and time, so a file a power cut lost is rebuilt by
  the next command (and reported, not silently rewritten, by `pbem audit`).
* The snapshot keeps the public boards a digest compares with, not the whole history.
"""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from pipeline_helpers import new_game, signed_move, table_bot_move

from pbem.base.fsutil import append_durable
from pbem.pipeline.audit import audit
from pbem.pipeline.repair import load_repaired
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table, board_view_indices


@pytest.fixture
def game(tmp_path: Path, key_pool: dict[str, Path], toy_registered: None) -> GameDir:
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])
    for player in ("red", "blue"):
        submit(gd, *signed_move(Table.load(gd), player, [{"draw": True}], key_pool[player]))
    return gd


def test_submit_appends_to_the_log_and_keeps_its_inode(game: GameDir, key_pool: dict[str, Path]) -> None:
    before, inode = game.log_path.read_bytes(), game.log_path.stat().st_ino
    submit(game, *signed_move(Table.load(game), "green", [{"draw": True}], key_pool["green"]))
    after = game.log_path.read_bytes()
    assert after.startswith(before) and len(after) > len(before)
    assert game.log_path.stat().st_ino == inode            # appended, not replaced
    assert audit(game).ok


def test_a_failed_append_leaves_the_log_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.yaml"
    path.write_bytes(b"--- # entry 0\nindex: 0\n")
    real_write = os.write

    def half_then_full_disk(fd: int, data: bytes) -> int:      # the disk fills up in the middle of the entry
        if len(data) > 10:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "write", half_then_full_disk)
    with pytest.raises(OSError):
        append_durable(path, "--- # entry 1\nindex: 1\nkind: move\n")
    assert path.read_bytes() == b"--- # entry 0\nindex: 0\n"


def test_a_torn_end_is_cut_off_and_the_move_taken_again(game: GameDir, key_pool: dict[str, Path]) -> None:
    committed = game.log_path.read_bytes()
    raw, sig = signed_move(Table.load(game), "green", [{"draw": True}], key_pool["green"])
    with open(game.log_path, "ab") as fh:                     # a power cut in the middle of the append
        fh.write(b"--- # entry 3\nindex: 3\nkind: move\nprev: 8f3a")
    table = load_repaired(game)
    assert game.log_path.read_bytes() == committed and table.last["index"] == 2
    assert audit(game).ok
    assert submit(game, raw, sig).index == 3


def test_a_whole_entry_after_the_snapshot_is_committed_and_kept(game: GameDir, key_pool: dict[str, Path],
                                                                 tmp_path: Path) -> None:
    snapshot = game.snapshot_path.read_bytes()
    submit(game, *signed_move(Table.load(game), "green", [{"draw": True}], key_pool["green"]))
    game.snapshot_path.write_bytes(snapshot)                   # the command stopped just after the commit
    table = load_repaired(game)
    assert table.last["index"] == 3 and audit(game).ok
    assert json.loads(game.snapshot_path.read_bytes())["log_bytes"] == game.log_path.stat().st_size


def test_a_derived_file_a_power_cut_lost_is_rebuilt(game: GameDir) -> None:
    digest = game.public_dir / "digest.txt"
    right = digest.read_bytes()
    digest.write_bytes(b"")                                    # renamed into place, its data never flushed
    assert any("public/digest.txt" in p for p in audit(game).problems)   # the audit says so ...
    load_repaired(game)                                        # ... and the next command rebuilds it
    assert digest.read_bytes() == right and audit(game).ok


def test_the_snapshot_keeps_only_the_boards_a_digest_needs(game: GameDir, key_pool: dict[str, Path]) -> None:
    for _ in range(2):                                         # the toy game's whole length
        for player in ("green", "red", "blue"):
            submit(game, *signed_move(Table.load(game), player, [{"draw": True}], key_pool[player]))
    snap = json.loads(game.snapshot_path.read_bytes())
    table = Table.load(game)
    kept = {int(k) for k in snap["board_views"]}
    assert kept == board_view_indices(table.entries) and len(kept) <= 4
    assert max(kept) == table.last["index"]


@pytest.mark.slow(seconds=10)
def test_the_snapshot_does_not_grow_with_the_log(tmp_path: Path, key_pool: dict[str, Path]) -> None:
    """The snapshot keeps the entries a digest still needs, not the history: its size at entry 60
    is about its size at entry 20, and `submit` never parses the whole log."""
    gd = new_game(tmp_path / "g", "atlantis", key_pool, ["red", "blue", "green", "yellow"])
    sizes = {}
    while (index := (table := Table.load(gd)).last["index"]) < 60:
        mv = table_bot_move(table, key_pool)           # bot_move(gd, ...), without loading the table again
        assert mv is not None
        submit(gd, *mv)
        if index + 1 in (20, 60):
            sizes[index + 1] = gd.snapshot_path.stat().st_size
            snap = json.loads(gd.snapshot_path.read_bytes())
            assert len(snap["tail"]) <= 20 and "entries" not in snap     # about one round of the table
    assert sizes[60] < 1.3 * sizes[20]
    table = Table.load(gd)
    assert table.tail_start > 0                              # loaded from the snapshot: the log not parsed
    mv = table_bot_move(table, key_pool)
    assert mv is not None
    submit(gd, *mv)
    assert audit(gd).ok


def test_a_table_from_the_snapshot_says_what_a_replayed_one_says(game: GameDir, key_pool: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    from pbem.crypto import keys
    from pbem.pipeline.moderator import moderate
    moderate(game, "note", "a note")
    moderate(game, "pause", "away")
    moderate(game, "resume", "back")
    new_key = keys.generate_keypair(tmp_path / "green2", "green2")
    moderate(game, "replace-key", "lost key", player="green", new_key=new_key)
    submit(game, *signed_move(Table.load(game), "green", [{"draw": True}], tmp_path / "green2"))
    for player in ("red", "blue"):                             # every reader has moved since entry 5
        submit(game, *signed_move(Table.load(game), player, [{"draw": True}], key_pool[player]))
    snapped = Table.load(game)
    game.snapshot_path.unlink()
    replayed = Table.load(game)
    assert snapped.tail_start > 0 and replayed.tail_start == 0
    for viewer in (None, "red", "blue", "green"):
        assert snapped.since(viewer) == replayed.since(viewer)
        assert snapped.entries_from(snapped.since(viewer)) == replayed.entries_from(replayed.since(viewer))
    assert snapped.notes == [
        {k: e[k] for k in ("index", "kind", "action", "player", "reason", "new_key") if k in e}
        for e in replayed.entries[1:] if e["kind"] != "move"]
    assert snapped.player_keys("green") == replayed.player_keys("green") == [new_key]
    assert (snapped.paused, snapped.seats(), snapped.revealed_at) == (replayed.paused, replayed.seats(), None)
    assert snapped.entries == replayed.entries                # parsed on demand


# --- the atomic write every derived file goes through ----------------------------------------------------------

def test_an_atomic_write_makes_a_missing_folder_replaces_the_file_whole_and_sets_its_mode(tmp_path: Path) -> None:
    from pbem.base.fsutil import temp_files, write_atomic
    path = tmp_path / "new" / "deeper" / "digest.txt"
    write_atomic(path, "first\n", mode=0o640, durable=False)        # the folders do not exist yet
    assert path.read_bytes() == b"first\n" and (path.stat().st_mode & 0o777) == 0o640
    before = path.stat().st_ino
    big = os.urandom(300_000)                                        # more than one write(2) may take
    write_atomic(path, big)                                          # the default mode: a moderator file
    assert path.read_bytes() == big and (path.stat().st_mode & 0o777) == 0o600
    assert path.stat().st_ino != before, "replaced by a rename, not rewritten in place"
    assert temp_files(path.parent) == [] and sorted(os.listdir(path.parent)) == ["digest.txt"]


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    from pbem.base.fsutil import write_atomic
    path = tmp_path / "public" / "view.json"
    write_atomic(path, b"old", mode=0o644)
    with pytest.raises(TypeError):
        write_atomic(path, 12345, mode=0o644)        # type: ignore[arg-type]  # fails once the temporary file is made
    assert path.read_bytes() == b"old" and os.listdir(path.parent) == ["view.json"]
