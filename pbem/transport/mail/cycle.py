"""The moderator's mail cycle: fetch moves, submit them, reply with receipts, send digests.

* :func:`fetch_moves` -- read new messages, submit the moves found in them
  (oldest message first), reply to each sender with a receipt.  Messages
  without a move are left alone and reported once.
* :func:`send_digests` -- one message per player with the current digest and
  that player's own encrypted secrets.
* :func:`run_cycle` -- both, sending only to players whose last digest is
  older than the log.
"""
from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr, parsedate_to_datetime
from types import TracebackType
from typing import Any, Protocol

from pbem.base.crashreport import refusal_for_crash
from pbem.base.errors import PbemError, escape_text, one_line
from pbem.base.fsutil import locked
from pbem.base.mailpolicy import MAIL_POLICY
from pbem.core.engine import Rejected
from pbem.pipeline.append import PublishError
from pbem.store.missedturns import cadences, seat_news_since
from pbem.pipeline.repair import open_game
from pbem.pipeline.submit import Receipt, SeatReturned, committed_receipt, receipt_from_log, submit
from pbem.store.bundle import bundle_name, public_bundle
from pbem.store.gamedir import GameDir
from pbem.store.update import update_within
from pbem.transport.mail.compose import DigestParts, Thread, Turn, attach_update, compose_reply, digest_and_size
from pbem.transport.mail.config import MailConfig
from pbem.transport.mail.imap import (
    MAX_MESSAGE, MAX_MULTIPARTS, ImapInbox, Inbox, Incoming, MailFetchError, MaildirInbox, header_of, multipart_count,
)
from pbem.transport.mail.intake import FoundMove, Intake, choose, find_moves, is_automatic
from pbem.transport.mail.ledger import (
    IGNORED, REPLIED, SUBMITTED, Commit, DigestSent, Ledger, ReplySent, SentState, mail_lock, message_key,
)
from pbem.transport.mail.smtp import SmtpSender

_DUPLICATE = re.compile(r"already accepted as log entry (\d+)")
ACCEPTED, REJECTED = "accepted", "rejected"


@dataclass
class MoveResult:
    label: str
    verdict: str              # accepted | rejected
    lines: list[str]          # the receipt lines, or the one-line reason
    again: bool = False       # accepted earlier (a rerun after a crash, or the same move sent twice)
    signed: list[str] | None = None   # the moderator-signed receipt: [body, signature] (text, for the ledger)
    entry: int = -1
    returned: bool = False    # refused, but it returned the player's seat from civil disorder


def _accepted(label: str, receipt: Receipt, again: bool = False) -> MoveResult:
    signed = [receipt.signed[0].decode("utf-8"), receipt.signed[1]] if receipt.signed else None
    return MoveResult(label, ACCEPTED, receipt.lines(), again, signed, receipt.index)


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    ignored: int = 0
    replies: int = 0
    sent: int = 0

    def add(self, line: str) -> None:
        self.lines.append(line)

    @property
    def idle(self) -> bool:
        """Nothing came in and nothing went out."""
        return not (self.accepted or self.rejected or self.ignored or self.replies or self.sent)


class Outbox(Protocol):
    """Where a cycle's messages go: an SMTP session (:class:`LazySender`), or a host's worker's
    list of what its main process is to send (pbem.transport.mail.hostwork)."""

    def send(self, msg: EmailMessage, to: str) -> None: ...

    def defer(self, commit: Commit) -> bool:
        """Take what is to be recorded once the message just sent has gone out; True when the
        outbox records it itself after the real send, False when the caller records it now."""
        ...


class LazySender:
    """Opens the SMTP session only when the first message goes out."""

    def __init__(self, cfg: MailConfig) -> None:
        self.cfg = cfg
        self._smtp: SmtpSender | None = None

    def send(self, msg: EmailMessage, to: str) -> None:
        if self._smtp is None:
            self._smtp = SmtpSender(self.cfg.require_smtp()).__enter__()
        self._smtp.send(msg, to)

    def defer(self, commit: Commit) -> bool:
        return False                     # sent already: the caller records it at once

    def __enter__(self) -> LazySender:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._smtp is not None:
            self._smtp.__exit__(exc_type, exc, tb)


def open_inbox(cfg: MailConfig) -> Inbox:
    if cfg.imap is not None:
        return ImapInbox(cfg.imap)
    if cfg.maildir is not None:
        return MaildirInbox(cfg.maildir)
    raise MailFetchError(f"{cfg.path}: no [imap] or [maildir] section, so there is nowhere to read moves from")


# --- fetching ---------------------------------------------------------------------

def parse_message(raw: bytes, sections: int | None = None) -> EmailMessage:
    """The parsed message; one the parser cannot read is an empty message (then left alone), one
    with more than :data:`MAX_MULTIPARTS` multipart sections its header only (then answered as such).
    ``sections``: :func:`multipart_count` of ``raw`` when the caller has it."""
    if (multipart_count(raw) if sections is None else sections) > MAX_MULTIPARTS:
        raw = header_of(raw)
    try:
        msg = BytesParser(policy=MAIL_POLICY).parsebytes(raw)
    except Exception:  # noqa: BLE001 - quarantine: a message that breaks the parser must not stop the run
        return EmailMessage(policy=MAIL_POLICY)
    return msg if isinstance(msg, EmailMessage) else EmailMessage(policy=MAIL_POLICY)


def _sort_key(item: Incoming, msg: EmailMessage) -> tuple[float, int]:
    """Oldest first: the Date header, else the server's arrival time; ties in mailbox order."""
    try:
        sent = parsedate_to_datetime(str(msg["Date"])).timestamp() if msg["Date"] else item.arrival
    except (TypeError, ValueError, IndexError):
        sent = item.arrival
    return sent, item.order


def _shown(text: str, limit: int = 80) -> str:
    """A header a stranger wrote, as the report shows it: escaped (no control or bidi characters), short."""
    shown = escape_text(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _header(msg: EmailMessage, name: str) -> str:
    try:
        return str(msg.get(name, "") or "").strip()
    except (TypeError, ValueError, IndexError):   # a malformed header must not stop the run
        return ""


def _header_values(msg: EmailMessage, name: str) -> list[str]:
    """Every value of a header; a value the parser refuses (a line break hidden in an encoded
    word...) is taken as it was written, so that a malformed header cannot stop the run."""
    try:
        return [str(v) for v in msg.get_all(name) or []]
    except (TypeError, ValueError, IndexError):
        return [str(v) for k, v in msg.raw_items() if k.lower() == name.lower()]


def fetch_moves(gd: GameDir, cfg: MailConfig, inbox: Inbox | None = None) -> Report:
    """Read new messages, submit their moves oldest first, reply with receipts."""
    with mail_lock(gd):
        return _fetch(gd, cfg, inbox)


def _fetch(gd: GameDir, cfg: MailConfig, inbox: Inbox | None, outbox: Outbox | None = None) -> Report:
    """The fetch; its receipts go through ``outbox`` when given (the cycle's one SMTP session),
    else through an SMTP session of its own, opened when the first receipt goes out."""
    gd.require()
    cfg.require_smtp().check_login("SMTP")    # before any move is taken: receipts must be able to go out
    report = Report()
    with (inbox or open_inbox(cfg)) as box, \
            contextlib.nullcontext(outbox) if outbox is not None else LazySender(cfg) as sender:
        take_messages(gd, cfg, box, sender, report, lambda ledger: sorted_messages(box, ledger.sources()))
    if not report.lines:
        report.add("no new messages")
    return report


def sorted_messages(box: Inbox, known: set[str]) -> list[tuple[Incoming, EmailMessage]]:
    """The messages not yet handled, parsed, oldest first."""
    fresh = [(item, parse_message(item.raw, item.sections)) for item in box.fetch(known)]
    fresh.sort(key=lambda pair: _sort_key(*pair))
    return fresh


def take_messages(gd: GameDir, cfg: MailConfig, box: Inbox, outbox: Outbox, report: Report,
                  messages: Callable[[Ledger], Sequence[tuple[Incoming, EmailMessage]]]) -> None:
    """One game's part of a fetch: the receipts an earlier run owes, then ``messages`` (given
    the game's ledger), each submitted and answered once (the game's ledger says what was)."""
    ledger = Ledger.load(gd)
    for key, record in ledger.owed_replies():
        report.add(f"receipt owed from an earlier run for {_shown(record.get('message_id', '')) or '(no Message-ID)'}:")
        _reply(ledger, key, record, cfg, outbox, report, gd)
        _done(box, record)
    fresh = messages(ledger)
    if not fresh:
        return
    header = gd.entries()[0]
    for item, msg in fresh:
        try:
            _handle(gd, header, ledger, item, msg, cfg, box, outbox, report)
        except (PbemError, OSError):
            raise                 # the mail server, the disk: stop, and the next run goes on from here
        except Exception as exc:  # noqa: BLE001 - quarantine: a message that breaks pbem must not block the rest
            _quarantine(gd, ledger, item, msg, exc, report)


def _quarantine(gd: GameDir, ledger: Ledger, item: Incoming, msg: EmailMessage, exc: Exception,
                report: Report) -> None:
    """Record a message that made pbem fail (a bug: the traceback goes to a crash report) so
    that it is left alone from now on, and go on with the next one."""
    message_id = _header(msg, "Message-ID")
    key = message_key(message_id, item.raw)
    reason = refusal_for_crash(gd.moderator_dir, exc, f"message {_shown(message_id)}", item.raw)
    record = ledger.records.get(key)
    if record is None:
        ledger.put(key, {"message_id": message_id, "from": _header(msg, "From"), "subject": _header(msg, "Subject"),
                         "sources": [item.source], "status": IGNORED, "reason": reason})
    elif record.get("status") == SUBMITTED:       # its moves are done; only the receipt failed: never retry it
        ledger.put(key, {**record, "status": REPLIED, "reply_error": reason})
    report.ignored += 1
    report.add(f"left alone: message {_shown(message_id) or '(no Message-ID)'}: {reason}")


def _handle(gd: GameDir, header: dict[str, Any], ledger: Ledger, item: Incoming, msg: EmailMessage,
            cfg: MailConfig, box: Inbox, outbox: Outbox, report: Report) -> None:
    message_id = _header(msg, "Message-ID")
    key = message_key(message_id, item.raw)
    if key in ledger.records:                 # the same message found again elsewhere
        ledger.add_source(key, item.source)
        return
    sender, subject = _header(msg, "From"), _header(msg, "Subject")
    record: dict[str, Any] = {"message_id": message_id, "from": sender, "subject": subject,
                              "sources": [item.source]}
    intake = _too_big(item) or _read_moves(msg)
    if not intake.moves and asks_for_log(msg) and receipt_address(msg, cfg):
        record.update(status=SUBMITTED, reply={
            "to": receipt_address(msg, cfg), "verdict": "log", "game": header["id"],
            "body": (f"The public copy of game {header['id']} is attached: unpack it with\n\n"
                     f"    tar xzf {bundle_name(header['id'])}\n\n"
                     f"and run `pbem check {header['id']} move.yaml`, `pbem legal {header['id']} --player YOU` or "
                     f"`pbem audit {header['id']}` in the folder it makes (docs/playing.md).\n"),
            "bundle": True})
        ledger.put(key, record)
        report.add(f"sent the public copy of the game to {_shown(sender) or '?'} (they asked for the log)")
        _reply(ledger, key, record, cfg, outbox, report, gd)
        _done(box, record)
        return
    if not intake.moves:
        to = receipt_address(msg, cfg)
        unanswered = _why_no_help(ledger, to, msg)
        report.ignored += 1
        shown = (f"message {_shown(message_id) or '(no Message-ID)'} from {_shown(sender) or '?'} "
                 f"('{_shown(subject)}'): {intake.not_a_move}")
        if unanswered:
            ledger.put(key, {**record, "status": IGNORED, "reason": intake.not_a_move})
            report.add(f"left alone: {shown} ({unanswered})")
            return
        record.update(status=SUBMITTED, reason=intake.not_a_move, helped={"to": to, "day": _today()},
                      reply={"to": to, "verdict": "not a move", "game": header["id"],
                             "body": _help_body(header["id"], intake.not_a_move)})
        ledger.put(key, record)               # recorded BEFORE the answer goes out
        report.add(f"not a move: {shown}; told the sender what pbem expects")
        _reply(ledger, key, record, cfg, outbox, report)
        _done(box, record)
        return
    results = [_submit_one(gd, found, item.raw) for found in intake.moves]
    for r in results:
        report.accepted += r.verdict == ACCEPTED
        report.rejected += r.verdict == REJECTED
        detail = r.lines[0].removeprefix("accepted: ") + (" (already in the log)" if r.again else "")
        report.add(f"{r.verdict}: {r.label} from {_shown(sender) or '?'} {_shown(message_id) or '(no Message-ID)'}: "
                   f"{detail}")
    record.update(status=SUBMITTED, results=[r.__dict__ for r in results],
                  reply={"to": receipt_address(msg, cfg), "verdict": _verdict(results), "game": header["id"],
                         "body": _reply_body(header["id"], results), "attachments": _receipt_files(results)})
    ledger.put(key, record)                   # recorded BEFORE the receipt goes out
    _reply(ledger, key, record, cfg, outbox, report)
    _done(box, record)


def _today() -> str:
    """The day (UTC) in the moderator's private ledger: "at most one answer per sender per day"
    (never in the game's log, which stays free of wall-clock time)."""
    return time.strftime("%Y-%m-%d", time.gmtime())


def _why_no_help(ledger: Ledger, to: str, msg: EmailMessage) -> str:
    """Why a message without a move gets no answer ('' when it gets one): only a player's own,
    not automatic, message, and one answer per sender per day (never a loop with an autoresponder
    or a mailing list)."""
    if is_automatic(msg):
        return "automatic: not answered"
    if not to:
        return "not from a player's address: not answered"
    if any(r.get("helped") == {"to": to, "day": _today()} for r in ledger.records.values()):
        return "the sender was told what pbem expects today already"
    return ""


def _help_body(game_id: str, why: str) -> str:
    found = why if why.startswith("no move in it") else f"no move in it: {why}"      # say it once
    return (f"This message reached the moderator of game {game_id}, but pbem found {found}.\n\n"
            "pbem expects a signed move: attach move.yaml and its signature move.yaml.sig (made with\n"
            "`ssh-keygen -Y sign -n pbem-move -f YOUR_KEY move.yaml`), or paste both into the message.\n"
            "Write 'send log' as the subject to get the public copy of the game. Messages for the\n"
            "moderator as a person go to their own address: this one is read by a program.\n\n"
            "(Sent automatically by pbem, at most once a day; docs/email.md.)\n")


def asks_for_log(msg: EmailMessage) -> bool:
    """A player asks for the public copy of the game: "send log" in the subject or on a line of its own."""
    if "send log" in _header(msg, "Subject").lower():
        return True
    try:
        part = msg.get_body(preferencelist=("plain",))
        text = part.get_content() if part is not None else ""
    except (LookupError, KeyError, ValueError, AttributeError):
        return False
    return any(line.strip().lower() == "send log" for line in str(text).splitlines()[:20])


def receipt_address(msg: EmailMessage, cfg: MailConfig) -> str:
    """Where a receipt goes: the registered address of the player who sent the message, if it
    came from (or asks replies to go to) a player's address; else nowhere.  A stranger's
    message is never answered: pbem must not mail anyone who is not in the game."""
    sent_from: set[str] = set()
    for header in ("From", "Reply-To"):
        sent_from |= {addr.lower() for _name, addr in getaddresses(_header_values(msg, header))}
    for address in cfg.players.values():
        if parseaddr(address)[1].lower() in sent_from:
            return parseaddr(address)[1]
    return ""


def _too_big(item: Incoming) -> Intake | None:
    """Why the message was not read whole (too many bytes, too many multipart sections), if it was not."""
    if item.cut:
        return Intake(not_a_move=f"the message is {item.size} bytes; pbem reads messages of up to {MAX_MESSAGE} "
                                 "bytes (a move file is at most 64 KiB): send the move without big attachments")
    sections = item.sections
    if sections > MAX_MULTIPARTS:
        return Intake(not_a_move=f"the message declares {sections} multipart sections; pbem reads messages of up "
                                 f"to {MAX_MULTIPARTS}: send the move as two attachments or pasted")
    return None


def _read_moves(msg: EmailMessage) -> Intake:
    """Moves in the message; a message too broken to read is left alone, never a crash on every run."""
    try:
        return find_moves(msg)
    except Exception as exc:  # noqa: BLE001 - quarantine: a message that breaks the reader is left alone
        return Intake(not_a_move=f"the message cannot be read ({exc.__class__.__name__})")


def _submit_one(gd: GameDir, found: FoundMove, raw_message: bytes) -> MoveResult:
    """Submit one move found in a message.  Whatever the message holds becomes the verdict; only a
    failure of the machine (a full disk, before the move was committed) stops the run."""
    if found.problem:
        return MoveResult(found.label, REJECTED, [one_line(found.problem)])
    data = b""
    try:
        data = choose(found, gd.entries())
        receipt = submit(gd, data, found.signature, found.label)
    except SeatReturned as exc:
        return MoveResult(found.label, REJECTED, [one_line(str(exc))], entry=exc.index, returned=True)
    except Rejected as exc:
        duplicate = _DUPLICATE.search(str(exc))
        if duplicate is None:
            return MoveResult(found.label, REJECTED, [one_line(str(exc))])
        return _accepted(found.label, receipt_from_log(gd, int(duplicate.group(1))), again=True)
    except PublishError as exc:   # the move is in the log; the next command rewrites the digests
        return _accepted(found.label, receipt_from_log(gd, exc.index))
    except PbemError as exc:
        return MoveResult(found.label, REJECTED, [one_line(str(exc))])
    except Exception as exc:  # noqa: BLE001 - quarantine: a bug must not block the messages behind this one
        committed = committed_receipt(gd, data)
        if committed is not None:   # it failed after the commit: the move is in; the next command repairs the rest
            return _accepted(found.label, committed)
        if isinstance(exc, OSError):
            raise                   # a full disk is no fault of the message: stop; the next run takes it again
        return MoveResult(found.label, REJECTED, [refusal_for_crash(gd.moderator_dir, exc, found.label,
                                                                    raw_message)])
    return _accepted(found.label, receipt)


def _verdict(results: list[MoveResult]) -> str:
    verdicts = {r.verdict for r in results}
    return verdicts.pop() if len(verdicts) == 1 else "partly accepted"


def _receipt_files(results: list[MoveResult]) -> list[list[str]]:
    """The signed receipts to attach: receipt-entryN.yaml and its .sig per accepted move."""
    files: list[list[str]] = []
    for r in results:
        if r.signed:
            name = f"receipt-entry{r.entry}.yaml"
            files += [[name, r.signed[0]], [name + ".sig", r.signed[1]]]
    return files


def _reply_body(game_id: str, results: list[MoveResult]) -> str:
    first = {"accepted": "Accepted", "rejected": "Refused", "partly accepted": "Partly accepted"}
    out = [f"{first.get(_verdict(results), 'Answered')}: your message to game {game_id}.", ""]
    for r in results:
        if r.verdict == ACCEPTED and r.again:
            out.append(f"ACCEPTED ({r.label}); this move was already in the log, so here is its receipt again:")
            out += r.lines
        elif r.verdict == ACCEPTED:
            out.append(f"ACCEPTED ({r.label}):")
            out += r.lines
            out.append("The attached receipt-entry*.yaml (and .sig) is the moderator's signed receipt: keep it")
            out.append("(`pbem receipt keep GAME FILE`); `pbem audit GAME` then proves the log still holds your move.")
            out.append("Your next digest comes in a separate message when you have a decision to make "
                       "(at once, if the move left you one).")
        else:
            out.append(f"REJECTED ({r.label}): {r.lines[0]}")
            out.append("Your seat is yours again. The new digest follows in a separate message: read it, and "
                       "move from it when it asks you." if r.returned else
                       "Nothing was changed. Fix the move and send it again.")
        out.append("")
    out.append("(This receipt was sent automatically by pbem; see docs/email.md.)")
    return "\n".join(out) + "\n"


def _reply(ledger: Ledger, key: str, record: dict[str, Any], cfg: MailConfig, outbox: Outbox,
           report: Report, gd: GameDir | None = None) -> None:
    reply = record["reply"]
    attachments: list[tuple[str, str | bytes]] = [(name, text) for name, text in reply.get("attachments", [])]
    if reply.get("bundle") and gd is not None:
        attachments.append((bundle_name(reply["game"]), public_bundle(gd, reply["game"])))
    if reply["to"]:
        player = next((p for p, a in cfg.players.items() if parseaddr(a)[1].lower() == reply["to"].lower()), "")
        thread = SentState.load_for(cfg.path.parent, player)
        msg = compose_reply(record.get("message_id", ""), record.get("subject", ""), reply["to"],
                            cfg.sender, cfg.domain, reply["verdict"], reply["body"], reply["game"],
                            attachments, thread[0] if thread else "")
        outbox.send(msg, reply["to"])
        report.replies += 1
        report.add(f"  receipt ({reply['verdict']}) sent to {reply['to']}")
        if outbox.defer(ReplySent(ledger.path, key)):
            return              # a host's worker: its main process records it once the receipt has gone out
    else:
        report.add("  no receipt: the message did not come from a player's address")
    record["status"] = REPLIED
    ledger.put(key, record)


def _done(box: Inbox, record: dict[str, Any]) -> None:
    for source in record.get("sources", []):
        if source.startswith(box.name + ";"):
            box.done(source)


# --- sending --------------------------------------------------------------------------

def send_digests(gd: GameDir, cfg: MailConfig, players: Sequence[str] = (), only_changed: bool = False) -> Report:
    """Mail each player (or the ones named) the current digest with their own secrets."""
    with mail_lock(gd):
        return _send(gd, cfg, players, only_changed)


def _send(gd: GameDir, cfg: MailConfig, players: Sequence[str], only_changed: bool,
          outbox: Outbox | None = None) -> Report:
    gd.require()
    cfg.require_smtp().check_login("SMTP")
    report = Report()
    if only_changed:                       # nobody due: no table, no board picture (a host's idle game)
        idle = _nobody_due(gd, cfg)
        if idle is not None:
            report.add(f"nothing to send: nobody has a new decision since the digests sent (log entry {idle})")
            return report
    with open_game(gd):                    # a consistent set of files: no submit half-way through, and
        parts = DigestParts.read(gd)       # none lagging the log after a crash (the repair rewrites them)
        entries = gd.entries()
        everyone = [p["name"] for p in entries[0]["players"]]
        secrets = {p: gd.secrets_path(p).read_bytes() for p in everyone}
        pages = {p: gd.secrets_html_path(p).read_bytes() for p in everyone if gd.secrets_html_path(p).is_file()}
    cfg.check_players(everyone)
    unknown = [p for p in players if p not in everyone]
    if unknown:
        raise PbemError(f"no player {', '.join(unknown)} in this game; players: {', '.join(everyone)}")
    turn = parts.turn
    state = SentState.load(gd)
    targets = due(cfg, turn, state, everyone, entries) if only_changed else list(players or everyone)
    if not targets:
        report.add(f"nothing to send: nobody has a new decision since the digests sent (log entry {turn.index})")
        return report
    with_log = turn.over or cfg.attach_log == "always"
    bundle = (bundle_name(turn.game_id), public_bundle(gd, turn.game_id)) if with_log else None
    with contextlib.nullcontext(outbox) if outbox is not None else LazySender(cfg) as sender:
        for player in targets:
            thread = state.thread(player)
            msg, size = digest_and_size(parts, secrets[player], player, cfg.players[player], cfg.sender,
                                        cfg.reply_to, cfg.domain, Thread(*thread) if thread else None, bundle,
                                        pages.get(player))
            covered = bundle is not None or _attach_update(gd, msg, turn, state, player, size)
            sender.send(msg, cfg.players[player])
            sent = DigestSent(state.path, player, turn.index, turn.entry_hash, str(msg["Message-ID"]), time.time(),
                              turn.index if covered else None)
            if not sender.defer(sent):     # a host's worker's digest is recorded once its main process sent it
                sent.apply_to(state)
            report.sent += 1
            report.add(f"sent the digest of log entry {turn.index} to {player} ({parseaddr(cfg.players[player])[1]})")
    return report


def _attach_update(gd: GameDir, msg: EmailMessage, turn: Turn, state: SentState, player: str,
                   size: int | None = None) -> bool:
    """The public update for the player's copy (pbem.store.update): the entries since the last
    update they were sent (all of them in the first digest), or where that has no room, the
    entries since their last digest only (their program then asks for the copy once, `send log`,
    and the updates after it are small again).  True when one went in."""
    starts = [state.update_from(player)]
    if state.thread(player) is not None and state.last_index(player) + 1 != starts[0]:
        starts.append(state.last_index(player) + 1)
    for start in starts:
        update = update_within(gd, turn.game_id, start, turn.index)
        if update is None:
            continue
        if size is None:                  # the message's size, measured once: it is unchanged until one fits
            size = len(msg.as_bytes())
        if attach_update(msg, update, size=size):
            return True
    return False


DAY = 86400.0


def _nobody_due(gd: GameDir, cfg: MailConfig) -> int | None:
    """The last log entry's index when nobody is due a digest (read from the log alone, under the
    game's shared lock), else None: then the digests are read, after the repair, and sent."""
    with locked(gd.root, shared=True):
        entries = gd.entries()
    turn = Turn.from_entries(entries)
    everyone = [p["name"] for p in entries[0]["players"]]
    cfg.check_players(everyone)
    return None if due(cfg, turn, SentState.load(gd), everyone, entries) else turn.index


def due(cfg: MailConfig, turn: Turn, state: SentState, everyone: Sequence[str],
        entries: Sequence[Mapping[str, Any]], now: float | None = None) -> list[str]:
    """Who gets a digest now (docs/email.md, "How often players get mail").

    ``cadence = "entry"``: everyone without the digest of the last entry.  ``"decision"`` (the
    default): everyone once when the game starts, a player with a decision to make, everyone
    once the game is over, and with ``summary = "round"`` everyone once when a new round
    starts; never a message per entry.  A player whose cadence the log sets to ``daily``
    (`pbem mod cadence`) gets one digest a day at most, with everything since the last, and the
    last one of the game.  Whatever the cadence, a player whose seat went into civil disorder, or
    came back from it, since their last digest gets one (docs/moderating.md, "Missed turns")."""
    now = time.time() if now is None else now
    fresh = [p for p in everyone if state.last_hash(p) != turn.entry_hash]
    news = [p for p in fresh if seat_news_since(entries, p, state.last_index(p))]
    daily = {p for p, c in cadences(entries).items() if c == "daily"}
    if cfg.cadence == "entry" or turn.over:
        chosen = fresh
    else:
        starts = round_starts(entries, everyone[0]) if cfg.summary == "round" else []
        chosen = [p for p in fresh if p in turn.pending or state.thread(p) is None
                  or any(state.last_index(p) < r for r in starts)]
    return [p for p in fresh if p in news or (p in chosen and p not in daily)
            or (p in daily and (turn.over or state.thread(p) is None or now - state.last_at(p) >= DAY))]


def round_starts(entries: Sequence[Mapping[str, Any]], first: str) -> list[int]:
    """The entries after which the first player in seat order has a decision again, after others had."""
    starts, before = [], False
    for entry in entries:
        now = any(d.get("player") == first for d in entry.get("pending", []))
        if now and not before and entry.get("index", 0) > 0:
            starts.append(int(entry["index"]))
        before = now
    return starts


def send_changed(gd: GameDir, cfg: MailConfig, outbox: Outbox) -> Report:
    """The digests of one game to whoever does not have them yet (the caller holds the game's
    mail lock): the second half of a cycle, through an SMTP session the caller shares."""
    return _send(gd, cfg, (), only_changed=True, outbox=outbox)


def run_cycle(gd: GameDir, cfg: MailConfig, inbox: Inbox | None = None) -> Report:
    """Fetch and submit, then send the new digest to whoever does not have it yet: the receipts
    and the digests through one SMTP session (opened when the first message goes out), as a
    host's cycle shares one for all its games (one login a cycle, not two)."""
    with mail_lock(gd), LazySender(cfg) as outbox:
        fetched = _fetch(gd, cfg, inbox, outbox)
        sent = _send(gd, cfg, (), only_changed=True, outbox=outbox)
    return Report(fetched.lines + sent.lines, fetched.accepted, fetched.rejected, fetched.ignored,
                  fetched.replies, sent.sent)
