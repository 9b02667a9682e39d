"""Which game of a host a message is for.

The signed move's own ``game:`` line decides, read from the raw move bytes with a bounded
scan of its first lines: nothing a stranger sent is parsed as YAML before its signature is
checked, and the signature is then checked with the seat keys of the game the line names
(``pbem submit``), so a move signed for one game cannot be played in another.  A message
without a readable ``game:`` line (a question, a reply without the move, garbage) is routed
by hints only: the ``X-PBEM-Game`` header, the thread (``In-Reply-To`` and ``References``
name pbem's own Message-IDs, which carry the game id) and a ``[GAME-ID]`` subject.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from email.message import EmailMessage

from pbem.transport.mail.intake import Intake

#: the first bytes of a move that are read for its game line (a move's top-level keys come first)
SCAN_BYTES = 4096
SCAN_LINES = 64
_GAME_LINE = re.compile(rb"^game:[ \t]*(['\"]?)([A-Za-z0-9][A-Za-z0-9._-]{0,63})\1[ \t]*(?:#[^\r\n]*)?\r?$")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SUBJECT_ID = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9._-]{0,63})\]")
_MSGID = re.compile(r"<([^<>@\s]{1,200})@[^<>\s]{1,200}>")


def game_line(data: bytes) -> str:
    """The game id on the ``game:`` line of a move's raw bytes ('' when there is none at the top
    level of its first lines).  A bounded scan, not a parse: only an unindented line counts."""
    for line in data[:SCAN_BYTES].split(b"\n")[:SCAN_LINES]:
        found = _GAME_LINE.match(line)
        if found:
            return found.group(2).decode("ascii")
    return ""


def named_games(intake: Intake) -> list[str]:
    """The games the message's moves name, in order, each once."""
    out: list[str] = []
    for move in intake.moves:
        name = next((g for data in move.candidates[:1] if (g := game_line(data))), "")
        if name and name not in out:
            out.append(name)
    return out


def hinted_games(msg: EmailMessage, header: Callable[[str], str], values: Callable[[str], list[str]]) -> list[str]:
    """Game ids the message's headers suggest, strongest first: X-PBEM-Game, the thread, the subject."""
    out: list[str] = []
    stated = header("X-PBEM-Game")
    if _ID.fullmatch(stated):
        out.append(stated)
    for name in ("In-Reply-To", "References"):
        for value in values(name):
            for local in reversed(_MSGID.findall(value)):       # the newest message of the thread first
                out += _thread_ids(local)
    out += _SUBJECT_ID.findall(header("Subject"))
    return list(dict.fromkeys(out))


def _thread_ids(local: str) -> list[str]:
    """The game id in one of pbem's Message-IDs: ``N.N.N.GAME.ENTRY.PLAYER`` (a digest),
    ``N.N.N.GAME.receipt`` or ``N.N.N.GAME.reminder``; what else it could be."""
    parts = local.split(".")
    if len(parts) < 5 or not all(p.isdigit() for p in parts[:3]):
        return []
    rest = parts[3:]
    tails = [rest[:-1]] if rest[-1] in ("receipt", "reminder") else [rest[:-2], rest[:-1]]
    return [".".join(t) for t in tails if t and _ID.fullmatch(".".join(t))]


def route(named: Iterable[str], hints: Iterable[str], known: Callable[[str], bool]) -> tuple[str, str]:
    """(the game, how it was found) or ('', why not): a move's own game line first, then the hints."""
    named = list(named)
    for game in named:
        if known(game):
            return game, "the move's game line"
    for game in hints:              # a move for a game not here, sent in a game's thread, is answered there
        if known(game):
            return game, "the thread"
    if named:
        return "", f"its move names game {named[0]}, which this host does not run"
    return "", "it names no game of this host (no move with a game line, no reply to a game's mail)"
