"""A game without a board: ``Game.board_picture`` is optional (default None).  ``ToyCardGame``
(tests/toygame.py) shows itself in sections only (a table of hands, a row of cards), and its
digests, pages, click-to-move places, replay and digest mails are made without faking hexes."""
from __future__ import annotations

import pytest
from pipeline_helpers import new_game, play_to_end
from toygame import ToyCardGame

from pbem.core import registry
from pbem.core.rng import Rng
from pbem.store.table import Table
from pbem.transport.mail.compose import DigestParts, compose_digest
from pbem.views.outputs import player_plaintexts, public_outputs, write_outputs
from pbem.views.replay import build_replay, render_replay


@pytest.fixture
def cards_registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, "toy-cards", "toygame:ToyCardGame")


def test_the_card_game_has_no_board_and_shows_sections() -> None:
    game = ToyCardGame()
    state = game.setup(["red", "blue"], game.full_options({}), Rng(b"toy", "setup"))
    view = game.view(state, "red")
    assert game.board_picture(view) is None
    assert [s.title for s in game.sections(view)] == ["Hands", "Deck"]
    # with no board, every action is a button on the click-to-move page (no piece, no space)
    places = game.action_places(view, "red", game.legal_actions(state, "red"))
    assert places and all(not p.piece and not p.to_cell for p in places)


def test_digests_pages_mails_and_the_replay_of_a_boardless_game(tmp_path, key_pool, cards_registered) -> None:
    gd = new_game(tmp_path / "moderator", "toy-cards", key_pool, ["red", "blue"])
    table = Table.load(gd)
    first = public_outputs(table)
    text, html = first["public/digest.txt"].decode(), first["public/digest.html"].decode()
    assert "Hands" in text and "Deck" in text and "Hands" in html
    assert first["public/board.svg"] == b""
    assert "(empty board)" not in text and 'class="map"' not in html and "<svg" not in html
    assert any(b"Hands" in body for body in player_plaintexts(table, "red").values())
    write_outputs(table)
    mail = compose_digest(DigestParts.read(gd), b"secret", "red", "red@example.org", "mod@example.org", "",
                          "example.org")
    kinds = [part.get_content_type() for part in mail.walk()]
    assert "text/html" in kinds and "image/png" not in kinds
    play_to_end(gd, key_pool)
    table = Table.load(gd)
    assert table.game.result(table.state) is not None
    assert "Hands" in public_outputs(table)["public/digest.txt"].decode()
    replay = build_replay(gd, with_hidden=True)
    assert len(replay.frames) == table.last["index"] + 1
    assert "Toy high card" in render_replay(replay)
