"""The differential leak test, one for every game.

At a point of a game, what a viewer may not know is shuffled (a game-specific
``shuffle_hidden(position, viewer, rng)``), and everything that viewer gets must stay
byte-identical: the public outputs (digest text/HTML, board SVG, view.json) for the
public, their own secrets for a player (the text and the HTML page with its click-to-move
choices), and the error lines their probe actions get.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from pbem.core.rng import Rng
from pbem.game import IllegalAction
from pbem.store.table import Table
from pbem.views.boardmoves import BoardHistory
from pbem.views.outputs import BoardDrawings, EntryWork, player_plaintexts, public_outputs
from pbem.views.render.boardmemo import LastingMemo

Shuffle = Callable[[dict[str, Any], "str | None", Rng], dict[str, Any]]
Probes = Callable[[Table, str], list[dict[str, Any]]]


def entry_work(table: Table) -> EntryWork:
    """What one entry's outputs share, made as `publish` makes it (``write_outputs``): the history
    of every reader's board, the boards drawn, the views, the public digest."""
    return EntryWork(table, BoardHistory.for_viewers(table, [None, *table.players]))


#: the board parts drawn for shuffled states, kept from one shuffled state to the next (as a
#: process keeps them from one entry to the next: boardmemo.LASTING), but apart from the parts drawn
#: for real states (the outputs `publish` makes, and each point's reference outputs: LASTING), so
#: that nothing drawn from a real state serves a shuffled one: a memo key that missed a hidden
#: value would still show as a leak (test_board_memo checks the keys field by field)
SHUFFLED_PARTS = LastingMemo()


def shuffled_work(table: Table, real: EntryWork) -> EntryWork:
    """An :class:`EntryWork` of its own for ``table``'s (shuffled) state: its views, boards and
    digests are made afresh from that state (its boards' parts drawn through
    :data:`SHUFFLED_PARTS`, never through a memo that has seen a real state).  It takes from ``real`` (the same entry's
    work on the real state) only what no state goes into: the boards' history (where the pieces
    were on the public board after earlier entries: from the log, :class:`BoardHistory`), the
    pages already gzipped for the mail's size (``seal``: keyed by the page's every byte, so a page
    that differs is gzipped anew), and the digests' lines made from the log alone: each public
    entry's event lines (``entry_lines``: the entry and ``game.describe_event``, which is given
    the event only) and the footer (``footer_lines``: the moderator's notes, the header).  The
    shuffle changes ``table.state`` only: the log, the header and the game are the same objects."""
    return EntryWork(table, real.history, drawings=BoardDrawings(SHUFFLED_PARTS.take()), _sealed=real._sealed,
                     _entry_lines=real._entry_lines, _footer=real.footer())


def outputs_for(table: Table, viewer: str | None, work: EntryWork | None = None) -> dict[str, bytes]:
    """The public files, or a player's own: their text secrets and their HTML page (with the
    click-to-move choices worked out on their view), made as `publish` makes them (through an
    :class:`EntryWork`: ``work``, shared with the entry's other readers, or one of their own)."""
    work = work or entry_work(table)
    if viewer is None:
        return public_outputs(table, work=work)
    return {f"secrets{suffix}": data for suffix, data in player_plaintexts(table, viewer, work=work).items()}


def error_lines(table: Table, actor: str, actions: list[dict[str, Any]], base: Any = None) -> str:
    """What the engine says to ``actor`` for each action, tried on a copy of the state (the state
    read back from its position once, then copied; ``base``: that state, when the caller has read
    it back already).  A refused action leaves the state untouched (``Game.apply``'s contract, which
    ``apply_actions`` relies on too), so the actions refused one after another are tried on the same
    copy; an action taken gets the next one a fresh copy."""
    game = table.game
    if base is None:
        base = game.from_position(game.to_position(table.state))
    said = []
    state = None
    for action in actions:
        if state is None:
            state = game.copy_state(base)
        try:
            game.apply(state, actor, action, Rng(b"x" * 32, "probe"))
            said.append("ok")
            state = None
        except IllegalAction as exc:
            said.append(str(exc))
    return "\n".join(said)


def pending_player_actions(table: Table, actor: str, n: int = 3) -> list[dict[str, Any]]:
    """A few of the legal actions of the player the game waits on, when that is not ``actor``."""
    pending = table.game.pending(table.state)
    if pending and pending[0].player != actor:
        return table.game.legal_actions(table.state, pending[0].player)[:n]
    return []


def check_no_leak(table: Table, rng: Rng, shuffle_hidden: Shuffle, probes: Probes,
                  pos: dict[str, Any] | None = None) -> None:
    """Every output for every viewer is the same whatever the hidden values they may not know.
    ``pos``: the position of ``table.state``, when the caller has made it (only read)."""
    game = table.game
    pos = game.to_position(table.state) if pos is None else pos
    original = table.state
    viewers = [None, *table.players]
    work = entry_work(table)    # every reader's outputs of the real state, made once as `publish` makes them
    befores = {viewer: outputs_for(table, viewer, work) for viewer in viewers}
    real = game.from_position(pos)      # the real state read back from its position once, for every reader's probes
    for viewer in viewers:
        before = befores[viewer]
        tried = probes(table, viewer) if viewer else []
        said = error_lines(table, viewer, tried, real) if viewer else ""
        table.state = game.from_position(shuffle_hidden(pos, viewer, rng))
        try:
            # the probes first, on copies of the shuffled state as read from its position (nothing has
            # read it yet; error_lines never changes its ``base``), then the outputs
            said_after = error_lines(table, viewer, tried, table.state) if viewer else ""
            after = outputs_for(table, viewer, shuffled_work(table, work))   # the shuffled state's, made afresh
        finally:
            table.state = original
        for key in before:
            assert before[key] == after[key], f"{key} for {viewer or 'the public'} depends on hidden values"
        assert said == said_after, f"error messages to {viewer} depend on hidden values"


# --- the Survive games (Atlantis, 1986, Space Attack): one position format ----------------------
def owner_colours(pos: dict[str, Any], player: str) -> set[str]:
    return {c for p in pos["players"] if p["name"] == player for c in p["colours"]}


def survive_shuffle_hidden(pos: dict[str, Any], viewer: str | None, rng: Rng) -> dict[str, Any]:
    """Permute what ``viewer`` cannot know: other colours' values, the unrevealed backs of the
    tiles on the board, and other players' hand backs.  ``pos`` is left as it is: the copy
    returned has explorers and tiles of its own (the only parts written here); its other parts
    are ``pos``'s, which ``from_position`` only reads (it builds the state's records afresh)."""
    pos = {**pos, "explorers": {h: dict(token) for h, token in pos["explorers"].items()},
           "tiles": {h: dict(tile) for h, tile in pos["tiles"].items()}}
    mine = owner_colours(pos, viewer) if viewer else set()
    by_colour: dict[str, list[str]] = defaultdict(list)
    for handle, token in pos["explorers"].items():
        if token["colour"] not in mine:
            by_colour[token["colour"]].append(handle)
    for handles in by_colour.values():
        values = rng.shuffled([pos["explorers"][h]["value"] for h in handles])
        for h, v in zip(handles, values):
            pos["explorers"][h]["value"] = v
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for handle, tile in pos["tiles"].items():
        if tile["where"] == "island":
            groups[("island", tile["terrain"])].append(handle)
        elif tile["where"] == "hand" and tile["holder"] != viewer:
            groups[("hand", tile["terrain"])].append(handle)
    for handles in groups.values():
        backs = rng.shuffled([pos["tiles"][h]["back"] for h in handles])
        for h, b in zip(handles, backs):
            pos["tiles"][h]["back"] = b
    return pos
