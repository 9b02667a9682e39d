"""Sealed actions: orders only the moderator can read until the game ends.

Some decisions must stay private even though move files are public (a
standing order says whether you would play a defense tile, so publishing it
would show what you hold).  A player writes such an action sealed:

    - {sealed: "-----BEGIN AGE ENCRYPTED FILE-----\n...", commit: 9f2c...}

``sealed`` is the age encryption, to the moderator's key, of the plaintext
``yaml({"salt": 32 hex digits, "action": ACTION})``; ``commit`` is the hex
SHA-256 of those plaintext bytes.  The player signs the move file, so the
commitment is theirs; the moderator decrypts, checks the commitment and
applies ACTION.  The log shows only the sealed form.  `pbem reveal` publishes
every plaintext, and the audit checks each against its commitment before it
replays the game.  `pbem seal` writes a sealed action.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from pbem.base import yamlio
from pbem.base.canonical import sha256_hex
from pbem.base.errors import PbemError
from pbem.crypto import agecrypt


class SealError(PbemError):
    """A sealed action that cannot be opened or does not match its commitment."""


def is_sealed(action: Mapping[str, Any]) -> bool:
    return set(action) == {"sealed", "commit"}


def seal_action(action: Mapping[str, Any], moderator_key: str) -> dict[str, str]:
    """The sealed form of ``action``, readable by the moderator's key only."""
    plaintext = yamlio.dump({"salt": os.urandom(16).hex(), "action": dict(action)}).encode()
    cipher = agecrypt.encrypt(plaintext, [moderator_key]).decode("ascii")
    return {"sealed": cipher, "commit": sha256_hex(plaintext)}


def open_plaintext(action: Mapping[str, Any], plaintext: str) -> dict[str, Any]:
    """The action inside, after checking the plaintext against the signed commitment."""
    if sha256_hex(plaintext.encode()) != action.get("commit"):
        raise SealError("the sealed action does not match its commitment (it was sealed wrongly or changed)")
    try:
        data = yamlio.load_strict(plaintext, "sealed action")
    except yamlio.YamlError as exc:
        raise SealError(str(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("action"), dict) or not data.get("salt"):
        raise SealError("the sealed action must hold {salt: ..., action: {...}}; make it with `pbem seal`")
    return data["action"]


def decrypt_plaintext(action: Mapping[str, Any], moderator_key_path: Path) -> str:
    try:
        return agecrypt.decrypt(str(action["sealed"]).encode(), moderator_key_path).decode("utf-8")
    except (agecrypt.AgeError, UnicodeDecodeError) as exc:
        raise SealError(f"the sealed action cannot be opened with this game's moderator key: {exc}") from None
