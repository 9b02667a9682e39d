"""Click to move in a real headless Chromium (Selenium; the `browser` fixture of tests/conftest.py).

A player's private digest, decrypted from the game folder and opened from a file:// URL: a whole
turn clicked on the board (the Atlantis set-up placement by keyboard; a whole Atlantis play turn
with moves, a tile removal and a creature order written ahead), the move file it shows and saves
signed with the real ssh-keygen and submitted with `pbem submit`: accepted.  At random points of
random games of every game, everything the page offers (found by clicking every highlighted space,
piece and button) is exactly the engine's legal actions, each one accepted.  No console errors;
vnu finds no error in a page with the panel; the public digest has no script.
"""
from __future__ import annotations

import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from click_helpers import page_data, page_nodes, page_places, random_point
from crypto_helpers import require_tool
from pipeline_helpers import PipelineGame, new_game
from pbem.base.yamlio import dump_flow
from pbem.cli.group import main
from pbem.core.draws import Draws
from pbem.core.picture import ActionPlaces
from pbem.core.rng import Rng
from pbem.core.engine import Rejected, apply_actions
from pbem.core.game import pending_players
from pbem.crypto import agecrypt
from pbem.store.gamedir import GameDir
from pbem.store.movefile import parse_move
from pbem.store.table import Table
from pbem.views.boardmoves import BoardHistory
from pbem.views.clickpage import SHOW_CAPS
from pbem.views.outputs import digest_context, opened_bytes
from pbem.views.render.digest import render_digest
from test_browser import vnu_errors

PLAYERS = ["red", "blue", "green"]


def private_page(gd: GameDir, player: str, key: Path, out: Path) -> Path:
    """The player's own digest page as they open it: decrypted with their key, gunzipped."""
    out.write_bytes(opened_bytes(agecrypt.decrypt(gd.secrets_html_path(player).read_bytes(), key)))
    return out


def console_errors(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def move_text(driver) -> str:
    return str(driver.find_element(By.ID, "pbem-move").get_attribute("value"))


def choices(driver, text: str):
    return [b for b in driver.find_elements(By.CSS_SELECTOR, "#pbem-choices button") if b.text == text]


def choose_option(select, index: int):
    """Choose the option at ``index`` of a single ``<select>`` as a user does and as Selenium's
    ``Select.select_by_index`` does (the option clicked, unless it is chosen already), and return it.
    ``select_by_index`` asks every option for its index and ``first_selected_option`` whether it is
    chosen, a round trip to the browser each (some 900 in the set-up test); an option's index is its
    place among the select's options, so this finds it at once, and the select's own value says
    what it holds now (the chosen option's value)."""
    option = select.find_elements(By.TAG_NAME, "option")[index]
    assert option.is_enabled(), "a disabled option cannot be chosen"
    if not option.is_selected():
        option.click()
    assert select.get_property("selectedIndex") == index
    return option


def space(driver, kind: str, label: str):
    """The highlighted space ``label`` (kind: pbem-pick, pbem-to) on the board."""
    found = [p for p in driver.find_elements(By.CSS_SELECTOR, f"svg.pbem-board polygon.{kind}")    # the attribute
             if p.get_dom_attribute("aria-label").split(":")[0] == label]    # as written (no script injected each)
    assert len(found) == 1, (kind, label)
    return found[0]


def sign_and_submit(gd: GameDir, move: Path, key: Path) -> str:
    subprocess.run([require_tool("ssh-keygen"), "-q", "-Y", "sign", "-n", "pbem-move", "-f", str(key), str(move)],
                   check=True, capture_output=True)
    result = CliRunner().invoke(main, ["submit", str(gd.root), str(move)])
    assert result.exit_code == 0, result.output
    return result.output


def saved(driver, folder: Path, name: str) -> Path:
    driver.find_element(By.ID, "pbem-save").click()
    path = folder / name
    for _ in range(100):
        if path.is_file() and path.stat().st_size:
            return path
        time.sleep(0.05)
    raise AssertionError(f"the page saved no {name} in {folder}: {sorted(folder.iterdir())}")


@pytest.fixture
def fresh_atlantis(tmp_path, key_pool) -> GameDir:
    return new_game(tmp_path / "game", "atlantis", key_pool, PLAYERS, seed=b"k" * 32)


def test_the_set_up_placement_clicked_by_keyboard_saved_signed_and_accepted(fresh_atlantis, key_pool, browser,
                                                                            tmp_path):
    gd = fresh_atlantis
    table = Table.load(gd)
    assert pending_players(table.game, table.state) == ["red"]
    page = private_page(gd, "red", key_pool["red"], tmp_path / "red.html")
    browser.get(page.as_uri())
    status = browser.find_element(By.ID, "pbem-status")
    assert "place one of your people" in status.text     # the family model (survive.js): the page fits
    assert "actions: []" in move_text(browser) and "player: red" in move_text(browser)

    r1 = choices(browser, "r1")[0]                 # off the board: the explorers to place
    r1.send_keys(Keys.ENTER)
    assert "r1 is picked" in status.text
    targets = browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board polygon.pbem-to")
    legal = {a["on"] for a in table.game.legal_actions(table.state, "red") if a["place"] == "r1"}
    assert {t.get_dom_attribute("aria-label").split(":")[0] for t in targets} == legal
    spot = sorted(legal)[0]
    space(browser, "pbem-to", spot).send_keys(Keys.ENTER)      # a space takes the keyboard too
    assert "Your part is done" in status.text
    browser.find_element(By.ID, "pbem-undo").click()            # undo, then again with the mouse
    assert "actions: []" in move_text(browser)
    choices(browser, "r1")[0].click()
    space(browser, "pbem-to", spot).click()
    text = move_text(browser)
    move = parse_move(text.encode())
    assert (move.game, move.player, move.after, move.actions) == (table.game_id, "red", 0, [{"place": "r1", "on": spot}])
    assert table.last["hash"].startswith(move.after_hash)

    path = saved(browser, tmp_path / "downloads", "move-1.yaml")
    assert path.read_text() == text
    browser.find_element(By.ID, "pbem-copy").click()            # to the clipboard, or the text selected
    note = browser.find_element(By.ID, "pbem-note")
    for _ in range(50):
        if note.text in ("copied", "select the text and copy it"):
            break
        time.sleep(0.05)
    assert note.text in ("copied", "select the text and copy it")
    sign_line = browser.find_element(By.CSS_SELECTOR, "#pbem-click code").text
    assert sign_line == "ssh-keygen -Y sign -n pbem-move -f ~/.ssh/id_ed25519 move-1.yaml"
    out = sign_and_submit(gd, path, key_pool["red"])
    assert out.startswith("accepted: red's move") and Table.load(gd).last["actions"] == [{"place": "r1", "on": spot}]
    assert console_errors(browser) == []


def plan_turn(game, state, player: str) -> list[tuple[dict, ActionPlaces, str]]:
    """A whole play turn, planned with the engine: {play: none} if asked, one or two moves of a
    piece on the board, done, a tile removal (where the move stops for the roll); each action with
    where it shows on the board and its words (the page's model must offer the same)."""
    state = game.copy_state(state)
    plan: list[tuple[dict, ActionPlaces, str]] = []

    def take(action: dict, apply: bool = True) -> None:
        places = game.action_places(game.view(state, player), player, [action])[0]
        plan.append((action, places, game.describe_action(action)))
        if apply:
            game.apply(state, player, action, Rng(b"plan", str(len(plan))))

    legal = game.legal_actions(state, player)
    if {"play": "none"} in legal:
        take({"play": "none"})
    for _ in range(2):
        view = game.view(state, player)
        moves = [a for a in game.legal_actions(state, player) if "move" in a
                 and game.action_places(view, player, [a])[0].from_cell]
        if not moves:
            break
        take(moves[0])
    take({"done": "move"})
    removals = [a for a in game.legal_actions(state, player) if "remove" in a]
    assert removals, "the turn reaches no tile removal"
    take(removals[0], apply=False)
    return plan


@pytest.fixture
def atlantis_play_turn(tmp_path, key_pool) -> tuple[GameDir, str]:
    """An Atlantis game played by bots to the start of a player's turn in the play phase."""
    gd = new_game(tmp_path / "game", "atlantis", key_pool, PLAYERS, seed=b"t" * 32)
    game = PipelineGame(gd)          # the bots' moves: logged by submit's own functions, published once at the turn
    for _ in range(200):
        view = game.table.game.view(game.table.state, None)
        if view["phase"] == "play" and view["turn"]["step"] in ("play-tile", "move") and not view["turn"]["moves"]:
            game.publish()
            return gd, view["turn"]["player"]
        mv = game.bot_move(key_pool, b"turn-bot")
        assert mv is not None
        game.take(*mv)
    raise AssertionError("no play turn")


@pytest.mark.slow(seconds=10)
def test_a_whole_play_turn_clicked_on_the_board_signed_and_accepted(atlantis_play_turn, key_pool, browser, tmp_path):
    """The page the player makes on their copy of the game (`pbem show --as P --key K --format
    html`): the mailed one may hold fewer of the follow-up choices, to keep the mail small."""
    gd, player = atlantis_play_turn
    table = Table.load(gd)
    copy = tmp_path / "copy"                             # the player's copy: no moderator folder, no seed
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))
    made = CliRunner().invoke(main, ["show", str(copy), "--as", player, "--key", str(key_pool[player]),
                                     "--format", "html"])
    assert made.exit_code == 0, made.output
    page = tmp_path / f"{player}.html"
    page.write_text(made.output)
    data = page_data(page.read_text())
    plan = plan_turn(table.game, table.state, player)
    texts = [dump_flow(action) for action, _, _ in plan]
    browser.get(page.as_uri())
    status = browser.find_element(By.ID, "pbem-status")
    for (action, place, words), text in zip(plan, texts):
        if place.piece and place.to_cell:                        # a move: the piece, then where it goes
            space(browser, "pbem-pick", place.from_cell).click()
            if choices(browser, "pick " + place.piece):          # more than one piece there
                choices(browser, "pick " + place.piece)[0].click()
            assert f"{place.piece} is picked" in status.text
            space(browser, "pbem-to", place.to_cell).click()
            if choices(browser, words):                          # more than one way there
                choices(browser, words)[0].click()
        elif place.tile:                                         # a tile taken
            space(browser, "pbem-pick", place.tile).click()
        else:                                                    # a button: {play: none}, {done: move}
            buttons = choices(browser, words)
            assert buttons, (words, [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#pbem-choices button")])
            buttons[0].click()
        assert move_text(browser).rstrip().endswith("  - " + text), (text, move_text(browser))
    assert "depends on a die roll" in status.text, status.text
    browser.save_screenshot(str(tmp_path / "turn.png"))
    from test_click_pickers_browser import hidden_counts
    hidden, marks, counts = hidden_counts(browser)      # the step numbers hide no piece's letter, nor each other
    assert not hidden and marks >= len(plan) - 2 and counts, hidden
    assert not browser.execute_script(
        "const b = [...document.querySelectorAll('svg.pbem-board .pbem-num')].map((e) => e.getBoundingClientRect());"
        "return b.some((x, i) => b.some((y, j) => i < j && x.left < y.right && y.left < x.right"
        " && x.top < y.bottom && y.top < x.bottom));")

    ahead = browser.find_elements(By.CSS_SELECTOR, "#pbem-ahead select")   # step 4 written ahead
    assert ahead, "no creature orders to write ahead"
    faces = {}
    for select in ahead:
        choose_option(select, len(select.find_elements(By.TAG_NAME, "option")) - 1)
        faces[select.get_attribute("id").rsplit("-", 1)[1]] = select.get_property("value")
    order = "{creature: {" + ", ".join(f"{face}: {value}" for face, value in faces.items()) + "}}"
    text = move_text(browser)
    expected = data["head"] + "actions:\n" + "".join(f"  - {t}\n" for t in texts) + f"  - {order}\n"
    assert text == expected
    move = parse_move(text.encode())
    assert move.player == player and move.after == table.last["index"]

    path = saved(browser, tmp_path / "downloads", f"move-{table.last['index'] + 1}.yaml")
    assert path.read_text() == text
    out = sign_and_submit(gd, path, key_pool[player])
    assert out.startswith(f"accepted: {player}'s move")
    logged = Table.load(gd).last
    assert logged["actions"][:len(plan)] == move.actions[:len(plan)]
    assert console_errors(browser) == []

    assert "<script" not in (gd.public_dir / "digest.html").read_text()      # the public digest: no script
    assert vnu_errors(page) == ""


# --- everything offered is legal, everything legal is offered ------------------------------------

EXPLORE = """
const out = [];
const move = () => document.getElementById("pbem-move").value;
const reset = () => {
  document.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape"}));
  document.getElementById("pbem-reset").click();
};
const start = (reset(), move());
const buttons = () => [...document.querySelectorAll("#pbem-choices button")].filter(
  (b) => b.textContent !== "Cancel" && !b.textContent.startsWith("Cancel ") && !b.matches(".pbem-less, .pbem-more"));
const fields = () => [...document.querySelectorAll("#pbem-choices input.pbem-count-n")];
const put = (k, v) => { const f = fields()[k]; f.value = String(v); f.dispatchEvent(new Event("input")); };
const spaces = (kind) => [...document.querySelectorAll("svg.pbem-board polygon." + kind)];
const label = (el) => el.getAttribute("aria-label").split(":")[0];
function replay(steps) { reset(); for (const s of steps) { s(); } }
function explore(steps) {
  replay(steps);
  if (move() !== start) { const lines = move().trimEnd().split("\\n"); out.push(lines[lines.length - 1].slice(4)); return; }
  const here = [];
  buttons().forEach((b, k) => here.push(() => buttons()[k].click()));
  fields().forEach((f, k) => {     // a number picker: each number of one field that gives an action, then take it
    const was = f.value;
    for (let v = Number(f.min); v <= Number(f.max); v++) {
      put(k, v);
      if (!document.getElementById("pbem-count-take").disabled) { here.push(() => { put(k, v); document.getElementById("pbem-count-take").click(); }); }
    }
    put(k, was);
  });
  for (const kind of ["pbem-pick", "pbem-to"]) {
    for (const el of spaces(kind)) {
      const c = label(el);
      here.push(() => spaces(kind).find((e) => label(e) === c).dispatchEvent(new MouseEvent("click", {bubbles: true})));
    }
  }
  if (steps.length < 4) { for (const step of here) { explore(steps.concat([step])); } }
}
explore([]);
reset();
return out;
"""

POINTS = [  # game, players, options, seed, decisions made before the look
    ("atlantis", ["red", "blue"], {}, b"e1" * 16, 0),
    ("atlantis", ["red", "blue", "green"], {}, b"e2" * 16, 60),
    ("atlantis", ["red", "blue"], {"dolphins": "yes", "defense": "ask"}, b"e3" * 16, 45),
    ("atlantis-1986", ["red", "blue", "green"], {}, b"e4" * 16, 50),
    ("space-attack", ["red", "blue", "green"], {}, b"e5" * 16, 70),
    ("space-attack", ["red", "blue"], {}, b"e6" * 16, 8),
    ("space-swarm", ["red", "blue", "green"], {}, b"e7" * 16, 0),
    ("space-swarm", ["red", "blue"], {}, b"e8" * 16, 25),
]


@pytest.mark.slow(seconds=40)
def test_the_page_offers_exactly_the_legal_actions_at_random_points(tmp_path, key_pool, browser):
    browser.set_script_timeout(300)      # clicking every space of a page is slow on a loaded machine
    for name, players, options, seed, steps in POINTS:
        gd = new_game(tmp_path / f"{name}-{steps}", name, key_pool, players, seed=seed, options=options)
        table = Table.load(gd)
        point = random_point(table.game, players, options, seed, steps, random.Random(seed))
        assert point is not None
        table.state, player = table.game.copy_state(point[0]), point[1]
        ctx = digest_context(table, player, history=BoardHistory(table, []), clicks=SHOW_CAPS)   # as pbem show
        html = render_digest(ctx, "html").encode()
        page = tmp_path / f"{name}-{steps}.html"
        page.write_bytes(html)
        browser.get(page.as_uri())
        shown = browser.execute_script(
            "return [...document.querySelectorAll('#pbem-choices button, #pbem-all option, #pbem-status')]"
            ".map((e) => e.textContent);")
        assert shown and not [t for t in shown if "{" in t or "[" in t], (name, steps, shown)   # words, not syntax
        offered = browser.execute_script(EXPLORE)
        legal = [dump_flow(a) for a in table.game.legal_actions(point[0], player)]
        if page_data(html.decode())["family"] == "swarm":    # its number pickers offer other counts too
            assert set(legal) <= set(offered), (name, steps, set(legal) - set(offered))
        else:
            assert sorted(set(offered)) == sorted(legal), (name, steps, set(offered) ^ set(legal))
        for text in set(offered):
            action = parse_move(f"{data_head(html)}actions:\n  - {text}\n".encode()).actions
            try:
                apply_actions(table.game, table.game.copy_state(point[0]), player, action, Draws(seed, "check"))
            except Rejected as exc:
                raise AssertionError(f"{name}: the page offers {text}, which the engine refuses: {exc}") from None
        assert console_errors(browser) == [], name


def data_head(html: bytes) -> str:
    return str(page_data(html.decode())["head"])


def test_a_game_with_a_turn_model_gets_its_page_worked_out_in_the_browser(tmp_path, key_pool, browser, monkeypatch):
    """A game whose Game.turn_model gives a model: the page carries that family's script and data
    (here the generic model's, given as a family model would be), builds no graph on the
    moderator's side, says on opening whether it holds the whole turn (data-choices), offers
    exactly the legal actions, moves the piece on the board as it is clicked, and Undo puts it back."""
    from pbem.core.turnmodel import TurnModel
    from pbem.views import clickpage
    from pbem.views.choicegraph import build_graph
    from pbem.views.clickpage import graph_choices, graph_model

    name, players, options, seed = "atlantis", ["red", "blue", "green"], {}, b"e2" * 16
    gd = new_game(tmp_path / "game", name, key_pool, players, seed=seed, options=options)
    table = Table.load(gd)
    for steps in range(40, 140):        # a decision with a piece to move
        point = random_point(table.game, players, options, seed, steps, random.Random(seed))
        assert point is not None
        graph = build_graph(table.game, point[0], point[1], SHOW_CAPS)
        assert graph is not None
        if any(m.startswith("{move:") for m in (graph.texts[a] for a in graph.nodes[0].actions)):
            break
    table.state, player = table.game.copy_state(point[0]), point[1]
    data = graph_model(table.game, table.game.view(point[0], player), graph)
    monkeypatch.setattr(table.game, "turn_model", lambda view, who: TurnModel("graph", data))
    monkeypatch.setattr(clickpage, "build_graph", lambda *a, **k: (_ for _ in ()).throw(AssertionError("no graph")))
    ctx = digest_context(table, player, history=BoardHistory(table, []), clicks=SHOW_CAPS)
    page = tmp_path / "page.html"
    page.write_bytes(render_digest(ctx, "html").encode())
    browser.get(page.as_uri())
    panel = browser.find_element(By.ID, "pbem-click")
    assert panel.get_attribute("data-family") == "graph"
    assert panel.get_attribute("data-choices") == graph_choices(graph)       # worked out on opening
    offered = browser.execute_script(EXPLORE)
    legal = [dump_flow(a) for a in table.game.legal_actions(point[0], player)]
    assert sorted(set(offered)) == sorted(legal)
    # a move clicked: the piece is drawn where it goes, its old drawing faded; Undo puts it back
    shown = page_data(page.read_text())
    first = page_nodes({**shown, **shown["model"]})[0]
    places = page_places({**shown, **shown["model"]})
    piece, to, _tile = next(places[a] for a in first.acts if places[a] and places[a][0] and places[a][1]
                            and first.at.get(places[a][0]))
    click = "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}));"
    browser.execute_script(click, space(browser, "pbem-pick", first.at[piece]))
    if choices(browser, "pick " + piece):
        choices(browser, "pick " + piece)[0].click()
    browser.execute_script(click, space(browser, "pbem-to", to))
    if "which one" in browser.find_element(By.ID, "pbem-choices").text:
        browser.find_elements(By.CSS_SELECTOR, "#pbem-choices button")[0].click()
    moving = browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board g.pbem-moving")
    assert len(moving) == 1 and moving[0].find_element(By.TAG_NAME, "title").get_attribute("textContent")
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board g.pbem-gone")) == 1
    history = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#pbem-history li")]
    assert len(history) == 1 and to in history[0]
    browser.find_element(By.ID, "pbem-undo").click()
    assert browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board g.pbem-moving") == []
    assert browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board g.pbem-gone") == []
    assert browser.find_elements(By.CSS_SELECTOR, "#pbem-history li") == []
    assert console_errors(browser) == []

