"""`pbem play` for a game by e-mail, as a player runs it: the real `pbem play` in its own process,
a real headless Chromium on its page, the player's mailbox on a real Dovecot, everybody's mail
through the tests' SMTP server, and the moderator's real `pbem mail run`.  An Atlantis game from
a late position (as the Space Attack mail game starts) to its end: red clicks every turn on the
page and presses Send; the other seats are bots that mail their signed moves; each receipt comes
back and is shown; red's first digest is lost, so the page's button asks for the copy; red's copy
ends byte for byte the moderator's log."""
from __future__ import annotations

import os
import time

import pytest
from click.testing import CliRunner
from mailservers import GM, PASSWORD, PLAYERS, address, attachment_message, start_world
from pipeline_helpers import late_position, signed_move
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from test_play_browser import click_a_whole_turn, page_wait, pbem_play

from pbem.cli.group import main
from pbem.core.engine import pending_players
from pbem.core.rng import Rng
from pbem.pipeline.botmoves import bot_move_file
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

MAX_ROUNDS = 120


@pytest.mark.slow(seconds=25)
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

    def asks() -> list:
        return [r for r in world.router.log if r.msg["Subject"] == "send log"]

    deliver_to_red = world.router.local.pop(address("red"))
    mail_run()                                        # the first digests (the whole copy in each): red's is lost
    world.router.local[address("red")] = deliver_to_red
    red_turns = asked = 0
    clicks: list[int] = []
    seconds: list[float] = []
    try:
        with pbem_play() as (lines, url):
            browser.get(url)
            wait = page_wait(browser)
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
                started = time.monotonic()          # figures for docs/playing.md (printed, never asserted)
                asked += _catch_up(browser, wait, table.last["index"], mail_run, asks)
                clicks.append(click_a_whole_turn(browser, wait) + 2)    # + Check for news, Send
                browser.find_element(By.ID, "send").click()
                index = table.last["index"]
                wait.until(lambda d: f"(your move for log entry {index})" in d.find_element(By.ID, "answer").text)
                seconds.append(time.monotonic() - started)
                assert "accepted" in mail_run()       # the moderator's `pbem mail run` takes it and answers
                red_turns += 1
                browser.find_element(By.ID, "news").click()   # the receipt comes back, checked and shown
                wait.until(lambda d: "receipt checked and kept: entry" in d.find_element(By.ID, "notes").text)
            else:
                pytest.fail("the game did not end")
            asked += _catch_up(browser, wait, gd.entries()[-1]["index"], mail_run, asks)
            assert browser.find_element(By.ID, "problems").text == ""
            errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
            assert errors == []
    finally:
        world.smtp.stop()
    assert red_turns >= 2 and asked >= 1               # the lost copy was asked for with the page's button
    copy = GameDir(tmp_path / "data" / "pbem" / "play" / "club" / gd.entries()[0]["id"])
    assert copy.log_path.read_bytes() == gd.log_path.read_bytes()
    kept = list((tmp_path / "data" / "pbem" / "receipts" / copy.root.name).glob("entry-*.yaml"))
    assert len(kept) == red_turns
    moves_by_mail = [r for r in world.router.log if r.mail_from == address("red")
                     and r.msg["Subject"] != "send log"]
    assert len(moves_by_mail) == red_turns and all(r.msg["In-Reply-To"] for r in moves_by_mail)
    digests = [r for r in world.router.log if r.rcpt_tos == [address("red")] and r.msg["X-PBEM-Entry"]]
    updates = [len(p.as_bytes()) for r in digests for p in r.msg.iter_attachments()
               if "-update-" in (p.get_filename() or "")]
    print(f"red played {red_turns} turns by mail; clicks per turn {clicks}; seconds per turn (news, clicks, "
          f"send) {[round(s, 1) for s in seconds]}; asked for the copy {asked} time(s); {len(digests)} digests, "
          f"{len(updates)} with an update (bytes as mailed: {updates}); messages "
          f"{[len(r.raw) for r in digests]}")


def _catch_up(browser, wait, index: int, mail_run, router_log) -> int:
    """Check for news until the page shows entry ``index``; where the copy lacks entries (a lost
    mail, or an update the digest had no room for), press the page's button that asks for the copy."""
    def at_index(d) -> bool:
        return d.find_element(By.ID, "status").text.startswith(f"log entry {index};")

    def until(condition, what: str) -> None:
        """``wait.until(condition)``; if it times out, a failure that says what the page showed."""
        try:
            wait.until(condition)
        except TimeoutException:
            shown = {name: browser.find_element(By.ID, name).text for name in ("status", "problems", "notes", "answer")}
            raise AssertionError(f"the page never {what} (entry {index}); it shows {shown}, the ask-log button "
                                 f"{'shown' if browser.find_element(By.ID, 'ask-log').is_displayed() else 'hidden'}, "
                                 f"{len(router_log())} request(s) for the copy mailed") from None

    browser.find_element(By.ID, "news").click()
    until(lambda d: at_index(d) or d.find_element(By.ID, "ask-log").is_displayed(), "caught up or offered to ask")
    if at_index(browser):
        return 0
    requests = len(router_log())
    browser.find_element(By.ID, "ask-log").click()
    until(lambda d: len(router_log()) > requests, "mailed `send log`")     # the page mailed `send log` for the player
    mail_run()                                            # the moderator answers with the public copy
    browser.find_element(By.ID, "news").click()
    until(at_index, "showed the entry after the copy came")
    assert not browser.find_element(By.ID, "ask-log").is_displayed()
    return 1
