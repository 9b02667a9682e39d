"""Reminder emails for decisions whose deadline is near (sent by `pbem tick --mail`).

A reminder is the player's digest again (the same parts: the public digest with the board, their
encrypted secrets and page), with the reminder first, in the player's thread of the game.  It is
sent only once the digest of the decision went out to the player (the ledger of digests sent,
``mail-sent.json``): it never overtakes the digest it reminds of.
"""
from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable
from email.message import EmailMessage
from typing import Mapping, Protocol, Sequence

from pbem.pipeline.deadlines import Deadline
from pbem.pipeline.repair import open_game
from pbem.store.gamedir import GameDir
from pbem.transport.mail.compose import DigestParts, Thread, compose_digest
from pbem.transport.mail.config import MailConfig
from pbem.transport.mail.hostconfig import load_game_config
from pbem.transport.mail.ledger import SentState
from pbem.transport.mail.smtp import SmtpSender


def due_text(due: float) -> str:
    return dt.datetime.fromtimestamp(due, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def reminder_text(game_id: str, deadline: Deadline) -> str:
    return (f"Reminder: your decision is due {due_text(deadline.due)}.\n\n"
            f"Game {game_id} has been waiting for your decision since log entry {deadline.since}. "
            "After that the game's deadline rule applies (see the header of the log: a bot may decide for you).\n\n"
            "Your page and the move template are attached again, as in the digest; reply with move.yaml and "
            "move.yaml.sig. If you need more time, ask the moderator for an extension.\n")


def digest_went_out(gd: GameDir) -> Callable[[Deadline], bool]:
    """Has the player's digest of this decision been mailed (the ledger: a digest of the entry the
    decision waits since, or a later one)?"""
    state = SentState.load(gd)
    return lambda d: state.last_index(d.player) >= d.since


def compose_reminder(parts: DigestParts, deadline: Deadline, secrets: bytes, to: str, sender: str, reply_to: str,
                     domain: str, thread: Thread | None = None, secrets_html: bytes | None = None) -> EmailMessage:
    """A reminder: the player's digest message again with the reminder first (its subject a reply's,
    in the player's thread of the game)."""
    return compose_digest(parts, secrets, deadline.player, to, sender, reply_to, domain, thread,
                          secrets_html=secrets_html, preface=reminder_text(parts.turn.game_id, deadline))


class Outbox(Protocol):
    def send(self, msg: EmailMessage, to: str) -> None: ...


def send_reminders(gd: GameDir, reminders: Sequence[Deadline], env: Mapping[str, str] | None = None,
                   cfg: MailConfig | None = None, outbox: Outbox | None = None) -> list[str]:
    """Mail each reminded player (one message each); returns the addresses written to.  A host
    passes the game's settings and its own SMTP session."""
    if not reminders:
        return []
    cfg = cfg or load_game_config(gd, env=env)
    with open_game(gd):                    # a consistent set of files, as `pbem mail` reads them
        parts = DigestParts.read(gd)
        secrets = {d.player: gd.secrets_path(d.player).read_bytes() for d in reminders}
        pages = {d.player: gd.secrets_html_path(d.player).read_bytes() for d in reminders
                 if gd.secrets_html_path(d.player).is_file()}
    state = SentState.load(gd)
    sent: list[str] = []
    with contextlib.nullcontext(outbox) if outbox is not None else SmtpSender(cfg.require_smtp()) as smtp:
        for d in reminders:
            to = cfg.address_of(d.player)
            thread = state.thread(d.player)
            smtp.send(compose_reminder(parts, d, secrets[d.player], to, cfg.sender, cfg.reply_to, cfg.domain,
                                       Thread(*thread) if thread else None, pages.get(d.player)), to)
            sent.append(to)
    return sent
