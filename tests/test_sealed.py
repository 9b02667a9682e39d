"""Sealed actions: a standing order only the moderator reads until the reveal, checked by the audit."""
from __future__ import annotations

import pytest

from conftest import tree_snapshot
from pipeline_helpers import finish_in_memory, new_game, reveal_and_audit, signed_move
from pbem.core.engine import Rejected
from pbem.core.sealed import seal_action
from pbem.pipeline.preview import preview
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

ORDER = {"standing": {"shark_defense": "never", "whale_defense": "ask"}}


@pytest.fixture
def game(tmp_path, key_pool):
    return new_game(tmp_path / "g", "atlantis", key_pool, ["red", "blue", "green"], seed=b"sealed" * 6)


def sealed_for(gd: GameDir, action=ORDER):
    return seal_action(action, gd.entries()[0]["moderator"]["key"])


def test_a_sealed_standing_order_is_applied_but_never_public(game, key_pool, tmp_path):
    table = Table.load(game)
    assert table.game.pending(table.state)[0].player == "red"
    submit(game, *signed_move(table, "blue", [sealed_for(game)], key_pool["blue"]))   # not blue's turn: any time
    table = Table.load(game)
    assert table.state.standing["blue"] == {"shark_defense": "never", "whale_defense": "ask"}
    public = [game.log_path.read_text()] + [p.read_text() for p in game.public_dir.iterdir()] + \
             [p.read_text() for p in game.moves_dir.iterdir()]
    for text in public:
        assert "never" not in text and "whale_defense: ask" not in text
    # the moderator's copy replays it without the snapshot
    game.snapshot_path.unlink()
    assert Table.load(game).state.standing["blue"]["shark_defense"] == "never"
    # a player's preview cannot open it and says so
    raw, _sig = signed_move(Table.load(game), "blue", [sealed_for(game)], key_pool["blue"])
    (tmp_path / "m.yaml").write_bytes(raw)
    assert any("sealed" in line for line in preview(game.root, tmp_path / "m.yaml"))


def test_reveal_publishes_the_plaintexts_and_the_audit_checks_them(game, key_pool, tmp_path):
    submit(game, *signed_move(Table.load(game), "green", [sealed_for(game)], key_pool["green"]))
    finish_in_memory(game, key_pool, bot="greedy")          # the bots' moves: in memory, published once
    reveal_and_audit(game, tmp_path / "published")
    entry = game.entries()[-1]
    assert entry["kind"] == "reveal" and list(entry["sealed"]) == ["1/0"]


def test_a_sealed_action_that_does_not_match_its_commitment_is_refused(game, key_pool):
    bad = sealed_for(game)
    bad["commit"] = "0" * 64
    before = tree_snapshot(game.root)
    with pytest.raises(Rejected, match="does not match its commitment"):
        submit(game, *signed_move(Table.load(game), "blue", [bad], key_pool["blue"]))
    assert tree_snapshot(game.root) == before


def test_a_sealed_illegal_action_is_refused_without_showing_it(game, key_pool):
    hidden = sealed_for(game, {"remove": "G6"})
    with pytest.raises(Rejected) as info:
        submit(game, *signed_move(Table.load(game), "blue", [hidden], key_pool["blue"]))
    assert "(sealed)" in str(info.value) and "G6" not in str(info.value)


def test_a_moderator_without_the_cache_decrypts_the_sealed_actions_again(game, key_pool):
    """A CI moderator starts from a fresh clone: the moderator key is enough."""
    submit(game, *signed_move(Table.load(game), "blue", [sealed_for(game)], key_pool["blue"]))
    (game.moderator_dir / "sealed.json").unlink()
    game.snapshot_path.unlink()
    assert Table.load(game).state.standing["blue"]["shark_defense"] == "never"
    submit(game, *signed_move(Table.load(game), "green", [sealed_for(game)], key_pool["green"]))
    assert sorted(__import__("json").loads((game.moderator_dir / "sealed.json").read_text())) == ["1/0", "2/0"]
