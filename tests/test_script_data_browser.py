"""Text that the HTML tokenizer reacts to inside a <script> element, in the pages people open, in a
real headless Chromium (the `browser` fixture of tests/conftest.py).

An Atlantis game whose moderator reasons hold ``<!--<script>``, ``</script>``, ``<!--``, ``-->``,
U+2028 and U+2029 (player names and game ids cannot hold them: ``pbem new`` refuses such names;
move-file comments are never shown on a page).  The replay page loads, its script runs (the keys
step through the entries) and each reason shows exactly as written; a player's own page with the
click-to-move panel loads, its script runs (a choice clicked makes a move the engine accepts as
legal) and the reasons show exactly as written.  The one function's JSON, with every dangerous
piece in it, is read back identically by the browser's ``JSON.parse``, where the escaping the
replay page used before (only ``</``) loses the rest of the page.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from markupsafe import Markup
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from pipeline_helpers import bot_move, new_game
from pbem.base.data import templates_dir
from pbem.crypto import agecrypt
from pbem.pipeline.moderator import moderate
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import parse_move
from pbem.store.table import Table
from pbem.views.outputs import opened_bytes
from pbem.views.render.digest import _env
from pbem.views.replay import build_replay, render_replay
from test_browser import vnu_errors

NASTY = ('a <!--<script> b </script> c <!-- d --> e \u2028 f \u2029 g & h </SCRIPT > i <script>alert(1)</script> '
         '"q" \\ ]]> end')
#: each moderator entry, with the number of bot moves after it
REASONS = [("note", NASTY, 3), ("pause", "pause " + NASTY, 0), ("resume", "-->", 3), ("note", "<!--<script>", 2)]


@pytest.fixture(scope="module")
def nasty_game(tmp_path_factory, key_pool) -> tuple[GameDir, dict[int, str]]:
    """Moderator entries with the dangerous reasons between bot moves; returns the game and the
    reason of each moderator entry by its index."""
    gd = new_game(tmp_path_factory.mktemp("nasty") / "game", "atlantis", key_pool, ["red", "blue"],
                  seed=b"n" * 32)
    reasons = {}
    for action, reason, moves in REASONS:
        reasons[moderate(gd, action, reason)["index"]] = reason
        for _ in range(moves):
            mv = bot_move(gd, key_pool, b"nasty-bot")
            assert mv is not None
            submit(gd, *mv)
    return gd, reasons


def text_of(driver, css: str) -> list[str]:
    """textContent (not Selenium's whitespace-folded .text) of each element ``css`` matches."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent);", css)


def console_errors(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def test_the_replay_runs_and_shows_each_reason_exactly(nasty_game, browser, tmp_path):
    gd, reasons = nasty_game
    page = tmp_path / "replay.html"
    page.write_text(render_replay(build_replay(gd)), encoding="utf-8")
    browser.get(page.as_uri())
    last = len(gd.entries()) - 1
    assert browser.execute_script("return document.scripts.length;") == 2      # nothing swallowed
    where = browser.find_element(By.ID, "pbem-where")
    assert where.text == f"entry 0 of {last}"                                  # the script ran
    body = browser.find_element(By.TAG_NAME, "body")
    step = 0
    for index in sorted(reasons):
        while step < index:
            body.send_keys(Keys.ARROW_RIGHT)
            step += 1
        assert where.text == f"entry {index} of {last}"
        action = gd.entries()[index]["action"]
        assert text_of(browser, "#pbem-events li") == [f"moderator: {action} - {reasons[index]}"]
        assert text_of(browser, "#pbem-entry") == [f"Entry {index} of {last}: moderator by moderator ({action})"]
    body.send_keys(Keys.END)
    assert where.text == f"entry {last} of {last}"
    assert console_errors(browser) == []


def test_a_players_click_page_runs_and_shows_each_reason_exactly(nasty_game, key_pool, browser, tmp_path):
    gd, reasons = nasty_game
    table = Table.load(gd)
    player = table.game.pending(table.state)[0].player
    page = tmp_path / f"{player}.html"
    page.write_bytes(opened_bytes(agecrypt.decrypt(gd.secrets_html_path(player).read_bytes(), key_pool[player])))
    assert NASTY not in page.read_text()                       # it is escaped in the HTML ...
    browser.get(page.as_uri())
    footer = text_of(browser, "footer p")
    for index, reason in reasons.items():                      # ... and reads exactly as written
        assert f"moderator, entry {index}: {gd.entries()[index]['action']} - {reason}" in footer
    assert browser.execute_script("return document.scripts.length;") == 2
    status = browser.find_element(By.ID, "pbem-status")
    assert "Loading" not in status.text                         # the panel's script ran
    browser.find_elements(By.CSS_SELECTOR, "#pbem-choices button")[0].click()
    targets = browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board polygon.pbem-to")
    if targets:
        targets[0].click()
    move = parse_move(str(browser.find_element(By.ID, "pbem-move").get_attribute("value")).encode())
    assert move.player == player and len(move.actions) == 1
    assert move.actions[0] in table.game.legal_actions(table.state, player)
    assert console_errors(browser) == []


def test_vnu_finds_no_error_in_the_pages_with_the_reasons(nasty_game, key_pool, tmp_path):
    gd, _reasons = nasty_game
    replay_page = tmp_path / "replay.html"
    replay_page.write_text(render_replay(build_replay(gd)), encoding="utf-8")
    table = Table.load(gd)
    player = table.game.pending(table.state)[0].player
    private = tmp_path / "private.html"
    private.write_bytes(opened_bytes(agecrypt.decrypt(gd.secrets_html_path(player).read_bytes(), key_pool[player])))
    assert 'id="pbem-click-data"' in private.read_text()
    assert vnu_errors(replay_page, private) == ""


PROBE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>probe</title></head><body>
<script type="application/json" id="probe-data">{{ data }}</script>
<p id="after">the rest of the page</p>
<script>
document.body.dataset.ran = "yes";
window.probe = JSON.parse(document.getElementById("probe-data").textContent);
</script>
</body></html>
"""
DANGER = ["<!--<script>", "</script>", "<!--", "-->", "\u2028", "\u2029", "</SCRIPT >", "<script>", "&amp;", "<>",
          NASTY]


def probe(browser, folder: Path, data_markup: Markup) -> dict:
    page = folder / "probe.html"
    page.write_text(_env("html", str(templates_dir())).from_string(PROBE).render(data=data_markup), encoding="utf-8")
    browser.get(page.as_uri())
    return browser.execute_script(
        "return {ran: document.body.dataset.ran || null, after: !!document.getElementById('after'),"
        " scripts: document.scripts.length, data: window.probe === undefined ? null : window.probe};")


def test_the_browser_reads_back_exactly_what_script_json_wrote(browser, tmp_path):
    data = {"list": DANGER, "joined": "".join(DANGER), "</script>": {"<!--": [1, None, True]},
            "z": "<!--<script>"}                                          # last: no "-->" after it
    env = _env("html", str(templates_dir()))
    got = probe(browser, tmp_path, env.filters["script_json"](data))
    assert got == {"ran": "yes", "after": True, "scripts": 2, "data": data}
    assert console_errors(browser) == []


def test_the_old_replay_escaping_lost_the_rest_of_the_page(browser, tmp_path):
    """Why: only ``</`` escaped, ``<!--<script>`` in a reason made the browser swallow the page."""
    data = {"frames": [["Entry 1", ["moderator: note - <!--<script>"], []]]}
    old = Markup(json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=True).replace("</", "<\\/"))
    got = probe(browser, tmp_path, old)
    assert got["ran"] is None and got["data"] is None and not got["after"]
