"""The C parser (libyaml, what pbem uses) and the pure-Python one read everything alike.

pbem reads move files and logs with libyaml's parser (``yaml.cyaml.CParser``: a seventh of the
pure-Python parser's time) under its own strict rules (duplicate keys refused, YAML 1.2
booleans, decimal integers, no anchors or tags, hard limits).  The pure-Python parser is the
fallback where PyYAML has no libyaml.  Both must give the same values, and refuse the same
files, on every file of the hostile corpus and on whole logs.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pipeline_helpers import PipelineGame, new_game

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from golden_games import CONFIGS, read  # noqa: E402

from pbem.base import yamlio  # noqa: E402
from pbem.store.log import split_chunks  # noqa: E402

CORPUS = Path(__file__).parent / "hostile" / "corpus"


def outcome(load: Any, data: bytes, pure: bool) -> tuple[str, Any]:
    try:
        return "value", load(data, pure=pure)
    except yamlio.YamlError:
        return "refused", None


def test_pbem_reads_with_the_c_parser() -> None:
    assert yamlio.HAVE_LIBYAML, "PyYAML here has no libyaml: pbem falls back to the slow parser"
    from yaml.cyaml import CParser
    assert issubclass(yamlio._LOADERS[("move", False)], CParser)
    assert issubclass(yamlio._LOADERS[("log", False)], CParser)


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.yaml")))
def test_both_parsers_agree_on_the_hostile_corpus(name: str) -> None:
    data = (CORPUS / name).read_bytes()
    for load in (yamlio.load_strict, yamlio.load_log_entry):
        c, pure = outcome(load, data, False), outcome(load, data, True)
        assert c == pure, f"{name} ({load.__name__}): libyaml {c[0]}, pure Python {pure[0]}"


def test_both_parsers_agree_on_a_whole_log(tmp_path: Path, key_pool: dict[str, Path]) -> None:
    game = PipelineGame(new_game(tmp_path / "g", "atlantis", key_pool, ["red", "blue", "green"]))
    for _ in range(40):           # the log and the archived moves as submit writes them (the derived files unused)
        mv = game.bot_move(key_pool)
        assert mv is not None
        game.take(*mv)
    gd = game.gd
    text = gd.log_path.read_text()
    chunks = split_chunks(text)
    assert len(chunks) == 41
    for chunk in chunks:
        assert yamlio.load_log_entry(chunk.text, pure=True) == yamlio.load_log_entry(chunk.text, pure=False)
    for path in sorted(gd.moves_dir.glob("*.yaml")):
        raw = path.read_bytes()
        assert yamlio.load_strict(raw, pure=True) == yamlio.load_strict(raw, pure=False)


def test_both_parsers_agree_on_the_golden_games_as_yaml() -> None:
    """Every event, action and position of a few golden games, written by pbem's dumper (as the
    log writes them) and read back by each parser."""
    for config in CONFIGS[::8]:
        record = read(config)
        for step in record["steps"][:150]:
            text = yamlio.dump({"actions": [step["action"]], "events": [e[0] for e in step["events"]],
                                "pending": step["pending"]})
            assert yamlio.load_log_entry(text, pure=True) == yamlio.load_log_entry(text, pure=False)
