"""The git turn exchange end to end with the real git CLI: a bare repository as
the shared remote, one clone per player and the moderator's clone."""
from __future__ import annotations

import os
import stat

import pytest
from test_git_helpers import GAME, PLAYERS, cli, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.transport.git.sync import SyncOptions, sync

DRAW = [{"draw": True}]
STOP = [{"stop": True}]


@pytest.fixture
def shared(tmp_path, key_pool, toy_registered, shared_templates):
    return make_shared(tmp_path, key_pool, templates=shared_templates)


def _receipt(shared, player, name):
    return shared.remote_text(f"{GAME}/receipts/{player}/{name}.txt")


def test_set_up_commit_has_the_game_but_never_the_moderator_folder(shared):
    files = shared.remote_files(GAME)
    assert f"{GAME}/log.yaml" in files and f"{GAME}/incoming/README.md" in files
    assert any(f.startswith(f"{GAME}/secrets/") for f in files)
    assert not any("/moderator/" in f for f in files)
    assert f"{GAME}/moderator.seed.age" not in files           # only sealed on request


@pytest.mark.slow(seconds=3)
def test_a_whole_game_through_git_then_audit_on_a_fresh_clone(shared):
    moves = 0
    while waiting := shared.waiting_for():
        player = shared.players[waiting[0]]
        index = GameDir(shared.moderator.root).entries()[-1]["index"]
        player.send(f"{index:04d}.yaml", DRAW)
        out = shared.sync().output
        assert f"accepted {player.name}/{index:04d}.yaml: entry {index + 1}" in out
        assert "pushed" in out
        moves += 1
        assert moves < 30
    assert moves == 9                                           # 3 players x 3 cards
    subjects = git(shared.bare, "log", "--format=%s", "main").stdout.splitlines()
    assert "entry 1: red's move accepted; waiting for blue" in subjects
    assert any(s.startswith("entry 9: green's move accepted; waiting for nobody") for s in subjects)
    receipt = _receipt(shared, "red", "0000")
    assert receipt.startswith("accepted: red's move") and "log entry: 1" in receipt and "move sha256: " in receipt
    assert shared.remote_files(f"{GAME}/incoming/") == [f"{GAME}/incoming/README.md"]

    # players' view: a fresh clone audits (no seed yet: chain, signatures, moves), with every signed receipt
    clone = shared.fresh_clone("auditor")
    receipts_dir = clone / GAME / "receipts"
    assert len(list(receipts_dir.rglob("*.receipt.yaml"))) == 9
    report = audit(GameDir(clone / GAME), [receipts_dir])
    assert report.ok, report.problems
    assert any("9 receipt(s) checked" in note for note in report.notes)
    assert not (clone / GAME / "moderator").exists()
    seed = shared.moderator.seed_path.read_text().strip()
    history = git(shared.bare, "log", "-p", "--all", "--format=%H %s%n%b").stdout
    assert seed not in history and seed.upper() not in history
    names = git(shared.bare, "log", "--all", "--name-only", "--format=").stdout
    assert f"{GAME}/moderator/" not in names

    # the moderator reveals at the end: the fresh clone then replays everything
    assert "pushed" in shared.sync("--reveal-at-end").output
    git(clone, "pull", "-q", "--ff-only")
    report = audit(GameDir(clone / GAME))
    assert report.ok, report.problems
    assert any("replayed" in note for note in report.notes)
    git(shared.bare, "fsck", "--strict")


def test_order_is_commit_order_then_file_name(shared):
    red = shared.players["red"]
    red.pull()
    # one commit with two moves for the same position: b.yaml is taken after a.yaml
    red.commit(red.write_move("b.yaml", STOP) + red.write_move("a.yaml", DRAW), "two at once")
    # a later commit: z.yaml comes after both, although its name sorts last anyway; y.yaml
    # in a third commit shows that the commit decides before the name
    red.commit(red.write_move("z.yaml", DRAW), "later")
    red.commit(red.write_move("y.yaml", DRAW), "even later")
    red.git("push", "-q")
    out = shared.sync().output.splitlines()
    order = [line.split(":")[0] for line in out if line.startswith(("accepted", "rejected"))]
    assert order == ["accepted red/a.yaml", "rejected red/b.yaml", "rejected red/z.yaml", "rejected red/y.yaml"]
    assert "stale move" in _receipt(shared, "red", "b").splitlines()[0]
    assert shared.remote_files(f"{GAME}/incoming/red") == []


def test_a_ref_another_git_holds_for_a_moment_is_waited_for(shared):
    """A git that outlived a killed sync, or the moderator's own `git fetch`, may hold the clone's
    remote-tracking ref when a sync starts: the sync's git waits for it (core.filesRefLockTimeout;
    git's own 100 ms made test_git_sync_crash fail now and then on a loaded machine)."""
    import threading
    red = shared.players["red"]
    red.pull()
    red.commit(red.write_move("0000.yaml", DRAW), "red's move")
    red.git("push", "-q")
    lock = shared.moderator.root.parent / ".git" / "refs" / "remotes" / "origin" / "main.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    held = threading.Timer(1.0, lock.unlink)
    held.start()
    try:
        out = shared.sync().output
    finally:
        held.join()
    assert "accepted red/0000.yaml" in out, out
    assert not lock.exists()


def test_push_race_moderator_takes_in_the_players_new_commit(shared, tmp_path):
    red, blue = shared.players["red"], shared.players["blue"]
    red.send("0000.yaml", DRAW)
    # blue commits a (too early) move now and pushes it while the moderator is pushing
    blue.pull()
    blue.commit(blue.write_move("early.yaml", DRAW), "blue is early")
    _push_during_the_moderators_push(shared, blue.clone)
    report = sync(shared.moderator, SyncOptions())
    assert report.pushed and report.races == 1
    assert [o.item for o in report.outcomes] == ["red/0000.yaml", "blue/early.yaml"]
    assert _receipt(shared, "red", "0000").startswith("accepted")
    assert _receipt(shared, "blue", "early").startswith("rejected: stale move")
    blue_head = blue.git("rev-parse", "HEAD").stdout.strip()
    assert git(shared.bare, "merge-base", "--is-ancestor", blue_head, "main", check=False).returncode == 0
    assert shared.remote_files(f"{GAME}/incoming/blue") == []
    assert audit(GameDir(shared.fresh_clone("auditor") / GAME)).ok
    git(shared.bare, "fsck", "--strict")


def test_push_race_on_a_file_the_moderator_processed_makes_the_changed_file_a_new_item(shared):
    """The moderator's disk is the truth: a move it took stays taken.  A file changed in place under
    the same name while the moderator pushed is a new item (its bytes differ from what the receipt
    records), answered in the same sync; nothing pushed is lost."""
    red = shared.players["red"]
    red.send("0000.yaml", STOP)
    # red corrects the move in place and pushes the change while the moderator pushes
    red.commit(red.write_move("0000.yaml", DRAW), "red changes its mind")
    _push_during_the_moderators_push(shared, red.clone)
    report = sync(shared.moderator, SyncOptions())
    assert report.pushed and report.races == 1
    assert [(o.item, o.accepted) for o in report.outcomes] == [("red/0000.yaml", True), ("red/0000.yaml", False)]
    assert "stale move" in report.outcomes[1].text
    log = shared.remote_text(f"{GAME}/log.yaml")
    assert "stopped: red" in log and "drew: red" not in log          # the first version was taken, once
    receipt = _receipt(shared, "red", "0000")                        # the answer to the second version
    assert receipt.startswith("rejected: stale move")
    changed = git(red.clone, "rev-parse", f"HEAD:{GAME}/incoming/red/0000.yaml").stdout.strip()
    assert f"git blobs: {changed} " in receipt
    assert shared.remote_files(f"{GAME}/incoming/red") == []
    report = audit(GameDir(shared.fresh_clone("auditor") / GAME))
    assert report.ok, report.problems                             # and the archive is what was signed


def test_a_player_whose_push_races_the_moderator_pulls_and_pushes_again(shared):
    red, blue = shared.players["red"], shared.players["blue"]
    blue.pull()                                   # blue's clone is now behind what comes next
    red.send("0000.yaml", DRAW)
    shared.sync()
    blue.commit(blue.write_move("0001.yaml", DRAW), "blue moves")   # written from a stale log: rejected later
    refused = blue.git("push", "-q", check=False)
    assert refused.returncode != 0 and "rejected" in refused.stderr
    blue.git("pull", "--rebase", "-q")            # the documented retry
    blue.git("push", "-q")
    shared.sync()
    assert _receipt(shared, "blue", "0001").startswith("rejected: stale move")
    blue.pull()
    blue.send("0002.yaml", DRAW)
    shared.sync()
    assert _receipt(shared, "blue", "0002").startswith("accepted: blue's move")


def test_layout_problems_get_receipts_and_are_removed(shared):
    red = shared.players["red"]
    red.pull()
    inc = red.game.root / "incoming"
    paths = red.write_move("theirs.yaml", DRAW, owner="red", player="blue", key=shared.key_pool["blue"])
    paths += red.write_move("ghost.yaml", DRAW, owner="nobody")
    nosig = red.write_move("nosig.yaml", DRAW)
    nosig[1].unlink()
    lonely = red.write_move("lonely.yaml", DRAW)
    lonely[0].unlink()
    (inc / "red" / "notes.txt").write_text("hello\n")
    (inc / "red" / "sub").mkdir()
    (inc / "red" / "sub" / "x.yaml").write_text("x\n")
    (inc / "0003.yaml").write_text("format: pbem-move/1\n")          # directly in incoming/, no player folder
    paths += [nosig[0], lonely[1], inc / "red" / "notes.txt", inc / "red" / "sub" / "x.yaml", inc / "0003.yaml"]
    red.commit(paths, "all sorts")
    red.git("push", "-q")
    out = shared.sync().output
    assert "accepted" not in out
    assert "signed with blue's key but it was put in incoming/red/" in _receipt(shared, "red", "theirs")
    assert "no player 'nobody'" in _receipt(shared, "nobody", "ghost")
    assert "no signature file nosig.yaml.sig" in _receipt(shared, "red", "nosig")
    assert "has no move file lonely.yaml" in _receipt(shared, "red", "lonely")
    assert "not a move file" in _receipt(shared, "red", "notes.txt")
    deep = [p for p in shared.remote_files(f"{GAME}/receipts/red/_sub-x.yaml-") if p.endswith(".txt")]
    assert len(deep) == 1 and "not in a sub-folder" in shared.remote_text(deep[0])
    assert "put directly in incoming/" in _receipt(shared, "_misplaced", "0003.yaml")
    assert shared.remote_files(f"{GAME}/incoming/") == [f"{GAME}/incoming/README.md"]
    assert len(GameDir(shared.moderator.root).entries()) == 1


def test_a_change_outside_incoming_is_left_out_and_reported_never_a_stop(shared):
    red = shared.players["red"]
    red.pull()
    log = red.game.log_path
    log.write_text(log.read_text() + "# red was here\n")
    red.commit([log], "tamper")
    red.send("0000.yaml", DRAW, pull=False)                   # and a real move behind it
    result = shared.sync()
    lines = result.output.splitlines()
    assert "accepted red/0000.yaml: entry 1; waiting for blue" in lines
    assert any(line.startswith(f"left out {GAME}/log.yaml: changed by a push") for line in lines), lines
    published = shared.remote_text(f"{GAME}/log.yaml")
    assert published == shared.moderator.log_path.read_text() and "red was here" not in published
    body = git(shared.bare, "log", "-1", "--format=%B", "main").stdout
    assert f"left out {GAME}/log.yaml" in body
    assert "left out" not in shared.sync().output                # said once; nothing left to say


def test_the_moderators_own_changes_are_published_and_a_half_done_merge_is_refused(shared, key_pool):
    from pipeline_helpers import signed_move

    from pbem.pipeline.submit import submit
    from pbem.store.table import Table
    assert "nothing to do" in shared.sync().output
    # the moderator takes a move by hand (pbem submit): the next sync publishes it, no "uncommitted changes"
    submit(shared.moderator, *signed_move(Table.load(shared.moderator), "red", DRAW, key_pool["red"]))
    out = shared.sync().output
    assert "pushed 1 commit(s)" in out
    subject = git(shared.bare, "log", "-1", "--format=%s", "main").stdout.strip()
    assert subject == "entry 1: published from the moderator's files; waiting for blue"
    assert shared.remote_text(f"{GAME}/log.yaml") == shared.moderator.log_path.read_text()
    assert git(shared.moderator.root, "status", "--porcelain").stdout == ""
    # a merge the moderator left half done is theirs to finish
    root = shared.moderator.root.parent
    (root / ".git" / "MERGE_HEAD").write_text(git(root, "rev-parse", "HEAD").stdout)
    result = shared.sync(ok=False)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "a merge is unfinished" in result.output and "git merge --abort" in result.output

def test_only_the_regular_files_of_the_moderators_folder_are_published(shared):
    """What the sync lists on disk (`tree.regular_files`): regular files in every folder, never a link (to a
    file or a folder), a FIFO, a `.git` name in any case, pbem's temporary files, the private moderator/
    folder or a sub-folder of incoming/ (the players' files come from git, not from the moderator's disk)."""
    root = shared.moderator.root
    (root / "public" / "notes.txt").write_text("kept\n")
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "sub" / "deeper" / "file.txt").write_text("kept too\n")
    (root / "public" / ".notes.abcdef.tmp").write_text("a temporary file\n")
    (root / "public" / "link.txt").symlink_to("../log.yaml")
    os.mkfifo(root / "public" / "fifo")
    (root / "public" / ".GIT. ").write_text("not a name git can hold\n")
    (root / "sub" / ".Git").mkdir()
    (root / "sub" / ".Git" / "config").write_text("[core]\n")
    outside = shared.tmp / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not in the game folder\n")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "incoming" / "red").mkdir(parents=True)
    (root / "incoming" / "red" / "0000.yaml").write_text("on the moderator's disk only\n")
    (root / "moderator" / "notes.txt").write_text("private\n")
    before = set(shared.remote_files(f"{GAME}/"))
    assert "pushed 1 commit(s)" in shared.sync().output
    added = set(shared.remote_files(f"{GAME}/")) - before
    assert added == {f"{GAME}/public/notes.txt", f"{GAME}/sub/deeper/file.txt"}, added
    assert shared.remote_text(f"{GAME}/sub/deeper/file.txt") == "kept too\n"
    assert before <= set(shared.remote_files(f"{GAME}/"))
    subject = git(shared.bare, "log", "-1", "--format=%s", "main").stdout.strip()
    assert subject == "pbem: the moderator's files, published"



def test_local_mode_commits_without_pushing(shared):
    shared.players["red"].send("0000.yaml", DRAW)
    git(shared.moderator.root, "pull", "-q", "--ff-only")
    before = git(shared.bare, "rev-parse", "main").stdout
    out = shared.sync("--local").output
    assert "accepted red/0000.yaml" in out and "committed 1 commit(s) locally" in out
    assert git(shared.bare, "rev-parse", "main").stdout == before


def _push_during_the_moderators_push(shared, clone):
    """A real race: the moderator clone's pre-push hook pushes the player's commit first (once)."""
    hook = shared.moderator.root.parent / ".git" / "hooks" / "pre-push"
    marker = shared.tmp / "raced"
    hook.write_text(
        "#!/bin/sh\n"
        f"[ -e '{marker}' ] && exit 0\n"
        f"touch '{marker}'\n"
        "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_QUARANTINE_PATH\n"
        f"git -C '{clone}' push -q origin HEAD:main >/dev/null 2>&1 || exit 1\n"
        "exit 0\n")
    os.chmod(hook, hook.stat().st_mode | stat.S_IEXEC)


#: what a player answers when the public files cannot list their choices (their hand is hidden there)
PUBLIC_FALLBACK = {"play-tile": {"play": "none"}, "move": {"done": "move"}, "blue-tile": {"play": "none"},
                   "deploy": {"deploy": "none"}, "defense": {"defend": "none"}, "steal": {"steal": "none"}}


@pytest.mark.parametrize("game, late", [
    pytest.param("atlantis", False, marks=pytest.mark.slow(seconds=65)),
    # the Survive family's whole game through git is Atlantis's: Space Attack's starts late (`pbem new --position`)
    pytest.param("space-attack", True, marks=pytest.mark.slow(seconds=10)),
])
def test_a_survive_game_through_git_to_its_end_with_players_working_from_their_clones(tmp_path, key_pool, game, late):
    """Each player pulls, lets a bot write a move from the public files in their clone (no seed),
    signs it and pushes; the moderator syncs; a fresh clone audits the whole game after the reveal
    (for a game started from a position: from the revealed start position)."""
    from pipeline_helpers import late_position

    from pbem.core.rng import Rng
    from pbem.pipeline.botmoves import bot_move_file
    from pbem.store.table import Table

    shared = make_shared(tmp_path, key_pool, game=game, position=late_position(game, PLAYERS) if late else None)
    assert (shared.moderator.entries()[0]["start"] != "setup") == late
    moves = 0
    while waiting := shared.waiting_for():
        player = shared.players[waiting[0]]
        player.catch_up()
        table = Table.load_public(GameDir(player.clone / GAME))
        move = bot_move_file(table, player.name, Rng(b"git-bots", str(moves)), "greedy")
        # the public files cannot list tile plays from a hidden hand: this player keeps their tiles
        decision = table.game.pending(table.state)[0].kind
        actions = move.actions or [PUBLIC_FALLBACK[decision]]
        index = table.last["index"]
        player.send(f"{index:04d}.yaml", actions, pull=False)      # caught up above
        assert f"accepted {player.name}/{index:04d}.yaml" in shared.sync().output
        moves += 1
        assert moves < 400, "the game did not end"
    assert "pushed" in shared.sync("--reveal-at-end").output
    clone = shared.fresh_clone("auditor")
    report = audit(GameDir(clone / GAME))
    assert report.ok, report.problems
    assert any("replayed" in note for note in report.notes)


@pytest.mark.slow(seconds=40)
def test_a_whole_space_swarm_game_through_git_with_players_using_their_own_secrets(tmp_path, key_pool):
    """As above, with the hidden hands of Space Swarm: each player's bot works on the player's own
    view, read from their encrypted secrets in the clone with their key (as `pbem turn --key` does)."""
    from pbem.core.rng import Rng
    from pbem.pipeline.botmoves import bot_move_file
    from pbem.pipeline.turn import player_table

    shared = make_shared(tmp_path, key_pool, game="space-swarm")
    moves = 0
    while waiting := shared.waiting_for():
        player = shared.players[waiting[0]]
        player.catch_up()
        table, private = player_table(GameDir(player.clone / GAME), player.name, key_pool[player.name], None)
        assert private
        move = bot_move_file(table, player.name, Rng(b"git-bots", str(moves)), "greedy")
        assert move.actions, f"{player.name} could not move from their own view"
        index = table.last["index"]
        player.send(f"{index:04d}.yaml", move.actions, pull=False)
        assert f"accepted {player.name}/{index:04d}.yaml" in shared.sync().output
        moves += 1
        assert moves < 400, "the game did not end"
    assert "pushed" in shared.sync("--reveal-at-end").output
    report = audit(GameDir(shared.fresh_clone("auditor") / GAME))
    assert report.ok, report.problems


def test_two_games_in_one_clone_each_publishes_its_own_folder_and_keeps_the_others_moves(shared, key_pool):
    from pipeline_helpers import new_game
    root = shared.moderator.root.parent
    game2 = new_game(root / "game2", "toy", key_pool, ["red", "blue", "green"], seed=b"2" * 32)
    cli("init", game2.root)
    assert "pushed 1 commit(s)" in shared.sync().output       # game2's set-up commit goes out with game1's sync
    assert "nothing to do" in cli("sync", game2.root).output
    red = shared.players["red"]
    red.send("0000.yaml", DRAW)                               # a move for game1
    red.pull()
    clone2 = GameDir(red.clone / "game2")
    from pbem.crypto import keys, sshsig
    from pbem.store.movefile import MoveFile, render_move
    entries = clone2.entries()
    raw = render_move(MoveFile(entries[0]["id"], "red", 0, entries[0]["hash"], DRAW)).encode()
    folder = clone2.root / "incoming" / "red"
    folder.mkdir(parents=True)
    (folder / "g2.yaml").write_bytes(raw)
    (folder / "g2.yaml.sig").write_text(sshsig.sign(keys.load_private_key(red.key), raw, sshsig.MOVE_NAMESPACE))
    (clone2.public_dir / "digest.txt").write_text("forged\n")           # and a forgery in game2
    red.commit([folder / "g2.yaml", folder / "g2.yaml.sig", clone2.public_dir / "digest.txt"], "red: game2")
    red.git("push", "-q")
    out = shared.sync().output                                # game1's sync: game2's folder passes as pushed
    assert "accepted red/0000.yaml: entry 1" in out and "left out" not in out
    assert shared.remote_files("game2/incoming/red") == ["game2/incoming/red/g2.yaml", "game2/incoming/red/g2.yaml.sig"]
    out = cli("sync", game2.root).output                      # game2's own sync takes its move, undoes the forgery
    assert "accepted red/g2.yaml: entry 1" in out
    assert shared.remote_text("game2/public/digest.txt") == (game2.public_dir / "digest.txt").read_text()
    assert shared.remote_text(f"{GAME}/log.yaml") == shared.moderator.log_path.read_text()
    assert git(root, "status", "--porcelain").stdout == ""


def test_two_games_of_one_clone_synced_at_once_wait_for_each_other(shared, key_pool):
    """Two cron lines, one per game of the same clone, start together: the second sync waits for the
    first (each moves the clone's HEAD, index and branch) instead of failing on git's HEAD lock, and
    both publish.  The first sync's push is held for a moment (a pre-push hook), so that the second
    one starts while the first is half done."""
    import threading
    import time

    from pipeline_helpers import new_game

    from pbem.pipeline.moderator import moderate
    root = shared.moderator.root.parent
    game2 = new_game(root / "game2", "toy", key_pool, ["red", "blue", "green"], seed=b"2" * 32)
    cli("init", game2.root)
    assert "pushed" in cli("sync", game2.root).output
    shared.players["red"].send("0000.yaml", DRAW)            # work for game1's sync: a move to take
    moderate(game2, "note", "welcome to game 2")            # and for game2's: a new entry to publish
    held = shared.tmp / "held"
    hook = root / ".git" / "hooks" / "pre-push"
    hook.write_text(f"#!/bin/sh\n[ -e '{held}' ] && exit 0\ntouch '{held}'\nsleep 1.5\nexit 0\n")
    os.chmod(hook, hook.stat().st_mode | stat.S_IEXEC)
    failures: list[BaseException] = []
    reports = {}

    def run(name, gd):
        try:
            reports[name] = sync(gd, SyncOptions())
        except BaseException as exc:       # noqa: BLE001  (shown below, whatever it is)
            failures.append(exc)

    first = threading.Thread(target=run, args=("game1", shared.moderator))
    first.start()
    for _ in range(200):                    # the first sync is pushing (its hook holds it there)
        if held.exists():
            break
        time.sleep(0.02)
    assert held.exists(), "the first sync never pushed"
    second = threading.Thread(target=run, args=("game2", game2))
    second.start()
    first.join(60)
    second.join(60)
    assert not failures, failures
    assert [(o.item, o.accepted) for o in reports["game1"].outcomes] == [("red/0000.yaml", True)]
    assert reports["game1"].pushed and reports["game2"].pushed
    assert shared.remote_text(f"{GAME}/log.yaml") == shared.moderator.log_path.read_text()
    assert shared.remote_text("game2/log.yaml") == (game2.root / "log.yaml").read_text()
    assert "welcome to game 2" in shared.remote_text("game2/log.yaml")
    assert git(root, "status", "--porcelain").stdout == ""


@pytest.mark.parametrize("options", [(), ("--remote", "origin"), ("--branch", "main")])
def test_after_its_push_the_moderators_branch_follows_the_shared_one_so_plain_git_pull_works(shared, options):
    root = shared.moderator.root.parent
    git(root, "branch", "--unset-upstream", check=False)
    assert git(root, "rev-parse", "--abbrev-ref", "@{u}", check=False).returncode != 0
    shared.players["red"].send("0000.yaml", DRAW)
    assert "pushed" in shared.sync(*options).output
    assert git(root, "rev-parse", "--abbrev-ref", "@{u}").stdout.strip() == "origin/main"


def test_a_stale_move_pushed_by_a_player_in_civil_disorder_returns_the_seat(tmp_path, key_pool, toy_registered):
    """Civil disorder through git: red misses a deadline, blue and green draw, the sync's tick puts
    red into civil disorder (a bot decides at once); red pushes the move written on the first
    position: refused as stale, but the moderator appends a signed `return` and the receipt says
    the seat is red's again; the next tick leaves red's decision to red."""
    import time

    from test_missed_turns import _three_after_red_missed_one

    from pbem.pipeline.deadlines import tick
    from pbem.store.missedturns import in_disorder
    probe = _three_after_red_missed_one(tmp_path / "probe", key_pool)    # a seed whose bot draws for red
    (tmp_path / "world").mkdir()
    shared = make_shared(tmp_path / "world", key_pool, seed=bytes([int(probe.root.name[1:])]) * 32,
                         deadlines=probe.entries()[0]["deadlines"])
    gd = GameDir(shared.moderator.root)
    red = shared.players["red"]
    red.pull()
    late = red.write_move("late.yaml", DRAW)                            # red's move on the first position, not sent
    assert [e["action"] for e in tick(gd, now=time.time() + 49 * 3600, max_entries=1).entries] == ["timeout"]
    shared.sync()
    shared.players["blue"].send("b.yaml", DRAW)
    assert "accepted blue/b.yaml" in shared.sync().output
    shared.players["green"].send("g.yaml", DRAW)
    out = shared.sync("--tick").output
    assert "accepted green/g.yaml" in out, out
    assert in_disorder(gd.entries(), "red")
    assert [e.get("action") for e in gd.entries()[-2:]] == ["disorder", "bot-move"]
    red.git("stash", "-u", "-q")
    red.pull()
    red.git("stash", "pop", "-q")
    red.commit(late, "red: my move, late")
    red.git("push", "-q")
    out = shared.sync("--tick").output
    back = gd.entries()[-1]
    assert (back["action"], back["player"]) == ("return", "red"), out
    assert back["reason"].startswith("red sent a move (incoming/red/late.yaml), written after entry 0")
    assert "rejected red/late.yaml: red's seat is red's again: civil disorder is over" in out, out
    receipt = _receipt(shared, "red", "late")
    assert f"civil disorder is over (moderator entry {back['index']})" in receipt and "stale move" in receipt
    assert not in_disorder(gd.entries(), "red")
    clone = shared.fresh_clone("auditor")
    published = GameDir(clone / GAME).entries()
    assert published[-1]["action"] == "return" and published[-1]["hash"] == back["hash"]
    report = audit(GameDir(clone / GAME))
    assert report.ok, report.problems
