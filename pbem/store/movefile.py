"""The move file a player signs: which game, who, where in the log, and the actions."""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from pbem.base import yamlio
from pbem.base.errors import PbemError, excerpt

FORMAT = "pbem-move/1"
MAX_BYTES = yamlio.MOVE_LIMITS.max_bytes
MAX_SIGNATURE_BYTES = 8 * 1024   # an SSHSIG armour is about 300 bytes
MAX_ACTIONS = 100                # a whole turn written ahead is about 20 actions in the games we have
MAX_NAME = 128
KEYS = ("format", "game", "player", "after", "after_hash", "actions")
#: the one action of a move that only takes its player's seat back from civil disorder
#: (docs/move-file.md, "Taking your seat back"): never taken, in any game; refused, and while the seat
#: is in civil disorder that refusal returns the seat (a move needs an action: a move with none is
#: refused as it is read, before anyone knows who sent it)
SEAT_BACK: Mapping[str, str] = MappingProxyType({"seat": "back"})


class MoveFileError(PbemError):
    """One line saying what is wrong with the move file."""


@dataclass(frozen=True)
class MoveFile:
    game: str            # the game id from the header
    player: str
    after: int           # index of the last log entry the player saw
    after_hash: str      # that entry's hash (a prefix of at least 12 hex digits is accepted)
    actions: list[dict[str, Any]]

    def to_data(self) -> dict[str, Any]:
        return {"format": FORMAT, "game": self.game, "player": self.player,
                "after": self.after, "after_hash": self.after_hash, "actions": self.actions}


def asks_for_seat_back(actions: list[dict[str, Any]]) -> bool:
    """Does a move hold :data:`SEAT_BACK`? (Such a move is never taken, whatever else it holds.)"""
    return SEAT_BACK in actions


def render_move(move: MoveFile, comment: str = "") -> str:
    head = "".join(f"# {line}\n" for line in comment.splitlines())
    body = yamlio.dump({k: v for k, v in move.to_data().items() if k != "actions"})
    if not move.actions:
        return head + body + "actions: []\n"
    actions = "actions:\n" + "".join(f"  - {yamlio.dump_flow(a)}\n" for a in move.actions)
    return head + body + actions


def parse_move(raw: bytes, what: str = "move file") -> MoveFile:
    """Parse a move file's bytes (verify its signature on these bytes first: see pbem.pipeline.submit)."""
    data = yamlio.load_strict(raw, what, yamlio.MOVE_LIMITS)
    if not isinstance(data, dict):
        raise MoveFileError(f"{what} must be a YAML mapping with format, game, player, after, after_hash, actions")
    if data.get("format") != FORMAT:
        raise MoveFileError(f"{what}: 'format' must be {FORMAT!r} (got {excerpt(data.get('format'))})")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise MoveFileError(f"{what}: unknown key(s) {excerpt(', '.join(unknown))}; allowed: {', '.join(KEYS)}")
    for key, kind in (("game", str), ("player", str), ("after", int), ("after_hash", str), ("actions", list)):
        value = data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise MoveFileError(f"{what}: '{key}' must be a {kind.__name__} (got {excerpt(value)})")
    for key in ("game", "player", "after_hash"):
        if len(data[key]) > MAX_NAME:
            raise MoveFileError(f"{what}: '{key}' is longer than {MAX_NAME} characters")
    if len(data["after_hash"]) < 12:
        raise MoveFileError(f"{what}: 'after_hash' must have at least 12 hex digits of the entry's hash")
    if not data["actions"]:
        raise MoveFileError(f"{what}: 'actions' is empty; add at least one action (see `pbem legal`)")
    if len(data["actions"]) > MAX_ACTIONS:
        raise MoveFileError(f"{what} has {len(data['actions'])} actions; at most {MAX_ACTIONS} are allowed in one move")
    for n, action in enumerate(data["actions"], 1):
        if not isinstance(action, dict) or not action:
            raise MoveFileError(f"{what}: action {n} must be a mapping such as {{move: r7, to: G5}} "
                                f"(got {excerpt(action)})")
    return MoveFile(data["game"], data["player"], data["after"], data["after_hash"], data["actions"])
