"""Fair play that players can prove: the reveal closes the game, signed receipts catch a
rollback or a fork, and rolls come from the signed move that triggers them."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conftest import tree_snapshot
from crypto_helpers import require_tool
from pipeline_helpers import bot_move, new_game, play_to_end, signed_move
from pbem.cli.group import main
from pbem.core.draws import Draws, anchor, signature_digest
from pbem.core.engine import Rejected
from pbem.crypto import keys, sshsig
from pbem.pipeline.audit import audit
from pbem.pipeline.deadlines import tick
from pbem.pipeline.moderator import ModeratorError, moderate, reveal
from pbem.pipeline.submit import Receipt, submit
from pbem.store import receipts
from pbem.store.gamedir import GameDir
from pbem.store.log import render_entry, seal
from pbem.store.table import Table


@pytest.fixture
def game(tmp_path, key_pool, toy_registered):
    return new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])


def _play(gd: GameDir, key_pool, moves: int) -> list[Receipt]:
    out = []
    for _ in range(moves):
        mv = bot_move(gd, key_pool)
        assert mv is not None
        out.append(submit(gd, *mv))
    return out


def _keep(receipt: Receipt, folder: Path) -> Path:
    assert receipt.signed is not None
    path = folder / f"receipt-{receipt.index}.yaml"
    receipts.write(path, *receipt.signed)
    return path


# --- the reveal closes the game ----------------------------------------------------------

def test_after_the_reveal_nothing_but_notes_is_taken(game, key_pool):
    play_to_end(game, key_pool)
    reveal(game)
    before = tree_snapshot(game.root)
    raw, sig = signed_move(Table.load(game), "red", [{"draw": True}], key_pool["red"])
    with pytest.raises(Rejected, match="the game is closed"):
        submit(game, raw, sig)
    with pytest.raises(ModeratorError, match="the game is closed"):
        moderate(game, "pause", "why not")
    report = tick(game)                                       # cron-friendly: nothing to do, no error
    assert report.closed is not None and report.entries == [] and report.reminders == []
    with pytest.raises(ModeratorError, match="the game is closed"):
        reveal(game)
    assert tree_snapshot(game.root) == before
    moderate(game, "note", "thanks for playing")
    assert audit(game).ok
    status = CliRunner().invoke(main, ["status", str(game.root)])
    assert "closed: the seed was revealed at log entry" in status.output and "waiting for" not in status.output


def test_a_forced_reveal_says_so_and_why(game):
    with pytest.raises(ModeratorError, match="not over"):
        reveal(game)
    with pytest.raises(ModeratorError, match="reason"):
        reveal(game, force=True)
    entry = reveal(game, force=True, reason="blue and green left the game")
    assert entry["forced"] is True and entry["reason"] == "blue and green left the game"
    assert audit(game).ok


# --- receipts ----------------------------------------------------------------------------

def test_a_receipt_verifies_with_plain_ssh_keygen(game, key_pool, tmp_path):
    require_tool("ssh-keygen")
    [receipt] = _play(game, key_pool, 1)
    path = _keep(receipt, tmp_path)
    allowed = tmp_path / "allowed_signers"
    out = CliRunner().invoke(main, ["receipt", "allowed-signers", str(game.root)])
    assert out.exit_code == 0
    allowed.write_text(out.output)
    header = game.entries()[0]
    proc = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", f"moderator@{header['id']}",
                           "-n", "pbem-receipt", "-s", f"{path}.sig"], input=path.read_bytes(), capture_output=True)
    assert proc.returncode == 0, proc.stderr
    text = path.read_text()
    assert f"entry: {receipt.index}" in text and receipt.entry_hash in text and "player: red" in text
    ok = CliRunner().invoke(main, ["receipt", "verify", str(path), "--game", str(game.root)])
    assert ok.exit_code == 0 and "the log holds entry 1 unchanged" in ok.output


def test_a_forged_receipt_is_refused(game, key_pool, tmp_path):
    [receipt] = _play(game, key_pool, 1)
    path = _keep(receipt, tmp_path)
    edited = tmp_path / "edited.yaml"
    edited.write_bytes(path.read_bytes().replace(b"entry: 1", b"entry: 0"))
    shutil.copy(f"{path}.sig", f"{edited}.sig")
    forged = tmp_path / "forged.yaml"
    body = path.read_bytes()
    receipts.write(forged, body, sshsig.sign(keys.load_private_key(key_pool["red"]), body, receipts.NAMESPACE))
    for bad in (edited, forged):
        result = CliRunner().invoke(main, ["receipt", "verify", str(bad), "--game", str(game.root)])
        assert result.exit_code == 1 and "not signed by this game's moderator" in result.output
        report = audit(game, [bad])
        assert not report.ok and "not signed by this game's moderator" in report.problems[0]


def test_a_rollback_is_caught_by_a_later_receipt(game, key_pool, tmp_path):
    _play(game, key_pool, 2)
    backup = tmp_path / "at-entry-2"
    shutil.copytree(game.root, backup)                      # what the moderator can put back
    kept = [_keep(r, tmp_path / "mine") for r in _play(game, key_pool, 2)]
    assert audit(game, [tmp_path / "mine"]).ok
    shutil.rmtree(game.root)
    shutil.copytree(backup, game.root)                      # the log cut back, later files removed, digests restored
    plain = audit(game)
    assert plain.ok                                        # nothing else shows it...
    report = audit(game, [kept[-1]])
    assert not report.ok and "cut back (a rollback)" in report.problems[0]
    cli = CliRunner().invoke(main, ["audit", str(game.root), "--receipt", str(tmp_path / "mine")])
    assert cli.exit_code == 1 and "rollback" in cli.output


def test_a_fork_is_caught_by_the_receipt_of_the_replaced_entry(game, key_pool, tmp_path):
    _play(game, key_pool, 1)
    backup = tmp_path / "at-entry-1"
    shutil.copytree(game.root, backup)
    [original] = _play(game, key_pool, 1)
    kept = _keep(original, tmp_path)
    shutil.rmtree(game.root)
    shutil.copytree(backup, game.root)
    table = Table.load(game)
    player = table.game.pending(table.state)[0].player
    other = {"draw": True} if original.events and "stopped" in original.events[0] else {"stop": True}
    submit(game, *signed_move(table, player, [other], key_pool[player]))   # a different entry 2
    report = audit(game, [kept])
    assert not report.ok and "rewritten or forked" in report.problems[0]


def test_a_changed_roll_in_the_last_entry_is_caught_by_its_receipt(game, key_pool, tmp_path):
    [receipt] = _play(game, key_pool, 1)
    kept = _keep(receipt, tmp_path)
    entries = game.entries()
    last = dict(entries[-1])
    last["events"] = [dict(e, roll=(e.get("roll", 1) % 6) + 1) for e in last["events"]]
    forged = seal({k: v for k, v in last.items() if k != "hash"})
    game.log_path.write_text("".join(render_entry(e) for e in entries[:-1] + [forged]))
    report = audit(game, [kept])
    assert not report.ok and any("rewritten or forked" in p for p in report.problems)


# --- dice nobody can foresee -------------------------------------------------------------------

def test_a_roll_comes_from_the_signature_of_the_move_that_triggers_it(tmp_path, key_pool, toy_registered):
    rolls = []
    for n, extra in enumerate([b"", b"# one more comment line\n"]):
        gd = new_game(tmp_path / f"g{n}", "toy", key_pool, ["red", "blue"])
        table = Table.load(gd)
        raw, _ = signed_move(table, "red", [{"draw": True}], key_pool["red"])
        raw += extra
        sig = sshsig.sign(keys.load_private_key(key_pool["red"]), raw, sshsig.MOVE_NAMESPACE)
        submit(gd, raw, sig)
        [event] = gd.entries()[1]["events"]
        header = gd.entries()[0]
        expected = Draws(bytes.fromhex(gd.seed_path.read_text()), f"{header['id']}/move/{signature_digest(sig)}")
        assert event["roll"] == expected.rng(0).randbelow(6) + 1      # exactly the documented derivation
        rolls.append(_stream(expected))
    assert rolls[0] != rolls[1]          # one more comment line: another signature, other dice


def _stream(draws: Draws) -> list[int]:
    rng = draws.rng(0)
    return [rng.randbelow(6) for _ in range(8)]


def test_the_roll_does_not_depend_on_where_in_the_log_the_move_lands():
    """Only the seed and the signature name a move's draws: not the entry number, not the time."""
    from pbem.core.draws import move_draws
    header = {"id": "g", "randomness": "pbem-rng/v2"}
    assert move_draws(header, b"s" * 32, 5, _ref_sig()).prefix == move_draws(header, b"s" * 32, 9, _ref_sig()).prefix
    legacy = {"id": "g"}                                  # games made before v2 keep their entry-number labels
    assert move_draws(legacy, b"s" * 32, 5, _ref_sig()).prefix == "g/5"


def test_moderator_entries_draw_from_what_the_moderator_cannot_vary(game, key_pool):
    _play(game, key_pool, 1)
    entries = game.entries()
    before = anchor(entries)
    moderate(game, "pause", "lunch")
    moderate(game, "resume", "back")
    moderate(game, "note", "hello")
    assert anchor(game.entries()) == before             # notes and pauses change nothing the dice see
    table = Table.load(game)
    player = table.game.pending(table.state)[0].player
    from pbem.core.draws import auto_draws
    a = auto_draws(table.header, table.seed, 10, table.entries, player)
    b = auto_draws(table.header, table.seed, 99, table.entries[:2], player)
    assert a.prefix == b.prefix                          # neither the entry number nor later notes


def test_known_answer_vectors_of_the_v2_labels():
    key = Ed25519PrivateKey.from_private_bytes(bytes([1]) * 32)
    msg = b"format: pbem-move/1\ngame: atlantis-test\n"
    sig = sshsig.sign(key, msg, "pbem-move")
    assert signature_digest(sig) == "95265912048ab063ce33defe9ec55093dc094756c787451b8f63ec39277cee08"
    assert _stream(Draws(bytes(32), f"atlantis-test/move/{signature_digest(sig)}")) == [5, 3, 3, 1, 0, 4, 1, 2]
    sig2 = sshsig.sign(key, msg + b"# one more comment line\n", "pbem-move")
    assert signature_digest(sig2) == "d841a0cc936b8cc3cd11c5bfbe99765895eaff1f43b36d24b80f302acb34be28"
    assert _stream(Draws(bytes(32), f"atlantis-test/move/{signature_digest(sig2)}")) == [5, 2, 1, 2, 3, 1, 2, 3]
    assert _stream(Draws(bytes(32), "atlantis-test/auto/" + "ab" * 32 + "/red")) == [0, 2, 1, 1, 1, 4, 0, 0]
    doc = (Path(__file__).parent.parent / "docs" / "randomness.md").read_text()
    for text in ["95265912048ab063ce33defe9ec55093dc094756c787451b8f63ec39277cee08", "`5, 3, 3, 1, 0, 4, 1, 2`",
                 "`5, 2, 1, 2, 3, 1, 2, 3`", "`0, 2, 1, 1, 1, 4, 0, 0`"]:
        assert text in doc


def _ref_sig() -> str:
    key = Ed25519PrivateKey.from_private_bytes(bytes([1]) * 32)
    return sshsig.sign(key, b"x", "pbem-move")


def test_whole_games_replay_every_roll_exactly(tmp_path, key_pool, toy_registered):
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])
    play_to_end(gd, key_pool)
    reveal(gd)
    copy = tmp_path / "copy"
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    report = audit(GameDir(copy))
    assert report.ok, report.problems
    assert gd.entries()[0]["randomness"] == "pbem-rng/v2"


def test_a_players_audit_checks_whose_turn_it_was(game, key_pool):
    """A public fact needs no seed: a move comes from a player the log said was to decide."""
    from pbem.pipeline.audit import AuditReport, _check_turn
    _play(game, key_pool, 2)
    entries = game.entries()
    report = AuditReport()
    for i in (1, 2):
        _check_turn(entries, i, report)
    assert report.ok
    forged = [dict(e) for e in entries]
    forged[2]["player"] = "green"              # green moves when the log says blue was to decide
    _check_turn(forged, 2, report)
    assert report.problems == [f"entry 2: green moved although the log says only "
                               f"{entries[1]['pending'][0]['player']} had a decision to make"]
