"""`pbem git sync` killed (SIGKILL) at every step, then run again: the second run finishes the job.

PBEM_FAULT_TRACE lists every step of an undisturbed sync: each file it writes (the submit's
archive, log, digests, secrets, the receipts) and each git command it runs (fetch, ls-tree,
cat-file, hash-object, read-tree, update-index, write-tree, commit-tree, update-ref, push,
the clone's index).  Then, for each step k, a copy of the same world is synced with
``PBEM_FAULT=kill-step:k`` (the process kills itself just before step k) and synced again.
Also killed from outside at a few random moments (then a git command may be half run).
After the second run:

* the shared branch holds the same files as after an undisturbed run: the same log, byte for
  byte (every move taken exactly once), the same receipts' answers, incoming/ empty, the game
  folder byte for byte the moderator's files;
* the moderator's clone is clean (`git status`), has no temporary files left, and audits;
* a third run has nothing to do.

The world: a toy game with red's good move, blue's stale one, a junk file, a name that is
not UTF-8 and a file pushed outside incoming/, all waiting for one sync.  Commands run in
children of a zygote (tests/crash_runner.py), which makes a killed command cheap.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
import session_cache
from crash_runner import CrashRunner, Finished
from hostile_harness import assert_clean_line
from test_git_helpers import GAME, GITCONFIG, copy_folder, git, make_shared
from test_git_hostile_push import git_bytes, assert_published_is_the_moderators, blob, graft

from pbem.base.fsutil import TEMP_NAME
from pbem.core import registry
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir

DRAW = [{"draw": True}]
SEED = 20250611
CHUNK = 8
RANDOM_KILLS = 8


@dataclass
class World:
    runner: CrashRunner
    template: Path          # holds shared.git and moderator/ (the clone)
    home: Path              # HOME with a neutral .gitconfig, for every git the children run
    steps: list[str]        # what an undisturbed sync does, in order
    seconds: float          # how long it takes
    reference: dict[str, object]


def _env(world_home: Path, **more: str) -> dict[str, str | None]:
    env: dict[str, str | None] = {"HOME": str(world_home), "GIT_CONFIG_NOSYSTEM": "1", "PBEM_FAULT": None,
                                  "PBEM_FAULT_TRACE": None}
    for var in ("GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_AUTHOR_NAME",
                "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        env[var] = None
    env.update(more)
    return env


def _copy(world: World, where: Path) -> GameDir:
    copy_folder(world.template, where)
    clone = where / "moderator"
    git(clone, "remote", "set-url", "origin", where / "shared.git")
    return GameDir(clone / GAME)


def _state(bare: Path) -> dict[str, object]:
    """What the shared branch holds, as far as a run decides it (signed receipts carry a time: paths only)."""
    return _state_and_listing(bare)[0]


def _state_and_listing(bare: Path) -> tuple[dict[str, object], bytes]:
    """``_state``, and the `git ls-tree -r -z` of the commit it read (for assert_published_is_the_moderators)."""
    # one commit read throughout: a push that a killed sync started may still move main meanwhile
    main = git(bare, "rev-parse", "--verify", "main^{commit}").stdout.strip()
    listing = git_bytes(bare, "ls-tree", "-r", "-z", main)
    paths = sorted(os.fsdecode(record.partition(b"\t")[2]) for record in listing.split(b"\0") if record)
    texts = _texts(bare, main, [p for p in paths if p.endswith(".txt")] + [f"{GAME}/log.yaml"])
    receipts = {p: text for p, text in texts.items() if p.endswith(".txt")}
    return {"paths": paths, "log": texts[f"{GAME}/log.yaml"], "receipts": receipts}, listing


def _texts(bare: Path, commit: str, paths: list[str]) -> dict[str, str]:
    """Each file's text in ``commit``, as `git show COMMIT:PATH` gives it, read by one `git cat-file --batch`."""
    request = b"".join(os.fsencode(f"{commit}:{path}") + b"\n" for path in paths)
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=bare, input=request, capture_output=True, check=False)
    assert out.returncode == 0, out.stderr
    texts, at = {}, 0
    for path in paths:
        end = out.stdout.index(b"\n", at)
        assert not out.stdout[at:end].endswith(b" missing"), f"{commit}:{path} is missing"
        _oid, kind, size = out.stdout[at:end].split()
        assert kind == b"blob", f"{commit}:{path} is a {kind.decode()}"
        at = end + 1 + int(size)
        texts[path] = out.stdout[end + 1:at].decode().replace("\r\n", "\n").replace("\r", "\n")   # as text=True
        at += 1                                      # the newline after each object
    return texts


def _build(root: Path, key_pool: dict[str, Path]) -> Path:
    shared = make_shared(root, key_pool)
    red, blue, green = (shared.players[n] for n in ("red", "blue", "green"))
    red.send("0000.yaml", DRAW)
    blue.pull()
    blue.commit(blue.write_move("early.yaml", DRAW), "blue: too early")       # stale once red's is in
    blue.git("push", "-q")
    green.pull()
    notes = green.game.root / "incoming" / "green" / "notes.txt"
    notes.parent.mkdir(parents=True)
    notes.write_text("hello\n")
    extra = green.game.root / "public" / "extra.html"
    extra.write_text("<p>green was here</p>\n")
    green.commit([notes, extra], "green: junk")
    green.git("push", "-q")
    graft(shared.bare, {f"{GAME}/incoming/red/caf\xe9.yaml".encode("latin-1"): ("100644", blob(shared.bare, b"x\n"))},
          "a name that is not UTF-8")
    template = root / "template"
    template.mkdir()
    shutil.move(shared.bare, template / "shared.git")
    shutil.move(shared.moderator.root.parent, template / "moderator")
    return template


def _reference(runner: CrashRunner, template: Path, home: Path, folder: Path) -> None:
    """An undisturbed sync of a copy of the template, into ``folder``: the steps it takes (``trace.txt``), how
    long it takes (``seconds.txt``) and the shared branch it leaves (``state.json``)."""
    where = folder / "reference"
    gd = _copy(World(runner, template, home, [], 0.0, {}), where)
    trace = folder / "trace.txt"
    started = time.perf_counter()
    done = runner.run(["git", "sync", gd.root], folder / "out.txt", _env(home, PBEM_FAULT_TRACE=str(trace)))
    seconds = time.perf_counter() - started
    assert done.status == 0, done.output
    assert "accepted red/0000.yaml: entry 1" in done.output and "rejected blue/early.yaml" in done.output
    (folder / "seconds.txt").write_text(f"{seconds!r}\n")
    (folder / "state.json").write_text(json.dumps(_state(where / "shared.git")))
    shutil.rmtree(where)


@pytest.fixture(scope="module")
def world(request, tmp_path_factory, key_pool) -> Iterator[World]:
    """The template and its undisturbed sync, made once per test session (``session_cache``: the module's tests
    are shared out among the xdist workers, and each worker built the same world); each worker has its zygote."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry.GAMES, "toy", "toygame:ToyGame")
        root = tmp_path_factory.mktemp("gitcrash")
        home = root / "home"
        home.mkdir()
        (home / ".gitconfig").write_text(GITCONFIG)      # the git tests' settings (test_git_helpers)
        mp.setenv("HOME", str(home))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for var in ("GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            mp.delenv(var, raising=False)
        runner = CrashRunner()
        try:
            def build(folder: Path) -> None:
                (folder / "build").mkdir()
                made = _build(folder / "build", key_pool)
                made.rename(folder / "template")
                shutil.rmtree(folder / "build")          # the players' clones: not part of the world
                _reference(runner, folder / "template", home, folder)

            folder = session_cache.finished(request.config, tmp_path_factory, "git-crash-world", build)
            steps = (folder / "trace.txt").read_text().splitlines()
            assert sum(s.startswith("git ") for s in steps) > 20 and any(s.endswith("log.yaml") for s in steps)
            world = World(runner, folder / "template", home, steps, float((folder / "seconds.txt").read_text()),
                          json.loads((folder / "state.json").read_text()))
            # one sync of a scratch copy in the zygote itself: each child starts with what a sync's first run
            # fills (crash_runner.CrashRunner.warm); the copy is not used again
            runner.warm(["git", "sync", _copy(world, root / "warm").root], _env(home))
            yield world
        finally:
            runner.close()


def _check_after(world: World, where: Path, gd: GameDir, what: str) -> None:
    """A second, undisturbed sync finishes the job; the world is as after an undisturbed sync."""
    done = world.runner.run(["git", "sync", gd.root], where / "again.txt", _env(world.home))
    assert done.status == 0, f"{what}, then sync again: {done.output}"
    for line in done.output.splitlines():
        assert_clean_line(line, what)
    state, listing = _state_and_listing(where / "shared.git")
    assert state == world.reference, f"{what}: the shared branch differs from an undisturbed run's"
    assert gd.log_path.read_text() == world.reference["log"], what
    assert_published_is_the_moderators_at(where, gd, listing)
    assert git(gd.root.parent, "status", "--porcelain").stdout == "", what
    leftovers = [p for p in gd.root.rglob("*") if TEMP_NAME.match(p.name)]
    assert not leftovers, f"{what}: {leftovers}"
    assert not (gd.moderator_dir / "crashes").exists(), what
    report = audit(gd)
    assert report.ok, f"{what}: {report.problems}"
    third = world.runner.run(["git", "sync", gd.root], where / "third.txt", _env(world.home))
    assert third.status == 0 and third.output.startswith("nothing to do"), f"{what}: {third.output}"


def assert_published_is_the_moderators_at(where: Path, gd: GameDir, listing: bytes) -> None:
    """The check on the commit ``_state`` read (its listing: `git ls-tree -r -z`, read once for both)."""
    class Here:           # the shape assert_published_is_the_moderators reads
        bare = where / "shared.git"
        moderator = gd
    assert_published_is_the_moderators(Here, listing)  # type: ignore[arg-type]


def _kill_at_step(world: World, step: int, where: Path) -> Finished:
    gd = _copy(world, where)
    env = _env(world.home, PBEM_FAULT=f"kill-step:{step}", PBEM_FAULT_TRACE=str(where / "trace.txt"))
    done = world.runner.run(["git", "sync", gd.root], where / "killed.txt", env)
    what = f"killed before step {step} ({world.steps[step - 1]})"
    assert done.status == -signal.SIGKILL, f"{what}: the step was never reached: {done.output}"
    assert "Traceback" not in done.output, f"{what}: {done.output}"
    _check_after(world, where, gd, what)
    return done


def _step_chunks() -> list[int]:
    return list(range(8))       # enough chunks for any sync of this world (checked below)


@pytest.mark.parametrize("chunk", _step_chunks())
def test_killed_before_each_step_then_the_next_sync_finishes_the_job(world, chunk, tmp_path):
    steps = range(1 + chunk * CHUNK, 1 + min(len(world.steps), (chunk + 1) * CHUNK))
    for step in steps:
        _kill_at_step(world, step, tmp_path / str(step))


def test_the_chunks_cover_every_step(world):
    assert len(world.steps) <= len(_step_chunks()) * CHUNK, f"{len(world.steps)} steps: raise the chunks"
    names = [s for s in world.steps if s.startswith("git ")]
    for command in ("git fetch", "git ls-tree", "git cat-file", "git hash-object", "git write-tree",
                    "git commit-tree", "git update-ref", "git push", "git read-tree"):
        assert command in names, command
    writes = [s for s in world.steps if not s.startswith("git ")]
    assert any(s.endswith(f"{GAME}/log.yaml") for s in writes)
    assert any("/receipts/blue/" in s for s in writes) and any("/receipts/red/" in s for s in writes)


def test_killed_at_random_moments_then_the_next_sync_finishes_the_job(world, tmp_path):
    """From outside, so a git command may be cut half way (or outlive the sync for a moment)."""
    rng = random.Random(SEED)
    cut = 0
    for n in range(RANDOM_KILLS):
        where = tmp_path / str(n)
        gd = _copy(world, where)
        pid = world.runner.start(["git", "sync", gd.root], where / "killed.txt", _env(world.home))
        time.sleep(rng.uniform(0, world.seconds))
        os.kill(pid, signal.SIGKILL)       # a zombie (already finished) takes the signal harmlessly
        done = world.runner.wait(pid, where / "killed.txt")
        assert "Traceback" not in done.output, done.output
        cut += _state(where / "shared.git") != world.reference
        _check_after(world, where, gd, f"killed from outside (run {n})")
    assert cut, "no kill landed before the sync had pushed"
