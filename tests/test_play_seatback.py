"""`pbem play`: a player whose seat is in civil disorder takes it back in one click (the page's "Take
my seat back", ``/api/seat-back``) or one command (`pbem play back`), with the real git, ssh-keygen
and the moderator's `pbem git sync`: the move asks only for the seat, is refused, returns the seat,
and cannot be replayed to return it again."""
from __future__ import annotations

import time
from typing import Any

import pytest
from click.testing import CliRunner
from test_git_helpers import GAME, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)
from test_play_client import request

from pbem.cli.group import main
from pbem.client import config as settings
from pbem.client.server import PlayApp, PlayServer
from pbem.core.engine import Rejected
from pbem.pipeline.submit import SeatReturned, submit
from pbem.store.gamedir import GameDir
from pbem.store.missedturns import in_disorder, returns_the_seat
from pbem.store.movefile import SEAT_BACK, parse_move

DRAW = [{"draw": True}]


def _init_red(shared: Any) -> None:
    red = shared.players["red"]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(red.clone), "--game-dir", GAME,
                                       "--player", "red", "--key", str(red.key)])
    assert result.exit_code == 0, result.output


@pytest.fixture
def red_in_disorder(tmp_path, key_pool, toy_registered, monkeypatch):
    """A git game of three in which red missed a deadline, blue and green drew, and the sync's tick
    put red's seat into civil disorder (the bot drew for red at once, twice over the game: so red still
    has a card to draw when the seat comes back); red plays with `pbem play`."""
    from test_missed_turns import _red_in_disorder_and_the_bot_drew

    from pbem.pipeline.deadlines import tick
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "config" / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    probe, _written = _red_in_disorder_and_the_bot_drew(tmp_path / "probe", key_pool)
    (tmp_path / "world").mkdir()
    shared = make_shared(tmp_path / "world", key_pool, seed=bytes([int(probe.root.name[1:])]) * 32,
                         deadlines=probe.entries()[0]["deadlines"])
    _init_red(shared)
    gd = GameDir(shared.moderator.root)
    assert [e["action"] for e in tick(gd, now=time.time() + 49 * 3600, max_entries=1).entries] == ["timeout"]
    shared.sync()
    shared.players["blue"].send("b.yaml", DRAW)
    shared.sync()
    shared.players["green"].send("g.yaml", DRAW)
    shared.sync("--tick")
    assert in_disorder(gd.entries(), "red")
    assert [(e.get("action"), e.get("actions")) for e in gd.entries()[-2:]] == [("disorder", None), ("bot-move", DRAW)]
    return shared


@pytest.fixture
def served_in_disorder(red_in_disorder):
    server = PlayServer(PlayApp(settings.load()))
    server.serve_in_thread()
    try:
        yield red_in_disorder, server
    finally:
        server.close()


def _row(server: PlayServer) -> dict[str, Any]:
    answer = request(server, "GET", "/api/games")
    assert answer.status == 200, answer.body
    [row] = answer.json()["games"]
    return row


def _remote_commits(shared: Any) -> str:
    return git(shared.bare, "rev-parse", "main").stdout.strip()


def test_the_page_takes_the_seat_back_in_one_click_and_the_next_decision_waits_for_red(served_in_disorder):
    shared, server = served_in_disorder
    gd = GameDir(shared.moderator.root)
    red = shared.players["red"]
    fetched = request(server, "POST", "/api/fetch", {"game": "club"}).json()
    assert fetched["index"] == gd.entries()[-1]["index"] and not fetched["problems"], fetched
    row = _row(server)                                   # red's copy shows the bot's move: nothing to click ...
    assert not row["your_turn"] and row["waiting_for"] == ["blue"]
    assert row["disorder"].startswith("Your seat (red) is in civil disorder") and row["asked_back"] == ""
    step = request(server, "POST", "/api/step", {"game": "club", "actions": []}).json()
    assert step["choices"] == [] and "civil disorder" in step["stop"]

    sent = request(server, "POST", "/api/seat-back", {"game": "club"})   # ... but one button to press
    assert sent.status == 200, sent.body
    name = sent.json()["sent"]
    head = gd.entries()[-1]
    assert sent.json() == {"sent": name, "index": head["index"], "by": "git"}
    path = red.clone / GAME / "incoming" / name
    move = parse_move(path.read_bytes())
    assert move.actions == [dict(SEAT_BACK)] and (move.player, move.after) == ("red", head["index"])
    assert head["hash"].startswith(move.after_hash)
    assert git(red.clone, "status", "--porcelain").stdout == ""          # committed and pushed
    pushed = _remote_commits(shared)
    assert git(shared.bare, "show", "-s", "--format=%s", "main").stdout.strip() == \
        f"red: takes the seat back (on entry {head['index']})"
    raw, sig = path.read_bytes(), (path.parent / (path.name + ".sig")).read_text()

    again = request(server, "POST", "/api/seat-back", {"game": "club"})    # a second click before the answer
    assert again.status == 422 and f"you asked for your seat back already ({name})" in again.json()["error"]
    assert _row(server)["asked_back"] == name and _remote_commits(shared) == pushed

    out = shared.sync("--tick").output                   # the moderator's sync: refused, and the seat returned
    back = gd.entries()[-1]
    assert (back["kind"], back["action"], back["player"]) == ("moderator", "return", "red"), out
    assert back["reason"] == (f"red sent a move (incoming/{name}), written after entry {head['index']}, while a bot "
                              "decided for the seat: the seat is red's again (the move itself was refused: it only "
                              "asked for the seat back)")
    assert f"rejected {name}: red's seat is red's again: civil disorder is over" in out, out
    assert not in_disorder(gd.entries(), "red")
    fetched = request(server, "POST", "/api/fetch", {"game": "club"}).json()
    assert fetched["index"] == back["index"] and not fetched["problems"], fetched
    receipt = (red.clone / GAME / "receipts" / name.replace(".yaml", ".txt")).read_text()
    assert f"civil disorder is over (moderator entry {back['index']})" in receipt
    assert "this move only asks for red's seat back from civil disorder; it has no action to take" in receipt
    row = _row(server)
    assert row["disorder"] == "" and row["asked_back"] == ""               # the page hides the button
    pushed = _remote_commits(shared)
    after = request(server, "POST", "/api/seat-back", {"game": "club"})    # a second click after the return
    assert after.status == 422 and "your seat (red) is yours" in after.json()["error"]
    assert _remote_commits(shared) == pushed and not list((red.clone / GAME / "incoming").rglob("entry-*"))

    shared.players["blue"].send("b2.yaml", DRAW)         # the others play on to red's turn ...
    shared.sync()
    shared.players["green"].send("g2.yaml", DRAW)
    out = shared.sync("--tick").output                    # ... and the tick leaves red's decision to red
    assert gd.entries()[-1]["kind"] == "move" and shared.waiting_for() == ["red"], out
    request(server, "POST", "/api/fetch", {"game": "club"})
    row = _row(server)
    assert row["your_turn"] and row["disorder"] == ""
    step = request(server, "POST", "/api/step", {"game": "club", "actions": []}).json()
    assert [c["action"] for c in step["choices"]] == [{"draw": True}, {"stop": True}]

    # the move that returned the seat, sent again (a git game's history shows it to everyone): only refused
    length = len(gd.entries())
    with pytest.raises(Rejected) as refused:
        submit(gd, raw, sig)
    assert not isinstance(refused.value, SeatReturned) and len(gd.entries()) == length
    later = [*gd.entries(), {"index": length, "kind": "moderator", "action": "disorder", "player": "red"}]
    assert not returns_the_seat(later, "red", move.after)            # nor in a later civil disorder
    assert returns_the_seat(later, "red", length)                      # where a move written since would


def test_pbem_play_back_takes_the_seat_back_from_the_command_line(red_in_disorder):
    shared = red_in_disorder
    gd = GameDir(shared.moderator.root)
    result = CliRunner().invoke(main, ["play", "back", "--game", "club"])
    assert result.exit_code == 0, result.output
    head = gd.entries()[-1]                                  # it fetched first: the move is on the newest entry
    name = f"red/entry-{head['index']:04d}.yaml"
    assert result.output.startswith(f"sent {name} (on log entry {head['index']}, by git): you asked for your seat "
                                    "back in club"), result.output
    again = CliRunner().invoke(main, ["play", "back"])     # the only game; asked already
    assert again.exit_code != 0 and f"you asked for your seat back already ({name})" in again.output
    out = shared.sync("--tick").output
    assert (gd.entries()[-1]["action"], gd.entries()[-1]["player"]) == ("return", "red"), out
    done = CliRunner().invoke(main, ["play", "back"])      # fetches the return: nothing more to send
    assert done.exit_code != 0 and "your seat (red) is yours" in done.output
    assert gd.entries()[-1]["action"] == "return"


def test_no_seat_back_when_the_seat_is_not_in_civil_disorder(tmp_path, key_pool, toy_registered, monkeypatch):
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "config" / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shared = make_shared(tmp_path, key_pool)
    _init_red(shared)
    server = PlayServer(PlayApp(settings.load()))
    server.serve_in_thread()
    try:
        row = _row(server)
        assert row["your_turn"] and row["disorder"] == "" and row["asked_back"] == ""
        pushed = _remote_commits(shared)
        refused = request(server, "POST", "/api/seat-back", {"game": "club"})
        assert refused.status == 422, refused.body
        assert refused.json()["error"] == ("your seat (red) is yours: it is not in civil disorder in your copy "
                                           "(log entry 0); your decision waits for you; nothing is sent")
    finally:
        server.close()
    assert _remote_commits(shared) == pushed
    red = shared.players["red"]
    assert not (red.clone / GAME / "incoming" / "red").exists()
    assert git(red.clone, "status", "--porcelain").stdout == ""
