"""A thin wrapper over the ``git`` command line (``subprocess``), with one-line errors.

Everything the git exchange does to a repository goes through :class:`Repo`,
so that every call runs with the same identity (``-c user.name=...``) and the
same environment (no prompts, C locale), and every failure is a
:class:`GitError` whose text is one line a person can act on.

Besides the porcelain that ``pbem git init`` uses (add, commit), it offers the
plumbing that ``pbem git sync`` builds on: reading trees and blobs as objects
(never through a work tree, so no attribute, filter or hook applies), writing
objects from the moderator's files, building trees in a private index and
moving a branch with ``update-ref`` (atomic: the old value is given).
Paths from a tree are bytes: a pushed file name need not be UTF-8.
"""
from __future__ import annotations

import base64
import os
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pbem.base.errors import PbemError, one_line
from pbem.base.fsutil import fault_step

MODERATOR_NAME = "pbem moderator"
MODERATOR_EMAIL = "moderator@pbem.invalid"
#: modes of a regular file in a tree (anything else is a link, a submodule or a folder)
REGULAR_MODES = ("100644", "100755")


class GitError(PbemError):
    """A git command failed; ``str`` is one line."""


@dataclass(frozen=True)
class Identity:
    name: str = MODERATOR_NAME
    email: str = MODERATOR_EMAIL

    def config(self) -> list[str]:
        return ["-c", f"user.name={self.name}", "-c", f"user.email={self.email}"]


@dataclass(frozen=True)
class TreeEntry:
    """One line of ``git ls-tree -r``: a file (or link, or submodule) somewhere below a tree."""

    mode: str        # 100644, 100755, 120000 (link), 160000 (submodule)
    kind: str        # blob, commit
    oid: str
    path: bytes      # relative to the tree listed; raw bytes, as pushed

    @property
    def regular(self) -> bool:
        return self.kind == "blob" and self.mode in REGULAR_MODES


@dataclass(frozen=True)
class Author:
    """Who wrote a commit and when (kept when a commit is rebuilt on another parent)."""

    name: str
    email: str
    date: str        # git's raw date: "SECONDS +ZONE"


@dataclass(frozen=True)
class Checkout:
    """What a sync asks about the clone before it starts, from one ``git rev-parse``."""

    head: str | None                  # the commit HEAD points at (None on an unborn branch)
    branch: str | None                # the checked-out branch (None when HEAD is detached)
    paths: dict[str, Path]            # name -> its place in the git folder (``--git-path``)


#: how long (ms) a git of the sync waits for a ref that another git holds (git's default: 100): a git
#: that outlived a killed sync, or the moderator's own ``git fetch``, may hold the clone's
#: remote-tracking ref for a moment when the next sync starts
REF_LOCK_WAIT_MS = 10_000


def _git_env(config: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment for git; ``config`` goes in as GIT_CONFIG_KEY_n/VALUE_n (not on the command line,
    where every process on the machine could read a token)."""
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C", "GIT_EDITOR": "true",
                "GIT_MERGE_AUTOEDIT": "no"})
    env.pop("GIT_INDEX_FILE", None)      # a private index is always passed explicitly
    if config:
        start = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
        for i, (key, value) in enumerate(config, start):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
        env["GIT_CONFIG_COUNT"] = str(start + len(config))
    return env


def token_header(token: str) -> str:
    """The HTTP header that authenticates git with a token, as actions/checkout sets it for GitHub."""
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    return f"AUTHORIZATION: basic {basic}"


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    meaningful = [line for line in lines if line.startswith(("fatal:", "error:", "!"))]
    return one_line((meaningful or lines or ["(no message)"])[0])


def git_available() -> bool:
    return shutil.which("git") is not None


def parse_ls_tree(out: bytes) -> list[TreeEntry]:
    """``git ls-tree -z`` output as entries (paths stay bytes)."""
    entries = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split(" ")
        entries.append(TreeEntry(mode, kind, oid, path))
    return entries


#: how often a fetch is tried when the remote-tracking ref moved under it (another git, such as an
#: earlier run's command that outlived it), and the pause before the next try (seconds, growing)
FETCH_ATTEMPTS = 4
FETCH_PAUSE = 0.2


@dataclass(frozen=True)
class Repo:
    """A git working tree (``root`` is its top-level folder)."""

    root: Path
    identity: Identity = Identity()
    #: git settings for talking to the remote only (fetch, push), e.g. a token header; never logged
    remote_config: tuple[tuple[str, str], ...] = ()

    # --- finding a repository ---------------------------------------------
    @classmethod
    def discover(cls, path: Path, identity: Identity = Identity()) -> Repo:
        """The repository that contains ``path``; GitError if there is none."""
        if not git_available():
            raise GitError("git is not installed (or not on PATH); install git 2.34 or newer")
        if not path.is_dir():
            raise GitError(f"{path} is not a folder")
        proc = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel"], check=False, capture_output=True,
                              text=True, env=_git_env())
        if proc.returncode != 0:
            raise GitError(f"{path} is not inside a git repository; clone the game's shared repository "
                           "(or run `git init`) first")
        return cls(Path(proc.stdout.strip()).resolve(), identity)

    def with_token(self, token: str) -> Repo:
        """This repository, fetching and pushing with an HTTP token (such as a CI job's GITHUB_TOKEN)."""
        return replace(self, remote_config=(("http.extraheader", token_header(token)),))

    def rel(self, path: Path) -> str:
        """``path`` relative to the repository root, with ``/`` separators ('' for the root)."""
        try:
            rel = path.resolve().relative_to(self.root)
        except ValueError:
            raise GitError(f"{path} is not inside the repository {self.root}") from None
        text = rel.as_posix()
        return "" if text == "." else text

    # --- running git --------------------------------------------------------
    def _command(self, args: Sequence[str], config: Sequence[str]) -> list[str]:
        cmd = ["git", "-C", str(self.root), *self.identity.config(), "-c", "core.quotePath=false",
               "-c", f"core.filesRefLockTimeout={REF_LOCK_WAIT_MS}"]
        for item in config:
            cmd += ["-c", item]
        return cmd + list(args)

    def run(self, *args: str, config: Sequence[str] = (), check: bool = True,
            stdin: str | None = None, remote: bool = False) -> subprocess.CompletedProcess[str]:
        """``git -C ROOT -c identity... [config] ARGS``; GitError on failure when ``check``.
        ``remote``: a command that talks to the remote, which gets :attr:`remote_config`."""
        fault_step(f"git {args[0]}")
        env = _git_env(self.remote_config if remote else ())
        proc = subprocess.run(self._command(args, config), check=False, capture_output=True, text=True, env=env,
                              input=stdin, encoding="utf-8", errors="surrogateescape")
        if check and proc.returncode != 0:
            raise GitError(f"git {args[0]} failed: {_first_line(proc.stderr or proc.stdout)}")
        return proc

    def run_bytes(self, *args: str, stdin: bytes | None = None, check: bool = True,
                  env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        """As :meth:`run`, with bytes in and out (for paths that need not be UTF-8, and blobs);
        ``env``: extra variables, such as GIT_INDEX_FILE for a private index."""
        fault_step(f"git {args[0]}")
        full = _git_env()
        full.update(env or {})
        proc = subprocess.run(self._command(args, ()), check=False, capture_output=True, env=full, input=stdin)
        if check and proc.returncode != 0:
            message = (proc.stderr or proc.stdout).decode("utf-8", errors="replace")
            raise GitError(f"git {args[0]} failed: {_first_line(message)}")
        return proc

    def out(self, *args: str, config: Sequence[str] = ()) -> str:
        return self.run(*args, config=config).stdout

    # --- questions -----------------------------------------------------------
    def head(self) -> str | None:
        """The commit HEAD points at, or None on an unborn branch."""
        return self.resolve("HEAD")

    def resolve(self, spec: str, kind: str = "commit") -> str | None:
        """The object ``spec`` names, peeled to ``kind`` (commit, tree), or None if there is none."""
        proc = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{spec}^{{{kind}}}", check=False)
        return proc.stdout.strip() if proc.returncode == 0 else None

    def lookup(self, specs: Sequence[str]) -> list[tuple[str, str] | None]:
        """Each spec (``OID^{tree}``, ``OID:PATH``, a ref...) as (object id, type), or None where there is
        no such object: one ``cat-file --batch-check`` for them all."""
        if not specs:
            return []
        if any("\n" in spec for spec in specs):
            raise GitError("a git object name holds a line break")
        stdin = "".join(f"{spec}\n" for spec in specs).encode("utf-8", errors="surrogateescape")
        lines = self.run_bytes("cat-file", "--batch-check=%(objectname) %(objecttype)", stdin=stdin).stdout
        found: list[tuple[str, str] | None] = []
        for line in lines.decode("utf-8", errors="replace").splitlines():
            parts = line.split(" ")
            ok = len(parts) == 2 and len(parts[0]) in (40, 64) and parts[1] in ("commit", "tree", "blob", "tag")
            found.append((parts[0], parts[1]) if ok else None)
        if len(found) != len(specs):
            raise GitError(f"git cat-file answered {len(found)} of {len(specs)} questions")
        return found

    def commit_trees(self, specs: Sequence[str]) -> list[tuple[str, str] | None]:
        """Each spec peeled to a commit as (commit, its tree), or None where it names no commit: the
        commit objects read in one ``cat-file --batch``."""
        if any("\n" in spec or not spec.endswith("^{commit}") for spec in specs):
            raise GitError("a commit to look up must be one line ending in ^{commit}")
        stdin = "".join(f"{spec}\n" for spec in specs).encode("utf-8", errors="surrogateescape")
        out = self.run_bytes("cat-file", "--batch", stdin=stdin).stdout
        found: list[tuple[str, str] | None] = []
        pos = 0
        while pos < len(out):
            end = out.index(b"\n", pos)
            header = out[pos:end].decode("utf-8", errors="replace").split(" ")
            pos = end + 1
            if len(header) != 3 or header[1] != "commit":      # "<spec> missing", "<spec> ambiguous"
                found.append(None)
                continue
            size = int(header[2])
            first = out[pos:pos + size].split(b"\n", 1)[0].decode("ascii", errors="replace").split(" ")
            found.append((header[0], first[1]) if len(first) == 2 and first[0] == "tree" else None)
            pos += size + 1
        if len(found) != len(specs):
            raise GitError(f"git cat-file answered {len(found)} of {len(specs)} questions")
        return found

    def resolve_path(self, rev: str, path: str, kind: str) -> str | None:
        """The object at ``path`` in ``rev``'s tree if it is a ``kind`` (tree, blob), else None."""
        out = self.run_bytes("cat-file", "--batch-check", stdin=f"{rev}:{path}\n".encode()).stdout.split()
        return out[0].decode("ascii") if len(out) == 3 and out[1].decode("ascii") == kind else None

    def current_branch(self) -> str | None:
        proc = self.run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        return proc.stdout.strip() if proc.returncode == 0 else None

    def config_get(self, key: str) -> str | None:
        proc = self.run("config", "--get", key, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else None

    def is_ancestor(self, older: str, newer: str) -> bool:
        return self.run("merge-base", "--is-ancestor", older, newer, check=False).returncode == 0

    def merge_base(self, a: str, b: str) -> str | None:
        proc = self.run("merge-base", a, b, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else None

    def ls_files(self, prefix: str) -> list[str]:
        """Tracked paths under ``prefix`` (repository-relative)."""
        return [p for p in self.out("ls-files", "-z", "--", prefix or ".").split("\0") if p]

    def checkout(self, *git_paths: str) -> Checkout:
        """HEAD's commit, the checked-out branch and these files of the git folder: one ``rev-parse``
        (on an unborn branch, where it fails, one question at a time)."""
        args = [a for name in git_paths for a in ("--git-path", name)]
        proc = self.run("rev-parse", *args, "HEAD^{commit}", "--symbolic-full-name", "HEAD", "--", check=False)
        lines = proc.stdout.splitlines()
        if proc.returncode != 0 or len(lines) != len(git_paths) + 3 or lines[-1] != "--":
            return Checkout(self.head(), self.current_branch(), self._git_paths(git_paths))
        full = lines[-2]
        if full == "HEAD":
            branch = None
        elif full.startswith("refs/heads/"):
            branch = full[len("refs/heads/"):]
        else:                                 # HEAD names something other than a branch: as git shortens it
            branch = self.current_branch()
        paths = {name: self._in_root(path) for name, path in zip(git_paths, lines)}
        return Checkout(lines[-3].strip(), branch, paths)

    def _in_root(self, path: str) -> Path:
        return Path(path) if Path(path).is_absolute() else self.root / path

    def _git_paths(self, names: Sequence[str]) -> dict[str, Path]:
        if not names:
            return {}
        paths = self.out("rev-parse", *[a for name in names for a in ("--git-path", name)]).splitlines()
        return {name: self._in_root(path) for name, path in zip(names, paths)}

    #: what a half-done operation leaves in the git folder
    UNFINISHED = (("rebase-merge", "rebase"), ("rebase-apply", "rebase"), ("MERGE_HEAD", "merge"),
                  ("CHERRY_PICK_HEAD", "cherry-pick"))

    def unfinished_operation(self, paths: Mapping[str, Path] | None = None) -> str | None:
        """'rebase', 'merge' or 'cherry-pick' when one was left half done in this clone (``paths``: the
        git folder's files as :meth:`checkout` found them)."""
        if paths is None:
            paths = self._git_paths([name for name, _what in self.UNFINISHED])
        for name, what in self.UNFINISHED:
            if paths[name].exists():
                return what
        return None

    def git_path(self, name: str) -> Path:
        """A file in the repository's git folder (``git rev-parse --git-path``)."""
        path = Path(self.out("rev-parse", "--git-path", name).strip())
        return path if path.is_absolute() else self.root / path

    def staged_paths(self) -> list[str]:
        return [p for p in self.out("diff", "--cached", "--name-only", "-z").split("\0") if p]

    def staged_diff(self) -> str:
        return self.out("diff", "--cached", "--no-color", "--no-ext-diff", "-U0", "--text")

    # --- objects (never through the work tree) ----------------------------------
    def ls_tree(self, tree: str) -> list[TreeEntry]:
        """Every file below ``tree`` (recursively; no folders), paths relative to it."""
        return parse_ls_tree(self.run_bytes("ls-tree", "-r", "-z", "--full-tree", tree).stdout)

    def object_sizes(self, oids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """Object id -> (type, size), for those that exist (one ``cat-file --batch-check``)."""
        if not oids:
            return {}
        out = self.run_bytes("cat-file", "--batch-check", stdin="".join(f"{o}\n" for o in oids).encode()).stdout
        found: dict[str, tuple[str, int]] = {}
        for line in out.decode("ascii", errors="replace").splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] != "missing":
                found[parts[0]] = (parts[1], int(parts[2]))
        return found

    def read_blobs(self, oids: Sequence[str]) -> dict[str, bytes]:
        """The contents of these blobs, as stored (one ``cat-file --batch``: no attributes, no filters)."""
        wanted = list(dict.fromkeys(oids))
        if not wanted:
            return {}
        out = self.run_bytes("cat-file", "--batch", stdin="".join(f"{o}\n" for o in wanted).encode()).stdout
        found: dict[str, bytes] = {}
        pos = 0
        while pos < len(out):
            end = out.index(b"\n", pos)
            header = out[pos:end].decode("ascii").split()
            pos = end + 1
            if len(header) != 3:            # "<oid> missing"
                continue
            size = int(header[2])
            if header[1] == "blob":
                found[header[0]] = out[pos:pos + size]
            pos += size + 1
        return found

    def hash_files(self, paths: Sequence[str]) -> list[str]:
        """Store these files (repository-relative) as blobs, byte for byte (``--no-filters``)."""
        if not paths:
            return []
        stdin = "".join(f"{p}\n" for p in paths).encode("utf-8", errors="surrogateescape")
        out = self.run_bytes("hash-object", "-w", "--no-filters", "--stdin-paths", stdin=stdin).stdout
        oids = out.decode("ascii").split()
        if len(oids) != len(paths):
            raise GitError(f"git hash-object stored {len(oids)} of {len(paths)} files")
        return oids

    def write_tree(self, index: Path, records: bytes, fresh: bool) -> str:
        """A tree built in the private index file ``index`` from ``update-index -z --index-info``
        records.  ``fresh``: the index starts empty and ``records`` are every file of the tree (in path
        order: each one is appended); else they change what the index holds (the last tree written
        there; mode 0 removes a path)."""
        env = {"GIT_INDEX_FILE": str(index)}
        if fresh:
            index.unlink(missing_ok=True)       # this process's own index (a killed sync's is another file)
        if records:
            self.run_bytes("update-index", "-z", "--index-info", stdin=records, env=env)
        return self.run_bytes("write-tree", env=env).stdout.decode("ascii").strip()

    def commit_tree(self, tree: str, parents: Sequence[str], message: str, author: Author | None = None) -> str:
        """A commit object (no branch moves); ``author`` keeps a rebuilt commit's author and date."""
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        env = {}
        if author is not None:
            env = {"GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email, "GIT_AUTHOR_DATE": author.date}
        return self.run_bytes(*args, stdin=message.encode("utf-8"), env=env).stdout.decode("ascii").strip()

    def update_ref(self, ref: str, new: str, old: str | None) -> None:
        """Move ``ref`` to ``new`` if it still is ``old`` (None: if it does not exist yet)."""
        self.run("update-ref", "-m", "pbem git sync", ref, new, old or "0" * len(new))

    def commit_info(self, commit: str) -> tuple[str, Author, list[str]]:
        """A commit's message, author and parents."""
        out = self.run_bytes("log", "-1", "--format=%an%x00%ae%x00%ad%x00%P%x00%B", "--date=raw", commit).stdout
        name, email, date, parents, message = out.decode("utf-8", errors="replace").split("\0", 4)
        return message.rstrip("\n") + "\n", Author(name, email, date), parents.split()

    def rev_list(self, *args: str) -> list[str]:
        return self.out("rev-list", *args).split()

    def authors(self, new: str, old: str | None, most: int = 1000) -> list[str]:
        """The author names (one line each, as the commits say) of the commits in ``new`` and not in ``old``."""
        span = [new, f"^{old}"] if old else [new]
        out = self.run("log", f"--max-count={most}", "--format=%an", *span, "--", check=False).stdout
        return [one_line(name)[:60] or "(no name)" for name in out.splitlines()]

    def changes(self, old: str, new: str) -> dict[bytes, tuple[str, str] | None]:
        """Path -> (mode, object id) as ``new`` has it, or None where ``new`` removed it."""
        out = self.run_bytes("diff-tree", "-r", "-z", "--no-renames", old, new).stdout.split(b"\0")
        found: dict[bytes, tuple[str, str] | None] = {}
        for meta, path in zip(out[0::2], out[1::2]):
            if not meta.startswith(b":"):
                continue
            _old_mode, mode, _old_oid, oid, status = meta[1:].decode("ascii").split(" ")
            found[path] = None if status.startswith("D") else (mode, oid)
        return found

    def changed_between(self, old: str | None, new: str) -> list[bytes]:
        """Paths (bytes) that differ between two trees or commits (all of ``new`` when ``old`` is None)."""
        if old is None:
            return [e.path for e in self.ls_tree(new)]
        out = self.run_bytes("diff-tree", "-r", "-z", "--no-renames", "--name-only", old, new).stdout
        return [p for p in out.split(b"\0") if p]

    # --- changes (porcelain: `pbem git init` and `seal-seed`) ------------------
    def add_all(self, *pathspecs: str) -> None:
        self.run("add", "-A", "--", *pathspecs)

    def commit(self, subject: str, body: str = "") -> str | None:
        """Commit what is staged; returns the new commit, or None when nothing is staged."""
        if self.run("diff", "--cached", "--quiet", check=False).returncode == 0:
            return None
        args = ["commit", "-q", "--no-verify", "-m", subject]
        if body:
            args += ["-m", body]
        self.run(*args)
        return self.head()

    # --- the remote -------------------------------------------------------------
    def fetch(self, remote: str, branch: str) -> str | None:
        """Fetch ``remote``'s ``branch``; returns its commit, or None if the branch does not exist there."""
        return self.fetch_and_look(remote, branch)[0]

    def fetch_and_look(self, remote: str, branch: str,
                       commits: Sequence[str] = ()) -> tuple[str | None, dict[str, str]]:
        """As :meth:`fetch`, and commit -> tree for the fetched commit and these ``commits``, asked in
        the same question as the fetched commit (read from the commit object: the tree is that commit's
        even if the remote-tracking branch moved meanwhile)."""
        tracking = f"refs/remotes/{remote}/{branch}"
        for attempt in range(FETCH_ATTEMPTS):
            proc = self.run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote,
                            f"+refs/heads/{branch}:{tracking}", check=False, remote=True)
            # a git command of an earlier, killed run may still be moving the ref for a moment (its push
            # updates the remote-tracking branch): a lock git holds is waited for (filesRefLockTimeout), but
            # a ref that moved between git reading it and locking it ("is at X but expected Y") fails the
            # fetch, and the next try reads it again
            if proc.returncode == 0 or "cannot lock ref" not in proc.stderr or attempt == FETCH_ATTEMPTS - 1:
                break
            time.sleep(FETCH_PAUSE * (attempt + 1))
        if proc.returncode != 0:
            if "couldn't find remote ref" in proc.stderr:
                return None, {}
            raise GitError(f"cannot fetch {branch} from {remote}: {_first_line(proc.stderr)}")
        tip, *found = self.commit_trees([f"{tracking}^{{commit}}", *commits])
        if tip is None:
            raise GitError(f"git fetch left no commit at {tracking}")
        trees = {tip[0]: tip[1]}
        trees.update(dict(t for t in found if t is not None))
        return tip[0], trees

    def fetch_pull_requests(self, remote: str, namespace: str) -> None:
        """Fetch every pull request's head (GitHub's ``refs/pull/N/head``) to ``namespace/N``."""
        proc = self.run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune", remote,
                        f"+refs/pull/*/head:{namespace}/*", check=False, remote=True)
        if proc.returncode != 0:
            raise GitError(f"cannot fetch the pull requests from {remote}: {_first_line(proc.stderr)}")

    def refs(self, namespace: str) -> dict[str, str]:
        """Ref name -> commit, for the refs under ``namespace``."""
        out = self.out("for-each-ref", "--format=%(refname)%00%(objectname)", namespace)
        return dict(line.split("\0", 1) for line in out.splitlines() if "\0" in line)

    def push(self, remote: str, commit: str, branch: str) -> subprocess.CompletedProcess[str]:
        """Push ``commit`` to ``remote``'s ``branch`` (never forced); the caller looks at the result."""
        return self.run("push", "--quiet", "--porcelain", remote, f"{commit}:refs/heads/{branch}", check=False,
                        remote=True)
