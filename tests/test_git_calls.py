"""How many git commands `pbem git sync` runs (issue 19, 24): git's own processes were most of the CPU
of a game through git.  Counted with git's trace2 (one event file per git process), top-level
commands only (what pbem starts; what git starts inside a fetch or push is git's business)."""
from __future__ import annotations

from pathlib import Path

from test_git_helpers import started_git_commands, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

DRAW = [{"draw": True}]


def _sync_commands(shared, tmp_path, monkeypatch, name: str, expected: str) -> list[list[str]]:
    trace = tmp_path / f"trace-{name}"
    trace.mkdir()
    with monkeypatch.context() as env:
        env.setenv("GIT_TRACE2_EVENT", str(trace))
        output = shared.sync().output
    assert expected in output, output
    return started_git_commands(trace)


def test_a_sync_asks_git_a_bounded_number_of_questions(tmp_path, key_pool, toy_registered, monkeypatch,
                                                       shared_templates):
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    shared.players["red"].send("0001.yaml", DRAW)
    one = _sync_commands(shared, tmp_path, monkeypatch, "one", "accepted red/0001.yaml")
    idle = _sync_commands(shared, tmp_path, monkeypatch, "idle", "nothing to do")
    shared.players["blue"].send("0002.yaml", DRAW)
    shared.players["green"].send("0003.yaml", DRAW)              # stale: refused, in its own commit
    two = _sync_commands(shared, tmp_path, monkeypatch, "two", "rejected green/0003.yaml")
    # 34, 18 and 41 before issue 24, then 21, 9 and 27; each move adds what committing it takes (hash, tree,
    # commit, ref).  The idle sync hashes nothing: the outputs the first sync wrote just before its stamp,
    # in the stamp's clock tick, were looked at again once the tick had passed (a third of the runs asked
    # for one `hash-object` more before that).  Then 20, 8 and 25; now the moderator's last tree is listed
    # from what the last sync kept (moderator/git-tree.kept)
    assert len(one) <= 19, one
    assert len(idle) <= 7, idle
    assert len(two) <= 24, two
    # a tree's first index is written whole (no read-tree of the base: the only read-tree is the clone's own
    # index, reset after the sync)
    for commands in (one, two):
        assert [c[c.index("read-tree"):] for c in commands if "read-tree" in c] == [["read-tree", "--reset",
                                                                                  commands[-1][-1]]], commands
    # the shared branch came as a chain of commits on the history the last sync kept: that walk proved the
    # moderator's last commit an ancestor of the new tip, which is not asked again
    assert not any("merge-base" in c for c in two), two
    # the repository is found once, and HEAD, the branch and the git folder's files asked in one go
    for commands in (one, idle, two):
        assert sum(1 for c in commands if "--show-toplevel" in c) == 1, commands
        assert not any("symbolic-ref" in c or "get-url" in c for c in commands), commands
    # the moderator's last tree is not listed again: only the fetched tip's, when it is new
    assert [sum(1 for c in commands if "ls-tree" in c) for commands in (one, idle, two)] == [1, 0, 1]


def test_a_clone_without_the_remote_gets_one_clear_line_and_nothing_changes(tmp_path, key_pool, toy_registered,
                                                                            shared_templates):
    """The remote is looked up only when the fetch fails: the answer is the same one line as before."""
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    shared.players["red"].send("0001.yaml", DRAW)
    clone = shared.moderator.root.parent
    git(clone, "remote", "remove", "origin")
    head = git(clone, "rev-parse", "HEAD").stdout
    log = shared.moderator.log_path.read_bytes()
    result = shared.sync(ok=False)
    assert result.exit_code != 0
    assert "this clone has no git remote 'origin'; add it with `git remote add origin URL`" in result.output
    assert git(clone, "rev-parse", "HEAD").stdout == head and shared.moderator.log_path.read_bytes() == log
    assert git(clone, "status", "--porcelain").stdout == ""
