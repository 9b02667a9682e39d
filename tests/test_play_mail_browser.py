"""`pbem play` for a game by e-mail, as a player runs it: the real `pbem play` in its own process,
a real headless Chromium on its page, the player's mailbox on a real Dovecot, everybody's mail
through the tests' SMTP server, and the moderator's real `pbem mail run`.  An Atlantis game from
a late position (as the Space Attack mail game starts) to its end: red clicks every turn on the
page and presses Send; the other seats are bots that mail their signed moves; each receipt comes
back and is shown; red's copy ends byte for byte the moderator's log."""
from __future__ import annotations

import os
import time

import pytest
from click.testing import CliRunner
from mailservers import GM, PASSWORD, PLAYERS, address, attachment_message, start_world
from pipeline_helpers import late_position, signed_move
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from test_browser import browser  # noqa: F401  (the browser fixture)
from test_play_browser import pbem_play

from pbem.cli.group import main
from pbem.core.engine import pending_players
from pbem.core.rng import Rng
from pbem.pipeline.botmoves import bot_move_file
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

MAX_ROUNDS = 120


@pytest.mark.slow(seconds=60)
def test_an_atlantis_game_by_mail_to_its_end_clicked_in_chromium(tmp_path, key_pool, dovecot, browser,
                                                                monkeypatch):
    world = start_world(tmp_path, key_pool, dovecot, game="atlantis",
                        position=late_position("atlantis", PLAYERS, left=24))
    red_user = f"red-{os.getpid()}-{time.monotonic_ns()}"
    world.router.local[address("red")] = lambda raw: dovecot.deliver(red_user, raw)
    gd = world.gd
    for var, value in {"PBEM_PLAY_CONFIG": tmp_path / "play.yaml", "XDG_DATA_HOME": tmp_path / "data",
                       "PBEM_PLAY_IMAP_PASSWORD": PASSWORD}.items():
        monkeypatch.setenv(var, str(value))
    result = CliRunner().invoke(main, [
        "play", "init", "club", "--mail", "--game-id", gd.entries()[0]["id"], "--player", "red",
        "--key", str(key_pool["red"]), "--moderator", GM, "--address", address("red"),
        "--imap-host", "127.0.0.1", "--imap-port", str(dovecot.port), "--imap-security", "none",
        "--imap-user", red_user, "--smtp-host", "127.0.0.1", "--smtp-port", str(world.smtp.port),
        "--smtp-security", "none"])
    assert result.exit_code == 0, result.output

    def mail_run() -> str:
        out = CliRunner().invoke(main, ["mail", "run", str(gd.root)], env=world.env())
        assert out.exit_code == 0, out.output
        assert "rejected" not in out.output and "left alone" not in out.output, out.output
        return out.output

    mail_run()                                        # the first digests: the whole copy in each
    red_turns = asked = 0
    try:
        with pbem_play() as (lines, url):
            browser.get(url)
            wait = WebDriverWait(browser, 60)
            for n in range(MAX_ROUNDS):
                table = Table.load(gd)
                waiting = sorted(pending_players(table.game, table.state))
                if not waiting:
                    break
                if "red" not in waiting:              # a bot's seat: its signed move by mail
                    seat = waiting[0]
                    move = bot_move_file(table, seat, Rng(b"mail-bots", str(n)), "greedy")
                    raw, sig = signed_move(table, seat, move.actions, key_pool[seat])
                    world.player_send(seat, attachment_message(seat, raw, sig, subject="Re: my move"))
                    mail_run()
                    continue
                asked += _catch_up(browser, wait, table.last["index"], mail_run)
                _click_a_whole_turn(browser, wait)
                browser.find_element(By.ID, "send").click()
                wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("sent "))
                assert "accepted" in mail_run()       # the moderator's `pbem mail run` takes it and answers
                red_turns += 1
                browser.find_element(By.ID, "news").click()   # the receipt comes back, checked and shown
                wait.until(lambda d: "receipt checked and kept: entry" in d.find_element(By.ID, "notes").text)
            else:
                pytest.fail("the game did not end")
            asked += _catch_up(browser, wait, gd.entries()[-1]["index"], mail_run)
            assert browser.find_element(By.ID, "problems").text == ""
            errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
            assert errors == []
    finally:
        world.smtp.stop()
    assert red_turns >= 2
    copy = GameDir(tmp_path / "data" / "pbem" / "play" / "club" / gd.entries()[0]["id"])
    assert copy.log_path.read_bytes() == gd.log_path.read_bytes()
    kept = list((tmp_path / "data" / "pbem" / "receipts" / copy.root.name).glob("entry-*.yaml"))
    assert len(kept) == red_turns
    moves_by_mail = [r for r in world.router.log if r.mail_from == address("red")
                     and r.msg["Subject"] != "send log"]
    assert len(moves_by_mail) == red_turns and all(r.msg["In-Reply-To"] for r in moves_by_mail)
    print(f"red played {red_turns} turns by mail; asked for the copy {asked} time(s)")


def _catch_up(browser, wait, index: int, mail_run) -> int:
    """Check for news until the page shows entry ``index``; where the mail left the update out
    (the digest had no room for it), press the page's button that asks for the copy."""
    asked = 0
    for _ in range(3):
        browser.find_element(By.ID, "news").click()
        try:
            wait.until(lambda d: d.find_element(By.ID, "status").text.startswith(f"log entry {index};")
                       or d.find_element(By.ID, "ask-log").is_displayed())
        except Exception:  # noqa: BLE001 - reported below
            break
        if browser.find_element(By.ID, "status").text.startswith(f"log entry {index};"):
            return asked
        browser.find_element(By.ID, "ask-log").click()
        wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("asked the moderator"))
        mail_run()                                    # the moderator answers `send log` with the copy
        asked += 1
    raise AssertionError(f"the page did not reach entry {index}: {browser.find_element(By.ID, 'status').text!r}, "
                         f"{browser.find_element(By.ID, 'problems').text!r}, {browser.find_element(By.ID, 'notes').text!r}")


def _click_a_whole_turn(browser, wait) -> None:
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#choices button.choice"))
    clicks = 0
    while (buttons := browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")) and clicks < 40:
        before = len(browser.find_elements(By.CSS_SELECTOR, "#done li"))
        buttons[-1].click()                           # the last choice: often "done" or a pass
        clicks += 1
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#done li")) == before + 1)
    assert clicks < 40 and browser.find_element(By.ID, "stop").text
