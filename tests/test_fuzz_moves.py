"""A property-based fuzzer: mutated valid move files, re-signed, through `pbem submit` and `pbem check`.

Hypothesis starts from valid signed move files (a draw, a stop, a sealed stop) and
mutates them: byte flips, insertions, deletions and repeats, or YAML-aware changes
of keys, values, types and actions; the result is signed again by red (usually),
by another player, or not at all.  For every file, whatever happens:

* `pbem submit` and `pbem check` exit 0 or 1, never with a traceback; a refusal is
  one clean line (no raw control or bidi characters, short);
* a refusal changes nothing on disk; an accepted move leaves a game that
  `pbem audit` passes.

What the hostile inputs cost in time and memory is a figure of `make bench`
(benchmarks/hostile_costs.py), not an assertion here.

The run is bounded (200 examples, derandomized, so `make test` stays fast and
stable).  To fuzz longer and with fresh randomness:

    PBEM_FUZZ_EXAMPLES=20000 PBEM_FUZZ_RANDOM=1 .venv/bin/python -m pytest tests/test_fuzz_moves.py
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from conftest import tree_snapshot
from hostile_harness import assert_clean_output, assert_refused_in_one_line, sign
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline_helpers import new_game, signed_move

from pbem.base import yamlio
from pbem.cli.group import main
from pbem.core import registry
from pbem.core.sealed import seal_action
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import KEYS
from pbem.store.table import Table

EXAMPLES = int(os.environ.get("PBEM_FUZZ_EXAMPLES", "200"))
RANDOM = os.environ.get("PBEM_FUZZ_RANDOM", "") not in ("", "0")


@dataclass
class Bench:
    template: Path             # the game as made, never touched
    gd: GameDir                # the game the fuzzer submits to (restored after an accepted move)
    player_copy: Path
    scratch: Path
    bases: list[bytes]         # valid move files
    keys: dict[str, Path]
    before: dict[str, str]
    accepted: int = 0
    refused: int = 0

    def restore(self) -> None:
        shutil.rmtree(self.gd.root)
        shutil.copytree(self.template, self.gd.root)


@pytest.fixture(scope="module")
def bench(tmp_path_factory, key_pool) -> Iterator[Bench]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry.GAMES, "toy", "toygame:ToyGame")
        root = tmp_path_factory.mktemp("fuzz")
        template = new_game(root / "template", "toy", key_pool, ["red", "blue", "green"])
        table = Table.load(template)
        sealed = seal_action({"stop": True}, table.header["moderator"]["key"])
        bases = [signed_move(table, "red", actions, key_pool["red"])[0]
                 for actions in ([{"draw": True}], [{"stop": True}], [sealed])]
        gd = GameDir(root / "game")
        shutil.copytree(template.root, gd.root)
        player_copy = root / "red-copy"
        shutil.copytree(gd.root, player_copy, ignore=shutil.ignore_patterns("moderator"))
        bench = Bench(template.root, gd, player_copy, root / "moves", bases, key_pool, tree_snapshot(gd.root))
        bench.scratch.mkdir()
        yield bench
        print(f"fuzz: {bench.accepted} accepted, {bench.refused} refused")
        assert bench.refused > 0


# --- mutations --------------------------------------------------------------------------------------

SCALARS = (st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats()
           | st.text(max_size=24) | st.sampled_from(["true", "r7", "draw", "stop", "", "~", "&a", "*a", "!!str"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=10) | st.integers(), inner, max_size=4), max_leaves=12)
ACTIONS = st.dictionaries(st.sampled_from(["draw", "stop", "sealed", "commit", "x"]) | st.text(max_size=8),
                          VALUES, max_size=3)


@st.composite
def byte_mutation(draw: st.DrawFn, raw: bytes) -> bytes:
    data = bytearray(raw)
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            data += draw(st.binary(min_size=1, max_size=8))
            continue
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["flip", "insert", "delete", "repeat", "byte"]))
        if op == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16)
                               | st.sampled_from([b"&a ", b"*a", b"!!python/object ", b"[", b"{", b"\n  - ",
                                                  b"\x00", b"\xe2\x80\xae", b"\r\n", b"\t", b"---\n", b"? "]))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 32))]
        elif op == "repeat":
            piece = data[at:at + draw(st.integers(1, 40))]
            data[at:at] = piece * draw(st.integers(1, 20))
        else:
            data[at] = draw(st.integers(0, 255))
    return bytes(data)


@st.composite
def yaml_mutation(draw: st.DrawFn, raw: bytes) -> bytes:
    data: dict[Any, Any] = yamlio.load_strict(raw)
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["set", "delete", "add", "rename", "action-add", "action-delete",
                                   "action-change", "action-repeat", "action-type"]))
        key = draw(st.sampled_from(KEYS))
        actions = data.get("actions")
        if op == "set":
            data[key] = draw(VALUES)
        elif op == "delete":
            data.pop(key, None)
        elif op == "add":
            data[draw(st.text(max_size=12))] = draw(VALUES)
        elif op == "rename" and key in data:
            data[draw(st.text(min_size=1, max_size=12))] = data.pop(key)
        elif not isinstance(actions, list):
            data["actions"] = draw(VALUES)
        elif op == "action-add":
            actions.insert(draw(st.integers(0, len(actions))), draw(ACTIONS))
        elif op == "action-delete" and actions:
            actions.pop(draw(st.integers(0, len(actions) - 1)))
        elif op == "action-change" and actions and isinstance(actions[0], dict) and actions[0]:
            first = next(iter(actions[0]))
            actions[0][first] = draw(VALUES)
        elif op == "action-repeat":
            data["actions"] = actions * draw(st.integers(2, 120))
        elif op == "action-type" and actions:
            actions[draw(st.integers(0, len(actions) - 1))] = draw(VALUES)
    style = draw(st.sampled_from(["block", "flow", "json"]))
    try:
        if style == "json":
            text = json.dumps(data, ensure_ascii=draw(st.booleans()))
        else:
            text = yamlio.dump(data) if style == "block" else yamlio.dump_flow(data) + "\n"
    except (TypeError, ValueError):          # a value JSON cannot write (NaN is fine, but int keys...)
        text = yamlio.dump(data)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def mutated_moves(draw: st.DrawFn, bases: list[bytes]) -> tuple[bytes, str]:
    raw = draw(st.sampled_from(bases))
    raw = draw(byte_mutation(raw) if draw(st.booleans()) else yaml_mutation(raw))
    signer = draw(st.sampled_from(["red", "red", "red", "red", "blue", "unsigned"]))
    return raw, signer


# --- the property -------------------------------------------------------------------------------------------

def test_mutated_move_files_are_refused_in_one_line_or_accepted_into_a_game_that_audits(bench):
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=not RANDOM, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def property(data: st.DataObject) -> None:
        raw, signer = data.draw(mutated_moves(bench.bases))
        move = bench.scratch / "move.yaml"
        move.write_bytes(raw)
        signature = sign(bench.keys["red"], bench.bases[0]) if signer == "unsigned" else sign(bench.keys[signer], raw)
        move.with_name("move.yaml.sig").write_text(signature)

        checked = CliRunner().invoke(main, ["check", str(bench.player_copy), str(move)])
        assert_clean_output(checked, f"check {raw[:80]!r}")

        result = CliRunner().invoke(main, ["submit", str(bench.gd.root), str(move)])
        if result.exit_code == 0:
            bench.accepted += 1
            assert result.stdout.startswith("accepted: red's move"), result.output
            assert_clean_output(result, "submit")
            report = audit(bench.gd)
            assert report.ok, (raw, report.problems)
            bench.restore()
        else:
            bench.refused += 1
            assert_refused_in_one_line(result, f"submit {raw[:80]!r}")
            assert tree_snapshot(bench.gd.root) == bench.before, f"a refusal changed the game: {raw!r}"
        assert not (bench.gd.moderator_dir / "crashes").exists()

    property()
    assert bench.accepted > 0 or EXAMPLES < 100, "no mutated move was accepted: the audit path went untested"
