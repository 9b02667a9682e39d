"""The hostile-input corpus (tests/hostile/) through `pbem submit` and `pbem check`.

Every entry twice: with a garbage signature (or none) and signed by the player whose
turn it is, so that it gets past the signature to the parser and the rules.  Each
must be refused in one clean line, leaving the game byte-identical.  A handful run as
real processes under a hard address-space limit (RLIMIT_AS), among them the ones
that would hang or eat memory if a check were missing: a blow-up fails them clearly,
and a hang fails after a generous timeout.  Those processes are forked from a zygote that
imported pbem under the limit (tests/crash_runner.py), not each started afresh.  What each input costs in time and memory
is measured by `make bench` (benchmarks/hostile_costs.py), beside the 2 s and 200 MB goal.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from conftest import tree_snapshot
from crash_runner import CrashRunner
from hostile import make_corpus as mc
from hostile.make_corpus import Entry
from hostile_harness import (
    BLOW_UP_ENTRIES,
    NOSIG,
    all_entry_names,
    assert_clean_line,
    assert_clean_output,
    assert_refused_in_one_line,
    bind,
    entries_for,
    garbage_signature,
    sign,
)
from pipeline_helpers import new_game, signed_move

from pbem.cli.group import main
from pbem.core import registry
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

NAMES = all_entry_names()
PBEM = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); sys.argv[0] = 'pbem'; "
        "from pbem.core import registry; registry.GAMES['toy'] = 'toygame:ToyGame'; "
        "from pbem.cli.group import main; main()")


@dataclass
class Arena:
    gd: GameDir                       # the moderator's copy
    player_copy: Path                 # what a player has (no moderator/ folder)
    table: Table
    entries: dict[str, Entry]
    keys: dict[str, Path]
    scratch: Path                     # where the move files are written (outside the game)
    before: dict[str, str]            # the moderator's copy, file by file
    player_before: dict[str, str]

    def write(self, name: str, raw: bytes, signature: str | None) -> Path:
        folder = self.scratch / name
        folder.mkdir(parents=True, exist_ok=True)
        move = folder / "move.yaml"
        move.write_bytes(raw)
        sig = folder / "move.yaml.sig"
        sig.unlink(missing_ok=True)
        if signature is not None:
            sig.write_text(signature, encoding="utf-8", errors="surrogateescape")
        return move

    def unchanged(self, what: str) -> None:
        assert tree_snapshot(self.gd.root) == self.before, f"{what}: the game changed on disk"
        assert tree_snapshot(self.player_copy) == self.player_before, f"{what}: the player's copy changed"


@pytest.fixture(scope="module")
def arena(tmp_path_factory, key_pool) -> Iterator[Arena]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry.GAMES, "toy", "toygame:ToyGame")
        root = tmp_path_factory.mktemp("hostile")
        gd = new_game(root / "game", "toy", key_pool, ["red", "blue", "green"])
        player_copy = root / "red-copy"
        shutil.copytree(gd.root, player_copy, ignore=shutil.ignore_patterns("moderator"))
        table = Table.load(gd)
        yield Arena(gd, player_copy, table, entries_for(table), key_pool, root / "moves",
                    tree_snapshot(gd.root), tree_snapshot(player_copy))


def _invoke(args: list[str]) -> object:
    return CliRunner().invoke(main, args)


# --- the corpus itself -----------------------------------------------------------------------------

def test_the_committed_corpus_is_what_the_generator_makes(tmp_path):
    mc.write_corpus(tmp_path)
    made = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in mc.CORPUS.iterdir()}
    assert made.keys() == committed.keys(), "run `python tests/hostile/make_corpus.py` and commit the result"
    changed = sorted(name for name in made if made[name] != committed[name])
    assert not changed, f"stale corpus files {changed}: run `python tests/hostile/make_corpus.py`"
    assert len(committed) - 1 >= 100
    categories = {e.category for e in mc.load_corpus()}
    assert {"bomb", "nesting", "keys", "binary", "encoding", "control", "bidi", "tags", "documents", "fields",
            "unknown keys", "counts", "action shapes", "numbers", "sealed", "mail", "strings"} <= categories


# --- pbem submit ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_submit_refuses_every_entry_in_one_line(arena, name):
    entry = arena.entries[name]
    raw = bind(entry, arena.table)
    kind, garbage = garbage_signature(NAMES.index(name), arena.keys["red"])
    for variant, signature in ((f"signature {kind}", garbage), ("signed by red", sign(arena.keys["red"], raw))):
        what = f"submit {name} ({variant})"
        move = arena.write(name, raw, signature)
        result = _invoke(["submit", str(arena.gd.root), str(move)])
        line = assert_refused_in_one_line(result, what)
        arena.unchanged(what)
        if signature is garbage:    # refused before anything was parsed: by its size or its signature
            expected = "no signature file" if kind == NOSIG else "signature"
            assert expected in line or "the limit is" in line, f"{what}: {line}"


# --- pbem check (a player's preview on a player's copy) ------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_check_refuses_every_entry_in_one_line(arena, name):
    entry = arena.entries[name]
    raw = bind(entry, arena.table)
    for variant, signature in (("unsigned", None), ("signed by red", sign(arena.keys["red"], raw))):
        what = f"check {name} ({variant})"
        move = arena.write(name, raw, signature)
        result = _invoke(["check", str(arena.player_copy), str(move)])
        if entry.check_may_pass:      # a sealed action: only the moderator can open it
            assert_clean_output(result, what)
        else:
            assert_refused_in_one_line(result, what)
        arena.unchanged(what)


# --- special files ----------------------------------------------------------------------------------------------

@contextlib.contextmanager
def hang_guard(seconds: int = 10) -> Iterator[None]:
    """Fail instead of hanging for ever (a FIFO opened for reading blocks until a writer comes)."""
    def timeout(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: it hangs")
    if threading.current_thread() is not threading.main_thread():
        yield                           # signals reach the main thread only (the FIFO runs in a subprocess too)
        return
    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_special_files_are_refused_in_one_line_without_hanging(arena, tmp_path):
    made = mc.make_special_files(tmp_path / "special", tmp_path / "elsewhere")
    assert len(made) >= 10
    for name, path in made.items():
        for command, game in (("submit", arena.gd.root), ("check", arena.player_copy)):
            what = f"{command} {name}"
            with hang_guard():
                result = _invoke([command, str(game), str(path)])
            assert_refused_in_one_line(result, what)
            arena.unchanged(what)


# --- real subprocesses under a hard memory limit ----------------------------------------------------------------

#: the address space a pbem process may map: about eight times what auditing a whole game maps
#: (60 MiB here), far below what any of these inputs would take if a check were missing
ADDRESS_SPACE = 512 * 1024 * 1024
#: a generous guard against a hang (these take well under a second each)
HANG_SECONDS = 120

#: sets the limit, then becomes the command given as its arguments
LIMITED = ("import os, resource, sys; limit = int(os.environ['PBEM_TEST_ADDRESS_SPACE']); "
           "resource.setrlimit(resource.RLIMIT_AS, (limit, limit)); os.execv(sys.argv[1], sys.argv[1:])")


def run_limited(argv: list[str]) -> tuple[int, str, str]:
    """Run ``argv`` (a Python command line) under :data:`ADDRESS_SPACE`; (exit status, stdout, stderr).
    Fails with a clear message if it hangs or runs out of memory."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-c", LIMITED, *argv], stdout=out, stderr=err,
                                env={**os.environ, "PBEM_TEST_ADDRESS_SPACE": str(ADDRESS_SPACE)},
                                start_new_session=True)
        try:
            proc.wait(HANG_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise AssertionError(f"{' '.join(argv[-3:])}: still running after {HANG_SECONDS} s") from None
        out.seek(0)
        err.seek(0)
        stdout, stderr = (f.read().decode("utf-8", "replace") for f in (out, err))
    _fail_if_out_of_memory(argv, proc.returncode, stderr)
    return proc.returncode, stdout, stderr


def _fail_if_out_of_memory(argv: list[str], status: int, stderr: str) -> None:
    """A process that ran out of its address space fails the test, saying so."""
    if "MemoryError" in stderr or "memory allocation" in stderr or status == -signal.SIGSEGV:
        raise AssertionError(f"{' '.join(argv[-3:])}: ran out of its {ADDRESS_SPACE >> 20} MiB of address space "
                             f"(exit {status}): {stderr.strip()[-300:]!r}")


def test_the_memory_limit_stops_a_blow_up_with_a_clear_message():
    with pytest.raises(AssertionError, match="ran out of its 512 MiB of address space"):
        run_limited([sys.executable, "-c", "blob = bytearray(1 << 30)"])
    assert run_limited([sys.executable, "-c", "blob = bytearray(1 << 20); print(len(blob))"])[:2] == (0, "1048576\n")


@pytest.fixture(scope="module")
def limited_zygote() -> Iterator[CrashRunner]:
    """pbem's commands in processes of their own under :data:`ADDRESS_SPACE`: forked from a zygote
    (tests/crash_runner.py) that imported pbem, registered the toy game (as :data:`PBEM` does) and
    then limited its own address space (tests/address_limit.py), so that each command, a real
    process with that limit and the zygote's memory, skips the interpreter's start and pbem's imports."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PBEM_TEST_ADDRESS_SPACE", str(ADDRESS_SPACE))
        runner = CrashRunner(preload=("address_limit",))
    try:
        with tempfile.TemporaryDirectory() as folder:      # the zygote answers once it has imported all
            first = run_forked(runner, ["--version"], Path(folder))
        assert first[0] == 0 and first[1].startswith("pbem") and first[2] == "", first
        assert address_space_limit(runner.proc.pid) == (ADDRESS_SPACE, ADDRESS_SPACE), "the zygote is not limited"
        yield runner
    finally:
        runner.close()


def run_forked(zygote: CrashRunner, args: list[str], folder: Path) -> tuple[int, str, str]:
    """``pbem ARGS`` forked from ``zygote`` (under :data:`ADDRESS_SPACE`); (exit status, stdout, stderr).
    Fails with a clear message, as :func:`run_limited`, if it hangs or runs out of memory."""
    out, err = folder / "forked.out", folder / "forked.err"
    done = zygote.wait(zygote.start(args, out, {"": "replace", **os.environ}, err=err), out, timeout=HANG_SECONDS)
    stderr = err.read_text(encoding="utf-8", errors="replace") if err.exists() else ""
    _fail_if_out_of_memory(args, done.status, stderr)
    return done.status, done.output, stderr


def address_space_limit(pid: int) -> tuple[int | None, int | None]:
    """The soft and hard RLIMIT_AS of process ``pid`` (None: unlimited)."""
    limits = Path(f"/proc/{pid}/limits").read_text()
    [line] = [line for line in limits.splitlines() if line.startswith("Max address space")]
    soft, hard = line.split()[3:5]
    return tuple(None if v == "unlimited" else int(v) for v in (soft, hard))  # type: ignore[return-value]


def test_the_forked_commands_have_the_limit(limited_zygote, tmp_path):
    """The zygote runs under :data:`ADDRESS_SPACE` (soft and hard), which its children inherit
    with fork; this process is not limited; a forked command runs."""
    assert address_space_limit(limited_zygote.proc.pid) == (ADDRESS_SPACE, ADDRESS_SPACE)
    assert address_space_limit(os.getpid()) != (ADDRESS_SPACE, ADDRESS_SPACE)
    code, out, err = run_forked(limited_zygote, ["--version"], tmp_path)
    assert code == 0 and out.startswith("pbem") and err == "", (code, out, err)


@pytest.mark.parametrize("name", [*BLOW_UP_ENTRIES, "fifo", "symlink-dev-zero"])
def test_a_handful_as_real_subprocesses_within_the_memory_limit(arena, limited_zygote, name, tmp_path):
    if name in arena.entries:
        raw = bind(arena.entries[name], arena.table)
        move = arena.write(name, raw, sign(arena.keys["red"], raw))
    else:
        move = mc.make_special_files(tmp_path / "special", tmp_path / "elsewhere")[name]
    for command, game in (("submit", arena.gd.root), ("check", arena.player_copy)):
        what = f"{command} {name} in a subprocess"
        code, out, err = run_forked(limited_zygote, [command, str(game), str(move)], tmp_path)
        may_pass = command == "check" and name in arena.entries and arena.entries[name].check_may_pass
        if not (may_pass and code == 0):
            assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("pbem: error: "), \
                f"{what}: exit {code}: {out!r} {err!r}"
        for line in (out + err).splitlines():
            assert_clean_line(line, what)
        arena.unchanged(what)


# --- and afterwards ---------------------------------------------------------------------------------------------

def test_after_the_corpus_the_next_valid_move_is_accepted(arena):
    raw, sig = signed_move(arena.table, "red", [{"draw": True}], arena.keys["red"])
    move = arena.write("valid", raw, sig)
    result = CliRunner().invoke(main, ["check", str(arena.player_copy), str(move)])
    assert result.exit_code == 0 and "signature by red's key is valid" in result.output, result.output
    result = CliRunner().invoke(main, ["submit", str(arena.gd.root), str(move)])
    assert result.exit_code == 0 and result.output.startswith("accepted: red's move"), result.output
    assert not (arena.gd.moderator_dir / "crashes").exists()
    report = audit(arena.gd)
    assert report.ok, report.problems
