"""The moves waiting in ``GAME_DIR/incoming/``: what they are, who added them, and in which order.

Everything here is read from git **objects** (``ls-tree``, ``cat-file``), never from
a work tree: nothing a player pushed is checked out, so no ``.gitattributes``,
filter, hook or link of theirs ever applies to what pbem reads.  Paths are bytes
until they pass the checks below.

Layout: ``incoming/PLAYER/NAME.yaml`` plus ``incoming/PLAYER/NAME.yaml.sig``.  The
moderator's own files directly in ``incoming/`` (its README) are not items.  Every
other entry is an item that is answered with a receipt (``receipts/OWNER/NAME.txt``)
and then left out of the shared branch:

* *carriable* entries, ``incoming/SEAT/FILE`` with both names made of letters,
  digits, ``.``, ``_``, ``-`` (starting with a letter or digit) and a regular file
  (mode 100644 or 100755): the moderator's commits keep them in ``incoming/``
  until they are processed;
* everything else (a name that is not UTF-8, holds control characters or is
  ``.``, ``..`` or ``.git``; a symbolic link; a submodule; a sub-folder; a file put
  directly in ``incoming/``) is refused, before anything is read, and never
  carried (a fresh clone of the shared branch therefore always checks out).

**Sources.**  The shared branch's tip, and with ``--pull-requests`` each pull
request's head (``refs/pull/N/head``).

**Order.**  The shared branch's items first, then each pull request's, by number.
Within a source: by the position, in that source's history, of the commit that
*added* the move file (``git log --date-order --reverse``: parents before
children; commits on different branches by commit date), then by path.  A file
changed after it was added keeps the place of the commit that added it; files
whose adding commit cannot be found (made in a merge resolution) come last.
Refusals that need no reading come before everything else.
"""
from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from pbem.base.errors import escape_text
from pbem.transport.git.history import UNKNOWN_POSITION, MergeBases, history
from pbem.transport.git.repo import Repo, TreeEntry

INCOMING = "incoming"
MOVE_SUFFIX = ".yaml"
SIG_SUFFIX = ".yaml.sig"
#: the moderator's own files directly in incoming/ (pbem git init writes the README): never items
OWN_NAMES = frozenset({".gitkeep", ".gitignore", "README.md", "README.txt", "README"})
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
MISPLACED = "_misplaced"   # the receipts folder for what has no valid player folder
#: entries of one source looked at in one sync; beyond it they wait (and are reported)
MAX_ENTRIES = 100_000
RESERVED = frozenset({".", "..", ".git"})


@dataclass(frozen=True)
class Source:
    """Where items are read from: the shared branch or one pull request's head."""

    tip: str                 # a commit
    number: int = 0          # the pull request's number; 0 for the shared branch
    base: str | None = None  # a pull request's history starts after this commit (the shared branch)

    @property
    def label(self) -> str:
        return f"pull request #{self.number}" if self.number else "the shared branch"


@dataclass
class IncomingItem:
    owner: str                     # receipts/OWNER/ (a player's name, if all is well)
    name: str                      # receipts/OWNER/NAME.txt
    incoming: str                  # the repository path of the game's incoming/ folder
    source: Source = field(default_factory=lambda: Source(""))
    move: TreeEntry | None = None  # paths relative to incoming/
    sig: TreeEntry | None = None
    other: list[TreeEntry] = field(default_factory=list)
    problem: str = ""              # set when the layout alone already refuses the item
    carriable: bool = True         # kept in incoming/ until processed (see the module's text)
    position: int = UNKNOWN_POSITION
    commits: dict[str, list[str]] = field(default_factory=dict)   # shown path -> commits that added/changed it

    @property
    def entries(self) -> list[TreeEntry]:
        return [e for e in (self.move, self.sig, *self.other) if e is not None]

    @property
    def blobs(self) -> list[str]:
        """What the item is, in its receipt: the object ids of its files (move, signature, others)."""
        return [e.oid for e in self.entries]

    @property
    def shown(self) -> str:
        """``red/0012.yaml``: the item's first file, below incoming/, printable."""
        return shown_path(self.entries[0].path)

    def repo_path(self, entry: TreeEntry) -> bytes:
        return self.incoming.encode() + b"/" + entry.path


#: how many pushed paths a process remembers the answers of :func:`shown_path` and :func:`path_problem` for (a
#: sync lists the same incoming/ again after every batch it pushes: thousands of junk files, many times)
PATH_ANSWERS_KEPT = 1 << 14


@functools.lru_cache(maxsize=PATH_ANSWERS_KEPT)
def shown_path(path: bytes) -> str:
    """A pushed path as one printable line (invalid UTF-8 and control characters escaped)."""
    return escape_text(path.decode("utf-8", errors="backslashreplace"))


def _component_problem(part: bytes) -> str:
    try:
        text = part.decode("utf-8")
    except UnicodeDecodeError:
        return "is not UTF-8"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp") for c in text):
        return "holds control characters"
    if text.casefold() in RESERVED or text.rstrip(". ").casefold() == ".git":
        return "holds a '.', '..' or '.git' part"
    return ""


@functools.lru_cache(maxsize=PATH_ANSWERS_KEPT)
def path_problem(path: bytes) -> str:
    """Why a path cannot be carried in a tree that everyone checks out ('' when it can)."""
    for part in path.split(b"/"):
        problem = _component_problem(part)
        if problem:
            return problem
    return ""


def hashed_name(path: bytes, source: Source, owner: str = MISPLACED) -> str:
    """A receipt name for an item whose own name cannot be one: starts with '_', which no valid
    NAME does, so it never collides with a move's receipt (``owner``: the folder it goes in)."""
    shown = path.decode("utf-8", errors="replace")
    if owner != MISPLACED and shown.startswith(owner + "/"):
        shown = shown[len(owner) + 1:]
    text = re.sub(r"[^A-Za-z0-9._-]", "_", shown.replace("/", "-")).strip("._-")[:40]
    digest = hashlib.sha256(source.label.encode() + b"\0" + path).hexdigest()[:12]
    return f"_{text or 'file'}-{digest}"


def classify(entries: list[TreeEntry], incoming: str, source: Source) -> list[IncomingItem]:
    """Group one source's entries under incoming/ into items (unordered)."""
    items: dict[tuple[str, str], IncomingItem] = {}
    for entry in entries:
        parts = entry.path.split(b"/")
        shown = shown_path(entry.path)
        bad = path_problem(entry.path)
        if len(parts) == 1 and not bad and parts[0].decode() in OWN_NAMES:
            continue
        owner_text = parts[0].decode("utf-8", errors="replace") if len(parts) > 1 else ""
        owner = owner_text if len(parts) > 1 and NAME_RE.match(owner_text) and not bad else MISPLACED
        if len(parts) == 2 and owner != MISPLACED and NAME_RE.match(parts[1].decode()):
            _group(items, entry, owner, parts[1].decode(), incoming, source)
            continue
        if bad:
            problem = (f"the path incoming/{shown} {bad}; put NAME.yaml and NAME.yaml.sig in incoming/YOUR_NAME/, "
                       "named with letters, digits, '.', '_' and '-'")
        elif len(parts) == 1:
            problem = f"{shown} was put directly in incoming/; put NAME.yaml and NAME.yaml.sig in incoming/YOUR_NAME/"
        elif owner == MISPLACED:
            problem = (f"the folder incoming/{owner_text} is not allowed; put moves in incoming/YOUR_NAME/ "
                       "(the name you play under)")
        elif len(parts) > 2:
            problem = f"moves go directly in incoming/{owner}/, not in a sub-folder ({shown})"
        else:
            problem = (f"file name {parts[1].decode()!r} is not allowed; use letters, digits, '.', '_' and '-' "
                       "(e.g. incoming/red/0012.yaml)")
        name = parts[0].decode() if len(parts) == 1 and not bad and NAME_RE.match(parts[0].decode()) \
            else hashed_name(entry.path, source, owner)
        item = IncomingItem(owner, name, incoming, source, other=[entry], problem=problem, carriable=False)
        items[(owner, f"/{name}")] = item
    return list(items.values())


def _group(items: dict[tuple[str, str], IncomingItem], entry: TreeEntry, owner: str, filename: str,
           incoming: str, source: Source) -> None:
    if filename.endswith(SIG_SUFFIX):
        stem, kind = filename[: -len(SIG_SUFFIX)], "sig"
    elif filename.endswith(MOVE_SUFFIX):
        stem, kind = filename[: -len(MOVE_SUFFIX)], "move"
    else:
        stem, kind = filename, "other"
    if not NAME_RE.match(stem):      # "x..yaml" and the like: the stem alone is not a name
        stem, kind = filename, "other"
    item = items.setdefault((owner, stem), IncomingItem(owner, stem, incoming, source))
    if not entry.regular:        # a link or a submodule: the whole item is refused before anything is read
        what = {"120000": "a symbolic link", "160000": "a submodule"}.get(entry.mode, "not a regular file")
        item.problem = f"incoming/{shown_path(entry.path)} is {what}; send the move and its signature as regular files"
        item.carriable = False
    if kind == "move":
        item.move = entry
    elif kind == "sig":
        item.sig = entry
    else:
        item.other.append(entry)
        item.problem = item.problem or (f"{filename} is not a move file; put NAME.yaml and NAME.yaml.sig "
                                        f"in incoming/{owner}/")


@dataclass
class Listing:
    """What one source holds under incoming/: its items (unordered until :func:`order`), and the
    entries beyond :data:`MAX_ENTRIES`, not looked at in this sync."""

    items: list[IncomingItem] = field(default_factory=list)
    unlisted: list[TreeEntry] = field(default_factory=list)


def carriable(entry: TreeEntry) -> bool:
    """``PLAYER/FILE``, both plain names, a regular file: safe to keep in any checkout."""
    parts = entry.path.split(b"/")
    return len(parts) == 2 and entry.regular and all(NAME_RE.match(p.decode("ascii", "replace")) for p in parts)


def collect(repo: Repo, source: Source, incoming: str, tree: str | None = "") -> Listing:
    """The items under ``incoming`` (a repository path) in one source; ``tree``: that folder's tree in
    the source, when the caller has looked it up (None: there is none)."""
    if tree == "":
        tree = repo.resolve_path(source.tip, incoming, "tree")
    if tree is None:
        return Listing()
    return listing_of(repo.ls_tree(tree), source, incoming)


def listing_of(entries: list[TreeEntry], source: Source, incoming: str) -> Listing:
    """The items of one source, from the files below its ``incoming`` folder (paths relative to it)."""
    return Listing(classify(entries[:MAX_ENTRIES], incoming, source), entries[MAX_ENTRIES:])


def below(files: list[TreeEntry], incoming: str) -> list[TreeEntry]:
    """The files below ``incoming`` in a whole tree's listing (``ls-tree -r``), with paths relative to it,
    as ``ls-tree -r`` of that folder's own tree lists them."""
    inside = incoming.encode() + b"/"
    return [TreeEntry(e.mode, e.kind, e.oid, e.path[len(inside):]) for e in files if e.path.startswith(inside)]


def order(repo: Repo, source: Source, incoming: str, items: list[IncomingItem], cache: Path | None = None,
          bases: MergeBases | None = None) -> None:
    """Give each item of one source its place in the source's history, and the commits that added
    or changed its files (for --verify-commits).  ``cache``: the moderator's private folder, where
    the shared branch's history is kept between syncs (:mod:`pbem.transport.git.history`); ``bases``:
    merge bases the walk proves (:func:`~pbem.transport.git.history.history`)."""
    if not items:
        return
    past = history(repo, source.tip, source.base, incoming, cache, bases)
    for item in items:
        main = item.repo_path(item.entries[0])
        item.position = past[main].added_at if main in past else UNKNOWN_POSITION
        item.commits = {shown_path(e.path): list(past[p].commits) if (p := item.repo_path(e)) in past else []
                        for e in item.entries}
