"""Reminder emails for decisions whose deadline is near (sent by `pbem tick --mail`)."""
from __future__ import annotations

import contextlib
import datetime as dt
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Mapping, Protocol, Sequence

from pbem.pipeline.deadlines import Deadline
from pbem.store.gamedir import GameDir
from pbem.transport.mail.compose import Thread, Turn, game_subject
from pbem.transport.mail.config import MailConfig
from pbem.transport.mail.hostconfig import load_game_config
from pbem.transport.mail.ledger import SentState
from pbem.transport.mail.smtp import SmtpSender


def due_text(due: float) -> str:
    return dt.datetime.fromtimestamp(due, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def compose_reminder(game_id: str, deadline: Deadline, to: str, sender: str, domain: str,
                     subject: str = "", thread: Thread | None = None) -> EmailMessage:
    """A reminder, in the player's thread of the game (same subject, replying to the last digest)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = f"Re: {subject}" if subject else f"[{game_id}] reminder"
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(f"{game_id}.reminder", domain=domain)
    if thread is not None:
        thread.headers(msg)
    msg["Auto-Submitted"] = "auto-generated"
    msg.set_content(
        f"Reminder: your decision is due {due_text(deadline.due)}.\n\n"
        f"Game {game_id} has been waiting for your decision since log entry {deadline.since}.\n"
        f"It is due {due_text(deadline.due)}. After that the game's deadline rule applies\n"
        "(see the header of the log: a bot may decide for you).\n\n"
        "Your last digest has the move template; reply with move.yaml and move.yaml.sig.\n"
        "If you need more time, ask the moderator for an extension.\n")
    return msg


class Outbox(Protocol):
    def send(self, msg: EmailMessage, to: str) -> None: ...


def send_reminders(gd: GameDir, reminders: Sequence[Deadline], env: Mapping[str, str] | None = None,
                   cfg: MailConfig | None = None, outbox: Outbox | None = None) -> list[str]:
    """Mail each reminded player (one message each); returns the addresses written to.  A host
    passes the game's settings and its own SMTP session."""
    if not reminders:
        return []
    cfg = cfg or load_game_config(gd, env=env)
    turn = Turn.read(gd)
    state = SentState.load(gd)
    sent: list[str] = []
    with contextlib.nullcontext(outbox) if outbox is not None else SmtpSender(cfg.require_smtp()) as smtp:
        for d in reminders:
            to = cfg.address_of(d.player)
            thread = state.thread(d.player)
            smtp.send(compose_reminder(turn.game_id, d, to, cfg.sender, cfg.domain,
                                       game_subject(turn.game_id, turn.title), Thread(*thread) if thread else None), to)
            sent.append(to)
    return sent
