"""`pbem submit`: take one signed move file, or refuse it without touching the disk."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.base.canonical import sha256_hex
from pbem.base.errors import PbemError, excerpt
from pbem.base.safefile import UnreadableFile, read_regular_file
from pbem.base.yamlio import YamlError
from pbem.core.draws import move_draws
from pbem.core.engine import Applied, Opener, Rejected, apply_actions, event_record, game_for
from pbem.core.game import pending_players
from pbem.core.sealed import decrypt_plaintext, open_plaintext
from pbem.crypto import keys, sshsig
from pbem.pipeline.append import append_entry, finish_entry
from pbem.pipeline.moderator import ModeratorError, moderate
from pbem.pipeline.repair import open_game
from pbem.store import receipts
from pbem.store.binding import bind
from pbem.store.gamedir import GameDir
from pbem.store.missedturns import returns_the_seat
from pbem.store.movefile import (
    MAX_BYTES,
    MAX_SIGNATURE_BYTES,
    MoveFile,
    MoveFileError,
    asks_for_seat_back,
    parse_move,
)
from pbem.store.table import Table, closed_message, keys_at


@dataclass
class Receipt:
    index: int
    entry_hash: str
    move_sha256: str
    player: str
    events: list[str]
    dropped_reason: str
    waiting_for: list[str]
    signed: tuple[bytes, str] | None = None   # the moderator-signed receipt: body and signature (pbem.store.receipts)

    def lines(self) -> list[str]:
        out = [f"accepted: {self.player}'s move {self.move_sha256[:16]} is log entry {self.index} "
               f"(entry hash {self.entry_hash})"]
        out += [f"  {e}" for e in self.events]
        if self.dropped_reason:
            out.append(f"  stopped: {self.dropped_reason}; {self.player} is asked again")
        out.append("  waiting for: " + (", ".join(self.waiting_for) or "nobody - the game is over"))
        return out


def identify_signer(entries: list[dict[str, Any]], raw: bytes, signature: str) -> tuple[list[str], str, bytes]:
    """Check the signature on the raw bytes before anything is parsed.

    The SSHSIG armour names the key that made it; that key must be a player's
    current key.  Returns (the players holding that key, the key, the bytes
    that verified: the raw bytes, or them with mail-client damage undone).
    Nothing of ``raw`` is parsed here, so a stranger's file costs one hash.
    """
    if len(raw) > MAX_BYTES:
        raise Rejected(f"the move file is {len(raw)} bytes; the limit is {MAX_BYTES}")
    if len(signature) > MAX_SIGNATURE_BYTES:
        raise Rejected(f"the signature is {len(signature)} characters; an SSH signature is about 300: "
                       "send the .sig file that ssh-keygen -Y sign wrote")
    try:
        key = sshsig.parse_signature(signature).public_key_line
    except sshsig.SignatureError as exc:
        raise Rejected(f"bad signature: {exc}") from None
    players = [p["name"] for p in entries[0]["players"]]
    owners = [p for p in players if key in keys_at(entries, p, len(entries))]
    if not owners:
        raise Rejected(f"bad signature: signed by key {keys.fingerprint(key)}, which is not the key of any "
                       "player of this game; sign with the key you gave the moderator")
    try:
        key, signed = sshsig.verify_tolerant(raw, signature, [key], sshsig.MOVE_NAMESPACE)
    except sshsig.SignatureError as exc:
        raise Rejected(f"bad signature for {owners[0]}: {exc}") from None
    return owners, key, signed


class ReturnsSeat(Rejected):
    """A move refused (stale, or for a decision the player no longer has) from a player whose seat
    is in civil disorder: it is refused, but it shows the player is back (:func:`submit` appends
    the ``return`` entry)."""

    def __init__(self, reason: str, player: str, after: int, asked: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.player, self.after = reason, player, after
        self.asked = asked      # the move only asked for the seat back (movefile.SEAT_BACK)


class SeatReturned(Rejected):
    """The refusal of a move that returned its player's seat from civil disorder: the move is not
    taken, but the log has a new ``return`` entry (``index``)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


def verify_move(table: Table, raw: bytes, signature: str) -> tuple[MoveFile, bytes, str]:
    """Check the signature, then parse, then bind the move to its place in the log."""
    move, signed, key = identified_move(table, raw, signature)
    bind(table, move.player, move.after, move.after_hash)
    return move, signed, key


def identified_move(table: Table, raw: bytes, signature: str) -> tuple[MoveFile, bytes, str]:
    """Check the signature, then parse: the move of a player who may move now (not yet bound to
    its place in the log)."""
    if table.revealed_at is not None:
        raise Rejected(closed_message(table.revealed_at))
    owners, key, signed = identify_signer(table.key_entries(), raw, signature)
    try:
        move = parse_move(signed)
    except (MoveFileError, YamlError) as exc:
        raise Rejected(str(exc)) from None
    if move.player not in owners:
        raise Rejected(f"the move is written for player {excerpt(move.player)} but signed with "
                       f"{' and '.join(owners)}'s key; each player signs only their own moves")
    if move.game != table.game_id:
        raise Rejected(f"move file is for game {excerpt(move.game)}, not {table.game_id!r}")
    digest = sha256_hex(signed)
    for entry in table.entries_from(max(move.after + 1, 1)):   # a move is taken after the entry it names
        if entry.get("move", {}).get("sha256") == digest:
            raise Rejected(f"this move was already accepted as log entry {entry['index']}; nothing to do")
    if table.game.result(table.state) is not None:
        raise Rejected("the game is over; no more moves are taken")
    if table.seats().get(move.player) == "bot":
        raise Rejected(f"{move.player}'s seat is played by a bot now; ask the moderator to hand it back")
    if table.paused:
        raise Rejected(f"the game is paused by the moderator ({table.paused}); send the move again after it resumes")
    return move, signed, key


def submit(gd: GameDir, raw: bytes, signature: str, label: str = "") -> Receipt:
    """Take one signed move (``label``: how the player named it, for the moderator's entry when it
    returns a seat from civil disorder), or refuse it (:class:`Rejected`)."""
    try:
        return _submit(gd, raw, signature)
    except ReturnsSeat as exc:
        try:
            entry = return_seat(gd, exc, label)
        except ModeratorError:            # returned meanwhile (by hand, say): only the refusal is left
            raise Rejected(exc.reason) from None
        raise SeatReturned(f"{exc.player}'s seat is {exc.player}'s again: civil disorder is over (moderator entry "
                           f"{entry['index']}), and from now on {exc.player}'s decisions wait for {exc.player}'s "
                           f"moves; read the new digest and move from it. This move itself is not taken: "
                           f"{exc.reason}", entry["index"]) from None


def return_seat(gd: GameDir, exc: ReturnsSeat, label: str) -> dict[str, Any]:
    """The moderator's signed ``return`` entry for the player whose refused move ``exc`` came in.
    The reason names the move by how it came (``label``) and the entry it was written after, never
    by its hash: a refused move stays private (its hash would let the others try the few moves a
    decision allows until one matches)."""
    named = f" ({label})" if label else ""
    why = "it only asked for the seat back" if exc.asked else "it came too late"
    return moderate(gd, "return", f"{exc.player} sent a move{named}, written after entry {exc.after}, while a bot "
                                  f"decided for the seat: the seat is {exc.player}'s again (the move itself was "
                                  f"refused: {why})", player=exc.player)


def _submit(gd: GameDir, raw: bytes, signature: str) -> Receipt:
    with open_game(gd) as table:
        move, entry, archive, applied = accept_move(table, raw, signature, moderator_opener(gd))
        append_entry(table, entry, archive)
        return Receipt(entry["index"], entry["hash"], entry["move"]["sha256"], move.player,
                       [table.game.describe_event(e.public) for e in applied.events],
                       applied.dropped_reason, pending_players(table.game, table.state),
                       receipts.issue(table.header, entry, gd.moderator_key_path))


def accept_move(table: Table, raw: bytes, signature: str,
                opener: Opener) -> tuple[MoveFile, dict[str, Any], dict[str, bytes | str], Applied]:
    """Check and apply one signed move on ``table`` (its state moves on): the move, the sealed log
    entry, the files the entry refers to (the archived move and signature) and what was applied.
    Nothing is written: :func:`pbem.pipeline.append.append_entry` commits the entry."""
    move, signed, key = identified_move(table, raw, signature)
    index = table.last["index"] + 1
    asked = asks_for_seat_back(move.actions)
    try:
        if asked:
            raise Rejected(f"this move only asks for {move.player}'s seat back from civil disorder; it has no "
                           "action to take")
        bind(table, move.player, move.after, move.after_hash)
        applied = apply_actions(table.game, table.state, move.player, move.actions,
                                move_draws(table.header, table.seed, index, signature), opener, table.prefs)
    except Rejected as exc:
        if returns_the_seat(table.entries, move.player, move.after):   # the player is back: refused, but
            raise ReturnsSeat(str(exc), move.player, move.after, asked) from None   # it returns the seat
        raise
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
    return move, entry, archive, applied


def moderator_opener(gd: GameDir) -> Opener:
    """Open sealed actions with the moderator key (the plaintexts are cached after the commit)."""
    def opener(k: int, action: Any) -> dict[str, Any]:
        return open_plaintext(action, decrypt_plaintext(action, gd.moderator_key_path))
    return opener


def _normal_sig(signature: str) -> str:
    """The signature armor with normal line endings (what we archive)."""
    lines = [line.strip() for line in signature.replace("\r\n", "\n").splitlines() if line.strip()]
    return "\n".join(lines) + "\n"


def read_move_files(move_path: Path, sig_path: Path | None,
                    follow_symlinks: bool = True) -> tuple[bytes, str]:
    """The move file and its signature, read safely (regular files within the size limits)."""
    sig_path = sig_path or move_path.with_name(move_path.name + ".sig")
    try:
        raw = read_regular_file(move_path, MAX_BYTES, "move file", follow_symlinks)
    except UnreadableFile as exc:
        raise Rejected(str(exc)) from None
    if not sig_path.exists() and not sig_path.is_symlink():
        raise Rejected(f"no signature file {sig_path}; sign the move with "
                       f"`ssh-keygen -Y sign -n pbem-move -f KEY {move_path}` or `pbem sign`")
    try:
        signature = read_regular_file(sig_path, MAX_SIGNATURE_BYTES, "signature file", follow_symlinks)
    except UnreadableFile as exc:
        raise Rejected(str(exc)) from None
    return raw, signature.decode("utf-8", errors="replace")



def receipt_from_log(gd: GameDir, index: int) -> Receipt:
    """The receipt of an accepted move, rebuilt from its log entry."""
    entries = gd.entries()
    entry = entries[index]
    game = game_for(entries[0])
    events = [game.describe_event({k: v for k, v in ev.items() if k != "auto"}) for ev in entry.get("events", [])]
    waiting: list[str] = []
    for d in entries[-1].get("pending", []):
        if d["player"] not in waiting:
            waiting.append(d["player"])
    signed = receipts.issue(entries[0], entry, gd.moderator_key_path) if gd.moderator_key_path.is_file() else None
    return Receipt(index, entry["hash"], entry["move"]["sha256"], entry["player"], events,
                   entry.get("dropped", {}).get("reason", ""), waiting, signed)


def committed_receipt(gd: GameDir, data: bytes) -> Receipt | None:
    """The receipt of the move with exactly these bytes if it is in the log (after a failure
    past the commit point the move counts as taken), else None."""
    if not data:
        return None
    digest = sha256_hex(data)
    try:
        entries = gd.entries()
    except PbemError:
        return None
    index = next((e["index"] for e in entries if e.get("move", {}).get("sha256") == digest), None)
    return None if index is None else receipt_from_log(gd, index)
