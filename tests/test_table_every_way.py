"""A table is the same whichever way it was reached: held in memory move after move (as one long
`submit` or the property tests hold it), loaded from the moderator's snapshot after a publish
(as `submit` loads it), loaded with no fresh snapshot (a replay of the log), or replayed entry by
entry from the log.  Each gives, after every entry, the same state (its full position), the same
views, pending decisions, legal actions, bot choices and click-to-move pages, and the same
players' private events and preferences: what every output is made from.

The games are played with fixed keys (pipeline_helpers.fixed_key_pool), so each run checks the
same entries (a move's dice come from its signature).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from pipeline_helpers import PipelineGame, fixed_key_pool, new_game, signed_move

from pbem.base.canonical import canonical
from pbem.core.bots import bot_actions
from pbem.core.draws import preview_draws
from pbem.core.rng import Rng
from pbem.pipeline.botmoves import next_to_move
from pbem.pipeline.moderator import moderate
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.log import parse_entries
from pbem.store.table import Table, board_view_indices, replay
from pbem.views.clickpage import MAIL_CAPS, click_page


def as_written(data: Any) -> str:
    """``data`` as JSON in its own order (not sorted: an order that depends on how the state
    was built would reach the outputs that write it so)."""
    return json.dumps(data, default=repr)


def what_outputs_see(table: Table, pages: bool = True) -> dict[str, Any]:
    """Everything the outputs of the table's last entry are made from, as comparable data
    (``pages``: the click-to-move pages too, the dearest part)."""
    game, state = table.game, table.state
    seen: dict[str, Any] = {"entry": (table.last["index"], table.last["hash"]),
                            "position": as_written(game.to_position(state)),
                            "private": canonical(table.private), "preferences": canonical(table.prefs.to_data())}
    for viewer in (None, *table.players):
        seen[f"view of {viewer}"] = as_written(game.view(state, viewer))
    pending = [d.player for d in game.pending(state)]
    seen["pending"] = pending
    for player in dict.fromkeys(pending):
        seen[f"legal actions of {player}"] = canonical(game.legal_actions(state, player))
        bot_rng = Rng(b"every-way", f"{table.last['index']}/{player}")
        seen[f"bot move of {player}"] = canonical(bot_actions(game, state, player, preview_draws(), bot_rng))
        page = click_page(table, player, MAIL_CAPS) if pages else None
        seen[f"page of {player}"] = None if page is None else (
            as_written(page.data), page.family, None if page.graph is None else len(page.graph.nodes))
    return seen


def differences(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(expected) | set(got) if expected.get(k) != got.get(k))


def with_pages(k: int) -> bool:
    """Are the click pages compared after entry ``k``?  (After every other entry only the rest.)"""
    return k % 8 in (0, 4)


def replayed(gd: GameDir, pages: Callable[[int], bool] = lambda k: True) -> list[dict[str, Any]]:
    """:func:`what_outputs_see` after every entry of the log, replayed from its start."""
    entries = parse_entries(gd.read_log_text(), str(gd.log_path))
    table = Table.load(gd)
    return [what_outputs_see(t, pages(t.last["index"])) for t, _entry, _applied in
            replay(gd, table.game, entries, gd.require_seed(entries), board_view_indices(entries))][1:]


@pytest.mark.slow(seconds=4)
@pytest.mark.parametrize("game_name,names,moves", [
    ("space-attack", ["red", "blue", "green"], 40),
    ("space-swarm", ["red", "blue"], 30),
    ("atlantis", ["red", "blue", "green", "yellow"], 25),
    ("atlantis-1986", ["red", "blue", "green"], 25),
])
def test_in_memory_from_the_snapshot_and_replayed_the_table_is_the_same(tmp_path: Path, game_name: str,
                                                                       names: list[str], moves: int) -> None:
    key_pool = fixed_key_pool(tmp_path / "keys")
    game = PipelineGame(new_game(tmp_path / "game", game_name, key_pool, names, seed=b"every-way" * 4))
    in_memory, from_snapshot, from_log = [], {}, {}
    while game.moves < moves and (move := game.bot_move(key_pool, b"every-way")) is not None:
        game.take(*move)
        in_memory.append(what_outputs_see(game.table, with_pages(game.moves)))
        if game.moves % 8 == 0:
            game.publish()
            loaded = Table.load(game.gd)
            assert not loaded.derived_stale                   # really the snapshot's table (a replay is stale)
            from_snapshot[game.moves] = what_outputs_see(loaded)
        elif game.moves % 8 == 4:
            loaded = Table.load(game.gd)                  # the snapshot is older than the log: replayed
            assert loaded.derived_stale and loaded.tail_start == 0
            from_log[game.moves] = what_outputs_see(loaded)
    assert game.moves >= min(moves, 25)
    assert sum(any(k.startswith("page of") and v is not None for k, v in seen.items()) for seen in in_memory) >= 3
    for k, seen in enumerate(replayed(game.gd, with_pages), start=1):
        assert differences(seen, in_memory[k - 1]) == [], f"after move {k}: in memory vs replayed"
        for way, tables in (("the snapshot", from_snapshot), ("a replay by Table.load", from_log)):
            if k in tables:
                assert differences(seen, tables[k]) == [], f"after move {k}: {way} vs replayed"


@pytest.mark.slow(seconds=3)
def test_through_submit_with_moderator_entries_the_snapshot_table_is_the_replayed_one(tmp_path: Path) -> None:
    """`submit` and `pbem moderate` (a note, a timeout, an undo, a pause and resume) move by move:
    the table each loads from the snapshot is the log's replayed table at that entry."""
    key_pool = fixed_key_pool(tmp_path / "keys")
    gd = new_game(tmp_path / "game", "space-swarm", key_pool, ["red", "blue"], seed=b"every-way" * 4)
    steps = {3: ("note", {}), 6: ("timeout", {"player": "NEXT"}), 9: ("undo", {}), 12: ("pause", {}),
             13: ("resume", {}), 17: ("timeout", {"player": "NEXT"})}
    loaded: list[dict[str, Any]] = []
    while len(loaded) < 22 and (player := next_to_move(table := Table.load(gd))) is not None:
        index = table.last["index"]
        if index in steps:
            action, fields = steps.pop(index)
            moderate(gd, action, f"every-way {action}", **{k: (player if v == "NEXT" else v) for k, v in fields.items()})
        else:
            actions = bot_actions(table.game, table.state, player, preview_draws(), Rng(b"every-way", f"{index}/{player}"))
            submit(gd, *signed_move(table, player, actions, key_pool[player]))
        snapped = Table.load(gd)
        assert not snapped.derived_stale
        loaded.append(what_outputs_see(snapped))
    assert not steps, f"moderator steps not reached: {steps}"
    for k, seen in enumerate(replayed(gd), start=1):
        assert differences(seen, loaded[k - 1]) == [], f"after entry {k}: the snapshot vs replayed"
