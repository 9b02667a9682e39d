"""What a digest message holds (issue 21; docs/email.md, "What a message holds and why").

The public digest travels once, in the message's body: the text secrets (secrets/PLAYER.age)
hold only what is the player's own (their secrets, their move template, what they alone saw,
the view block for `pbem turn`), never the board's text map nor a public event line again.
Games are played by bots through the pipeline's own steps, the outputs made in memory
(tests/pipeline_helpers.py); each game once for every test here that reads it (:class:`BotGames`).
"""
from __future__ import annotations

import base64
import copy
import html
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest
from pipeline_helpers import PipelineGame, new_game

from pbem.base import yamlio
from pbem.crypto import agecrypt
from pbem.core.game import pending_players
from pbem.store.table import Table
from pbem.transport.mail.compose import BOARD_IN_PAGE, DigestParts, Turn, compose_digest
from pbem.views.boardmoves import BoardHistory
from pbem.views.outputs import (HTML_SUFFIX, MESSAGE_BYTES, UPDATE_BYTES, EntryWork, digest_context, events_since,
                                player_plaintexts, player_secrets, public_outputs, read_private_view, seal_bytes, template_for)
from pbem.views.render.digest import wrap
from pbem.views.render.hexmap_text import render_text
from pbem.views.render.png import mail_png

GAMES = [("atlantis", ["red", "blue", "green"]), ("space-attack", ["red", "blue"]),
         ("space-swarm", ["red", "blue", "green"]), ("atlantis-1986", ["red", "blue"])]
SIX = ["red", "blue", "green", "yellow", "purple", "orange"]


#: how far each bot game is played: the most moves any test below reads of it (the tests that
#: play the same game with the same players read the same game (the same seeds and keys: the
#: same moves), played once per test process: once, or once per pytest-xdist worker that runs one)
FURTHEST = {("atlantis", ("red", "blue", "green")): 60, ("space-attack", ("red", "blue")): 60,
            ("space-swarm", ("red", "blue", "green")): 90, ("atlantis-1986", ("red", "blue")): 90,
            ("atlantis", ("red", "blue", "green", "yellow")): 90, ("atlantis", tuple(SIX)): 140,
            ("space-attack", ("red", "blue", "green")): 90, ("space-attack", tuple(SIX)): 140}
EVERY = (5, 7)       # the tests read the table after every 5th or every 7th move


def snapshot(table: Table) -> Table:
    """The table as it is now, which the moves taken later leave alone: what a move changes in it is
    copied (the state by the game's own ``copy_state``; the log's entries, never changed once
    written, are shared)."""
    return replace(table, tail=list(table.tail), state=table.game.copy_state(table.state),
                   private={p: list(v) for p, v in table.private.items()}, prefs=copy.deepcopy(table.prefs),
                   board_views=dict(table.board_views), _notes=None if table._notes is None else list(table._notes))


def position(table: Table) -> str:
    """The state as the log's snapshot keeps it, and the entries, as text."""
    return json.dumps([table.game.to_position(table.state), table.last["hash"], len(table.tail)], sort_keys=True)


class BotGames:
    """Each bot game played once (in memory: nothing published), the table kept after every move
    a test reads; each test gets its own copy of those tables, as they were after that move."""

    def __init__(self, root: Path, key_pool: dict[str, Path]) -> None:
        self.root, self.key_pool = root, key_pool
        self.played: dict[tuple[str, tuple[str, ...]], dict[int, tuple[Table, str]]] = {}

    def _play(self, game: str, names: tuple[str, ...]) -> dict[int, tuple[Table, str]]:
        gd = new_game(self.root / f"{game}-{len(names)}", game, self.key_pool, list(names), seed=b"b" * 32)
        pg = PipelineGame(gd)
        kept: dict[int, tuple[Table, str]] = {}
        for n in range(FURTHEST[(game, names)]):
            move = pg.bot_move(self.key_pool, b"budget")
            if move is None:
                break
            pg.take(*move)
            if any(n % every == 0 for every in EVERY):     # the game goes on: the table as it is now
                kept[n] = snapshot(pg.table), position(pg.table)
        return kept

    def entries(self, game: str, names: list[str], moves: int, every: int) -> Iterator[Table]:
        """The table after every ``every``-th of ``moves`` bot moves (fewer when the game ends first)."""
        key = (game, tuple(names))
        assert moves <= FURTHEST[key] and every in EVERY, f"{key}: FURTHEST and EVERY do not cover {moves}, {every}"
        if key not in self.played:
            self.played[key] = self._play(*key)
        for n, (table, kept_position) in self.played[key].items():
            if n < moves and n % every == 0:
                assert position(table) == kept_position, f"{key}: the table after move {n} changed since"
                yield snapshot(table)


@pytest.fixture(scope="module")
def bot_games(tmp_path_factory: pytest.TempPathFactory, key_pool: dict[str, Path]) -> BotGames:
    return BotGames(tmp_path_factory.mktemp("bot-games"), key_pool)


@pytest.mark.parametrize("game,names", GAMES, ids=[g for g, _n in GAMES])
def test_the_text_secrets_hold_only_what_is_the_players_own(bot_games, game, names) -> None:
    checked = 0
    for table in bot_games.entries(game, names, 60, 7):
        # the entry's outputs made as write_outputs makes them, sharing their work (EntryWork: the
        # same bytes as made alone, test_outputs_made_with_shared_work_are_the_outputs_made_alone)
        work = EntryWork(table, BoardHistory.for_viewers(table, [None, *names]))
        public_board = render_text(table.game.board_picture(table.game.view(table.state, None))).strip("\n")
        waiting = set(pending_players(table.game, table.state))
        for player in names:
            text = player_plaintexts(table, player, work=work)[".age"].decode()
            ctx = digest_context(table, player, with_svg=False, history=work.history, drawings=work.drawings, work=work)
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



#: the game's own turn model: each decision page carries it (Space Attack's page, and Atlantis's at
#: 6 players now and then, takes the room of the board's picture in its message: docs/email.md)
OWN_FAMILY = {"atlantis": "survive", "atlantis-1986": "survive", "space-swarm": "swarm", "space-attack": "survive"}
PANEL = re.compile(r'<section class="click" id="pbem-click"[^>]* data-family="([a-z-]+)" data-choices="([a-z]*)">')


@pytest.mark.parametrize("game,names,moves", [("atlantis", ["red", "blue", "green", "yellow"], 90),
                                              ("atlantis", SIX, 140),
                                              ("space-attack", ["red", "blue", "green"], 90),
                                              ("space-attack", SIX, 140),
                                              ("space-swarm", ["red", "blue", "green"], 90),
                                              ("atlantis-1986", ["red", "blue"], 90)],
                         ids=["atlantis-4p", "atlantis-6p", "space-attack-3p", "space-attack-6p", "space-swarm-3p",
                              "1986-2p"])
def test_every_decision_page_carries_its_own_model_and_the_message_stays_under_100_kb(bot_games, game, names,
                                                                                       moves) -> None:
    """Bot games: every decision page has the click-to-move panel with the game's own turn model,
    and the digest message as `pbem mail` composes it (real age, the PNG), with the room kept for
    the public update, stays under 100 KB.  Where the page needs the room, the message goes without
    the board's picture and its HTML body says that the board is in the page."""
    pages = without = 0
    others_png = b""
    for table in bot_games.entries(game, names, moves, 7):
        # the outputs as write_outputs makes them for `pbem mail` (EntryWork: the entry's outputs share
        # their work; the same bytes as made alone: test_outputs_made_with_shared_work_are_the_outputs_made_alone)
        work = EntryWork(table, BoardHistory.for_viewers(table, [None, *names]))
        public = public_outputs(table, work=work)
        svg = public["public/board.svg"].decode()
        pending = list(dict.fromkeys(pending_players(table.game, table.state)))
        turn = Turn(table.game_id, table.game.title, table.last["index"], table.last["hash"], pending, not pending)
        # the board picture of the messages of players without a decision (parts.png; a decider's
        # message has the glance, parts.mover_png, asserted below): every message composed here is
        # a decider's, so that picture is made at the game's first entry and kept (a real PNG of
        # this game's board, not the glance): one resvg render per game instead of one per entry
        others_png = others_png or mail_png(svg)
        parts = DigestParts(turn, public["public/digest.txt"].decode(), public["public/digest.html"].decode(), svg,
                            others_png)
        for player in pending:
            plain = player_plaintexts(table, player, work=work)
            page = plain[HTML_SUFFIX].decode()
            found = PANEL.search(page)
            assert found is not None, f"{game} entry {table.last['index']}: {player}'s page has no panel"
            family, choices = found.groups()
            assert family == OWN_FAMILY[game], f"{game} entry {table.last['index']}: {player}'s page has the {family} model"
            recipients = [table.player_keys(player)[0], table.header["moderator"]["key"]]
            msg = compose_digest(parts, agecrypt.encrypt(plain[".age"], recipients), player, f"{player}@example.com",
                                 "moderator@example.com", "", "example.com",
                                 secrets_html=agecrypt.encrypt(work.seal(HTML_SUFFIX, plain[HTML_SUFFIX]), recipients))
            size = len(msg.as_bytes())
            assert size + UPDATE_BYTES < 100_000, f"{game} entry {table.last['index']}: {size} bytes"
            pngs = [p for p in msg.walk() if p.get_content_type() == "image/png"]
            body = msg.get_body(("html",))
            assert body is not None
            note = html.escape(BOARD_IN_PAGE.format(page=f"{player}-entry{table.last['index']}.html.gz.age"))
            if pngs:
                assert [p.get_content() for p in pngs] == [parts.mover_png] != [others_png]   # the glance: the page has the board
                assert note not in body.get_content()
            else:                # the page took the picture's room: it was over the budget with it, and says so
                picture = len(base64.encodebytes(parts.mover_png)) + 1000       # as sent, its part's headers at most
                assert size + picture + UPDATE_BYTES > MESSAGE_BYTES
                assert note in body.get_content() and "cid:" not in body.get_content()
                without += 1
            pages += 1
    assert pages >= 5
    if (game, len(names)) == ("space-attack", 6):    # its page with its own model needs the picture's room at times
        assert without >= 1


@pytest.mark.parametrize("game,names", GAMES, ids=[g for g, _n in GAMES])
def test_outputs_made_with_shared_work_are_the_outputs_made_alone(bot_games, game, names) -> None:
    """write_outputs shares one entry's work between its outputs (EntryWork: the public context and
    text made once, the public parts' size counted once, each page gzipped once, each reader's view
    and each public entry's event lines made once); every file it makes is byte for byte what the
    public outputs and each player's plaintexts are made alone, and no output changed a shared view."""
    deciding = 0
    for table in bot_games.entries(game, names, 40, 5):
        history = BoardHistory.for_viewers(table, [None, *names])
        work = EntryWork(table, BoardHistory.for_viewers(table, [None, *names]))
        assert public_outputs(table, work=work) == public_outputs(table, history)
        waiting = set(pending_players(table.game, table.state))
        for player in names:
            shared = player_plaintexts(table, player, work=work)
            assert shared == player_plaintexts(table, player, history), f"{game} entry {table.last['index']} {player}"
            assert work.seal(HTML_SUFFIX, shared[HTML_SUFFIX]) == seal_bytes(HTML_SUFFIX, shared[HTML_SUFFIX])
            deciding += player in waiting
        for viewer in [None, *names]:     # each reader's own view, as the game makes it, after every output
            assert work.view(viewer) == table.game.view(table.state, viewer), f"{game} {viewer}"
    assert deciding >= 3, "too few pages with a decision (and so a mail-fitting check) were compared"


def test_the_view_blocks_lines_are_textwraps():
    """The secrets' view block (outputs.base64_lines) cuts its base64 as textwrap.wrap(payload, 76) did."""
    import base64
    import random
    import textwrap

    from pbem.views.outputs import base64_lines
    rng = random.Random(24)
    for n in [0, 1, 2, 56, 57, 58, 113, 114, 1000, *(rng.randrange(0, 3000) for _ in range(300))]:
        payload = base64.b64encode(rng.randbytes(n)).decode("ascii")
        assert base64_lines(payload) == textwrap.wrap(payload, 76)
