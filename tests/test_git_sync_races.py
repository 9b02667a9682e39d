"""Players pushing while `pbem git sync` pushes (real git, a bare remote): nothing is lost, nothing doubled.

The moderator's clone gets a pre-push hook that, at each of the moderator's pushes, first pushes a
player's waiting commit (pulling it onto the shared branch first, as `git pull --rebase && git
push` does): every push of the sync then loses the race until the players run out of commits.
Small batches make a sync push many times.
"""
from __future__ import annotations

import os
import stat
from collections import Counter

import pytest
from test_git_helpers import GAME, Shared, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)
from test_git_hostile_push import assert_published_is_the_moderators

from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.transport.git.sync import SyncError, SyncOptions, sync

DRAW = [{"draw": True}]


@pytest.fixture
def shared(tmp_path, key_pool, toy_registered, shared_templates):
    return make_shared(tmp_path, key_pool, templates=shared_templates)


def _race_every_push(shared: Shared, clones: list[str]) -> None:
    """At each moderator push, the next clone in line pulls and pushes its commits first."""
    queue = shared.tmp / "queue"
    queue.write_text("".join(f"{shared.players[name].clone}\n" for name in clones))
    hook = shared.moderator.root.parent / ".git" / "hooks" / "pre-push"
    hook.write_text(
        "#!/bin/sh\n"
        "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_QUARANTINE_PATH\n"
        f"next=$(head -n 1 '{queue}')\n"
        "[ -z \"$next\" ] && exit 0\n"
        f"sed -i 1d '{queue}'\n"
        "git -C \"$next\" pull -q --rebase >/dev/null 2>&1 || exit 1\n"
        "git -C \"$next\" push -q origin HEAD:main >/dev/null 2>&1 || exit 1\n"
        "exit 0\n")
    os.chmod(hook, hook.stat().st_mode | stat.S_IEXEC)


def _commit_only(shared: Shared, name: str, filename: str) -> list[str]:
    """A commit in the player's clone, not pushed: a move for the position the clone shows now."""
    player = shared.players[name]
    player.pull()
    paths = player.write_move(filename, DRAW)
    extra = player.game.public_dir / f"{name}.html"       # and a file outside incoming/, left out
    extra.write_text(f"<p>{name}</p>\n")
    player.commit([*paths, extra], f"{name}: {filename}")
    return [f"{name}/{filename}"]


def test_players_push_during_every_push_of_two_syncs_and_nothing_is_lost(shared):
    red = shared.players["red"]
    red.send("0000.yaml", DRAW)
    sent = ["red/0000.yaml"]
    for name, filename in (("blue", "b1.yaml"), ("green", "g1.yaml"), ("blue", "b2.yaml")):
        sent += _commit_only(shared, name, filename)
    player_heads = []
    _race_every_push(shared, ["blue", "green"])
    first = sync(shared.moderator, SyncOptions(batch=1))
    player_heads += [shared.players[n].git("rev-parse", "HEAD").stdout.strip() for n in ("blue", "green")]
    assert first.pushed and first.races >= 2
    # the second sync: green's move waits; blue and red push while the moderator pushes
    shared.players["green"].send("g2.yaml", DRAW)
    sent.append("green/g2.yaml")
    sent += _commit_only(shared, "blue", "b3.yaml") + _commit_only(shared, "red", "0001.yaml")
    _race_every_push(shared, ["blue", "red"])
    second = sync(shared.moderator, SyncOptions(batch=1))
    assert second.pushed and second.races >= 2
    player_heads += [shared.players[n].git("rev-parse", "HEAD").stdout.strip() for n in ("blue", "red")]
    third = sync(shared.moderator, SyncOptions())           # what arrived during the last push
    answered = Counter(o.item for report in (first, second, third) for o in report.outcomes)
    assert sorted(answered) == sorted(sent) and set(answered.values()) == {1}, answered
    for head in player_heads:                               # every player commit is in the shared history
        assert git(shared.bare, "merge-base", "--is-ancestor", head, "main", check=False).returncode == 0
    accepted = [o.item for report in (first, second, third) for o in report.outcomes if o.accepted]
    assert accepted == ["red/0000.yaml", "blue/b3.yaml"]      # the others were written for an older position
    assert len(GameDir(shared.moderator.root).entries()) == 3
    assert_published_is_the_moderators(shared)
    left = first.left_out + second.left_out + third.left_out
    assert any(f"{GAME}/public/blue.html" in line for line in left)
    assert audit(GameDir(shared.fresh_clone("auditor") / GAME)).ok
    git(shared.bare, "fsck", "--strict")


def test_a_sync_that_keeps_losing_the_race_gives_up_in_one_line_and_the_next_one_pushes(shared):
    shared.players["red"].send("0000.yaml", DRAW)
    for name in ("blue", "green"):
        _commit_only(shared, name, f"{name}.yaml")
    _race_every_push(shared, ["blue", "green"])
    with pytest.raises(SyncError) as caught:
        sync(shared.moderator, SyncOptions(attempts=2, patience=0))   # patience 0: no pauses, give up at once
    message = str(caught.value)
    assert "\n" not in message and message.startswith("gave up after 2 push attempts")
    assert "entry 1" not in git(shared.bare, "log", "--format=%s", "main").stdout   # nothing of it pushed yet
    report = sync(shared.moderator, SyncOptions())         # the race is over: the kept commits go out
    assert report.pushed
    assert "entry 1: red's move accepted; waiting for blue" in git(shared.bare, "log", "--format=%s", "main").stdout
    # red's was answered by the sync that gave up (its receipt waited on disk); blue's and green's, pushed while
    # it raced, now: a retry after a lost race answers nothing new before it pushes (docs/git.md)
    assert Counter(o.item for o in report.outcomes) == Counter({"blue/blue.yaml": 1, "green/green.yaml": 1})
    for name in ("red/0000", "blue/blue", "green/green"):
        assert shared.remote_text(f"{GAME}/receipts/{name}.txt").startswith(("accepted", "rejected"))
    assert_published_is_the_moderators(shared)
    assert git(shared.moderator.root, "status", "--porcelain").stdout == ""


def test_a_sync_that_pushed_and_then_keeps_losing_stops_with_a_note_and_the_rest_waits(shared):
    """The first batch's push lands; the second's loses (a player pushes at that moment) and the patience is
    spent: the sync returns what it pushed, with a note, and the next sync pushes the commit that waited."""
    shared.players["red"].send("0000.yaml", DRAW)
    shared.players["green"].send("g.yaml", DRAW)             # for an older position: refused, in the second batch
    _commit_only(shared, "blue", "b.yaml")
    pushes = shared.tmp / "pushes"
    hook = shared.moderator.root.parent / ".git" / "hooks" / "pre-push"
    hook.write_text(
        "#!/bin/sh\n"
        "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_QUARANTINE_PATH\n"
        f"echo x >> '{pushes}'\n"
        f"[ \"$(wc -l < '{pushes}')\" -eq 2 ] || exit 0\n"    # only the second push races blue's
        f"git -C '{shared.players['blue'].clone}' pull -q --rebase >/dev/null 2>&1 || exit 1\n"
        f"git -C '{shared.players['blue'].clone}' push -q origin HEAD:main >/dev/null 2>&1 || exit 1\n"
        "exit 0\n")
    os.chmod(hook, hook.stat().st_mode | stat.S_IEXEC)
    report = sync(shared.moderator, SyncOptions(batch=1, attempts=1, patience=0))
    assert report.pushed and report.races == 1 and report.racers == Counter({"blue": 1})
    assert [o.item for o in report.outcomes] == ["red/0000.yaml", "green/g.yaml"]
    assert any(n.startswith("stopped after 1 lost push races") and "blue 1" in n for n in report.notes), report.notes
    assert not shared.remote_files(f"{GAME}/receipts/green/")              # answered, not yet pushed
    later = sync(shared.moderator, SyncOptions())
    assert later.pushed and [o.item for o in later.outcomes] == ["blue/b.yaml"]
    assert shared.remote_text(f"{GAME}/receipts/green/g.txt").startswith("rejected")
    assert_published_is_the_moderators(shared)
