"""The game so far as the player saw it: every public entry, and their own view of the time.

Mid-game and without the seed: the public entries come from the log of the player's copy; what
the player saw privately after an entry comes from their own secrets of that time, which the
game's git history holds (every version of ``secrets/PLAYER.age`` the moderator published,
opened with the player's key).  Where one sync published several entries at once, the view
shown for an entry is the last one the player received at or before it, and says which.  After
the reveal, the whole replay (:mod:`pbem.views.replay`) shows everything.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from pbem.base.errors import PbemError
from pbem.client.config import PlayedGame
from pbem.crypto import agecrypt
from pbem.store.gamedir import GameDir
from pbem.store.table import Table, revealed_at
from pbem.transport.git.repo import Repo
from pbem.views.outputs import describe, read_private_view
from pbem.views.viewpatch import apply_patch

MAX_VERSIONS = 5000      # versions of the secrets file read back, newest first


@dataclass
class History:
    """The entries in words, and the player's own views by the entry they were made after."""

    entries: list[dict[str, Any]]
    seen: dict[int, dict[str, Any]] = field(default_factory=dict)
    revealed: bool = False

    def seen_at(self, index: int) -> tuple[int, dict[str, Any]] | None:
        """The last view the player had at or before entry ``index`` (and that entry)."""
        earlier = [i for i in self.seen if i <= index]
        return (max(earlier), self.seen[max(earlier)]) if earlier else None


def entry_lines(table: Table) -> list[dict[str, Any]]:
    rows = []
    for entry in table.gd.entries():
        who = entry.get("player", "moderator")
        lines = [describe(table, ev) for ev in entry.get("events", [])]
        if entry.get("kind") == "moderator" and entry.get("reason"):
            lines.append(f"moderator: {entry.get('action', '')} - {entry['reason']}")
        rows.append({"index": entry["index"], "kind": entry.get("kind", ""), "who": who, "lines": lines})
    return rows


def seen_views(game: PlayedGame, opener: Callable[[bytes], bytes] | None = None) -> dict[int, dict[str, Any]]:
    """Every private view the player received, from the git history of their secrets file (a mail
    game: from the secrets `pbem play` kept from each digest, with the public view of their entry)."""
    gd = GameDir(game.folder)
    if game.transport == "mail":
        return _mailed_views(game, gd, opener)
    repo = Repo.discover(game.clone)
    secrets_rel = repo.rel(gd.secrets_path(game.player))
    view_rel = repo.rel(gd.public_dir / "view.json")
    commits = repo.out("log", "--first-parent", "--format=%H", f"-n{MAX_VERSIONS}", "--", secrets_rel).split()
    seen: dict[int, dict[str, Any]] = {}
    for commit in commits:
        blob = repo.run_bytes("cat-file", "blob", f"{commit}:{secrets_rel}", check=False)
        if blob.returncode != 0:
            continue                       # removed in that commit
        try:
            plain = opener(blob.stdout) if opener is not None else agecrypt.decrypt(blob.stdout, game.key)
            data = read_private_view(plain.decode("utf-8", errors="replace"))
            if data.get("player") != game.player or not isinstance(data.get("index"), int) or data["index"] in seen:
                continue
            if "view" in data:
                seen[data["index"]] = data["view"]
            else:
                public = json.loads(repo.run_bytes("cat-file", "blob", f"{commit}:{view_rel}").stdout)["view"]
                seen[data["index"]] = apply_patch(public, data["patch"])
        except (PbemError, ValueError, KeyError, TypeError):
            continue                       # a version that does not open or read: not shown, never guessed
    return seen


def history(game: PlayedGame, table: Table, opener: Callable[[bytes], bytes] | None = None) -> History:
    return History(entry_lines(table), seen_views(game, opener), revealed_at(table.gd.entries()) is not None)


def _mailed_views(game: PlayedGame, gd: GameDir, opener: Callable[[bytes], bytes] | None) -> dict[int, dict[str, Any]]:
    seen: dict[int, dict[str, Any]] = {}
    folder = game.play_dir / "secrets"
    for path in sorted(folder.glob("entry-*.age")) if folder.is_dir() else []:
        try:
            raw = path.read_bytes()
            plain = opener(raw) if opener is not None else agecrypt.decrypt(raw, game.key)
            data = read_private_view(plain.decode("utf-8", errors="replace"))
            if data.get("player") != game.player or not isinstance(data.get("index"), int):
                continue
            if "view" in data:
                seen[data["index"]] = data["view"]
            else:           # a patch on the public view of the same entry, kept when it came
                public = json.loads((game.play_dir / "views" / f"entry-{data['index']:06d}.json").read_text())
                if public.get("index") == data["index"]:
                    seen[data["index"]] = apply_patch(public["view"], data["patch"])
        except (PbemError, OSError, ValueError, KeyError, TypeError):
            continue
    return seen
