"""The messages the moderator sends: a turn digest per player, and receipts for moves.

A digest message is built from the files ``write_outputs`` left in the game
folder, one message per player::

    multipart/mixed
      multipart/alternative
        text/plain             public/digest.txt
        multipart/related
          text/html            public/digest.html, inline SVG replaced by <img src="cid:...">
          image/png            the public board (Content-ID, inline; a small palette PNG; smaller, a
                               glance, for a player with a decision: their page has the board; none
                               where their page needs the room: the HTML then says so)
      application/octet-stream PLAYER-entryN.age (attachment: only what is that player's own: their secrets,
                               their move template, their view for `pbem turn`)
      application/octet-stream PLAYER-entryN.html.gz.age (attachment: the same as an HTML page with their
                               private board, gzipped: age -d -i KEY FILE | gunzip > page.html)
      application/gzip         GAME_ID-update-N-M.tar.gz (the public entries since the player's last
                               digest, for `pbem play`: pbem.store.update; left out above its budget)

No separate SVG attachment: the HTML page in ``PLAYER-entryN.html.gz.age`` holds the board as
SVG (zoom and print it from a browser), and the PNG shows it in the mail itself.  A digest
message stays under 100 KB (docs/email.md, "What a message holds and why").
"""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from pbem.base.errors import PbemError
from pbem.base.mailpolicy import MAIL_POLICY
from pbem.store.gamedir import GameDir
from pbem.store.update import UPDATE_BYTES
from pbem.views.outputs import MESSAGE_BYTES
from pbem.views.render.png import MOVER_ZOOM, mail_png, mover_png, svg_size

HEADER_GAME = "X-PBEM-Game"
HEADER_ENTRY = "X-PBEM-Entry"
HEADER_RECEIPT = "X-PBEM-Receipt"
HEADER_STATUS = "X-PBEM-Status"      # your-move | waiting | over: what a digest means for its reader
_BOARD_SVG = re.compile(r"<svg\b[^>]*\bclass=\"pbem-board\"[^>]*>.*?</svg>", re.DOTALL)
_ANY_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
_TEXT_MAP = re.compile(r"<details[^>]*>\s*<summary>Text map</summary>.*?</details>\n?", re.DOTALL)


@dataclass(frozen=True)
class Turn:
    """Where the game stands, read from the public log (no seed needed)."""

    game_id: str
    title: str
    index: int
    entry_hash: str
    pending: list[str]        # players with a decision to make
    over: bool

    @classmethod
    def read(cls, gd: GameDir) -> Turn:
        return cls.from_entries(gd.entries())

    @classmethod
    def from_entries(cls, entries: list[dict[str, Any]]) -> Turn:
        header, last = entries[0], entries[-1]
        pending: list[str] = []
        for d in last.get("pending", header.get("pending", [])):
            if d["player"] not in pending:
                pending.append(d["player"])
        return cls(header["id"], _title(header), last["index"], last["hash"], pending, not pending)


def _title(header: dict[str, Any]) -> str:
    try:
        from pbem.core.registry import load_game
        return load_game(header["game"]).title
    except (PbemError, ImportError, AttributeError):  # an unknown game still gets its mail
        return str(header["game"])


# --- the HTML part -----------------------------------------------------------

#: in the HTML body of a message that goes without the board's picture (its page needed the room)
BOARD_IN_PAGE = ("Your board is in your page ({page}): this message has no room for its picture beside "
                 "the click-to-move panel of your page. The plain-text part has the board as a text map.")


def email_html(page: str, cid: str, size: tuple[int, int] | None, alt: str, note: str = "") -> str:
    """The digest page with its inline SVG board replaced by ``<img src="cid:...">``
    (``note``: by that paragraph instead, where the message goes without the picture).

    ``cid`` is the Content-ID without angle brackets.  Any other inline SVG is
    dropped, since mail clients would strip it and leak its text.  The text map is
    dropped too: the picture shows the board, and the plain-text part has the map.
    """
    dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
    img = (f'<img src="cid:{html.escape(cid, quote=True)}"{dims} alt="{html.escape(alt, quote=True)}" '
           f'style="max-width:100%;height:auto;border:0">') if not note else f"<p><strong>{html.escape(note)}</strong></p>"
    page, n = _BOARD_SVG.subn(lambda _m: img, page, count=1)
    if n == 0:
        page, n = _ANY_SVG.subn(lambda _m: img, page, count=1)
    return _TEXT_MAP.sub("", _ANY_SVG.sub("", page))


def _with_preface(page: str, preface: str) -> str:
    """The page with ``preface``'s paragraphs first in its body."""
    paras = "".join(f"<p><strong>{html.escape(p.strip())}</strong></p>\n" if k == 0 else f"<p>{html.escape(p.strip())}</p>\n"
                    for k, p in enumerate(preface.strip().split("\n\n")))
    return _first_in_body(page, paras)


def _first_in_body(page: str, block: str) -> str:
    """The page with the HTML ``block`` first in its body (at its start when it has no ``<body>``)."""
    at = page.find(">", page.find("<body")) + 1 if "<body" in page else 0
    return page[:at] + "\n" + block + page[at:]


# --- digest messages ----------------------------------------------------------

@dataclass(frozen=True)
class DigestParts:
    """The files a digest message is made of (shared by every player's message).  The board's
    pictures are drawn when a message first needs them: most cycles mail only the player with
    the decision, whose message has the smaller picture (:attr:`mover_png`), and a cycle with
    nobody to mail draws none."""

    turn: Turn
    text: str
    html: str
    svg: str
    #: the board's picture when the caller has it already (else drawn from ``svg`` when needed)
    given_png: bytes | None = None

    @classmethod
    def read(cls, gd: GameDir) -> DigestParts:
        public = gd.public_dir
        svg = (public / "board.svg").read_text(encoding="utf-8")      # "": the game draws no board
        return cls(Turn.read(gd), (public / "digest.txt").read_text(encoding="utf-8"),
                   (public / "digest.html").read_text(encoding="utf-8"), svg)

    @cached_property
    def png(self) -> bytes:
        """The board in a message (:func:`mail_png`); empty when the game draws no board."""
        if self.given_png is not None:
            return self.given_png
        return board_picture(self.svg, False) if self.svg else b""

    @cached_property
    def mover_png(self) -> bytes:
        """The board in the message of a player with a decision: a glance (MOVER_ZOOM); their page
        has the whole board, and the message's bytes go to its panel (docs/email.md)."""
        if self.given_png is not None and not self.given_png:
            return b""
        return board_picture(self.svg, True) if self.svg else b""

    def picture(self, mover: bool) -> tuple[bytes, tuple[int, int] | None]:
        """The board picture of a message and the size it is shown at."""
        size = svg_size(self.svg) if self.svg else None
        if not mover:
            return self.png, size
        return self.mover_png, None if size is None else (round(size[0] * MOVER_ZOOM), round(size[1] * MOVER_ZOOM))


@lru_cache(maxsize=8)
def board_picture(svg: str, mover: bool) -> bytes:
    """The board's picture in a message: :func:`mover_png` (``mover``) or :func:`mail_png` of
    ``svg``, each drawn once for the last few boards of a process.  A cycle reads the digest's
    parts anew, and the same board comes back: the players of simultaneous orders are mailed one
    after another with a board that has not changed, a late player gets the digest of an entry
    another had (a long-running host's or `pbem mail run`'s cycles).  Both are pure functions of
    the SVG (with the fonts the process has): the bytes are those drawn again."""
    return mover_png(svg) if mover else mail_png(svg)


@dataclass(frozen=True)
class Thread:
    """A player's thread for one game: its first message and the last one sent."""

    root: str
    last: str

    def headers(self, msg: EmailMessage) -> None:
        msg["In-Reply-To"] = self.last
        msg["References"] = self.root if self.root == self.last else f"{self.root} {self.last}"


def game_subject(game_id: str, title: str) -> str:
    """The one subject of every message of a game, so that mail clients keep them in one thread."""
    return f"[{game_id}] {title}"


def status_line(turn: Turn, player: str) -> str:
    """What this message means for its reader, first in the body (mail clients show it in the list)."""
    if turn.over:
        return f"The game is over (log entry {turn.index})."
    if player in turn.pending:
        return f"Your move (log entry {turn.index}): the move template is below."
    return f"Log entry {turn.index}; waiting for {', '.join(turn.pending) or 'nobody'}."


def page_name(turn: Turn, player: str) -> str:
    """The name of the player's page attached to a digest message (armoured age of the gzipped page)."""
    return f"{player}-entry{turn.index}.html.gz.age"


def page_hint(turn: Turn, player: str) -> tuple[str, str, str]:
    """For the reader with a decision, how to open the page attached to click the turn on (a player
    with nothing but OpenSSH, age and a browser learns it from the message itself, docs/playing.md):
    the line before the command, the command, the line after it."""
    page = page_name(turn, player)
    return (f"Click your turn on your own page, the attached {page}: open it with",
            f"age -d -i ~/.ssh/id_ed25519 {page} | gunzip > {player}.html",
            f"and open {player}.html in your browser; it saves the move file and says how to sign and send it.")


def _with_hint(page: str, status: str, hint: tuple[str, str, str]) -> str:
    """The page with the status line and :func:`page_hint` first in its body."""
    before, command, after = (html.escape(h) for h in hint)
    return _first_in_body(page, f"<p><strong>{html.escape(status)}</strong></p>\n<p>{before}</p>\n"
                                f"<pre>{command}</pre>\n<p>{after}</p>\n")


def compose_digest(parts: DigestParts, secrets: bytes, player: str, to: str, sender: str,
                   reply_to: str, domain: str, thread: Thread | None = None,
                   bundle: tuple[str, bytes] | None = None, secrets_html: bytes | None = None,
                   update: tuple[str, bytes] | None = None, preface: str = "") -> EmailMessage:
    """One player's digest message: public digest plus that player's own encrypted digest
    (text, and the HTML page with their private board when ``secrets_html`` is given), and,
    when given, the public copy of the game as ``bundle`` and the public update since the
    player's last digest as ``update`` (:mod:`pbem.store.update`): each its file name and bytes.
    ``preface``: paragraphs before the status line (a reminder's; its subject is then a reply's).

    A player with a decision whose page takes the room of the board's picture (their page with
    the game's own turn model: :func:`pbem.views.outputs.player_plaintexts` counts it so) gets the
    message without the picture, its HTML body saying that the board is in their page: the
    picture is left out where the message with it and the room kept for the public update would
    pass :data:`pbem.views.outputs.MESSAGE_BYTES`."""
    return digest_and_size(parts, secrets, player, to, sender, reply_to, domain, thread, bundle, secrets_html,
                           update, preface)[0]


def digest_and_size(parts: DigestParts, secrets: bytes, player: str, to: str, sender: str,
                    reply_to: str, domain: str, thread: Thread | None = None,
                    bundle: tuple[str, bytes] | None = None, secrets_html: bytes | None = None,
                    update: tuple[str, bytes] | None = None, preface: str = "") -> tuple[EmailMessage, int | None]:
    """:func:`compose_digest`'s message, and its size (``len(msg.as_bytes())``) when composing it
    measured it, else None: the caller that attaches the public update afterwards
    (:func:`attach_update`'s ``size``) then does not serialize the same message again."""
    mover = player in parts.turn.pending and not parts.turn.over
    args = (parts, secrets, player, to, sender, reply_to, domain, thread, secrets_html, preface)
    msg = _digest_message(*args, picture=True)
    size: int | None = None
    if mover and secrets_html is not None and parts.mover_png:
        size = len(msg.as_bytes())
        if size + UPDATE_BYTES > MESSAGE_BYTES:
            msg, size = _digest_message(*args, picture=False), None
    if bundle is not None:
        msg.add_attachment(bundle[1], "application", "gzip", filename=bundle[0])
        size = None
    if update is not None:
        attach_update(msg, update, size=size)
        size = None
    return msg, size


def _digest_message(parts: DigestParts, secrets: bytes, player: str, to: str, sender: str, reply_to: str, domain: str,
                    thread: Thread | None, secrets_html: bytes | None, preface: str, picture: bool) -> EmailMessage:
    """A digest message (:func:`compose_digest`) up to its encrypted files, with the board's
    picture or (``picture`` false) a line saying that the board is in the player's page."""
    turn = parts.turn
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = sender
    msg["To"] = to
    if reply_to:
        msg["Reply-To"] = reply_to
    msg["Subject"] = ("Re: " if preface else "") + game_subject(turn.game_id, turn.title)
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(f"{turn.game_id}.{turn.index}.{player}" + (".reminder" if preface else ""),
                                   domain=domain)
    if thread is not None:
        thread.headers(msg)
    msg[HEADER_GAME] = turn.game_id
    msg[HEADER_ENTRY] = str(turn.index)
    msg[HEADER_STATUS] = "over" if turn.over else "your-move" if player in turn.pending else "waiting"
    msg["Auto-Submitted"] = "auto-generated"
    png, size = parts.picture(player in turn.pending and not turn.over) if picture else (b"", None)
    hint = page_hint(turn, player) if secrets_html is not None and player in turn.pending and not turn.over else None
    hint_text = f"{hint[0]}\n    {hint[1]}\n{hint[2]}\n\n" if hint else ""
    msg.set_content((preface.rstrip("\n") + "\n\n" if preface else "") + status_line(turn, player) + "\n\n"
                    + hint_text + parts.text)
    cid = make_msgid(f"board.{turn.index}", domain=domain)
    alt = f"{turn.title} board after log entry {turn.index} (the text map is in the plain-text part)"
    note = "" if picture else BOARD_IN_PAGE.format(page=page_name(turn, player))
    page = email_html(parts.html, cid[1:-1], size, alt, note)
    if hint:
        page = _with_hint(page, status_line(turn, player), hint)
    if preface:
        page = _with_preface(page, preface)
    msg.add_alternative(page, subtype="html")
    if png:                     # (a game without a board sends its page without a picture)
        html_part = msg.get_body(("html",))
        assert isinstance(html_part, EmailMessage)
        html_part.add_related(png, "image", "png", cid=cid, filename=f"board-entry{turn.index}.png",
                              disposition="inline")
    attach_armored(msg, secrets, f"{player}-entry{turn.index}.age")
    if secrets_html is not None:
        attach_armored(msg, secrets_html, page_name(turn, player))
    return msg


#: a digest message with its public update stays below this (docs/email.md: under 100 KB)
MAIL_BYTES = 99_000


def attach_update(msg: EmailMessage, update: tuple[str, bytes], limit: int = MAIL_BYTES,
                  size: int | None = None) -> bool:
    """Attach the public update (name, bytes) when the message stays under ``limit`` bytes with it;
    else leave it out (the player's program then asks for the public copy).  ``size``: the
    message's ``len(msg.as_bytes())`` when the caller has it (the message unchanged since)."""
    from pbem.store.update import armoured_size
    if size is None:
        size = len(msg.as_bytes())
    if size + armoured_size(update[1]) + 300 > limit:    # 300: the part's headers
        return False
    msg.add_attachment(update[1], "application", "gzip", filename=update[0])
    return True


def attach_armored(msg: EmailMessage, data: bytes, filename: str) -> None:
    """An age file as an attachment: armored age is already 7-bit text in 64-character lines,
    so it travels as it is (base64 over it would add a third for nothing); anything else
    (binary age) is base64-encoded."""
    armored = data.isascii() and all(len(line) <= 76 for line in data.splitlines())
    msg.add_attachment(data, "application", "octet-stream", filename=filename, cte="7bit" if armored else "base64")


# --- receipts -------------------------------------------------------------------

_MESSAGE_ID = re.compile(r"^<[\x21-\x7e]{1,900}>$")   # what we may thread a receipt under


def _plain(text: str, limit: int = 200) -> str:
    """A subject a stranger wrote, safe to write back: control and bidi characters (and line
    breaks hidden in encoded words) become spaces, runs of spaces one, and it is kept short."""
    cleaned = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def compose_reply(original_id: str, original_subject: str, to: str, sender: str, domain: str,
                  verdict: str, body: str, game_id: str,
                  attachments: Sequence[tuple[str, str | bytes]] = (), thread_root: str = "") -> EmailMessage:
    """A receipt (RFC 3834 auto-reply, threaded under the player's message), with the
    moderator-signed receipt files of accepted moves attached (name, text)."""
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = sender
    msg["To"] = to
    subject = _plain(original_subject) or f"[{game_id}] your move"
    if not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    msg["Subject"] = subject          # the player's own subject: the receipt stays in their thread
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(f"{game_id}.receipt", domain=domain)
    if _MESSAGE_ID.match(original_id):
        msg["In-Reply-To"] = original_id
        msg["References"] = f"{thread_root} {original_id}" if thread_root and thread_root != original_id \
            else original_id
    msg["Auto-Submitted"] = "auto-replied"
    msg[HEADER_GAME] = game_id
    msg[HEADER_RECEIPT] = verdict
    msg.set_content(body)
    for name, data in attachments:
        if isinstance(data, bytes):
            msg.add_attachment(data, "application", "gzip", filename=name)
        else:
            msg.add_attachment(data.encode("utf-8"), maintype="text", subtype="plain", filename=name)
    return msg
