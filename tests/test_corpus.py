"""Old games keep working (tests/corpus/README.md): every game any pbem version wrote into the corpus
replays and audits under the current code, and every position loads and plays on."""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.base.yamlio import POSITION_LIMITS, load_strict
from pbem.core.engine import position_as_written
from pbem.core.playable import check_playable
from pbem.core.registry import load_game
from pbem.pipeline.audit import audit
from pbem.pipeline.newgame import start_position_with_options
from pbem.store.gamedir import GameDir

CORPUS = Path(__file__).parent / "corpus"
GAMES = sorted(p.parent for p in CORPUS.glob("*/*/log.yaml"))
POSITIONS = sorted(CORPUS.glob("*/positions/*.yaml"))


def test_the_corpus_holds_every_game_of_this_version():
    from pbem import __version__
    from pbem.core.registry import game_names
    ours = {p.name for p in GAMES if p.parent.name == __version__}
    assert ours == set(game_names()) - {"toy"}, "add this version's games: tests/corpus/README.md"


@pytest.mark.parametrize("folder", GAMES, ids=[f"{p.parent.name}/{p.name}" for p in GAMES])
def test_an_old_game_replays_and_audits(folder):
    gd = GameDir(folder)
    entries = gd.entries()
    assert entries[0]["game"] == folder.name and entries[0]["pbem"] == folder.parent.name
    assert any(e.get("kind") == "reveal" for e in entries), "corpus games are revealed"
    report = audit(gd, derived=False)
    assert report.ok, report.problems
    assert any(note.startswith(f"replayed {len(entries)} entries") for note in report.notes)


@pytest.mark.parametrize("path", POSITIONS, ids=[f"{p.parent.parent.name}/{p.stem}" for p in POSITIONS])
def test_an_old_position_loads_and_plays_on(path):
    game = load_game(path.stem)
    position = load_strict(path.read_bytes(), str(path), POSITION_LIMITS)
    names = [p["name"] for p in position["players"]]
    start, _options = start_position_with_options(game, dict(position), {}, names)
    state = game.from_position(start)
    check_playable(game, state)
    # read as it was written; a position starts a game under this pbem's rules, so an option added
    # since the rules it was written under (Game.earlier_rules) is there with its default
    rules = GameDir(path.parent.parent / path.stem).entries()[0]["rules"]
    assert rules == game.rules_version or rules in game.earlier_rules
    added = game.earlier_rules.get(rules, {}) if rules != game.rules_version else {}
    read = game.to_position(state)
    defaults = {s.name: s.default for s in game.option_specs()}
    assert {k: read["options"][k] for k in added} == {k: defaults[k] for k in added}
    assert position_as_written(game, rules, read) == position


@pytest.mark.parametrize("path", POSITIONS, ids=[f"{p.parent.parent.name}/{p.stem}" for p in POSITIONS])
def test_a_position_in_a_format_this_pbem_does_not_read_is_one_line_saying_what_to_do(path):
    from pbem.pipeline.newgame import NewGameError
    game = load_game(path.stem)
    position = load_strict(path.read_bytes(), str(path), POSITION_LIMITS)
    position["format"] = position["format"].split("/")[0] + "/0"          # an older format
    with pytest.raises(NewGameError) as refused:
        start_position_with_options(game, position, {}, [p["name"] for p in position["players"]])
    message = str(refused.value)
    assert "\n" not in message and message.startswith("position: format: ")
    assert "use the pbem version that wrote it, or write the position again as `pbem show --full` does" in message


def test_pbem_audit_log_only_on_a_copy_with_only_the_log_and_the_moves(tmp_path):
    import shutil

    from click.testing import CliRunner

    from pbem.cli.group import main
    copy = tmp_path / "game"
    shutil.copytree(next(p for p in GAMES if p.name == "space-swarm"), copy)
    result = CliRunner().invoke(main, ["audit", str(copy), "--log-only"])
    assert result.exit_code == 0, result.output
    assert "(the digests and secrets files were not compared: --log-only)" in result.output
    result = CliRunner().invoke(main, ["audit", str(copy)])
    assert result.exit_code == 1 and "FAIL: public/digest.txt differs from what the log produces" in result.output
