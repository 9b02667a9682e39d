"""What moved since the reader's last turn, for the board pictures (any game).

The engine compares the board picture of now with the one at the start of what the
digest's "What happened" lists (:func:`pbem.store.table.since_entry`): a piece whose handle stands on
another space, or was not on the board, is marked ``moved`` (``moved_from`` = where it
was); a cell whose kind changed (a tile removed) is marked ``changed``.  Games only say
where pieces are; this works for every game that gives pieces.

The earlier picture comes from replaying the log (:class:`BoardHistory`), so it needs
the seed: the moderator's copy, or any copy once the seed is revealed.  Without it the
pictures carry no marks.
"""
from __future__ import annotations

from typing import Any, Iterable

from pbem.core.picture import BoardPicture, BoardPlaces, Piece, places_of
from pbem.store.table import replay

__all__ = ["piece_places", "mark_moves", "BoardHistory"]


def piece_places(board: BoardPicture) -> dict[str, str]:
    """handle -> the label of the cell it is in (passengers: their vessel's cell)."""
    return places_of(board).pieces


def mark_moves(now: BoardPicture | None, before: BoardPicture | BoardPlaces | None) -> BoardPicture | None:
    """``now`` with what changed since ``before`` (a picture, or its :class:`BoardPlaces`) marked
    (in place; returned for convenience; None: the game draws no board)."""
    if now is None or before is None:
        return now
    earlier = before if isinstance(before, BoardPlaces) else places_of(before)
    was, kinds = earlier.pieces, earlier.kinds

    def visit(p: Piece, label: str) -> None:
        if was.get(p.handle) != label:
            p.moved, p.moved_from = True, was.get(p.handle, "")
        for x in p.passengers:
            visit(x, label)

    for c in now.cells:
        for p in c.pieces:
            visit(p, c.label)
        if c.label in kinds and kinds[c.label] != c.kind:
            c.changed, c.was = True, kinds[c.label]
    return now


class BoardHistory:
    """Where the pieces were on the public board after given log entries (:class:`BoardPlaces`):
    from the public views the table keeps (:attr:`pbem.store.table.Table.board_views`), else made
    by one replay of the log."""

    def __init__(self, table: Any, indices: Iterable[int]) -> None:
        self._places: dict[int, BoardPlaces] = {}
        wanted = set(indices)
        if table.seed is None or not wanted:
            return
        game = table.game
        views: dict[int, Any] = table.board_views
        if not wanted <= set(views):
            views = {}
            for replayed, entry, _applied in replay(table.gd, game, list(table.entries), table.seed, wanted):
                if entry["index"] >= max(wanted):
                    views = replayed.board_views
                    break
        for index in sorted(wanted):
            places = game.board_places(views[index]) if index in views else None
            if places is not None:
                self._places[index] = places

    @classmethod
    def for_viewers(cls, table: Any, viewers: Iterable[str | None]) -> "BoardHistory":
        return cls(table, {table.since(v) - 1 for v in viewers})

    def after(self, index: int) -> BoardPlaces | None:
        """Where the pieces were on the public board after entry ``index``, or None when that
        is not known (no seed)."""
        return self._places.get(index)
