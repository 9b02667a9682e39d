"""An entry's boards drawn through the parts they share (pbem.views.render.boardmemo, issue 24) are
byte for byte the boards drawn alone, for every reader of random positions of all four games, with
what moved marked and a player's own hidden values shown; and the page's shorter numbers are those
of the tag-by-tag shortening."""
from __future__ import annotations

import copy
import dataclasses
import random
import re

import pytest
from click_helpers import random_point

from pbem.core.draws import Draws
from pbem.core.engine import apply_actions
from pbem.core.game import pending_players
from pbem.core.picture import BoardPicture, HexCell, Piece
from pbem.core.registry import load_game
from pbem.views.boardmoves import mark_moves
from pbem.views.outputs import BoardDrawings
from pbem.views.render import boardmemo
from pbem.views.render.boardmemo import BoardMemo, board_key, cell_key, piece_key
from pbem.views.render.hexmap_svg import render_svg
from pbem.views.render.hexmap_text import render_text
from pbem.views.render.svgnumbers import shorter_numbers

GAMES = [("atlantis", ["red", "blue", "green"]), ("atlantis-1986", ["red", "blue", "green", "yellow"]),
         ("space-attack", ["red", "blue", "green"]), ("space-swarm", ["red", "blue", "green"])]

_TAG = re.compile(r"<[a-zA-Z][^>]*>")
_NUMBER = re.compile(r"(?<![\w.#-])(-?\d+\.\d+)(?![\w.])")


def shorter_tag_by_tag(svg: str) -> str:
    """The shortening as first written: each tag's numbers, one tag at a time."""
    def short(match: re.Match[str]) -> str:
        value = float(match.group(1))
        if abs(value) >= 10:
            return str(round(value))
        text = f"{value:.1f}"
        return "0" if text in ("0.0", "-0.0") else text.removesuffix(".0")
    return _TAG.sub(lambda tag: _NUMBER.sub(short, tag.group(0)), svg)


def entry_boards(name: str, players: list[str], seed: bytes, steps: int) -> list[BoardPicture] | None:
    """Every reader's board after ``steps`` random decisions and a few more, each marked with what
    moved since an earlier one of those (as if each reader's last turn was at another)."""
    game = load_game(name)
    point = random_point(game, players, {}, seed, steps, random.Random(seed + bytes([steps])))
    if point is None:
        return None
    state, _player = point
    earlier = [game.board_picture(game.view(state, None))]
    rng = random.Random(steps)
    for n in range(6):                  # a few more decisions: some pieces move
        pending = pending_players(game, state)
        if not pending:
            break
        apply_actions(game, state, pending[0], [rng.choice(game.legal_actions(state, pending[0]))],
                      Draws(seed, f"more/{n}"))
        earlier.append(game.board_picture(game.view(state, None)))
    boards = []
    for k, viewer in enumerate([None, *players]):     # each reader's last turn was at another decision
        board = mark_moves(game.board_picture(game.view(state, viewer)), copy.deepcopy(earlier[2 * k % len(earlier)]))
        assert board is not None
        boards.append(board)
    return boards


@pytest.mark.parametrize("name, players", GAMES, ids=[g[0] for g in GAMES])
def test_boards_drawn_through_shared_parts_are_the_boards_drawn_alone(name, players) -> None:
    looked, differ = 0, 0
    for k, steps in enumerate((2, 9, 25, 60)):
        boards = entry_boards(name, players, bytes([k + 1]) * 32, steps)
        if boards is None:
            continue
        looked += 1
        alone = [(render_text(b), render_svg(b, "T")) for b in boards]
        differ += len({svg for _t, svg in alone}) > 1          # the readers' boards are not all one
        for order in (list(range(len(boards))), list(reversed(range(len(boards))))):
            drawings, memo = BoardDrawings(BoardMemo()), BoardMemo()
            for i in order:
                assert drawings.draw(boards[i], "T", with_svg=True, short=True) == (alone[i][0],
                                                                                    shorter_numbers(alone[i][1]))
                assert drawings.draw(boards[i], "T", with_svg=True) == alone[i]
                assert (render_text(boards[i], memo), render_svg(boards[i], "T", memo)) == alone[i]
        for _text, svg in alone:
            assert shorter_numbers(svg) == shorter_tag_by_tag(svg)
    assert looked >= 2 and differ >= 1


def test_a_readers_hidden_value_is_drawn_on_their_board_alone() -> None:
    boards = entry_boards("atlantis", ["red", "blue", "green"], b"v" * 32, 12)
    assert boards is not None
    public = boards[0]
    own = copy.deepcopy(public)
    piece = next(p for c in own.cells for p in c.pieces if p.value is None)
    piece.value = "6"
    other = copy.deepcopy(public)
    next(p for c in other.cells for p in c.pieces if p.handle == piece.handle).value = "4"
    drawings = BoardDrawings()
    for board in (public, own, other, public):
        text, svg = drawings.draw(board, "T", with_svg=True)
        assert (text, svg) == (render_text(board), render_svg(board, "T"))
    assert "value 6" in render_svg(own, "T") and "value 6" not in drawings.draw(other, "T", True)[1]
    assert "value 6" not in drawings.draw(public, "T", True)[1]


def test_shorter_numbers_of_odd_svgs_is_the_tag_by_tag_shortening() -> None:
    rng = random.Random(7)
    pieces = ["<a x=\"12.55\">", "</a>", " 3.25 ", "<b y='-0.04' z=\"9.95,10.5\">", "\x00", "<c d=\"M1.25 2.35\">",
              "text 7.77", "<", ">", "<d e=\"1.15.2\">", "<e f=\"#12.34\">", "<f g=\"--2.5 x-3.5 10.25-4.75\">",
              "<g h=\"(7.5) 0.5e3 -0.05_\">", "-", "1", ".", "5.", "<h i=-9.99>"]
    for _ in range(2000):
        svg = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        assert shorter_numbers(svg) == shorter_tag_by_tag(svg), svg


def _changed(value: object) -> object:
    """Another value of the same sort (for a field of a picture's dataclass)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return "1"
    if isinstance(value, dict):
        return {**value, "x": "y"}
    if isinstance(value, list) and value and isinstance(value[0], HexCell):
        return [*value, HexCell(5, 5, "Z5", "sea")]
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        return [*value, (Piece("z9"), "z")]
    if isinstance(value, list):
        return [*value, Piece("z9")] if not value or isinstance(value[0], Piece) else [*value, "x"]
    raise AssertionError(f"a field of a sort this test does not know: {value!r}")


def test_every_field_of_a_board_a_cell_and_a_piece_is_in_its_key() -> None:
    """A field added to BoardPicture, HexCell or Piece and left out of the key would let two boards share a part
    that differs: every field, changed alone, changes the key."""
    piece = Piece("r7", "explorer", "red", "7", "r7: red", [Piece("b2")], None, False, "")
    for f in dataclasses.fields(Piece):
        other = dataclasses.replace(piece, **{f.name: _changed(getattr(piece, f.name))})
        assert piece_key(other) != piece_key(piece), f.name
    cell = HexCell(0, 1, "A1", "sea", ["S"], ["#000000"], [piece], False, "")
    for f in dataclasses.fields(HexCell):
        other_cell = dataclasses.replace(cell, **{f.name: _changed(getattr(cell, f.name))})
        assert cell_key(other_cell) != cell_key(cell), f.name
    board = BoardPicture([cell], {"S": "ship"}, {"sea": "#0000ff"}, {"sea": "~"}, [(piece, "an explorer")],
                         {"sea": "waves"})
    for f in dataclasses.fields(BoardPicture):
        other_board = dataclasses.replace(board, **{f.name: _changed(getattr(board, f.name))})
        assert (board_key(other_board, [cell_key(c) for c in other_board.cells])
                != board_key(board, [cell_key(c) for c in board.cells])), f.name


def test_boards_drawn_through_a_memo_kept_from_entry_to_entry_are_the_boards_drawn_alone(monkeypatch) -> None:
    """A process keeps one memo from entry to entry (boardmemo.LASTING), across games and readers: every
    board drawn through it, after the boards of other entries of all four games, is the board drawn
    alone; and when the memo is full the next entry starts a new one (here a tiny bound: replaced
    again and again, the boards still the same)."""
    entries = [boards for k, (name, players) in enumerate(GAMES) for steps in (9, 12, 25)
               if (boards := entry_boards(name, players, bytes([k + 7]) * 32, steps)) is not None]
    assert len(entries) >= 8
    alone = [[(render_text(b), render_svg(b, "T")) for b in boards] for boards in entries]
    for bounded, parts, cells in ((False, boardmemo.MEMO_PARTS, boardmemo.MEMO_CELLS), (True, 40, 150)):
        monkeypatch.setattr(boardmemo, "MEMO_PARTS", parts)
        monkeypatch.setattr(boardmemo, "MEMO_CELLS", cells)
        lasting = boardmemo.LastingMemo()
        memos = []
        for _round in range(2):         # the second time round, every part is found in the memo (or a new one)
            for boards, drawn in zip(entries, alone):
                drawings = BoardDrawings(lasting.take())
                memos.append(drawings._memo)
                for board, expected in zip(boards, drawn):
                    assert drawings.draw(board, "T", with_svg=False) == (expected[0], "")
                    assert drawings.draw(board, "T", with_svg=True) == expected
                    assert drawings.draw(board, "T", with_svg=True, short=True) == (expected[0],
                                                                                    shorter_numbers(expected[1]))
        kept = len({id(m) for m in memos})
        assert kept > 2 if bounded else kept == 1
        assert all(len(m.parts) <= parts for m in memos)


def test_drawings_keep_the_process_memo_unless_given_one() -> None:
    boardmemo.LASTING.clear()
    first, second = BoardDrawings(), BoardDrawings()
    assert first._memo is second._memo is boardmemo.LASTING.take()
    own = BoardMemo()
    assert BoardDrawings(own)._memo is own
    boardmemo.LASTING.clear()
    assert BoardDrawings()._memo is not first._memo
