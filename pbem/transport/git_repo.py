"""A thin wrapper over the ``git`` command line (``subprocess``), with one-line errors.

Everything the git exchange does to a repository goes through :class:`Repo`,
so that every call runs with the same identity (``-c user.name=...``) and the
same environment (no prompts, C locale), and every failure is a
:class:`GitError` whose text is one line a person can act on.
"""
from __future__ import annotations

import base64
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pbem.errors import PbemError

MODERATOR_NAME = "pbem moderator"
MODERATOR_EMAIL = "moderator@pbem.invalid"


class GitError(PbemError):
    """A git command failed; ``str`` is one line."""


@dataclass(frozen=True)
class Identity:
    name: str = MODERATOR_NAME
    email: str = MODERATOR_EMAIL

    def config(self) -> list[str]:
        return ["-c", f"user.name={self.name}", "-c", f"user.email={self.email}"]


def _git_env(config: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment for git; ``config`` goes in as GIT_CONFIG_KEY_n/VALUE_n (not on the command line,
    where every process on the machine could read a token)."""
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C", "GIT_EDITOR": "true",
                "GIT_MERGE_AUTOEDIT": "no"})
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
    return (meaningful or lines or ["(no message)"])[0]


def git_available() -> bool:
    return shutil.which("git") is not None


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
    def run(self, *args: str, config: Sequence[str] = (), check: bool = True,
            stdin: str | None = None, remote: bool = False) -> subprocess.CompletedProcess[str]:
        """``git -C ROOT -c identity... [config] ARGS``; GitError on failure when ``check``.
        ``remote``: a command that talks to the remote, which gets :attr:`remote_config`."""
        cmd = ["git", "-C", str(self.root), *self.identity.config(), "-c", "core.quotePath=false"]
        for item in config:
            cmd += ["-c", item]
        cmd += list(args)
        env = _git_env(self.remote_config if remote else ())
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env, input=stdin,
                              encoding="utf-8", errors="surrogateescape")
        if check and proc.returncode != 0:
            raise GitError(f"git {args[0]} failed: {_first_line(proc.stderr or proc.stdout)}")
        return proc

    def out(self, *args: str, config: Sequence[str] = ()) -> str:
        return self.run(*args, config=config).stdout

    # --- questions -----------------------------------------------------------
    def head(self) -> str | None:
        """The commit HEAD points at, or None on an unborn branch."""
        proc = self.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
        return proc.stdout.strip() if proc.returncode == 0 else None

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

    def changed_paths(self, base: str, tip: str, prefix: str) -> list[str]:
        """Paths under ``prefix`` that differ between two commits."""
        out = self.out("diff", "--no-renames", "--name-only", "-z", base, tip, "--", prefix or ".")
        return [p for p in out.split("\0") if p]

    def dirty_paths(self) -> list[str]:
        """Tracked files with uncommitted changes (staged or not)."""
        out = self.out("status", "--porcelain=v1", "-z", "--untracked-files=no")
        return [entry[3:] for entry in out.split("\0") if len(entry) > 3]

    def unfinished_operation(self) -> str | None:
        """'rebase', 'merge' or 'cherry-pick' when one was left half done in this clone."""
        for name, what in (("rebase-merge", "rebase"), ("rebase-apply", "rebase"), ("MERGE_HEAD", "merge"),
                           ("CHERRY_PICK_HEAD", "cherry-pick")):
            path = Path(self.out("rev-parse", "--git-path", name).strip())
            if (path if path.is_absolute() else self.root / path).exists():
                return what
        return None

    def staged_paths(self) -> list[str]:
        return [p for p in self.out("diff", "--cached", "--name-only", "-z").split("\0") if p]

    def staged_diff(self) -> str:
        return self.out("diff", "--cached", "--no-color", "--no-ext-diff", "-U0", "--text")

    # --- changes --------------------------------------------------------------
    def add_all(self, *pathspecs: str) -> None:
        self.run("add", "-A", "--", *pathspecs)

    def remove(self, paths: Sequence[str]) -> None:
        if paths:
            self.run("rm", "-q", "-f", "--", *paths)

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
        tracking = f"refs/remotes/{remote}/{branch}"
        proc = self.run("fetch", "--quiet", "--no-tags", remote, f"+refs/heads/{branch}:{tracking}", check=False,
                        remote=True)
        if proc.returncode != 0:
            if "couldn't find remote ref" in proc.stderr:
                return None
            raise GitError(f"cannot fetch {branch} from {remote}: {_first_line(proc.stderr)}")
        return self.out("rev-parse", "--verify", f"{tracking}^{{commit}}").strip()

    def push(self, remote: str, branch: str) -> subprocess.CompletedProcess[str]:
        """Push HEAD to ``remote``'s ``branch`` (never forced); the caller looks at the result."""
        return self.run("push", "--quiet", "--porcelain", remote, f"HEAD:refs/heads/{branch}", check=False,
                        remote=True)

    def rebase_onto(self, upstream: str) -> bool:
        """Rebase the local commits onto ``upstream``; on a conflict abort and return False."""
        proc = self.run("rebase", "--quiet", upstream, check=False)
        if proc.returncode == 0:
            return True
        self.run("rebase", "--abort", check=False)
        return False

    def same_content(self, a: str, b: str, *pathspecs: str) -> bool:
        """True when the two commits hold the same files under ``pathspecs``."""
        return self.run("diff", "--quiet", "--no-renames", a, b, "--", *pathspecs, check=False).returncode == 0

    def reset_hard(self, commit: str) -> None:
        self.run("reset", "--quiet", "--hard", commit)

    def fast_forward(self, commit: str) -> None:
        self.run("merge", "--quiet", "--ff-only", commit)
