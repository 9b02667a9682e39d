"""Preference lists: a player sends their choices for decisions still to come once; each is used
when its decision comes round (logged as such), and they are asked again only when it runs dry."""
from __future__ import annotations

import shutil

import pytest
from pipeline_helpers import new_game, signed_move

from pbem.core.engine import Rejected
from pbem.core.sealed import seal_action
from pbem.pipeline.audit import audit
from pbem.pipeline.moderator import reveal
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table
from pbem.views.outputs import player_plaintext

PLAYERS = ["red", "blue", "green"]


#: the set-up decisions a list may cover, per game: decision kind -> (the piece's key, the place's key)
SETUP_KEYS = {"atlantis": {"setup-place": ("place", "on"), "setup-boat": ("boat", "at")},
              "space-attack": {"setup-place": ("place", "on"), "setup-boat": ("pod", "at")}}


def _preferences(table: Table, player: str, piece_key: str, place_key: str) -> list[dict]:
    """This player's list: each piece on a few spaces of its own, spread so that players differ."""
    actions = [a for a in table.game.legal_actions(table.state, player) if piece_key in a]
    pieces = list(dict.fromkeys(a[piece_key] for a in actions))
    spaces = list(dict.fromkeys(a[place_key] for a in actions))
    offset = PLAYERS.index(player) * len(spaces) // len(PLAYERS)
    spaces = spaces[offset:] + spaces[:offset]
    wanted = []
    for n, piece in enumerate(pieces):
        for space in spaces[n * 4:n * 4 + 8]:            # 8 spaces each, overlapping: later ones are alternatives
            candidate = {piece_key: piece, place_key: space}
            if candidate in actions:
                wanted.append(candidate)
    return wanted


@pytest.mark.parametrize("game", sorted(SETUP_KEYS))
def test_a_set_up_by_email_in_two_messages_per_player(tmp_path, key_pool, game):
    """Atlantis's explorers and ships, Space Attack's crew and escape pods: placed in turn by the
    rules, sent once as a list."""
    gd = new_game(tmp_path / "g", game, key_pool, PLAYERS)
    messages = {p: 0 for p in PLAYERS}
    while True:
        table = Table.load(gd)
        pending = table.game.pending(table.state)
        if not pending or pending[0].kind not in SETUP_KEYS[game]:
            break
        player = pending[0].player
        wanted = _preferences(table, player, *SETUP_KEYS[game][pending[0].kind])
        # one message: this decision now, and a list for the ones to come (trimmed to the move file's limit)
        actions = [wanted[0], {"prefer": wanted[1:99]}]
        if messages[player] % 2:
            key = table.header["moderator"]["key"]
            actions = [wanted[0], seal_action({"prefer": wanted[1:99]}, key)]   # sealed: nobody sees the list
        submit(gd, *signed_move(table, player, actions, key_pool[player]))
        messages[player] += 1
        assert messages[player] <= 3, messages
    assert all(n <= 2 for n in messages.values()), messages
    entries = gd.entries()
    used = [e for entry in entries for e in entry.get("events", []) if "preference list" in e.get("auto", "")]
    assert len(used) > 20                                   # most of the set-up came from the lists
    assert audit(gd).ok                                     # the moderator's copy replays every use


def test_the_first_legal_entry_is_used_and_the_rest_waits(tmp_path, key_pool, toy_registered):
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])
    table = Table.load(gd)
    # red's list: an action the game refuses (forgotten), then stop
    submit(gd, *signed_move(table, "red", [{"draw": True}, {"prefer": [{"dance": True}, {"stop": True}]}],
                            key_pool["red"]))
    table = Table.load(gd)
    assert table.prefs.of("red") == [{"dance": True}, {"stop": True}]     # red's turn has not come round yet
    assert "preference_list:\n- '{dance: true}'" in player_plaintext(table, "red").decode()   # red sees it
    assert "dance" not in player_plaintext(table, "blue").decode()
    assert "dance" not in (gd.public_dir / "digest.txt").read_text()
    submit(gd, *signed_move(table, "blue", [{"draw": True}], key_pool["blue"]))
    entry = gd.entries()[-1]
    assert {"stopped": "red", "auto": "red's preference list"} in entry["events"]
    assert Table.load(gd).prefs.of("red") == []
    assert audit(gd).ok


@pytest.mark.parametrize("keep", [True, False])
def test_a_list_kept_waits_for_the_ships_while_an_explorer_is_asked_for(tmp_path, key_pool, keep):
    """Red's list gives two explorers and both ships their places, not every explorer.  With
    ``keep: true`` (what the set-up page sends) the ships' entries wait through the explorer red is
    asked for, and place the ships at their turn: red is never asked for a ship.  Without it (the
    rule of the games begun before ``keep``, which must replay as they were played) the first
    explorer decision the list cannot answer empties it, and red is asked for the ships too."""
    gd = new_game(tmp_path / "g", "atlantis", key_pool, PLAYERS)
    asked: dict[str, int] = {}
    sent = False
    while True:
        table = Table.load(gd)
        pending = table.game.pending(table.state)
        if not pending or pending[0].kind not in SETUP_KEYS["atlantis"]:
            break
        player, kind = pending[0].player, pending[0].kind
        asked[kind] = asked.get(kind, 0) + (player == "red")
        legal = table.game.legal_actions(table.state, player)
        actions = [legal[0]]
        if player == "red" and not sent:
            # two more explorers, each on the last spaces (the others take the first free ones), then both
            # ships on the sea spaces next to the island (the ones that are not free are skipped then)
            pieces = list(dict.fromkeys(a["place"] for a in legal if a["place"] != legal[0]["place"]))[:2]
            wanted = [a for piece in pieces for a in [a for a in legal if a["place"] == piece][-8:]]
            ships = [{"boat": boat, "at": at} for boat in ("B1", "B2") for at in ("C4", "C5", "C6", "C7", "C8", "D4")]
            actions.append({"prefer": wanted + ships, **({"keep": True} if keep else {})})
            sent = True
        submit(gd, *signed_move(table, player, actions, key_pool[player]))
    red_ships = [e for entry in gd.entries() for e in entry.get("events", [])
                 if e.get("auto") == "red's preference list" and "boat" in str(e)]
    if keep:
        assert asked.get("setup-boat", 0) == 0 and red_ships, (asked, red_ships)
    else:
        assert asked.get("setup-boat", 0) > 0 and not red_ships, (asked, red_ships)
    assert audit(gd).ok


def test_a_bad_list_is_refused_in_one_line(tmp_path, key_pool, toy_registered):
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])
    table = Table.load(gd)
    with pytest.raises(Rejected, match="prefer takes a list"):
        submit(gd, *signed_move(table, "red", [{"prefer": "stop"}], key_pool["red"]))
    with pytest.raises(Rejected, match="entry 2 of the preference list"):
        submit(gd, *signed_move(table, "red", [{"prefer": [{"stop": True}, "stop"]}], key_pool["red"]))


def test_a_finished_game_with_lists_audits_on_a_players_copy(tmp_path, key_pool, toy_registered):
    from pipeline_helpers import play_to_end
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])
    table = Table.load(gd)
    submit(gd, *signed_move(table, "red", [{"draw": True}, {"prefer": [{"draw": True}, {"stop": True}]}],
                            key_pool["red"]))
    play_to_end(gd, key_pool)
    reveal(gd)
    copy = tmp_path / "copy"
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    report = audit(GameDir(copy))
    assert report.ok, report.problems


@pytest.mark.parametrize("name", ["atlantis", "atlantis-1986", "space-attack", "space-swarm"])
def test_a_list_sent_reads_in_words_in_every_game(name):
    """The engine's own event for ``{prefer: [...]}`` reads as a line in every game's words (it was
    ``event=preference list, player=red`` in every set-up digest, receipt and page)."""
    from pbem.core.registry import load_game
    game = load_game(name)
    public = game.describe_event({"event": "preference list", "player": "red"})
    private = game.describe_event({"event": "preference list", "player": "red", "entries": 12})
    assert public == "red sent a list of choices for their decisions to come"
    assert private == public + " (12 entries)"
