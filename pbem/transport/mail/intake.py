"""Finding signed moves in an e-mail message.

Two ways a player can send a move:

* attachments: ``NAME.yaml`` (or ``.yml``) and its signature ``NAME.yaml.sig``;
  an attachment of any other name (``move.txt``...) counts when it holds a move
  file (a ``format: pbem-move/1`` line), and one holding an SSH signature block
  is its signature;
* inline in the body: the move YAML (from its ``format: pbem-move/1`` line,
  with any ``#`` comment lines just above it) followed by the armored
  ``-----BEGIN SSH SIGNATURE-----`` block; in the text part, or in the HTML part
  of a message that has no text part (its text is recovered from the markup).

Mail clients damage inline text: CRLF line endings, trailing spaces,
``format=flowed`` soft breaks, space-stuffing and indentation turned into
non-breaking spaces.  For inline moves every
plausible original is tried against the signing player's key and the one
that verifies is used; if none does, the most likely one goes to ``submit``,
which then gives the reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from html.parser import HTMLParser
from typing import Any

from pbem.base.errors import escape_text
from pbem.crypto import sshsig
from pbem.store.movefile import FORMAT

MOVE_SUFFIXES = (".yaml", ".yml")
SIG_SUFFIX = ".sig"
_FORMAT_LINE = re.compile(r"^format:\s*['\"]?" + re.escape(FORMAT) + r"['\"]?\s*$")
_MAX_ATTACHMENT = 256 * 1024       # a move file is at most 64 KiB: bigger parts are not read


@dataclass
class FoundMove:
    """One move found in a message: the candidates for its bytes, most likely first."""

    label: str                       # "attachment move.yaml" or "inline move 1"
    candidates: list[bytes]
    signature: str
    problem: str = ""                # set when the move cannot be submitted at all (no signature...)


@dataclass
class Intake:
    moves: list[FoundMove] = field(default_factory=list)
    not_a_move: str = ""             # why this message is left alone ("" when it holds moves)


# --- reading parts -------------------------------------------------------------

def _filename(part: Message) -> str:
    name = part.get_filename() or ""
    return name.strip().replace("\\", "/").rpartition("/")[2]


def shown_name(name: str, limit: int = 60) -> str:
    """An attachment's name as pbem quotes it: escaped (no control or bidi characters) and short."""
    text = escape_text(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _attachments(msg: Message) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for part in msg.walk():
        if part.is_multipart():
            continue
        name = _filename(part)
        if not name:
            continue
        data = _small_payload(part)
        if data is not None:
            found.setdefault(name, data)
    return found


def _small_payload(part: Message) -> bytes | None:
    """The decoded bytes of a part, or None when it is bigger than any move file could be
    (judged before decoding: base64 and quoted-printable grow by less than this factor)."""
    encoded = part.get_payload()
    if not isinstance(encoded, (str, bytes)) or len(encoded) > 4 * _MAX_ATTACHMENT:
        return None
    data = part.get_payload(decode=True)
    return data if isinstance(data, bytes) and len(data) <= _MAX_ATTACHMENT else None


def _text_bodies(msg: Message) -> list[list[str]]:
    """The text/plain parts that are not attachments; per part its readings (un-flowed first)."""
    out = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_type() != "text/plain" or _filename(part):
            continue
        if part.get_content_disposition() == "attachment":
            continue
        data = _small_payload(part)      # a body too big to hold a pasted move is not read at all
        if data is None:
            continue
        charset = part.get_content_charset() or "utf-8"
        try:
            text = data.decode(charset, errors="replace")
        except LookupError:
            text = data.decode("utf-8", errors="replace")
        readings = [text]
        if _param(part, "format") == "flowed":
            readings.insert(0, unflow(text, _param(part, "delsp") == "yes"))
        out.append(readings)
    return out


def _html_bodies(msg: Message) -> list[list[str]]:
    """The text of the HTML parts (for a message sent as HTML only), one reading each."""
    out = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_type() != "text/html" or _filename(part):
            continue
        data = part.get_payload(decode=True)
        if isinstance(data, bytes):
            charset = part.get_content_charset() or "utf-8"
            try:
                markup = data.decode(charset, errors="replace")
            except LookupError:
                markup = data.decode("utf-8", errors="replace")
            out.append([html_to_text(markup)])
    return out


class _HtmlText(HTMLParser):
    """The visible text of an HTML mail body, with its line breaks (<br>, <p>, <div>, <pre>...)."""

    BREAKS = {"br", "p", "div", "pre", "tr", "li", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1
        elif tag in self.BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self.skip = max(0, self.skip - 1)
        elif tag in self.BREAKS and tag != "br":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    parser = _HtmlText()
    parser.feed(markup)
    parser.close()
    lines = "".join(parser.parts).replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines)


def _param(part: Message, name: str) -> str:
    value = part.get_param(name)
    return value.lower() if isinstance(value, str) else ""


def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 ``format=flowed``: join soft line breaks and remove space-stuffing."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    buf = ""
    for line in lines:
        line = line.removeprefix(" ")
        if line.endswith(" ") and line != "-- ":
            buf += line[:-1] if delsp else line
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return "\n".join(out)


# --- attachments -----------------------------------------------------------------

def _holds(data: bytes, marker: str) -> bool:
    head = data[:4096].decode("utf-8", errors="replace")
    if marker == "move":
        return any(_FORMAT_LINE.match(line.strip()) for line in head.splitlines())
    return sshsig.BEGIN in head


def _attached_moves(files: dict[str, bytes]) -> list[FoundMove]:
    moves = []
    yamls = sorted(n for n in files if n.lower().endswith(MOVE_SUFFIXES)
                   or (not n.lower().endswith(SIG_SUFFIX) and _holds(files[n], "move")))
    sigs = sorted(n for n in files if n not in yamls and (n.lower().endswith(SIG_SUFFIX) or _holds(files[n], "sig")))
    for name in yamls:
        stem = name.rsplit(".", 1)[0].lower()
        sig_name = next((s for s in sigs if s.lower() == (name + SIG_SUFFIX).lower()), None) or \
            next((s for s in sigs if s.lower().split(".", 1)[0] == stem.split(".", 1)[0] and len(yamls) == 1), None)
        if sig_name is None and len(yamls) == 1 and len(sigs) == 1:
            sig_name = sigs[0]        # a client renamed one of the pair
        shown = shown_name(name)
        label = f"attachment {shown}"
        if sig_name is None:
            moves.append(FoundMove(label, [files[name]], "",
                                   f"{shown} came without its signature {shown}{SIG_SUFFIX}; sign it with "
                                   f"`ssh-keygen -Y sign -n pbem-move -f KEY {shown}` and attach both files"))
            continue
        signature = files[sig_name].decode("utf-8", errors="replace")
        candidates = [files[name]]
        try:
            candidates += [v.encode("utf-8") for v in _variants(files[name].decode("utf-8"))]
        except UnicodeDecodeError:
            pass
        moves.append(FoundMove(label, list(dict.fromkeys(candidates)), signature))
    return moves


# --- inline ------------------------------------------------------------------------

def _inline_moves(text: str) -> list[FoundMove]:
    lines = text.replace("\r\n", "\n").split("\n")
    raw_lines = text.split("\n")          # same line count; keeps any "\r"
    moves: list[FoundMove] = []
    floor = 0
    for i, line in enumerate(lines):
        if line.strip() != sshsig.BEGIN:
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == sshsig.END), None)
        starts = [k for k in range(floor, i) if _FORMAT_LINE.match(lines[k].rstrip())]
        label = f"inline move {len(moves) + 1}"
        if end is None:
            moves.append(FoundMove(label, [], "", f"the signature block has no {sshsig.END} line (was it cut off?)"))
            break
        signature = "\n".join(lines[i:end + 1]) + "\n"
        if not starts:
            moves.append(FoundMove(label, [], signature,
                                   f"a signature block without a move before it; paste the move file "
                                   f"(starting with 'format: {FORMAT}') right above the signature"))
        else:
            moves.append(FoundMove(label, _inline_candidates(raw_lines, starts[-1], i), signature))
        floor = end + 1
    if not moves:
        starts = [k for k, line in enumerate(lines) if _FORMAT_LINE.match(line.rstrip())]
        if starts:
            moves.append(FoundMove("inline move 1", [], "",
                                   f"a move without its signature; paste the whole {FORMAT} file followed by "
                                   f"the {sshsig.BEGIN} block from move.yaml.sig, or attach both files"))
    return moves


def _inline_candidates(raw_lines: list[str], start: int, sig_line: int) -> list[bytes]:
    """Plausible original move files between ``start`` and the signature, most likely first."""
    first_lines = [start]
    k = start
    while k > 0 and raw_lines[k - 1].rstrip().startswith("#"):
        k -= 1
        first_lines.append(k)           # then with more and more of the comment lines above
    ends = [sig_line]
    e = sig_line
    while e > start + 1 and not raw_lines[e - 1].strip():
        e -= 1
    ends.insert(0, e)
    out: list[bytes] = []
    for s in first_lines:
        for e in ends:
            body = "\n".join(raw_lines[s:e]) + "\n"
            for variant in _variants(body):
                data = variant.encode("utf-8")
                if data not in out:
                    out.append(data)
    return out


def _variants(body: str) -> list[str]:
    unix = body.replace("\r\n", "\n").replace("\r", "")
    stripped = "\n".join(line.rstrip(" \t") for line in unix.split("\n"))
    spaced = [v.replace("\u00a0", " ") for v in (stripped, unix) if "\u00a0" in v]   # non-breaking spaces
    compact = ["\n".join(line for line in v.split("\n") if line.strip()) + "\n" for v in (stripped, *spaced)]
    return list(dict.fromkeys([stripped, unix, body, *spaced, *compact]))   # blank lines an HTML body added


# --- the whole message --------------------------------------------------------------------

def is_automatic(msg: Message) -> str:
    """Why this message was sent by a machine and must not be answered (RFC 3834, bounces), or ""."""
    auto = str(msg.get("Auto-Submitted", "no")).strip().lower()
    if auto and auto != "no":
        return f"an automatic message (Auto-Submitted: {auto})"
    if str(msg.get("Precedence", "")).strip().lower() == "junk":
        return "a junk message (Precedence: junk)"
    if msg.get_content_type() == "multipart/report" or not str(msg.get("Return-Path", "x")).strip("<> "):
        return "a delivery report"
    return ""


def find_moves(msg: EmailMessage) -> Intake:
    automatic = is_automatic(msg)
    if automatic:
        return Intake(not_a_move=automatic)
    moves = _attached_moves(_attachments(msg))
    if not moves:
        for readings in _text_bodies(msg) or _html_bodies(msg):
            moves = _merged([_inline_moves(text) for text in readings])
            if moves:
                break
    if not moves:
        return Intake(not_a_move=f"no move in it (no *.yaml + *.yaml.sig attachments, no inline "
                                 f"'format: {FORMAT}' block with its signature)")
    return Intake(moves)


def _merged(readings: list[list[FoundMove]]) -> list[FoundMove]:
    """One part read several ways (as sent, un-flowed): pool the candidates of each move."""
    first = readings[0]
    for other in readings[1:]:
        if len(other) != len(first):
            continue
        for mine, theirs in zip(first, other):
            if theirs.candidates and not mine.problem:
                mine.candidates = list(dict.fromkeys(mine.candidates + theirs.candidates))
    return first


def choose(move: FoundMove, entries: list[dict[str, Any]]) -> bytes:
    """The candidate whose signature verifies with a player's key, else the most likely one.

    Only signatures are checked here (on the raw bytes): nothing a stranger sent is parsed.
    """
    from pbem.core.engine import Rejected
    from pbem.pipeline.submit import identify_signer
    for data in move.candidates:
        try:
            _owners, _key, signed = identify_signer(entries, data, move.signature)
            return signed
        except Rejected:
            continue
    return move.candidates[0]
