"""`pbem play` as a player runs it: the real command in its own process, a real headless Chromium
on its page, a real git remote and the moderator's `pbem git sync`: an Atlantis set-up placement
clicked, undone, clicked again and sent; the moderator takes it; the page shows the news.  In
each of the four games, a whole turn clicked from a position well into the game and sent (the
game started there, `pbem new --position`: the bots' moves before it played in memory), on the
command's own server in this process."""
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

from pbem.cli.client import open_play
from pbem.cli.group import main
from pbem.pipeline.turn import player_table
from pbem.store.gamedir import GameDir


@pytest.mark.slow(seconds=20)
def test_a_set_up_placement_clicked_in_chromium_on_pbem_play_is_sent_and_taken(tmp_path, key_pool, browser,
                                                                              monkeypatch):
    monkeypatch.setenv("PBEM_PLAY_CONFIG", str(tmp_path / "play.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shared = make_shared(tmp_path, key_pool, game="atlantis")
    me = shared.players[shared.waiting_for()[0]]
    result = CliRunner().invoke(main, ["play", "init", "club", "--clone", str(me.clone), "--game-dir", GAME,
                                       "--player", me.name, "--key", str(me.key)])
    assert result.exit_code == 0, result.output
    table, private = player_table(GameDir(me.clone / GAME), me.name, me.key, None)
    assert private
    expected = [table.game.describe_action(a) for a in table.game.legal_actions(table.state, me.name)]

    with pbem_play() as (lines, url):
        assert lines[0] == "club: log entry 0"                        # fetched and checked at start
        browser.get(url)
        wait = page_wait(browser)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#choices button.choice"))
        assert "token" not in browser.current_url                     # it left the address bar
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
        browser.find_element(By.ID, "send").click()
        wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("sent "))
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
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#choices button.choice"))
    clicks = 0
    while (buttons := browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")) and clicks < 40:
        before = len(browser.find_elements(By.CSS_SELECTOR, "#done li"))
        buttons[-1].click()                           # the last choice: often "done" or a pass
        clicks += 1
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#done li")) == before + 1)
    assert clicks < 40 and browser.find_element(By.ID, "stop").text     # the turn reached its end or a stop
    return clicks
