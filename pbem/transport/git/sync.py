"""``pbem git sync``: the moderator's round trip through the shared repository.

**The moderator's files on disk are the truth; git only publishes them.**  Nothing
a player pushed is ever checked out, merged or read from the work tree:

1. Fetch the shared branch (and with ``pull_requests`` every pull request's head).
2. Read the waiting moves from git objects (:mod:`~pbem.transport.git.incoming`):
   names are checked as bytes, sizes before contents, no attribute or filter applies.
   An item whose receipt on disk records its blobs was answered already
   (:mod:`~pbem.transport.git.answers`), even if the sync that answered it was killed.
3. Answer them in bounded batches: submit each move (refusing with a receipt what
   cannot be a move), write ``receipts/PLAYER/NAME.txt``, and commit: one commit per
   accepted move, refusals share one.  Each commit is built with plumbing
   (:mod:`~pbem.transport.git.tree`): outside the game folder the moderator's own
   last tree (with pull requests: the shared branch, which only the moderator writes),
   the game folder as it is on disk, its ``incoming/`` reduced to what still waits.
   What others pushed elsewhere is left out and reported, one line each: a push can
   neither stop the sync nor put a file in the moderator's name.
4. Push after every batch, never forced.  If someone pushed meanwhile, fetch and
   rebuild the unpushed commits on top (their messages and game folders kept,
   ``incoming/`` taken anew) and push again at once, answering nothing new first
   (the shortest window for the next race); new moves are taken in the next batch.
   After ``attempts`` lost races in a row each retry waits a little longer
   (:func:`race_pause`), and only ``patience`` seconds of lost races make the sync
   give up (a player who pushes in a loop cannot stop the game; docs/git.md).
   Local commits that a killed or beaten sync left, of this game or another game of
   the clone, are rebuilt and pushed the same way, each keeping what it changed; the
   report names another game's commits apart (:attr:`SyncReport.others`).

With ``tick`` it also applies the deadlines and lets bot seats move after the moves
are in (what ``pbem tick`` does), committing what that appended.  The deadline
clock (``moderator/clock.json``) is first completed from the history
(:mod:`pbem.transport.git.clock`), so a fresh clone, such as a CI runner's, knows
when every entry was made.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.base.canonical import sha256_hex
from pbem.base.errors import PbemError, one_line
from pbem.base.fsutil import locked, remove_temp_files
from pbem.core.game import pending_players
from pbem.store import receipts
from pbem.store.gamedir import GameDir
from pbem.store.table import revealed_at
from pbem.transport.git.answers import (
    RECEIPTS, accepted_text, answers_entry, flush, is_answered, layout_refusal, receipt_rel, rejected_text,
    submit_move, write_receipt,
)
from pbem.transport.git.clock import restore_clock
from pbem.transport.git.history import MergeBases, merge_base_key
from pbem.transport.git.incoming import (
    INCOMING, MAX_ENTRIES, OWN_NAMES, IncomingItem, Source, below, carriable, collect, hashed_name, listing_of,
    order, shown_path,
)
from pbem.transport.git.repo import Checkout, GitError, Identity, Repo
from pbem.transport.git.seed import prepare_moderator_dir
from pbem.transport.git.tree import TreeMaker, reset_index, under
from pbem.transport.git.verify import refusal, require_ssh_keygen, signatures

__all__ = ["INCOMING", "RECEIPTS", "RacesLost", "SyncError", "SyncOptions", "SyncReport", "Outcome", "sync", "commit",
           "join"]

#: items answered between two pushes (refusals that need no reading: ten times as many)
BATCH_ITEMS = 200
#: unpushed local commits rebuilt one by one on the shared branch; more become one commit
MAX_REBUILT = 100
#: lines of "left out" shown (in the output and in a commit message)
LEFT_OUT_SHOWN = 20
#: where the pull requests' heads are fetched to
PULL_NAMESPACE = "refs/pbem/pull"
ENTRY_LINE = re.compile(rb"^--- # entry (\d+)$", re.MULTILINE)
#: after ``attempts`` lost races in a row, the first pause before the next attempt and the longest one
#: (seconds; each pause doubles, scaled by a jitter between 0.5 and 1.5: :func:`race_pause`)
FIRST_PAUSE = 0.1
LONGEST_PAUSE = 5.0
#: how long (seconds) a sync keeps trying after it first lost a race before it gives up (the default)
PATIENCE = 120


class SyncError(PbemError):
    """One line: why the sync stopped."""


class RacesLost(SyncError):
    """Others kept pushing for the whole patience: the sync's commits wait in the clone."""


@dataclass
class SyncOptions:
    verify_commits: bool = False
    reveal_at_end: bool = False
    remote: str | None = None
    branch: str | None = None
    attempts: int = 5                # lost races in a row retried at once; then retries with pauses
    patience: float = PATIENCE       # seconds of lost races after which the sync gives up (0: after `attempts`)
    use_remote: bool = True          # False: only process and commit in the local clone
    identity: Identity = field(default_factory=Identity)
    tick: bool = False               # also apply deadlines and bot seats (pbem tick) and commit what it appends
    token: str | None = None         # fetch and push with this HTTP token (a CI job's GITHUB_TOKEN)
    pull_requests: bool = False      # also take moves from pull requests' heads; the shared branch is trusted
    batch: int = BATCH_ITEMS


@dataclass
class Outcome:
    item: str          # "red/0003.yaml"
    accepted: bool
    text: str          # one line
    receipt: str       # repository path of the receipt


@dataclass
class SyncReport:
    outcomes: list[Outcome] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)    # subjects of the commits pushed (or made)
    pushed: bool = False
    races: int = 0
    #: the authors (as the commits say) of the commits that won a race against this sync's pushes
    racers: Counter[str] = field(default_factory=Counter)
    target: str = ""
    ticked: list[dict[str, Any]] = field(default_factory=list)   # entries pbem tick appended
    reminders: list[Any] = field(default_factory=list)           # pbem.pipeline.deadlines.Deadline, due soon
    left_out: list[str] = field(default_factory=list)            # what others pushed that was not taken
    notes: list[str] = field(default_factory=list)
    #: another game's folder (repository-relative) -> subjects of its commits this sync pushed: commits an
    #: earlier sync of that game left in the clone (not in :attr:`commits`, which are this game's own)
    others: dict[str, list[str]] = field(default_factory=dict)


def join(prefix: str, *parts: str) -> str:
    return "/".join(p for p in (prefix, *parts) if p)


def _who(players: list[str]) -> str:
    return ", ".join(players) if players else "nobody (the game is over)"


# --- the whole round trip ------------------------------------------------------

def sync(gd: GameDir, opts: SyncOptions, repo: Repo | None = None) -> SyncReport:
    """``repo``: the repository holding ``gd``, when the caller has found it already."""
    gd.require()
    repo = Repo.discover(gd.root, opts.identity) if repo is None else replace(repo, identity=opts.identity)
    if opts.token:
        repo = repo.with_token(opts.token)
    prefix = repo.rel(gd.root)
    if opts.verify_commits:
        require_ssh_keygen()
    if opts.attempts < 1:
        raise SyncError("--attempts must be at least 1")
    if opts.patience < 0:
        raise SyncError("--patience must be at least 0")
    if opts.batch < 1:
        raise SyncError("the batch size must be at least 1")
    with _sync_lock(gd), _clone_lock(repo):
        checkout = repo.checkout(*(name for name, _what in Repo.UNFINISHED), "index")
        unfinished = repo.unfinished_operation(checkout.paths)
        if unfinished:
            raise SyncError(f"a {unfinished} is unfinished in {repo.root}; finish it or run "
                            f"`git {unfinished} --abort`, then sync again")
        return _Sync(repo, gd, prefix, opts, checkout).run()


@contextlib.contextmanager
def _sync_lock(gd: GameDir) -> Iterator[None]:
    """One sync at a time per clone (a separate file: submit takes moderator/lock itself)."""
    prepare_moderator_dir(gd)           # keeps it git-ignored even in a fresh clone
    with open(gd.moderator_dir / "git-sync.lock", "a+b") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SyncError(f"another `pbem git sync` is running on {gd.root}; wait for it to finish") from None
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def _clone_lock(repo: Repo) -> Iterator[None]:
    """One sync at a time per clone, whatever its game: every sync moves the clone's HEAD, index and
    branch, so a second game's sync waits for the first (two cron lines of one clone, say) instead
    of failing on git's own HEAD lock; the lock file is in the git folder (nothing in the tree)."""
    dot_git = repo.root / ".git"
    path = dot_git / CLONE_LOCK if dot_git.is_dir() else repo.git_path(CLONE_LOCK)   # a worktree: ask git
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


#: the clone's sync lock, in its git folder
CLONE_LOCK = "pbem-sync.lock"


@dataclass
class _Batch:
    """What answering one batch needs: the log as the batch found it, and the pushed bytes."""

    entries: list[dict[str, Any]]
    players: list[str]
    waiting: list[str]
    sizes: dict[str, tuple[str, int]]
    blobs: dict[str, bytes]
    sigs: dict[str, Any]
    taken: dict[str, tuple[int, str]]          # move sha256 -> (log entry, player): moves in the log


class _Sync:
    """One `pbem git sync`: the state it carries from batch to batch."""

    def __init__(self, repo: Repo, gd: GameDir, prefix: str, opts: SyncOptions, checkout: Checkout) -> None:
        self.repo, self.gd, self.prefix, self.opts = repo, gd, prefix, opts
        self.incoming = join(prefix, INCOMING)
        self.maker = TreeMaker(repo, gd, prefix)
        self.report = SyncReport(target="the local clone")
        self.remote = self.branch = ""
        self.checkout = checkout
        self.head: str | None = checkout.head  # the local branch, as this sync last set it
        self.upstream: str | None = None       # the shared branch's tip, as last fetched
        self.parent = ""                       # the next commit's parent
        self.base = ""                         # the next commit's tree outside the game folder
        self.items: list[IncomingItem] = []
        self.overflow: dict[bytes, tuple[str, str]] = {}   # waiting files not looked at (over MAX_ENTRIES)
        self.answered: set[int] = set()        # id() of the items answered (receipts on disk)
        self.done: set[tuple[int, tuple[bytes, ...], tuple[str, ...]]] = set()   # answered by this sync
        #: receipt path -> the files (blobs) found not answered by the receipt there; only this sync writes
        #: receipts (under its lock), and it forgets a path when it writes there
        self.unanswered: dict[str, set[tuple[str, ...]]] = {}
        self.start = self.head
        self.started = time.monotonic()
        self._raced_tip: str | None = None     # the shared branch's tip, fetched after a push lost a race
        self._lost_to: list[tuple[str, str | None]] = []   # (the tip that won, the tip the lost push was built on)
        self.left_out: list[str] = []          # lines for the next commit's message
        self.clock_restored = False
        self._revealed: bool | None = None     # the log holds a reveal entry (read when needed)
        self._trees: dict[str, str] = {}
        #: the commit that holds the game folder as this sync last found it on disk, while nothing this sync
        #: does can have changed the folder or what the next tree carries since (None: look again)
        self._published: str | None = None
        self._bases: MergeBases = {}           # merge bases known (asked, or proven by the history walk)
        self.tracked = False                   # the local branch follows the remote one
        #: what :meth:`_target` asked git (the checked-out branch, its configured remote), when it did:
        #: a sync never changes either, so :meth:`_track` does not ask again
        self._checked_out: tuple[str | None] | None = None
        self._branch_remote: tuple[str | None] | None = None
        #: subjects of the commits between the shared branch's tip and the local branch, when this sync
        #: made them all (None: ask git)
        self._unpushed: list[str] | None = None

    def tree(self, commit: str) -> str:
        """A commit's tree (remembered)."""
        if commit not in self._trees:
            tree = self.repo.resolve(commit, "tree")
            if tree is None:
                raise GitError(f"{commit[:12]} is not a commit in {self.repo.root}")
            self._trees[commit] = tree
        return self._trees[commit]

    def revealed(self) -> bool:
        if self._revealed is None:
            self._revealed = revealed_at(self.gd.entries()) is not None
        return self._revealed

    # --- the loop: fetch, list, answer a batch, push ---------------------------------
    def run(self) -> SyncReport:
        if self.head is None:
            raise SyncError("the local branch has no commits yet; clone the shared repository "
                            "(or run `pbem git init`) first")
        if self.opts.use_remote:
            self.remote, self.branch = self._target()
            self.report.target = f"{self.remote}/{self.branch}"
        races = 0                      # pushes lost in a row
        losing_since = 0.0             # when they began (time.monotonic())
        fetched = [self._fetch()]      # the first fetch, before anything changes (a missing remote stops here)
        self.maker.remove_old_indexes()
        try:
            while True:
                self.upstream = fetched.pop() if fetched else self._fetch()
                self._list(quick=races > 0)
                self._integrate()
                if races:           # after a lost race only the rebuilt commits go out, at once: the shortest window
                    remaining = self._more_waiting()       # for another push; what arrived is the next batch's
                else:
                    remaining = self._answer_batch() or bool(self.overflow)   # more to look at after this push
                    if not remaining:
                        self._finish()
                if not self.opts.use_remote:
                    self.report.commits = self._subjects(self.start)
                    if remaining:
                        continue
                    return self.report
                assert self.head is not None
                if self.upstream is not None and self._is_ancestor(self.head, self.upstream):
                    races = 0
                    if remaining:        # nothing of ours to push (the shared branch may be ahead: an empty
                        continue         # commit, another game's): on to the next batch
                    return self.report
                if self._push():
                    races = 0
                    if not remaining:
                        return self.report
                    if self._overdue():
                        self.report.notes.append(f"stopped after {self._running_for():.0f} s with more waiting under "
                                                 f"{self.incoming}/ (pushed while this sync ran): the next sync "
                                                 "takes it")
                        return self.report
                    continue
                races += 1
                self.report.races += 1
                losing_since = losing_since if races > 1 else time.monotonic()
                if races < self.opts.attempts:
                    if self._raced_tip is not None and not self.opts.pull_requests:
                        fetched.append(self._raced_tip)     # fetched already, to see that the push lost a race
                elif self._pause_or_give_up(races, time.monotonic() - losing_since):
                    return self.report
        finally:
            self.maker.save_cache()
            self._reset_index()
            self.maker.keep_listing(self._trees.get(self.head) if self.head is not None else None)

    def _running_for(self) -> float:
        return time.monotonic() - self.started

    def _overdue(self) -> bool:
        """Whether this sync has run longer than its patience: then it stops after a push that landed, even
        if more arrived meanwhile (one that keeps arriving, a loop's junk, cannot keep a cron job running)."""
        return 0 < self.opts.patience < self._running_for()

    def _more_waiting(self) -> bool:
        return bool(self.overflow) or any(id(item) not in self.answered for item in self.items)

    def _pause_or_give_up(self, races: int, losing_for: float) -> bool:
        """After ``attempts`` lost races in a row: wait a little longer each time before the next attempt
        (the pusher's next push is then seldom just before the sync's), or give up once the patience is
        spent (the commits stay in the clone, and the next sync of any game of it pushes them).  True: stop
        here, with what this sync pushed before (a note says what waits); a sync that pushed nothing fails."""
        assert self.head is not None
        pause = race_pause(races - self.opts.attempts + 1, self.head, self._raced_tip or "")
        if losing_for + pause <= self.opts.patience:
            time.sleep(pause)
            return False
        counted = self._count_racers()
        if self.report.pushed:
            self.report.notes.append(f"stopped after {races} lost push races in {losing_for:.0f} s (the winning "
                                     f"commits' authors: {counted}); the commits made since the last "
                                     "push wait in this clone for the next sync")
            return True
        raise RacesLost(f"gave up after {races} push attempts in {losing_for:.0f} s because others kept pushing "
                        f"to {self.report.target} (the winning commits' authors: {counted}); the "
                        "moderator's commits are kept locally: run `pbem git sync` again, and see docs/git.md "
                        "(\"A player who keeps pushing\")")

    def _target(self) -> tuple[str, str]:
        branch = self.opts.branch
        if not branch:
            self._checked_out = (self.checkout.branch,)
            branch = self._checked_out[0]
        if not branch:
            raise SyncError("HEAD is detached; check out the game's branch or give --branch")
        remote = self.opts.remote
        if not remote:
            self._branch_remote = (self.repo.config_get(f"branch.{branch}.remote"),)
            remote = self._branch_remote[0] or "origin"
        return remote, branch

    def _no_remote(self) -> None:
        """Stop with one clear line if the clone has no such remote (asked when a fetch failed)."""
        if self.repo.run("remote", "get-url", self.remote, check=False).returncode != 0:
            raise SyncError(f"this clone has no git remote {self.remote!r}; add it with "
                            f"`git remote add {self.remote} URL`")

    def _fetch(self) -> str | None:
        if not self.opts.use_remote:
            return self.head
        head = self.head
        also = [f"{head}^{{commit}}"] if head is not None and head not in self._trees else []
        try:
            upstream, trees = self.repo.fetch_and_look(self.remote, self.branch, also)
        except GitError:
            self._no_remote()
            raise
        self._trees.update(trees)
        if self.opts.pull_requests:
            self.repo.fetch_pull_requests(self.remote, PULL_NAMESPACE)
        return upstream

    def _push(self) -> bool:
        """Push the local branch; True if it went through, False if someone pushed first."""
        assert self.head is not None
        flush(self.gd)       # the receipts (written without a flush each) are on disk before anyone sees them
        proc = self.repo.push(self.remote, self.head, self.branch)   # at once: the shortest window for a race
        if proc.returncode == 0:
            subjects, others = (self._unpushed, {}) if self._unpushed is not None else \
                self._pushed_subjects(self.upstream)
            self.report.pushed = True
            self.report.commits += subjects
            for game, theirs in others.items():
                self.report.others.setdefault(game, []).extend(theirs)
            self.upstream = self.head
            self._unpushed = []
            self._track()
            if self._lost_to:
                self._count_racers()
            return True
        tip = self._raced_tip = self.repo.fetch(self.remote, self.branch)
        if tip == self.upstream:
            reason = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            raise GitError(f"cannot push to {self.report.target}: "
                           f"{one_line((reason or ['unknown error'])[0].strip())}")
        if tip is not None:
            self._lost_to.append((tip, self.upstream))
        return False

    def _count_racers(self) -> str:
        """Who won the races this sync lost, as their commits' authors say (asked only when it is said)."""
        for tip, before in self._lost_to:
            self.report.racers.update(self.repo.authors(tip, before))
        self._lost_to = []
        return ", ".join(f"{name} {count}" for name, count in self.report.racers.most_common(3)) or "unknown"

    def _track(self) -> None:
        """After the first push, let plain `git pull` in the moderator's clone work too."""
        if self.tracked:
            return
        self.tracked = True
        checked_out = self._checked_out or (self.checkout.branch,)
        if checked_out[0] != self.branch:
            return
        if self._branch_remote is None:          # --remote was given: _target did not ask
            self._branch_remote = (self.repo.config_get(f"branch.{self.branch}.remote"),)
        if self._branch_remote[0] is None:
            self.repo.run("branch", "--quiet", f"--set-upstream-to={self.remote}/{self.branch}", check=False)

    def _merge_base(self, a: str, b: str) -> str | None:
        """The last commit both have (remembered: it answers which one contains the other too)."""
        key = merge_base_key(a, b)
        if key not in self._bases:
            self._bases[key] = self.repo.merge_base(a, b)
        return self._bases[key]

    def _is_ancestor(self, older: str, newer: str) -> bool:
        """Whether ``older`` is in ``newer``'s history."""
        return older == newer or self._merge_base(older, newer) == older

    def _subjects(self, since: str | None) -> list[str]:
        if self.head is None or self.head == since:
            return []
        return [s for s in self.repo.out("log", "--reverse", "--format=%s", *self._span(since)).splitlines() if s]

    def _span(self, since: str | None) -> list[str]:
        """`git log`'s arguments for the local commits after ``since`` (without it: the last 50)."""
        assert self.head is not None
        return [f"{since}..{self.head}"] if since else ["-n", "50", self.head]

    def _pushed_subjects(self, since: str | None) -> tuple[list[str], dict[str, list[str]]]:
        """The subjects of the commits between ``since`` and the local branch: this game's, and the other
        games' (folder -> subjects) for commits that change another game's folder and not this one's (a
        commit that changes no game's folder is this game's)."""
        assert self.head is not None
        games = self.maker.other_games(self.tree(self.head))
        if not games or self.head == since:
            return self._subjects(since), {}
        log = self.repo.out("log", "--reverse", "--format=%H %s", *self._span(since))
        commits = [line.split(" ", 1) for line in log.splitlines()]
        folders = [g.decode("utf-8", "surrogateescape") for g in games]
        if self.prefix:
            folders.append(self.prefix)
        specs = [f"{commit}{side}:{folder}" for commit, *_subject in commits
                 for folder in folders for side in ("", "^")]
        found = iter(self.repo.lookup(specs))
        own: list[str] = []
        others: dict[str, list[str]] = {}
        for _commit, *subject in commits:
            changed = [folder for folder in folders if next(found) != next(found)]
            text = subject[0] if subject else ""
            if self.prefix in changed or not changed:
                own.append(text)
                continue
            for folder in changed:
                others.setdefault(folder, []).append(text)
        return own, others

    def _reset_index(self) -> None:
        """Point the clone's index at the local branch (the work tree is left alone)."""
        try:
            head = self.head
            if head is None:
                return
            waiting = [join(p.decode("utf-8", "surrogateescape"), INCOMING).encode("utf-8", "surrogateescape")
                       for p in self.maker.other_games(self.tree(head))] + [self.incoming.encode()]
            files = self.maker.listing(self.tree(head))
            if not reset_index(self.repo, head, waiting, self.checkout.paths["index"], files):
                self.report.notes.append("the clone's index is in use by another git command; run `git reset -q` "
                                         "once it is done, so that `git status` shows the new commits")
        except (PbemError, OSError) as exc:
            self.report.notes.append(f"could not update the clone's index ({one_line(str(exc))}); "
                                     "run `git reset -q`")

    # --- what waits, and what others changed --------------------------------------------
    def _list(self, quick: bool = False) -> None:
        """What waits, in the order it is taken; ``quick`` (a retry after a lost race, which answers nothing):
        not where in the history each item came (the next batch's listing finds it)."""
        self._published = None                # what waits, and the shared branch's other games, are new
        tip = self.upstream or self.head
        assert tip is not None
        sources = [Source(tip)]
        if self.opts.pull_requests:
            found = []
            for ref, commit in self.repo.refs(PULL_NAMESPACE + "/").items():
                number = ref.rsplit("/", 1)[-1]
                if number.isdigit():
                    found.append(Source(commit, int(number), base=self.upstream))
            sources += sorted(found, key=lambda s: s.number)
        items: list[IncomingItem] = []
        first: dict[tuple[str, str], IncomingItem] = {}
        unlisted = 0
        self.overflow = {}
        trees = self._look_up(sources)
        for source in sources:
            if source.number:
                listing = collect(self.repo, source, self.incoming, trees[source.tip])
            else:                            # the shared branch's whole tree is listed for the commits anyway
                listing = listing_of(below(self.maker.listing(self.tree(source.tip)), self.incoming), source,
                                     self.incoming)
            unlisted += len(listing.unlisted)
            if not source.number:            # not looked at: kept as they are for a later sync
                self.overflow = {self.incoming.encode() + b"/" + e.path: (e.mode, e.oid)
                                 for e in listing.unlisted if carriable(e)}
            for item in listing.items:
                if item.carriable and (item.owner, item.name) in first:
                    earlier = first[(item.owner, item.name)]
                    item.problem = (f"incoming/{item.shown} was also sent in {earlier.source.label}; "
                                    "use a new file name for every move")
                    item.name = hashed_name(item.entries[0].path, source)
                elif item.carriable:
                    first[(item.owner, item.name)] = item
            items += listing.items
        self.answered = {id(item) for item in items if _identity(item) in self.done or self._is_answered(item)}
        for source in [] if quick else sources:    # their places in history: only where something waits
            order(self.repo, source, self.incoming,
                  [it for it in items if it.source is source and id(it) not in self.answered], self.gd.moderator_dir,
                  self._bases)
        items.sort(key=lambda it: (it.carriable, it.source.number, it.position, it.entries[0].path))
        self.items = items
        lines = self._left_out(sources)       # what a push changed elsewhere is said once: now, even on a retry
        if unlisted:
            lines.append(f"{unlisted} more entries under {self.incoming}/ were not looked at (at most "
                         f"{MAX_ENTRIES} at once); those that can wait stay for a later sync")
        self._note_left_out(lines)

    def _is_answered(self, item: IncomingItem) -> bool:
        """Whether the receipt on disk answers the item (:func:`is_answered`), read once per sync for each receipt
        path and files: a sync lists incoming/ again after every batch it pushes."""
        blobs = tuple(item.blobs)
        known = self.unanswered.setdefault(receipt_rel(item), set())
        if blobs in known:
            return False
        if is_answered(self.gd, item):
            return True
        known.add(blobs)
        return False

    def _look_up(self, sources: list[Source]) -> dict[str, str | None]:
        """Each pull request's incoming/ tree (tip -> tree, None if it has none), and the trees of the commits
        this sync will ask for next: one question to git."""
        tips = list(dict.fromkeys(s.tip for s in sources if s.number))
        commits = [c for c in dict.fromkeys([self.upstream, self.head]) if c is not None and c not in self._trees]
        answers = self.repo.lookup([f"{tip}:{self.incoming}" for tip in tips] + [f"{c}^{{tree}}" for c in commits])
        for commit, answer in zip(commits, answers[len(tips):]):
            if answer is not None and answer[1] == "tree":
                self._trees[commit] = answer[0]
        return {tip: a[0] if a is not None and a[1] == "tree" else None for tip, a in zip(tips, answers)}

    def _left_out(self, sources: list[Source]) -> list[str]:
        """One line for each path others changed that the moderator's commits will not take."""
        lines: list[str] = []
        if not self.opts.pull_requests:
            up, head = self.upstream, self.head
            if up is None or head is None or up == head or self._is_ancestor(up, head):
                return []
            base = self._merge_base(head, up) or self.tree(head)
            games = self.maker.other_games(self.tree(head))
            # the usual case, the shared branch on top of the local one: both trees are listed anyway
            changed = self.maker.changed(self.tree(head), self.tree(up)) if base == head \
                else self.repo.changed_between(base, up)
            for path in changed:
                if self._is_incoming(path) or any(under(path, g) for g in games):
                    continue
                lines.append(f"left out {shown_path(path)}: changed by a push; only files under "
                             f"{self.incoming}/PLAYER/ are taken from players")
            return lines
        waiting = {item.source.number for item in self.items if id(item) not in self.answered}
        for source in sources:
            if not source.number or source.number not in waiting:
                continue
            since = self.repo.merge_base(source.tip, self.upstream) if self.upstream else None
            for path in self.repo.changed_between(since, source.tip):
                if not self._is_incoming(path):
                    lines.append(f"left out {shown_path(path)} from {source.label}: only files under "
                                 f"{self.incoming}/PLAYER/ are taken from pull requests")
        return lines

    def _is_incoming(self, path: bytes) -> bool:
        """A path below this game's incoming/ that is an item (not the moderator's own README)."""
        inside = self.incoming.encode() + b"/"
        if not path.startswith(inside):
            return False
        rest = path[len(inside):]
        return b"/" in rest or rest.decode("utf-8", "replace") not in OWN_NAMES

    def _note_left_out(self, lines: list[str]) -> None:
        fresh = [line for line in lines if line not in self.report.left_out]
        self.report.left_out += fresh
        self.left_out += fresh

    # --- bringing the local branch onto the shared one --------------------------------------
    def _integrate(self) -> None:
        """Choose the next commit's parent: the shared branch's tip, or the local branch where it
        already builds on it; local commits that do not are rebuilt on top of it first."""
        head, up = self.head, self.upstream
        assert head is not None
        if up is None or up == head or self._is_ancestor(up, head):
            self.parent = head
        elif self._is_ancestor(head, up):
            self.parent = up
        else:
            self.parent = self._rebuild_local_commits(head, up)
        self._unpushed = [] if up is not None and self.parent == up else None
        self.base = self.tree(self.parent if self.opts.pull_requests else (self.head or self.parent))

    def _rebuild_local_commits(self, head: str, up: str) -> str:
        """The local commits that are not on the shared branch, made again on top of it: each keeps its
        message, author and game folder; incoming/ is what waits now."""
        chain = self.repo.rev_list("--reverse", "--topo-order", head, f"^{up}")
        carried = self._carried()
        up_tree = self.tree(up)
        parent = up
        if self._merge_base(head, up) is None or len(chain) > MAX_REBUILT:
            tree = self._rebuilt_tree(head, up_tree, carried, None)
            message = (f"pbem: the moderator's {len(chain)} unpublished commit(s), on top of the shared branch\n\n"
                       "Both histories are kept (this commit has two parents).\n")
            parent = self.repo.commit_tree(tree, [up, head], message)
            self._trees[parent] = tree
        else:
            for commit in chain:
                message, author, parents = self.repo.commit_info(commit)
                before = parents[0] if parents else None
                tree = self._rebuilt_tree(commit, self.tree(parent), carried, before)
                parent = self.repo.commit_tree(tree, [parent], message, author)
                self._trees[parent] = tree
        self._bases[merge_base_key(parent, up)] = up          # built on it
        self.repo.update_ref("HEAD", parent, head)
        self.head = parent
        return parent

    def _rebuilt_tree(self, commit: str, onto: str, carried: dict[bytes, tuple[str, str]],
                      before: str | None) -> str:
        tree = self.tree(commit)
        assert self.upstream is not None
        if not self.opts.pull_requests:
            # the commit's own tree; other games as the shared branch has them, with what the commit changed in
            # them (a commit another game's sync left in this clone), so it keeps its changes on top
            games = self.maker.other_games(tree)
            extra = {}
            if games and before is not None:
                extra = {p: v for p, v in self.repo.changes(before, commit).items() if any(under(p, g) for g in games)}
            return self.maker.build(tree, None, carried, others=onto, extra=extra)
        extra = {}                               # the shared branch, with what the commit changed
        if before is not None:
            extra = {p: v for p, v in self.repo.changes(before, commit).items() if not under(p, self.maker.game)}
        return self.maker.build(onto, self.maker.own_files(tree), carried, extra=extra)

    def _carried(self) -> dict[bytes, tuple[str, str]]:
        """The game's incoming files that stay on the shared branch: those still waiting there."""
        carried = dict(self.overflow)
        carried.update({item.repo_path(e): (e.mode, e.oid) for item in self.items
                        if item.carriable and not item.source.number and id(item) not in self.answered
                        for e in item.entries})
        return carried

    # --- answering the items ------------------------------------------------------------------
    def _answer_batch(self) -> bool:
        """Answer the next items (a bounded batch); True when more wait after it."""
        pending = [item for item in self.items if id(item) not in self.answered]
        quick = [item for item in pending if not item.carriable]
        work = [item for item in pending if item.carriable]
        batch = quick[:10 * self.opts.batch] + work[:self.opts.batch]
        if len(quick) > 10 * self.opts.batch:
            self._note_left_out([f"{len(quick) - 10 * self.opts.batch} more refused entries under "
                                 f"{self.incoming}/ were left out without a receipt (too many at once)"])
        if not batch:
            return False
        state = self._prepare(batch)
        refused: list[Outcome] = []
        for item in batch:
            outcome, receipt = self._answer(item, state)
            if receipt is None:
                refused.append(outcome)
                continue
            state.waiting = receipt.waiting_for
            body = accepted_text(receipt, item) + f"\nprocessed incoming/{item.shown}; receipt in {outcome.receipt}"
            if refused:
                body += "\n\nAlso answered:\n" + "\n".join(f"{o.item} rejected: {o.text}" for o in refused)
                refused = []
            self._commit(f"entry {receipt.index}: {receipt.player}'s move accepted; "
                         f"waiting for {_who(receipt.waiting_for)}", body)
        if refused:
            if len(refused) == 1:
                subject = f"{refused[0].item} rejected; waiting for {_who(state.waiting)}"
                body = f"rejected: {refused[0].text}\n\nreceipt in {refused[0].receipt}"
            else:
                subject = f"{len(refused)} incoming files rejected; waiting for {_who(state.waiting)}"
                body = "\n".join(f"{o.item}: {o.text}" for o in refused)
            self._commit(subject, body)
        return len(pending) > len(batch)

    def _prepare(self, batch: list[IncomingItem]) -> _Batch:
        """Repair what an interrupted command left, read the log once, and fetch the batch's bytes."""
        from pbem.pipeline.repair import load_repaired
        for folder in (self.gd.root / RECEIPTS).glob("*/"):
            remove_temp_files(folder)
        table = load_repaired(self.gd)
        entries = table.entries
        if not self.clock_restored:
            restore_clock(self.repo, self.gd, self.prefix, entries)
            self.clock_restored = True
        players = [p["name"] for p in entries[0]["players"]]
        sizes = self.repo.object_sizes([e.oid for item in batch for e in item.entries])
        readable = [item for item in batch if not layout_refusal(item, players, sizes)]
        blobs = self.repo.read_blobs([e.oid for item in readable for e in (item.move, item.sig) if e is not None])
        sigs: dict[str, Any] = {}
        if self.opts.verify_commits:
            sigs = signatures(self.repo, [c for it in readable for cs in it.commits.values() for c in cs], entries[0])
        taken = {str(e["move"]["sha256"]): (int(e["index"]), str(e.get("player")))
                 for e in entries if isinstance(e.get("move"), dict) and "sha256" in e["move"]}
        return _Batch(entries, players, pending_players(table.game, table.state), sizes, blobs, sigs, taken)

    def _answer(self, item: IncomingItem, state: _Batch) -> tuple[Outcome, Any]:
        """Submit one item (unless its layout already refuses it) and write its receipt."""
        from pbem.pipeline.submit import receipt_from_log
        self._published = None                # the folder changes (a receipt, perhaps an entry)
        receipt: Any = None
        reason = layout_refusal(item, state.players, state.sizes)
        if not reason and self.opts.verify_commits:
            reason = refusal(item, state.sigs)
        if not reason:
            assert item.move is not None and item.sig is not None
            raw = state.blobs.get(item.move.oid)
            signature = state.blobs.get(item.sig.oid)
            if raw is None or signature is None:
                reason = "the move or its signature could not be read from git; push it again under a new name"
            else:
                done = state.taken.get(sha256_hex(raw))
                if done is not None and done[1] == item.owner and not answers_entry(self.gd, item.owner, done[0]):
                    receipt = receipt_from_log(self.gd, done[0])  # taken, never answered: an interrupted sync
                else:
                    receipt, reason = submit_move(self.gd, raw, signature.decode("utf-8", errors="replace"),
                                                   item.owner, state.entries, f"incoming/{item.shown}")
                if receipt is not None:
                    state.taken[receipt.move_sha256] = (receipt.index, receipt.player)
        rel = receipt_rel(item)
        self.unanswered.pop(rel, None)        # the receipt there changes
        if receipt is not None:
            if receipt.signed is not None:        # the moderator-signed receipt beside it, first: the .txt
                receipts.write(self.gd.root / rel.replace(".txt", ".receipt.yaml"), *receipt.signed)
            write_receipt(self.gd, item, accepted_text(receipt, item))     # says the item is answered
            line = f"entry {receipt.index}; waiting for {_who(receipt.waiting_for)}"
        else:
            write_receipt(self.gd, item, rejected_text(reason, item))
            line = reason
        self.answered.add(id(item))
        self.done.add(_identity(item))
        outcome = Outcome(item.shown, receipt is not None, line, join(self.prefix, rel))
        self.report.outcomes.append(outcome)
        return outcome, receipt

    # --- after the moves: deadlines, the reveal, and what is left to publish ------------------------
    def _finish(self) -> None:
        if self.opts.tick:
            self._tick()
        self._maybe_reveal()
        if self._published is not None and self._published == self.parent:
            return                            # the batch's last commit took the folder as it is: nothing left
        tree = self._tree()
        if tree is not None:
            self._make(tree, self._publish_subject(), "The game folder as the moderator has it.")

    def _tick(self) -> None:
        """`pbem tick` in the clone: expired deadlines and bot seats; one commit for what it appended."""
        from pbem.pipeline.deadlines import tick
        self._published = None                # tick may write in the folder even when it appends nothing
        if self.revealed():                      # a closed game has no deadlines left
            return
        if not self.clock_restored:
            restore_clock(self.repo, self.gd, self.prefix)
            self.clock_restored = True
        result = tick(self.gd)
        self.report.reminders = result.reminders
        if not result.entries:
            return
        self.report.ticked += result.entries
        first, last = result.entries[0]["index"], result.entries[-1]["index"]
        span = f"entry {first}" if first == last else f"entries {first}-{last}"
        what = "; ".join(f"{e['action']} for {e['player']}" for e in result.entries[:3])
        if len(result.entries) > 3:
            what += f" and {len(result.entries) - 3} more"
        subject = f"{span}: {what}; waiting for {_who(_waiting(self.gd))}"
        body = "\n".join(f"entry {e['index']}: {e['reason']}" for e in result.entries)
        self._commit(subject, body + "\n\n(pbem tick: deadlines and bot seats)")

    def _maybe_reveal(self) -> None:
        if not self.opts.reveal_at_end or self.revealed():
            return
        from pbem.pipeline.moderator import reveal
        from pbem.pipeline.repair import load_repaired
        self._published = None                # a repair may write in the folder
        table = load_repaired(self.gd)
        if table.game.result(table.state) is None:
            return
        entry = reveal(self.gd)
        self._revealed = True
        self._commit(f"entry {entry['index']}: the game is over; the seed is revealed",
                     "Anyone can now check every roll and hidden value: pbem audit GAME_DIR")

    def _publish_subject(self) -> str:
        """The subject of a commit that publishes what no other commit did (an interrupted sync's
        work, `pbem submit` or `pbem mod` run by hand, what others changed left out)."""
        blob = self.repo.resolve_path(self.base, join(self.prefix, self.gd.log_path.name), "blob")
        known = -1
        if blob is not None:
            numbers = ENTRY_LINE.findall(self.repo.read_blobs([blob]).get(blob, b""))
            known = max((int(n) for n in numbers), default=-1)
        entries = self.gd.entries()
        new = [e["index"] for e in entries if e["index"] > known]
        if new:
            span = f"entry {new[0]}" if len(new) == 1 else f"entries {new[0]}-{new[-1]}"
            return f"{span}: published from the moderator's files; waiting for {_who(_waiting(self.gd))}"
        if self.left_out:
            return f"pbem: {len(self.left_out)} change(s) pushed outside {self.incoming}/PLAYER/ left out"
        return "pbem: the moderator's files, published"

    # --- committing -------------------------------------------------------------------------
    def _commit(self, subject: str, body: str) -> str | None:
        """Commit the game folder as it is on disk, with what still waits in incoming/; None if
        nothing changed."""
        tree = self._tree()
        commit = self.parent if tree is None else self._make(tree, subject, body)
        self._published = commit
        return None if tree is None else commit

    def _tree(self) -> str | None:
        """The next commit's tree, or None when it would be the parent's."""
        published = self.maker.own_files(self.base)
        seed = None
        if self.gd.seed_path.is_file():
            seed = self.gd.seed_path.read_text(encoding="ascii", errors="replace").strip().lower().encode() or None
        with locked(self.gd.root):           # a `pbem submit` by hand never shows half done
            own = self.maker.disk_files(published, seed, self.revealed)
        others = None
        if not self.opts.pull_requests and self.upstream is not None:
            # other games as the parent has them: the shared branch's tip, and what the local commits rebuilt on
            # it changed in them (another game's commits that an earlier sync of it left in this clone)
            others = self.tree(self.parent)
        tree = self.maker.build(self.base, own, self._carried(), others=others)
        return None if tree == self.tree(self.parent) else tree

    def _make(self, tree: str, subject: str, body: str) -> str:
        """The commit, and the local branch moved to it (atomically: only if it is still where this
        sync left it)."""
        if self.left_out:
            shown = self.left_out[:LEFT_OUT_SHOWN]
            more = len(self.left_out) - len(shown)
            body += "\n\nLeft out (others changed them; the moderator publishes only its own files):\n" + \
                "\n".join(shown) + (f"\n... and {more} more" if more else "")
        commit = self.repo.commit_tree(tree, [self.parent], f"{subject}\n\n{body}\n")
        self.repo.update_ref("HEAD", commit, self.head)
        self._trees[commit] = tree
        if self.upstream is not None:       # every parent builds on the shared branch's tip (_integrate)
            self._bases[merge_base_key(commit, self.upstream)] = self.upstream
        if self._unpushed is not None and subject and "\n" not in subject and subject == subject.strip():
            self._unpushed.append(subject)       # as `git log --format=%s` shows it
        else:
            self._unpushed = None
        self.head = self.parent = commit
        self.base = tree
        self.left_out = []
        return commit


def race_pause(round_: int, head: str, tip: str) -> float:
    """Seconds to wait before push attempt ``round_`` (1, 2, ...) after the quick retries: doubling from
    :data:`FIRST_PAUSE` up to :data:`LONGEST_PAUSE`, times a jitter in [0.5, 1.5) derived from the
    moderator's unpushed commit (no other can know it: a pusher cannot time its pushes to the sync's) and
    the shared branch's tip; no global random state, the same pauses for the same commits."""
    digest = hashlib.sha256(f"{head} {tip} {round_}".encode("ascii", "replace")).digest()
    jitter = 0.5 + int.from_bytes(digest[:8], "big") / 2 ** 64
    return min(LONGEST_PAUSE, FIRST_PAUSE * 2 ** min(round_ - 1, 16)) * jitter


def _identity(item: IncomingItem) -> tuple[int, tuple[bytes, ...], tuple[str, ...]]:
    """An item as this sync saw it: each is answered at most once per sync, whatever its receipt says."""
    return item.source.number, tuple(e.path for e in item.entries), tuple(item.blobs)


def _waiting(gd: GameDir) -> list[str]:
    from pbem.pipeline.repair import load_repaired
    table = load_repaired(gd)
    return pending_players(table.game, table.state)


# --- committing by hand: `pbem git init` and `pbem git seal-seed` -------------------------------

def commit(repo: Repo, gd: GameDir, prefix: str, subject: str, body: str = "",
           allow_seed: bool = False, extra: tuple[str, ...] = ()) -> str | None:
    """Stage the game folder's public files (never incoming additions or moderator/) and commit
    (`pbem git init`, `seal-seed`: never during a sync, whose clone lock this waits for)."""
    game = prefix or "."
    with _clone_lock(repo):
        repo.add_all(game, f":(exclude){join(prefix, INCOMING)}", *extra)
        check_staged(repo, gd, prefix, allow_seed)
        return repo.commit(subject, body)


def check_staged(repo: Repo, gd: GameDir, prefix: str, allow_seed: bool = False) -> None:
    """Refuse to commit the moderator's private folder, or the seed anywhere before it is revealed."""
    private = join(prefix, "moderator") + "/"
    staged = repo.staged_paths()
    leaked = [p for p in staged if p.startswith(private)]
    if leaked:
        raise SyncError(f"refusing to commit the moderator's private file {leaked[0]}; "
                        f"{private} must stay git-ignored")
    if allow_seed or not staged or not gd.seed_path.is_file():
        return
    seed = gd.seed_path.read_text(encoding="ascii", errors="replace").strip().lower()
    if seed and seed in repo.staged_diff().lower():
        raise SyncError("refusing to commit: the staged changes contain the moderator's seed in plain text")
