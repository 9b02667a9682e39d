"""A move is bound to the decision its player saw: entries that change nothing the player
sees do not make it stale; anything that changed what they were deciding does, and says what."""
from __future__ import annotations

import shutil

import pytest

from pipeline_helpers import new_game, play_to_end, signed_move
from pbem.core.engine import Rejected
from pbem.pipeline.audit import audit
from pbem.store.binding import changes_since
from pbem.pipeline.moderator import moderate, reveal
from pbem.pipeline.preview import preview
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import MoveFile, render_move
from pbem.store.table import Table


@pytest.fixture
def game(tmp_path, key_pool, toy_registered):
    return new_game(tmp_path / "g", "toy", key_pool, ["red", "blue", "green"])


def test_a_note_or_a_pause_does_not_make_a_move_stale(game, key_pool, tmp_path):
    raw, sig = signed_move(Table.load(game), "red", [{"draw": True}], key_pool["red"])   # written after entry 0
    moderate(game, "note", "welcome")
    moderate(game, "pause", "lunch")
    moderate(game, "resume", "back")
    receipt = submit(game, raw, sig)
    assert receipt.index == 4
    entry = game.entries()[4]
    assert entry["prev"] == game.entries()[3]["hash"]
    assert audit(game).ok
    with pytest.raises(Rejected, match="already accepted as log entry 4"):
        submit(game, raw, sig)                      # still used once only
    play_to_end(game, key_pool)
    reveal(game)
    copy = tmp_path / "copy"
    shutil.copytree(game.root, copy, ignore=shutil.ignore_patterns("moderator"))
    report = audit(GameDir(copy))                  # the replay re-checks the binding
    assert report.ok, report.problems


def test_what_changed_the_players_decision_makes_it_stale_and_is_named(game, key_pool):
    raw, sig = signed_move(Table.load(game), "red", [{"draw": True}], key_pool["red"])
    moderate(game, "timeout", "no move within 48 hours", player="red", policy="bot")
    with pytest.raises(Rejected, match=r"stale move: written after entry 0, but since then entry 1 \(red's timeout"):
        submit(game, raw, sig)


def test_a_move_many_entries_behind_names_the_first_changes_and_counts_the_rest():
    """A seat far behind (in civil disorder, say) gets a refusal that names three changes and counts
    the rest, so the receipt keeps its advice (read the new digest) instead of being cut mid-list."""
    entries = [{"index": 0, "kind": "setup"}]
    entries += [{"index": i, "kind": "move", "player": ("blue", "green")[i % 2]} for i in range(1, 6)]
    entries += [{"index": 6, "kind": "moderator", "action": "note"},                  # not a change: not counted
                {"index": 7, "kind": "moderator", "action": "timeout", "player": "red"}]
    assert changes_since(entries, 0) == ("entry 1 (green's move), entry 2 (blue's move), entry 3 (green's move), "
                                         "3 more up to entry 7")
    assert changes_since(entries, 4) == "entry 5 (green's move), entry 7 (red's timeout by the moderator)"
    assert changes_since(entries, 7) == "later entries"


def test_a_move_naming_an_entry_of_another_log_is_refused(game, key_pool):
    raw, sig = signed_move(Table.load(game), "red", [{"draw": True}], key_pool["red"], after=0, after_hash="0" * 64)
    with pytest.raises(Rejected, match="not an entry of this game's log"):
        submit(game, raw, sig)
    table = Table.load(game)
    moderate(game, "note", "hello")
    raw2, sig2 = signed_move(table, "red", [{"draw": True}], key_pool["red"], after=5, after_hash=table.last["hash"])
    with pytest.raises(Rejected, match="not an entry of this game's log"):
        submit(game, raw2, sig2)


def test_check_explains_a_move_written_before_later_entries(game, key_pool, tmp_path):
    table = Table.load(game)
    move = MoveFile(table.game_id, "red", 0, table.last["hash"], [{"draw": True}])
    path = tmp_path / "move.yaml"
    path.write_text(render_move(move))
    moderate(game, "note", "hello")
    lines = preview(game.root, path)
    assert "the moderator takes it only if nothing red sees changed since" in lines[0]


def test_another_players_standing_order_does_not_make_the_active_move_stale(tmp_path, key_pool):
    gd = new_game(tmp_path / "a", "atlantis", key_pool, ["red", "blue", "green"])
    table = Table.load(gd)
    [action] = [a for a in table.game.legal_actions(table.state, "red")][:1]
    raw, sig = signed_move(table, "red", [action], key_pool["red"])
    order = {"standing": {"shark_defense": "never"}}
    submit(gd, *signed_move(table, "blue", [order], key_pool["blue"]))     # entry 1: blue, out of turn
    assert submit(gd, raw, sig).index == 2                                   # red's move, written after 0
    assert audit(gd).ok

