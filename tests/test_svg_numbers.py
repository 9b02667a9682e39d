"""The board's SVG with shorter numbers in the player's page with a panel (pbem.views.render.svgnumbers)."""
from __future__ import annotations

import re

from pbem.views.render.svgnumbers import shorter_numbers


def test_numbers_in_tags_are_shortened_and_text_and_paths_are_kept() -> None:
    svg = ('<svg width="863.38" height="1030.00" viewBox="0.00 0.00 863.38 1030.00">'
           '<polygon points="570.26,284.00 604.90,304.00 535.62,344.00"/>'
           '<circle cy="-6.64" r="3.35" stroke-width="0.04"/><path d="M-9.2 9.8C-9.25 0-5 -3.2Z"/>'
           '<use href="#pbem-s-explorer" x="486.87" y="-315.50" width="28.20"/>'
           '<text x="500.97" y="340.43">value 2.75</text></svg>')
    out = shorter_numbers(svg)
    assert out == ('<svg width="863" height="1030" viewBox="0 0 863 1030">'
                   '<polygon points="570,284 605,304 536,344"/>'
                   '<circle cy="-6.6" r="3.4" stroke-width="0"/><path d="M-9.2 9.8C-9.25 0-5 -3.2Z"/>'
                   '<use href="#pbem-s-explorer" x="487" y="-316" width="28"/>'
                   '<text x="501" y="340">value 2.75</text></svg>')


def test_the_players_page_with_a_panel_has_the_shorter_board_and_the_public_one_keeps_its_own(tmp_path,
                                                                                               key_pool) -> None:
    from pipeline_helpers import PipelineGame, new_game

    from pbem.core.game import pending_players
    from pbem.views.outputs import HTML_SUFFIX, player_plaintexts, public_outputs

    gd = new_game(tmp_path / "g", "space-attack", key_pool, ["red", "blue"], seed=b"s" * 32)
    game = PipelineGame(gd)
    for _ in range(12):
        game.take(*game.bot_move(key_pool, b"svg"))
    table = game.table
    public = public_outputs(table)["public/board.svg"].decode()
    assert re.search(r'points="[0-9]+\.[0-9]{2},', public)            # the public board as it was
    [player] = pending_players(table.game, table.state)[:1]
    page = player_plaintexts(table, player)[HTML_SUFFIX].decode()
    assert 'id="pbem-click"' in page
    board = page[page.index("<svg"):page.index("</svg>")]
    assert not re.search(r'points="[^"]*\.', board) and board.count("<polygon") > 100
