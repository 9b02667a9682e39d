"""A game directory loaded into memory: header, log entries, seed and current state."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator

from pbem.engine import Applied, apply_actions, game_for, setup_rng, state_hash
from pbem.fsutil import write_atomic
from pbem.game import Game
from pbem.gamedir import GameDir

START_POSITION = "start_position.json"


@dataclass
class Table:
    gd: GameDir
    game: Game
    entries: list[dict[str, Any]]
    seed: bytes | None
    state: Any
    private: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

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
        for p in self.header["players"]:
            if p["name"] == player:
                return [p["key"]]
        return []

    # --- loading ---------------------------------------------------------
    @classmethod
    def load(cls, gd: GameDir) -> "Table":
        """The moderator's table: needs the seed; uses the snapshot when it matches the log."""
        entries = gd.entries()
        game = game_for(entries[0])
        seed = gd.require_seed(entries)
        snap = _read_snapshot(gd)
        if snap and snap["index"] == entries[-1]["index"] and snap["hash"] == entries[-1]["hash"]:
            return cls(gd, game, entries, seed, game.from_position(snap["position"]), snap["private"])
        table = None
        for table, _entry, _applied in replay(gd, game, entries, seed):
            pass
        assert table is not None
        return table

    def save_snapshot(self) -> None:
        snap = {"index": self.last["index"], "hash": self.last["hash"],
                "position": self.game.to_position(self.state), "private": self.private}
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


def initial_table(gd: GameDir, game: Game, header: dict[str, Any], seed: bytes | None,
                  position: dict[str, Any] | None) -> Table:
    players = [p["name"] for p in header["players"]]
    if position is None:
        state = game.setup(players, header["options"], setup_rng(seed, header["id"]))
    else:
        state = game.from_position(position)
    return Table(gd, game, [header], seed, state, {})


def replay(gd: GameDir, game: Game, entries: list[dict[str, Any]], seed: bytes | None
           ) -> Iterator[tuple[Table, dict[str, Any], Applied]]:
    """Rebuild the game entry by entry, yielding the table after each entry."""
    table = initial_table(gd, game, entries[0], seed, start_position(gd, entries))
    yield table, entries[0], Applied()
    for entry in entries[1:]:
        applied = Applied()
        if entry["kind"] == "move":
            applied = apply_actions(game, table.state, entry["player"], entry["actions"],
                                    seed, table.game_id, entry["index"])
            table.note_private(entry["player"], applied)
        table.entries.append(entry)
        yield table, entry, applied
