"""A game directory loaded into memory: header, log entries, seed and current state."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator

from pbem.canonical import sha256_hex
from pbem.draws import ACTING, Draws, auto_draws, move_draws, setup_rng
from pbem.engine import Applied, Opener, apply_actions, game_for, state_hash
from pbem.errors import PbemError
from pbem.fsutil import write_atomic
from pbem.game import Game
from pbem.gamedir import GameDir
from pbem.log import parse_entries
from pbem.preferences import Preferences
from pbem.sealed import SealError, decrypt_plaintext, is_sealed, open_plaintext

START_POSITION = "start_position.json"
SEALED = "sealed.json"   # moderator/: the plaintexts of sealed actions, "<entry>/<action number>" -> text


@dataclass
class Table:
    gd: GameDir
    game: Game
    entries: list[dict[str, Any]]
    seed: bytes | None
    state: Any
    private: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: the snapshot did not match the log, so the derived files may lag it (a repair rewrites them)
    derived_stale: bool = False
    #: the players' preference lists, derived from the log (pbem.preferences)
    prefs: Preferences = field(default_factory=Preferences)

    @property
    def header(self) -> dict[str, Any]:
        return self.entries[0]

    @property
    def game_id(self) -> str:
        return self.header["id"]

    @property
    def players(self) -> list[str]:
        return [p["name"] for p in self.header["players"]]

    @property
    def last(self) -> dict[str, Any]:
        return self.entries[-1]

    def player_keys(self, player: str) -> list[str]:
        return keys_at(self.entries, player, len(self.entries))

    @property
    def paused(self) -> str:
        """The reason the game is paused, or "" when it runs."""
        return paused_reason(self.entries)

    @property
    def revealed_at(self) -> int | None:
        """The index of the reveal entry: from then on the game is closed."""
        return revealed_at(self.entries)

    def seats(self) -> dict[str, str]:
        """player -> "bot" for seats handed to a bot."""
        return bot_seats(self.entries)

    # --- loading ---------------------------------------------------------
    @classmethod
    def load(cls, gd: GameDir) -> "Table":
        """The moderator's table: needs the seed; uses the snapshot when it matches the log."""
        log_text = gd.read_log_text()
        snap = _read_snapshot(gd)
        if snap and snap.get("log_sha256") == sha256_hex(log_text.encode()):
            # the log is byte for byte the one the snapshot was made with: skip parsing it
            entries = snap["entries"]
            game = game_for(entries[0])
            seed = gd.require_seed(entries)
            return cls(gd, game, entries, seed, game.from_position(snap["position"]), snap["private"],
                       prefs=Preferences.from_data(snap.get("preferences")))
        entries = parse_entries(log_text, str(gd.log_path))   # the text already read, not the file again
        game = game_for(entries[0])
        seed = gd.require_seed(entries)
        table = None
        for table, _entry, _applied in replay(gd, game, entries, seed):
            pass
        assert table is not None
        table.derived_stale = True
        return table

    @classmethod
    def load_public(cls, gd: GameDir) -> "Table":
        """A player's table: no seed; the state is the public view (hidden values unknown)."""
        entries = gd.entries()
        game = game_for(entries[0])
        view = json.loads((gd.public_dir / "view.json").read_text())
        if view.get("index") != entries[-1]["index"]:
            raise PbemError(f"{gd.public_dir / 'view.json'} is older than the log; fetch the game folder again")
        return cls(gd, game, entries, None, game.from_position(view["view"]), {})

    def save_snapshot(self, log_text: str) -> None:
        """The moderator's cache: the state and parsed entries for exactly this log text."""
        snap = {"log_sha256": sha256_hex(log_text.encode()), "entries": self.entries,
                "position": self.game.to_position(self.state), "private": self.private,
                "preferences": self.prefs.to_data()}
        # insertion order kept (no sort_keys): a state loaded from the snapshot
        # must be indistinguishable from the replayed one
        write_atomic(self.gd.snapshot_path, json.dumps(snap, separators=(",", ":")).encode(), mode=0o600)

    def note_private(self, player: str, applied: Applied) -> None:
        """Keep each player's private events since their own last move (for their digest)."""
        self.private[player] = []
        for event in applied.events:
            for who, data in sorted(event.private.items()):
                self.private.setdefault(who, []).append(data)

    def current_state_hash(self) -> str:
        assert self.seed is not None
        return state_hash(self.game, self.state, self.seed, self.game_id)


def keys_at(entries: list[dict[str, Any]], player: str, upto: int) -> list[str]:
    """The key(s) ``player`` signs with for an entry at position ``upto`` (key replacements count)."""
    found: list[str] = [p["key"] for p in entries[0]["players"] if p["name"] == player]
    for entry in entries[1:upto]:
        if entry.get("kind") == "moderator" and entry.get("player") == player and "new_key" in entry:
            found = [entry["new_key"]]
    return found


def revealed_at(entries: list[dict[str, Any]]) -> int | None:
    return next((e["index"] for e in entries if e.get("kind") == "reveal"), None)


def closed_message(index: int) -> str:
    return (f"the game is closed: the seed was revealed at log entry {index}, so every roll and hidden value is "
            "public now; nothing more can be played (only moderator notes are taken)")


def paused_reason(entries: list[dict[str, Any]]) -> str:
    reason = ""
    for entry in entries:
        if entry.get("kind") == "moderator" and entry.get("action") in ("pause", "resume"):
            reason = entry.get("reason", "paused") if entry["action"] == "pause" else ""
    return reason


def bot_seats(entries: list[dict[str, Any]]) -> dict[str, str]:
    seats: dict[str, str] = {}
    for entry in entries:
        if entry.get("kind") == "moderator" and entry.get("action") == "seat":
            if entry.get("to") == "bot":
                seats[entry["player"]] = "bot"
            else:
                seats.pop(entry["player"], None)
    return seats


def _read_snapshot(gd: GameDir) -> dict[str, Any] | None:
    try:
        return json.loads(gd.snapshot_path.read_bytes())
    except (FileNotFoundError, ValueError):
        return None


def start_position(gd: GameDir, entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The full start position of a game begun with --position (moderator copy, or revealed)."""
    header = entries[0]
    if header.get("start") == "setup":
        return None
    path = gd.moderator_dir / START_POSITION
    if path.is_file():
        return json.loads(path.read_bytes())
    for entry in entries:
        if entry.get("kind") == "reveal" and "start_position" in entry:
            return entry["start_position"]
    return None


def sealed_store(gd: GameDir, entries: list[dict[str, Any]]) -> dict[str, str]:
    """Plaintexts of sealed actions, "<entry>/<action number from 0>" -> text: revealed in the
    log, or the moderator's cache completed by decrypting with the moderator key (a CI
    moderator starts from a fresh clone; a crash may have stopped before the cache was written)."""
    for entry in entries:
        if entry.get("kind") == "reveal":
            return dict(entry.get("sealed", {}))
    store: dict[str, str] = {}
    path = gd.moderator_dir / SEALED
    if path.is_file():
        try:
            store = {k: v for k, v in json.loads(path.read_text()).items() if isinstance(v, str)}
        except ValueError:
            store = {}
    if not gd.moderator_key_path.is_file():
        return store
    for entry in entries:
        for k, action in enumerate(entry.get("actions", []) if acting_player(entry) else []):
            key = f"{entry['index']}/{k}"
            if is_sealed(action) and key not in store:
                store[key] = decrypt_plaintext(action, gd.moderator_key_path)
    return store


def store_opener(store: dict[str, str], index: int) -> Opener:
    def opener(k: int, action: Any) -> dict[str, Any]:
        plaintext = store.get(f"{index}/{k}")
        if plaintext is None:
            raise SealError(f"the plaintext of sealed action {k + 1} of entry {index} is not known (not revealed yet)")
        return open_plaintext(action, plaintext)
    return opener


def initial_table(gd: GameDir, game: Game, header: dict[str, Any], seed: bytes | None,
                  position: dict[str, Any] | None) -> Table:
    players = [p["name"] for p in header["players"]]
    if position is None:
        state = game.setup(players, header["options"], setup_rng(seed, header["id"]))
    else:
        state = game.from_position(position)
    return Table(gd, game, [header], seed, state, {})


def acting_player(entry: dict[str, Any]) -> str | None:
    """Whose decisions an entry applies: a player's move, or a moderator timeout/bot move."""
    if entry.get("kind") == "move":
        return entry["player"]
    if entry.get("kind") == "moderator" and entry.get("action") in ACTING:
        return entry["player"]
    return None


def entry_draws(before: list[dict[str, Any]], entry: dict[str, Any], seed: bytes | None) -> Draws:
    """Where the draws of ``entry`` (an acting entry appended after ``before``) come from."""
    if entry.get("kind") == "move":
        return move_draws(before[0], seed, entry["index"], entry["move"]["signature"])
    return auto_draws(before[0], seed, entry["index"], before, entry["player"])


def replay(gd: GameDir, game: Game, entries: list[dict[str, Any]], seed: bytes | None
           ) -> Iterator[tuple[Table, dict[str, Any], Applied]]:
    """Rebuild the game entry by entry, yielding the table after each entry.

    An ``undo`` moderator entry rebuilds the state without the entry it undoes
    (that entry stays in the log, visibly undone).
    """
    start = start_position(gd, entries)
    store = sealed_store(gd, entries)
    table = initial_table(gd, game, entries[0], seed, start)
    yield table, entries[0], Applied()
    undone: set[int] = set()
    for entry in entries[1:]:
        applied = Applied()
        player = acting_player(entry)
        if player is not None:
            applied = apply_actions(game, table.state, player, entry["actions"],
                                    entry_draws(table.entries, entry, seed), store_opener(store, entry["index"]),
                                    table.prefs)
            table.note_private(player, applied)
        elif entry.get("kind") == "moderator" and entry.get("action") == "undo":
            undone.add(entry["undoes"])
            table = _rebuild(gd, game, table.entries, seed, start, undone, store)
        table.entries.append(entry)
        yield table, entry, applied


def _rebuild(gd: GameDir, game: Game, entries: list[dict[str, Any]], seed: bytes | None,
             start: dict[str, Any] | None, undone: set[int], store: dict[str, str]) -> Table:
    table = initial_table(gd, game, entries[0], seed, start)
    for entry in entries[1:]:
        player = acting_player(entry)
        if player is not None and entry["index"] not in undone:
            applied = apply_actions(game, table.state, player, entry["actions"],
                                    entry_draws(table.entries, entry, seed), store_opener(store, entry["index"]),
                                    table.prefs)
            table.note_private(player, applied)
        table.entries.append(entry)
    return table
