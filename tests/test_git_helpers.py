"""Helpers for the git exchange tests (no tests here): a bare repository on disk
as the shared remote, one clone per player plus the moderator's, all driven
with the real git CLI in a hermetic environment (own HOME, no system config)."""
from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import session_cache
from click.testing import CliRunner
from pipeline_helpers import new_game

from pbem.cli.group import main as pbem_main
from pbem.crypto import keys, sshsig
from pbem.store.gamedir import GameDir
from pbem.store.movefile import MoveFile, render_move

GAME = "game1"
PLAYERS = ["red", "blue", "green"]


def git(cwd: Path, *args: Any, check: bool = True, name: str = "tester") -> subprocess.CompletedProcess[str]:
    cmd = ["git", "-c", f"user.name={name}", "-c", f"user.email={name}@test", *[str(a) for a in args]]
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed: {proc.stderr}")
    return proc


def copy_folder(source: Path, target: Path) -> None:
    """``target`` made a copy of ``source`` (links as links, modes and times kept), as ``shutil.copytree(source,
    target, symlinks=True)`` makes it, by one `cp -a` (a git world's hundreds of small files: a third less CPU)."""
    proc = subprocess.run(["cp", "-a", "--", str(source), str(target)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and not target.is_symlink(), proc.stderr


def started_git_commands(trace: Path) -> list[list[str]]:
    """The argv of every git command started (git's trace2 events in the folder ``trace``, as
    ``GIT_TRACE2_EVENT`` writes them), not those git started itself."""
    found = []
    for path in sorted(trace.iterdir()):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event.get("event") == "start" and "/" not in event["sid"]:
                found.append(event["argv"][1:])
    return found


def cli(*args: Any, ok: bool = True) -> Any:
    result = CliRunner().invoke(pbem_main, ["git", *(str(a) for a in args)], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


#: the tests' global git settings.  No automatic housekeeping: a `git gc --auto` after every push and a
#: `git maintenance run --auto` after every fetch were a tenth of the git processes of a game, and
#: housekeeping is not what is tested.  How git stores and ships objects, not which objects: no zlib
#: compression (`core.compression`, loose objects and packs alike) and no delta search when a fetch or
#: push packs objects (`pack.window`).  The same object names, trees, commits and refs: only the bytes
#: in .git/objects and on the wire differ (issue 19: zlib and the delta search were about a third of the
#: git games' git CPU).  Received objects stay loose (`transfer.unpackLimit=1` kept each push as a pack:
#: with no gc, a game's hundreds of packs made every other git command slower than it saved).
GITCONFIG = ("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
             "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[receive]\n\tautogc = false\n"
             "[core]\n\tcompression = 0\n[pack]\n\twindow = 0\n")


#: how the players' clones are made: `--shared`, the clone reads the objects it has not made itself from the
#: bare repository (git's alternates), so a player's `git fetch` of the moderator's new commit finds its
#: objects there and copies nothing (no pack made by the server, none unpacked by the clone: a player fetch
#: of the Atlantis game went from 34 to 9 ms, issue 19).  The same refs, commits, trees and work trees; the
#: player's own commits are stored in the clone and pushed as from any clone.  The moderator's clone (the
#: product's) and every fresh clone (the auditor's) stay ordinary clones.
PLAYER_CLONE = ("--shared",)


@pytest.fixture(autouse=True)
def hermetic_git(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(GITCONFIG)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "PBEM_MODERATOR_KEY"):
        monkeypatch.delenv(var, raising=False)


@dataclass
class Player:
    name: str
    clone: Path
    key: Path

    @property
    def game(self) -> GameDir:
        return GameDir(self.clone / GAME)

    def git(self, *args: Any, check: bool = True) -> subprocess.CompletedProcess[str]:
        return git(self.clone, *args, check=check, name=self.name)

    def pull(self) -> None:
        self.git("pull", "--rebase", "-q")

    def catch_up(self) -> None:
        """Fast-forward a clone without commits of its own to the shared branch, as `pbem play` does
        (`git pull --ff-only`), in two git commands instead of pull's four (fetch, then merge)."""
        self.git("fetch", "-q")
        self.git("merge", "-q", "--ff-only", "@{upstream}")

    def write_move(self, filename: str, actions: list[dict[str, Any]], owner: str | None = None,
                   player: str | None = None, key: Path | None = None) -> list[Path]:
        """Write a move for the position this clone shows, signed; returns the two paths."""
        view = json.loads((self.game.public_dir / "view.json").read_text())    # where the clone's log ends
        move = MoveFile(view["id"], player or self.name, view["index"], view["hash"], actions)
        raw = render_move(move).encode()
        folder = self.game.root / "incoming" / (owner or self.name)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / filename
        path.write_bytes(raw)
        sig = path.with_name(path.name + ".sig")
        sig.write_text(sshsig.sign(keys.load_private_key(key or self.key), raw, sshsig.MOVE_NAMESPACE))
        return [path, sig]

    def commit(self, paths: list[Path], message: str, signing_key: Path | None = None) -> None:
        self.git("add", "--", *paths)
        if signing_key is None:
            self.git("commit", "-q", "-m", message)
        else:
            self.git("-c", "gpg.format=ssh", "-c", f"user.signingkey={signing_key}", "commit", "-S", "-q",
                     "-m", message)

    def send(self, filename: str, actions: list[dict[str, Any]], signing_key: Path | None = None,
             pull: bool = True) -> None:
        """Commit a signed move and push it; ``pull=False`` when the clone was pulled just before."""
        if pull:
            self.pull()
        self.commit(self.write_move(filename, actions), f"{self.name}: {filename}", signing_key)
        self.git("push", "-q")


@dataclass
class Shared:
    bare: Path
    moderator: GameDir
    players: dict[str, Player]
    key_pool: dict[str, Path]
    tmp: Path
    extra_clones: list[Path] = field(default_factory=list)

    def sync(self, *args: Any, ok: bool = True) -> Any:
        return cli("sync", self.moderator.root, *args, ok=ok)

    def fresh_clone(self, name: str) -> Path:
        target = self.tmp / name
        git(self.tmp, "clone", "-q", self.bare, target)
        return target

    def remote_files(self, pattern: str = "") -> list[str]:
        out = git(self.bare, "ls-tree", "-r", "--name-only", "main").stdout.split()
        return [p for p in out if p.startswith(pattern)]

    def remote_text(self, path: str) -> str:
        return git(self.bare, "show", f"main:{path}").stdout

    def remote_texts(self, paths: list[str]) -> dict[str, str]:
        """Each file's text on main, as :meth:`remote_text`, read by one `git cat-file --batch`."""
        proc = subprocess.run(["git", "cat-file", "--batch"], cwd=self.bare, capture_output=True, check=False,
                              input="".join(f"main:{path}\n" for path in paths).encode())
        assert proc.returncode == 0, f"git cat-file --batch failed: {proc.stderr!r}"
        out, at = {}, 0
        for path in paths:
            end = proc.stdout.index(b"\n", at)
            _sha, kind, size = proc.stdout[at:end].split()
            assert kind == b"blob", f"main:{path} is a {kind.decode()}"
            at = end + 1 + int(size)
            out[path] = proc.stdout[end + 1:at].decode()
            at += 1                                            # the newline after each object
        return out

    def waiting_for(self) -> list[str]:
        view = json.loads((self.moderator.public_dir / "view.json").read_text())
        return [d["player"] for d in view["pending"]]


def make_shared(tmp_path: Path, key_pool: dict[str, Path], *init_args: Any, game: str = "toy",
                position: dict[str, Any] | None = None, templates: SharedTemplates | None = None,
                **new_game_args: Any) -> Shared:
    """The toy game (or ``game``, from ``position``) shared through a bare repository: the moderator's
    clone after `pbem git init INIT_ARGS` and its first sync, and one clone per player.  With
    ``templates``, a toy game from its start is a copy of the one :class:`SharedTemplates` built.
    ``new_game_args``: a ``seed`` or ``deadlines`` of the game's own (never from the templates)."""
    if templates is not None and game == "toy" and position is None and not new_game_args:
        return templates.copy(tmp_path, key_pool, *init_args)
    return _build_shared(tmp_path, key_pool, *init_args, game=game, position=position, **new_game_args)


def _build_shared(tmp_path: Path, key_pool: dict[str, Path], *init_args: Any, game: str = "toy",
                  position: dict[str, Any] | None = None, **new_game_args: Any) -> Shared:
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", bare)
    mod_clone = tmp_path / "moderator"
    git(tmp_path, "clone", "-q", bare, mod_clone)
    gd = new_game(mod_clone / GAME, game, key_pool, PLAYERS, position=position, **new_game_args)
    cli("init", gd.root, *init_args)
    cli("sync", gd.root)           # pushes the set-up commit
    players = {}
    for name in PLAYERS:
        clone = tmp_path / f"clone-{name}"
        git(tmp_path, "clone", "-q", *PLAYER_CLONE, bare, clone)
        players[name] = Player(name, clone, key_pool[name])
    return Shared(bare, gd, players, key_pool, tmp_path)


#: what a shared world is made of, as :func:`_build_shared` lays it out in its folder
WORLD_PARTS = ("shared.git", "moderator", *(f"clone-{name}" for name in PLAYERS))


class SharedTemplates:
    """The toy game's shared world, built once per test session for each `pbem git init` option list and
    set of keys (``session_cache``: every xdist worker copies the same build) by :func:`_build_shared`
    itself, and copied for each test that asks (issue 19: the set-up was most of many short git tests;
    it is not what they test).  A copy is the same world: the same bare repository, the moderator's clone
    and game folder (the same game: ``new_game``'s seed is fixed) and the players' clones, file for file;
    only the places that name the world's folder are pointed at the copy's (each clone's ``origin`` by
    `git remote set-url`, a player's ``--shared`` alternates file).  What a sync keeps by stat data
    (moderator/git-hashes.kept) does not match a copied file's inode, so the first sync hashes it anew."""

    def __init__(self, config: pytest.Config, factory: pytest.TempPathFactory) -> None:
        self.config = config
        self.factory = factory

    def template(self, key_pool: dict[str, Path], *init_args: str) -> Path:
        """The folder of the world these keys and `pbem git init INIT_ARGS` make (read only: copy what you change)."""
        digest = hashlib.sha256(repr(init_args).encode())
        for name in PLAYERS + ["mallory"]:
            digest.update(key_pool[name].read_bytes())
        pool = {name: key_pool[name] for name in PLAYERS + ["mallory"]}

        def build(folder: Path) -> None:
            _build_shared(folder, pool, *init_args)
        return session_cache.finished(self.config, self.factory, f"git-shared-{digest.hexdigest()[:12]}", build)

    def copy(self, tmp_path: Path, key_pool: dict[str, Path], *init_args: Any) -> Shared:
        template = self.template(key_pool, *(str(a) for a in init_args))
        for part in WORLD_PARTS:
            copy_folder(template / part, tmp_path / part)
        bare = tmp_path / "shared.git"
        git(tmp_path / "moderator", "remote", "set-url", "origin", bare)
        players = {}
        for name in PLAYERS:
            clone = tmp_path / f"clone-{name}"
            git(clone, "remote", "set-url", "origin", bare)
            (clone / ".git" / "objects" / "info" / "alternates").write_text(f"{bare / 'objects'}\n")
            players[name] = Player(name, clone, key_pool[name])
        return Shared(bare, GameDir(tmp_path / "moderator" / GAME), players, key_pool, tmp_path)
