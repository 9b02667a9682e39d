"""Property tests over whole Atlantis games played by bots through the real pipeline.

For every game: the audit passes (with the seed revealed, on a copy without the
moderator's folder), pieces are conserved, the same seed and moves give the same
bytes, and no hidden value leaks.  Leaks are tested differentially: at many
points of each game the hidden values a viewer may not know are shuffled, and
every output for that viewer (public digest text/HTML, board SVG, view.json,
the viewer's own secrets, and the error message of an illegal action) must stay
byte-identical.
"""
from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest

from atlantis_positions import piece_counts
from pipeline_helpers import bot_move, new_game, reveal_and_audit
from pbem.game import IllegalAction
from pbem.gamedir import GameDir
from pbem.outputs import player_plaintext, public_outputs
from pbem.rng import Rng
from pbem.submit import submit
from pbem.table import Table

GAMES = [  # players, options, seed, bot, game ("greedy" bots save explorers, so scoring is exercised)
    (["red", "blue"], {}, b"p1" * 16, "greedy", "atlantis"),
    (["red", "blue", "green"], {"memory": "open"}, b"p2" * 16, "random", "atlantis"),
    (["red", "blue", "green", "yellow"], {}, b"p3" * 16, "greedy", "atlantis"),
    (["alice", "bob"], {"colours": "1", "defense": "ask"}, b"p4" * 16, "greedy", "atlantis"),
    (["red", "blue", "green", "yellow"], {"defense": "never", "lagoon": "land"}, b"p5" * 16, "random", "atlantis"),
    (["red", "blue", "green"], {"defense": "ask", "boats": "per-colour"}, b"p6" * 16, "greedy", "atlantis"),
    (["red", "blue", "green"], {"dolphins": "yes", "squid": "yes"}, b"p7" * 16, "greedy", "atlantis"),
    (["red", "blue"], {"squid": "replace-whales", "squid_take": "no", "dolphins": "yes"}, b"p8" * 16, "random", "atlantis"),
    (["red", "blue", "green", "yellow", "purple"], {"overpopulated": "yes", "end": "to-the-last"}, b"p9" * 16,
     "greedy", "atlantis"),
    (["a1", "a2", "a3", "a4", "a5", "a6"], {"scoring": "all-equal", "dolphins": "yes", "squid": "yes"},
     b"pa" * 16, "greedy", "atlantis"),
    (["red", "blue", "green", "yellow"], {"overpopulated": "yes", "end": "submerged", "ties": "broken"},
     b"pb" * 16, "random", "atlantis"),
    (["red", "blue", "green"], {}, b"pc" * 16, "greedy", "atlantis-1986"),
    (["red", "blue"], {"spinner": "dice", "empty_boats": "safe", "start_boats": "placed"}, b"pd" * 16,
     "random", "atlantis-1986"),
]
# creature counts after set-up: the base game's, plus the expansions' pieces when their option is on
BASE_CREATURES = {"serpent": 5, "shark": 6, "whale": 5}
EXPANSION_CREATURES = {"dolphins": {"dolphin": 4}, "squid": {"squid": 5}}


def owner_colours(pos: dict[str, Any], player: str) -> set[str]:
    return {c for p in pos["players"] if p["name"] == player for c in p["colours"]}


def shuffle_hidden(pos: dict[str, Any], viewer: str | None, rng: Rng) -> dict[str, Any]:
    """Permute what ``viewer`` cannot know: other colours' values, unrevealed and others' hand backs."""
    pos = json.loads(json.dumps(pos))
    mine = owner_colours(pos, viewer) if viewer else set()
    by_colour: dict[str, list[str]] = defaultdict(list)
    for handle, ex in pos["explorers"].items():
        if ex["colour"] not in mine:
            by_colour[ex["colour"]].append(handle)
    for handles in by_colour.values():
        values = rng.shuffled([pos["explorers"][h]["value"] for h in handles])
        for h, v in zip(handles, values):
            pos["explorers"][h]["value"] = v
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for handle, tile in pos["tiles"].items():
        if tile["where"] == "island":
            groups[("island", tile["terrain"])].append(handle)
        elif tile["where"] == "hand" and tile["holder"] != viewer:
            groups[("hand", tile["terrain"])].append(handle)
    for handles in groups.values():
        backs = rng.shuffled([pos["tiles"][h]["back"] for h in handles])
        for h, b in zip(handles, backs):
            pos["tiles"][h]["back"] = b
    return pos


def outputs_for(table: Table, viewer: str | None) -> dict[str, bytes]:
    if viewer is None:
        return public_outputs(table)
    return {"secrets": player_plaintext(table, viewer)}


def probe_actions(table: Table, actor: str) -> list[dict[str, Any]]:
    """Actions to try as ``actor``: fixed probes plus what the pending player may do."""
    game = table.game
    pending = game.pending(table.state)
    probes = [{"remove": "G6"}, {"play": "T1"}, {"move": "r1", "to": "A3"}, {"creature": "S1", "path": ["A3"]}]
    if pending and pending[0].player != actor:
        probes += game.legal_actions(table.state, pending[0].player)[:3]
    return probes


def illegal_message(table: Table, actor: str, probes: list[dict[str, Any]]) -> str:
    game = table.game
    messages = []
    for action in probes:
        try:
            game.apply(game.from_position(game.to_position(table.state)), actor, action, Rng(b"x" * 32, "probe"))
            messages.append("ok")
        except IllegalAction as exc:
            messages.append(str(exc))
    return "\n".join(messages)


def check_no_leak(table: Table, rng: Rng) -> None:
    game = table.game
    pos = game.to_position(table.state)
    if pos["phase"] == "over" or pos.get("reaction") is not None:
        return  # values are flipped at the end; a reaction window shows who was asked, as in the rules
    original = table.state
    for viewer in [None] + table.players:
        before = outputs_for(table, viewer)
        probes = probe_actions(table, viewer) if viewer else []
        msg_before = illegal_message(table, viewer, probes) if viewer else ""
        table.state = game.from_position(shuffle_hidden(pos, viewer, rng))
        after = outputs_for(table, viewer)
        msg_after = illegal_message(table, viewer, probes) if viewer else ""
        table.state = original
        for key in before:
            assert before[key] == after[key], f"{key} for {viewer or 'the public'} depends on hidden values"
        assert msg_before == msg_after, f"error messages to {viewer} depend on hidden values"


def expected_atlantis_counts(pos: dict[str, Any]) -> dict[str, int]:
    expected = dict(BASE_CREATURES)
    for option, extra in EXPANSION_CREATURES.items():
        if pos["options"].get(option, "no") != "no":
            expected.update(extra)
    if pos["options"].get("squid") == "replace-whales":
        del expected["whale"]   # variant #1: the whales stay in the box
    return expected


def conserved(pos: dict[str, Any], start: dict[str, int]) -> None:
    """No piece appears or vanishes: every count equals the count after set-up."""
    assert piece_counts(pos) == start
    # a piece is in exactly one place: boats carry only explorers that say they are aboard
    for handle, boat in pos["boats"].items():
        for p in boat.get("passengers", []):
            assert pos["explorers"][p]["where"] == "boat" and pos["explorers"][p]["at"] == handle


def play_checked(gd: GameDir, key_pool, every: int, rng: Rng, bot: str) -> int:
    start_table = Table.load(gd)
    start_pos = start_table.game.to_position(start_table.state)
    start = piece_counts(start_pos)
    if start_table.game.name == "atlantis":
        assert {k: v for k, v in start.items() if k not in ("explorers", "tiles", "boats")} == \
            expected_atlantis_counts(start_pos)
        assert start["tiles"] == 40 and start["boats"] == 12
    n = 0
    while (mv := bot_move(gd, key_pool, bot=bot)) is not None:
        submit(gd, *mv)
        n += 1
        if n % every == 0:
            table = Table.load(gd)
            conserved(table.game.to_position(table.state), start)
            check_no_leak(table, rng)
        assert n < 3000
    return n


@pytest.mark.slow(seconds=10)
@pytest.mark.parametrize("players, options, seed, bot, game", GAMES, ids=[f"game{i}" for i in range(len(GAMES))])
def test_whole_game_audit_conservation_and_no_leaks(tmp_path, key_pool, players, options, seed, bot, game):
    pool = dict(key_pool, alice=key_pool["purple"], bob=key_pool["orange"], a1=key_pool["red"],
                a2=key_pool["blue"], a3=key_pool["green"], a4=key_pool["yellow"], a5=key_pool["purple"],
                a6=key_pool["orange"])
    gd = new_game(tmp_path / "g", game, pool, players, seed=seed, options=options)
    check_no_leak(Table.load(gd), Rng(seed, "leak"))
    n = play_checked(gd, pool, every=7, rng=Rng(seed, "leak"), bot=bot)
    assert n > 10
    final = Table.load(gd)
    result = final.game.result(final.state)
    assert result is not None
    if bot == "greedy":
        assert sum(result.scores.values()) > 0, "greedy bots should save some explorers"
    _no_hidden_backs_in_log(gd, final)
    report = reveal_and_audit(gd, tmp_path / "published")
    assert any("replayed" in n for n in report.notes)


def _no_hidden_backs_in_log(gd: GameDir, table: Table) -> None:
    """Tiles still in a hand at the end were never shown: their backs are in no log event."""
    pos = table.game.to_position(table.state)
    held = {h: t["back"] for h, t in pos["tiles"].items() if t["where"] == "hand"}
    text = gd.log_path.read_text()
    assert "value" not in text.replace("values", "")
    for entry in gd.entries():
        for event in entry.get("events", []):
            flat = json.dumps(event)
            for handle, back in held.items():
                assert not (f'"{handle}"' in flat and f'"{back}"' in flat), (handle, back, event)


@pytest.mark.slow(seconds=5)
def test_same_seed_same_moves_same_bytes(tmp_path, key_pool):
    dirs = []
    for name in ("a", "b"):
        gd = new_game(tmp_path / name, "atlantis", key_pool, ["red", "blue", "green"], seed=b"d" * 32)
        for _ in range(25):
            mv = bot_move(gd, key_pool)
            if mv is None:
                break
            submit(gd, *mv)
        dirs.append(gd)
    for rel in ["log.yaml", "public/digest.txt", "public/digest.html", "public/board.svg", "public/view.json"]:
        assert (dirs[0].root / rel).read_bytes() == (dirs[1].root / rel).read_bytes(), rel
    assert sorted(p.name for p in dirs[0].moves_dir.iterdir()) == sorted(p.name for p in dirs[1].moves_dir.iterdir())
