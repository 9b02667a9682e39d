"""Sign the player's move and hand it to the game's transport.

The move is checked against the public state first (as `pbem check` does), written and signed
with the real ``ssh-keygen -Y sign`` (passphrases and the ssh-agent work as in a terminal), and
for a git game committed as ``GAME_DIR/incoming/PLAYER/entry-NNNN.yaml`` (plus ``.sig``) and
pushed; a push that loses a race with another push is rebased and tried again.  The moderator's
answer comes back as a receipt with the next fetch.
"""
from __future__ import annotations

import contextlib
import io
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pbem.base.errors import PbemError
from pbem.client.config import PlayedGame
from pbem.core.engine import Rejected
from pbem.pipeline.turn import Io, TurnError, write_and_sign
from pbem.store.table import Table
from pbem.transport.git.answers import receipt_of
from pbem.transport.git.repo import GitError, Identity, Repo

PUSH_ATTEMPTS = 4


class SendError(PbemError):
    """One line: why the move was not sent (nothing was pushed)."""


@dataclass(frozen=True)
class Sent:
    name: str            # incoming/PLAYER/NAME.yaml
    index: int           # the log entry the move answers
    commit: str


#: writes and signs the move at the path it is given; returns the signature's path (refuses with
#: :class:`Rejected` or :class:`TurnError`, leaving what it wrote for the caller to remove)
Write = Callable[[Path], Path]


def send(game: PlayedGame, table: Table, actions: list[dict[str, Any]],
         sign: Callable[[Path, Path], None] | None = None) -> Sent:
    """``sign``: how the move is signed (default `ssh-keygen -Y sign`, which uses the agent).  The
    commit is SSH-signed too where ssh-keygen can sign (a key without a passphrase, or one the
    agent holds); a key opened in memory signs the move only (docs/playing.md)."""
    if not actions:
        raise SendError("nothing chosen yet: pick at least one action before Send")

    def write(path: Path) -> Path:
        result = write_and_sign(table, game.player, actions, path, game.key, Io(io.StringIO(), io.StringIO()), sign)
        assert result.signature is not None
        return result.signature
    index = int(table.last["index"])
    return send_written(game, index, write, f"{game.player}: move for entry {index}", signed_commit=sign is None)


def send_written(game: PlayedGame, index: int, write: Write, message: str, signed_commit: bool) -> Sent:
    """Write and sign a move on log entry ``index`` (``write``) in the player's clone, as
    ``incoming/PLAYER/entry-NNNN.yaml``, commit it (SSH-signed with the player's key when
    ``signed_commit``) with ``message``, and push; nothing is left behind when a step fails."""
    repo = _player_repo(game)
    folder = game.folder / "incoming" / game.player
    name = _free_name(folder, game, index)
    path = folder / name
    try:
        signature = write(path)
    except (Rejected, TurnError) as exc:
        for p in (path, path.with_name(path.name + ".sig")):     # checked before writing; a failed signature
            p.unlink(missing_ok=True)                             # leaves nothing either
        _remove_if_empty(folder)
        raise SendError(f"the move was not sent: {exc}") from None
    rel = [repo.rel(path), repo.rel(signature)]
    signing = ["gpg.format=ssh", f"user.signingkey={game.key}"]
    try:
        repo.run("add", "--", *rel)
        # signed with the player's key, so a moderator who runs `pbem git sync --verify-commits` takes it
        repo.run("commit", "-q", *(["-S"] if signed_commit else []), "-m", message, "--", *rel, config=signing)
    except GitError as exc:
        for p in (path, signature):
            p.unlink(missing_ok=True)
        _remove_if_empty(folder)
        raise SendError(f"the move was not committed: {exc}") from None
    _push(repo, [*signing, "commit.gpgSign=true"] if signed_commit else [])
    return Sent(f"{game.player}/{name}", index, str(repo.head()))


def _player_repo(game: PlayedGame) -> Repo:
    """The player's clone, committing as the player (their own git identity where they set one)."""
    try:
        probe = Repo.discover(game.clone)
    except GitError as exc:
        raise SendError(f"game {game.name}: {exc}") from None
    set_in_git = _identity(probe)
    name, email = set_in_git.get("user.name", ""), set_in_git.get("user.email", "")
    return Repo(probe.root, Identity(name or game.player, email or f"{game.player}@pbem.invalid"))


def _identity(repo: Repo) -> dict[str, str]:
    """``user.name`` and ``user.email`` as git has them set (the last value of each, as ``git config KEY``
    answers), in one question."""
    proc = subprocess.run(["git", "-C", str(repo.root), "config", "-z", "--get-regexp", r"^user\.(name|email)$"],
                          capture_output=True, check=False)
    found: dict[str, str] = {}
    for record in proc.stdout.split(b"\0"):
        key, _, value = record.partition(b"\n")
        if key in (b"user.name", b"user.email"):
            found[key.decode()] = value.decode("utf-8", errors="replace").strip()
    return found


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()


def _free_name(folder: Path, game: PlayedGame, index: int) -> str:
    """A name no move of this player has had: not in ``incoming/`` and without a receipt.  A name the
    moderator already answered must not come back: a move sent again after a refusal (for its commit,
    say) is the same bytes, which the moderator counts as answered and removes without a new receipt."""
    name = f"entry-{index:04d}.yaml"
    n = 1
    while ((folder / name).exists() or (folder / (name + ".sig")).exists()
           or (game.folder / receipt_of(game.player, name.removesuffix(".yaml"))).exists()):
        n += 1
        name = f"entry-{index:04d}-{n}.yaml"
    return name


def _push(repo: Repo, signing: list[str]) -> None:
    """Push; a push that lost a race is rebased and tried again.  ``signing``: the configuration that
    signs the rebased commit as the first was signed (a rebase makes a new commit, and git signs it
    only when asked: without it the move's commit would arrive unsigned, and a moderator who
    requires signed commits would refuse the move)."""
    last = ""
    for _ in range(PUSH_ATTEMPTS):
        proc = repo.run("push", "-q", remote=True, check=False)
        if proc.returncode == 0:
            return
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        last = lines[-1] if lines else "no message"
        repo.run("pull", "--rebase", "-q", config=signing, remote=True, check=False)
    raise SendError(f"the move is committed in your clone but could not be pushed ({last[:200]}); "
                    "`git push` it when the remote answers")
