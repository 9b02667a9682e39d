"""Space Swarm through the real pipeline: pbem new / submit / reveal / audit.

Whole games by bots for 2-6 players with the audit after the reveal (on a copy
without the moderator's folder), conservation of cards and fleets, the same
bytes for the same seed and moves, and the differential leak test: at many
points the hidden values a viewer may not know (the deck, other hands, other
standing orders) are shuffled, and every output for that viewer (public digest
text/HTML, board SVG, view.json, their own secrets, error messages) must stay
byte-identical.  Also: a hand-made map, a sealed standing order, a whole turn
in one move file.
"""
from __future__ import annotations

import json
from typing import Any

import leakcheck
import pytest
from click.testing import CliRunner
from leakcheck import pending_player_actions
from pipeline_helpers import PipelineGame, bot_move, game_files, new_game, reveal_and_audit, signed_move, submitted_and_in_memory
from swarm_helpers import GAME, Pos

from pbem.cli.group import main
from pbem.core.rng import Rng
from pbem.core.sealed import seal_action
from pbem.crypto import keys
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

NAMES = ["red", "blue", "green", "yellow", "purple", "orange"]
GAMES = [   # players, options, seed, bot
    (2, {}, b"s1" * 16, "greedy"),
    (3, {"react_combat": "ask", "slot": "ask"}, b"s2" * 16, "random"),
    (4, {"react_bid": "auto", "tech_phase": "research"}, b"s3" * 16, "greedy"),
    (5, {"combat_hexes": "active"}, b"s4" * 16, "random"),
    (6, {"symmetry": "half-turn"}, b"s5" * 16, "greedy"),
]
ORDERS = ["auto", "never", "ask"]


def shuffle_hidden(pos: dict[str, Any], viewer: str | None, rng: Rng) -> dict[str, Any]:
    """Permute the faces the viewer cannot see; give other players other standing orders."""
    pos = json.loads(json.dumps(pos))
    hidden = list(pos["deck"]) + [c for p, hand in pos["hands"].items() if p != viewer for c in hand]
    faces = rng.shuffled([pos["cards"][c] for c in hidden])
    for card, face in zip(hidden, faces):
        pos["cards"][card] = face
    for p in pos["players"]:
        if p["name"] != viewer:
            p["standing"] = {"combat": rng.choice(ORDERS), "bid": rng.choice(ORDERS),
                             "slot": rng.choice(["ask", "last"])}
    return pos


def probes(table: Table, viewer: str) -> list[dict[str, Any]]:
    state = table.state
    others = [c for p in state.players if p != viewer for c in state.hands[p]]
    mine = state.hands[viewer]
    found = [{"develop": c} for c in (mine + others)[:4]] + [{"event": c} for c in others[:2]]
    found += [{"discard": [c]} for c in others[:1]] + [{"react": [c]} for c in others[:1]]
    return found + pending_player_actions(table, viewer)


def check_no_leak(table: Table, rng: Rng) -> None:
    pos = GAME.to_position(table.state)
    if pos["phase"] == "over" or pos["window"] is not None:
        return   # who is asked in a reaction window shows, as at a table
    leakcheck.check_no_leak(table, rng, shuffle_hidden, probes)


def conserved(table: Table, n_cards: int, start: dict[str, int]) -> None:
    s = table.state
    cards = s.deck + s.discard + [c for p in s.players for c in s.hands[p] + s.tech[p]]
    assert sorted(cards) == sorted(s.faces) and len(cards) == n_cards
    for p in s.players:
        assert s.total_fleets(p) == start[p] + s.produced[p] - s.destroyed[p]


def no_hidden_faces_in_log(gd: GameDir, table: Table) -> None:
    """Cards still hidden at the end (deck, hands) never show their face in a log event."""
    s = table.state
    hidden = {c: s.faces[c].name for c in s.deck + [c for p in s.players for c in s.hands[p]]}
    for entry in gd.entries():
        for event in entry.get("events", []):
            flat = json.dumps(event)
            for card, face in hidden.items():
                assert not (f'"{card}"' in flat and f'"{face}"' in flat), (card, face, event)


@pytest.mark.parametrize("n, options, seed, bot", GAMES, ids=[f"{g[0]}p" for g in GAMES])
def test_whole_game_audit_conservation_and_no_leaks(tmp_path, key_pool, n, options, seed, bot):
    gd = new_game(tmp_path / "g", "space-swarm", key_pool, NAMES[:n], seed=seed, options=options)
    game = PipelineGame(gd)          # the bots' moves: checked, applied and logged in memory, published at the end
    table = game.table
    start = {p: table.state.total_fleets(p) for p in table.players}
    n_cards = len(table.state.faces)
    rng = Rng(seed, "leak")
    check_no_leak(table, rng)
    while (mv := game.bot_move(key_pool, bot=bot)) is not None:
        game.take(*mv)
        assert game.moves < 2000, "the game did not end"
        if game.moves % 9 == 0:
            conserved(table, n_cards, start)
            check_no_leak(table, rng)
    game.publish()
    final = Table.load(gd)
    conserved(final, n_cards, start)
    assert GAME.result(final.state) is not None
    no_hidden_faces_in_log(gd, final)
    report = reveal_and_audit(gd, tmp_path / "published")
    assert any("replayed" in note for note in report.notes)


def test_same_seed_same_moves_same_bytes_whether_submitted_or_played_in_memory(tmp_path, key_pool):
    """The same seed and moves give the same bytes; and the in-memory play of the property tests
    (PipelineGame, published once) writes what `submit` writes move by move."""
    submitted, in_memory = submitted_and_in_memory(tmp_path, "space-swarm", key_pool, ["red", "blue", "green"],
                                                   b"d" * 32, 30, bot="greedy")
    expected = game_files(submitted)
    assert len(expected["log.yaml"].splitlines()) > 100 and len([f for f in expected if f.startswith("moves/")]) > 40
    assert game_files(in_memory) == expected


def test_a_whole_turn_in_one_move_file(tmp_path, key_pool):
    gd = new_game(tmp_path / "g", "space-swarm", key_pool, ["red", "blue"], seed=b"w" * 32)
    table = Table.load(gd)
    player = table.state.active
    home = table.state.hexmap.label(table.state.homes[player])
    turn = [{"develop": "none"}, {"produce": home}, {"done": "move"}, {"attack": "all"}]
    receipt = submit(gd, *signed_move(table, player, turn, key_pool[player]))
    assert not receipt.dropped_reason
    entry = Table.load(gd).last
    assert entry["actions"] == turn
    kinds = [e["event"] for e in entry["events"]]
    assert kinds[:4] == ["develop", "produce", "moved", "draw"] and kinds[-1] == "turn"   # no battle, no window
    other = "blue" if player == "red" else "red"
    assert receipt.waiting_for == [other]


def test_a_hand_made_map_goes_into_the_signed_header_and_the_game_audits(tmp_path, key_pool):
    map_file = tmp_path / "duel.yaml"
    map_file.write_text("# a small duel\nrows:\n  - C . R . .\n  - . N . A .\n  - . . W . .\n  - . W . . C\n"
                        "homes: [A1, E4]\n")
    pubs = {n: key_pool[n].with_name(key_pool[n].name + ".pub") for n in ("red", "blue")}
    result = CliRunner().invoke(main, ["new", str(tmp_path / "g"), "--game", "space-swarm",
                                       "--player", f"red={pubs['red']}", "--player", f"blue={pubs['blue']}",
                                       "--option", f"map={map_file}", "--seed", "ab" * 16,
                                       "--moderator-key", str(key_pool["mallory"])])
    assert result.exit_code == 0, result.output
    gd = GameDir(tmp_path / "g")
    header = gd.entries()[0]
    assert header["options"]["map"].startswith("space-swarm-map:\nhomes: A1 E4\nrow: C . R . .")
    digest = (gd.public_dir / "digest.txt").read_text()
    assert "map=custom (sha256 " in digest and "row: C" not in digest
    map_file.unlink()                                   # the log alone is enough from now on
    while (mv := bot_move(gd, key_pool, bot="greedy")) is not None:
        submit(gd, *mv)
    reveal_and_audit(gd, tmp_path / "published")
    bad = tmp_path / "bad.yaml"
    bad.write_text("rows:\n  - C . .\n  - . . .\n  - . . .\nhomes: [A1, C3]\n")
    result = CliRunner().invoke(main, ["new", str(tmp_path / "h"), "--game", "space-swarm",
                                       "--player", f"red={pubs['red']}", "--player", f"blue={pubs['blue']}",
                                       "--option", f"map={bad}"])
    assert result.exit_code != 0
    assert "home C3 is Deep Space; every home must be a Star Cluster (C)" in result.output
    assert not (tmp_path / "h").exists() or not any((tmp_path / "h").iterdir())


def test_a_sealed_standing_order_naming_cards_plays_them_without_showing_the_hand(tmp_path, key_pool):
    pos = (Pos(["C . . .", ". . . .", ". . . C"]).stack("red", "B1", 3).stack("blue", "B1", 3)
           .stack("red", "A1", 1).stack("blue", "D3", 1).hand("blue", "Defense +1", "Movement +1")
           .deck(*["Attack +1"] * 6))
    tech, other = pos.cards("blue")
    pos.turn("red", "move")
    specs = [PlayerSpec(n, keys.normalise_public_key(key_pool[n].with_name(key_pool[n].name + ".pub").read_text()))
             for n in ("red", "blue")]
    teaching = {**pos.p, "partial": True}          # a few cards, not the whole deck
    create_game(tmp_path / "g", "space-swarm", specs, {}, b"q" * 32, position=teaching,
                moderator_key=key_pool["mallory"])
    gd = GameDir(tmp_path / "g")
    table = Table.load(gd)
    sealed = seal_action({"standing": {"combat": [tech]}}, table.header["moderator"]["key"])
    submit(gd, *signed_move(table, "blue", [sealed], key_pool["blue"]))
    table = Table.load(gd)
    submit(gd, *signed_move(table, "red", [{"done": "move"}, {"attack": "all"}], key_pool["red"]))
    log = gd.log_path.read_text()
    assert f"combat: [{tech}]" not in log and "combat:\n" not in log
    plays = [e for e in Table.load(gd).last["events"] if e["event"] == "play"]
    assert plays == [{"event": "play", "player": "blue", "card": tech, "name": "Defense +1",
                      "lasts": "until the end of this turn", "auto": "standing order combat: listed cards"}]
    table = Table.load(gd)
    assert table.state.hands["blue"][0] == other
    while (mv := bot_move(gd, key_pool, bot="greedy")) is not None:
        submit(gd, *mv)
    reveal_and_audit(gd, tmp_path / "published")
