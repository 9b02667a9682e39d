"""Where each log entry's random draws come from: the labels of docs/randomness.md.

Set-up draws from ``"<game-id>/0/setup"``: the seed alone, committed in the
header before anyone moves.

From the first move on (``randomness: pbem-rng/v2`` in the header):

* the k-th action of a **player's move** draws from
  ``"<game-id>/move/<sig>/<k>"``, where ``<sig>`` is the hex SHA-256 of the
  move's SSHSIG signature blob.  The moderator learns a roll only once the
  player has signed the move that triggers it; the player cannot predict it
  without the seed; nobody can move it to another place in the log.
* the k-th action of a **moderator entry that decides for a player** (a
  timeout or a bot-held seat) draws from ``"<game-id>/auto/<anchor>/<player>/<k>"``
  and the bot's own choices from ``".../<player>/bot"``, where ``<anchor>`` is
  the hash of the last entry that changed the game (the last move or such
  moderator entry not undone, else the header).  Nothing the moderator can vary
  (the time, the reason, inserting notes or pauses) changes these draws.

Games created before v2 (no ``randomness`` in the header) keep the v1 labels
``"<game-id>/<entry>/<k>"`` and ``"<game-id>/<entry>/bot"``, so their logs still
replay and audit.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pbem.core.rng import Rng
from pbem.crypto import sshsig

RNG_V1 = "pbem-rng/v1"
RNG_V2 = "pbem-rng/v2"
CURRENT = RNG_V2
UNAVAILABLE = "the result depends on a die roll or a hidden value only the moderator knows"
ACTING = ("timeout", "bot-move")   # moderator entries that decide for a player


@dataclass(frozen=True)
class Draws:
    """The random sources of one entry: action k draws from ``Rng(seed, f"{prefix}/{k}")``."""

    seed: bytes | None
    prefix: str

    def rng(self, k: int) -> Rng:
        if self.seed is None:
            return Rng.unavailable(UNAVAILABLE)
        return Rng(self.seed, f"{self.prefix}/{k}")

    def bot_rng(self) -> Rng:
        """The random source of a moderator's bot deciding for a player (its choices, not the dice)."""
        return self.rng_for("bot")

    def rng_for(self, what: str) -> Rng:
        if self.seed is None:
            return Rng.unavailable(UNAVAILABLE)
        return Rng(self.seed, f"{self.prefix}/{what}")


def scheme(header: Mapping[str, Any]) -> str:
    return str(header.get("randomness", RNG_V1))


def setup_rng(seed: bytes | None, game_id: str) -> Rng:
    return Rng(seed, f"{game_id}/0/setup") if seed is not None else Rng.unavailable()


def signature_digest(armored: str) -> str:
    """Hex SHA-256 of the SSHSIG blob (the armour's base64 decoded), independent of line wrapping."""
    return hashlib.sha256(sshsig.signature_blob(armored)).hexdigest()


def move_draws(header: Mapping[str, Any], seed: bytes | None, index: int, signature: str) -> Draws:
    """The draws of a player's move that will be (or is) log entry ``index``."""
    if scheme(header) == RNG_V1:
        return Draws(seed, f"{header['id']}/{index}")
    return Draws(seed, f"{header['id']}/move/{signature_digest(signature)}")


def auto_draws(header: Mapping[str, Any], seed: bytes | None, index: int, entries: Sequence[Mapping[str, Any]],
               player: str) -> Draws:
    """The draws of a moderator entry (index ``index``) deciding for ``player`` after ``entries``."""
    if scheme(header) == RNG_V1:
        return Draws(seed, f"{header['id']}/{index}")
    return Draws(seed, f"{header['id']}/auto/{anchor(entries)}/{player}")


def anchor(entries: Sequence[Mapping[str, Any]]) -> str:
    """The hash of the last entry that changed the game (a move or a deciding moderator
    entry, not undone), else of the header."""
    undone = {e.get("undoes") for e in entries if e.get("kind") == "moderator" and e.get("action") == "undo"}
    for entry in reversed(entries):
        acting = entry.get("kind") == "move" or (entry.get("kind") == "moderator" and entry.get("action") in ACTING)
        if acting and entry.get("index") not in undone:
            return str(entry["hash"])
    return str(entries[0]["hash"])


def preview_draws() -> Draws:
    """No seed: every draw raises NeedsSecret (a player's preview, a bot drafting a move)."""
    return Draws(None, "preview")
