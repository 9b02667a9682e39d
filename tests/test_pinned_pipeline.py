"""Whole games through the real pipeline, pinned byte for byte.

The golden games (tests/golden/) pin the rules at the Game interface; these pin what the
pipeline writes: the log (every entry's bytes, hashes and signatures), the public digests,
board and view, and what each player's encrypted secrets hold.  With fixed keys (Ed25519
signatures are deterministic, and a move's draws come from its signature), a fixed seed and a
fixed game id, the same moves give the same bytes, so any change to how the engine stores,
appends or renders a game shows here.  Performance work (issue 12) must leave them as they are.

The players' HTML pages were re-pinned when the click-to-move panel landed, and again when every
page's script data went through one escaping function (pbem.views.render.scriptdata: keys sorted, ``>`` and
``&`` escaped too; the only files that changed were the two pages that carry a click panel).  The
Space Swarm game was re-pinned when its rules became space-swarm/2 (issue 23: the header's rules
and its new option event_phase change every hash, and so the moderator's timeout bot, whose draws
are anchored on the log's hashes, plays another turn; the game then differs from there on).
The Atlantis game was re-pinned when the ``colours`` default became ``1`` (issue 23: the header's
``colours: '1'`` instead of ``auto`` changes every hash, so the timeout bot at entry 16 plays
another turn; with ``colours=auto`` given, the log, moves, board and view are the old bytes).
The Space Swarm game was re-pinned again when the map generator's defaults became the text
(issue 23: ``home_hazards=keep``, ``cut_homes=allow``, every space rolled once): the map, and the
deal drawn after it, differ from the set-up on; with both fixes given, the old bytes come back.
The two pages with a click panel were re-pinned when Atlantis's page got its own turn model
(templates/turnmodel/survive.js) and the page's forms were read as OrderForms (templates/click.js),
and again with the new defaults above (only the two pages with a click panel: the players'
pages follow the game); the Space Swarm page once more when the page's script took pbem's own JS
through the checked script_code filter and made a move that stays in its own space clickable.
The Space Swarm game's boards and HTML pages (board.svg, digest.html, the players' pages) were
re-pinned when its terrain got textures as well as colours (issue 21): log, moves, view, text
digest and secrets text unchanged; and the Space Swarm player page at entry 20 again for the page's
number pickers, marks beside the counts and lists of crowded spaces (issue 21; it is the generic
page the mail falls back on, as before, the family page being too big for the mail).  Both games' boards
and HTML pages were re-pinned when textures became a ``<use>`` of one hexagon (smaller pages) and
Space Swarm's Deep Space the one plain kind: log, moves, view, text digests and secrets unchanged.
The Atlantis page with a click panel was re-pinned when the Survive model's data left out the
board's neighbours (survive.js works them out from the labels; issue 21: Space Attack's page fits),
and both pages with a click panel when their board's SVG took shorter numbers (pbem.views.render.svgnumbers).
The players' secrets (text and pages) were re-pinned when the text secrets came to hold only
the player's own (issue 21's message budget) and when the merged page of these changes was made:
log, moves, view and text digests unchanged; and the Atlantis page with a click panel when
survive.js learned to label the page's choices (``choices``: only the page's script changed), and
again when survive.js copied a state as plain data instead of through JSON text, worked out a
removal's orders written ahead once per state and found the board's cells by number, not by text
(issue 19: only the page's script changed; the turn-model proofs show the same answers), and
when click.js read each state's pieces once, measured the board's own texts once and made the
list of every choice again only when its words change (only the page's script changed), and
when survive.js worked out a board's cell numbers and geometry once per board, not at every
``start`` (only the page's script changed; the proofs' recorded requests get the same answers),
and when survive.js's copy of a state at every ``apply`` shared the tiles and the pieces' records
(an action puts a new record for a piece it changes: only the page's script changed), and
when the Survive model took each decision's words from the game (the model's data carries
``prompts``: Atlantis's words are the same, the script no longer holds them) and listed the
pieces in the engine's handle order whatever the order of the view's keys (only the Atlantis
page with a click panel changed), and both pages with a click panel when click.js named a piece
off the board with the player's own value and "off the board" (only the page's script changed),
and again when click.js learnt to say "press Send in pbem play" where `pbem play` frames the page
(only the page's script changed: a mailed page says to save, sign and send, as before), and
when click.js kept the placements clicked on the board beside a set-up list in the move file
(only the page's script changed), and both when the set-up list said that the other players read
it once taken and went out with ``keep: true`` (its later placements wait for their turn: only the
page's script changed), the Atlantis one again when it said that pbem play's Send seals the list
(only the page's script changed), and both when a click on a space without a choice said so
(only the page's script changed); and every HTML page of the midway entries (the public digest.html and the
players' pages) when the HTML digest's "Waiting for" said each decision in words, without the
prompt's move-file examples (the text digests keep them: log, moves, view, text digests and
secrets unchanged).
Regenerate only when the output is meant to change: ``PRINT_PINS=1 pytest -q -s
test_pinned_pipeline.py`` prints the hashes of today's bytes.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from pbem.core.rng import Rng
from pbem.crypto import agecrypt, keys, sshsig
from pbem.pipeline.audit import audit
from pbem.pipeline.botmoves import bot_move_file, next_to_move
from pbem.pipeline.moderator import moderate, reveal
from pbem.pipeline.newgame import PlayerSpec, create_game
from pbem.pipeline.submit import submit
from pbem.store.gamedir import GameDir
from pbem.store.movefile import render_move
from pbem.store.table import Table
from pbem.views.outputs import opened_bytes


def fixed_keypair(path: Path, name: str) -> str:
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"pbem-pinned-key/{name}".encode()).digest())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
    path.chmod(0o600)
    return keys.public_key_of(key)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:24]


def fingerprints(gd: GameDir, players: list[str]) -> dict[str, str]:
    """Hashes of the log, the public files, the archived moves and each player's secrets (plaintext)."""
    out = {"log.yaml": sha(gd.log_path.read_bytes())}
    for path in sorted(gd.public_dir.iterdir()):
        out[f"public/{path.name}"] = sha(path.read_bytes())
    out["moves/"] = sha(b"".join(p.name.encode() + b"\0" + p.read_bytes() for p in sorted(gd.moves_dir.iterdir())))
    for player in players:
        for path in (gd.secrets_path(player), gd.secrets_html_path(player)):
            plain = opened_bytes(agecrypt.decrypt(path.read_bytes(), gd.moderator_key_path))
            out[f"secrets/{path.name}"] = sha(plain)
    return out


def play(root: Path, game: str, players: list[str], moderator_steps: dict[int, tuple[str, dict[str, str]]],
         midway: int) -> tuple[GameDir, dict[str, str]]:
    """Bots play ``game`` to its end through submit; at the given log entries the moderator acts.
    Returns the game and the fingerprints of its files at log entry ``midway``."""
    key_dir = root / "keys"
    specs = [PlayerSpec(n, fixed_keypair(key_dir / n, n)) for n in players]
    fixed_keypair(key_dir / "moderator", "moderator")
    gd = GameDir(root / "game")
    create_game(gd.root, game, specs, {}, b"pinned-seed-0123456789abcdef-012", moderator_key=key_dir / "moderator",
                game_id=f"pinned-{game}")
    middle: dict[str, str] = {}
    while (player := next_to_move(table := Table.load(gd))) is not None:
        index = table.last["index"]
        if index == midway:
            middle = fingerprints(gd, players)
        if index in moderator_steps:
            action, fields = moderator_steps.pop(index)
            moderate(gd, action, f"pinned {action}", **{k: (player if v == "NEXT" else v) for k, v in fields.items()})
            continue
        move = bot_move_file(table, player, Rng(b"pinned-bot", f"{index}/{player}"))
        raw = render_move(move).encode()
        submit(gd, raw, sshsig.sign(keys.load_private_key(key_dir / player), raw, sshsig.MOVE_NAMESPACE))
    reveal(gd)
    return gd, middle


PINS: dict[str, dict[str, str]] = {
    "atlantis": {
        "45:log.yaml": "c263e9dfb01723704879b5fb",
        "45:public/board.svg": "9f54b0bc1da6301ccbd70c79",
        "45:public/digest.html": "d10da74654ff4f6169e0ce49",
        "45:public/digest.txt": "38844da5798bac0bc2225dd3",
        "45:public/view.json": "5a6b989cc06239b3e6b8a811",
        "45:moves/": "b27f591afcd84116521aca62",
        "45:secrets/red.age": "a72460481cf96340404e2937",
        "45:secrets/red.html.gz.age": "46fe46d257bdf227866662a9",
        "45:secrets/blue.age": "9ef5eae725d5b43ad265fd96",
        "45:secrets/blue.html.gz.age": "3f1b0f7353cddbad531e305b",
        "45:secrets/green.age": "d5bc2d4e176783a418431646",
        "45:secrets/green.html.gz.age": "b25e2713560adbc95ab42de3",
        "45:secrets/yellow.age": "341c62cdba444991b6f74acc",
        "45:secrets/yellow.html.gz.age": "28889c07d6c40e3e69086348",
        "log.yaml": "4aada5747848a4568c31a17d",
        "public/board.svg": "a260b6da274fbcafb4099a52",
        "public/digest.html": "13ec33a623e339c18e9b8a19",
        "public/digest.txt": "a4ec4dfbc15639280b4cf59c",
        "public/view.json": "b31dd828cafdc6fe84e55f28",
        "moves/": "9f4d1bccf87572a352c43f73",
        "secrets/red.age": "f1531f49a5d5f112c889ba39",
        "secrets/red.html.gz.age": "9e9784cbf593b76d0ed093a7",
        "secrets/blue.age": "b7bf1aafc1630b56252d0373",
        "secrets/blue.html.gz.age": "2651ad5be4b3f653546094e9",
        "secrets/green.age": "abcf1d8b557d62becaf36cc0",
        "secrets/green.html.gz.age": "662f93fcf07f5b12b008aaf8",
        "secrets/yellow.age": "6b684c11cb34e3c828aeded8",
        "secrets/yellow.html.gz.age": "494a19af97be5bacaded22b2",
    },
    "space-swarm": {
        "20:log.yaml": "e5645592ddc0ce5b82973b73",
        "20:public/board.svg": "3f47264c2dbf23999653e4f6",
        "20:public/digest.html": "609baae404c56dd8f6a6d304",
        "20:public/digest.txt": "288c66cf856002b91bac912e",
        "20:public/view.json": "70f52d1db85ff08d896685be",
        "20:moves/": "bfff0a45e04b04ee8a21b80c",
        "20:secrets/red.age": "5a165838568ac0f20ec06748",
        "20:secrets/red.html.gz.age": "b7b26c904c0c8c26eb830cc6",
        "20:secrets/blue.age": "def3f658e1732bf2d2d8a0ed",
        "20:secrets/blue.html.gz.age": "8bba32993b3b12b366c28006",
        "log.yaml": "a5126c987f0c48b76f95404e",
        "public/board.svg": "5d6d4cc76b12816ddb2009c6",
        "public/digest.html": "db0436ba19e4ffd1fe97277a",
        "public/digest.txt": "6b4e023b1b98d24ef0343bc6",
        "public/view.json": "24f93408f35ecf28019d4102",
        "moves/": "dab939a90dc7caa853df7b12",
        "secrets/red.age": "6b938437866a8394ea433c05",
        "secrets/red.html.gz.age": "7dbe359289aa547ad57e9368",
        "secrets/blue.age": "90c125343dbe50931977fe67",
        "secrets/blue.html.gz.age": "5c87f496f91a1aeaf413377b",
    },
}


@pytest.mark.slow(seconds=30)
@pytest.mark.parametrize("game,players,steps,midway", [
    ("atlantis", ["red", "blue", "green", "yellow"],
     {6: ("note", {}), 15: ("timeout", {"player": "NEXT"}), 16: ("undo", {}), 30: ("pause", {}),
      31: ("resume", {})}, 45),
    ("space-swarm", ["red", "blue"], {9: ("timeout", {"player": "NEXT"})}, 20),
], ids=["atlantis-4p", "space-swarm-2p"])
def test_a_whole_game_writes_the_same_bytes(tmp_path: Path, game: str, players: list[str],
                                             steps: dict[int, tuple[str, dict[str, str]]], midway: int) -> None:
    gd, middle = play(tmp_path, game, players, dict(steps), midway)
    got = {**{f"{midway}:{k}": v for k, v in middle.items()}, **fingerprints(gd, players)}
    if os.environ.get("PRINT_PINS"):
        print(f"\n{game}: {got}")
    assert audit(gd).ok
    kinds = {(e["kind"], e.get("action")) for e in gd.entries()}
    assert {("moderator", a) for a, _f in steps.values()} <= kinds and ("reveal", None) in kinds
    expected = PINS[game]
    differ = {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}
    assert not differ and set(got) == set(expected), f"the pipeline wrote other bytes: {differ}"

