"""Hostile pushes to the shared branch (real git, a bare remote): none can stop, fool or stall the sync.

Each probe is one push, made the way an attacker would: through a clone (`git add -f`) or, for
trees no clone can hold (a `..` or `.git` entry, a name that is not UTF-8, a link, a submodule),
with plumbing (`mktree`, `commit-tree`, `update-ref`) straight into the bare repository.  A valid
move is pushed behind it.  After one `pbem git sync`:

* the valid move is accepted; every line printed is one clean line; nothing stops;
* the game folder on the shared branch, outside incoming/, is byte for byte the moderator's files,
  incoming/ holds only its README, and nothing else the attacker added is left at the root;
* a fresh clone of the shared branch checks out without an error;
* the moderator's clone shows no change (`git status`), and the next sync has nothing to say.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_harness import assert_clean_line
from pipeline_helpers import signed_move
from test_git_helpers import GAME, Shared, cli, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.base.fsutil import TEMP_NAME
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

DRAW = [{"draw": True}]


# --- writing trees no clone could hold, straight into the bare repository ---------------------------

def git_bytes(cwd: Path, *args: str, stdin: bytes = b"") -> bytes:
    import subprocess
    proc = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def blob(bare: Path, data: bytes) -> str:
    return git_bytes(bare, "hash-object", "-w", "--stdin", stdin=data).decode().strip()


def _put(bare: Path, tree: str | None, parts: list[bytes], mode: str, oid: str | None) -> str:
    entries: dict[bytes, tuple[str, str, str]] = {}
    if tree:
        for record in git_bytes(bare, "ls-tree", "-z", tree).split(b"\0"):
            if record:
                meta, _, name = record.partition(b"\t")
                m, kind, o = meta.decode().split()
                entries[name] = (m, kind, o)
    head = parts[0]
    if len(parts) == 1:
        if oid is None:
            entries.pop(head, None)
        else:
            entries[head] = (mode, "commit" if mode == "160000" else "blob", oid)
    else:
        sub = entries.get(head)
        entries[head] = ("040000", "tree", _put(bare, sub[2] if sub and sub[1] == "tree" else None, parts[1:],
                                                mode, oid))
    stdin = b"".join(f"{m} {k} {o}\t".encode() + name + b"\0" for name, (m, k, o) in entries.items())
    return git_bytes(bare, "mktree", "-z", stdin=stdin).decode().strip()


def graft(bare: Path, files: dict[bytes, tuple[str, str | None]], message: str) -> str:
    """A commit on main whose tree is main's with ``files`` (path -> (mode, object id), None removes)
    set, whatever the names: built with mktree, committed with commit-tree, moved with update-ref."""
    parent = git_bytes(bare, "rev-parse", "main").decode().strip()
    tree = git_bytes(bare, "rev-parse", "main^{tree}").decode().strip()
    for path, (mode, oid) in files.items():
        tree = _put(bare, tree, path.split(b"/"), mode, oid)
    commit = git_bytes(bare, "-c", "user.name=mallory", "-c", "user.email=m@x", "commit-tree", tree, "-p", parent,
                        "-m", message).decode().strip()
    git_bytes(bare, "update-ref", "refs/heads/main", commit, parent)
    return commit


def valid_move_behind(shared: Shared, name: str) -> str:
    """The next player's good move, grafted into incoming/PLAYER/ on top of whatever is there."""
    table = Table.load(shared.moderator)
    player = table.game.pending(table.state)[0].player
    raw, sig = signed_move(table, player, DRAW, shared.key_pool[player])
    base = f"{GAME}/incoming/{player}/{name}".encode()
    graft(shared.bare, {base: ("100644", blob(shared.bare, raw)),
                        base + b".sig": ("100644", blob(shared.bare, sig.encode()))}, f"{player}: {name}")
    return f"{player}/{name}"


# --- what must hold after every probe ---------------------------------------------------------------------

def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def assert_published_is_the_moderators(shared: Shared, listing: bytes | None = None) -> None:
    """``listing``: `git ls-tree -r -z` of the shared branch's commit, when the caller has it already."""
    if listing is None:
        listing = git_bytes(shared.bare, "ls-tree", "-r", "-z", "main")
    remote = {}
    for record in listing.split(b"\0"):
        if record:
            meta, _, path = record.partition(b"\t")
            remote[path] = meta.decode().split()[2]
    assert {p.split(b"/")[0] for p in remote} == {GAME.encode()}, sorted(remote)[:5]
    prefix = GAME.encode() + b"/"
    incoming = sorted(p for p in remote if p.startswith(prefix + b"incoming/"))
    assert incoming == [prefix + b"incoming/README.md"], incoming
    published = {p[len(prefix):]: oid for p, oid in remote.items() if not p.startswith(prefix + b"incoming/")}
    root = shared.moderator.root
    disk = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if rel_dir.parts[:1] in (("moderator",), ("incoming",)):
            continue
        for name in filenames:
            if not TEMP_NAME.match(name):
                disk[os.fsencode(rel_dir / name).removeprefix(b"./")] = _blob_id((Path(dirpath) / name).read_bytes())
    assert published == disk


def assert_fresh_clone_checks_out(shared: Shared, name: str) -> Path:
    clone = shared.tmp / name
    proc = git(shared.tmp, "clone", "-q", shared.bare, clone, check=False)
    assert proc.returncode == 0 and "error" not in proc.stderr.lower(), proc.stderr
    assert git(clone, "status", "--porcelain").stdout == ""
    return clone


def sync_after(shared: Shared, valid: str) -> list[str]:
    result = shared.sync()
    lines = result.output.splitlines()
    for line in lines:
        assert_clean_line(line, "git sync output")
    assert any(line.startswith(f"accepted {valid}: entry ") for line in lines), lines
    assert lines[-1].startswith("pushed ")
    assert_published_is_the_moderators(shared)
    assert git(shared.moderator.root, "status", "--porcelain").stdout == ""
    again = shared.sync().output
    assert again.startswith("nothing to do"), again
    return lines


# --- the probes -------------------------------------------------------------------------------------------

def _incoming(shared: Shared, *parts: bytes) -> bytes:
    return b"/".join((GAME.encode(), b"incoming", *parts))


def probe_not_utf8(shared: Shared) -> str:
    graft(shared.bare, {_incoming(shared, b"red", b"caf\xe9.yaml"): ("100644", blob(shared.bare, b"x: 1\n")),
                        _incoming(shared, b"r\xffd", b"0001.yaml"): ("100644", blob(shared.bare, b"x: 2\n"))},
          "names that are not UTF-8")
    return "is not UTF-8"


def probe_dot_dot(shared: Shared) -> str:
    b = blob(shared.bare, b"evil\n")
    graft(shared.bare, {_incoming(shared, b"red", b"..", b"x.yaml"): ("100644", b),
                        _incoming(shared, b"..", b"y.yaml"): ("100644", b),
                        b"../escape": ("100644", b)}, "'..' entries")
    return "'..'"


def probe_dot_git(shared: Shared) -> str:
    hook = blob(shared.bare, b"#!/bin/sh\necho pwned\n")
    graft(shared.bare, {_incoming(shared, b"red", b".git", b"hooks", b"post-checkout"): ("100755", hook),
                        _incoming(shared, b".GIT", b"config"): ("100644", blob(shared.bare, b"[core]\n")),
                        b".git/hooks/post-checkout": ("100755", hook),
                        f"{GAME}/.Git/config".encode(): ("100644", hook)}, "'.git' entries")
    return ".git"


def probe_control_characters(shared: Shared) -> str:
    graft(shared.bare, {_incoming(shared, b"red", b"a\x1b[31mb.yaml"): ("100644", blob(shared.bare, b"x\n")),
                        _incoming(shared, b"red", "rtl\u202eb.yaml".encode()): ("100644", blob(shared.bare, b"y\n"))},
          "escape sequences in names")
    return "control characters"


def probe_gitattributes(shared: Shared) -> str:
    red = shared.players["red"]
    red.pull()
    attributes = b"*.yaml working-tree-encoding=UTF-16\n*.yaml filter=evil\n*.sig text eol=crlf\n* ident\n"
    for path in (red.game.root / "incoming" / ".gitattributes", red.game.root / "incoming" / "red" / ".gitattributes",
                 red.clone / ".gitattributes", red.game.root / ".gitattributes"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(attributes)
        red.git("add", "-f", path)
    red.git("commit", "-q", "-m", "attributes for everyone")
    red.git("push", "-q")
    return ".gitattributes"


def probe_forced_private_settings(shared: Shared) -> str:
    red = shared.players["red"]
    red.pull()
    settings = red.game.root / "moderator" / "git.yaml"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text("branch: hijack\nverify_commits: false\n")
    (red.game.root / "moderator" / "seed").write_text("00" * 32 + "\n")
    red.git("add", "-f", settings, red.game.root / "moderator" / "seed")
    red.git("commit", "-q", "-m", "my settings now")
    red.git("push", "-q")
    return "moderator/git.yaml"


def probe_forged_files(shared: Shared) -> str:
    red = shared.players["red"]
    red.pull()
    game = red.game.root
    (game / "receipts" / "blue").mkdir(parents=True, exist_ok=True)
    (game / "receipts" / "blue" / "0000.txt").write_text("rejected: blue's move was never valid\n")
    (game / "public" / "extra.html").write_text("<script>alert(1)</script>\n")
    (game / "public" / "digest.txt").write_text("red wins\n")
    (game / "secrets" / "blue.age").write_bytes(b"not age at all")
    (game / "moves").mkdir(exist_ok=True)
    (game / "moves" / "000009-red.yaml").write_text("forged: true\n")
    red.git("add", "-A", game)
    red.git("commit", "-q", "-m", "forgeries")
    red.git("push", "-q")
    return "public/extra.html"


def probe_links_and_submodules(shared: Shared) -> str:
    commit = git_bytes(shared.bare, "rev-parse", "main").decode().strip()
    link = blob(shared.bare, b"/etc/passwd")
    graft(shared.bare, {_incoming(shared, b"red", b"l.yaml"): ("120000", link),
                        _incoming(shared, b"red", b"l.yaml.sig"): ("120000", blob(shared.bare, b"/dev/zero")),
                        _incoming(shared, b"red", b"sub.yaml"): ("160000", commit),
                        _incoming(shared, b"red", b"sub"): ("160000", commit),
                        b"vendored": ("160000", commit),
                        f"{GAME}/public/board.svg".encode(): ("120000", link)}, "links and submodules")
    return "symbolic link"


def probe_deep_folder(shared: Shared) -> str:
    b = blob(shared.bare, b"deep\n")
    graft(shared.bare, {_incoming(shared, b"red", b"a", b"b", b"c", b"d.yaml"): ("100644", b),
                        _incoming(shared, b"red", b"a.yaml", b"x.yaml"): ("100644", b)}, "folders in folders")
    return "not in a sub-folder"


def probe_huge_blob(shared: Shared) -> str:
    big = blob(shared.bare, b"# " + b"x" * (3 * 1024 * 1024) + b"\n")
    graft(shared.bare, {_incoming(shared, b"red", b"big.yaml"): ("100644", big),
                        _incoming(shared, b"red", b"big.yaml.sig"): ("100644", big)}, "a huge move")
    return "the limit is"


def test_an_empty_commit_needs_no_commit_and_a_new_game_folder_is_left_out(shared):
    red = shared.players["red"]
    red.pull()
    red.git("commit", "-q", "--allow-empty", "-m", "nothing at all")
    red.git("push", "-q")
    assert shared.sync().output.startswith("nothing to do")     # the shared branch is ahead: fine
    assert shared.sync().output.startswith("nothing to do")
    graft(shared.bare, {b"game2/log.yaml": ("100644", blob(shared.bare, b"--- # entry 0\n"))}, "a game of mine")
    lines = shared.sync().output.splitlines()
    assert lines == ["left out game2/log.yaml: changed by a push; only files under game1/incoming/PLAYER/ are "
                     "taken from players", "pushed 1 commit(s) to origin/main"]
    valid = valid_move_behind(shared, "0000.yaml")
    sync_after(shared, valid)


PROBES: dict[str, Callable[[Shared], str]] = {
    "not-utf8": probe_not_utf8, "dot-dot": probe_dot_dot, "dot-git": probe_dot_git,
    "control-characters": probe_control_characters, "gitattributes": probe_gitattributes,
    "forced-settings": probe_forced_private_settings, "forged-files": probe_forged_files,
    "links-and-submodules": probe_links_and_submodules, "deep-folder": probe_deep_folder, "huge-blob": probe_huge_blob,
}


@pytest.fixture
def shared(tmp_path, key_pool, toy_registered, shared_templates):
    return make_shared(tmp_path, key_pool, templates=shared_templates)


@pytest.mark.parametrize("probe", list(PROBES))
def test_a_hostile_push_then_a_valid_move_behind_it(shared, probe):
    said = PROBES[probe](shared)
    valid = valid_move_behind(shared, "0000.yaml")
    lines = sync_after(shared, valid)
    assert said in "\n".join(lines), lines
    clone = assert_fresh_clone_checks_out(shared, "fresh")
    assert audit(GameDir(clone / GAME)).ok
    assert git(shared.bare, "rev-parse", "--verify", "-q", "refs/heads/hijack", check=False).returncode != 0
    # the receipts on the shared branch answer every refused file in one clean line each
    for path in (p for p in shared.remote_files(f"{GAME}/receipts/") if p.endswith(".txt")):
        first = shared.remote_text(path).splitlines()[0]
        assert first.startswith(("accepted: ", "rejected: ")), (path, first)
        assert_clean_line(first, path)


def test_a_forced_settings_file_is_never_read_even_where_a_checkout_put_it(shared, key_pool, monkeypatch):
    """A CI runner's fresh clone checks the pushed moderator/git.yaml out; sync says so and ignores it."""
    probe_forced_private_settings(shared)
    runner = shared.fresh_clone("runner") / GAME
    assert (runner / "moderator" / "git.yaml").read_text().startswith("branch: hijack")
    cli("unseal-seed", runner, "--key", key_pool["mallory"]) if (runner / "moderator.seed.age").exists() else None
    for name in ("seed", "moderator_ed25519"):            # the runner holds the moderator's own secrets
        (runner / "moderator" / name).write_bytes((shared.moderator.moderator_dir / name).read_bytes())
    valid = valid_move_behind(shared, "0000.yaml")
    git(runner.parent, "pull", "-q", "--ff-only")
    out = cli("sync", runner).output.splitlines()
    assert out[0] == (f"warning: {GAME}/moderator/git.yaml is tracked in git (pushed by someone), so it is not "
                      "read; using the command-line options and the defaults")
    assert f"accepted {valid}: entry 1; waiting for blue" in out
    assert git(shared.bare, "rev-parse", "--verify", "-q", "refs/heads/hijack", check=False).returncode != 0
    assert not [p for p in shared.remote_files(GAME) if "/moderator/" in p]


@pytest.mark.slow(seconds=20)
def test_thousands_of_junk_files_are_answered_in_pushed_batches(shared, monkeypatch):
    """2500 junk files in one push, a valid move behind them: the sync answers them 200 at a time and
    pushes after each batch, so a run stopped at any point has published its progress."""
    from pbem.transport.git import repo as git_repo
    red = shared.players["red"]
    red.pull()
    folder = red.game.root / "incoming" / "red"
    folder.mkdir(parents=True)
    for n in range(2500):
        (folder / f"junk{n:05d}.txt").write_text(f"{n}\n")
    red.git("add", folder)
    red.git("commit", "-q", "-m", "junk")
    red.git("push", "-q")
    valid = valid_move_behind(shared, "zzzz.yaml")
    pushes = []
    real_push = git_repo.Repo.push

    def counted_push(self, remote, commit, branch):          # the real push, counted
        pushes.append(commit)
        return real_push(self, remote, commit, branch)

    monkeypatch.setattr(git_repo.Repo, "push", counted_push)
    lines = shared.sync().output.splitlines()
    assert len(pushes) == 13                              # 2500 / 200 batches, the last with the move
    assert sum(line.startswith("rejected red/junk") for line in lines) == 2500
    assert f"accepted {valid}: entry 1; waiting for blue" in lines
    assert_published_is_the_moderators(shared)
    receipts = [p for p in shared.remote_files(f"{GAME}/receipts/red/") if p.endswith(".txt")]
    assert len(receipts) == 2501
    subjects = git(shared.bare, "log", "--format=%s", "main").stdout.splitlines()
    assert subjects.count("200 incoming files rejected; waiting for red") == 12


def test_more_entries_than_a_sync_looks_at_wait_in_incoming_and_are_taken_next(shared, monkeypatch):
    from pbem.transport.git import incoming as git_incoming
    monkeypatch.setattr(git_incoming, "MAX_ENTRIES", 10)
    red = shared.players["red"]
    red.pull()
    folder = red.game.root / "incoming" / "red"
    folder.mkdir(parents=True)
    for n in range(25):
        (folder / f"junk{n:02d}.txt").write_text(f"{n}\n")
    red.git("add", folder)
    red.git("commit", "-q", "-m", "junk")
    red.git("push", "-q")
    valid = valid_move_behind(shared, "zzzz.yaml")
    lines = shared.sync().output.splitlines()
    assert sum(line.startswith("rejected red/junk") for line in lines) == 25
    assert f"accepted {valid}: entry 1; waiting for blue" in lines
    assert any(" more entries under " in line for line in lines), lines
    assert_published_is_the_moderators(shared)
