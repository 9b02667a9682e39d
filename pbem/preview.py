"""`pbem check`: a player's preview of a move file against the public state (no seed)."""
from __future__ import annotations

import json
from pathlib import Path

from pbem import yamlio
from pbem.crypto import sshsig
from pbem.engine import Rejected, check_actions, game_for
from pbem.gamedir import GameDir
from pbem.movefile import MoveFileError, parse_move
from pbem.yamlio import YamlError


def preview(game_dir: Path, move_path: Path) -> list[str]:
    """Lines describing what is certain about the move; raises Rejected for what would be refused."""
    gd = GameDir(game_dir)
    entries = gd.entries()
    header = entries[0]
    game = game_for(header)
    raw = move_path.read_bytes()
    try:
        move = parse_move(raw)
    except (MoveFileError, YamlError) as exc:
        raise Rejected(str(exc)) from None
    if move.game != header["id"]:
        raise Rejected(f"move file is for game {move.game!r}, not {header['id']!r}")
    keys = {p["name"]: p["key"] for p in header["players"]}
    if move.player not in keys:
        raise Rejected(f"no player {move.player!r} in this game; players: {', '.join(keys)}")
    last = entries[-1]
    if move.after != last["index"] or not last["hash"].startswith(move.after_hash):
        raise Rejected(f"stale move: written after entry {move.after} but the log is at entry {last['index']} "
                       f"({last['hash'][:12]}); rewrite it from the new digest")
    lines = [f"format, game id and log position (entry {last['index']}) are right"]
    sig_path = move_path.with_name(move_path.name + ".sig")
    if sig_path.is_file():
        try:
            sshsig.verify_tolerant(raw, sig_path.read_text(errors="replace"), [keys[move.player]], sshsig.MOVE_NAMESPACE)
            lines.append(f"signature by {move.player}'s key is valid")
        except sshsig.SignatureError as exc:
            raise Rejected(f"bad signature for {move.player}: {exc}") from None
    else:
        lines.append(f"not signed yet: run `pbem sign {move_path} --key KEY` or ssh-keygen -Y sign -n pbem-move")
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
