"""Property tests over whole Space Attack games played by bots through the real pipeline.

For every game: the audit passes after the reveal (on a copy without the moderator's folder),
pieces are conserved, and no hidden value leaks.  The bots' moves are signed, checked, applied
and logged by the pipeline's own functions, their digests and secrets made in memory at the
checked entries and published once at the end (pipeline_helpers.PipelineGame, as for Atlantis).  Leaks are tested differentially, as for
Atlantis (test_atlantis_properties.py): at many points of each game the hidden values a viewer
may not know (other colours' crew values, the backs of the station tiles and of other players'
hands) are shuffled, and every output for that viewer (public digest text/HTML, board SVG,
view.json, the viewer's own secrets, and the error message of an illegal action) must stay
byte-identical.  A steal window open for a player's own sealed standing order is part of one game.
"""
from __future__ import annotations

import json
from typing import Any

import leakcheck
import pytest
from atlantis_positions import piece_counts
from leakcheck import pending_player_actions, survive_shuffle_hidden
from pipeline_helpers import PipelineGame, game_files, new_game, reveal_and_audit, signed_move, submitted_and_in_memory

from pbem.core.rng import Rng
from pbem.core.sealed import seal_action
from pbem.pipeline.submit import submit
from pbem.store.table import Table

GAMES = [  # players, options, seed, bot (greedy bots save crew, so scoring is exercised)
    (["red", "blue"], {}, b"q1" * 16, "greedy"),
    (["red", "blue", "green"], {"reactions": "ask", "memory": "open"}, b"q2" * 16, "random"),
    (["red", "blue", "green", "yellow"], {"map": "starship-titanus", "blue_tiles": "any"}, b"q3" * 16, "greedy"),
    (["alice", "bob"], {"map": "jacobs-ladder", "colours": "1", "reactions": "never", "enclosed": "station"},
     b"q4" * 16, "random"),
    (["red", "blue", "green"], {"map": "asteroids", "reactors": "random", "overpopulated": "yes",
                                "evolve_attack": "fighters-only"}, b"q5" * 16, "greedy"),
    (["red", "blue", "green", "yellow", "purple"], {"end": "to-the-last"}, b"q6" * 16, "greedy"),
    (["red", "blue", "green", "yellow", "purple", "orange"], {"overpopulated": "yes", "reactions": "ask"},
     b"q7" * 16, "random"),
]
CREATURES = {"queen": 6, "spawn": 6, "warrior": 6}


def probe_actions(table: Table, actor: str) -> list[dict[str, Any]]:
    return [{"remove": "G6"}, {"play": "T1"}, {"play": "T40", "crew": ["r1", "b1"]}, {"move": "r1", "to": "A3"},
            {"fire": "T1", "at": "A3"}, {"creature": "S1", "path": ["A3"]}, {"deploy": "Q6", "to": "A3"},
            *pending_player_actions(table, actor)]


def check_no_leak(table: Table, rng: Rng, pos: dict[str, Any] | None = None) -> None:
    """``pos``: the position of ``table.state``, when the caller has made it (only read)."""
    pos = table.game.to_position(table.state) if pos is None else pos
    if pos["phase"] == "over" or pos.get("reaction") is not None or pos.get("steal") is not None:
        return  # values are flipped at the end; a window shows who was asked, as in the rules
    leakcheck.check_no_leak(table, rng, survive_shuffle_hidden, probe_actions, pos)


def conserved(pos: dict[str, Any], start: dict[str, int]) -> None:
    assert piece_counts(pos) == start
    captured = [h for held in pos["captured"].values() for h in held]
    in_window = pos["steal"]["creatures"] if pos.get("steal") else []
    assert sorted(captured + in_window) == sorted(h for h, c in pos["creatures"].items() if c["where"] == "captured")


@pytest.mark.slow(seconds=12)
@pytest.mark.parametrize("players, options, seed, bot", GAMES, ids=[f"game{i}" for i in range(len(GAMES))])
def test_whole_game_audit_conservation_and_no_leaks(tmp_path, fixed_keys, players, options, seed, bot):
    key_pool = fixed_keys                # the same games on every run (conftest.fixed_keys)
    pool = dict(key_pool, alice=key_pool["purple"], bob=key_pool["orange"])
    gd = new_game(tmp_path / "g", "space-attack", pool, players, seed=seed, options=options)
    # a sealed standing order before the bots start: only the moderator reads it until the reveal
    order = {"standing": {"steal": "ask", "warrior_defense": "never"}}
    sealed = seal_action(order, gd.entries()[0]["moderator"]["key"])
    submit(gd, *signed_move(Table.load(gd), players[-1], [sealed], pool[players[-1]]))
    assert "warrior_defense: never" not in gd.log_path.read_text()
    game = PipelineGame(gd)          # the bots' moves: checked, applied and logged in memory, published at the end
    start = piece_counts(game.table.game.to_position(game.table.state))
    assert {k: v for k, v in start.items() if k in CREATURES} == CREATURES
    assert start["tiles"] == 40 and start["boats"] == 17
    rng = Rng(seed, "leak")
    check_no_leak(game.table, rng)
    while (mv := game.bot_move(pool, bot=bot)) is not None:
        game.take(*mv)
        if game.moves % 7 == 0:
            pos = game.table.game.to_position(game.table.state)    # read by both checks, changed by neither
            conserved(pos, start)
            check_no_leak(game.table, rng, pos)
        assert game.moves < 3000
    game.publish()
    assert game.moves > 20
    final = Table.load(gd)
    result = final.game.result(final.state)
    assert result is not None and "bonus" in result.detail
    if bot == "greedy":
        assert sum(result.scores.values()) > 0, "greedy bots should save some crew"
    held = {h: t["back"] for h, t in final.game.to_position(final.state)["tiles"].items() if t["where"] == "hand"}
    for entry in gd.entries():
        for event in entry.get("events", []):
            flat = json.dumps(event)
            for handle, back in held.items():
                assert not (f'"{handle}"' in flat and f'"{back}"' in flat), (handle, back, event)
    report = reveal_and_audit(gd, tmp_path / "published")
    assert any("replayed" in note for note in report.notes)


@pytest.mark.slow(seconds=5)
def test_same_seed_same_moves_same_bytes_whether_submitted_or_played_in_memory(tmp_path, key_pool):
    """The same seed and moves give the same bytes; and the in-memory play of the property tests
    (PipelineGame, published once) writes what `submit` writes move by move."""
    submitted, in_memory = submitted_and_in_memory(tmp_path, "space-attack", key_pool, ["red", "blue", "green"],
                                                   b"e" * 32, 30, bot="greedy", options={"map": "asteroids"})
    expected = game_files(submitted)
    assert len(expected["log.yaml"].splitlines()) > 100 and len([f for f in expected if f.startswith("moves/")]) > 40
    assert game_files(in_memory) == expected
