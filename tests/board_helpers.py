"""A finished three-player Atlantis game played by bots through the real pipeline (`pbem demo`),
and the digest message a player would get by mail after any of its entries."""
from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from pbem.core.engine import game_for
from pbem.crypto import agecrypt
from pbem.pipeline.demo import run_demo
from pbem.store.bundle import bundle_name, public_bundle
from pbem.store.gamedir import GameDir
from pbem.store.table import replay
from pbem.transport.mail.compose import DigestParts, Turn, compose_digest
from pbem.views.boardmoves import BoardHistory
from pbem.views.outputs import HTML_SUFFIX, player_plaintexts, public_outputs, seal_bytes
from pbem.views.render.png import mail_png

SEED = bytes.fromhex("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")


def finished_atlantis(folder: Path) -> GameDir:
    """A whole 3-player game (red, blue, green), revealed; keys in ``folder/keys``."""
    run_demo(folder, 3, SEED, echo=lambda _line: None)
    return GameDir(folder / "game")


def digest_message(gd: GameDir, index: int, player: str, with_log: bool = False) -> EmailMessage:
    """The digest message ``player`` gets after entry ``index`` (built as `pbem mail` builds it)."""
    entries = gd.entries()
    game = game_for(entries[0])
    table = None
    for table, entry, _applied in replay(gd, game, entries, gd.require_seed(entries)):
        if entry["index"] == index:
            break
    assert table is not None
    history = BoardHistory.for_viewers(table, [None, player])
    public = public_outputs(table, history)
    plain = player_plaintexts(table, player, history)
    recipients = [table.player_keys(player)[0], table.header["moderator"]["key"]]
    pending = [d.player for d in game.pending(table.state)]
    turn = Turn(table.game_id, game.title, index, table.last["hash"], list(dict.fromkeys(pending)), not pending)
    svg = public["public/board.svg"].decode()
    parts = DigestParts(turn, public["public/digest.txt"].decode(), public["public/digest.html"].decode(), svg,
                        mail_png(svg))
    bundle = (bundle_name(table.game_id), public_bundle(gd, table.game_id)) if with_log else None
    return compose_digest(parts, agecrypt.encrypt(plain[".age"], recipients), player, f"{player}@example.com",
                          "moderator@example.com", "", "example.com", bundle=bundle,
                          secrets_html=agecrypt.encrypt(seal_bytes(HTML_SUFFIX, plain[HTML_SUFFIX]), recipients))
