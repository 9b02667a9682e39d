"""A host's index of its games (pbem/transport/mail/hoststate.py): which folders are games, their
ids read from the header alone, and the stamps that let an idle game cost one stat."""
from __future__ import annotations

import os

from pipeline_helpers import new_game

from pbem.transport.mail.hoststate import GameIndex, game_folders, header_id


def test_the_index_reads_each_header_once_and_only_the_header(tmp_path, key_pool, toy_registered):
    host = tmp_path / "host"
    gd = new_game(host / "one", "toy", key_pool, ["red", "blue"], seed=b"1" * 32)
    new_game(host / "two", "toy", key_pool, ["red", "blue"], seed=b"2" * 32)
    (host / "not-a-game").mkdir()
    (host / ".hidden").mkdir()
    (host / ".hidden" / "log.yaml").write_text("x")
    os.symlink(gd.root, host / "linked")                      # a link is not followed: no game twice
    found = game_folders(host)
    assert sorted(found) == ["one", "two"]

    # only the header is read: what follows it may be anything
    game_id = gd.entries()[0]["id"]
    with open(gd.log_path, "ab") as fh:
        fh.write(b"--- # entry 1\n" + b"\xff\xfe not even text\n" * 1000)
    assert header_id(gd.log_path) == game_id

    index = GameIndex.load(host)
    found = game_folders(host)
    assert index.refresh(host, found) == []
    assert index.folders_of()[game_id] == "one"
    index.save()
    # a new folder whose header cannot be read is said once, and kept out of routing
    (host / "three").mkdir()
    (host / "three" / "log.yaml").write_bytes(b"garbage\n")
    found = game_folders(host)
    again = GameIndex.load(host)
    lines = again.refresh(host, found)
    assert len(lines) == 1 and lines[0].startswith("three: broken, left alone until its log is repaired:")
    assert again.refresh(host, found) == []                   # the same damage: not said again
    assert all(name != "three" for name in again.folders_of().values())
    assert not again.needs_visit("three", found["three"], 0.0, True)
    # repaired (a new file): read again, and routed
    (host / "three" / "log.yaml").unlink()
    other = new_game(tmp_path / "other", "toy", key_pool, ["red", "blue"], seed=b"3" * 32)
    (host / "three" / "log.yaml").write_bytes(other.log_path.read_bytes())
    found = game_folders(host)
    assert again.refresh(host, found) == []
    assert again.games["three"].id == header_id(other.log_path) and not again.games["three"].broken
    assert again.folders_of()[header_id(other.log_path)] == "three"

    # an idle game needs nothing until its log moves or a time it waits for comes
    stamp = found["one"]
    assert again.needs_visit("one", stamp, 0.0, True)          # never sent from this host yet
    again.mark_sent("one", stamp, 0.0)
    again.mark_ticked("one", stamp, 1000.0)
    assert not again.needs_visit("one", stamp, 999.0, True)
    assert again.needs_visit("one", stamp, 1000.0, True)       # its next deadline or reminder
    assert not again.needs_visit("one", stamp, 1000.0, False)  # --no-tick
    moved = [stamp[0] + 1, stamp[1], stamp[2]]
    assert again.needs_visit("one", moved, 0.0, False)


def test_a_game_in_two_folders_is_left_alone_in_both_until_one_is_left(tmp_path, key_pool, toy_registered):
    import shutil
    host = tmp_path / "host"
    gd = new_game(host / "one", "toy", key_pool, ["red", "blue"], seed=b"1" * 32)
    shutil.copytree(gd.root, host / "one-backup")
    index = GameIndex.load(host)
    found = game_folders(host)
    lines = index.refresh(host, found)
    game_id = gd.entries()[0]["id"]
    assert lines == [f"one, one-backup: game {game_id} is in 2 folders (one, one-backup); all are left alone "
                     "until one is left in the host's folder (move copies elsewhere)"]
    assert index.folders_of() == {} and index.clashing_ids() == {game_id}
    assert not index.needs_visit("one", found["one"], 0.0, True)
    assert index.refresh(host, found) == []                   # said once
    shutil.rmtree(host / "one-backup")
    found = game_folders(host)
    assert index.refresh(host, found) == []
    assert index.folders_of() == {game_id: "one"} and index.needs_visit("one", found["one"], 0.0, True)
