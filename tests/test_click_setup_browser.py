"""Set-up in one message, in a real headless Chromium: each Atlantis player lays out their whole
set-up on their page as a preference list, reorders it, and sends it in one message.  Every
Survive game's set-up page (and its turns) speaks that game's words: its prompt, the pieces to
place with the player's own values and where they are (off the board), in their order, and no
bare ``{}`` for secrets a game does not have."""
from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By

from click_helpers import page_data
from pipeline_helpers import new_game, turn_position
from pbem.base.yamlio import dump_flow
from pbem.core.game import pending_players
from pbem.store.movefile import parse_move
from pbem.store.table import Table
from test_click_browser import PLAYERS, console_errors, fresh_atlantis, move_text, private_page, saved  # noqa: F401
from test_click_browser import choices, choose_option, sign_and_submit, space
from test_click_words import SYNTAX, foreign_words

SURVIVE_GAMES = ["atlantis", "atlantis-1986", "space-attack"]


@pytest.mark.slow(seconds=15)
def test_a_whole_atlantis_set_up_in_one_message_per_player(fresh_atlantis, key_pool, browser, tmp_path):
    """Each player, when first asked to place, lays out every placement of their set-up on the page
    (a piece and a space each, best first), reorders them, and sends them as one preference list;
    the engine places the rest of their pieces from it: one message per player for the whole set-up."""
    gd = fresh_atlantis
    messages = {p: 0 for p in PLAYERS}
    for _round in range(3 * len(PLAYERS)):
        table = Table.load(gd)
        if not placing(table):
            break
        player = pending_players(table.game, table.state)[0]
        page = private_page(gd, player, key_pool[player], tmp_path / f"{player}-{_round}.html")
        browser.get(page.as_uri())
        assert 'id="pbem-click-data"' in page.read_text(), (_round, player, len(page.read_text()),
                                                             table.game.legal_actions(table.state, player)[:2],
                                                             [e.get("actions") for e in gd.entries()[-2:]])
        groups = page_data(page.read_text())["setup"]["groups"]
        assert groups and all(g["words"] for g in groups)
        plan_every_piece(browser, groups, stride=7)
        lists = browser.find_elements(By.CSS_SELECTOR, "ol.pbem-plan")
        entries = lists[0].find_elements(By.TAG_NAME, "li")
        assert len(entries) == len(groups[0]["pieces"]) and "{" not in entries[0].text
        second = entries[1].text
        entries[1].find_element(By.XPATH, "./button[text()='Up']").click()      # reordered: the second first
        assert lists[0].find_elements(By.TAG_NAME, "li")[0].text == second
        text = move_text(browser)
        move = parse_move(text.encode())
        assert len(move.actions) == 1 and sorted(move.actions[0]) == ["keep", "prefer"]
        prefer = move.actions[0]["prefer"]
        assert len(prefer) <= 100 and dump_flow(prefer[0]) in text
        assert console_errors(browser) == []
        path = saved(browser, tmp_path / "downloads", f"move-{table.last['index'] + 1}.yaml")
        sign_and_submit(gd, path, key_pool[player])
        messages[player] += 1
    assert not placing(Table.load(gd)), "the set-up is not over"
    assert messages == {p: 1 for p in PLAYERS}, messages


def test_a_placement_clicked_on_the_board_stays_in_the_move_beside_the_set_up_list(fresh_atlantis, key_pool, browser,
                                                                                   tmp_path):
    """A player who places the piece asked for now on the board and then lays out the rest of their
    set-up as a list sends both: the placement clicked (it answers the decision now), then the list
    for the decisions to come.  The page's "your part is done" and its steps say the clicked
    placement: the move file must hold it too, not the list alone."""
    gd = fresh_atlantis
    page = private_page(gd, "red", key_pool["red"], tmp_path / "red.html")
    browser.get(page.as_uri())
    groups = page_data(page.read_text())["setup"]["groups"]
    choices(browser, "r10")[0].click()
    spot = groups[0]["spots"][3]
    space(browser, "pbem-to", spot).click()
    pieces = browser.find_element(By.ID, "pbem-plan-0-piece")
    choose_option(pieces, 0)                                            # r1, on the first space
    browser.find_element(By.ID, "pbem-plan-0-add").click()
    move = parse_move(move_text(browser).encode())
    assert move.actions[0] == {"place": "r10", "on": spot}, move.actions
    assert [sorted(a) for a in move.actions[1:]] == [["keep", "prefer"]], move.actions
    assert console_errors(browser) == []
    path = saved(browser, tmp_path / "downloads", "move-1.yaml")
    output = sign_and_submit(gd, path, key_pool["red"])
    assert f"red places r10 on {spot}" in output, output


def test_a_set_up_list_keeps_the_later_placements_for_their_turn(fresh_atlantis, key_pool, browser, tmp_path):
    """A list that gives the ships their places and not every explorer (QA: such a list lost the
    ships at the first explorer it could not place): the page sends it with ``keep: true``, the
    moderator takes it, asks the player for the explorer, and keeps the ship's place for the ships'
    turn.  The page says the list is read by the other players once taken (unsealed)."""
    gd = fresh_atlantis
    table = Table.load(gd)
    player = pending_players(table.game, table.state)[0]
    page = private_page(gd, player, key_pool[player], tmp_path / "plan.html")
    browser.get(page.as_uri())
    groups = page_data(page.read_text())["setup"]["groups"]
    assert len(groups) == 2, [g["kind"] for g in groups]                  # the explorers, then the ships
    setup_text = browser.find_element(By.ID, "pbem-setup").text
    assert "the other players can read it" in setup_text and "pbem seal" in setup_text
    browser.find_element(By.ID, "pbem-plan-1-add").click()                 # a ship's place, and no explorer's
    move = parse_move(move_text(browser).encode())
    assert [sorted(a) for a in move.actions] == [["keep", "prefer"]] and move.actions[0]["keep"] is True
    ship = move.actions[0]["prefer"][0]
    assert console_errors(browser) == []
    path = saved(browser, tmp_path / "downloads", f"move-{table.last['index'] + 1}.yaml")
    sign_and_submit(gd, path, key_pool[player])
    after = Table.load(gd)
    assert player in pending_players(after.game, after.state)              # asked for the explorer
    assert after.prefs.of(player)[0] == ship                               # the ship's place waits


def test_a_click_on_a_space_without_a_choice_says_so(fresh_atlantis, key_pool, browser, tmp_path):
    """A space that holds no choice now answers a click with a line, not nothing (QA), and a piece
    picked says where it cannot go."""
    gd = fresh_atlantis
    table = Table.load(gd)
    player = pending_players(table.game, table.state)[0]
    page = private_page(gd, player, key_pool[player], tmp_path / "nochoice.html")
    browser.get(page.as_uri())
    spots = set(page_data(page.read_text())["setup"]["groups"][0]["spots"])
    labels = [e.get_attribute("textContent")
              for e in browser.find_elements(By.CSS_SELECTOR, "svg.pbem-board g.pbem-cell .pbem-label")]
    free = next(label for label in labels if label not in spots)         # the sea: no explorer goes there
    cell = browser.find_element(By.XPATH, "//*[local-name()='g'][contains(@class, 'pbem-cell')]"
                                          f"[*[local-name()='text'][text()='{free}']]")
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", cell)
    assert browser.find_element(By.ID, "pbem-note").text.startswith(f"No choice on {free} now"), free
    choices(browser, "r10")[0].click()                                    # a piece picked: where it cannot go
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", cell)
    assert browser.find_element(By.ID, "pbem-note").text == (f"r10 cannot go to {free}: the spaces with a dot "
                                                             "are where it can go.")
    assert console_errors(browser) == []


def plan_every_piece(browser, groups: list[dict], stride: int) -> int:
    """On a set-up page's "Your whole set-up in one message": add every piece of every group to the
    plan, each on a space not taken yet (picked by ``stride`` through the free ones); the number added."""
    added = 0
    for gi, group in enumerate(groups):
        pieces = browser.find_element(By.ID, f"pbem-plan-{gi}-piece")
        spots = browser.find_element(By.ID, f"pbem-plan-{gi}-space")
        taken: set[int] = set()
        for k, _piece in enumerate(group["pieces"]):
            choose_option(pieces, k)
            free = [s for s in range(len(group["spots"])) if s not in taken]
            choose_option(spots, free[(k * stride + len(taken)) % len(free)])
            taken.add(int(spots.get_property("value")))
            browser.find_element(By.ID, f"pbem-plan-{gi}-add").click()
            added += 1
    return added


def placing(table: Table) -> bool:
    """Is the player to move placing pieces from off the board (a set-up round)?"""
    from pbem.views.setupplan import is_placement_round
    pending = pending_players(table.game, table.state)
    if not pending:
        return False
    legal = table.game.legal_actions(table.state, pending[0])
    view = table.game.view(table.state, pending[0])
    return is_placement_round(table.game.action_places(view, pending[0], legal[:1]))


def off_board_label(handle: str, values: dict[str, int]) -> str:
    """How the page names a piece still to be placed: its handle, the player's own value (where the
    game gives its people values), off the board."""
    return handle + (f" (value {values[handle]})" if handle in values else "") + ", off the board"


def handle_number(handle: str) -> int:
    return int(re.sub(r"\D", "", handle))


@pytest.mark.slow(seconds=10)
@pytest.mark.parametrize("name", SURVIVE_GAMES)
def test_each_survive_set_up_page_in_its_own_words(name, key_pool, browser, tmp_path):
    """The first set-up page of each Survive game: the status says the game's own words (its prompt
    for the placement, none of another game's); the set-up in one message's labels hold no move-file
    syntax; each piece to place reads with the player's own value (where the game has values) and
    "off the board", the page's buttons for them in their number's order (r2 before r10) with the
    same title; a game with no secrets says so in words, not ``{}``."""
    gd = new_game(tmp_path / "game", name, key_pool, PLAYERS, seed=b"w" * 32)
    table = Table.load(gd)
    player = pending_players(table.game, table.state)[0]
    rules = table.game.rules(table.state)
    secrets = table.game.secrets(table.state, player)
    values = {h: v for h, v in secrets.get(rules.word("values key"), {}).items()}
    page = private_page(gd, player, key_pool[player], tmp_path / f"{name}.html")
    browser.get(page.as_uri())
    status = browser.find_element(By.ID, "pbem-status").text
    assert foreign_words(name, status) == [] and not any(c in status for c in SYNTAX), status

    groups = page_data(page.read_text())["setup"]["groups"]
    labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#pbem-setup fieldset > p > span") if e.text]
    assert len(labels) == len(groups) and all(not any(c in t for c in SYNTAX) for t in labels), labels
    options = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#pbem-plan-0-piece option")]
    assert options == [off_board_label(h, values) for h in groups[0]["pieces"]], options
    assert (name == "atlantis-1986") == (not values)           # the 1986 villagers all count alike

    buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "#pbem-choices p button")]
    handles = [b.text for b in buttons]
    assert len(handles) >= 10 and handles == sorted(handles, key=handle_number), handles
    assert [b.get_attribute("title") for b in buttons] == [off_board_label(h, values) for h in handles]

    secret = browser.find_element(By.CSS_SELECTOR, "section.secret").text
    if not secrets:
        assert "You hold no secrets now." in secret and "{}" not in secret, secret
    else:
        assert browser.find_elements(By.CSS_SELECTOR, "section.secret pre")
    assert status == rules.model_prompts(table.state)["setup-place"], status      # the game's words for it
    assert console_errors(browser) == []


@pytest.mark.slow(seconds=10)
@pytest.mark.parametrize("name", SURVIVE_GAMES)
def test_each_survive_turn_page_in_its_own_words(name, key_pool, browser, tmp_path):
    """Well into a game of each Survive game, the player's page says the decision in that game's
    words (the 1986 villagers and boats, Space Attack's crew and escape pods), none of another game's."""
    position = turn_position(name, PLAYERS, "red", 14)
    gd = new_game(tmp_path / "game", name, key_pool, PLAYERS, seed=b"w" * 32, position=position)
    table = Table.load(gd)
    decision = table.game.pending(table.state)[0]
    assert decision.player == "red"
    page = private_page(gd, "red", key_pool["red"], tmp_path / f"{name}.html")
    browser.get(page.as_uri())
    status = browser.find_element(By.ID, "pbem-status").text
    assert foreign_words(name, status) == [] and not any(c in status for c in SYNTAX), status
    assert status == table.game.rules(table.state).model_prompts(table.state)[decision.kind], status
    assert console_errors(browser) == []
