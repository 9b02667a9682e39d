"""What a digest message holds (issue 21; docs/email.md, "What a message holds and why").

The public digest travels once, in the message's body: the text secrets (secrets/PLAYER.age)
hold only what is the player's own (their secrets, their move template, what they alone saw,
the view block for `pbem turn`), never the board's text map nor a public event line again.
Games are played by bots through the pipeline's own steps, the outputs made in memory
(tests/pipeline_helpers.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_helpers import PipelineGame, new_game

from pbem.base import yamlio
from pbem.core.game import pending_players
from pbem.views.boardmoves import BoardHistory
from pbem.views.outputs import (digest_context, events_since, player_plaintexts, player_secrets, read_private_view,
                                template_for)
from pbem.views.render.digest import wrap
from pbem.views.render.hexmap_text import render_text

GAMES = [("atlantis", ["red", "blue", "green"]), ("space-attack", ["red", "blue"]),
         ("space-swarm", ["red", "blue", "green"]), ("atlantis-1986", ["red", "blue"])]


def _entries(root: Path, game: str, names: list[str], key_pool: dict[str, Path], moves: int, every: int):
    """The table after every ``every``-th of ``moves`` bot moves (in memory: nothing published)."""
    gd = new_game(root, game, key_pool, names, seed=b"b" * 32)
    pg = PipelineGame(gd)
    for n in range(moves):
        move = pg.bot_move(key_pool, b"budget")
        if move is None:
            return
        pg.take(*move)
        if n % every == 0:
            yield pg.table


@pytest.mark.parametrize("game,names", GAMES, ids=[g for g, _n in GAMES])
def test_the_text_secrets_hold_only_what_is_the_players_own(tmp_path, key_pool, game, names) -> None:
    checked = 0
    for table in _entries(tmp_path / "g", game, names, key_pool, 60, 7):
        history = BoardHistory.for_viewers(table, [None, *names])
        public_board = render_text(table.game.board_picture(table.game.view(table.state, None))).strip("\n")
        waiting = set(pending_players(table.game, table.state))
        for player in names:
            text = player_plaintexts(table, player, history)[".age"].decode()
            ctx = digest_context(table, player, with_svg=False, history=history)
            # not the board again: neither the public text map nor the player's own
            assert public_board.splitlines()[2] not in text and ctx.board_text.splitlines()[2] not in text
            assert "\nBoard\n-----" not in text and "\nWhat happened\n" not in text
            for line in events_since(table, player) + events_since(table, None):     # nor a public event
                if line.startswith("entry "):
                    assert line not in text, f"{game} {player}: a public event line in the text secrets: {line}"
                else:        # as the digest writes it, a whole line (the private line may begin the same)
                    assert f"\n{wrap(line.strip(), '* ', '    ')}\n" not in text
            # still the player's own: their secrets, their move template, their view for `pbem turn`
            assert yamlio.dump(player_secrets(table, player)).rstrip("\n") in text
            if player in waiting:
                template = template_for(table, player, table.game.view(table.state, player)).rstrip("\n")
                assert f"----- BEGIN move.yaml -----\n{template}\n----- END move.yaml -----" in text
            view = read_private_view(text)
            assert (view["player"], view["index"]) == (player, table.last["index"])
            checked += 1
    assert checked >= 6

