"""`pbem git sync --pull-requests`: moves come as pull requests (real git, a bare remote).

GitHub keeps each pull request's head at ``refs/pull/N/head`` in the shared repository; here a
player pushes their commits there directly (what GitHub does when they push to their fork).  The
moderator fetches those refs, reads ``GAME/incoming/PLAYER/`` in each head's tree as git objects,
never writes to them, and publishes receipts on the shared branch, which only the moderator writes.
"""
from __future__ import annotations

import pytest
from test_git_helpers import GAME, Player, Shared, cli, git, hermetic_git, make_shared  # noqa: F401  (autouse)
from test_git_hostile_push import assert_fresh_clone_checks_out, assert_published_is_the_moderators

from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir

DRAW = [{"draw": True}]


@pytest.fixture
def shared(tmp_path, key_pool, toy_registered, shared_templates):
    return make_shared(tmp_path, key_pool, templates=shared_templates)


def open_pull_request(player: Player, number: int, files: dict[str, list], signing_key=None) -> str:
    """Commit moves (filename -> actions) on a branch of the player's clone, starting from the shared
    branch, and make that branch pull request NUMBER; returns its head."""
    player.git("fetch", "-q", "origin")
    branch = f"pr{number}"
    if player.git("rev-parse", "--verify", "-q", branch, check=False).returncode != 0:
        player.git("checkout", "-q", "-b", branch, "origin/main")
    else:
        player.git("checkout", "-q", branch)
    view = player.game.public_dir / "view.json"       # the move is written for the shared branch's position
    saved = view.read_bytes()
    view.write_text(player.git("show", f"origin/main:{GAME}/public/view.json").stdout)
    for filename, actions in files.items():
        player.commit(player.write_move(filename, actions), f"{player.name}: {filename}", signing_key)
    view.write_bytes(saved)
    player.git("push", "-q", "-f", "origin", f"HEAD:refs/pull/{number}/head")
    head = player.git("rev-parse", "HEAD").stdout.strip()
    player.git("checkout", "-q", "main")
    return head


def _pr_sync(shared: Shared, *args: str) -> list[str]:
    return shared.sync("--pull-requests", *args).output.splitlines()


def test_a_move_in_a_pull_request_is_taken_and_answered_on_the_shared_branch(shared):
    red = shared.players["red"]
    red.pull()
    head = open_pull_request(red, 7, {"0000.yaml": DRAW})
    lines = _pr_sync(shared)
    assert "accepted red/0000.yaml: entry 1; waiting for blue" in lines
    receipt = shared.remote_text(f"{GAME}/receipts/red/0000.txt")
    assert receipt.startswith("accepted: red's move") and "(in pull request #7, which the moderator" in receipt
    assert git(shared.bare, "rev-parse", "refs/pull/7/head").stdout.strip() == head     # never written to
    assert git(shared.bare, "log", "--format=%H", "main", "--", f"{GAME}/incoming/red").stdout == ""
    assert_published_is_the_moderators(shared)
    assert _pr_sync(shared)[0].startswith("nothing to do")                   # answered: not taken twice
    assert git(shared.moderator.root, "status", "--porcelain").stdout == ""
    # the player's next move goes in the same pull request
    red.pull()
    blue = shared.players["blue"]
    blue.pull()
    open_pull_request(blue, 8, {"0001.yaml": DRAW})
    assert "accepted blue/0001.yaml: entry 2; waiting for green" in _pr_sync(shared)
    assert audit(GameDir(assert_fresh_clone_checks_out(shared, "fresh") / GAME)).ok


def test_a_hostile_pull_request_changes_nothing_but_what_it_may(shared):
    blue = shared.players["blue"]
    red = shared.players["red"]
    red.pull()
    blue.pull()
    blue.git("checkout", "-q", "-b", "pr9", "origin/main")
    game = blue.game.root
    for rel, text in (("receipts/red/0000.txt", "rejected: forged\n"), ("public/extra.html", "<p>x</p>\n"),
                      ("moderator/git.yaml", "branch: hijack\n"), ("log.yaml", "forged: true\n")):
        (game / rel).parent.mkdir(parents=True, exist_ok=True)
        (game / rel).write_text(text)
    workflow = blue.clone / ".github" / "workflows" / "steal.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("on: push\n")
    blue.git("add", "-f", "-A", game, workflow)
    blue.git("commit", "-q", "-m", "blue changes everything")
    blue.git("push", "-q", "origin", "HEAD:refs/pull/9/head")
    blue.git("checkout", "-q", "main")
    open_pull_request(red, 10, {"0000.yaml": DRAW})
    lines = _pr_sync(shared)
    assert "accepted red/0000.yaml: entry 1; waiting for blue" in lines
    left = [line for line in lines if line.startswith("left out ")]
    assert f"left out {GAME}/log.yaml from pull request #9: only files under {GAME}/incoming/PLAYER/ are taken " \
           "from pull requests" not in left                  # pull request #9 has no move: it is not even read
    assert_published_is_the_moderators(shared)
    assert not shared.remote_files(".github")
    # once it carries a move, its other changes are listed (and still left out)
    blue.pull()
    open_pull_request(blue, 9, {"0001.yaml": DRAW})
    lines = _pr_sync(shared)
    assert "accepted blue/0001.yaml: entry 2; waiting for green" in lines
    left = [line for line in lines if line.startswith("left out ")]
    for path in (f"{GAME}/log.yaml", f"{GAME}/public/extra.html", f"{GAME}/moderator/git.yaml",
                 f"{GAME}/receipts/red/0000.txt", ".github/workflows/steal.yml"):
        assert f"left out {path} from pull request #9: only files under {GAME}/incoming/PLAYER/ are taken from " \
               "pull requests" in left, left
    assert_published_is_the_moderators(shared)
    assert git(shared.bare, "rev-parse", "--verify", "-q", "refs/heads/hijack", check=False).returncode != 0


def test_order_is_pull_request_number_then_commit_then_name_and_a_name_is_taken_once(shared):
    red, green = shared.players["red"], shared.players["green"]
    red.pull()
    green.pull()
    open_pull_request(green, 12, {"0000.yaml": DRAW})                   # not green's turn: refused
    open_pull_request(red, 11, {"z.yaml": DRAW, "y.yaml": DRAW})        # z committed before y
    open_pull_request(red, 13, {"0000.yaml": DRAW})                     # stale by then
    lines = [line.split(":")[0] for line in _pr_sync(shared) if line.startswith(("accepted", "rejected"))]
    assert lines == ["accepted red/z.yaml", "rejected red/y.yaml", "rejected green/0000.yaml",
                     "rejected red/0000.yaml"]
    assert "(in pull request #12, which the moderator" in shared.remote_text(f"{GAME}/receipts/green/0000.txt")
    assert "(in pull request #13, which the moderator" in shared.remote_text(f"{GAME}/receipts/red/0000.txt")


def test_the_same_name_in_two_pull_requests_and_a_changed_file(shared):
    red = shared.players["red"]
    red.pull()
    open_pull_request(red, 21, {"0000.yaml": DRAW})
    open_pull_request(red, 22, {"0000.yaml": [{"stop": True}]})
    lines = _pr_sync(shared)
    assert "accepted red/0000.yaml: entry 1; waiting for blue" in lines
    second = [line for line in lines if line.startswith("rejected red/0000.yaml")]
    assert len(second) == 1 and "was also sent in pull request #21; use a new file name" in second[0]
    assert _pr_sync(shared)[0].startswith("nothing to do")                   # both answered, each once
    # red changes the file in pull request #21 (new bytes, same name): a new item
    red.git("checkout", "-q", "pr21")
    paths = red.write_move("0000.yaml", [{"stop": True}])
    red.commit(paths, "red: changed")
    red.git("push", "-q", "origin", "HEAD:refs/pull/21/head")
    red.git("checkout", "-q", "main")
    lines = _pr_sync(shared)
    assert any(line.startswith("rejected red/0000.yaml: stale move") for line in lines), lines


def test_signed_commits_are_checked_in_pull_requests_too(tmp_path, key_pool, toy_registered, shared_templates):
    shared = make_shared(tmp_path, key_pool, "--verify-commits", templates=shared_templates)
    red = shared.players["red"]
    red.pull()
    open_pull_request(red, 31, {"0000.yaml": DRAW})                       # not signed
    lines = _pr_sync(shared)
    assert any(line.startswith("rejected red/0000.yaml: commit ") and "is not signed" in line for line in lines)
    open_pull_request(red, 31, {"0001.yaml": DRAW}, signing_key=red.key)  # signed by red
    assert "accepted red/0001.yaml: entry 1; waiting for blue" in _pr_sync(shared)


def test_the_setting_turns_pull_requests_on(shared):
    settings = shared.moderator.moderator_dir / "git.yaml"
    settings.write_text(settings.read_text().replace("pull_requests: false", "pull_requests: true"))
    red = shared.players["red"]
    red.pull()
    open_pull_request(red, 41, {"0000.yaml": DRAW})
    assert "accepted red/0000.yaml: entry 1; waiting for blue" in shared.sync().output
    red.send("0001.yaml", DRAW)                         # a push straight to the shared branch is still read
    assert "rejected red/0001.yaml" in shared.sync().output
    assert "nothing to do" in shared.sync("--no-pull-requests").output


def test_two_games_jobs_race_and_both_publish(tmp_path, key_pool, toy_registered, shared_templates):
    """Two games' moderators (CI jobs on fresh clones) take pull requests and push at the same time:
    the one that loses the race makes its commits again on top of the other's, keeping both."""
    from pipeline_helpers import new_game
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    root = shared.moderator.root.parent
    game2 = new_game(root / "game2", "toy", key_pool, ["red", "blue", "green"], seed=b"2" * 32)
    cli("init", game2.root)
    shared.sync()
    red = shared.players["red"]
    red.pull()
    open_pull_request(red, 51, {"0000.yaml": DRAW})                   # a move for game1 ...
    red.git("checkout", "-q", "-b", "pr52", "origin/main")               # ... and one for game2
    clone2 = GameDir(red.clone / "game2")
    from pbem.crypto import keys, sshsig
    from pbem.store.movefile import MoveFile, render_move
    entries = clone2.entries()
    raw = render_move(MoveFile(entries[0]["id"], "red", 0, entries[0]["hash"], DRAW)).encode()
    folder = clone2.root / "incoming" / "red"
    folder.mkdir(parents=True)
    (folder / "g2.yaml").write_bytes(raw)
    (folder / "g2.yaml.sig").write_text(sshsig.sign(keys.load_private_key(red.key), raw, sshsig.MOVE_NAMESPACE))
    red.commit([folder / "g2.yaml", folder / "g2.yaml.sig"], "red: game2")
    red.git("push", "-q", "origin", "HEAD:refs/pull/52/head")
    runners = {}
    for name, game in (("one", GAME), ("two", "game2")):
        clone = shared.fresh_clone(f"runner-{name}")
        for secret in ("seed", "moderator_ed25519"):
            source = (root / game / "moderator" / secret).read_bytes()
            (clone / game / "moderator").mkdir(exist_ok=True)
            (clone / game / "moderator" / secret).write_bytes(source)
        runners[name] = clone / game
    # runner one commits locally; runner two's push finds runner one's push there first
    git(runners["one"].parent, "fetch", "-q", "origin", "+refs/pull/*/head:refs/pbem/pull/*")
    assert "committed 1 commit(s) locally" in cli("sync", runners["one"], "--pull-requests", "--local").output
    marker = tmp_path / "raced"
    hook = runners["two"].parent / ".git" / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\n"
                    f"[ -e '{marker}' ] && exit 0\ntouch '{marker}'\n"
                    "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_QUARANTINE_PATH\n"
                    f"git -C '{runners['one'].parent}' push -q origin HEAD:main >/dev/null 2>&1 || exit 1\n")
    hook.chmod(0o755)
    out = cli("sync", runners["two"], "--pull-requests").output
    assert "accepted red/g2.yaml: entry 1" in out and "others pushed meanwhile 1 time(s)" in out
    final = shared.fresh_clone("auditor")
    assert [len(GameDir(final / g).entries()) for g in (GAME, "game2")] == [2, 2]
    for game, name in ((GAME, "0000"), ("game2", "g2")):
        assert git(final, "show", f"HEAD:{game}/receipts/red/{name}.txt").stdout.startswith("accepted")
    assert git(final, "log", "--format=%H", "HEAD", "--", f"{GAME}/incoming/red", "game2/incoming/red").stdout == ""
