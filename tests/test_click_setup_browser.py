"""Set-up in one message, in a real headless Chromium: each Atlantis player lays out their whole
set-up on their page as a preference list, reorders it, and sends it in one message."""
from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from click_helpers import page_data
from pbem.base.yamlio import dump_flow
from pbem.core.game import pending_players
from pbem.store.movefile import parse_move
from pbem.store.table import Table
from test_click_browser import PLAYERS, console_errors, fresh_atlantis, move_text, private_page, saved  # noqa: F401
from test_click_browser import choose_option, sign_and_submit


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
        for gi, group in enumerate(groups):
            pieces = browser.find_element(By.ID, f"pbem-plan-{gi}-piece")
            spots = browser.find_element(By.ID, f"pbem-plan-{gi}-space")
            taken = set()
            for k, _piece in enumerate(group["pieces"]):
                choose_option(pieces, k)
                free = [s for s in range(len(group["spots"])) if s not in taken]
                choose_option(spots, free[(k * 7 + len(taken)) % len(free)])
                taken.add(int(spots.get_property("value")))
                browser.find_element(By.ID, f"pbem-plan-{gi}-add").click()
        lists = browser.find_elements(By.CSS_SELECTOR, "ol.pbem-plan")
        entries = lists[0].find_elements(By.TAG_NAME, "li")
        assert len(entries) == len(groups[0]["pieces"]) and "{" not in entries[0].text
        second = entries[1].text
        entries[1].find_element(By.XPATH, "./button[text()='Up']").click()      # reordered: the second first
        assert lists[0].find_elements(By.TAG_NAME, "li")[0].text == second
        text = move_text(browser)
        move = parse_move(text.encode())
        assert len(move.actions) == 1 and list(move.actions[0]) == ["prefer"]
        prefer = move.actions[0]["prefer"]
        assert len(prefer) <= 100 and dump_flow(prefer[0]) in text
        assert console_errors(browser) == []
        path = saved(browser, tmp_path / "downloads", f"move-{table.last['index'] + 1}.yaml")
        sign_and_submit(gd, path, key_pool[player])
        messages[player] += 1
    assert not placing(Table.load(gd)), "the set-up is not over"
    assert messages == {p: 1 for p in PLAYERS}, messages


def placing(table: Table) -> bool:
    """Is the player to move placing pieces from off the board (a set-up round)?"""
    from pbem.views.setupplan import is_placement_round
    pending = pending_players(table.game, table.state)
    if not pending:
        return False
    legal = table.game.legal_actions(table.state, pending[0])
    view = table.game.view(table.state, pending[0])
    return is_placement_round(table.game.action_places(view, pending[0], legal[:1]))
