"""Taking a seat back from civil disorder, from `pbem play` (its page's button, or `pbem play back`).

While a player's seat is in civil disorder a bot decides each of its decisions at once, so their copy
may show no decision at all: nothing to click, nothing to send.  What brings the seat back is any move
they signed, written since they last showed up (:func:`pbem.store.missedturns.returns_the_seat`): the
moderator refuses it and appends a signed ``return`` entry.  The move sent here is the plainest such
move: one action, :data:`pbem.store.movefile.SEAT_BACK`, which no game ever takes, bound to the entry
the player's copy holds (so once the seat has come back, the same file sent again by anyone returns
nothing), signed with the player's key and sent by the game's own transport, as Send sends a move.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from pbem.base.errors import PbemError
from pbem.base.fsutil import public_mode, write_atomic
from pbem.client.config import PlayedGame
from pbem.client.mailsend import mail_written, sent_folder
from pbem.client.send import SendError, Sent, send_written
from pbem.core.engine import pending_players
from pbem.pipeline.turn import ssh_keygen_sign
from pbem.store.missedturns import in_disorder
from pbem.store.movefile import SEAT_BACK, MoveFile, asks_for_seat_back, parse_move, render_move
from pbem.store.table import Table

Sign = Callable[[Path, Path], None]


def seat_back_note(table: Table, player: str) -> str:
    """What the page says above its button while ``player``'s seat is in civil disorder ("" when not)."""
    if not in_disorder(table.entries, player):
        return ""
    return (f"Your seat ({player}) is in civil disorder: you missed too many deadlines in a row, so a bot decides "
            "each of your decisions. Take your seat back and your decisions wait for you again, with the game's "
            "deadline.")


def _sent_here(game: PlayedGame) -> Path:
    """Where this player's moves wait for the moderator: a git game's ``incoming/PLAYER/`` (the
    moderator's sync removes each one it answers), a mail game's sent folder."""
    return game.folder / "incoming" / game.player if game.transport == "git" else sent_folder(game)


def asked_already(game: PlayedGame, index: int) -> str:
    """The name of a move asking for the seat back that was sent on log entry ``index`` and that the
    copy shows no answer to yet ("" when there is none): a second click sends nothing."""
    folder = _sent_here(game)
    if not folder.is_dir():
        return ""
    for path in sorted(folder.glob(f"entry-{index:04d}*.yaml")):
        try:
            if asks_for_seat_back(parse_move(path.read_bytes()).actions):
                return f"{game.player}/{path.name}"
        except (OSError, PbemError):     # a file that does not read as a move asks for nothing
            continue
    return ""


def write_seat_back(table: Table, player: str, path: Path, key: Path, sign: Sign | None) -> Path:
    """Write the move that asks for ``player``'s seat back, bound to the copy's last entry, and sign it
    (``sign``: a key a passphrase opened; default `ssh-keygen -Y sign`); the signature's path."""
    move = MoveFile(table.game_id, player, int(table.last["index"]), str(table.last["hash"]), [dict(SEAT_BACK)])
    text = render_move(move, f"{player} takes the seat back from civil disorder: the moderator refuses this move\n"
                             "(it has no action to take) and gives the seat back (sent by `pbem play`)")
    write_atomic(path, text, mode=public_mode())
    (sign or ssh_keygen_sign)(path, key)
    return path.with_name(path.name + ".sig")


def take_seat_back(game: PlayedGame, table: Table, sign: Sign | None = None) -> Sent:
    """Sign and send the move that asks for the seat back, by the game's transport; refuses
    (:class:`SendError`, nothing sent) when the copy shows the seat is not in civil disorder, or
    when such a move sent on this entry waits for its answer."""
    player, index = game.player, int(table.last["index"])
    if not in_disorder(table.entries, player):
        mine = player in pending_players(table.game, table.state)
        raise SendError(f"your seat ({player}) is yours: it is not in civil disorder in your copy (log entry {index})"
                        + ("; your decision waits for you" if mine else "") + "; nothing is sent")
    waiting = asked_already(game, index)
    if waiting:
        raise SendError(f"you asked for your seat back already ({waiting}); the moderator's answer comes with the "
                        "next update (Check for news); nothing is sent")

    def write(path: Path) -> Path:
        return write_seat_back(table, player, path, game.key, sign)
    if game.transport == "mail":
        return mail_written(game, index, write, f"I take my seat ({player}) back in {game.game_dir}: a signed move "
                                                "that asks only for that (sent by `pbem play`).\n")
    return send_written(game, index, write, f"{player}: takes the seat back (on entry {index})",
                        signed_commit=sign is None)
