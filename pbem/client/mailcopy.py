"""A mail game's public copy on the player's machine, extended only by updates that check out.

An update (:mod:`pbem.store.update`, attached to each digest) or a public copy (the answer to
``send log``) is applied only when its entries chain onto the copy's head (the same bytes where
they overlap the copy) and the audit any player can run passes on the copy it would make
(:func:`pbem.pipeline.audit.audit` without the derived files: the hash chain, the moderator's
signature on every entry, every signed move and its binding), checked in a scratch folder
first.  Then the move files, the public view and last the log (the one commit point) are written;
a move file an interrupted apply left with no entry naming it is removed by the next one.
A copy is started only from entry 0, and only for a game whose header gives the player's seat
the player's own key.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.crypto import keys
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.store.leftovers import ARCHIVE_NAME
from pbem.store.log import LOG_NAME, split_chunks
from pbem.store.table import keys_at
from pbem.store.update import Received

APPLIED, HELD, GAP, REFUSED = "applied", "held", "gap", "refused"


@dataclass(frozen=True)
class Outcome:
    verdict: str          # applied | held (nothing new) | gap (the copy lacks entries before it) | refused
    line: str


def head(gd: GameDir) -> int:
    """The last entry of the copy (-1: no copy yet)."""
    if not gd.log_path.is_file():
        return -1
    chunks = split_chunks(gd.log_path.read_text(encoding="utf-8"))
    return chunks[-1].index if chunks else -1


def apply(gd: GameDir, update: Received, player: str, player_key: str, name: str,
          moderator_key: str | None = None) -> Outcome:
    """Extend the copy with ``update`` if it chains on and checks out (``name``: where it came from;
    ``moderator_key``: the key the player pinned, which a new copy's header must name)."""
    if update.game_id != gd.root.name:
        return Outcome(REFUSED, f"{name}: an update of game {update.game_id}, not of {gd.root.name}")
    old = gd.log_path.read_text(encoding="utf-8") if gd.log_path.is_file() else ""
    mine = split_chunks(old) if old else []
    top = mine[-1].index if mine else -1
    if update.start > top + 1:
        return Outcome(GAP, f"{name}: entries {update.start} to {update.end}, but your copy ends at entry {top}: "
                            "the entries between are missing")
    theirs = split_chunks(update.log_text)
    overlap = [c for c in theirs if c.index <= top]
    if any(c.text != mine[c.index].text for c in overlap):
        return Outcome(REFUSED, f"{name}: its entry {next(c.index for c in overlap if c.text != mine[c.index].text)} "
                                "differs from the one your copy holds (a rewritten log, or a forgery)")
    fresh = [c for c in theirs if c.index > top]
    stale_view = _view_index(gd) != top and update.end == top
    if not fresh and not stale_view:
        return Outcome(HELD, f"{name}: nothing new (your copy holds entries up to {top})")
    text = old + "".join(c.text for c in fresh)
    header: dict[str, Any] = (mine or theirs)[0].entry or {}
    if top < 0 and not _seat_is_mine(header, player, player_key):
        return Outcome(REFUSED, f"{name}: a game whose seat {player} is not your key: not taken")
    if top < 0 and moderator_key and not _same_key(header, moderator_key):
        return Outcome(REFUSED, f"{name}: a game whose moderator key is not the one you pinned: not taken")
    view_problem = _view_binding(update, (theirs[-1].entry or {}).get("hash"))
    if view_problem:
        return Outcome(REFUSED, f"{name}: {view_problem}")
    problems = _audited(gd, text, update)
    if problems:
        return Outcome(REFUSED, f"{name}: does not check out ({problems[0]})")
    _write(gd, text, update, bool(fresh))
    return Outcome(APPLIED, f"{name}: entries {fresh[0].index if fresh else top} to {update.end} checked and added")


def _view_binding(update: Received, end_hash: object) -> str:
    """The public view must name the update's last entry and its hash ('' when it does); what it
    shows is checked only by the replay once the seed is revealed (docs/playing.md)."""
    raw = update.files.get("public/view.json")
    if raw is None:
        return "it holds no public view"
    try:
        view = json.loads(raw)
        bound = (view["id"], view["index"], view["hash"]) == (update.game_id, update.end, end_hash)
    except (ValueError, KeyError, TypeError):
        bound = False
    return "" if bound else f"its public view is not the one of entry {update.end}"


def _view_index(gd: GameDir) -> int:
    try:
        return int(json.loads((gd.public_dir / "view.json").read_text())["index"])
    except (OSError, ValueError, KeyError, TypeError):
        return -2


def _seat_is_mine(header: dict[str, object], player: str, player_key: str) -> bool:
    try:
        seats = keys_at([header], player, 0)
        return keys.normalise_public_key(player_key) in {keys.normalise_public_key(k) for k in seats}
    except (PbemError, KeyError, TypeError, AttributeError):
        return False


def _same_key(header: dict[str, Any], moderator_key: str) -> bool:
    try:
        theirs = header.get("moderator", {}).get("key", "")
        return bool(keys.normalise_public_key(str(theirs)) == keys.normalise_public_key(moderator_key))
    except (PbemError, AttributeError):
        return False


def _audited(gd: GameDir, text: str, update: Received) -> list[str]:
    """The audit of the copy the update would make, in a scratch folder beside it."""
    gd.root.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".check-", dir=gd.root.parent))
    try:
        trial = GameDir(scratch / gd.root.name)
        trial.moves_dir.mkdir(parents=True)
        if gd.moves_dir.is_dir():
            for path in gd.moves_dir.iterdir():
                os.link(path, trial.moves_dir / path.name)
        for rel, data in update.files.items():
            if rel.startswith("moves/"):
                (trial.root / rel).write_bytes(data)
        (trial.root / LOG_NAME).write_text(text, encoding="utf-8")
        try:
            report = audit(trial, [], derived=False)
        except PbemError as exc:
            return [str(exc)]
        return list(report.problems)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _write(gd: GameDir, text: str, update: Received, log_grows: bool) -> None:
    gd.moves_dir.mkdir(parents=True, exist_ok=True)
    for rel, data in sorted(update.files.items()):
        if rel.startswith("moves/") and not (gd.root / rel).exists():
            write_atomic(gd.root / rel, data, mode=0o644)
    view = update.files.get("public/view.json")
    if view is not None:
        write_atomic(gd.public_dir / "view.json", view, mode=0o644)
    if log_grows:
        write_atomic(gd.log_path, text, mode=0o644)         # the commit point


def tidy(gd: GameDir) -> list[str]:
    """Remove the archived move files no entry of the log names (an apply interrupted before its
    log write left them); say which."""
    if not gd.log_path.is_file() or not gd.moves_dir.is_dir():
        return []
    named = set()
    for chunk in split_chunks(gd.log_path.read_text(encoding="utf-8")):
        rel = str(((chunk.entry or {}).get("move") or {}).get("file", ""))
        named |= {Path(rel).name, Path(rel).name + ".sig"}
    removed = []
    for path in sorted(gd.moves_dir.iterdir()):
        if path.name not in named and (ARCHIVE_NAME.match(path.name) or path.name.endswith(".sig")):
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(path.name)
    return removed
