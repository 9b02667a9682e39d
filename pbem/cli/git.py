"""``pbem git ...``: the turn exchange through a shared git repository (docs/git.md).

The logic is in plain modules: :mod:`~pbem.transport.git.repo` (the git
command line), :mod:`~pbem.transport.git.incoming` (which moves, in which
order, read as git objects), :mod:`~pbem.transport.git.answers` (refusals,
submit and receipts), :mod:`~pbem.transport.git.verify` (signed commits),
:mod:`~pbem.transport.git.tree` (the moderator's trees, built with plumbing),
:mod:`~pbem.transport.git.sync` (the moderator's round trip),
:mod:`~pbem.transport.git.seed` (sealed seed) and :mod:`~pbem.transport.git.setup`
(set-up and the CI workflow).  Heavy imports happen inside the commands.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import click

from pbem.base.errors import PbemError
from pbem.cli.common import GAME_DIR


def _game(game_dir: Path) -> Any:
    from pbem.store.gamedir import GameDir
    gd = GameDir(game_dir)
    gd.require()
    return gd


@click.group("git", context_settings={"help_option_names": ["-h", "--help"]})
def git() -> None:
    """Exchange turns through a shared git repository.

    Players add signed moves under GAME_DIR/incoming/PLAYER/ and push; the
    moderator (a person or the repository's CI) runs `pbem git sync`.

    \b
    Example:
      pbem git init game1 --ci github && git push -u origin main
      pbem git sync game1
    """


# --- init -----------------------------------------------------------------------

@git.command("init")
@GAME_DIR
@click.option("--ci", type=click.Choice(["github"]), default=None,
              help="write .github/workflows/pbem-GAME.yml so the repository's CI is the moderator of moves sent "
                   "as pull requests from forks (seals the seed; puts the pbem wheel and hashed requirements "
                   "in .pbem/; prints what to set up on GitHub)")
@click.option("--seal-seed", "seal", is_flag=True, help="store the seed encrypted to the moderator key (moderator.seed.age)")
@click.option("--verify-commits", is_flag=True, help="require moves to come in commits SSH-signed by their owner")
@click.option("--reveal-at-end", is_flag=True, help="reveal the seed in the log when the game is over")
@click.option("--secret", default=None, help="name of the environment secret holding this game's moderator key "
              "(default: PBEM_MODERATOR_KEY_<GAME ID>)")
@click.option("--environment", default=None, help="the GitHub environment holding the secret, open only to the "
              "game's branch (default: pbem-moderator)")
@click.option("--tick-cron", default=None, help="when CI runs on its own (deadlines, bot seats, a sweep of open pull "
              "requests), as a cron line (default: hourly at a minute chosen by the game id)")
@click.option("--pbem-spec", default=None, help="install pbem in CI with `pip install SPEC` instead of the "
              "hash-pinned wheel in .pbem/ (e.g. git+https://github.com/you/pbem@COMMIT); its safety is yours")
@click.option("--branch", default=None, help="the shared branch (default: the current branch)")
@click.option("--no-commit", is_flag=True, help="write the files but do not commit them")
@click.option("--force", is_flag=True, help="replace an existing, different workflow (or one of an earlier, "
              "push-triggered pbem) or vendored pbem")
def init_cmd(game_dir: Path, ci: str | None, seal: bool, verify_commits: bool, reveal_at_end: bool,
             secret: str | None, environment: str | None, tick_cron: str | None, pbem_spec: str | None,
             branch: str | None, no_commit: bool, force: bool) -> None:
    """Prepare a game folder inside a git clone for the git exchange and commit it.

    Run it in the moderator's clone after `pbem new`. The moderator's private
    folder GAME_DIR/moderator/ is git-ignored and never committed. With
    --ci github it needs the package index once, to pin pbem's dependencies
    by hash for the CI runner, refuses other workflows that could hand a
    player the key, and prints the settings to make on GitHub.

    \b
    Example:
      pbem new game1 --game atlantis --player red=alice.pub --player blue=bob.pub
      pbem git init game1 --ci github --verify-commits && git push -u origin main
    """
    from pbem.transport.git.setup import InitOptions
    opts = InitOptions(ci=ci, seal=seal, verify_commits=verify_commits, reveal_at_end=reveal_at_end,
                       pbem_spec=pbem_spec or None, secret=secret, environment=environment, tick_cron=tick_cron,
                       branch=branch, commit=not no_commit, force=force)
    _init(game_dir, opts)


def _init(game_dir: Path, opts: Any) -> None:
    from pbem.transport.git.setup import init_git
    result = init_git(_game(game_dir), opts)
    for path in result.removed:
        click.echo(f"removed {path}")
    for path in result.written:
        click.echo(f"wrote {path}")
    if result.commit:
        click.echo(f"committed {result.commit[:12]}; now push it: git push -u origin {result.branch}")
    elif opts.commit:
        click.echo("nothing new to commit")
    for line in result.warnings:
        click.echo(f"warning: {line}")
    if result.checklist:
        click.echo("Now on GitHub (docs/git.md, \"The moderator as CI\"); pbem cannot check these for you:")
        for number, item in enumerate(result.checklist, 1):
            click.echo(f"  {number}. {item}")


# --- sync -------------------------------------------------------------------------

@git.command("sync")
@click.argument("game_dir", metavar="GAME_DIR|REPO_DIR", type=click.Path(path_type=Path))
@click.option("--verify-commits/--no-verify-commits", default=None,
              help="require moves to come in commits SSH-signed by their owner (default: moderator/git.yaml)")
@click.option("--reveal-at-end/--no-reveal-at-end", default=None,
              help="reveal the seed in the log once the game is over (default: moderator/git.yaml)")
@click.option("--tick/--no-tick", default=None,
              help="after the moves, apply deadlines and let bot seats move (pbem tick) and commit that "
                   "(default: moderator/git.yaml)")
@click.option("--token-env", default=None, help="name of an environment variable holding an HTTP token to "
              "fetch and push with, e.g. PBEM_GIT_TOKEN set from GitHub's job token in CI")
@click.option("--remote", default=None, help="the shared remote (default: the branch's upstream, else origin)")
@click.option("--branch", default=None, help="the shared branch (default: the current branch)")
@click.option("--attempts", type=click.IntRange(1, 100), default=None,
              help="lost push races in a row (others pushed first) retried at once; then with growing pauses "
                   "(default 5)")
@click.option("--patience", type=click.IntRange(0, 86400), default=None, metavar="SECONDS",
              help="keep retrying lost push races this long before giving up (default 120; 0: give up after "
                   "--attempts)")
@click.option("--pull-requests/--no-pull-requests", default=None,
              help="also take moves from every pull request's GAME_DIR/incoming/PLAYER/ (GitHub's refs/pull/N/head), "
                   "read as git objects; the shared branch is then trusted as only the moderator writes it "
                   "(default: moderator/git.yaml)")
@click.option("--local", "local", is_flag=True, help="do not fetch or push: process and commit in this clone only")
@click.option("--game", "games", multiple=True, metavar="FOLDER",
              help="with a folder of games: sync only this game folder (relative to it; repeatable)")
@click.option("--verbose", "-v", is_flag=True, help="with a folder of games: also list the games with nothing to do")
def sync_cmd(game_dir: Path, verify_commits: bool | None, reveal_at_end: bool | None, tick: bool | None,
             token_env: str | None, remote: str | None, branch: str | None, attempts: int | None,
             patience: int | None, pull_requests: bool | None, local: bool, games: tuple[str, ...],
             verbose: bool) -> None:
    """Fetch, submit the incoming moves in order, commit receipts, log,
    digests and secrets, and push (retrying when a player pushed meanwhile).

    Moves are read from git objects, never checked out, and taken in the
    order of the commits that added them, then by file name; each is
    answered in receipts/PLAYER/NAME.txt and left out of incoming/. The game
    folder is published as it is on disk: what others pushed outside
    incoming/PLAYER/ is left out and listed. At most 200 moves are taken
    between two pushes. With --tick, expired deadlines and bot seats are
    applied afterwards, with the deadline clock taken from the history.

    Given a folder that is not a game (the repository's root, say), every
    game folder under it is synced in turn (or the ones --game names), each
    with its own moderator/git.yaml: one game's failure is reported on its
    line and the others go on; the exit status is 1 if any game failed.

    \b
    Example:  pbem git sync game1 --verify-commits --tick
              pbem git sync game1 --pull-requests     # GitHub: moves come as pull requests
              pbem git sync .                         # every game in the repository
    """
    options = _SyncArgs(verify_commits, reveal_at_end, tick, token_env, remote, branch, attempts, patience,
                        pull_requests, local)
    if games or not (game_dir / "log.yaml").is_file():
        _sync_all(game_dir, games, verbose, options)
        return
    synced = _sync(game_dir, options)
    for line in synced.lines:
        click.echo(line)
    for game, subjects in synced.others.items():
        click.echo(f"also pushed {len(subjects)} commit(s) of {_shown(game, synced.root)} (committed in this "
                   "clone before)")


def _sync_all(folder: Path, names: tuple[str, ...], verbose: bool, options: _SyncArgs) -> None:
    """Every game under ``folder`` (or the ones named), one after the other; a game's failure is
    its own line, never the end of the run."""
    from pbem.base.crashreport import refusal_for_crash
    from pbem.base.errors import one_line
    from pbem.store.gamedir import GameDir
    from pbem.transport.git.many import game_folders, named_folders
    folders = named_folders(folder, names) if names else game_folders(folder)
    if not folders:
        raise PbemError(f"no game under {folder} (no folder with a log.yaml); give a game folder, or run "
                        "`pbem new` first")
    if not names:               # a game whose seed is not here is another moderator's (or a player's copy)
        others = [g for g in folders if not GameDir(g).seed_path.is_file()]
        folders = [g for g in folders if g not in others]
        if verbose:
            for game in others:
                click.echo(f"{game.relative_to(folder)}: not moderated here (no moderator/seed): left alone")
    from pbem.transport.git.sync import RacesLost
    failed: list[str] = []
    #: commits of a game that another game's sync pushed (left in the clone by that game's own earlier,
    #: beaten or interrupted sync): said on that game's line, never on the line of the game that pushed them
    carried: dict[Path, list[str]] = {}
    for game in folders:
        name = str(game.relative_to(folder)) if game != folder else str(game)
        try:
            synced = _sync(game, options)
            lines = synced.lines
        except RacesLost as exc:
            synced, lines = None, [f"not synced: {one_line(str(exc))}"]
            failed.append(name)
            # the shared branch is one for all games: the next games try at once, without pauses (each sync
            # that lands pushes the commits waiting in the clone, this game's too)
            options = replace(options, patience=0)
        except (PbemError, OSError) as exc:
            synced, lines = None, [f"not synced: {one_line(str(exc))}"]
            failed.append(name)
        except Exception as exc:  # noqa: BLE001 - quarantine: one game's bug must not stop the others
            crash = refusal_for_crash(GameDir(game).moderator_dir, exc, f"syncing {name}")
            synced, lines = None, [f"not synced: {crash}"]
            failed.append(name)
        lines = _with_carried(lines, carried.pop(game.resolve(), []))
        if synced is not None:
            for other, said in synced.carried(name).items():
                carried.setdefault(other, []).extend(said)
        quiet = len(lines) == 1 and lines[0].startswith("nothing to do")
        if verbose or not quiet:
            for line in lines:
                click.echo(f"{name}: {line}")
    for game, said in carried.items():        # games synced before the one that pushed their commits
        for line in said:
            click.echo(f"{_shown(game, folder)}: {line}")
    if verbose:
        click.echo(f"{len(folders)} game(s) synced, {len(failed)} failed")
    if failed:
        raise PbemError(f"{len(failed)} of {len(folders)} game(s) could not be synced: {', '.join(failed)} "
                        "(their lines above say why; the others were synced)")


def _shown(game: Path, folder: Path) -> str:
    """A game folder as a line names it: relative to ``folder`` when it is below it."""
    base = folder.resolve()
    return str(game.relative_to(base)) if game.is_relative_to(base) else str(game)


def _with_carried(lines: list[str], carried: list[str]) -> list[str]:
    """A game's lines, with what another game's sync pushed of it (then it had something to do)."""
    if not carried:
        return lines
    return [line for line in lines if not line.startswith("nothing to do")] + carried


@dataclass
class _Synced:
    """What one game's sync says: its own lines, and the commits of other games it pushed."""

    lines: list[str]
    others: dict[Path, list[str]] = field(default_factory=dict)     # game folder -> subjects
    target: str = ""
    root: Path = Path(".")                                          # the repository's (when others is not empty)

    def carried(self, by: str) -> dict[Path, list[str]]:
        """The line each other game gets for its commits this sync pushed."""
        return {game: [f"pushed {len(subjects)} commit(s) to {self.target} (committed in this clone before; "
                       f"pushed with {by}'s)"] for game, subjects in self.others.items()}


@dataclass(frozen=True)
class _SyncArgs:
    """`pbem git sync`'s options for each game (None: the game's moderator/git.yaml decides)."""

    verify_commits: bool | None
    reveal_at_end: bool | None
    tick: bool | None
    token_env: str | None
    remote: str | None
    branch: str | None
    attempts: int | None
    patience: int | None
    pull_requests: bool | None
    local: bool


def _sync(game_dir: Path, args: _SyncArgs) -> _Synced:
    import datetime as dt

    from pbem.transport.git.repo import Identity, Repo
    from pbem.transport.git.sync import LEFT_OUT_SHOWN, SyncOptions, sync
    gd = _game(game_dir)
    out: list[str] = []
    settings, warning, repo = _private_settings(gd)
    if warning:
        out.append(warning)
    opts = SyncOptions(
        verify_commits=_either(args.verify_commits, settings.verify_commits),
        reveal_at_end=_either(args.reveal_at_end, settings.reveal_at_end),
        remote=args.remote or settings.remote, branch=args.branch or settings.branch,
        attempts=args.attempts or settings.attempts, use_remote=not args.local,
        patience=_either(args.patience, settings.patience),
        identity=Identity(settings.user_name, settings.user_email),
        tick=_either(args.tick, settings.tick),
        token=_env_value(args.token_env) if args.token_env else None,
        pull_requests=_either(args.pull_requests, settings.pull_requests))
    report = sync(gd, opts, repo)
    for outcome in report.outcomes:
        out.append(f"{'accepted' if outcome.accepted else 'rejected'} {outcome.item}: {outcome.text}")
    out += report.left_out[:LEFT_OUT_SHOWN]
    if len(report.left_out) > LEFT_OUT_SHOWN:
        out.append(f"left out {len(report.left_out) - LEFT_OUT_SHOWN} more (the commit messages list them)")
    out += [f"note: {note}" for note in report.notes]
    for entry in report.ticked:
        out.append(f"log entry {entry['index']}: {entry['action']} for {entry['player']} - {entry['reason']}")
    for d in report.reminders:
        due = dt.datetime.fromtimestamp(d.due, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        out.append(f"reminder: {d.player}'s decision is due {due}")
    if report.races:
        racers = ", ".join(f"{name} {count}" for name, count in report.racers.most_common(3))
        out.append(f"others pushed meanwhile {report.races} time(s); their commits were taken in and retried"
                   + (f" (the winning commits' authors: {racers})" if racers else ""))
    if report.pushed:
        out.append(f"pushed {len(report.commits)} commit(s) to {report.target}")
    elif report.commits and args.local:
        out.append(f"committed {len(report.commits)} commit(s) locally (not pushed)")
    elif not report.outcomes and not report.ticked:
        out.append(f"nothing to do: no incoming moves ({report.target} is up to date)")
    if not report.others:
        return _Synced(out, {}, report.target)
    root: Path = (repo if repo is not None else Repo.discover(gd.root)).root
    return _Synced(out, {(root / game).resolve(): subjects for game, subjects in report.others.items()},
                   report.target, root)


def _either(given: Any, setting: Any) -> Any:
    """The command line's value, else the setting's."""
    return setting if given is None else given


def _private_settings(gd: Any) -> tuple[Any, str, Any]:
    """The settings in GAME_DIR/moderator/git.yaml, unless that file is tracked in git (someone pushed
    it and a checkout put it there): then the defaults, and a line saying so; and the repository, if
    finding the file made it look for it (the sync need not look again)."""
    from pbem.transport.git.repo import Repo
    from pbem.transport.git.settings import GitSettings, load_settings, settings_path
    path = settings_path(gd)
    if path.is_file():
        repo = Repo.discover(gd.root)
        rel = repo.rel(path)
        if repo.run("ls-files", "--error-unmatch", "--", f":(literal){rel}", check=False).returncode == 0:
            return GitSettings(), (f"warning: {rel} is tracked in git (pushed by someone), so it is not read; "
                                   "using the command-line options and the defaults"), repo
        return load_settings(gd), "", repo
    return load_settings(gd), "", None


def _env_value(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise PbemError(f"environment variable {name} is not set or empty")
    return value


# --- the sealed seed ----------------------------------------------------------------

@git.command("seal-seed")
@GAME_DIR
@click.option("--no-commit", is_flag=True, help="write GAME_DIR/moderator.seed.age but do not commit it")
def seal_seed_cmd(game_dir: Path, no_commit: bool) -> None:
    """Store moderator/seed encrypted to the moderator's public key (from the
    log header) as GAME_DIR/moderator.seed.age, so a CI moderator holding the
    moderator's private key can restore it. The plain seed never leaves
    GAME_DIR/moderator/.

    \b
    Example:  pbem git seal-seed game1 && git push
    """
    _seal(game_dir, no_commit)


def _seal(game_dir: Path, no_commit: bool) -> None:
    from pbem.transport.git.repo import Repo
    from pbem.transport.git.seed import seal_seed
    from pbem.transport.git.sync import commit
    gd = _game(game_dir)
    written = seal_seed(gd).written
    for path in written:
        click.echo(f"wrote {path} (readable only with the moderator key)")
    if not no_commit:
        repo = Repo.discover(gd.root)
        sha = commit(repo, gd, repo.rel(gd.root), "pbem: seal the moderator's seed for CI",
                     extra=tuple(repo.rel(p) for p in written))
        click.echo(f"committed {sha[:12]}; push it" if sha else "already committed")


@git.command("unseal-seed")
@GAME_DIR
@click.option("--key", "key_path", type=click.Path(path_type=Path), default=None,
              help="the moderator's private key file (copied to GAME_DIR/moderator/)")
@click.option("--key-env", default=None, help="name of an environment variable holding the private key, "
              "e.g. PBEM_MODERATOR_KEY in CI")
def unseal_seed_cmd(game_dir: Path, key_path: Path | None, key_env: str | None) -> None:
    """Restore GAME_DIR/moderator/seed (and the moderator key) from
    GAME_DIR/moderator.seed.age: what a CI moderator does before syncing.

    \b
    Example:  pbem git unseal-seed game1 --key-env PBEM_MODERATOR_KEY
    """
    _unseal(game_dir, key_path, key_env)


def _unseal(game_dir: Path, key_path: Path | None, key_env: str | None) -> None:
    from pbem.transport.git.seed import unseal_seed
    if key_path is not None and key_env is not None:
        raise PbemError("give either --key or --key-env, not both")
    key_text = None
    if key_env is not None:
        key_text = os.environ.get(key_env)
        if not key_text:
            raise PbemError(f"environment variable {key_env} is not set or empty")
    for path in unseal_seed(_game(game_dir), key_path, key_text):
        click.echo(f"restored {path}")


# --- helpers for players -----------------------------------------------------------------

@git.command("allowed-signers")
@GAME_DIR
def allowed_signers_cmd(game_dir: Path) -> None:
    """Print an allowed-signers file for the players' keys (namespace git),
    to check signed commits yourself.

    \b
    Example:
      pbem git allowed-signers game1 > signers
      git -c gpg.ssh.allowedSignersFile=signers log --format='%h %G? %GS %s'
    """
    _allowed(game_dir)


def _allowed(game_dir: Path) -> None:
    from pbem.transport.git.verify import allowed_signers
    click.echo(allowed_signers(_game(game_dir).entries()[0]), nl=False)
