"""What a digest message holds, part by part (issue 21: the message budget; docs/email.md).

    .venv/bin/python benchmarks/message_sizes.py                       # every game, 2, 4 and max players
    .venv/bin/python benchmarks/message_sizes.py --only atlantis --players 4 --every 3
    .venv/bin/python benchmarks/message_sizes.py --json out.json

Bot games (random bots, fixed keys and seed: the same game every time) are played through the
pipeline's own steps (``accept_move`` and ``commit_entry``, as `submit`); at every decision entry
(every ``--every``-th) the message of each player with a decision is composed as `pbem mail`
sends it (``compose_digest``: the public text and HTML digests, the board PNG, the two armored
age files) and each part is measured as sent.  For each page: which model its panel has (the
game's own family, the generic graph, or none) and what the page with its family model would
have needed against the budget with the board's picture in the message (``outputs.page_budget``), so
that a miss says by how much; ``without_picture``: the messages that left the picture out for the page.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from fixedkeys import fixed_keypair

from pbem.core.rng import Rng
from pbem.crypto import agecrypt, keys, sshsig
from pbem.pipeline.append import commit_entry
from pbem.pipeline.botmoves import bot_move_file, next_to_move
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import accept_move, moderator_opener
from pbem.store.gamedir import GameDir
from pbem.store.movefile import render_move
from pbem.store.table import Table
from pbem.transport.mail.compose import DigestParts, Turn, compose_digest
from pbem.views.boardmoves import BoardHistory
from pbem.views.outputs import (HTML_SUFFIX, MESSAGE_BYTES, UPDATE_BYTES, message_over, page_budget, player_plaintexts,
                               public_message_bytes, public_outputs, seal_bytes)
from pbem.views.render.png import mail_png, picture_bytes

NAMES = ["red", "blue", "green", "yellow", "black", "white"]
#: (label, game, options): Atlantis also with its mini-expansions
GAMES: list[tuple[str, str, dict[str, str]]] = [
    ("atlantis", "atlantis", {}),
    ("atlantis+exp", "atlantis", {"dolphins": "yes", "squid": "yes"}),
    ("1986", "atlantis-1986", {}),
    ("space-attack", "space-attack", {}),
    ("space-swarm", "space-swarm", {}),
]



def games_and_counts(only: str | None, players: str | None) -> list[tuple[str, str, dict[str, str], int]]:
    """(label, game, options, player count) of :data:`GAMES` as the ``--only`` and ``--players`` options ask
    (default: 2, 4 and the game's most players)."""
    from pbem.core.registry import load_game
    labels = set(only.split(",")) if only else None
    out = []
    for label, game_name, options in GAMES:
        if labels is not None and label not in labels:
            continue
        most = load_game(game_name).max_players
        counts = [int(c) for c in players.split(",")] if players else sorted({2, 4, most})
        out += [(label, game_name, options, n) for n in counts if n <= most]
    return out

def fixed_key(path: Path, name: str) -> str:
    return fixed_keypair(path, name, "pbem-sizes-key")


@dataclass
class Sample:
    """One player's digest message at one decision entry."""

    entry: int
    player: str
    parts: dict[str, int]     # part -> bytes as sent (base64 or armour included)
    total: int                # the whole message as sent
    model: str                # the panel's model: the family, "graph", or "" (no panel)
    family_over: int          # bytes the page with the game's own model was over the budget (<= 0: fitted)
    estimate: int             # the message as the budget counts it (without the room kept for an update)
    png_reserve: int          # what the budget counted for the picture (picture_bytes)


@dataclass
class GameFigures:
    label: str
    players: int
    samples: list[Sample] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        s = self.samples
        parts = sorted({k for x in s for k in x.parts})
        missed = [x.family_over for x in s if x.family_over > 0]
        return {
            "game": self.label, "players": self.players, "pages": len(s),
            "parts_max": {k: max(x.parts.get(k, 0) for x in s) for k in parts},
            "parts_median": {k: int(statistics.median(x.parts.get(k, 0) for x in s)) for k in parts},
            "total_max": max((x.total for x in s), default=0),
            "total_median": int(statistics.median(x.total for x in s)) if s else 0,
            "over_100k": sum(x.total >= 100_000 for x in s),
            "models": {m: sum(x.model == m for x in s) for m in sorted({x.model for x in s})},
            "without_picture": sum("png" not in x.parts for x in s),
            "family_missed": len(missed), "family_missed_by_max": max(missed, default=0),
            "family_missed_by_median": int(statistics.median(missed)) if missed else 0,
            "estimate_minus_sent_min": min((x.estimate - x.total for x in s), default=0),
            "png_reserve_minus_sent_min": min((x.png_reserve - x.parts.get("png", 0) for x in s), default=0),
        }


def part_sizes(msg: EmailMessage) -> dict[str, int]:
    """Each leaf part of the message as sent (its headers and encoded body)."""
    out: dict[str, int] = {}
    for part in msg.walk():
        if part.is_multipart():
            continue
        name = part.get_filename() or part.get_content_type()
        key = ("page secrets" if name.endswith(".html.gz.age") else "text secrets" if name.endswith(".age") else
               "png" if name.endswith(".png") else
               "text digest" if name == "text/plain" else "html digest" if name == "text/html" else name)
        out[key] = out.get(key, 0) + len(part.as_bytes())
    return out


def message(table: Table, player: str) -> tuple[EmailMessage, str, int, int, int]:
    history = BoardHistory.for_viewers(table, [None, player])
    public = public_outputs(table, history)
    budget = page_budget(table, player, history)
    plain = player_plaintexts(table, player, history)
    page = plain[HTML_SUFFIX].decode()
    model = next((f for f in ("survive", "swarm", "graph") if f'"family":"{f}"' in page), "")
    recipients = [table.player_keys(player)[0], table.header["moderator"]["key"]]
    game = table.game
    pending = [d.player for d in game.pending(table.state)]
    turn = Turn(table.game_id, game.title, table.last["index"], table.last["hash"], list(dict.fromkeys(pending)),
                not pending)
    svg = public["public/board.svg"].decode()
    parts = DigestParts(turn, public["public/digest.txt"].decode(), public["public/digest.html"].decode(), svg,
                        mail_png(svg) if svg else b"")
    msg = compose_digest(parts, agecrypt.encrypt(plain[".age"], recipients), player, f"{player}@example.com",
                         "moderator@example.com", "", "example.com",
                         secrets_html=agecrypt.encrypt(seal_bytes(HTML_SUFFIX, plain[HTML_SUFFIX]), recipients))
    estimate = message_over(public_message_bytes(table, history), plain[".age"], plain[HTML_SUFFIX]) \
        + MESSAGE_BYTES - UPDATE_BYTES
    return msg, model, budget, estimate, picture_bytes(svg)



def new_game(root: Path, game_name: str, options: dict[str, str], n: int) -> GameDir:
    """A new game of ``n`` players (the first of :data:`NAMES`) in ``root``/game, with fixed keys
    (``root``/keys), seed and id: the same game every run."""
    key_dir = root / "keys"
    specs = [PlayerSpec(p, fixed_key(key_dir / p, p)) for p in NAMES[:n]]
    fixed_key(key_dir / "moderator", "moderator")
    gd = GameDir(root / "game")
    create_game(gd.root, game_name, specs, options, b"sizes-seed-0123456789abcdef-0123",
                moderator_key=key_dir / "moderator", game_id="sizes")
    return gd

def play(root: Path, label: str, game_name: str, options: dict[str, str], n: int, every: int,
         limit: int) -> GameFigures:
    gd = new_game(root, game_name, options, n)
    names = NAMES[:n]
    table = Table.load(gd)
    opener = moderator_opener(gd)
    figures = GameFigures(label, n)
    decisions = 0
    while (player := next_to_move(table)) is not None and table.last["index"] < limit:
        if decisions % every == 0:
            for p in dict.fromkeys(d.player for d in table.game.pending(table.state)):
                msg, model, budget, estimate, reserve = message(table, p)
                sizes = part_sizes(msg)
                figures.samples.append(Sample(table.last["index"], p, sizes, len(msg.as_bytes()), model, -budget,
                                              estimate, reserve))
        decisions += 1
        bot_step(table, gd, player, opener)
    return figures


def bot_step(table: Table, gd: GameDir, player: str, opener: Any) -> None:
    """``player``'s random-bot move (seeded by the entry: the same game every run), signed with their
    key (:func:`new_game`'s) and taken without the outputs (accept and commit, as ``submit`` does)."""
    index = table.last["index"]
    move = bot_move_file(table, player, Rng(b"sizes-bot", f"{index}/{player}"))
    raw = render_move(move).encode()
    sig = sshsig.sign(keys.load_private_key(gd.root.parent / "keys" / player), raw, sshsig.MOVE_NAMESPACE)
    _mv, entry, archive, _applied = accept_move(table, raw, sig, opener)
    commit_entry(table, entry, archive)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="games (labels), comma-separated: " + ", ".join(g[0] for g in GAMES))
    ap.add_argument("--players", help="player counts, comma-separated (default: 2, 4 and the maximum)")
    ap.add_argument("--every", type=int, default=1, help="measure every N-th decision entry")
    ap.add_argument("--limit", type=int, default=10**9, help="stop the game at this log entry")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    out = []
    for label, game_name, options, n in games_and_counts(args.only, args.players):
        with tempfile.TemporaryDirectory() as tmp:
            fig = play(Path(tmp), label, game_name, options, n, args.every, args.limit)
        summary = fig.summary()
        out.append(summary)
        print(json.dumps(summary), flush=True)
        if args.json:
            args.json.write_text(json.dumps(out, indent=1) + "\n")
    sys.exit(0)


if __name__ == "__main__":
    main()
