"""Signed commits: who added an incoming move (``--verify-commits``).

Players sign their commits with their SSH key (``git -c gpg.format=ssh commit -S``).
We ask git itself to verify them, with an allowed-signers file generated from
the players' keys in the log header (principal = player name, namespace
``git``), and read ``%G?`` / ``%GS``.  Two rules on top of git:

* anything but ``G`` (good signature by a listed key) is refused - git reports
  an SSH-signed commit as ``N`` when no allowed-signers file is configured,
  so the file is always passed explicitly;
* git never ties a signer to the paths a commit touches: every commit that
  added or changed ``incoming/PLAYER/...`` must be signed by PLAYER.
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.transport.git.incoming import IncomingItem
from pbem.transport.git.repo import GitError, Repo

GIT_NAMESPACE = "git"
STATUS_TEXT = {
    "N": "is not signed",
    "B": "has a bad signature",
    "U": "is signed with a key that is not a player's key in this game",
    "X": "has an expired signature",
    "Y": "is signed with an expired key",
    "R": "is signed with a revoked key",
    "E": "has a signature that cannot be checked",
}


@dataclass(frozen=True)
class CommitSignature:
    commit: str
    status: str      # git's %G?
    signer: str      # git's %GS: the principal (player name) for SSH signatures


def allowed_signers(header: Mapping[str, Any]) -> str:
    """An OpenSSH allowed-signers file: every player's key, principal = name, git namespace only."""
    return "".join(f'{p["name"]} namespaces="{GIT_NAMESPACE}" {p["key"]}\n' for p in header["players"])


def require_ssh_keygen() -> None:
    if shutil.which("ssh-keygen") is None:
        raise GitError("checking signed commits needs ssh-keygen (OpenSSH 8.2 or newer) on PATH; "
                       "install openssh-client or sync without --verify-commits")


def signatures(repo: Repo, commits: Sequence[str], header: Mapping[str, Any]) -> dict[str, CommitSignature]:
    """git's verdict on each commit's signature, checked against the players' keys only."""
    wanted = sorted(set(commits))
    if not wanted:
        return {}
    with tempfile.TemporaryDirectory(prefix="pbem-signers-") as tmp:
        signers = Path(tmp) / "allowed_signers"
        signers.write_text(allowed_signers(header), encoding="utf-8")
        out = repo.out("log", "--no-walk=unsorted", "--format=%H%x00%G?%x00%GS%x00", *wanted,
                       config=[f"gpg.ssh.allowedSignersFile={signers}"])
    found: dict[str, CommitSignature] = {}
    fields = out.replace("\n", "").split("\0")
    for i in range(0, len(fields) - 2, 3):
        found[fields[i]] = CommitSignature(fields[i], fields[i + 1], fields[i + 2])
    return found


def refusal(item: IncomingItem, sigs: Mapping[str, CommitSignature]) -> str:
    """Why the item's commits are not acceptable, or '' when every one is signed by its owner."""
    for shown, commits in item.commits.items():
        if not commits:
            return f"incoming/{shown} was not added by a commit of its own (signed commits are required)"
        for commit in commits:
            sig = sigs.get(commit, CommitSignature(commit, "E", ""))
            if sig.status != "G":
                text = STATUS_TEXT.get(sig.status, f"has signature status {sig.status!r}")
                return (f"commit {commit[:10]} that added incoming/{shown} {text}; signed commits are required "
                        "(git -c gpg.format=ssh -c user.signingkey=~/.ssh/id_ed25519 commit -S)")
            if sig.signer != item.owner:
                return (f"commit {commit[:10]} that added incoming/{shown} is signed by {sig.signer}, "
                        f"but only {item.owner} may add files to incoming/{item.owner}/")
    return ""
