"""The whole PBEM loop on a tiny test game: new, submit, rejections, reveal, audit, determinism."""
from __future__ import annotations

import shutil

import pytest

from conftest import tree_snapshot
from pipeline_helpers import bot_move, new_game, play_to_end, reveal_and_audit, signed_move
from pbem.core.engine import Rejected
from pbem.crypto import agecrypt
from pbem.pipeline.audit import audit
from pbem.pipeline.moderator import ModeratorError, reveal
from pbem.pipeline.submit import submit
from pbem.store.table import Table


@pytest.fixture
def game(tmp_path, key_pool, toy_registered):
    return new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])


def test_new_game_writes_header_digests_and_secrets(game, key_pool):
    entries = game.entries()
    assert len(entries) == 1 and entries[0]["kind"] == "genesis"
    assert entries[0]["seed_commitment"] and "seed" not in entries[0]
    for p in ["red", "blue", "green"]:
        text = agecrypt.decrypt(game.secrets_path(p).read_bytes(), key_pool[p]).decode()
        assert "Your secrets" in text
    assert (game.public_dir / "digest.txt").read_text().count("red") >= 1
    assert (game.moderator_dir / ".gitignore").read_text().strip().endswith("*")


def test_secrets_readable_by_moderator_but_not_other_players(game, key_pool):
    agecrypt.decrypt(game.secrets_path("red").read_bytes(), key_pool["mallory"])
    with pytest.raises(agecrypt.AgeError):
        agecrypt.decrypt(game.secrets_path("red").read_bytes(), key_pool["blue"])


def test_full_game_reveal_and_audit(game, key_pool):
    n = play_to_end(game, key_pool)
    assert n >= 3
    report = audit(game)
    assert report.ok, report.problems
    reveal(game)
    # a player's copy: no moderator folder, the seed comes from the log
    copy = game.root.parent / "copy"
    shutil.copytree(game.root, copy, ignore=shutil.ignore_patterns("moderator"))
    from pbem.store.gamedir import GameDir
    report = audit(GameDir(copy))
    assert report.ok, report.problems
    assert any("replayed" in note for note in report.notes)


def test_reveal_refused_before_the_end(game):
    with pytest.raises(ModeratorError, match="not over"):
        reveal(game)


def test_same_seed_same_moves_same_bytes(tmp_path, key_pool, toy_registered):
    a = new_game(tmp_path / "a", "toy", key_pool, ["red", "blue"])
    b = new_game(tmp_path / "b", "toy", key_pool, ["red", "blue"])
    play_to_end(a, key_pool)
    play_to_end(b, key_pool)
    for rel in ["log.yaml", "public/digest.txt", "public/digest.html", "public/view.json"]:
        assert (a.root / rel).read_bytes() == (b.root / rel).read_bytes(), rel


def _rejects(game, raw, sig, match):
    before = tree_snapshot(game.root)
    with pytest.raises(Rejected, match=match) as info:
        submit(game, raw, sig)
    assert "\n" not in str(info.value)
    assert tree_snapshot(game.root) == before


def test_rejections_change_nothing(game, key_pool):
    table = Table.load(game)
    player = table.game.pending(table.state)[0].player
    other = "blue" if player != "blue" else "green"
    raw, sig = signed_move(table, player, [{"draw": True}], key_pool[player])
    _rejects(game, raw, sig.replace("A", "B", 3), "bad signature")
    _, wrong_sig = signed_move(table, player, [{"draw": True}], key_pool[other])
    _rejects(game, raw, wrong_sig, f"signed with {other}'s key")
    _rejects(game, raw + b"# changed\n", sig, "bad signature")
    raw2, sig2 = signed_move(table, other, [{"draw": True}], key_pool[other])
    _rejects(game, raw2, sig2, "not .*decision now")
    raw3, sig3 = signed_move(table, player, [{"dance": True}], key_pool[player])
    _rejects(game, raw3, sig3, "illegal action 1")
    raw4, sig4 = signed_move(table, player, [{"draw": True}], key_pool[player], after=0, after_hash="0" * 64)
    _rejects(game, raw4, sig4, "stale")
    bad = b"format: pbem-move/1\nactions: [\n"
    from pbem.crypto import keys, sshsig
    _rejects(game, bad, sshsig.sign(keys.load_private_key(key_pool[player]), bad, "pbem-move"), "malformed YAML")
    submit(game, raw, sig)
    _rejects(game, raw, sig, "already accepted")


def test_audit_finds_a_changed_byte_in_the_log(game, key_pool):
    for _ in range(3):
        submit(game, *bot_move(game, key_pool))
    text = game.log_path.read_text()
    game.log_path.write_text(text.replace("drew: ", "drew:  ", 1))
    report = audit(game)
    assert not report.ok and any("entry" in p for p in report.problems)


def test_audit_finds_a_changed_archived_move(game, key_pool):
    submit(game, *bot_move(game, key_pool))
    move = sorted(game.moves_dir.glob("*.yaml"))[0]
    move.write_bytes(move.read_bytes() + b"\n")
    report = audit(game)
    assert any("archived move" in p for p in report.problems)


def test_a_game_started_from_a_position_is_audited_from_the_revealed_position(tmp_path, key_pool, toy_registered):
    from pbem.crypto import keys
    from pbem.pipeline.newgame import PlayerSpec, create_game
    from pbem.store.gamedir import GameDir
    source = new_game(tmp_path / "src", "toy", key_pool, ["red", "blue"])
    submit(source, *bot_move(source, key_pool))
    table = Table.load(source)
    position = table.game.to_position(table.state)
    specs = [PlayerSpec(n, keys.normalise_public_key(key_pool[n].with_name(n + ".pub").read_text()))
             for n in ["red", "blue"]]
    create_game(tmp_path / "pos", "toy", specs, {}, b"p" * 32, position=position, moderator_key=key_pool["mallory"])
    gd = GameDir(tmp_path / "pos")
    header = gd.entries()[0]
    assert header["start"]["position_commitment"] and all(c is None for c in header["start"]["public"]["deck"])
    assert "deck" not in (gd.log_path.read_text().split("public:")[0])
    play_to_end(gd, key_pool)
    report = reveal_and_audit(gd, tmp_path / "published")
    assert any("replayed" in n for n in report.notes)


def test_audit_on_the_moderators_copy_checks_the_encrypted_secrets(game, key_pool):
    submit(game, *bot_move(game, key_pool))
    report = audit(game)
    assert report.ok and any("encrypted secrets" in n for n in report.notes)
    from pbem.crypto import agecrypt
    fake = agecrypt.encrypt(b"not the digest", [Table.load(game).player_keys("red")[0]])
    game.secrets_path("red").write_bytes(fake)
    assert any("secrets/red.age" in p for p in audit(game).problems)
