"""Bring in what is new for a mail game: the moderator's messages in the player's mailbox.

The mailbox is read as it is (IMAP with ``BODY.PEEK``: nothing is marked read, moved or
deleted; or a Maildir), and only messages that say they belong to the game
(``X-PBEM-Game``) are looked at: that is a hint, never trust.  What counts is what they carry:

* a public update or public copy (:mod:`pbem.store.update`) is applied to the player's copy
  only when it chains onto the copy's head and checks out (:mod:`pbem.client.mailcopy`);
* the player's secrets (``PLAYER-entryN.age``) of the copy's last entry are kept when they open
  with the player's key and name that very entry (its hash);
* the moderator's signed receipts are checked against the game's moderator key and kept in the
  player's receipt store (``pbem receipt keep``), where the audit of the copy uses them.

Whatever is refused (a forged update, a receipt the moderator did not sign, secrets that do not
open) is never applied and is listed, with the message it came in, on the player's page.
What was read is remembered in ``.pbem-play/mail.json`` beside the copy (a message whose update
cannot be applied yet, because entries before it are missing, is read again next time).
"""
from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any, Callable

from pbem.base.errors import PbemError, escape_text
from pbem.base.fsutil import write_atomic
from pbem.base.mailpolicy import MAIL_POLICY
from pbem.client import mailcopy
from pbem.client.config import PlayConfigError, PlayedGame
from pbem.crypto import agecrypt, keys
from pbem.store import receiptstore
from pbem.store.gamedir import GameDir
from pbem.store.update import PUBLIC_NAME, UPDATE_NAME, Received, UpdateError, read_update
from pbem.transport.mail.compose import HEADER_ENTRY, HEADER_GAME, HEADER_RECEIPT
from pbem.transport.mail.imap import MAX_MULTIPARTS, ImapInbox, Inbox, MaildirInbox, MailFetchError, multipart_count
from pbem.views.outputs import read_private_view

STATE = "mail.json"
KEEP_LINES = 30          # refused items and receipts remembered for the page
_RECEIPT = re.compile(r"^receipt-entry\d{1,9}\.yaml(\.sig)?$")


@dataclass
class MailState:
    """What `pbem play` remembers of a mail game's mailbox."""

    path: Path
    handled: list[str] = field(default_factory=list)     # messages read to the end
    thread: dict[str, Any] = field(default_factory=dict)  # root, last (Message-IDs), entry
    refused: list[str] = field(default_factory=list)
    receipts: list[str] = field(default_factory=list)
    needs_copy: bool = False

    @classmethod
    def load(cls, game: PlayedGame) -> MailState:
        path = game.play_dir / STATE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError):
            return cls(path)         # unreadable: read the mailbox again from the start (nothing is lost)
        return cls(path, list(data.get("handled", [])), dict(data.get("thread", {})), list(data.get("refused", [])),
                   list(data.get("receipts", [])), bool(data.get("needs_copy", False)))

    def save(self) -> None:
        data = {"format": "pbem-play-mail/1", "handled": self.handled, "thread": self.thread,
                "refused": self.refused[-KEEP_LINES:], "receipts": self.receipts[-KEEP_LINES:],
                "needs_copy": self.needs_copy}
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(self.path, json.dumps(data, indent=1) + "\n", mode=0o600)


@dataclass
class Read:
    """What one fetch found in the mailbox."""

    updates: list[tuple[Received, str, str]] = field(default_factory=list)   # update, what, message source
    secrets: list[tuple[int, bytes, str]] = field(default_factory=list)      # entry, age file, what
    receipts: list[tuple[str, bytes, str]] = field(default_factory=list)     # file name, bytes, what
    refused: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def open_inbox(game: PlayedGame, config_path: Path) -> Inbox:
    settings = game.mail
    if settings is None:
        raise PlayConfigError(f"game {game.name} is not a mail game")
    if settings.maildir is not None:
        return MaildirInbox(Path(settings.maildir).expanduser())
    server = settings.imap_server(config_path)
    if server.username and not server.password:
        raise PlayConfigError(f"no IMAP password: set PBEM_PLAY_IMAP_PASSWORD (for {server.username} at {server.host})")
    return ImapInbox(server, search=("HEADER", HEADER_GAME, f'"{game.game_dir}"'))


def _what(msg: EmailMessage) -> str:
    mid = escape_text(str(msg.get("Message-ID", "") or "(no Message-ID)"))[:80]
    return f"message {mid}"


def read_messages(game: PlayedGame, raws: list[tuple[str, bytes]], state: MailState) -> Read:
    """Sort what the game's messages carry (nothing is trusted yet)."""
    found = Read()
    mine = re.compile(rf"^{re.escape(game.player)}-entry(\d{{1,9}})\.age$")
    for source, raw in raws:
        if multipart_count(raw) > MAX_MULTIPARTS:      # no message pbem sends comes near: left alone unread
            continue                                   # (the parser's cost grows with sections times lines)
        try:
            msg = BytesParser(policy=MAIL_POLICY).parsebytes(raw)
        except Exception:  # noqa: BLE001 - a message that breaks the parser is left alone
            continue
        if not isinstance(msg, EmailMessage) or str(msg.get(HEADER_GAME, "") or "").strip() != game.game_dir:
            continue
        what = _what(msg)
        if msg.get(HEADER_ENTRY) is not None:
            _thread(state, msg)
        verdict = str(msg.get(HEADER_RECEIPT, "") or "")
        if verdict and verdict != "accepted":
            found.notes.append(f"the moderator's answer ({escape_text(verdict)[:40]}): {_first_line(msg)}")
        for part in msg.walk():
            name = part.get_filename() or ""
            if not name or part.is_multipart():
                continue
            try:
                data = part.get_payload(decode=True)
            except Exception:  # noqa: BLE001
                data = None
            if not isinstance(data, bytes):
                continue
            if UPDATE_NAME.match(name) or PUBLIC_NAME.match(name):
                try:
                    found.updates.append((read_update(name, data), f"{name} in {what}", source))
                except UpdateError as exc:
                    found.refused.append(f"refused: {exc} ({what})")
            elif (m := mine.match(name)) is not None:
                if data.lstrip().startswith(b"-----BEGIN AGE"):
                    data = data.replace(b"\r\n", b"\n")        # armour sent as 7-bit text: CRLF on the wire
                found.secrets.append((int(m.group(1)), data, f"{name} in {what}"))
            elif _RECEIPT.match(name):
                found.receipts.append((name, data, what))
    return found


def _first_line(msg: EmailMessage) -> str:
    try:
        body = msg.get_body(("plain",))
        text = str(body.get_content()) if body is not None else ""
    except (LookupError, KeyError, ValueError, AttributeError):
        text = ""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith(("REJECTED", "ACCEPTED"))]
    return escape_text(lines[0] if lines else (text.strip().splitlines() or [""])[0])[:300]


def _thread(state: MailState, msg: EmailMessage) -> None:
    """The game's thread: its first message and the newest digest, which the player's moves answer."""
    mid = str(msg.get("Message-ID", "") or "").strip()
    try:
        entry = int(str(msg.get(HEADER_ENTRY, "")))
    except ValueError:
        return
    if not mid or entry < int(state.thread.get("entry", -1)):
        return
    refs = str(msg.get("References", "") or "").split()
    state.thread = {"root": refs[0] if refs else state.thread.get("root", mid), "last": mid, "entry": entry,
                    "subject": escape_text(str(msg.get("Subject", "") or ""))[:200]}


def fetch_mail(game: PlayedGame, config_path: Path, opener: Callable[[bytes], bytes] | None = None,
               inbox: Inbox | None = None) -> tuple[list[str], list[str], bool]:
    """Read the mailbox and apply what checks out.  Returns (refused, notes, needs_copy)."""
    state = MailState.load(game)
    gd = GameDir(game.folder)
    removed = mailcopy.tidy(gd)
    try:
        with (inbox or open_inbox(game, config_path)) as box:
            fresh = [(item.source, item.raw) for item in box.fetch(set(state.handled)) if not item.cut]
    except MailFetchError as exc:
        raise PbemError(f"game {game.name}: {exc}") from None
    found = read_messages(game, fresh, state)
    refused = list(found.refused)
    notes = [f"removed {name} (left by an interrupted fetch)" for name in removed] + found.notes
    waiting = _apply_updates(game, gd, found, refused, notes)
    _keep_secrets(game, gd, found, refused, notes, opener)
    _keep_receipts(game, gd, found, refused, notes)
    held = {source for _u, _w, source in waiting}
    state.handled += [source for source, _raw in fresh if source not in held]
    state.refused += refused
    state.receipts += [n for n in notes if n.startswith("receipt")]
    state.needs_copy = bool(waiting) or not gd.log_path.is_file()
    state.save()
    return state.refused[-KEEP_LINES:], notes, state.needs_copy


def _apply_updates(game: PlayedGame, gd: GameDir, found: Read, refused: list[str],
                   notes: list[str]) -> list[tuple[Received, str, str]]:
    """Apply every update that chains on, in order, as long as one does; return those that wait for
    entries the copy lacks."""
    pending = sorted(found.updates, key=lambda u: (u[0].start, u[0].end))
    own_key = _own_public_key(game)
    progress = True
    while pending and progress:
        progress = False
        waiting = []
        for update, what, source in pending:
            outcome = mailcopy.apply(gd, update, game.player, own_key, what,
                                     game.mail.moderator_key if game.mail else None)
            if outcome.verdict == mailcopy.GAP:
                waiting.append((update, what, source))
            elif outcome.verdict == mailcopy.REFUSED:
                refused.append(f"refused: {outcome.line}")
            elif outcome.verdict == mailcopy.APPLIED:
                notes.append(outcome.line)
                progress = True
            if outcome.verdict in (mailcopy.APPLIED, mailcopy.HELD) and "public/view.json" in update.files:
                # the public view of that entry: the player's secrets of it are a patch on it (history)
                write_atomic(game.play_dir / "views" / f"entry-{update.end:06d}.json",
                             update.files["public/view.json"], mode=0o600)
        pending = waiting
    if pending:
        notes.append(f"{len(pending)} update(s) wait for entries your copy lacks: ask the moderator for the copy")
    return pending


def _own_public_key(game: PlayedGame) -> str:
    pub = game.key.with_name(game.key.name + ".pub")
    try:
        info = keys.check_private_key_file(game.key)
        if not info.encrypted:
            return keys.public_key_of(keys.load_private_key(game.key))
        return pub.read_text(encoding="utf-8").strip()
    except (PbemError, OSError):
        return ""


def _keep_secrets(game: PlayedGame, gd: GameDir, found: Read, refused: list[str], notes: list[str],
                  opener: Callable[[bytes], bytes] | None) -> None:
    """The newest secrets that name the copy's last entry become ``secrets/PLAYER.age``; every
    received one is kept in ``.pbem-play/secrets/`` (the game as the player saw it)."""
    if not found.secrets or not gd.log_path.is_file():
        return
    entries = gd.entries()
    by_index = {int(e["index"]): e for e in entries}
    for index, data, what in sorted(found.secrets, key=lambda s: s[0]):
        entry = by_index.get(index)
        try:
            plain = opener(data) if opener is not None else agecrypt.decrypt(data, game.key)
            view = read_private_view(plain.decode("utf-8", errors="replace"))
        except PbemError as exc:
            refused.append(f"refused: {what}: does not open with your key ({exc})")
            continue
        if entry is None:
            continue            # of an entry the copy does not hold (yet)
        if (view.get("game"), view.get("player"), view.get("index"), view.get("hash")) != \
                (gd.root.name, game.player, index, entry.get("hash")):
            refused.append(f"refused: {what}: not your secrets of entry {index} of this game (another hash)")
            continue
        write_atomic(game.play_dir / "secrets" / f"entry-{index:06d}.age", data, mode=0o600)
        if index == int(entries[-1]["index"]):
            gd.secrets_dir.mkdir(parents=True, exist_ok=True)
            write_atomic(gd.secrets_path(game.player), data, mode=0o600)
            notes.append(f"your secrets of entry {index} opened and checked")


def _keep_receipts(game: PlayedGame, gd: GameDir, found: Read, refused: list[str], notes: list[str]) -> None:
    """Check the moderator's receipts against the game's key and keep the good ones (``pbem receipt
    keep``); a receipt the moderator did not sign is refused.  A mail copy may lag its receipts (a
    receipt comes at once, the entry with the player's next digest): a receipt is kept beside the
    copy (``.pbem-play/receipts``) until the copy holds its entry, then in the player's receipt
    store, which the audit checks the copy against."""
    if not gd.log_path.is_file():
        if found.receipts:
            notes.append("receipts wait for your copy of the game")
        return
    header = gd.entries()[0]
    waiting = game.play_dir / "receipts"
    if found.receipts:
        with tempfile.TemporaryDirectory(prefix="pbem-receipts-") as tmp:
            for n, (name, data, _what) in enumerate(found.receipts):
                folder = Path(tmp) / str(n if not name.endswith(".sig") else _pair(found.receipts, n))
                folder.mkdir(exist_ok=True)
                (folder / name).write_bytes(data)
            kept = receiptstore.keep(header, [Path(tmp)], waiting)
        refused += [f"refused: receipt: {line.replace(tmp, '')}" for line in kept.refused]
        refused += [f"fork: {line.replace(tmp, '')}" for line in kept.forks]
        notes += [f"receipt checked and kept: {line.split(' -> ')[0]}" for line in kept.kept]
    head = int(gd.entries()[-1]["index"])
    due = [p for p in receiptstore.stored_files(waiting)
           if (named := receiptstore.kept_entry(p.name)) is not None and named[0] <= head]
    if due:
        moved = receiptstore.keep(header, due, receiptstore.default_store(str(header.get("id", ""))))
        refused += [f"fork: {line}" for line in moved.forks]


def accepted_ahead(game: PlayedGame, head: int) -> int | None:
    """The log entry the moderator's receipt says the player's own move became, when the copy does not
    hold it yet (a mail copy lags its receipts: the receipt comes at once, the entry with the next
    digest); None when no such receipt waits.  Until that digest comes, it is not the player's turn:
    their move is in."""
    kept = [receiptstore.kept_entry(p.name) for p in receiptstore.stored_files(game.play_dir / "receipts")]
    return max((k[0] for k in kept if k is not None and k[1] == game.player and k[0] > head), default=None)


def _pair(receipts: list[tuple[str, bytes, str]], n: int) -> int:
    """The folder of a .sig: the one of its receipt from the same message."""
    name, _data, what = receipts[n]
    for i, (other, _d, w) in enumerate(receipts):
        if other == name.removesuffix(".sig") and w == what:
            return i
    return n
