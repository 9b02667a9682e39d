"""`pbem play` as a player runs it: the real command in its own process, a real headless Chromium
on its page, a real git remote and the moderator's `pbem git sync`: an Atlantis set-up placement
clicked, undone, clicked again and sent; the moderator takes it; the page shows the news.  In
each of the four games, a whole turn clicked from a position well into the game and sent (the
game started there, `pbem new --position`: the bots' moves before it played in memory), on the
command's own server in this process.  The player's own page framed in `pbem play`'s (the mailed
page's panel, made from their copy): a whole Atlantis set-up planned on it and sent as one move,
and a play turn clicked on its board with the creature orders written ahead, sent and taken.  A
seat in civil disorder taken back with the page's one button."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from pipeline_helpers import turn_position
from test_git_helpers import GAME, PLAYERS, hermetic_git, make_shared  # noqa: F401  (autouse fixture)
from test_play_seatback import red_in_disorder  # noqa: F401  (a fixture)

from pbem.cli.client import open_play
from pbem.cli.group import main
from pbem.pipeline.turn import player_table
from pbem.store.gamedir import GameDir


def atlantis_played_by_the_first_to_place(tmp_path, key_pool, monkeypatch):
    """An Atlantis game shared through git, and `pbem play init` for the player who places first
    (their settings and receipts in the test's folder): (the shared world, that player)."""
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shared = make_shared(tmp_path, key_pool, game="atlantis")
    me = shared.players[shared.waiting_for()[0]]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(me.clone), "--game-dir", GAME,
                                       "--player", me.name, "--key", str(me.key)])
    assert result.exit_code == 0, result.output
    return shared, me


@pytest.mark.slow(seconds=20)
def test_a_set_up_placement_clicked_in_chromium_on_pbem_play_is_sent_and_taken(tmp_path, key_pool, browser,
                                                                              monkeypatch):
    shared, me = atlantis_played_by_the_first_to_place(tmp_path, key_pool, monkeypatch)
    table, private = player_table(GameDir(me.clone / GAME), me.name, me.key, None)
    assert private
    expected = [table.game.describe_action(a) for a in table.game.legal_actions(table.state, me.name)]

    with pbem_play() as (lines, url):
        assert lines[0] == "club: log entry 0"                        # fetched and checked at start
        browser.get(url)
        wait = page_wait(browser)
        use_the_list(browser)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#choices button.choice"))
        assert "token" not in browser.current_url                     # it left the address bar
        assert not browser.find_element(By.ID, "seat-back").is_displayed()   # no civil disorder: no seat to take back
        buttons = browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")
        assert shown_texts(browser, "#choices button.choice") == expected
        assert browser.find_elements(By.CSS_SELECTOR, "#board svg")
        first = buttons[0].text
        buttons[0].click()
        wait.until(lambda d: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#done li")] == [first])
        browser.find_element(By.ID, "undo").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#done li"))
        browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")[0].click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#done li")) == 1)
        assert browser.find_element(By.ID, "send-what").text == "the choices you picked from the list (1)"
        browser.find_element(By.ID, "send").click()
        wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("sent "))
        assert "the choices you picked from the list" in browser.find_element(By.ID, "answer").text
        assert f"accepted {me.name}/entry-0000.yaml: entry 1" in shared.sync().output
        browser.find_element(By.ID, "news").click()
        wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("log entry 1;"))
        assert browser.find_element(By.ID, "problems").text == ""
        browser.find_element(By.CSS_SELECTOR, "#past summary").click()          # the game so far
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#entries button")) == 2)
        browser.find_elements(By.CSS_SELECTOR, "#entries button")[0].click()
        wait.until(lambda d: d.find_element(By.ID, "seen-note").text == "the board as you saw it after entry 0")
        browser.find_element(By.ID, "now").click()
        wait.until(lambda d: d.find_element(By.ID, "seen-note").text == "")
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []                                           # no CSP violation, no script error


def use_the_list(browser) -> None:
    """Compose with the list of every choice (the engine's, live) rather than on the board."""
    browser.find_element(By.ID, "mode-list").click()
    assert browser.find_element(By.ID, "mode-list").get_attribute("aria-pressed") == "true"


def page_wait(browser) -> WebDriverWait:
    """A wait for what the page shows next: up to a minute against a hang, looking every 20 ms
    (Selenium's default looks every half second, and each wait of a turn's clicks paid most of one)."""
    return WebDriverWait(browser, 60, poll_frequency=0.02)


def shown_texts(browser, css: str) -> list[str]:
    """The text each element matching ``css`` shows, as ``WebElement.text`` reads it (rendered, so
    "" for one not shown), in one round trip to the browser instead of one per element (the set-up
    placement offers some 400 choices)."""
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.getClientRects().length ? e.innerText : '');",
        css)


@contextmanager
def pbem_play() -> Iterator[tuple[list[str], str]]:
    """The real `pbem play --no-browser` in its own process: what it printed, and its address."""
    # Ctrl-C reaches it as in a player's terminal: a suite started in the background (`make test &`)
    # ignores SIGINT, a child inherits that, and Python keeps an inherited SIG_IGN (test_turn.py too)
    proc = subprocess.Popen([sys.executable, "-m", "pbem", "play", "--no-browser"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines: list[str] = []
        while not (lines and lines[-1].startswith("your games: ")):
            line = proc.stdout.readline()
            assert line, f"pbem play ended: {lines} {proc.stderr.read()}"
            lines.append(line.strip())
        url = lines[-1].split()[2]
        assert url.startswith("http://127.0.0.1:") and "?token=" in url
        yield lines, url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"pbem play did not stop within 30 s of a Ctrl-C: {proc.communicate()[1]}")
    assert proc.returncode == 0, proc.stderr.read()


@contextmanager
def pbem_play_here() -> Iterator[tuple[list[str], str]]:
    """`pbem play --no-browser` in this process (the command's own `open_play`, served from a thread):
    for the tests where the process is not what is tested (a Python start and pbem's imports saved;
    the set-up test above and the mail game run the real command)."""
    lines: list[str] = []

    def ask(prompt: str) -> str:
        raise AssertionError(f"pbem play asked: {prompt}")

    server = open_play(None, 0, False, say=lines.append, warn=lines.append, ask=ask)
    server.serve_in_thread()
    try:
        yield lines, server.url
    finally:
        server.close()


@pytest.mark.slow(seconds=10)
@pytest.mark.parametrize("game", ["atlantis", "atlantis-1986", "space-attack", "space-swarm"])
def test_a_whole_turn_clicked_in_each_game_is_sent_and_taken(tmp_path, key_pool, browser, monkeypatch, game):
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    # a position well into the game (past the Survive set-up's 12 placements), played by bots in memory
    position = turn_position(game, PLAYERS, "red", 3 if game == "space-swarm" else 14)
    shared = make_shared(tmp_path, key_pool, game=game, position=position)
    me = shared.players["red"]
    assert shared.waiting_for()[0] == "red"
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(me.clone), "--game-dir", GAME,
                                       "--player", "red", "--key", str(me.key)])
    assert result.exit_code == 0, result.output
    me.pull()
    index = GameDir(shared.moderator.root).entries()[-1]["index"]
    with pbem_play_here() as (lines, url):
        assert lines == [f"club: log entry {index}"]              # fetched and checked at start
        browser.get(url)
        wait = page_wait(browser)
        click_a_whole_turn(browser, wait)
        browser.find_element(By.ID, "send").click()
        wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("sent "))
        assert f"accepted red/entry-{index:04d}.yaml: entry {index + 1}" in shared.sync().output
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []


def click_a_whole_turn(browser, wait) -> int:
    """Click the page's last choice until the turn reaches its end or a stop; the clicks made."""
    use_the_list(browser)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#choices button.choice"))
    clicks = 0
    while (buttons := browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")) and clicks < 40:
        before = len(browser.find_elements(By.CSS_SELECTOR, "#done li"))
        buttons[-1].click()                           # the last choice: often "done" or a pass
        clicks += 1
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#done li")) == before + 1)
    assert clicks < 40 and browser.find_element(By.ID, "stop").text     # the turn reached its end or a stop
    return clicks


# --- the player's own page, embedded: the mailed page's panel, sent by Send ------------------------

def on_the_page(browser, wait) -> None:
    """Into the embedded page (the player's own, /page) once it has loaded."""
    browser.switch_to.default_content()
    wait.until(lambda d: d.find_element(By.ID, "page").get_attribute("src"))
    browser.switch_to.frame(browser.find_element(By.ID, "page"))
    wait.until(lambda d: d.execute_script("return document.readyState") == "complete"
               and d.find_elements(By.CSS_SELECTOR, "h1, h2"))


def send_from_the_board(browser, wait, actions: int) -> str:
    """Back on the play page: Send says it sends the board's move of ``actions`` actions; press it."""
    browser.switch_to.default_content()
    plural = "action" if actions == 1 else "actions"
    wait.until(lambda d: d.find_element(By.ID, "send-what").text
               == f"the move you composed on the board ({actions} {plural})")
    browser.find_element(By.ID, "send").click()
    wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("sent "))
    answer = browser.find_element(By.ID, "answer").text
    assert "the move you composed on the board" in answer, answer
    return answer


@pytest.mark.slow(seconds=20)
def test_a_whole_atlantis_set_up_planned_on_the_embedded_page_goes_in_one_move(tmp_path, key_pool, browser,
                                                                             monkeypatch):
    """`pbem play` shows the player's own page (the mailed one, made from their copy): its "Your
    whole set-up in one message" plan lays out every placement; Send signs and pushes that one move
    file; the moderator takes it; with the news the page is made again from the new entry."""
    from test_click_browser import move_text
    from test_click_setup_browser import plan_every_piece
    from pbem.store.movefile import parse_move
    from pbem.store.table import Table
    shared, me = atlantis_played_by_the_first_to_place(tmp_path, key_pool, monkeypatch)

    with pbem_play() as (_lines, url):
        browser.get(url)
        wait = page_wait(browser)
        assert browser.find_element(By.ID, "mode-board").get_attribute("aria-pressed") == "true"   # the board first
        assert not browser.find_element(By.ID, "layout").is_displayed()
        on_the_page(browser, wait)
        wait.until(lambda d: d.find_elements(By.ID, "pbem-plan-0-add"))
        groups = browser.execute_script(
            "return JSON.parse(document.getElementById('pbem-click-data').textContent).setup.groups")
        assert "Send seals the list to the moderator" in browser.find_element(By.ID, "pbem-setup").text
        placements = plan_every_piece(browser, groups, stride=5)
        assert len(browser.find_elements(By.CSS_SELECTOR, "ol.pbem-plan li")) == placements
        text = move_text(browser)
        move = parse_move(text.encode())
        assert [sorted(a) for a in move.actions] == [["keep", "prefer"]] and len(move.actions[0]["prefer"]) >= placements
        assert "ssh-keygen" not in browser.find_element(By.ID, "pbem-click").text    # Send signs: no command to run

        send_from_the_board(browser, wait, 1)
        assert f"accepted {me.name}/entry-0000.yaml: entry 1" in shared.sync().output
        table = Table.load(shared.moderator)
        logged = table.entries[1]["actions"]                                # the whole set-up in that one move,
        assert [sorted(a) for a in logged] == [["commit", "sealed"]]        # sealed: the others cannot read it
        assert "prefer" not in (shared.moderator.root / table.entries[1]["move"]["file"]).read_text()
        sent, left = move.actions[0]["prefer"], table.prefs.of(me.name)    # the moderator opened it: the
        assert left and left == sent[len(sent) - len(left):]               # rest of it waits for its turns
        assert me.name not in shared.waiting_for()

        browser.find_element(By.ID, "news").click()
        wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("log entry 1;"))
        on_the_page(browser, wait)                                          # made again from entry 1
        wait.until(lambda d: "log entry 1," in d.find_element(By.TAG_NAME, "body").text)
        assert not browser.find_elements(By.ID, "pbem-click")              # no decision of theirs now
        browser.switch_to.default_content()
        wait.until(lambda d: "no decision now" in d.find_element(By.ID, "send-what").text)
        assert not browser.find_element(By.ID, "send").is_enabled()
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []


@pytest.mark.slow(seconds=15)
def test_a_play_turn_clicked_on_the_embedded_board_with_creature_orders_ahead_is_sent_and_taken(
        tmp_path, key_pool, browser, monkeypatch):
    """A whole Atlantis play turn clicked on the embedded page's board (pieces and spaces, the
    buttons for the rest), the creature orders for the die written ahead; Send; the moderator takes it."""
    from test_click_browser import choices, choose_option, move_text, plan_turn, space
    from pbem.base.yamlio import dump_flow
    from pbem.store.movefile import parse_move
    from pbem.store.table import Table
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shared = make_shared(tmp_path, key_pool, game="atlantis", position=turn_position("atlantis", PLAYERS, "red", 14))
    me = shared.players["red"]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(me.clone), "--game-dir", GAME,
                                       "--player", "red", "--key", str(me.key)])
    assert result.exit_code == 0, result.output
    me.pull()
    table = Table.load(shared.moderator)
    index = int(table.last["index"])
    plan = plan_turn(table.game, table.state, "red")
    with pbem_play_here() as (_lines, url):
        browser.get(url)
        wait = page_wait(browser)
        on_the_page(browser, wait)
        status = browser.find_element(By.ID, "pbem-status")
        for action, place, words in plan:
            if place.piece and place.to_cell:                        # a move: the piece, then where it goes
                space(browser, "pbem-pick", place.from_cell).click()
                if choices(browser, "pick " + place.piece):
                    choices(browser, "pick " + place.piece)[0].click()
                space(browser, "pbem-to", place.to_cell).click()
                if choices(browser, words):
                    choices(browser, words)[0].click()
            elif place.tile:                                         # a tile taken
                space(browser, "pbem-pick", place.tile).click()
            else:                                                    # a button: {play: none}, {done: move}
                choices(browser, words)[0].click()
            assert move_text(browser).rstrip().endswith("  - " + dump_flow(action)), move_text(browser)
        assert "depends on a die roll" in status.text, status.text
        assert status.text.endswith("Press Send in pbem play, under this page."), status.text   # not "save"
        ahead = browser.find_elements(By.CSS_SELECTOR, "#pbem-ahead select")    # creature orders written ahead
        assert ahead
        for select in ahead:
            choose_option(select, len(select.find_elements(By.TAG_NAME, "option")) - 1)
        move = parse_move(move_text(browser).encode())
        assert list(move.actions[-1]) == ["creature"] and len(move.actions) == len(plan) + 1

        send_from_the_board(browser, wait, len(plan) + 1)
        assert f"accepted red/entry-{index:04d}.yaml: entry {index + 1}" in shared.sync().output
        logged = Table.load(shared.moderator).entries[index + 1]["actions"]
        assert logged[:len(plan)] == move.actions[:len(plan)]
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []


def test_a_seat_in_civil_disorder_comes_back_with_one_click_in_chromium(red_in_disorder, browser):
    """red's copy shows the bot's moves: no choice to click, but the note and "Take my seat back";
    one click sends the move, the button waits for the answer, and once the moderator's `return`
    reaches the copy (Check for news) the note and the button are gone."""
    shared = red_in_disorder
    with pbem_play_here() as (_lines, url):
        browser.get(url)
        wait = page_wait(browser)
        wait.until(lambda d: d.find_element(By.ID, "seat-back").is_displayed())
        assert browser.find_element(By.ID, "disorder-note").text.startswith("Your seat (red) is in civil disorder")
        assert browser.find_element(By.ID, "seat-back").text == "Take my seat back"
        browser.find_element(By.ID, "seat-back").click()
        wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("sent red/entry-"))
        wait.until(lambda d: not d.find_element(By.ID, "seat-back").is_enabled())
        assert browser.find_element(By.ID, "seat-back-what").text.startswith("asked (red/entry-")
        out = shared.sync("--tick").output
        assert "red's seat is red's again" in out, out
        browser.find_element(By.ID, "news").click()
        wait.until(lambda d: not d.find_element(By.ID, "disorder").is_displayed())
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []                                           # no CSP violation, no script error
