"""Binding a move to the decision its player saw, not merely to the end of the log.

A move file names the entry it was written after (``after``, ``after_hash``).  It is taken
at the end of the log when

* that entry is in this very log (the index and the hash match: no other game, no fork), and
* the player's view has not changed since: the same board, the same hand, the same pending
  decision.  Entries that change nothing the player can see (a moderator note, a pause, an
  extension, another player's standing order) therefore do not make a move stale, while
  anything that changed what the player was deciding does, and the refusal names it.

A move is still used once (its hash is refused the second time), in one game (the game id
and the entry hash), by its signer (the signature is checked first).  The audit re-checks
each such binding when it replays the game (docs/move-file.md, "Where a move stands").
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.base.canonical import canonical
from pbem.base.errors import excerpt
from pbem.core.engine import Rejected
from pbem.core.game import Game
from pbem.store.gamedir import GameDir
from pbem.store.table import Table, acting_player, replay


def named_entry(entries: Sequence[Mapping[str, Any]], after: int, after_hash: str) -> Mapping[str, Any] | None:
    """The entry a move says it was written after, if this log holds it (index and hash prefix)."""
    if not 0 <= after < len(entries):
        return None
    entry = entries[after]
    return entry if str(entry.get("hash", "")).startswith(after_hash) and len(after_hash) >= 12 else None


def view_after(gd: GameDir, game: Game, entries: list[dict[str, Any]], seed: bytes | None, index: int,
               player: str) -> bytes:
    """The canonical bytes of ``player``'s view after entry ``index`` (replayed from the log)."""
    table: Table | None = None
    for table, _entry, _applied in replay(gd, game, entries[: index + 1], seed):
        pass
    assert table is not None
    return canonical(game.view(table.state, player))


NAMED_CHANGES = 3     # a refusal names this many entries, then counts the rest (it stays one short line)


def changes_since(entries: Sequence[Mapping[str, Any]], after: int) -> str:
    """What happened in the game since entry ``after``, for a refusal: "entry 13 (blue's move)";
    the first :data:`NAMED_CHANGES` of them by name, then how many more up to which entry, so that
    the refusal's advice (read the new digest) is not cut off in a receipt."""
    out = []
    for entry in entries[after + 1:]:
        who = acting_player(dict(entry))
        if who is not None:
            what = "move" if entry.get("kind") == "move" else f"{entry.get('action')} by the moderator"
            out.append(f"entry {entry['index']} ({who}'s {what})")
        elif entry.get("kind") == "moderator" and entry.get("action") in ("undo", "seat", "replace-key"):
            out.append(f"entry {entry['index']} ({entry.get('action')} by the moderator)")
    if len(out) > NAMED_CHANGES:
        last = entries[-1]["index"]
        out = out[:NAMED_CHANGES] + [f"{len(out) - NAMED_CHANGES} more up to entry {last}"]
    return ", ".join(out) or "later entries"


def bind(table: Table, player: str, after: int, after_hash: str) -> None:
    """Accept (return) or refuse (:class:`Rejected`) a move written after entry ``after``."""
    last = table.last
    if after == last["index"] and str(last["hash"]).startswith(after_hash):
        return
    if named_entry(table.entries, after, after_hash) is None:
        raise Rejected(f"stale move: it was written after entry {after} ({excerpt(after_hash[:12])}), which is not "
                       f"an entry of this game's log (the log is at entry {last['index']}, {last['hash'][:12]}); "
                       "rewrite the move from the game as it is now (your next digest shows it when you have a "
                       "decision; `pbem play` shows it now)")
    then = view_after(table.gd, table.game, table.entries, table.seed, after, player)
    if then != canonical(table.game.view(table.state, player)):
        raise Rejected(f"stale move: written after entry {after}, but since then {changes_since(table.entries, after)} "
                       f"changed what {player} sees; rewrite the move from the game as it is at log entry "
                       f"{last['index']} (your next digest shows it when you have a decision; `pbem play` shows it now)")
