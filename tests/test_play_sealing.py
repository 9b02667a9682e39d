"""`pbem play` seals a player's intentions before it signs (pbem.client.sealing): a preference
list and a standing order go to the moderator only; the moderator opens each to what was chosen;
what is already on the board (a move, a placement) goes as it is."""
from __future__ import annotations

import pytest

from pipeline_helpers import new_game
from pbem.client.sealing import private, sealed_orders
from pbem.core.sealed import is_sealed
from pbem.pipeline.submit import moderator_opener
from pbem.store.table import Table


@pytest.mark.parametrize("name,standing", [("atlantis", True), ("space-attack", True), ("space-swarm", True),
                                           ("atlantis-1986", False)])
def test_intentions_are_sealed_to_the_moderator_and_open_to_what_was_chosen(tmp_path, key_pool, name, standing):
    gd = new_game(tmp_path / name, name, key_pool, ["red", "blue"])
    table = Table.load(gd)
    player = table.game.pending(table.state)[0].player
    now = table.game.legal_actions(table.state, player)[0]
    prefer = {"prefer": [now], "keep": True}
    order = {"standing": {"shark_defense": "never"}}
    sent = sealed_orders(table, [now, prefer, order])
    assert sent[0] == now and not private(table.game, now)                  # on the board: as it is
    assert is_sealed(sent[1]) and "prefer" not in str(sent[1])              # the list: sealed
    assert is_sealed(sent[2]) == standing                                   # a standing order where the game has them
    assert not private(table.game, sent[1])                                 # sealed once, never twice
    opener = moderator_opener(gd)
    assert opener(1, sent[1]) == prefer
    if standing:
        assert opener(2, sent[2]) == order
