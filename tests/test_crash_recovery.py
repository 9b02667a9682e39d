"""Crashes and full disks during `pbem submit`, `pbem mod pause` and `pbem reveal`.

PBEM_FAULT_TRACE lists every write a command makes.  Then, for each write, the
command is killed (SIGKILL) before it, between its temporary file and the rename,
and after it, and at the named point just past the commit; it is killed at random
moments from outside; it finds the disk full (an injected ENOSPC at each write, and
a real, small tmpfs when the tests may mount one); and it gets a Ctrl-C.  200 kills
in all, seeded, in chunks that pytest-xdist can spread.

After each: the log is the old log or the old log plus exactly the new entry (a
crash never half-writes or loses what was committed); if the entry is not in the
log, no public file or secret shows it; a command picked at random (status or the same
command again) repairs the game, or `pbem audit` passes without changing a thing before
status repairs it; `pbem audit` passes; the interrupted
action is in the log or is accepted when sent again; and the next player's move is
accepted.  The commands run in children of a zygote (tests/crash_runner.py), which
makes a killed command cheap.
"""
from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import pytest
import session_cache
from click.testing import CliRunner
from conftest import disk_state
from crash_runner import CrashRunner, Finished
from hostile_harness import assert_clean_line, game_files
from pipeline_helpers import new_game, signed_move

from pbem.base.fsutil import TEMP_NAME
from pbem.cli.group import main
from pbem.core import registry
from pbem.core.sealed import seal_action
from pbem.pipeline.audit import audit
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

SEED = 20240607
#: kills per scenario (write points first, then random moments): 200 in all
KILLS = {"submit": 100, "pause": 50, "reveal": 50}
CHUNK = 10
MODES = ("kill-before", "kill-rename", "kill-after")


# --- the scenarios --------------------------------------------------------------------------------------------

@dataclass
class Scenario:
    """A game to copy, the command to interrupt, and how to finish the game's next steps afterwards."""

    name: str
    template: GameDir
    args: Callable[[Path], list[str]]          # game folder -> the command's arguments
    again_ok: Callable[[Path], None]          # run the command again: it is done now (or was already)
    next_step: Callable[[Path], None]          # what the next player does: must be accepted
    writes: list[str] = field(default_factory=list)   # relative paths, in the order written
    seconds: float = 0.0                       # how long the command takes when nobody kills it
    # the template's log entries and what players see of it (`_public`), read once: every
    # interrupted run starts from a byte-for-byte copy of it
    entry_count: int = 0
    public: dict[str, str] = field(default_factory=dict)


def _cli(args: list[str]) -> object:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"pbem {' '.join(map(str, args))}: {result.exception!r}") from result.exception
    return result


@dataclass
class World:
    runner: CrashRunner
    scenarios: dict[str, Scenario]
    keys: dict[str, Path]
    files: Path


def _make_games(root: Path, key_pool: dict[str, Path]) -> None:
    """The two templates and blue's move, in ``root``: ``mid``, ``over`` and ``files/blue.yaml``."""
    files = root / "files"
    files.mkdir()
    # a game under way: red has drawn; blue's move (a sealed draw) is the one interrupted
    mid = new_game(root / "mid", "toy", key_pool, ["red", "blue", "green"])
    submit(mid, *signed_move(Table.load(mid), "red", [{"draw": True}], key_pool["red"]))
    table = Table.load(mid)
    sealed = seal_action({"draw": True}, table.header["moderator"]["key"])
    blue_raw, blue_sig = signed_move(table, "blue", [sealed], key_pool["blue"])
    (files / "blue.yaml").write_bytes(blue_raw)
    (files / "blue.yaml.sig").write_text(blue_sig)
    # a finished game: both players stopped; the reveal is the one interrupted
    over = new_game(root / "over", "toy", key_pool, ["red", "blue"], options={"limit": "2"})
    for player in ("red", "blue"):
        submit(over, *signed_move(Table.load(over), player, [{"stop": True}], key_pool[player]))


def _scenarios(root: Path, key_pool: dict[str, Path]) -> dict[str, Scenario]:
    """The scenarios on the templates :func:`_make_games` made in ``root``."""
    files = root / "files"
    mid, over = GameDir(root / "mid"), GameDir(root / "over")

    def green_draws(game: Path) -> None:
        gd = GameDir(game)
        raw, sig = signed_move(Table.load(gd), "green", [{"draw": True}], key_pool["green"])
        (game.parent / "green.yaml").write_bytes(raw)
        (game.parent / "green.yaml.sig").write_text(sig)
        result = _cli(["submit", game, game.parent / "green.yaml"])
        assert result.exit_code == 0 and result.output.startswith("accepted: green's move"), result.output

    def blue_again(game: Path) -> None:
        result = _cli(["submit", game, files / "blue.yaml"])
        assert (result.exit_code == 0 and result.output.startswith("accepted: blue's move")) or \
            (result.exit_code == 1 and "already accepted as log entry 2" in result.output), result.output

    def pause_again(game: Path) -> None:
        result = _cli(["mod", "pause", game, "--reason", "moderator away"])
        assert result.exit_code == 0 or "already paused (moderator away)" in result.output, result.output

    def resume_then_blue_draws(game: Path) -> None:
        result = _cli(["mod", "resume", game, "--reason", "back"])
        assert result.exit_code == 0, result.output
        gd = GameDir(game)
        raw, sig = signed_move(Table.load(gd), "blue", [{"draw": True}], key_pool["blue"])
        (game.parent / "blue-next.yaml").write_bytes(raw)
        (game.parent / "blue-next.yaml.sig").write_text(sig)
        result = _cli(["submit", game, game.parent / "blue-next.yaml"])
        assert result.exit_code == 0 and result.output.startswith("accepted: blue's move"), result.output

    def reveal_again(game: Path) -> None:
        result = _cli(["reveal", game])
        assert result.exit_code == 0 or "the game is closed" in result.output, result.output

    def players_audit(game: Path) -> None:       # nobody moves after the reveal: a player's copy replays it all
        published = game.parent / "published"
        shutil.copytree(game, published, ignore=shutil.ignore_patterns("moderator"))
        report = audit(GameDir(published))
        assert report.ok and any("replayed" in n for n in report.notes), report.problems

    return {
        "submit": Scenario("submit", mid, lambda g: ["submit", g, files / "blue.yaml"], blue_again, green_draws),
        "pause": Scenario("pause", mid, lambda g: ["mod", "pause", g, "--reason", "moderator away"], pause_again,
                          resume_then_blue_draws),
        "reveal": Scenario("reveal", over, lambda g: ["reveal", g], reveal_again, players_audit),
    }


@pytest.fixture(scope="module")
def world(request, tmp_path_factory, key_pool) -> Iterator[World]:
    """The templates and each command's traced writes and time, made once per test session (``session_cache``:
    pytest-xdist shares the module's tests out among its workers, and each made the same world); the
    templates are only ever copied.  Each worker has its zygote."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry.GAMES, "toy", "toygame:ToyGame")
        root = tmp_path_factory.mktemp("crash")
        runner = CrashRunner()
        try:
            def build(folder: Path) -> None:
                (folder / "keys").mkdir()            # the building worker's keys, for every worker to sign with
                for key in key_pool.values():
                    for path in (key, key.with_name(key.name + ".pub")):
                        shutil.copy2(path, folder / "keys" / path.name)
                keys = _keys(folder, key_pool)
                _make_games(folder, keys)
                for scenario in _scenarios(folder, keys).values():
                    _trace(runner, scenario, root / f"trace-{scenario.name}")
                    (folder / f"trace-{scenario.name}.json").write_text(
                        json.dumps({"writes": scenario.writes, "seconds": scenario.seconds}))

            folder = session_cache.finished(request.config, tmp_path_factory, "crash-world", build)
            keys = _keys(folder, key_pool)
            scenarios = _scenarios(folder, keys)
            for scenario in scenarios.values():
                trace = json.loads((folder / f"trace-{scenario.name}.json").read_text())
                scenario.writes, scenario.seconds = trace["writes"], trace["seconds"]
                scenario.entry_count = len(scenario.template.entries())
                scenario.public = _public(scenario.template.root)
            yield World(runner, scenarios, keys, folder / "files")
        finally:
            runner.close()


def _keys(folder: Path, key_pool: dict[str, Path]) -> dict[str, Path]:
    """The key pool the shared world was made with (each xdist worker's ``key_pool`` has keys of its own)."""
    return {name: folder / "keys" / key.name for name, key in key_pool.items()}


def _copy(scenario: Scenario, where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    game = where / "game"
    shutil.copytree(scenario.template.root, game, symlinks=True)
    return game


def _trace(runner: CrashRunner, scenario: Scenario, where: Path) -> None:
    """Every write the command makes, and how long it takes (three undisturbed runs)."""
    times = []
    for n in range(3):
        game = _copy(scenario, where / str(n))
        trace = where / f"trace-{n}.txt"
        started = time.perf_counter()
        done = runner.run(scenario.args(game), where / f"out-{n}.txt", {"PBEM_FAULT_TRACE": str(trace)})
        times.append(time.perf_counter() - started)
        assert done.status == 0, done.output
        writes = [str(Path(p).relative_to(game)) for p in trace.read_text().splitlines()]
        assert not scenario.writes or writes == scenario.writes, "the same command wrote other files"
        scenario.writes = writes
    scenario.seconds = sorted(times)[1]
    assert "log.yaml" in scenario.writes


# --- one interrupted run and everything checked after it ------------------------------------------------------

@dataclass
class Plan:
    fault: str = ""            # PBEM_FAULT, or "" for a kill from outside
    kill_after: float | None = None
    signal: int = signal.SIGKILL

    def __str__(self) -> str:
        return self.fault or f"{signal.Signals(self.signal).name} after {self.kill_after:.4f} s"


def _public(game: Path) -> dict[str, str]:
    """What players see of the game but the move archive: public files and encrypted secrets."""
    return {k: v for k, v in game_files(game).items()
            if k.startswith(("public/", "secrets/")) and not TEMP_NAME.match(Path(k).name)}


def run_interrupted(world: World, scenario: Scenario, plan: Plan, where: Path, rng: random.Random) -> Finished:
    game = _copy(scenario, where)
    gd = GameDir(game)
    old_log = gd.log_path.read_text()
    old_public = scenario.public           # the copy's: the template's, read once
    out = where / "out.txt"
    env = {"PBEM_FAULT": plan.fault} if plan.fault else {}
    pid = world.runner.start(scenario.args(game), out, env)
    if plan.kill_after is not None:
        time.sleep(plan.kill_after)
        os.kill(pid, plan.signal)          # a zombie (already finished) takes the signal harmlessly
    done = world.runner.wait(pid, out)
    what = f"{scenario.name} with {plan}"

    # what the interrupted command printed: never a traceback; a refusal is one clean line
    assert "Traceback" not in done.output, f"{what}: {done.output}"
    if done.status == 1:
        lines = done.output.strip().splitlines()
        assert len(lines) == 1 or lines[-1] == "Aborted!", f"{what}: {done.output!r}"
        for line in lines:
            assert_clean_line(line, what)

    # the commit point: the log is the old one, or the old one and exactly one more entry
    new_log = gd.log_path.read_text()
    assert new_log.startswith(old_log), f"{what}: the log lost or changed committed text"
    committed = new_log != old_log
    assert len(gd.entries()) == scenario.entry_count + committed, what
    if not committed:
        assert _public(game) == old_public, f"{what}: players see a change the log does not hold"
        if done.status == 1 and "no space left" in done.output:
            assert "nothing was committed" in done.output, f"{what}: {done.output!r}"
    elif "no space left" in done.output:
        assert "nothing was committed" not in done.output, f"{what}: it says nothing was committed, but it was"

    # any command repairs it (`pbem audit` passes and changes nothing: the next command repairs); audit passes
    recovery = rng.choice(["status", "audit", "again"])
    if recovery == "again":
        scenario.again_ok(game)
    else:
        before = disk_state(game)
        result = _cli([recovery, game])
        assert result.exit_code == 0, f"{what}, then {recovery}: {result.output}"
        if recovery == "audit":
            assert disk_state(game) == before, f"{what}: the audit changed the game folder"
            result = _cli(["status", game])
            assert result.exit_code == 0, f"{what}, then status: {result.output}"
    report = audit(gd)
    assert report.ok, f"{what}, then {recovery}: {report.problems}"
    leftovers = [p for p in game.rglob("*") if TEMP_NAME.match(p.name)]
    assert not leftovers, f"{what}: {leftovers}"

    # the interrupted action is in the log, or is taken when sent again; the game goes on
    scenario.again_ok(game)
    assert len(gd.entries()) == scenario.entry_count + 1, what
    assert gd.log_path.read_text().startswith(new_log), f"{what}: the repair lost committed text"
    scenario.next_step(game)
    if rng.random() < 0.25:                 # a full audit again now and then (it replays every entry)
        report = audit(gd)
        assert report.ok, f"{what}, at the end: {report.problems}"
    assert not (gd.moderator_dir / "crashes").exists(), what
    return done


def _plans(scenario: Scenario) -> list[Plan]:
    """The write points first (three moments each, and just past the commit), then random moments."""
    plans = [Plan(f"{mode}:/{rel}") for rel in scenario.writes for mode in MODES] + [Plan("kill:committed")]
    total = KILLS[scenario.name]
    assert len(plans) <= total, f"{scenario.name} makes {len(scenario.writes)} writes: raise KILLS"
    rng = random.Random(f"{SEED}/{scenario.name}")
    plans += [Plan(kill_after=rng.uniform(0, scenario.seconds)) for _ in range(total - len(plans))]
    return plans


CHUNKS = [(name, chunk) for name, total in KILLS.items() for chunk in range(total // CHUNK)]


@pytest.mark.parametrize(("scenario_name", "chunk"), CHUNKS, ids=[f"{n}-{c}" for n, c in CHUNKS])
def test_killed_at_each_write_and_at_random_moments_then_any_command_repairs(world, scenario_name, chunk,
                                                                              tmp_path):
    scenario = world.scenarios[scenario_name]
    rng = random.Random(f"{SEED}/{scenario_name}/{chunk}")
    outcomes = []
    for n, plan in enumerate(_plans(scenario)[chunk * CHUNK:(chunk + 1) * CHUNK]):
        done = run_interrupted(world, scenario, plan, tmp_path / str(n), rng)
        if plan.fault.startswith("kill"):
            assert done.status == -signal.SIGKILL, f"{plan}: the write point was never reached ({done.output})"
        outcomes.append(done.status)
    assert len(outcomes) == CHUNK


def test_the_write_points_cover_the_commit_and_everything_derived(world):
    submit_writes = world.scenarios["submit"].writes
    log = submit_writes.index("log.yaml")
    assert submit_writes[:log] == ["moves/000002-blue.yaml", "moves/000002-blue.yaml.sig"]  # before the commit
    after = set(submit_writes[log + 1:])
    assert {"public/digest.txt", "public/view.json", "secrets/blue.age", "moderator/snapshot.json",
            "moderator/sealed.json"} <= after
    assert submit_writes[-1] == "moderator/snapshot.json"            # last: it names the log it was made from
    for name in ("pause", "reveal"):
        assert world.scenarios[name].writes[0] == "log.yaml", world.scenarios[name].writes


# --- a full disk ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario_name", list(KILLS))
def test_no_space_left_at_each_write_is_one_line_and_loses_nothing(world, scenario_name, tmp_path):
    scenario = world.scenarios[scenario_name]
    rng = random.Random(f"{SEED}/enospc/{scenario_name}")
    for n, rel in enumerate(scenario.writes):
        done = run_interrupted(world, scenario, Plan(f"enospc:/{rel}"), tmp_path / str(n), rng)
        assert done.status == 1 and "no space left on the device" in done.output, done.output


def _mount_tmpfs(where: Path, size: str) -> str:
    """Mount a small tmpfs at ``where``; return why it cannot be done, or ""."""
    if os.geteuid() != 0:
        return "not root, so no tmpfs can be mounted (the injected ENOSPC test covers every write)"
    where.mkdir(parents=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
                          capture_output=True, text=True)
    return "" if proc.returncode == 0 else f"cannot mount a tmpfs here ({proc.stderr.strip()})"


def _fill(folder: Path, leave: int) -> Path:
    """Fill the file system of ``folder`` until about ``leave`` bytes are free."""
    filler = folder / "filler"
    stats = os.statvfs(folder)
    free = stats.f_bavail * stats.f_frsize
    with open(filler, "wb") as fh:
        try:
            fh.write(b"\0" * max(0, free - leave))
            fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def test_a_real_full_disk_on_a_small_tmpfs(world, tmp_path):
    scenario = world.scenarios["submit"]
    mount = tmp_path / "tmpfs"
    why = _mount_tmpfs(mount, "2m")
    if why:
        pytest.skip(why)
    rng = random.Random(f"{SEED}/tmpfs")
    try:
        written = 0
        for n, leave in enumerate([0, 4096, 8192, 16384, 32768, 65536, 131072]):
            where = mount / str(n)
            _copy(scenario, where)
            filler = _fill(mount, leave)
            game = where / "game"
            out = where.parent / f"out-{n}.txt"
            done = world.runner.run(scenario.args(game), out)
            assert "Traceback" not in done.output, done.output
            if done.status == 1:
                assert done.output.count("\n") == 1 and "no space left on the device" in done.output, done.output
            written += done.status == 0
            filler.unlink()                   # the moderator frees some space
            result = _cli([rng.choice(["status", "audit"]), game])   # the audit reports; `again_ok` repairs
            assert result.exit_code == 0, result.output
            report = audit(GameDir(game))
            assert report.ok, (leave, report.problems)
            scenario.again_ok(game)
            scenario.next_step(game)
            shutil.rmtree(where)
        assert written < 7, "the disk was never full enough"
    finally:
        subprocess.run(["umount", str(mount)], check=False)


# --- Ctrl-C ------------------------------------------------------------------------------------------------------------

def test_ctrl_c_during_submit_leaves_a_game_that_any_command_repairs(world, tmp_path):
    scenario = world.scenarios["submit"]
    rng = random.Random(f"{SEED}/sigint")
    statuses = []
    for n in range(8):
        plan = Plan(kill_after=rng.uniform(0, scenario.seconds), signal=signal.SIGINT)
        done = run_interrupted(world, scenario, plan, tmp_path / str(n), rng)
        assert done.status in (0, 130), f"{plan}: exit {done.status}: {done.output}"   # 130: interrupted
        if done.status == 130:
            assert done.output.strip().splitlines()[-1].startswith("pbem: error: interrupted"), done.output
        statuses.append(done.status)
    assert 130 in statuses, f"no Ctrl-C landed while submit ran: {statuses}"
