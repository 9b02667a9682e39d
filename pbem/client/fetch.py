"""Bring in what is new for one game and check it before anything of it is shown.

For a git game: ``git pull --ff-only`` in the player's clone (a shared branch the moderator
rewrote is refused, never merged: the player's copy keeps the history it had), then the audit
every player can run (:func:`pbem.pipeline.audit.audit`: the hash chain, the moderator's
signature on every entry, every signed move, the digests against the log) with the moderator's
receipts, which are first kept in the player's own receipt store (``pbem receipt keep``), so that
a log cut back or rewritten later is caught by the receipts the player already holds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from pbem.base.errors import PbemError
from pbem.client.config import PlayedGame, config_path
from pbem.pipeline.audit import audit
from pbem.store import receiptstore
from pbem.store.gamedir import GameDir
from pbem.store.log import LOG_NAME
from pbem.transport.git.repo import GitError, Repo


class FetchError(PbemError):
    """One line: why what is new could not be brought in."""


@dataclass
class Fetched:
    """What a fetch brought and what the checks found."""

    index: int                                        # the last log entry of the player's copy
    problems: list[str] = field(default_factory=list)   # the audit's findings: shown, never hidden
    notes: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)    # mail: what arrived and was refused (never applied)
    needs_copy: bool = False                            # mail: the copy lacks entries (ask for `send log`)

    @property
    def trusted(self) -> bool:
        return not self.problems


def pull(game: PlayedGame) -> None:
    """Fast-forward the player's clone to the shared branch."""
    try:
        repo = Repo.discover(game.clone)
    except GitError as exc:
        raise FetchError(f"game {game.name}: {exc}") from None
    proc = repo.run("pull", "--ff-only", "-q", remote=True, check=False)
    if proc.returncode == 0 or _follow_rewritten_branch(game, repo):
        return
    detail = (proc.stderr or proc.stdout).strip().splitlines()
    first = next((line for line in detail if line.startswith(("fatal:", "error:"))), detail[0] if detail else "")
    raise FetchError(f"game {game.name}: git pull --ff-only failed ({first.strip()}); the shared branch no longer "
                     "holds what your copy has and its game log does not carry yours on, so your copy keeps what "
                     "you had (the evidence, if the game was rolled back): ask the moderator what happened")


def _follow_rewritten_branch(game: PlayedGame, repo: Repo) -> bool:
    """After someone rewrote the shared branch (anyone who may push can force-push), follow it where
    that loses nothing of the game's: the branch's game log carries the copy's log on byte for byte
    (the log only grows: a shorter or different one would be a rollback, kept out as evidence) and the
    clone holds no file of the player's incoming folder that the branch lacks (a move not pushed
    yet).  Then the clone is moved to the branch (``reset --keep``: work not committed stays)."""
    rel = f"{game.game_dir}/{LOG_NAME}"
    upstream = repo.run("rev-parse", "--verify", "-q", "@{upstream}", check=False).stdout.strip()
    if not upstream:
        return False
    theirs = repo.run_bytes("show", f"{upstream}:{rel}", check=False)
    mine = (game.folder / LOG_NAME).read_bytes() if (game.folder / LOG_NAME).is_file() else b""
    if theirs.returncode != 0 or not mine or not theirs.stdout.startswith(mine):
        return False
    # the player's files the clone holds and the branch does not: a move not pushed yet (a move that was
    # pushed and answered is gone from both: the moderator removes it from incoming/)
    own = repo.out("diff", "--name-only", "--diff-filter=A", upstream, "HEAD", "--",
                   f"{game.game_dir}/incoming/{game.player}").split()
    if own:
        return False
    return repo.run("reset", "-q", "--keep", upstream, check=False).returncode == 0


def check(game: PlayedGame) -> Fetched:
    """Keep the moderator's receipts, then audit the player's copy with every receipt kept."""
    gd = GameDir(game.folder)
    try:
        gd.require()
        header = gd.entries()[0]
    except PbemError as exc:
        raise FetchError(f"game {game.name}: {exc}") from None
    store = receiptstore.default_store(str(header.get("id", "")))
    kept = receiptstore.keep(header, [gd.root / "receipts"], store) if (gd.root / "receipts").is_dir() \
        else receiptstore.Kept(store)
    report = audit(gd, [store] if receiptstore.stored_files(store) else [])
    fetched = Fetched(int(gd.entries()[-1]["index"]), list(report.problems), list(report.notes))
    fetched.problems += [f"receipt refused: {line}" for line in kept.refused]
    fetched.problems += [f"fork: {line}" for line in kept.forks]
    return fetched


def fetch(game: PlayedGame, opener: Callable[[bytes], bytes] | None = None) -> Fetched:
    """Git: pull, then check.  Mail: read the mailbox, apply what checks out, then check."""
    if game.transport == "mail":
        from pbem.client.mailfetch import fetch_mail
        refused, notes, needs_copy = fetch_mail(game, config_path(), opener)
        if not GameDir(game.folder).log_path.is_file():
            return Fetched(-1, [], notes + ["no copy of the game yet: it comes with the moderator's next digest, "
                                            "or ask for it (send log)"], refused, True)
        fetched = check(game)
        fetched.notes = notes + fetched.notes
        fetched.refused, fetched.needs_copy = refused, needs_copy
        return fetched
    pull(game)
    return check(game)
