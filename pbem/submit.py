"""`pbem submit`: take one signed move file, or refuse it without touching the disk."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.append import append_entry, finish_entry
from pbem.canonical import sha256_hex
from pbem.crypto import keys, sshsig
from pbem.engine import Opener, Rejected, apply_actions, event_record, pending_players
from pbem.fsutil import locked
from pbem.gamedir import GameDir
from pbem.movefile import MoveFile, MoveFileError, parse_move
from pbem.sealed import decrypt_plaintext, open_plaintext
from pbem.table import SEALED, Table, sealed_store
from pbem.yamlio import YamlError


@dataclass
class Receipt:
    index: int
    entry_hash: str
    move_sha256: str
    player: str
    events: list[str]
    dropped_reason: str
    waiting_for: list[str]

    def lines(self) -> list[str]:
        out = [f"accepted: {self.player}'s move {self.move_sha256[:16]} is log entry {self.index} "
               f"(entry hash {self.entry_hash[:16]})"]
        out += [f"  {e}" for e in self.events]
        if self.dropped_reason:
            out.append(f"  stopped: {self.dropped_reason}; {self.player} is asked again")
        out.append("  waiting for: " + (", ".join(self.waiting_for) or "nobody - the game is over"))
        return out


def verify_move(table: Table, raw: bytes, signature: str) -> tuple[MoveFile, bytes, str]:
    """Parse, check the signature against the named player's key, and bind to the log position."""
    try:
        move = parse_move(raw)
    except (MoveFileError, YamlError) as exc:
        raise Rejected(str(exc)) from None
    if move.game != table.game_id:
        raise Rejected(f"move file is for game {move.game!r}, not {table.game_id!r}")
    allowed = table.player_keys(move.player)
    if not allowed:
        raise Rejected(f"no player {move.player!r} in this game; players: {', '.join(table.players)}")
    try:
        key, signed = sshsig.verify_tolerant(raw, signature, allowed, sshsig.MOVE_NAMESPACE)
    except sshsig.SignatureError as exc:
        raise Rejected(f"bad signature for {move.player}: {exc}") from None
    if signed != raw:
        move = parse_move(signed)
    digest = sha256_hex(signed)
    for entry in table.entries[1:]:
        if entry.get("move", {}).get("sha256") == digest:
            raise Rejected(f"this move was already accepted as log entry {entry['index']}; nothing to do")
    last = table.last
    if move.after != last["index"] or not last["hash"].startswith(move.after_hash):
        raise Rejected(f"stale move: written after entry {move.after} ({move.after_hash[:12]}) but the log is at "
                       f"entry {last['index']} ({last['hash'][:12]}); read the new digest and rewrite the move")
    if table.game.result(table.state) is not None:
        raise Rejected("the game is over; no more moves are taken")
    if table.seats().get(move.player) == "bot":
        raise Rejected(f"{move.player}'s seat is played by a bot now; ask the moderator to hand it back")
    if table.paused:
        raise Rejected(f"the game is paused by the moderator ({table.paused}); send the move again after it resumes")
    return move, signed, key


def submit(gd: GameDir, raw: bytes, signature: str) -> Receipt:
    with locked(gd.root):
        table = Table.load(gd)
        move, signed, key = verify_move(table, raw, signature)
        index = table.last["index"] + 1
        opened: dict[str, str] = {}
        applied = apply_actions(table.game, table.state, move.player, move.actions,
                                table.seed, table.game_id, index, _opener(gd, index, opened))
        # --- from here on nothing can be refused: build everything, then write ---
        base = f"moves/{index:06d}-{move.player}.yaml"
        entry: dict[str, Any] = {
            "index": index, "kind": "move", "prev": table.last["hash"], "player": move.player,
            "move": {"file": base, "sha256": sha256_hex(signed),
                     "key": keys.fingerprint(key), "signature": _normal_sig(signature)},
            "actions": applied.actions,
            "events": [event_record(e) for e in applied.events],
        }
        if applied.dropped:
            entry["dropped"] = {"reason": applied.dropped_reason, "actions": applied.dropped}
        entry = finish_entry(table, entry)
        table.note_private(move.player, applied)
        archive: dict[str, bytes | str] = {base: signed, base + ".sig": entry["move"]["signature"]}
        if opened:   # keep what only the moderator may read until `pbem reveal`
            store = sealed_store(gd, table.entries)
            store.update({k: v for k, v in opened.items() if int(k.split("/")[1]) < len(applied.actions)})
            archive[f"moderator/{SEALED}"] = json.dumps(store, sort_keys=True, indent=1)
        append_entry(table, entry, archive)
        return Receipt(index, entry["hash"], entry["move"]["sha256"], move.player,
                       [table.game.describe_event(e.public) for e in applied.events],
                       applied.dropped_reason, pending_players(table.game, table.state))


def _opener(gd: GameDir, index: int, opened: dict[str, str]) -> Opener:
    """Open sealed actions with the moderator key, noting each plaintext for the reveal."""
    def opener(k: int, action: Any) -> dict[str, Any]:
        plaintext = decrypt_plaintext(action, gd.moderator_key_path)
        inner = open_plaintext(action, plaintext)
        opened[f"{index}/{k}"] = plaintext
        return inner
    return opener


def _normal_sig(signature: str) -> str:
    """The signature armor with normal line endings (what we archive)."""
    lines = [line.strip() for line in signature.replace("\r\n", "\n").splitlines() if line.strip()]
    return "\n".join(lines) + "\n"


def read_move_files(move_path: Path, sig_path: Path | None) -> tuple[bytes, str]:
    sig_path = sig_path or move_path.with_name(move_path.name + ".sig")
    try:
        raw = move_path.read_bytes()
    except OSError as exc:
        raise Rejected(f"cannot read move file {move_path}: {exc.strerror}") from None
    try:
        signature = sig_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        raise Rejected(f"no signature file {sig_path}; sign the move with "
                       f"`ssh-keygen -Y sign -n pbem-move -f KEY {move_path}` or `pbem sign`") from None
    return raw, signature

