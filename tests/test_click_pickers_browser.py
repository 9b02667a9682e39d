"""The page's last pieces (issue 21), in a real headless Chromium: Space Swarm's number pickers (a
turn that produces a split and moves part of a stack, signed with the real ssh-keygen and accepted
by `pbem submit`), fleet counts never hidden by the marks the page draws, and a crowded Survive
space listed piece by piece."""
from __future__ import annotations

import random
import shutil

from click.testing import CliRunner
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from click_helpers import page_data
from pipeline_helpers import PipelineGame, new_game
from pbem.cli.group import main
from pbem.core.draws import Draws
from pbem.core.engine import apply_actions
from pbem.core.game import pending_players
from pbem.core.rng import Rng
from pbem.store.movefile import parse_move
from pbem.store.table import Table
from pbem.views.boardmoves import BoardHistory
from pbem.views.clickpage import SHOW_CAPS
from pbem.views.outputs import digest_context
from pbem.views.render.digest import render_digest
from test_click_browser import choices, console_errors, move_text, saved, sign_and_submit, space

HIDDEN_COUNTS = """
const box = (e) => e.getBoundingClientRect();
const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const seen = (t) => !t.closest('.pbem-gone') && !t.closest('[opacity="0"]');
const counts = [...document.querySelectorAll('svg.pbem-board text.pbem-pt')].filter(seen);
const marks = [...document.querySelectorAll('svg.pbem-board .pbem-num, svg.pbem-board .pbem-dot, svg.pbem-board .pbem-crowd-mark, svg.pbem-board g.pbem-moving')];
const out = [];
for (const m of marks) { for (const t of counts) { if (!m.contains(t) && meet(box(m), box(t))) { out.push(m.getAttribute('class') + ' over ' + t.textContent); } } }
return [out, marks.length, counts.length];
"""


def hidden_counts(driver) -> tuple[list[str], int, int]:
    """Marks (step numbers, destination dots, list marks, moved pieces) whose box meets a piece's
    count or letter that is still shown; and how many marks and counts there were."""
    out, marks, counts = driver.execute_script(HIDDEN_COUNTS)
    return out, marks, counts


def picker_row(driver, label: str):
    rows = [p for p in driver.find_elements(By.CSS_SELECTOR, "fieldset.pbem-count p")
            if p.find_elements(By.TAG_NAME, "label") and p.find_element(By.TAG_NAME, "label").text.strip() == label]
    assert len(rows) == 1, (label, [p.text for p in driver.find_elements(By.CSS_SELECTOR, "fieldset.pbem-count p")])
    return rows[0]


def swarm_turn_start(tmp_path, key_pool):
    """A 2-player Space Swarm game played by random bots to a player's Development Phase with two
    stacks or more and a production of two or more."""
    from pbem.rules.spaceswarm.production import production
    gd = new_game(tmp_path / "game", "space-swarm", key_pool, ["red", "blue"], seed=b"w" * 32)
    game = PipelineGame(gd)
    for _ in range(300):
        state = game.table.state
        pending = game.table.game.pending(state)
        if pending and pending[0].kind == "develop":
            p = pending[0].player
            if len(state.fleets[p]) >= 2 and production(state, p) >= 2:
                game.publish()
                return gd, p
        mv = game.bot_move(key_pool, b"swarm-bot")
        assert mv is not None
        game.take(*mv)
    raise AssertionError("no turn with two stacks")


def test_a_space_swarm_turn_with_a_split_production_and_part_of_a_stack_moved(tmp_path, key_pool, browser):
    gd, player = swarm_turn_start(tmp_path, key_pool)
    table = Table.load(gd)
    game, state = table.game, table.game.copy_state(table.state)
    copy = tmp_path / "copy"            # the page the player makes on their copy (the mailed one may leave
    shutil.copytree(gd.root, copy, ignore=shutil.ignore_patterns("moderator"))   # the panel out, to stay small)
    made = CliRunner().invoke(main, ["show", str(copy), "--as", player, "--key", str(key_pool[player]), "--format", "html"])
    assert made.exit_code == 0, made.output
    page = tmp_path / "page.html"
    page.write_text(made.output)
    browser.get(page.as_uri())
    status = browser.find_element(By.ID, "pbem-status")

    def engine_take(action: dict) -> None:
        apply_actions(game, state, player, [action], Draws(b"plan", str(len(move_text(browser)))))

    choices(browser, "Place no Technology card")[0].click()
    engine_take({"develop": "none"})
    if game.pending(state)[0].kind == "discard":
        first = game.legal_actions(state, player)[0]
        [b for b in browser.find_elements(By.CSS_SELECTOR, "#pbem-choices button") if b.text.startswith("Discard")][0].click()
        engine_take(first)
    assert game.pending(state)[0].kind == "produce"
    stacks = [game.view(state, player)["stacks"][player]]
    labels = sorted(stacks[0])
    from pbem.rules.spaceswarm.production import production
    total = production(state, player)
    a, b = labels[0], labels[1]

    # production: the stack's space opens the picker, all new fleets on it; one moved to another stack
    space(browser, "pbem-pick", a).click()
    inputs = browser.find_elements(By.CSS_SELECTOR, "fieldset.pbem-count input.pbem-count-n")
    assert len(inputs) == len(labels)
    assert [(i.get_attribute("min"), i.get_attribute("max"), i.get_attribute("value")) for i in inputs] == \
        [("0", str(total), str(total) if label == a else "0") for label in labels]
    assert browser.switch_to.active_element == inputs[0]                  # the keyboard is in the picker
    picker_row(browser, f"New fleets at {b}").find_element(By.CSS_SELECTOR, "button.pbem-more").click()
    take = browser.find_element(By.ID, "pbem-count-take")
    assert take.get_attribute("disabled") and "do not go together" in take.text   # total + 1: refused
    picker_row(browser, f"New fleets at {a}").find_element(By.CSS_SELECTOR, "button.pbem-less").click()
    split = {a: total - 1, b: 1}
    assert take.text == f"New fleets: {total - 1} at {a}, 1 at {b}" and not take.get_attribute("disabled")
    take.click()
    assert move_text(browser).rstrip().endswith("- {produce: {" + f"{a}: {total - 1}, {b}: 1" + "}}"), move_text(browser)
    engine_take({"produce": split})
    relabelled = browser.execute_script(
        "return [...document.querySelectorAll('svg.pbem-board g.pbem-relabel text.pbem-pt')].map((t) => t.textContent);")
    now = game.view(state, player)["stacks"][player]
    assert sorted(relabelled) == sorted(str(now[c]) for c in (a, b))           # the board shows the new counts

    # a move: part of the biggest stack, by the keyboard in the picker
    big = max(now, key=lambda c: (now[c], c))
    assert now[big] >= 2
    space(browser, "pbem-pick", big).click()
    assert f"is picked" in status.text
    hidden, marks, counts = hidden_counts(browser)
    assert not hidden and marks and counts, hidden                              # destination dots beside counts
    moves = [x for x in game.legal_actions(state, player) if x.get("move") == big and "fleets" not in x]
    target = moves[-1]
    space(browser, "pbem-to", target["path"][-1]).click()
    if "which one" in browser.find_element(By.ID, "pbem-choices").text:
        browser.find_elements(By.CSS_SELECTOR, "#pbem-choices button")[0].click()
    field = browser.find_element(By.CSS_SELECTOR, "fieldset.pbem-count input.pbem-count-n")
    assert (field.get_attribute("min"), field.get_attribute("max"), field.get_attribute("value")) == \
        ("1", str(now[big]), str(now[big]))
    field.send_keys(Keys.ARROW_DOWN)
    field.send_keys(Keys.ENTER)
    part = {**target, "fleets": now[big] - 1}
    assert move_text(browser).rstrip().split("\n")[-1] == "  - {move: " + big + ", path: [" + ", ".join(target["path"]) \
        + "], fleets: " + str(now[big] - 1) + "}", move_text(browser)
    engine_take(part)
    hidden, marks, counts = hidden_counts(browser)
    assert not hidden and marks >= 2 and counts, hidden                        # the step's number, the moved stack

    choices(browser, "End the Move Phase")[0].click()
    engine_take({"done": "move"})
    if game.pending(state) and game.pending(state)[0].player == player and game.pending(state)[0].kind == "attack":
        choices(browser, "Fight the battles")[0].click()
    assert browser.find_element(By.ID, "pbem-click").get_attribute("data-now") in ("stop", "done"), status.text
    text = move_text(browser)
    move = parse_move(text.encode())
    assert move.actions[0] == {"develop": "none"} and {"produce": split} in move.actions and part in move.actions
    path = saved(browser, tmp_path / "downloads", f"move-{table.last['index'] + 1}.yaml")
    out = sign_and_submit(gd, path, key_pool[player])
    assert out.startswith(f"accepted: {player}'s move"), out
    logged = gd.entries()[table.last["index"] + 1]
    assert logged["player"] == player and logged["actions"][:len(move.actions)] == move.actions
    assert console_errors(browser) == []


OPEN = {"memory": "open"}      # the players see their own explorers' values all game


def crowded_point() -> tuple[object, object, str, str, int]:
    """An Atlantis game played by random actions to a decision where the player's board has a space
    with more than three pieces (a ship with people aboard and a swimmer beside, say)."""
    from pbem.core.registry import load_game
    game = load_game("atlantis")
    players = ["red", "blue", "green"]
    for seed in range(3, 12):
        rnd = random.Random(seed)
        state = game.setup(players, game.resolve_options(OPEN, players), Rng(b"%d" % seed * 8, "setup"))
        for n in range(400):
            pending = pending_players(game, state)
            if not pending:
                break
            p = pending[0]
            view = game.view(state, p)
            board = game.board_picture(view)
            assert board is not None
            crowd = [(c.label, len(every)) for c in board.cells
                     if len(every := [x for p in c.pieces for x in [p, *p.passengers]]) > 3
                     and any(x.value is not None for x in every)]        # the player's own among them
            if crowd and game.turn_model(view, p) is not None:
                return game, state, p, crowd[0][0], crowd[0][1]
            apply_actions(game, state, p, [rnd.choice(game.legal_actions(state, p))], Draws(b"x", f"r/{n}"))
    raise AssertionError("no crowded space")


def test_a_crowded_space_lists_each_piece_on_hover_and_click(tmp_path, key_pool, browser):
    game, state, player, cell, n = crowded_point()
    gd = new_game(tmp_path / "game", "atlantis", key_pool, ["red", "blue", "green"], seed=b"c" * 32, options=OPEN)
    table = Table.load(gd)
    table.state = game.copy_state(state)
    ctx = digest_context(table, player, history=BoardHistory(table, []), clicks=SHOW_CAPS)
    page = tmp_path / "crowd.html"
    page.write_bytes(render_digest(ctx, "html").encode())
    browser.get(page.as_uri())
    data = page_data(page.read_text())
    assert data["family"] == "survive"
    marks = [m for m in browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board g.pbem-crowd-mark")
             if m.get_dom_attribute("aria-label").split(":")[0] == cell]
    assert len(marks) == 1
    box = browser.find_element(By.ID, "pbem-crowd") if browser.find_elements(By.ID, "pbem-crowd") else None
    assert box is None or not box.is_displayed()
    ActionChains(browser).move_to_element(marks[0]).perform()               # hover: the list
    box = browser.find_element(By.ID, "pbem-crowd")
    assert box.is_displayed()
    items = [li.get_attribute("textContent") for li in box.find_elements(By.CSS_SELECTOR, "li")]
    assert len(items) == n, items
    view = game.view(state, player)
    board = game.board_picture(view)
    pieces = [x for c in board.cells if c.label == cell for p in c.pieces for x in [p, *p.passengers]]
    for piece in pieces:
        line = next(t for t in items if t.split(":")[0].strip() == piece.handle)
        if piece.value is not None:                 # a value the player may see: shown
            assert f"value {piece.value}" in line, line
        else:
            assert "value" not in line, line
        owner = piece.handle[0]               # r5: red's, whose colour names the piece
        if piece.shape == "person":
            assert {"r": "red", "b": "blue", "g": "green"}[owner] + " person" in line, line
    assert any(p.value is not None for p in pieces)
    assert hidden_counts(browser)[0] == []
    away = browser.find_element(By.TAG_NAME, "h1")
    ActionChains(browser).move_to_element(away).perform()                    # away: gone
    assert not box.is_displayed()
    marks[0].click()                                                          # a click keeps it, with Close
    assert box.is_displayed() and box.find_elements(By.XPATH, ".//button[text()='Close']")
    ActionChains(browser).move_to_element(away).perform()
    assert box.is_displayed()
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    assert not box.is_displayed()
    marks[0].send_keys(Keys.ENTER)                                            # and by the keyboard
    assert box.is_displayed()
    assert console_errors(browser) == []
