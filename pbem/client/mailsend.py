"""Send the player's signed move to the moderator by mail, as a reply in the game's thread.

The move is checked and signed exactly as for a git game (:func:`pbem.pipeline.turn.write_and_sign`:
the real ``ssh-keygen -Y sign``, or the key a passphrase opened), kept in ``.pbem-play/sent/``
beside the copy, and mailed over the player's own SMTP server to the moderator's address with
``move.yaml`` and ``move.yaml.sig`` attached, ``In-Reply-To`` the newest digest.  The other thing
`pbem play` ever mails is ``send log`` (the public copy of the game), when the player asks for it.
"""
from __future__ import annotations

import contextlib
import io
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any, Callable

from pbem.base.errors import PbemError
from pbem.base.mailpolicy import MAIL_POLICY
from pbem.client.config import PlayConfigError, PlayedGame, config_path
from pbem.client.mailfetch import MailState
from pbem.client.send import SendError, Sent, Write
from pbem.core.engine import Rejected
from pbem.pipeline.turn import Io, TurnError, write_and_sign
from pbem.store.table import Table
from pbem.transport.mail.compose import HEADER_GAME, game_subject
from pbem.transport.mail.smtp import SmtpSender


def _smtp(game: PlayedGame) -> SmtpSender:
    assert game.mail is not None
    server = game.mail.smtp_server(config_path())
    if server.username and not server.password:
        raise PlayConfigError(f"no SMTP password: set PBEM_PLAY_SMTP_PASSWORD (for {server.username} at {server.host})")
    return SmtpSender(server)


def _message(game: PlayedGame, subject: str, body: str) -> EmailMessage:
    assert game.mail is not None
    state = MailState.load(game)
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = game.mail.address
    msg["To"] = game.mail.moderator
    thread = state.thread
    base = str(thread.get("subject") or game_subject(game.game_dir, "pbem"))
    msg["Subject"] = subject or (base if base.lower().startswith("re:") else f"Re: {base}")
    msg["Date"] = formatdate(localtime=True)
    domain = game.mail.address.rpartition("@")[2] or "pbem.invalid"
    msg["Message-ID"] = make_msgid(f"{game.game_dir}.{game.player}", domain=domain)
    if thread.get("last"):
        msg["In-Reply-To"] = str(thread["last"])
        root = str(thread.get("root") or thread["last"])
        msg["References"] = root if root == thread["last"] else f"{root} {thread['last']}"
    msg[HEADER_GAME] = game.game_dir
    msg.set_content(body)
    return msg


def send_move(game: PlayedGame, table: Table, actions: list[dict[str, Any]],
              sign: Callable[[Path, Path], None] | None = None) -> Sent:
    """Check, sign and mail the move; nothing is mailed when any step fails."""
    if not actions:
        raise SendError("nothing chosen yet: pick at least one action before Send")

    def write(path: Path) -> Path:
        result = write_and_sign(table, game.player, actions, path, game.key, Io(io.StringIO(), io.StringIO()), sign)
        assert result.signature is not None
        return result.signature
    index = int(table.last["index"])
    return mail_written(game, index, write,
                        f"My move for log entry {index} of {game.game_dir}, signed (sent by `pbem play`).\n")


def sent_folder(game: PlayedGame) -> Path:
    """Where `pbem play` keeps the moves it mailed (``.pbem-play/sent/entry-NNNN.yaml`` and its ``.sig``)."""
    return game.play_dir / "sent"


def mail_written(game: PlayedGame, index: int, write: Write, body: str) -> Sent:
    """Write and sign a move on log entry ``index`` (``write``), keep it in :func:`sent_folder` and
    mail it to the moderator with ``body``; nothing is mailed when a step fails."""
    assert game.mail is not None
    folder = sent_folder(game)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    name = f"entry-{index:04d}.yaml"
    n = 1
    while (folder / name).exists():
        n += 1
        name = f"entry-{index:04d}-{n}.yaml"
    path = folder / name
    try:
        signature = write(path)
    except (Rejected, TurnError) as exc:
        for p in (path, path.with_name(path.name + ".sig")):
            p.unlink(missing_ok=True)
        raise SendError(f"the move was not sent: {exc}") from None
    msg = _message(game, "", body)
    msg.add_attachment(path.read_bytes(), "application", "x-yaml", filename="move.yaml")
    msg.add_attachment(signature.read_bytes(), "application", "octet-stream", filename="move.yaml.sig")
    try:
        with _smtp(game) as smtp:
            smtp.send(msg, game.mail.moderator)
    except PbemError as exc:
        for p in (path, signature):
            with contextlib.suppress(OSError):
                p.unlink()
        raise SendError(f"the move was not sent: {exc}") from None
    return Sent(f"{game.player}/{name}", index, str(msg["Message-ID"]))


def ask_for_log(game: PlayedGame) -> str:
    """Mail ``send log`` to the moderator (the player pressed the button); the Message-ID."""
    msg = _message(game, "send log", "send log\n")
    with _smtp(game) as smtp:
        smtp.send(msg, game.mail.moderator if game.mail else "")
    return str(msg["Message-ID"])
