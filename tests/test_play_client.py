"""`pbem play`: the player's own program, with the real git, ssh-keygen and age, and the local page
server attacked with hostile requests (wrong token, Host, Origin, cross-site, paths, bodies)."""
from __future__ import annotations

import http.client
import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_git_helpers import GAME, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.cli.group import main
from pbem.client import config as settings
from pbem.client.fetch import FetchError, fetch
from pbem.client.server import PlayApp, PlayServer
from pbem.store.gamedir import GameDir


@pytest.fixture
def world(tmp_path, key_pool, toy_registered, monkeypatch):
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "config" / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shared = make_shared(tmp_path, key_pool)
    red = shared.players["red"]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(red.clone), "--game-dir", GAME,
                                       "--player", "red", "--key", str(red.key)])
    assert result.exit_code == 0, result.output
    return shared


@pytest.fixture
def served(world):
    app = PlayApp(settings.load())
    server = PlayServer(app)
    server.serve_in_thread()
    try:
        yield world, server
    finally:
        server.close()


class Answer:
    def __init__(self, resp: http.client.HTTPResponse) -> None:
        self.status = resp.status
        self.headers = dict(resp.getheaders())
        self.body = resp.read()

    def json(self) -> Any:
        return json.loads(self.body)


def request(server: PlayServer, method: str, path: str, body: Any = None, token: str | None = "",
            headers: dict[str, str] | None = None, raw: bytes | None = None) -> Answer:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    sent = {"Host": f"127.0.0.1:{server.port}"}
    if token is not None:
        sent["X-PBEM-Token"] = token or server.app.token
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    sent.update(headers or {})
    conn.request(method, path, body=data, headers=sent, )
    try:
        return Answer(conn.getresponse())
    finally:
        conn.close()


def step(server: PlayServer, actions: list[dict[str, Any]]) -> Any:
    answer = request(server, "POST", "/api/step", {"game": "club", "actions": actions})
    assert answer.status == 200, answer.body
    return answer.json()


def test_init_writes_the_settings_for_the_owner_only_and_refuses_a_wrong_key(world, key_pool, tmp_path):
    path = Path(os.environ["PBEM_PLAY_CONFIG"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = settings.load()
    assert config.game("club").player == "red" and config.game(None).game_dir == GAME
    import yaml
    assert sorted(yaml.safe_load(path.read_text())["games"]["club"]) == ["clone", "game_dir", "key", "player",
                                                                          "transport"]     # names, never secrets
    blue = world.players["blue"]
    result = CliRunner().invoke(main, ["play", "init", "other", "--clone", str(blue.clone), "--game-dir", GAME,
                                       "--player", "blue", "--key", str(key_pool["mallory"])])
    assert result.exit_code != 0
    assert result.output.strip().splitlines() == [
        f"pbem: error: {key_pool['mallory']} is not blue's key in {GameDir(blue.clone / GAME).entries()[0]['id']}; "
        "give the key you sent the moderator"]
    assert "other" not in settings.load().games                       # nothing written
    path.chmod(0o666)
    result = CliRunner().invoke(main, ["play", "list"])
    assert result.exit_code != 0 and "may be changed by others; run `chmod 600" in result.output
    path.chmod(0o600)
    result = CliRunner().invoke(main, ["play", "list"])
    assert result.exit_code == 0 and "club: " in result.output and "as red, log entry 0: your turn" in result.output


def test_init_with_a_wrong_game_dir_says_to_check_it_and_writes_nothing(world, key_pool):
    """A player who names a folder of their clone that holds no game is told to check --game-dir,
    not to create a game with `pbem new` (the moderator's command)."""
    blue = world.players["blue"]
    before = Path(os.environ["PBEM_PLAY_CONFIG"]).read_bytes()
    result = CliRunner().invoke(main, ["play", "init", "other", "--clone", str(blue.clone), "--game-dir", "gameX",
                                       "--player", "blue", "--key", str(key_pool["blue"])])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"pbem: error: no game in {blue.clone / 'gameX'} (no log.yaml): "
                                                   "check --game-dir") and "pbem new" not in lines[0]
    assert Path(os.environ["PBEM_PLAY_CONFIG"]).read_bytes() == before


def test_a_turn_clicked_on_the_local_page_is_signed_pushed_accepted_and_receipted(served):
    shared, server = served
    page = request(server, "GET", f"/?token={server.app.token}", token=None)
    assert page.status == 200 and b"pbem play" in page.body
    nonce = page.headers["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">'.encode() in page.body
    assert page.headers["Referrer-Policy"] == "no-referrer" and page.headers["Cache-Control"] == "no-store"
    games = request(server, "GET", "/api/games").json()["games"]
    assert [(g["name"], g["your_turn"], g["problems"]) for g in games] == [("club", True, [])]

    first = step(server, [])
    words = [c["words"] for c in first["choices"]]
    game = GameDir(shared.moderator.root).entries()[0]
    from pbem.core.engine import game_for
    assert words == [game_for(game).describe_action(c["action"]) for c in first["choices"]]   # the game's words
    assert [c["action"] for c in first["choices"]] == [{"draw": True}, {"stop": True}]
    stop_choice = next(c for c in first["choices"] if c["action"] == {"stop": True})
    after = step(server, [stop_choice["action"]])
    assert after["actions"] == [{"stop": True}] and after["move_preview"] == "actions:\n  - {stop: true}\n"
    assert after["board_svg"].startswith("<svg")

    sent = request(server, "POST", "/api/send", {"game": "club", "actions": [{"stop": True}]})
    assert sent.status == 200, sent.body
    assert sent.json()["sent"] == "red/entry-0000.yaml"
    subject = git(shared.bare, "log", "-1", "--format=%s %an", "main").stdout.strip()
    assert subject == "red: move for entry 0 red", git(shared.players["red"].clone, "log", "-3", "--format=%s %an %cn").stdout
    assert "accepted red/entry-0000.yaml: entry 1" in shared.sync().output

    fetched = request(server, "POST", "/api/fetch", {"game": "club"}).json()
    assert fetched["index"] == 1 and fetched["problems"] == []
    kept = list((Path(os.environ["XDG_DATA_HOME"]) / "pbem" / "receipts").rglob("*.receipt.yaml"))
    assert len(kept) == 1                                                # the receipt is in the player's store
    games = request(server, "GET", "/api/games").json()["games"]
    assert games[0]["index"] == 1 and games[0]["your_turn"] is False and games[0]["waiting_for"] == ["blue"]
    assert step(server, [])["choices"] == []


def test_the_page_says_what_the_choices_are_for_in_words_and_clears_the_sent_note_with_news(served):
    """The choices' decision in words (its prompt up to any move-file example), not only the buttons:
    what a die showed or a tile brought is said there; none once the player's part is done."""
    shared, server = served
    assert step(server, [])["prompt"] == "draw a card or stop"
    assert step(server, [{"stop": True}])["prompt"] == ""              # no choices: nothing to decide
    page = request(server, "GET", f"/?token={server.app.token}", token=None).body.decode()
    assert '<p id="prompt"></p>' in page and 'text(el("prompt"), step.prompt);' in page
    news = page.split("function poll()")[1].split('el("news")')[0]
    assert 'text(el("answer"), "");' in news                          # a new entry: the receipt came


def test_play_list_with_no_games_says_how_to_add_one(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "play.yaml"))
    result = CliRunner().invoke(main, ["play", "list"])
    assert result.exit_code == 0
    assert result.output == f"no games in {tmp_path / 'play.yaml'}; add one with `pbem play init`\n"


def test_an_illegal_action_is_one_line_and_nothing_is_written_or_pushed(served):
    shared, server = served
    red = shared.players["red"]
    before = git(red.clone, "rev-parse", "HEAD").stdout
    answer = request(server, "POST", "/api/send", {"game": "club", "actions": [{"fly": "away"}]})
    assert answer.status == 422
    message = answer.json()["error"]
    assert "\n" not in message and "fly" in message
    assert git(red.clone, "rev-parse", "HEAD").stdout == before
    assert not (red.clone / GAME / "incoming" / "red").exists()
    answer = request(server, "POST", "/api/step", {"game": "club", "actions": [{"draw": True}, {"draw": True}]})
    assert answer.status == 422 and "action 2" in answer.json()["error"]


def board_move(shared, player: str = "red", actions: list[dict[str, Any]] | None = None, after: int | None = None,
               game_id: str | None = None, after_hash: str | None = None) -> str:
    """A move file as the player's page writes it, on the moderator's newest entry unless told."""
    from pbem.store.movefile import MoveFile, render_move
    entries = GameDir(shared.moderator.root).entries()
    last = entries[-1] if after is None else entries[after]
    move = MoveFile(game_id or entries[0]["id"], player, last["index"], after_hash or last["hash"],
                    actions or [{"stop": True}])
    return render_move(move, f"written on the board of {player}'s digest")


def test_the_players_own_page_is_served_framed_by_the_play_page_only_and_its_move_is_sent(served):
    """/page: what `pbem show --as red --key KEY --format html` makes on red's copy (the mailed page's
    panel), with a script that may run and call nothing, framed by the play page alone; the move its
    board composed goes through /api/send-move: parsed, bound, checked, signed and pushed."""
    shared, server = served
    red = shared.players["red"]
    page = request(server, "GET", f"/page?game=club&token={server.app.token}", token=None)
    assert page.status == 200, page.body
    made = CliRunner().invoke(main, ["show", str(red.clone / GAME), "--as", "red", "--key", str(red.key),
                                     "--format", "html"])
    policy = page.headers["Content-Security-Policy"]
    nonce = policy.split("script-src 'nonce-")[1].split("'")[0]         # only the page's own script runs
    marked = f'<script nonce="{nonce}">'
    assert len(nonce) >= 16 and page.body.decode().count(marked) == 1 and "unsafe-inline'" not in policy.split(";")[1]
    sender = ' data-sent-by="pbem play"'          # its panel says to press Send, not to save and sign the file
    assert page.body.decode().count(sender) == 1 and sender not in made.output
    assert made.exit_code == 0 and page.body.decode().replace(marked, "<script>").replace(sender, "") == made.output
    assert marked not in made.output and b'id="pbem-click-data"' in page.body and b'id="pbem-move"' in page.body
    assert "connect-src 'none'" in policy and "frame-ancestors 'self'" in policy
    assert page.headers["X-Frame-Options"] == "SAMEORIGIN" and page.headers["Cache-Control"] == "no-store"
    play = request(server, "GET", f"/?token={server.app.token}", token=None)
    assert "frame-src 'self'" in play.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in play.headers["Content-Security-Policy"] and play.headers["X-Frame-Options"] == "DENY"
    for other in (request(server, "GET", "/api/games"),
                  request(server, "POST", "/api/step", {"game": "club", "actions": []}),
                  request(server, "POST", "/api/send-move", {"game": "club", "move": ""})):
        assert other.headers["X-Frame-Options"] == "DENY"
        assert "frame-src 'none'" in other.headers["Content-Security-Policy"]
    unknown = request(server, "GET", "/page?game=nope<b>")              # another game's name: said in the frame
    assert unknown.status == 422 and unknown.headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"no game &#x27;nope&lt;b&gt;&#x27;" in unknown.body and b"<b>" not in unknown.body
    assert "script-src 'none'" in unknown.headers["Content-Security-Policy"]

    sent = request(server, "POST", "/api/send-move", {"game": "club", "move": board_move(shared)})
    assert sent.status == 200, sent.body
    assert sent.json()["sent"] == "red/entry-0000.yaml" and sent.json()["composed"] == "board"
    assert "accepted red/entry-0000.yaml: entry 1" in shared.sync().output
    assert GameDir(shared.moderator.root).entries()[-1]["actions"] == [{"stop": True}]
    request(server, "POST", "/api/fetch", {"game": "club"})
    after = request(server, "GET", f"/page?game=club&token={server.app.token}", token=None).body
    assert b"log entry 1," in after and b'id="pbem-click-data"' not in after    # made again from the new entry


def test_a_board_move_that_is_not_this_players_now_is_one_line_and_nothing_is_written(served):
    shared, server = served
    red = shared.players["red"]
    before = git(red.clone, "rev-parse", "HEAD").stdout
    cases = [
        (board_move(shared, player="blue"), "you play red"),                   # another player's move
        (board_move(shared, game_id="0" * 16), "not for club"),                  # another game's
        (board_move(shared, actions=[{"fly": "away"}]), "fly"),                 # not a move of the game
        (board_move(shared, actions=[{"stop": True}, {"fly": "away"}]), "fly"),  # the first one legal
        (board_move(shared, after_hash="f" * 16), "composed on log entry 0"),   # another branch's entry 0
        ("format: pbem-move/1\ngame: [", "the move composed on the board"),      # not a move file
        ("", "no move file"),
    ]
    for text, says in cases:
        answer = request(server, "POST", "/api/send-move", {"game": "club", "move": text})
        assert answer.status == 422, (text, answer.body)
        message = answer.json()["error"]
        assert "\n" not in message and says in message, message
    assert [c["action"] for c in step(server, [])["choices"]] == [{"draw": True}, {"stop": True}]   # as it was
    answer = request(server, "POST", "/api/send-move", {"game": "other", "move": board_move(shared)})
    assert answer.status == 422 and "no game 'other'" in answer.json()["error"]
    assert git(red.clone, "rev-parse", "HEAD").stdout == before
    assert not (red.clone / GAME / "incoming" / "red").exists()

    red.send("0000.yaml", [{"stop": True}])                                    # the game goes on: entry 1, 2
    shared.sync()
    shared.players["blue"].send("0001.yaml", [{"stop": True}])
    shared.sync()
    request(server, "POST", "/api/fetch", {"game": "club"})
    old = request(server, "POST", "/api/send-move", {"game": "club", "move": board_move(shared, after=0)})
    assert old.status == 422 and "composed on log entry 0, and your copy is at entry 2" in old.json()["error"]
    assert not list((red.clone / GAME / "incoming" / "red").glob("entry-0002*"))


HOSTILE = [
    ("no token", "GET", "/api/games", None, None, {}),
    ("a wrong token", "GET", "/api/games", None, "x" * 43, {}),
    ("the page without its token", "GET", "/", None, None, {}),
    ("a rebound DNS name", "GET", "/api/games", None, "", {"Host": "evil.example:{port}"}),
    ("another port", "GET", "/api/games", None, "", {"Host": "127.0.0.1:1"}),
    ("a foreign Origin", "POST", "/api/step", {"game": "club", "actions": []}, "", {"Origin": "http://evil.example"}),
    ("a cross-site fetch", "POST", "/api/send", {"game": "club", "actions": [{"stop": True}]}, "",
     {"Sec-Fetch-Site": "cross-site"}),
    ("a same-site other port", "POST", "/api/step", {"game": "club", "actions": []}, "",
     {"Origin": "http://127.0.0.1:1"}),
    ("a foreign page asking for the log", "POST", "/api/ask-log", {"game": "club"}, "",
     {"Origin": "http://evil.example"}),
    ("the player's page without its token", "GET", "/page?game=club", None, None, {}),
    ("the player's page on a rebound DNS name", "GET", "/page?game=club", None, "", {"Host": "evil.example:{port}"}),
    ("the player's page framed by a foreign page", "GET", "/page?game=club", None, "",
     {"Sec-Fetch-Site": "cross-site"}),
    ("a board's move with no token", "POST", "/api/send-move", {"game": "club", "move": "x"}, None, {}),
    ("a board's move from a foreign Origin", "POST", "/api/send-move", {"game": "club", "move": "x"}, "",
     {"Origin": "http://evil.example"}),
    ("a board's move on a wrong Host", "POST", "/api/send-move", {"game": "club", "move": "x"}, "",
     {"Host": "localhost:1"}),
]


@pytest.mark.parametrize("why, method, path, body, token, headers", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_requests_are_refused(served, why, method, path, body, token, headers):
    shared, server = served
    headers = {k: v.format(port=server.port) for k, v in headers.items()}
    answer = request(server, method, path, body, token=token, headers=headers)
    assert answer.status == 403, (why, answer.body)
    assert answer.json()["error"].startswith("refused: ")
    assert server.app.token.encode() not in answer.body
    assert not (shared.players["red"].clone / GAME / "incoming" / "red").exists()


def test_malformed_calls_get_one_line_each(served):
    _shared, server = served
    cases = [
        (request(server, "GET", "/../../../etc/passwd"), 404),
        (request(server, "GET", "/api/step"), 404),
        (request(server, "PUT", "/api/step", {"game": "club"}), 405),
        (request(server, "OPTIONS", "/api/step"), 405),
        (request(server, "POST", "/api/step", raw=b'{"game": "club"}', headers={"Content-Type": "text/plain"}), 415),
        (request(server, "POST", "/api/step", raw=b"x" * 70_000, headers={"Content-Type": "application/json"}), 413),
        (request(server, "POST", "/api/step", raw=b"{not json", headers={"Content-Type": "application/json"}), 400),
        (request(server, "POST", "/api/step", {"game": "club", "actions": [{"a": [[[[[[[[1]]]]]]]]}]}), 400),
        (request(server, "POST", "/api/step", {"game": "nope", "actions": []}), 422),
        (request(server, "POST", "/api/step", {"game": "club", "actions": "stop"}), 422),
    ]
    for answer, status in cases:
        assert answer.status == status, answer.body
        assert "\n" not in answer.json()["error"]


def test_the_server_listens_on_loopback_only_and_never_shows_the_key(served, key_pool):
    shared, server = served
    assert server.httpd.server_address[0] == "127.0.0.1"
    key_text = key_pool["red"].read_text()
    secret_lines = [line for line in key_text.splitlines() if line and not line.startswith("-----")]
    answers = [request(server, "GET", f"/?token={server.app.token}", token=None),
               request(server, "GET", "/api/games"),
               request(server, "POST", "/api/step", {"game": "club", "actions": []}),
               request(server, "POST", "/api/step", {"game": "club", "actions": [{"stop": True}]}),
               request(server, "POST", "/api/fetch", {"game": "club"})]
    for answer in answers:
        seen = answer.body + json.dumps(answer.headers).encode()
        assert all(line.encode() not in seen for line in secret_lines)
        assert str(key_pool["red"]).encode() not in seen


def test_a_forged_receipt_is_refused_and_shown_and_nothing_is_sent_on_that_copy(served):
    shared, server = served
    red, blue = shared.players["red"], shared.players["blue"]
    red.send("0000.yaml", [{"stop": True}])
    assert "accepted" in shared.sync().output
    blue.pull()
    receipt = next((blue.clone / GAME / "receipts" / "red").glob("*.receipt.yaml"))
    receipt.write_text(receipt.read_text().replace("red", "blue", 1))       # a pushed forgery
    blue.commit([receipt], "a better receipt")
    blue.git("push", "-q")
    fetched = request(server, "POST", "/api/fetch", {"game": "club"}).json()
    assert any(p.startswith("receipt refused:") for p in fetched["problems"]), fetched
    answer = request(server, "POST", "/api/send", {"game": "club", "actions": [{"stop": True}]})
    assert answer.status == 422 and "failed its checks" in answer.json()["error"]


def force_push(player, back: int) -> None:
    """``player`` rewrites the shared branch: its last ``back`` commits replaced by an empty one."""
    player.pull()
    player.git("reset", "-q", "--hard", f"HEAD~{back}")
    player.git("commit", "-q", "--allow-empty", "-m", "history, rewritten")
    player.git("push", "-q", "--force")


def red_moved_and_fetched(shared):
    """Red's move taken by the moderator and fetched into red's `pbem play` copy: red's game settings."""
    shared.players["red"].send("0000.yaml", [{"stop": True}])
    shared.sync()
    game = settings.load().game("club")
    assert fetch(game).index == 1
    return game


def test_a_rewritten_shared_branch_is_refused_and_the_copy_keeps_its_history(world):
    shared = world
    red, blue = shared.players["red"], shared.players["blue"]
    game = red_moved_and_fetched(shared)
    head = git(red.clone, "rev-parse", "HEAD").stdout
    force_push(blue, back=2)                                             # someone rewrites the branch
    with pytest.raises(FetchError, match="git pull --ff-only failed .* your copy keeps what you had"):
        fetch(game)
    assert git(red.clone, "rev-parse", "HEAD").stdout == head


def test_a_branch_a_player_force_pushed_is_followed_once_the_moderator_publishes_the_game_again(world):
    """Anyone who may push can force-push: blue rewrites the shared branch without the moderator's
    last commits; the moderator's next sync publishes the game on top again.  Red's copy, which held
    the removed commits, follows the branch (its log carries red's on), and its own move not yet
    pushed is never dropped: a copy with one stays where it is."""
    shared = world
    red, blue = shared.players["red"], shared.players["blue"]
    game = red_moved_and_fetched(shared)
    log = (red.game.root / "log.yaml").read_bytes()
    force_push(blue, back=2)                                             # blue rewrites the branch
    shared.sync()                                                        # the moderator publishes again
    assert shared.remote_text(f"{GAME}/log.yaml").encode().startswith(log)
    assert fetch(game).index == 1                                       # followed: nothing of the game lost
    assert git(red.clone, "rev-parse", "HEAD").stdout == git(red.clone, "rev-parse", "@{upstream}").stdout
    assert (red.game.root / "log.yaml").read_bytes().startswith(log)
    # again, now with a move of red's committed but not pushed: the clone is not moved
    force_push(blue, back=1)
    shared.sync()
    red.commit(red.write_move("0001.yaml", [{"stop": True}]), "red: not pushed yet")
    head = git(red.clone, "rev-parse", "HEAD").stdout
    with pytest.raises(FetchError, match="git pull --ff-only failed"):
        fetch(game)
    assert git(red.clone, "rev-parse", "HEAD").stdout == head


def test_the_game_so_far_as_the_player_saw_it_from_the_history_of_their_secrets(served):
    from pbem.client.history import seen_views
    shared, server = served
    for name, actions in [("red", [{"draw": True}]), ("blue", [{"draw": True}]), ("green", [{"stop": True}]),
                          ("red", [{"draw": True}])]:
        index = GameDir(shared.moderator.root).entries()[-1]["index"]
        shared.players[name].send(f"{index:04d}.yaml", actions)
        assert f"accepted {name}/{index:04d}.yaml" in shared.sync().output
    assert request(server, "POST", "/api/fetch", {"game": "club"}).json()["index"] == 4
    past = request(server, "POST", "/api/history", {"game": "club"}).json()
    assert [e["index"] for e in past["entries"]] == [0, 1, 2, 3, 4] and past["revealed"] is False
    assert past["seen"] == [0, 1, 2, 3, 4]
    assert any("blue drew a card" in line for line in past["entries"][2]["lines"])
    seen = seen_views(settings.load().game("club"))
    assert [len(seen[i]["hands"]["red"]) for i in range(5)] == [0, 1, 1, 1, 2]
    assert all(isinstance(card, int) for card in seen[4]["hands"]["red"])   # red's own cards, as red saw them
    assert all(seen[i]["hands"]["blue"] == [None] * len(seen[i]["hands"]["blue"]) for i in range(5))   # never blue's
    board = request(server, "POST", "/api/seen", {"game": "club", "index": 3}).json()
    assert board["as_of"] == 3 and board["board_svg"].startswith("<svg")
    assert request(server, "POST", "/api/seen", {"game": "club", "index": -1}).status == 422
    refused = request(server, "GET", f"/replay?game=club&token={server.app.token}", token=None)
    assert refused.status == 422 and "revealed" in refused.json()["error"]
    while waiting := shared.waiting_for():                                # the others stop: the game ends
        index = GameDir(shared.moderator.root).entries()[-1]["index"]
        shared.players[waiting[0]].send(f"{index:04d}.yaml", [{"stop": True}])
        shared.sync()
    assert "pushed" in shared.sync("--reveal-at-end").output
    request(server, "POST", "/api/fetch", {"game": "club"})
    assert request(server, "POST", "/api/history", {"game": "club"}).json()["revealed"] is True
    replay = request(server, "GET", f"/replay?game=club&token={server.app.token}", token=None)
    assert replay.status == 200 and b"replay of" in replay.body
    assert "connect-src 'none'" in replay.headers["Content-Security-Policy"]   # its script may call nothing


def test_a_move_is_committed_under_the_players_own_git_identity_where_they_set_one(tmp_path):
    """What `git config user.name` answers (its last value), else nothing: then the seat's name is used."""
    from pbem.client.send import _identity
    from pbem.transport.git.repo import Repo
    clone = tmp_path / "clone"
    git(tmp_path, "init", "-q", clone)
    assert _identity(Repo(clone)) == {}
    git(clone, "config", "user.name", "Alice Old")
    git(clone, "config", "--add", "user.name", "Alice Liddell")
    git(clone, "config", "user.email", "alice@example.org")
    assert _identity(Repo(clone)) == {"user.name": "Alice Liddell", "user.email": "alice@example.org"}
    plain = subprocess.run(["git", "-C", str(clone), "config", "user.name"], capture_output=True, text=True, check=True)
    assert plain.stdout.strip() == "Alice Liddell"                      # as git itself answers


def test_a_signed_move_that_lost_a_push_race_is_rebased_still_signed_and_taken(tmp_path, key_pool, toy_registered,
                                                                               monkeypatch):
    """Send's push loses a race (someone pushed first): the move's commit is rebased and pushed again, and
    the rebased commit is SSH-signed as the first was, so a moderator requiring signed commits takes it."""
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "config" / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shared = make_shared(tmp_path, key_pool, "--verify-commits")
    red, blue = shared.players["red"], shared.players["blue"]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(red.clone), "--game-dir", GAME,
                                       "--player", "red", "--key", str(red.key)])
    assert result.exit_code == 0, result.output
    app = PlayApp(settings.load())
    server = PlayServer(app)
    server.serve_in_thread()
    try:
        assert request(server, "POST", "/api/fetch", {"game": "club"}).status == 200
        (blue.clone / "note.txt").write_text("pushed first\n")          # someone is quicker than red's Send
        git(blue.clone, "add", "note.txt")
        git(blue.clone, "commit", "-q", "-m", "blue pushes first")
        git(blue.clone, "push", "-q")
        sent = request(server, "POST", "/api/send", {"game": "club", "actions": [{"stop": True}]})
        assert sent.status == 200, sent.body
    finally:
        server.close()
    raw = git(shared.bare, "cat-file", "-p", "main").stdout
    assert "gpgsig -----BEGIN SSH SIGNATURE-----" in raw, raw              # still signed after the rebase
    assert git(shared.bare, "log", "-1", "--format=%s", "main~1").stdout.strip() == "blue pushes first"
    assert "accepted red/entry-0000.yaml: entry 1" in shared.sync().output


def test_a_move_sent_again_after_its_commit_was_refused_gets_a_new_name_and_is_taken(tmp_path, key_pool,
                                                                                     toy_registered, monkeypatch):
    """The moderator requires signed commits and refused red's first move for its unsigned commit.  Sent
    again, the move is the same bytes (ed25519 signatures are deterministic): under the same name the
    moderator would count it as answered and drop it without a receipt.  Send picks a new name."""
    from pbem.client.send import send
    from pbem.pipeline.turn import ssh_keygen_sign
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "config" / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shared = make_shared(tmp_path, key_pool, "--verify-commits")
    red = shared.players["red"]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(red.clone), "--game-dir", GAME,
                                       "--player", "red", "--key", str(red.key)])
    assert result.exit_code == 0, result.output
    app = PlayApp(settings.load())
    game = app.config.game("club")
    first = send(game, app.table(game).table, [{"stop": True}], ssh_keygen_sign)   # a signer of its own: unsigned commit
    assert first.name == "red/entry-0000.yaml"
    assert "rejected red/entry-0000.yaml: commit" in shared.sync().output
    server = PlayServer(app)
    server.serve_in_thread()
    try:
        assert request(server, "POST", "/api/fetch", {"game": "club"}).status == 200
        sent = request(server, "POST", "/api/send", {"game": "club", "actions": [{"stop": True}]})
        assert sent.status == 200, sent.body
    finally:
        server.close()
    assert sent.json()["sent"] == "red/entry-0000-2.yaml"
    assert "accepted red/entry-0000-2.yaml: entry 1" in shared.sync().output


def test_a_move_sent_from_pbem_play_by_a_player_in_civil_disorder_returns_the_seat(tmp_path, key_pool,
                                                                                  toy_registered, monkeypatch):
    """red's copy in `pbem play` still shows red's first decision; meanwhile red missed the deadline,
    the others moved and red's seat went into civil disorder (the bot decided). red clicks and sends:
    refused as stale, but the seat is red's again, and red's copy says so after the next fetch."""
    import time

    from test_missed_turns import _three_after_red_missed_one

    from pbem.pipeline.deadlines import tick
    from pbem.store.missedturns import in_disorder
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "config" / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    probe = _three_after_red_missed_one(tmp_path / "probe", key_pool)    # a seed whose bot draws for red
    (tmp_path / "world").mkdir()
    shared = make_shared(tmp_path / "world", key_pool, seed=bytes([int(probe.root.name[1:])]) * 32,
                         deadlines=probe.entries()[0]["deadlines"])
    red = shared.players["red"]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(red.clone), "--game-dir", GAME,
                                       "--player", "red", "--key", str(red.key)])
    assert result.exit_code == 0, result.output
    gd = GameDir(shared.moderator.root)
    assert [e["action"] for e in tick(gd, now=time.time() + 49 * 3600, max_entries=1).entries] == ["timeout"]
    shared.sync()
    shared.players["blue"].send("b.yaml", [{"draw": True}])
    shared.sync()
    shared.players["green"].send("g.yaml", [{"draw": True}])
    shared.sync("--tick")
    assert in_disorder(gd.entries(), "red")
    server = PlayServer(PlayApp(settings.load()))
    server.serve_in_thread()
    try:
        sent = request(server, "POST", "/api/send", {"game": "club", "actions": [{"draw": True}]})
        assert sent.status == 200, sent.body
        out = shared.sync("--tick").output
        back = gd.entries()[-1]
        assert (back["action"], back["player"]) == ("return", "red"), out
        assert f"rejected {sent.json()['sent']}: red's seat is red's again" in out, out
        fetched = request(server, "POST", "/api/fetch", {"game": "club"}).json()
        assert fetched["index"] == back["index"], fetched
    finally:
        server.close()
    receipt = (red.clone / GAME / "receipts" / sent.json()["sent"].replace(".yaml", ".txt")).read_text()
    assert f"civil disorder is over (moderator entry {back['index']})" in receipt
    assert not in_disorder(gd.entries(), "red")
