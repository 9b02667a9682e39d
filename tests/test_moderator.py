"""Moderator repairs and deadlines, as signed log entries that audit checks."""
from __future__ import annotations

import time

import pytest

from conftest import tree_snapshot
from pipeline_helpers import bot_move, new_game, signed_move
from pbem.core.engine import Rejected
from pbem.crypto import keys
from pbem.pipeline.audit import audit
from pbem.pipeline.deadlines import deadlines, tick
from pbem.pipeline.moderator import ModeratorError, moderate, reveal
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table


@pytest.fixture
def game(tmp_path, key_pool, toy_registered):
    return new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])


def finish_and_audit(gd, key_pool):
    tick(gd)
    while (mv := bot_move(gd, key_pool)) is not None:
        submit(gd, *mv)
        tick(gd)
    reveal(gd)
    report = audit(gd)
    assert report.ok, report.problems
    return report


def test_pause_refuses_moves_and_resume_allows_them(game, key_pool):
    moderate(game, "pause", "holiday")
    mv = bot_move(game, key_pool)
    before = tree_snapshot(game.root)
    with pytest.raises(Rejected, match="paused by the moderator \\(holiday\\)"):
        submit(game, *mv)
    assert tree_snapshot(game.root) == before
    assert "THE GAME IS PAUSED: holiday" in (game.public_dir / "digest.txt").read_text()
    moderate(game, "resume", "back")
    submit(game, *bot_move(game, key_pool))
    finish_and_audit(game, key_pool)


def test_every_moderator_action_needs_a_reason(game):
    with pytest.raises(ModeratorError, match="reason"):
        moderate(game, "pause", " ")


def test_replace_key_switches_the_accepted_key(game, key_pool, tmp_path):
    new_pub = keys.generate_keypair(tmp_path / "red-new", "red-new")
    first = Table.load(game).game.pending(Table.load(game).state)[0].player
    assert first == "red"
    moderate(game, "replace-key", "lost laptop", player="red", new_key=new_pub)
    table = Table.load(game)
    old = signed_move(table, "red", [{"stop": True}], key_pool["red"])
    with pytest.raises(Rejected, match="bad signature"):
        submit(game, *old)
    submit(game, *signed_move(table, "red", [{"stop": True}], tmp_path / "red-new"))
    digest = (game.public_dir / "digest.txt").read_text()
    assert "replace-key red - lost laptop" in digest
    key_pool = dict(key_pool, red=tmp_path / "red-new")
    finish_and_audit(game, key_pool)


def test_undo_restores_the_state_and_stays_visible(game, key_pool):
    before = Table.load(game).game.to_position(Table.load(game).state)
    submit(game, *bot_move(game, key_pool))
    entry = moderate(game, "undo", "submitted by mistake")
    assert entry["undoes"] == 1
    assert Table.load(game).game.to_position(Table.load(game).state) == before
    assert "undo red (entry 1) - submitted by mistake" in (game.public_dir / "digest.txt").read_text()
    with pytest.raises(ModeratorError, match="no move to undo"):
        moderate(game, "undo", "again")
    finish_and_audit(game, key_pool)


def test_seat_to_bot_plays_on_tick_and_refuses_the_old_player(game, key_pool):
    moderate(game, "seat", "bob left", player="blue", to="bot")
    submit(game, *bot_move(game, key_pool))       # red moves
    report = tick(game)
    assert report.entries and report.entries[0]["action"] == "bot-move"
    finish_and_audit(game, key_pool)


def test_deadline_expiry_lets_a_bot_decide(tmp_path, key_pool, toy_registered):
    specs = [PlayerSpec(n, (key_pool[n].parent / f"{n}.pub").read_text().split(" #")[0].strip())
             for n in ["red", "blue"]]
    create_game(tmp_path / "d", "toy", specs, {}, b"d" * 32, moderator_key=key_pool["mallory"],
                deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24})
    gd = GameDir(tmp_path / "d")
    [d] = deadlines(gd, gd.entries())
    assert d.player == "red" and abs(d.due - (time.time() + 48 * 3600)) < 60
    assert tick(gd, now=time.time()).reminders == []
    report = tick(gd, now=time.time() + 30 * 3600)
    assert [r.player for r in report.reminders] == ["red"]
    assert tick(gd, now=time.time() + 31 * 3600).reminders == []      # reminded once
    moderate(gd, "extend", "ill", player="red", hours=10)
    assert tick(gd, now=time.time() + 50 * 3600).entries == []         # 48 + 10 hours now
    report = tick(gd, now=time.time() + 59 * 3600)
    assert report.entries[0]["action"] == "timeout" and report.entries[0]["player"] == "red"
    assert "within 48 hours" in report.entries[0]["reason"]
    finish_and_audit(gd, key_pool)


def test_audit_rejects_a_forged_moderator_entry(game, key_pool):
    moderate(game, "pause", "real")
    text = game.log_path.read_text()
    game.log_path.write_text(text.replace("reason: real", "reason: fake"))
    assert not audit(game).ok


def test_pass_policy_declines_where_the_rules_allow(tmp_path, key_pool):
    """Atlantis: an expired movement step is passed with {done: move}; removal still needs a choice."""
    specs = [PlayerSpec(n, keys.normalise_public_key(key_pool[n].with_name(n + ".pub").read_text()))
             for n in ["red", "blue"]]
    create_game(tmp_path / "p", "atlantis", specs, {}, b"q" * 32, moderator_key=key_pool["mallory"],
                deadlines={"hours": 1, "on_expiry": "pass", "remind_hours": 0})
    gd = GameDir(tmp_path / "p")
    report = tick(gd, now=time.time() + 2 * 3600, max_entries=12)
    timeouts = [e for e in report.entries if e["action"] == "timeout"]
    assert timeouts and all(e["policy"] == "pass" for e in timeouts)
    # set-up placements cannot be declined, so the bot placed explorers; the log says so
    assert timeouts[0]["actions"][0].get("place")
    report = audit(gd)
    assert report.ok, report.problems
