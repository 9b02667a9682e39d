"""``pbem git sync``: the moderator's round trip through the shared repository.

1. Fetch the shared branch and bring the moderator's clone up to date.  The
   players' commits may only change ``GAME_DIR/incoming/``; anything else in
   the game folder that the moderator did not commit stops the sync.
2. Take the incoming moves in order (:mod:`pbem.transport.git_incoming`),
   optionally check who signed the commits that added them
   (:mod:`pbem.transport.git_verify`), and submit each one.  Every move is
   removed from ``incoming/`` (an accepted one is archived in ``moves/`` by
   submit) and answered with ``receipts/PLAYER/NAME.txt``; each gets its own
   commit: ``entry 12: red's move accepted; waiting for blue``.
3. Push (never forced).  If someone pushed meanwhile the push fails: fetch,
   rebase the moderator's commits onto the players' new commits and go round
   again, up to ``attempts`` times.  When the rebase cannot be done cleanly
   (a player changed a file the moderator just processed), the moderator's
   unpushed commits are dropped and the moves redone from the shared state.
   Either way every commit is built on top of everything players pushed, and
   only files that were processed are deleted, so no pushed file is lost.

With ``tick`` it also applies the deadlines and lets bot seats move after the
moves are in (what ``pbem tick`` does), committing what that appended.  The
deadline clock (``moderator/clock.json``) is first completed from the history
(:mod:`pbem.transport.git_clock`), so a fresh clone, such as a CI runner's,
knows when every entry was made.
"""
from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import receipts
from pbem.crashreport import refusal_for_crash
from pbem.engine import Rejected, pending_players
from pbem.errors import PbemError, one_line
from pbem.fsutil import public_mode, write_atomic
from pbem.gamedir import GameDir
from pbem.transport.git_clock import restore_clock
from pbem.transport.git_incoming import MOVE_SUFFIX, SIG_SUFFIX, IncomingItem, collect
from pbem.transport.git_repo import GitError, Identity, Repo
from pbem.transport.git_seed import prepare_moderator_dir
from pbem.transport.git_verify import refusal, require_ssh_keygen, signatures

RECEIPTS = "receipts"
INCOMING = "incoming"


class SyncError(PbemError):
    """One line: why the sync stopped."""


@dataclass
class SyncOptions:
    verify_commits: bool = False
    reveal_at_end: bool = False
    remote: str | None = None
    branch: str | None = None
    attempts: int = 5
    use_remote: bool = True          # False: only process and commit in the local clone
    identity: Identity = field(default_factory=Identity)
    tick: bool = False               # also apply deadlines and bot seats (pbem tick) and commit what it appends
    token: str | None = None         # fetch and push with this HTTP token (a CI job's GITHUB_TOKEN)


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
    redone: int = 0
    target: str = ""
    ticked: list[dict[str, Any]] = field(default_factory=list)   # entries pbem tick appended
    reminders: list[Any] = field(default_factory=list)           # pbem.deadlines.Deadline, due soon


def join(prefix: str, *parts: str) -> str:
    return "/".join(p for p in (prefix, *parts) if p)


# --- the whole round trip ------------------------------------------------------

def sync(gd: GameDir, opts: SyncOptions) -> SyncReport:
    gd.require()
    repo = Repo.discover(gd.root, opts.identity)
    if opts.token:
        repo = repo.with_token(opts.token)
    prefix = repo.rel(gd.root)
    if opts.verify_commits:
        require_ssh_keygen()
    if opts.attempts < 1:
        raise SyncError("--attempts must be at least 1")
    with _sync_lock(gd):
        _require_clean(repo)
        if not opts.use_remote:
            report = SyncReport(target="the local clone")
            before = repo.head()
            _moderate_round(repo, gd, prefix, opts, report)
            report.commits = _subjects(repo, before)
            return report
        return _sync_with_remote(repo, gd, prefix, opts)


def _sync_with_remote(repo: Repo, gd: GameDir, prefix: str, opts: SyncOptions) -> SyncReport:
    remote, branch = _target(repo, opts)
    report = SyncReport(target=f"{remote}/{branch}")
    for _attempt in range(opts.attempts):
        upstream = _integrate(repo, remote, branch, prefix, report)
        _moderate_round(repo, gd, prefix, opts, report)
        head = repo.head()
        report.commits = _subjects(repo, upstream)
        if head is None or head == upstream:
            return report
        proc = repo.push(remote, branch)
        if proc.returncode == 0:
            report.pushed = True
            _track(repo, remote, branch)
            return report
        if repo.fetch(remote, branch) == upstream:
            reason = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            raise GitError(f"cannot push to {remote}/{branch}: {(reason or ['unknown error'])[0].strip()}")
        report.races += 1
    raise SyncError(f"gave up after {opts.attempts} push attempts because others kept pushing to "
                    f"{remote}/{branch}; the moderator's commits are kept locally: run `pbem git sync` again")


def _moderate_round(repo: Repo, gd: GameDir, prefix: str, opts: SyncOptions, report: SyncReport) -> None:
    """The moderator's work on an up-to-date clone: the moves, then the deadlines, then the reveal."""
    entries = gd.entries()          # parsed once a round: the moves below only append to it
    restore_clock(repo, gd, prefix, entries)
    report.outcomes += process_incoming(repo, gd, prefix, opts, entries)
    if opts.tick:
        _tick(repo, gd, prefix, report, entries)
    _maybe_reveal(repo, gd, prefix, opts)


def _target(repo: Repo, opts: SyncOptions) -> tuple[str, str]:
    branch = opts.branch or repo.current_branch()
    if not branch:
        raise SyncError("HEAD is detached; check out the game's branch or give --branch")
    remote = opts.remote or repo.config_get(f"branch.{branch}.remote") or "origin"
    if repo.run("remote", "get-url", remote, check=False).returncode != 0:
        raise SyncError(f"this clone has no git remote {remote!r}; add it with `git remote add {remote} URL`")
    return remote, branch


def _track(repo: Repo, remote: str, branch: str) -> None:
    """After the first push, let plain `git pull` in the moderator's clone work too."""
    if repo.current_branch() == branch and repo.config_get(f"branch.{branch}.remote") is None:
        repo.run("branch", "--quiet", f"--set-upstream-to={remote}/{branch}", check=False)


def _subjects(repo: Repo, since: str | None) -> list[str]:
    if repo.head() is None:
        return []
    span = [f"{since}..HEAD"] if since else ["-n", "50", "HEAD"]
    return [s for s in repo.out("log", "--reverse", "--format=%s", *span).splitlines() if s]


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


def _require_clean(repo: Repo) -> None:
    unfinished = repo.unfinished_operation()
    if unfinished:
        raise SyncError(f"a {unfinished} is unfinished in {repo.root}; finish it or run "
                        f"`git {unfinished} --abort`, then sync again")
    dirty = repo.dirty_paths()
    if dirty:
        more = f" and {len(dirty) - 1} more" if len(dirty) > 1 else ""
        raise SyncError(f"uncommitted changes in {dirty[0]}{more}; commit or discard them before "
                        "`pbem git sync`")


# --- bringing the clone up to date -------------------------------------------------

def _integrate(repo: Repo, remote: str, branch: str, prefix: str, report: SyncReport) -> str | None:
    """Fetch and put the players' new commits under the moderator's unpushed ones."""
    upstream = repo.fetch(remote, branch)
    head = repo.head()
    if upstream is None or head == upstream:
        return upstream
    if head is None:
        raise SyncError("the local branch has no commits yet; clone the shared repository instead")
    if repo.is_ancestor(upstream, head):
        return upstream          # only unpushed commits of our own
    base = repo.merge_base(head, upstream)
    if base is None:
        raise SyncError(f"the local branch and {remote}/{branch} share no history; clone the shared repository")
    _guard(repo, base, upstream, prefix, f"{remote}/{branch}")
    if repo.is_ancestor(head, upstream):
        repo.fast_forward(upstream)
    elif not _rebase(repo, base, head, upstream, prefix):
        repo.reset_hard(upstream)        # redo the moves on top of the shared state
        report.outcomes.clear()
        report.ticked.clear()
        report.redone += 1
    return upstream


def _rebase(repo: Repo, base: str, head: str, upstream: str, prefix: str) -> bool:
    """Put the moderator's unpushed commits on top of the players' new ones, if that is clean.

    Not when a player changed an incoming file the moderator has processed
    (git's rename detection would even carry that change into the archived
    copy in moves/, the two files having had the same bytes).  Afterwards the
    game folder outside incoming/ must be exactly what the moderator made.
    """
    incoming = join(prefix, INCOMING)
    ours = set(repo.changed_paths(base, head, incoming))
    if ours & set(repo.changed_paths(base, upstream, incoming)):
        return False
    if not repo.rebase_onto(upstream):
        return False
    return repo.same_content(head, "HEAD", prefix or ".", f":(exclude){incoming}")


def _guard(repo: Repo, base: str, upstream: str, prefix: str, where: str) -> None:
    """The players' commits may change nothing in the game folder but incoming/."""
    incoming = join(prefix, INCOMING) + "/"
    outside = [p for p in repo.changed_paths(base, upstream, prefix) if not p.startswith(incoming)]
    if outside:
        more = f" (and {len(outside) - 1} more)" if len(outside) > 1 else ""
        raise SyncError(f"{where} changes {outside[0]}{more}, which players must not touch (they may only add "
                        f"files under {incoming}); revert that, or if you changed it yourself in another "
                        "clone run `git pull --ff-only` first")


# --- processing the incoming moves ----------------------------------------------------

def process_incoming(repo: Repo, gd: GameDir, prefix: str, opts: SyncOptions,
                     entries: list[dict[str, Any]]) -> list[Outcome]:
    """Submit every incoming move in order; one commit each. Returns what happened.  ``entries``:
    the log as the round found it (moves only append to it, so its header and players' keys hold)."""
    incoming = join(prefix, INCOMING)
    items = collect(repo, incoming)
    if not items:
        return []
    header = entries[0]
    players = [p["name"] for p in header["players"]]
    sigs: dict[str, Any] = {}
    if opts.verify_commits:
        sigs = signatures(repo, [c for it in items for cs in it.commits.values() for c in cs], header)
    waiting = _waiting(gd)
    outcomes = []
    for item in items:
        reason = _layout_refusal(item, players)
        if not reason and opts.verify_commits:
            reason = refusal(item, sigs, incoming)
        outcome, waiting = _handle(repo, gd, prefix, item, reason, waiting, entries)
        outcomes.append(outcome)
    return outcomes


def _waiting(gd: GameDir) -> list[str]:
    from pbem.repair import load_repaired
    table = load_repaired(gd)
    return pending_players(table.game, table.state)


def _layout_refusal(item: IncomingItem, players: list[str]) -> str:
    if item.problem:
        return item.problem
    if item.owner not in players:
        return (f"there is no player {item.owner!r} in this game (players: {', '.join(players)}); "
                "put moves in incoming/YOUR_NAME/")
    if item.move is None:
        return (f"{item.name}{SIG_SUFFIX} has no move file {item.name}{MOVE_SUFFIX} beside it; "
                "add both files in one commit")
    if item.sig is None:
        return (f"no signature file {item.name}{SIG_SUFFIX}; sign the move with "
                f"`ssh-keygen -Y sign -n pbem-move -f KEY {item.name}{MOVE_SUFFIX}` and add both files")
    return ""


def _handle(repo: Repo, gd: GameDir, prefix: str, item: IncomingItem, reason: str,
            waiting: list[str], entries: list[dict[str, Any]]) -> tuple[Outcome, list[str]]:
    """Submit one item (unless already refused), remove it, write its receipt, commit."""
    from pbem.submit import Receipt
    receipt: Receipt | None = None
    if not reason:
        assert item.move is not None and item.sig is not None
        receipt, reason = _submit_item(gd, repo.root / item.move, repo.root / item.sig, item.owner, entries)
    first = item.paths[0]
    shown = first[len(prefix) + 1:] if prefix else first           # incoming/red/0012.yaml
    filename = shown.split("/", 1)[-1]                              # red/0012.yaml
    receipt_rel = join(RECEIPTS, item.owner, f"{item.name}.txt")
    repo.remove(item.paths)
    if receipt is not None:
        waiting = receipt.waiting_for
        text = _accepted_text(receipt, shown)
        subject = f"entry {receipt.index}: {receipt.player}'s move accepted; waiting for {_who(waiting)}"
        body = text + f"\nprocessed {shown}; receipt in {receipt_rel}"
        line = f"entry {receipt.index}; waiting for {_who(waiting)}"
    else:
        text = f"rejected: {reason}\nfile: {shown} (removed; it stays in the git history)\n"
        subject = f"{filename} rejected; waiting for {_who(waiting)}"
        body = f"rejected: {reason}\n\nreceipt in {receipt_rel}"
        line = reason
    write_atomic(gd.root / receipt_rel, text, mode=public_mode())
    if receipt is not None and receipt.signed is not None:   # the moderator-signed receipt beside it
        receipts.write(gd.root / join(RECEIPTS, item.owner, f"{item.name}.receipt.yaml"), *receipt.signed)
    commit(repo, gd, prefix, subject, body)
    return Outcome(filename, receipt is not None, line,
                   join(prefix, receipt_rel)), waiting


def _who(players: list[str]) -> str:
    return ", ".join(players) if players else "nobody (the game is over)"


def _submit_item(gd: GameDir, move_path: Path, sig_path: Path, owner: str,
                 entries: list[dict[str, Any]]) -> tuple[Any, str]:
    """Submit one pushed move: (its receipt, "") or (None, the one-line reason it was refused).

    Never raises for anything in the files: a hostile or broken file is refused, and the
    items behind it are still processed (quarantine, docs/git.md)."""
    from pbem.append import PublishError
    from pbem.submit import committed_receipt, identify_signer, read_move_files, receipt_from_log, submit
    raw = b""
    try:
        raw, signature = read_move_files(move_path, sig_path, follow_symlinks=False)
        owners, _key, _signed = identify_signer(entries, raw, signature)     # whose key: the header and key changes
        if owner not in owners:
            raise Rejected(f"the move is signed with {' and '.join(owners)}'s key but it was put in "
                           f"incoming/{owner}/; each player adds moves only to their own folder")
        return submit(gd, raw, signature), ""
    except PublishError as exc:   # the move is in the log; the next command rewrites the digests
        return receipt_from_log(gd, exc.index), ""
    except PbemError as exc:
        return None, one_line(str(exc))
    except Exception as exc:  # noqa: BLE001 - quarantine: a bug must not block the moves behind this one
        committed = committed_receipt(gd, raw)
        if committed is not None:   # it failed after the commit: the move is in; the next command repairs the rest
            return committed, ""
        if isinstance(exc, OSError):
            raise                   # a full disk is no fault of the file: stop; the next sync takes it again
        return None, refusal_for_crash(gd.moderator_dir, exc, f"incoming move {move_path.name}", raw)


def _accepted_text(receipt: Any, shown: str) -> str:
    lines = list(receipt.lines())
    lines += [f"file: {shown} (archived in moves/)",
              f"move sha256: {receipt.move_sha256}",
              f"log entry: {receipt.index}",
              f"entry hash: {receipt.entry_hash}"]
    return "\n".join(lines) + "\n"


# --- committing -------------------------------------------------------------------------

def commit(repo: Repo, gd: GameDir, prefix: str, subject: str, body: str = "",
           allow_seed: bool = False, extra: tuple[str, ...] = ()) -> str | None:
    """Stage the game folder's public files (never incoming additions or moderator/) and commit."""
    game = prefix or "."
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


def _tick(repo: Repo, gd: GameDir, prefix: str, report: SyncReport, entries: list[dict[str, Any]]) -> None:
    """`pbem tick` in the clone: expired deadlines and bot seats; one commit for what it appended.
    ``entries``: the log as the round found it (the moves since cannot have closed the game)."""
    from pbem.deadlines import tick
    from pbem.table import revealed_at
    if revealed_at(entries) is not None:        # a closed game has no deadlines left
        return
    result = tick(gd)
    report.reminders = result.reminders
    if not result.entries:
        return
    report.ticked += result.entries
    first, last = result.entries[0]["index"], result.entries[-1]["index"]
    span = f"entry {first}" if first == last else f"entries {first}-{last}"
    what = "; ".join(f"{e['action']} for {e['player']}" for e in result.entries[:3])
    if len(result.entries) > 3:
        what += f" and {len(result.entries) - 3} more"
    subject = f"{span}: {what}; waiting for {_who(_waiting(gd))}"
    body = "\n".join(f"entry {e['index']}: {e['reason']}" for e in result.entries)
    commit(repo, gd, prefix, subject, body + "\n\n(pbem tick: deadlines and bot seats)")


def _maybe_reveal(repo: Repo, gd: GameDir, prefix: str, opts: SyncOptions) -> None:
    if not opts.reveal_at_end:
        return
    from pbem.moderator import reveal
    from pbem.repair import load_repaired
    table = load_repaired(gd)
    if table.game.result(table.state) is None or any(e.get("kind") == "reveal" for e in table.entries):
        return
    entry = reveal(gd)
    commit(repo, gd, prefix, f"entry {entry['index']}: the game is over; the seed is revealed",
           "Anyone can now check every roll and hidden value: pbem audit GAME_DIR", allow_seed=True)

