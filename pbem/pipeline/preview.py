"""`pbem check`: a player's preview of a move file against the public state (no seed)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pbem.base import yamlio
from pbem.base.errors import excerpt
from pbem.base.safefile import UnreadableFile, read_regular_file
from pbem.base.yamlio import YamlError
from pbem.core.engine import Rejected, check_actions, game_for
from pbem.crypto import sshsig
from pbem.pipeline.submit import read_move_files
from pbem.store.binding import changes_since, named_entry
from pbem.store.gamedir import GameDir
from pbem.store.missedturns import returns_the_seat
from pbem.store.movefile import MAX_BYTES, MoveFileError, asks_for_seat_back, parse_move


def preview(game_dir: Path, move_path: Path) -> list[str]:
    """Lines describing what is certain about the move; raises Rejected for what would be refused."""
    gd = GameDir(game_dir)
    entries = gd.entries()
    header = entries[0]
    game = game_for(header)
    signed = _signed(move_path)
    raw, signature = read_move_files(move_path, None) if signed else (_read(move_path), "")
    try:
        move = parse_move(raw)
    except (MoveFileError, YamlError) as exc:
        raise Rejected(str(exc)) from None
    if move.game != header["id"]:
        raise Rejected(f"move file is for game {excerpt(move.game)}, not {header['id']!r}")
    keys = {p["name"]: p["key"] for p in header["players"]}
    if move.player not in keys:
        raise Rejected(f"no player {excerpt(move.player)} in this game; players: {', '.join(keys)}")
    last = entries[-1]
    if named_entry(entries, move.after, move.after_hash) is None:
        raise Rejected(f"stale move: written after entry {move.after}, which is not an entry of this game's log "
                       f"(the log is at entry {last['index']}, {last['hash'][:12]}); rewrite it from the new digest")
    if move.after == last["index"]:
        lines = [f"format, game id and log position (entry {last['index']}) are right"]
    else:
        lines = [f"format and game id are right; written after entry {move.after}, the log is at entry "
                 f"{last['index']} since {changes_since(entries, move.after)}: the moderator takes it only if "
                 f"nothing {move.player} sees changed since (else: stale, rewrite it)"]
    if signed:
        try:
            sshsig.verify_tolerant(raw, signature, [keys[move.player]], sshsig.MOVE_NAMESPACE)
            lines.append(f"signature by {move.player}'s key is valid")
        except sshsig.SignatureError as exc:
            raise Rejected(f"bad signature for {move.player}: {exc}") from None
    else:
        lines.append(f"not signed yet: run `pbem sign {move_path} --key KEY` or ssh-keygen -Y sign -n pbem-move")
    if asks_for_seat_back(move.actions):
        return lines + [_seat_back_line(entries, move.player, move.after)]
    view = json.loads((gd.public_dir / "view.json").read_text())["view"]
    state = game.from_position(view)
    applied = check_actions(game, state, move.player, move.actions)
    for n, action in enumerate(applied.actions, 1):
        lines.append(f"action {n} {yamlio.dump_flow(action)}: legal")
    if applied.needs_secret:
        first, last_no = len(applied.actions) + 1, len(move.actions)
        which = f"action {first} depends" if first == last_no else f"actions {first}-{last_no} depend"
        lines.append(f"{which} on a die roll or a hidden value; the moderator will check "
                     f"({applied.dropped_reason})")
    elif applied.dropped:
        lines.append(f"stops early: {applied.dropped_reason}")
    return lines


def _seat_back_line(entries: list[dict[str, Any]], player: str, after: int) -> str:
    """What becomes of a move asking for the seat back (movefile.SEAT_BACK): never taken; it returns
    the seat when :func:`returns_the_seat` says so, else it would only be refused (:class:`Rejected`)."""
    if returns_the_seat(entries, player, after):
        return (f"{{seat: back}}: it asks only for {player}'s seat back from civil disorder; the moderator refuses "
                "the move and gives the seat back")
    raise Rejected(f"{{seat: back}} asks only for {player}'s seat back, and the moderator would only refuse it: "
                   f"{player}'s seat is not in civil disorder, or the move was written before {player} last moved "
                   "or had the seat back")


def _signed(move_path: Path) -> bool:
    return move_path.with_name(move_path.name + ".sig").exists()


def _read(move_path: Path) -> bytes:
    try:
        return read_regular_file(move_path, MAX_BYTES, "move file")
    except UnreadableFile as exc:
        raise Rejected(str(exc)) from None
