"""A player who pushes in a loop while `pbem git sync` pushes (real git, a bare remote): the sync never
gives up while the loop runs; it takes the loop's pushes in (answering them), retries on top, waits a
little longer each time after its quick retries (docs/git.md, "A player who keeps pushing"), and its
commit with the honest move lands on the shared branch with every pushed commit kept.

The loop is a background shell: `git pull --rebase`, a new junk file under incoming/blue/, commit, push,
as fast as git goes, for a bounded number of rounds (so the test's outcome does not depend on timing:
the sync lands while the loop runs or right after it)."""
from __future__ import annotations

import subprocess
import textwrap

import pytest
from test_git_helpers import GAME, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.transport.git.sync import FIRST_PAUSE, LONGEST_PAUSE, SyncOptions, race_pause, sync

DRAW = [{"draw": True}]
ROUNDS = 25


@pytest.fixture
def shared(tmp_path, key_pool, toy_registered, shared_templates):
    return make_shared(tmp_path, key_pool, templates=shared_templates)


def _start_push_loop(clone, rounds: int, started) -> subprocess.Popen[str]:
    """blue's clone pushes a new junk file under incoming/blue/ in a loop (``rounds`` pushes tried); the
    file ``started`` appears after its first push."""
    script = textwrap.dedent(f"""\
        export GIT_AUTHOR_NAME=blue GIT_AUTHOR_EMAIL=blue@test GIT_COMMITTER_NAME=blue GIT_COMMITTER_EMAIL=blue@test
        i=0
        while [ $i -lt {rounds} ]; do
          i=$((i+1))
          git pull -q --rebase >/dev/null 2>&1 || git rebase --abort >/dev/null 2>&1
          printf 'junk %s\\n' $i > {GAME}/incoming/blue/loop-$i.yaml
          git add {GAME}/incoming/blue/loop-$i.yaml
          git commit -q -m "blue: loop $i" >/dev/null 2>&1
          git push -q origin HEAD:main >/dev/null 2>&1 && touch '{started}'
        done
        exit 0
        """)
    (clone / GAME / "incoming" / "blue").mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(["sh", "-c", script], cwd=clone, text=True)


def test_a_sync_lands_the_honest_move_while_a_player_pushes_in_a_loop(shared, tmp_path):
    shared.players["red"].send("0000.yaml", DRAW)
    started = tmp_path / "loop-started"
    loop = _start_push_loop(shared.players["blue"].clone, ROUNDS, started)
    try:
        while not started.exists() and loop.poll() is None:     # the loop is pushing before the sync starts
            subprocess.run(["sleep", "0.01"], check=True)
        report = sync(shared.moderator, SyncOptions())
    finally:
        assert loop.wait(timeout=120) == 0
    assert report.pushed
    assert [o.text for o in report.outcomes if o.item == "red/0000.yaml"] == ["entry 1; waiting for blue"]
    subjects = git(shared.bare, "log", "--format=%s", "main").stdout.splitlines()
    assert "entry 1: red's move accepted; waiting for blue" in subjects
    # every file the loop pushed (somewhere in the shared history) waits in incoming/ or is answered
    pushed = {line.rsplit("/", 1)[1].removesuffix(".yaml") for line in git(
        shared.bare, "log", "--format=", "--name-only", "main", "--", f"{GAME}/incoming/blue/").stdout.split()}
    assert len(pushed) >= 2 and pushed <= {f"loop-{n}" for n in range(1, ROUNDS + 1)}, pushed
    files = set(shared.remote_files(f"{GAME}/"))
    for name in pushed:
        waiting = f"{GAME}/incoming/blue/{name}.yaml" in files
        answered = f"{GAME}/receipts/blue/{name}.txt" in files
        assert waiting != answered, (name, waiting, answered)
    assert all(shared.remote_text(f"{GAME}/receipts/blue/{o.item.split('/')[1].removesuffix('.yaml')}.txt")
               .startswith("rejected") for o in report.outcomes if o.item.startswith("blue/"))
    final = sync(shared.moderator, SyncOptions())           # what the loop pushed last: answered, quietly
    assert not final.races and all(not o.accepted for o in final.outcomes)
    assert len(GameDir(shared.moderator.root).entries()) == 2
    assert audit(GameDir(shared.fresh_clone("auditor") / GAME)).ok


def test_the_pauses_grow_with_a_jitter_that_only_the_moderators_commit_decides():
    pauses = [race_pause(n, "a" * 40, "b" * 40) for n in range(1, 12)]
    assert pauses == [race_pause(n, "a" * 40, "b" * 40) for n in range(1, 12)]      # no global random state
    assert all(FIRST_PAUSE * 2 ** (n - 1) * 0.5 <= p < FIRST_PAUSE * 2 ** (n - 1) * 1.5
               for n, p in enumerate(pauses[:5], 1))
    assert max(pauses) <= LONGEST_PAUSE * 1.5 and pauses[-1] >= LONGEST_PAUSE * 0.5
    assert race_pause(3, "c" * 40, "b" * 40) != pauses[2]                          # another unpushed commit
