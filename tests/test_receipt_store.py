"""Receipts a player keeps outside the game folder (issue 18, item 6).

* The probe, with real git: the moderator's `git reset --hard HEAD~2 && git push --force` and the
  player's `git pull --rebase` take the clone's receipts away with the log, so
  `pbem audit --receipt game1/receipts/blue/` passes the rollback; the receipts kept with
  `pbem receipt keep` after every pull catch it.
* `pbem receipt keep` checks every receipt against the game's moderator key before it keeps it,
  keeps a receipt once, never overwrites or deletes a kept one, and keeps a second, different
  receipt for the same entry beside the first and reports the fork.
* `pbem audit GAME_DIR` checks the store for the game's id (and says so); a receipted entry
  missing from or different in the log fails it.
"""
from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import disk_state
from pipeline_helpers import bot_move, new_game, signed_move
from test_git_helpers import GAME, Shared, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.cli.group import main
from pbem.crypto import keys, sshsig
from pbem.pipeline.audit import audit
from pbem.pipeline.submit import Receipt, submit
from pbem.store import receipts
from pbem.store.gamedir import GameDir
from pbem.store.receiptstore import default_store
from pbem.store.table import Table


def pbem(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def store_of(gd: GameDir) -> Path:
    return default_store(gd.entries()[0]["id"])


# --- the probe, with real git ------------------------------------------------------------------------------------

def _turn(shared: Shared, name: str, filename: str, keeper: str = "blue") -> None:
    """``name`` moves (a draw), the moderator syncs, every player pulls, and ``keeper`` (the player
    whose store is this test's XDG_DATA_HOME) keeps their receipts, as docs/git.md says."""
    shared.players[name].send(filename, [{"draw": True}])
    shared.sync()
    for player in shared.players.values():
        player.pull()
    code, out = pbem("receipt", "keep", shared.players[keeper].game.root, "--player", keeper)
    assert code == 0, out


def test_the_probe_kept_receipts_catch_a_force_pushed_rollback(tmp_path: Path, key_pool: dict[str, Path],
                                                               toy_registered: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`git reset --hard HEAD~2 && git push --force` by the moderator, `git pull --rebase` by blue:
    the receipts in blue's clone no longer show it; the ones blue kept do."""
    shared = make_shared(tmp_path, key_pool)
    for name, filename in (("red", "0001.yaml"), ("blue", "0002.yaml"), ("green", "0003.yaml"),
                           ("red", "0004.yaml"), ("blue", "0005.yaml")):
        assert shared.waiting_for() == [name]
        _turn(shared, name, filename)
    blue = shared.players["blue"]
    in_clone = blue.game.root / "receipts" / "blue"
    assert sorted(p.name for p in in_clone.glob("*.receipt.yaml")) == ["0002.receipt.yaml", "0005.receipt.yaml"]
    store = store_of(blue.game)
    assert sorted(p.name.split("-")[1] for p in store.glob("*.receipt.yaml")) == ["000002", "000005"]
    assert audit(blue.game).ok

    moderator_clone = shared.moderator.root.parent
    dropped = git(moderator_clone, "log", "-2", "--name-only", "--format=").stdout.split()
    assert f"{GAME}/receipts/blue/0005.receipt.yaml" in dropped and f"{GAME}/incoming/blue/0005.yaml" in dropped
    git(moderator_clone, "reset", "--hard", "HEAD~2")
    git(moderator_clone, "push", "--force", "-q")
    blue.git("pull", "--rebase", "-q")
    assert len(blue.game.entries()) == 5                                   # entries 0-4: blue's move is gone
    assert sorted(p.name for p in in_clone.glob("*.receipt.yaml")) == ["0002.receipt.yaml"]   # and its receipt

    # what the clone holds passes the rollback (blue's store hidden for a moment) ...
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "nothing-kept"))
    code, out = pbem("audit", blue.game.root, "--receipt", in_clone)
    assert code == 0 and out.rstrip().endswith("audit passed"), out
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))

    # ... the receipts blue kept outside the clone do not, and the audit writes nothing
    assert sorted(p.name.split("-")[1] for p in store.glob("*.receipt.yaml")) == ["000002", "000005"]
    before = disk_state(blue.game.root)
    for args in ([], ["--receipt", in_clone]):
        code, out = pbem("audit", blue.game.root, *args)
        assert code == 1 and "FAIL: the log was rolled back:" in out, out
        assert "the moderator receipted entry 5" in out and "this log ends at entry 4" in out, out
    assert disk_state(blue.game.root) == before
    code, out = pbem("receipt", "keep", blue.game.root, "--player", "blue")   # keeping again deletes nothing
    assert code == 0 and "0 receipt(s) kept" in out, out
    assert sorted(p.name.split("-")[1] for p in store.glob("*.receipt.yaml")) == ["000002", "000005"]


# --- keep: check, keep once, never overwrite, report a fork ------------------------------------------------------

@pytest.fixture
def game(tmp_path: Path, key_pool: dict[str, Path], toy_registered: None) -> GameDir:
    return new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])


def _move(gd: GameDir, key_pool: dict[str, Path]) -> Receipt:
    mv = bot_move(gd, key_pool)
    assert mv is not None
    return submit(gd, *mv)


def _mailed(receipt: Receipt, folder: Path) -> Path:
    """The receipt as the moderator's answer attaches it (receipt-entryN.yaml and .sig)."""
    assert receipt.signed is not None
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"receipt-entry{receipt.index}.yaml"
    receipts.write(path, *receipt.signed)
    return path


def test_a_mailed_receipt_is_kept_once_and_checked_by_every_audit(game: GameDir, key_pool: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    mail = _mailed(_move(game, key_pool), tmp_path / "mail")
    code, out = pbem("receipt", "keep", game.root, mail)
    assert code == 0 and "1 receipt(s) kept in" in out, out
    store = store_of(game)
    assert store == tmp_path / "xdg-data" / "pbem" / "receipts" / game.entries()[0]["id"]
    [kept] = list(store.glob("*.receipt.yaml"))
    assert kept.read_bytes() == mail.read_bytes() and Path(f"{kept}.sig").read_text() == Path(f"{mail}.sig").read_text()

    before = disk_state(store)
    again = tmp_path / "mail-again" / "receipt-entry1.yaml"         # the moderator sends it again: a new time
    entries = game.entries()
    receipts.write(again, *receipts.issue(entries[0], entries[1], game.moderator_key_path,
                                          now=dt.datetime(2031, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)))
    assert again.read_bytes() != mail.read_bytes()
    code, out = pbem("receipt", "keep", game.root, again, mail)
    assert code == 0 and "0 receipt(s) kept" in out and "(2 kept already)" in out, out
    assert disk_state(store) == before

    report = audit(game)
    assert report.ok and f"1 receipt(s) kept in {store} checked: the log still holds every receipted entry" \
        in report.notes, report.notes


def test_a_receipt_not_signed_by_the_moderator_is_refused_and_not_kept(game: GameDir, key_pool: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    mail = _mailed(_move(game, key_pool), tmp_path / "mail")
    body = mail.read_bytes()
    forged = tmp_path / "forged" / "receipt-entry1.yaml"
    forged.parent.mkdir()
    receipts.write(forged, body, sshsig.sign(keys.load_private_key(key_pool["red"]), body, receipts.NAMESPACE))
    code, out = pbem("receipt", "keep", game.root, forged, mail)
    assert code == 1 and "REFUSED:" in out and "not signed by this game's moderator" in out, out
    assert "1 receipt(s) kept" in out                                       # the good one is kept all the same
    assert len(list(store_of(game).glob("*.receipt.yaml"))) == 1


def test_a_different_receipt_for_a_kept_entry_is_kept_beside_it_and_reported(game: GameDir,
                                                                              key_pool: dict[str, Path],
                                                                              tmp_path: Path) -> None:
    _move(game, key_pool)
    backup = tmp_path / "at-entry-1"
    shutil.copytree(game.root, backup)
    first = _mailed(_move(game, key_pool), tmp_path / "first")
    assert pbem("receipt", "keep", game.root, first)[0] == 0
    store = store_of(game)
    before = disk_state(store)
    shutil.rmtree(game.root)
    shutil.copytree(backup, game.root)                                        # the moderator forks the game
    table = Table.load(game)
    player = table.game.pending(table.state)[0].player
    original = receipts.verify(*receipts.read(first), table.header["moderator"]["key"])
    other = {"stop": True} if original.player == player else {"draw": True}
    other_move = submit(game, *signed_move(table, player, [other], key_pool[player]))
    second = _mailed(other_move, tmp_path / "second")
    assert second.read_bytes() != first.read_bytes()
    code, out = pbem("receipt", "keep", game.root, second)
    assert code == 1 and "FORK:" in out and "two different entries 2 were signed" in out, out
    after = disk_state(store)
    assert {k: v for k, v in after.items() if k in before and k != "."} == \
        {k: v for k, v in before.items() if k != "."}                        # the first one untouched ...
    assert len(list(store.glob("entry-000002-*.receipt.yaml"))) == 2        # ... and both kept
    report = audit(game)
    assert not report.ok and any(p.startswith("the log was rolled back or forked:") for p in report.problems)


def test_keep_from_a_clone_with_no_receipts_yet_says_so(game: GameDir) -> None:
    code, out = pbem("receipt", "keep", game.root, "--player", "red")
    assert code == 0 and out.startswith("no receipts in") and not store_of(game).exists()


def test_audit_says_where_it_looked_when_nothing_is_kept(game: GameDir) -> None:
    report = audit(game)
    assert report.ok and f"no receipts kept for this game in {store_of(game)} (`pbem receipt keep` keeps them " \
        "there)" in report.notes


@pytest.mark.parametrize("player", ["red", "dark-blue", "no name?"])
def test_a_kept_receipts_name_is_read_back_as_its_entry_and_player(player):
    """`kept_entry` reads what `kept_name` writes (a player whose name cannot name a file is left out of
    the name, and reads back as ""); any other file name is not a kept receipt."""
    from pbem.store.receipts import Receipt
    from pbem.store.receiptstore import kept_entry, kept_name
    receipt = Receipt("toy-x", 12, "ab" * 32, player, "cd" * 32, "2026-11-27T20:00:00Z", "SHA256:x")
    name = kept_name(receipt, receipt.body())
    expected = player if "-" + player + "-" in name else ""
    assert kept_entry(name) == (12, expected)
    assert expected or player == "no name?"
    assert kept_entry("entry-000012-red.receipt.yaml") is None and kept_entry("notes.txt") is None
