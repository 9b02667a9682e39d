"""The moves waiting in ``GAME_DIR/incoming/``: what they are, who added them, and in which order.

Layout: ``incoming/PLAYER/NAME.yaml`` plus ``incoming/PLAYER/NAME.yaml.sig``.
Its README and ``.gitkeep`` files are left alone; any other file put directly in
``incoming/`` is refused with a receipt in ``receipts/_misplaced/`` and removed.  Anything else under ``incoming/PLAYER/`` is an
item too, so that it is answered with a receipt and removed rather than left
lying around.

**Order.**  Items are processed by the position, in the history, of the
commit that *added* the move file (``git log --date-order --reverse``: parents
before children; commits on different branches by commit date), then by path.
A file changed after it was added keeps the place of the commit that added it.
Files whose adding commit cannot be found (e.g. introduced by a merge
resolution) come last.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbem.transport.git_repo import Repo

MOVE_SUFFIX = ".yaml"
SIG_SUFFIX = ".yaml.sig"
IGNORED_NAMES = {".gitkeep", ".gitignore", "README.md", "README.txt", "README"}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
UNKNOWN_POSITION = 10**9
MISPLACED = "_misplaced"   # the receipts folder for files put directly in incoming/ (no player is named so)


@dataclass
class PathHistory:
    """The commits that added or changed one path since it was last deleted (oldest first)."""

    commits: list[str] = field(default_factory=list)
    added_at: int = UNKNOWN_POSITION


@dataclass
class IncomingItem:
    owner: str                 # the folder under incoming/ (a player's name, if all is well)
    name: str                  # NAME: receipts go to receipts/OWNER/NAME.txt
    move: str | None = None    # repository paths
    sig: str | None = None
    other: list[str] = field(default_factory=list)
    problem: str = ""          # set when the layout alone already refuses the item
    position: int = UNKNOWN_POSITION
    commits: dict[str, list[str]] = field(default_factory=dict)   # path -> commits that added/changed it

    @property
    def paths(self) -> list[str]:
        return [p for p in (self.move, self.sig, *self.other) if p]


def history(repo: Repo, incoming: str) -> dict[str, PathHistory]:
    """For every path ever under ``incoming``: the commits since it was last deleted."""
    if repo.head() is None:
        return {}
    out = repo.out("log", "-z", "--date-order", "--reverse", "--no-renames", "--format=%x01%H",
                   "--name-status", "--", incoming)
    result: dict[str, PathHistory] = {}
    position = -1
    commit = ""
    tokens = iter(out.split("\0"))
    for token in tokens:
        if token.startswith("\x01"):
            commit, position = token[1:], position + 1
            continue
        status = token.strip()
        if not status:
            continue
        path = next(tokens, "")
        if status.startswith("D"):
            result.pop(path, None)
            continue
        entry = result.setdefault(path, PathHistory(added_at=position))
        entry.commits.append(commit)
    return result


def _safe_name(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", text).lstrip("._-") or "file"
    return cleaned[:80]


def collect(repo: Repo, incoming: str) -> list[IncomingItem]:
    """The items under ``incoming`` (a repository path), in processing order."""
    items: dict[tuple[str, str], IncomingItem] = {}
    for path in repo.ls_files(incoming):
        parts = path[len(incoming):].strip("/").split("/")
        if parts[-1] in IGNORED_NAMES:
            continue
        if len(parts) == 1:     # directly in incoming/: answered (receipts/_misplaced/) and removed, not ignored
            item = items.setdefault((MISPLACED, parts[0]), IncomingItem(MISPLACED, _safe_name(parts[0])))
            item.other.append(path)
            item.problem = (f"{parts[0]} was put directly in incoming/; put NAME.yaml and NAME.yaml.sig in "
                            "incoming/YOUR_NAME/")
            continue
        owner, rest = parts[0], parts[1:]
        if len(rest) > 1:
            item = items.setdefault((owner, "/".join(rest)), IncomingItem(owner, _safe_name("-".join(rest))))
            item.other.append(path)
            item.problem = f"moves go directly in incoming/{owner}/, not in a sub-folder"
            continue
        filename = rest[0]
        if filename.endswith(SIG_SUFFIX):
            stem, kind = filename[: -len(SIG_SUFFIX)], "sig"
        elif filename.endswith(MOVE_SUFFIX):
            stem, kind = filename[: -len(MOVE_SUFFIX)], "move"
        else:
            stem, kind = filename, "other"
        item = items.setdefault((owner, stem), IncomingItem(owner, _safe_name(stem)))
        if kind == "move":
            item.move = path
        elif kind == "sig":
            item.sig = path
        else:
            item.other.append(path)
            item.problem = (f"{filename} is not a move file; put NAME.yaml and NAME.yaml.sig "
                            f"in incoming/{owner}/")
        if not item.problem and not NAME_RE.match(stem):
            item.problem = (f"file name {filename!r} is not allowed; use letters, digits, '.', '_' and '-' "
                            "(e.g. incoming/red/0012.yaml)")
    found = list(items.values())
    past = history(repo, incoming)
    for item in found:
        main = item.move or item.sig or item.other[0]
        item.position = past[main].added_at if main in past else UNKNOWN_POSITION
        item.commits = {path: list(past[path].commits) if path in past else [] for path in item.paths}
    found.sort(key=lambda it: (it.position, it.move or it.sig or it.other[0]))
    return found

