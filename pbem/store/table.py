"""A game directory loaded into memory: header, log entries, seed and current state."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import AbstractSet, Any, Iterator, Sequence

from pbem.base.canonical import sha256_hex
from pbem.base.errors import PbemError
from pbem.base.fsutil import write_atomic
from pbem.core.draws import ACTING, Draws, auto_draws, move_draws, setup_rng
from pbem.core.engine import Applied, Opener, apply_actions, game_for, header_options, state_hash, with_header_options
from pbem.core.game import Game
from pbem.core.preferences import Preferences
from pbem.core.sealed import SealError, decrypt_plaintext, is_sealed, open_plaintext
from pbem.store.gamedir import GameDir
from pbem.store.log import parse_entries

START_POSITION = "start_position.json"
SEALED = "sealed.json"   # moderator/: the plaintexts of sealed actions, "<entry>/<action number>" -> text


#: the fields of a non-move entry that the table keeps at hand (:attr:`Table.notes`): what the
#: keys, seats, pause, reveal and the digests' moderator lines are read from
NOTE_FIELDS = ("index", "kind", "action", "player", "undoes", "reason", "new_key", "to", "seed")


def note_of(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in NOTE_FIELDS if k in entry}


def since_entry(entries: Sequence[dict[str, Any]], viewer: str | None) -> int:
    """The first entry a reader has not seen as it happened: their own last move (the public:
    the last move); a player who has not moved yet: the first move of the game (at least 1)."""
    start = len(entries) - 1
    for i in range(len(entries) - 1, 0, -1):
        e = entries[i]
        if e.get("kind") != "move":
            continue
        start = i
        if viewer is None or e.get("player") == viewer:
            break
    return max(start, 1)


#: :meth:`Table.load`'s ``snapshot`` when the caller has not read it
NOT_READ: Any = object()


@dataclass
class Table:
    """A game in memory.  A table replayed from the log holds every entry; a table loaded from
    the moderator's snapshot holds the header, the entries from the first one a digest still
    needs (``tail``, from index ``tail_start``), and the moderator's entries in brief
    (:attr:`notes`), and parses the log only when something asks for :attr:`entries`:
    `pbem submit` never does, so its work does not grow with the log."""

    gd: GameDir
    game: Game
    tail: list[dict[str, Any]]          # the entries from index tail_start on (0: every entry)
    seed: bytes | None
    state: Any
    private: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: the snapshot did not match the log, so the derived files may lag it (a repair rewrites them)
    derived_stale: bool = False
    #: the players' preference lists, derived from the log (pbem.core.preferences)
    prefs: Preferences = field(default_factory=Preferences)
    #: the public view (as JSON data) after the recent entries a digest compares the board with
    #: (:func:`board_view_indices`): what moved is drawn without replaying the log
    board_views: dict[int, Any] = field(default_factory=dict)
    #: the text of the log as read (and appended to), so that it is read once per command
    log_text: str = field(default="", repr=False)
    tail_start: int = 0
    head: dict[str, Any] | None = field(default=None, repr=False)   # entry 0 (when the tail starts later)
    _notes: list[dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def entries(self) -> list[dict[str, Any]]:
        """Every entry of the log (parsed from the log text the first time, for a table loaded
        from the snapshot)."""
        if self.tail_start:
            full = parse_entries(self.log_text, str(self.gd.log_path))
            if len(full) != self.tail_start + len(self.tail) or full[-1].get("hash") != self.tail[-1].get("hash"):
                raise PbemError(f"{self.gd.log_path} changed while it was read; run the command again")
            self.tail, self.tail_start = full, 0
        return self.tail

    @property
    def notes(self) -> list[dict[str, Any]]:
        """Every entry after the header that is not a player's move, in brief (:data:`NOTE_FIELDS`)."""
        if self._notes is None:
            self._notes = [note_of(e) for e in self.entries[1:] if e.get("kind") != "move"]
        return self._notes

    def add_entry(self, entry: dict[str, Any]) -> None:
        """The entry just committed to the log."""
        if self._notes is not None and entry.get("kind") != "move":
            self._notes.append(note_of(entry))
        self.tail.append(entry)

    def entries_from(self, index: int) -> list[dict[str, Any]]:
        """The entries with index ``index`` and later."""
        index = max(index, 0)
        if index >= self.tail_start:
            return self.tail[index - self.tail_start:]
        return self.entries[index:]

    def since(self, viewer: str | None) -> int:
        """:func:`since_entry` of the log, from the tail when it reaches back far enough."""
        if self.tail_start:
            for entry in reversed(self.tail):
                if entry.get("kind") == "move" and (viewer is None or entry.get("player") == viewer):
                    return max(entry["index"], 1)
        return since_entry(self.entries, viewer)

    @property
    def header(self) -> dict[str, Any]:
        if self.tail_start and self.head is not None:
            return self.head
        return self.tail[0] if not self.tail_start else self.entries[0]

    @property
    def game_id(self) -> str:
        return self.header["id"]

    @property
    def players(self) -> list[str]:
        return [p["name"] for p in self.header["players"]]

    @property
    def last(self) -> dict[str, Any]:
        return self.tail[-1]

    def key_entries(self) -> list[dict[str, Any]]:
        """The header and the moderator's entries: what :func:`keys_at` reads."""
        return [self.header, *self.notes]

    def player_keys(self, player: str) -> list[str]:
        key_entries = self.key_entries()
        return keys_at(key_entries, player, len(key_entries))

    @property
    def paused(self) -> str:
        """The reason the game is paused, or "" when it runs."""
        return paused_reason(self.notes)

    @property
    def revealed_at(self) -> int | None:
        """The index of the reveal entry: from then on the game is closed."""
        return revealed_at(self.notes)

    def seats(self) -> dict[str, str]:
        """player -> "bot" for seats handed to a bot."""
        return bot_seats(self.notes)

    # --- loading ---------------------------------------------------------
    @classmethod
    def load(cls, gd: GameDir, check_derived: bool = True, log_text: str | None = None,
             snapshot: Any = NOT_READ) -> "Table":
        """The moderator's table: needs the seed; uses the snapshot when it matches the log.

        ``check_derived``: also compare the derived files with the snapshot's record of them
        (:func:`_derived_intact`); a file that differs makes the table ``derived_stale``.
        ``log_text``: the text of the log, when the caller has read it already; ``snapshot``: the
        snapshot as :func:`read_snapshot` gave it, when the caller has read it already (under the
        same lock: a repair's plan)."""
        if log_text is None:
            log_text = gd.read_log_text()
        snap = read_snapshot(gd) if snapshot is NOT_READ else snapshot
        if snap and snap.get("log_sha256") == sha256_hex(log_text.encode()) and "tail" in snap:
            # the log is byte for byte the one the snapshot was made with: skip parsing it
            header, tail, start = snap["header"], snap["tail"], int(snap["tail_start"])
            game = game_for(header)
            seed = gd.require_seed([header, *snap["notes"]])
            views = {int(k): v for k, v in (snap.get("board_views") or {}).items()}
            return cls(gd, game, tail, seed,
                       game.from_position(with_header_options(game, header, snap["position"])), snap["private"],
                       prefs=Preferences.from_data(snap.get("preferences")), board_views=views,
                       log_text=log_text, tail_start=start, head=header, _notes=snap["notes"],
                       derived_stale=check_derived and not _derived_intact(gd, snap.get("derived")))
        entries = parse_entries(log_text, str(gd.log_path))   # the text already read, not the file again
        game = game_for(entries[0])
        seed = gd.require_seed(entries)
        table = None
        for table, _entry, _applied in replay(gd, game, entries, seed, board_view_indices(entries)):
            pass
        assert table is not None
        table.derived_stale = True
        table.log_text = log_text
        return table

    @classmethod
    def load_public(cls, gd: GameDir) -> "Table":
        """A player's table: no seed; the state is the public view (hidden values unknown)."""
        entries = gd.entries()
        game = game_for(entries[0])
        view = json.loads((gd.public_dir / "view.json").read_text())
        if view.get("index") != entries[-1]["index"]:
            raise PbemError(f"{gd.public_dir / 'view.json'} is older than the log; fetch the game folder again")
        state = game.from_position(with_header_options(game, entries[0], view["view"]))
        return cls(gd, game, entries, None, state, {})

    def save_snapshot(self, log_text: str, derived: Sequence[Path] = ()) -> None:
        """The moderator's cache for exactly this log text: the state, the header, the entries
        from the first one a digest still needs, the moderator's entries in brief, and the size
        and modification time of each file derived from the log (``derived``, written just
        before).  Its size does not grow with the log as players move."""
        data = log_text.encode()
        start = min(board_view_indices(self))
        snap = {"log_sha256": sha256_hex(data), "log_bytes": len(data),
                "header": self.header, "tail_start": start, "tail": self.entries_from(start), "notes": self.notes,
                "position": self.game.to_position(self.state), "private": self.private,
                "preferences": self.prefs.to_data(),
                "board_views": {str(k): v for k, v in sorted(self.board_views.items())},
                "derived": {str(p.relative_to(self.gd.root)): _identity(p) for p in derived}}
        # insertion order kept (no sort_keys): a state loaded from the snapshot
        # must be indistinguishable from the replayed one
        write_atomic(self.gd.snapshot_path, json.dumps(snap, separators=(",", ":")).encode(), mode=0o600)

    def remember_board(self) -> None:
        """Keep the public view after the last entry (a later digest compares its board with it),
        and forget the views no digest needs any more."""
        self.board_views[self.last["index"]] = public_view_data(self.game, self.state)
        keep = board_view_indices(self)
        self.board_views = {k: v for k, v in self.board_views.items() if k in keep}

    def note_private(self, player: str, applied: Applied) -> None:
        """Keep each player's private events since their own last move (for their digest)."""
        self.private[player] = []
        for event in applied.events:
            for who, data in sorted(event.private.items()):
                self.private.setdefault(who, []).append(data)

    def current_state_hash(self) -> str:
        assert self.seed is not None
        return state_hash(self.game, self.state, self.seed, self.game_id, self.header.get("rules"))


def public_view_data(game: Game, state: Any) -> Any:
    """The public view as JSON data (what the snapshot holds of it: tuples become lists)."""
    return json.loads(json.dumps(game.view(state, None)))


def board_view_indices(log: "Table | list[dict[str, Any]]") -> set[int]:
    """The entries after which a digest needs the public board: the one before each reader's
    first unseen entry (:func:`since_entry`), and the last (the next digest's).
    ``log``: the entries, or a table (which finds them in its tail)."""
    if isinstance(log, Table):
        readers: list[str | None] = [None, *log.players]
        return {log.since(reader) - 1 for reader in readers} | {log.last["index"]}
    readers = [None, *(p["name"] for p in log[0]["players"])]
    return {since_entry(log, reader) - 1 for reader in readers} | {len(log) - 1}


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


def _identity(path: Path) -> list[int]:
    """What tells a file apart from an older or lost copy of it: its size and modification time
    (a copy of the game folder keeps both)."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def changed_derived(gd: GameDir, derived: Any) -> list[str] | None:
    """The files derived from the log that are not the ones written with the snapshot (a power
    cut may lose files that were renamed into place but not yet flushed), or None when the
    snapshot has no record of them."""
    if not isinstance(derived, dict):
        return None             # a snapshot from before the derived files were recorded
    changed = []
    for rel, identity in derived.items():
        try:
            if _identity(gd.root / rel) != identity:
                changed.append(rel)
        except OSError:
            changed.append(rel)
    return changed


def _derived_intact(gd: GameDir, derived: Any) -> bool:
    """Are the files derived from the log the ones written with the snapshot?"""
    return changed_derived(gd, derived) == []


def read_snapshot(gd: GameDir) -> dict[str, Any] | None:
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
        state = game.setup(players, header_options(game, header), setup_rng(seed, header["id"]))
    else:
        state = game.from_position(with_header_options(game, header, position))
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


def replay(gd: GameDir, game: Game, entries: list[dict[str, Any]], seed: bytes | None,
           board_views: AbstractSet[int] = frozenset()
           ) -> Iterator[tuple[Table, dict[str, Any], Applied]]:
    """Rebuild the game entry by entry, yielding the table after each entry.

    An ``undo`` moderator entry rebuilds the state without the entry it undoes
    (that entry stays in the log, visibly undone).  ``board_views``: the entries after
    which the table keeps the public view (:attr:`Table.board_views`).
    """
    start = start_position(gd, entries)
    store = sealed_store(gd, entries)
    table = initial_table(gd, game, entries[0], seed, start)
    views = table.board_views
    if 0 in board_views:
        views[0] = public_view_data(game, table.state)
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
            table.board_views = views
        table.add_entry(entry)
        if entry["index"] in board_views:
            views[entry["index"]] = public_view_data(game, table.state)
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
        table.add_entry(entry)
    return table
