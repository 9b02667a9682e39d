"""The one base class of the errors a person can act on, and safe excerpts of what was sent.

Every error pbem raises on purpose (a refused move, a bad option, a damaged
log, a missing key...) derives from :class:`PbemError`.  The command line
prints such an error as one line and exits 1 (:mod:`pbem.cli.boundary`, the one
place that does); anything else is a bug and shows a traceback.  Errors never
echo more than a short, escaped excerpt of what a stranger sent
(:func:`excerpt`), and the one line printed is cleaned once more
(:func:`one_line`): control and right-to-left characters are escaped, and the
length is capped.
"""
from __future__ import annotations

import json
import unicodedata
from typing import Any, ClassVar

EXCERPT_CHARS = 60
LINE_CHARS = 400


class PbemError(Exception):
    """A failure a person can act on: ``str(exc)`` is one line saying what is wrong and what to do.

    Its own base, not a ``ValueError``: code that catches a ``ValueError`` (a number that does
    not parse, JSON that does not load) never swallows one by accident.  The command line's
    one boundary (:class:`pbem.cli.boundary.PbemGroup`) prints it; code below catches it only
    where it deliberately turns it into something else (a refusal with a receipt, a note in an
    audit report).
    """

    #: a word the command line puts before the message (``rejected: bad signature``); "" for none
    label: ClassVar[str] = ""


def _escape_char(ch: str) -> str:
    """A printable stand-in for control, format (bidi) and other invisible characters."""
    if ch in "\t":
        return "\\t"
    category = unicodedata.category(ch)
    if category[0] in "CZ" and ch != " ":
        code = ord(ch)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    return ch


def escape_text(text: str) -> str:
    """``text`` with every non-printing character written as an escape (newlines too)."""
    return "".join(_escape_char(ch) if not ch.isprintable() or ch in "\t" else ch
                   for ch in text.replace("\r\n", "\n").replace("\n", "\\n"))


def _flow(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    except (TypeError, ValueError, RecursionError):
        return f"<{type(value).__name__}>"


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A short, escaped, quoted excerpt of a value someone sent, for an error message."""
    text = escape_text(_flow(value))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"'{text}'" if isinstance(value, str) else text


def one_line(message: str, limit: int = LINE_CHARS) -> str:
    """The first line of ``message``, escaped and capped: what the command line prints."""
    first = message.replace("\r\n", "\n").split("\n", 1)[0]
    text = escape_text(first)
    return text if len(text) <= limit else text[: limit - 1] + "…"
