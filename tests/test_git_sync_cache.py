"""What `pbem git sync` keeps between syncs (issues 24, 19): incoming/'s history
(pbem.transport.git.history) and the moderator's file hashes (pbem.transport.git.hashcache).
Both are derived data: every answer must be the one computed without them, whatever the history
did (merges, old commit dates, a rewritten branch) and whatever the cache files hold."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_git_helpers import started_git_commands, GAME, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.store.gamedir import GameDir
from pbem.transport.git.kept import read_kept, write_kept
from pbem.transport.git.hashcache import HASH_CACHE_NAME, STAMP_NAME
from pbem.transport.git.history import CACHE_NAME, history
from pbem.transport.git.repo import Repo
from pbem.transport.git.tree import PublishRefused, TreeMaker

INCOMING = "game/incoming"
DRAW = [{"draw": True}]


def _commit(repo: Path, message: str, date: str | None = None, **files: str | None) -> str:
    """Write (or with None remove) files below game/incoming/, commit everything, return the commit."""
    for name, text in files.items():
        path = repo / "game" / "incoming" / name.replace("__", "/")
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    (repo / "other.txt").write_text(message)       # every commit changes something
    env = {**os.environ, **({"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {})}
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m",
                    message], cwd=repo, check=True, env=env)
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def _after_a_tick(*paths: Path) -> None:
    """Wait until the file system's clock has passed these files' last change (the hash cache keeps
    nothing changed in the same tick as a sync's stamp: git's racy-git rule)."""
    probe = paths[0].with_name(".tick-probe")
    last = max(max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) for p in paths)
    for _ in range(100_000):
        probe.write_bytes(b"")
        if probe.stat().st_mtime_ns > last:
            probe.unlink()
            return
    raise AssertionError("the file system's clock did not move")


def _kept(path: Path):
    body = read_kept(path, 1 << 30)
    assert body is not None, path
    return body


def _flat(past) -> dict[bytes, tuple[int, list[str]]]:
    return {path: (h.added_at, h.commits) for path, h in past.items()}


def _check(repo: Repo, tip: str, cache: Path, trace: Path, monkeypatch,
           proves: list[str] | None = None) -> list[list[str]]:
    """The kept history at ``tip`` is the whole walk's, and every merge base the walk says it proved is
    git's (``proves``: the commits it must have proved ancestors of ``tip``); returns the git commands the
    kept one ran."""
    shutil.rmtree(trace, ignore_errors=True)
    trace.mkdir()
    bases: dict[tuple[str, str], str | None] = {}
    with monkeypatch.context() as env:
        env.setenv("GIT_TRACE2_EVENT", str(trace))
        kept = _flat(history(repo, tip, None, INCOMING, cache, bases))
    whole = _flat(history(repo, tip, None, INCOMING))
    assert kept == whole, tip
    assert _kept(cache / CACHE_NAME)["tip"] == tip
    commands = started_git_commands(trace)
    for (a, b), base in bases.items():
        assert base == repo.merge_base(a, b), (a, b)
    for commit in proves or []:
        assert (min(commit, tip), max(commit, tip)) in bases, commit
    return commands


def test_the_kept_history_is_the_whole_walk_at_every_tip(tmp_path, monkeypatch):
    work = tmp_path / "repo"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    cache = tmp_path / "private"
    cache.mkdir()
    trace = tmp_path / "trace"
    repo = Repo.discover(work)
    tips = [_commit(work, "one", "2030-01-01T10:00:00", red__a="1")]
    _check(repo, tips[-1], cache, trace, monkeypatch)
    # a chain: added, changed, removed, re-added files; a commit that leaves incoming/ alone; one whose
    # date is older than everything before it (the chain's order is its order all the same)
    steps = [dict(date="2030-01-01T11:00:00", blue__b="1", red__c="1"),
             dict(date="2030-01-01T12:00:00", red__a="2"),
             dict(date="2030-01-01T13:00:00"),
             dict(date="2029-06-01T00:00:00", red__c=None, green__d="1"),
             dict(date="2030-01-01T14:00:00", red__c="again")]
    for n, step in enumerate(steps):
        date = step.pop("date")
        tips.append(_commit(work, f"chain {n}", date, **step))
        commands = _check(repo, tips[-1], cache, trace, monkeypatch, proves=tips[-2:-1])
        assert [c for c in commands if "log" in c] and all("--sparse" in c for c in commands if "log" in c)
    # the same tip again: nothing to ask git
    assert _check(repo, tips[-1], cache, trace, monkeypatch) == []
    # a merge of a side branch made from an old commit with older dates: walked whole
    git(work, "checkout", "-q", "-b", "side", tips[1])
    _commit(work, "side one", "2029-01-01T00:00:00", yellow__e="1")
    _commit(work, "side two", "2030-01-01T11:30:00", red__a="side")
    git(work, "checkout", "-q", "main")
    git(work, "merge", "-q", "--no-edit", "-X", "theirs", "side")
    merged = git(work, "rev-parse", "HEAD").stdout.strip()
    commands = _check(repo, merged, cache, trace, monkeypatch)
    assert any("--date-order" in c for c in commands)
    tips.append(_commit(work, "after the merge", "2030-01-02T00:00:00", blue__f="1"))
    _check(repo, tips[-1], cache, trace, monkeypatch, proves=[merged])
    # a merge that takes one side whole (history simplification follows that side only)
    git(work, "checkout", "-q", "-b", "ours", tips[2])
    _commit(work, "ours one", "2030-01-03T00:00:00", red__g="1")
    git(work, "checkout", "-q", "main")
    git(work, "merge", "-q", "--no-edit", "-s", "ours", "ours")
    _check(repo, git(work, "rev-parse", "HEAD").stdout.strip(), cache, trace, monkeypatch)
    # a rewritten branch (the old tip is not in the new history), then the old tip again
    git(work, "reset", "-q", "--hard", tips[3])
    rewritten = _commit(work, "rewritten", "2030-01-04T00:00:00", red__h="1")
    _check(repo, rewritten, cache, trace, monkeypatch)
    _check(repo, tips[-1], cache, trace, monkeypatch)
    # an unknown old tip, a damaged cache, a cache for another folder, no cache: the same answers
    for damage in ("unknown", "digest", "garbage", "other", "gone"):
        body = _kept(cache / CACHE_NAME)
        if damage == "unknown":
            body["tip"] = "1" * 40
            write_kept(cache / CACHE_NAME, body)
        elif damage == "digest":                    # forged places without a matching digest
            digest = (cache / CACHE_NAME).read_bytes().split(b"\n")[0]
            body["paths"] = {p: [at + 1, commits] for p, (at, commits) in body["paths"].items()}
            forged = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
            (cache / CACHE_NAME).write_bytes(digest + b"\n" + forged)
        elif damage == "other":                     # another folder's history (no paths) for this tip
            body["incoming"] = "elsewhere/incoming"
            body["paths"] = {}
            write_kept(cache / CACHE_NAME, body)
        elif damage == "garbage":
            (cache / CACHE_NAME).write_bytes(b'0123\n{"version": 1, "paths": [1, 2')
        else:
            (cache / CACHE_NAME).unlink()
        _check(repo, rewritten, cache, trace, monkeypatch)


def _maker(gd: GameDir) -> TreeMaker:
    repo = Repo.discover(gd.root)
    return TreeMaker(repo, gd, repo.rel(gd.root))


def _published(maker: TreeMaker) -> dict[bytes, tuple[str, str]]:
    head = maker.repo.resolve("HEAD", "tree")
    assert head is not None
    return maker.own_files(head)


def _disk(gd: GameDir, seed: bytes | None = None, revealed: bool = False) -> dict[bytes, tuple[str, str]]:
    """The game folder as blobs, as one sync's first look sees it (a new TreeMaker, the kept hashes)."""
    maker = _maker(gd)
    files = maker.disk_files(_published(maker), seed, lambda: revealed)
    maker.save_cache()
    return files


def _without_cache(gd: GameDir, seed: bytes | None = None) -> dict[bytes, tuple[str, str]]:
    kept = gd.moderator_dir / HASH_CACHE_NAME
    saved = kept.read_bytes() if kept.exists() else None
    kept.unlink(missing_ok=True)
    try:
        return _maker(gd).disk_files(_published(_maker(gd)), seed)
    finally:
        if saved is not None:
            kept.write_bytes(saved)


def test_a_game_synced_with_its_caches_publishes_what_it_would_without_them(tmp_path, key_pool, toy_registered,
                                                                            shared_templates):
    """Every sync's published game folder is the folder as hashed afresh, and incoming/'s kept history
    is the whole walk; deleting both caches halfway changes nothing; neither is ever published."""
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    gd = shared.moderator
    repo = Repo.discover(gd.root)
    names = iter(range(1, 100))
    for round_ in range(4):
        for name, player in shared.players.items():
            player.send(f"{next(names):04d}.yaml", DRAW)
        if round_ == 1:     # a player's push that is a merge (not rebased): the history is walked whole
            late = shared.players["red"]
            late.write_move(f"{next(names):04d}.yaml", DRAW)
            late.commit(list((late.game.root / "incoming" / "red").iterdir()), "red: late")
            shared.players["blue"].send(f"{next(names):04d}.yaml", DRAW)
            late.git("pull", "-q", "--no-rebase", "--no-edit")
            late.git("push", "-q")
        if round_ == 2:
            (gd.moderator_dir / HASH_CACHE_NAME).unlink()
            (gd.moderator_dir / CACHE_NAME).unlink()
        shared.sync()
        assert (gd.moderator_dir / HASH_CACHE_NAME).is_file() and (gd.moderator_dir / CACHE_NAME).is_file()
        maker = _maker(gd)
        assert _published(maker) == _without_cache(gd)
        kept = _kept(gd.moderator_dir / CACHE_NAME)
        whole = history(repo, kept["tip"], None, kept["incoming"])
        assert kept["paths"] == {p.hex(): [h.added_at, h.commits] for p, h in sorted(whole.items())}
    assert not [p for p in shared.remote_files() if "git-hashes" in p or "git-history" in p]
    assert git(gd.root.parent, "status", "--porcelain").stdout == ""


def test_a_kept_hash_is_trusted_only_for_the_same_file_as_published(tmp_path, key_pool, toy_registered,
                                                                    shared_templates):
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    gd = shared.moderator
    first = _disk(gd)
    assert first == _without_cache(gd) == _published(_maker(gd))
    kept = _kept(gd.moderator_dir / HASH_CACHE_NAME)["files"]
    assert f"{GAME}/log.yaml" in kept
    # the same size, the same mtime, other bytes: the ctime differs, so the file is hashed again
    log = gd.log_path
    info = log.stat()
    data = log.read_bytes()
    log.write_bytes(data.replace(b"toy", b"yot", 1))
    os.utime(log, ns=(info.st_atime_ns, info.st_mtime_ns))
    changed = _disk(gd)
    assert changed[f"{GAME}/log.yaml".encode()] != first[f"{GAME}/log.yaml".encode()]
    assert changed == _without_cache(gd)
    log.write_bytes(data)
    # a forged entry (the stat data right, another blob) is not the published blob: not trusted
    _disk(gd)
    cache = gd.moderator_dir / HASH_CACHE_NAME
    body = _kept(cache)
    body["files"][f"{GAME}/log.yaml"][5] = "0" * 40
    write_kept(cache, body)
    assert _disk(gd) == _without_cache(gd) == _published(_maker(gd))
    # a file changed after the stamp (its mtime in the future) is hashed but never kept
    public = gd.log_path
    future = (gd.moderator_dir / STAMP_NAME).stat().st_mtime_ns + 10**12
    os.utime(public, ns=(future, future))
    _disk(gd)
    assert public.relative_to(gd.root.parent).as_posix() not in _kept(cache)["files"]
    # a half-written or damaged cache is ignored
    cache.write_bytes(cache.read_bytes()[:100])
    assert _disk(gd) == _without_cache(gd)


def test_a_file_found_free_of_one_seed_is_read_again_for_another(tmp_path, key_pool, toy_registered, shared_templates):
    """What is kept as "free of the seed" holds for that seed only; a file holding the seed is
    refused whatever the cache says, as without it."""
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    gd = shared.moderator
    holder = gd.root / "notes.txt"
    other_seed = b"ab" * 32
    holder.write_bytes(b"a note with " + other_seed + b" inside\n")
    git(gd.root.parent, "add", holder)
    git(gd.root.parent, "commit", "-q", "-m", "a note")
    _after_a_tick(holder)
    seed = b"cd" * 32
    files = _disk(gd, seed)
    kept = _kept(gd.moderator_dir / HASH_CACHE_NAME)["files"]
    assert kept[f"{GAME}/notes.txt"][6] is True
    assert _disk(gd, seed) == files                    # known, published, free of this seed: not read
    with pytest.raises(PublishRefused, match="notes.txt: it holds the moderator's seed"):
        _disk(gd, other_seed)
    assert _disk(gd, other_seed, revealed=True) == files
    with pytest.raises(PublishRefused, match="notes.txt: it holds the moderator's seed"):
        _disk(gd, other_seed)                          # revealed once is not "free of the seed"


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_kept_tree_listing_is_taken_only_when_it_is_exactly_that_tree(tmp_path, object_format):
    """pbem.transport.git.listing: the kept files are used only when git's tree computed from them is
    the tree (in ls-tree's order); anything else (a file more or less, another blob or mode, a path both
    file and folder, an empty folder git would keep) reads as not kept."""
    from pbem.transport.git.listing import keep_listing, listing_of, read_listing
    from pbem.transport.git.repo import TreeEntry
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", f"--object-format={object_format}", str(root)], check=True)
    for name in ("a.txt", "a/b.txt", "a-b/c.txt", "a.b", "z/y/x.txt", "z0"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "link").symlink_to("a.txt")
    _commit(root, "files")
    repo = Repo.discover(root)
    tree = repo.resolve("HEAD", "tree")
    assert tree is not None
    listed = repo.ls_tree(tree)
    assert listing_of(tree, listed) == listed
    assert listing_of(tree, sorted(listed, key=lambda e: e.path)) == listed       # git's order, not bytes'
    keep_listing(tmp_path / "kept", tree, list(reversed(listed)))
    kept = read_listing(tmp_path / "kept")
    assert kept is not None and kept[0] == tree and listing_of(tree, kept[1]) == listed
    first = listed[0]
    wrong = [
        listed[1:],
        listed + [TreeEntry("100644", "blob", first.oid, b"new.txt")],
        [TreeEntry("100755", "blob", first.oid, first.path)] + listed[1:],
        [TreeEntry(first.mode, "blob", listed[1].oid, first.path)] + listed[1:],
        listed + [TreeEntry("100644", "blob", first.oid, b"a.txt/x")],
        listed + [TreeEntry("100644", "blob", first.oid, b"empty//x")],
        [TreeEntry("0644", "blob", first.oid, first.path)] + listed[1:],
        [TreeEntry(first.mode, "blob", "xyz", first.path)] + listed[1:],
        [],
    ]
    for entries in wrong:
        assert listing_of(tree, entries) is None, entries
    (tmp_path / "kept").write_bytes((tmp_path / "kept").read_bytes()[:-5])
    assert read_listing(tmp_path / "kept") is None
