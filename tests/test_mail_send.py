"""`pbem mail send`: one digest message per player, over real SMTP (STARTTLS and implicit TLS)."""
from __future__ import annotations

import gzip
import re
import select
import struct
from email.message import EmailMessage

import pytest
from click.testing import CliRunner
from mailservers import (
    PLAYERS,
    QUIET_TLS,
    Router,
    World,
    address,
    move_files,
    start_smtp,
    start_world,
    wait_for,
)

from pbem.base.errors import PbemError
from pbem.cli.group import main as pbem_main
from pbem.crypto import agecrypt
from pbem.pipeline.submit import submit
from pbem.store.update import read_update
from pbem.transport.mail.compose import email_html
from pbem.transport.mail.config import Server
from pbem.transport.mail.cycle import run_cycle, send_digests
from pbem.transport.mail.smtp import SmtpSender
from pbem.views.render.png import PNG_MAGIC, svg_size, svg_to_png
from pbem.views.render.svgnumbers import shorter_numbers


def cli(world: World, *args: str, ok: bool = True):
    result = CliRunner().invoke(pbem_main, ["mail", *args, str(world.gd.root)], env=world.env())
    if ok:
        assert result.exit_code == 0, result.output
    return result


def _png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG_MAGIC)
    return struct.unpack(">II", png[16:24])


def test_svg_to_png_renders_the_board_at_twice_its_size(world):
    svg = (world.gd.public_dir / "board.svg").read_text()
    width, height = svg_size(svg)
    assert _png_size(svg_to_png(svg)) == (2 * width, 2 * height)
    with pytest.raises(PbemError, match="cannot render"):
        svg_to_png("<svg")


def test_email_html_swaps_the_inline_svg_for_a_cid_image(world):
    page = (world.gd.public_dir / "digest.html").read_text()
    assert "<svg" in page
    out = email_html(page, "board.1@pbem.test", (320, 168), 'Board "1" & more')
    assert "<svg" not in out and "</svg>" not in out
    assert '<img src="cid:board.1@pbem.test" width="320" height="168" alt="Board &quot;1&quot; &amp; more"' in out
    assert out.count("<img") == 1 and "What happened" in out


def _parts(msg):
    return [(p.get_content_type(), p.get_filename(), p) for p in msg.walk()]


def test_send_gives_each_player_one_message_with_only_their_secrets(world):
    cli(world, "send")
    assert len(world.router.log) == len(PLAYERS)
    digest_txt = (world.gd.public_dir / "digest.txt").read_text()
    board_svg = (world.gd.public_dir / "board.svg").read_text()
    game_id = world.gd.entries()[0]["id"]
    for player in PLAYERS:
        [received] = world.mail_to(player)
        assert received.rcpt_tos == [address(player)]           # the envelope: this player only
        others = [address(p) for p in PLAYERS if p != player]
        assert not any(o.encode() in received.raw for o in others)
        msg = received.msg
        assert msg["To"].addresses[0].addr_spec == address(player) and msg["Cc"] is None
        assert msg["Subject"] == f"[{world.gd.entries()[0]['id']}] Toy high card"   # one subject: one thread
        first = "Your move (log entry 0)" if player == "red" else "Log entry 0; waiting for red."
        assert msg.get_content_type() == "multipart/mixed"
        kinds = [(t, f) for t, f, _p in _parts(msg)]
        assert kinds == [("multipart/mixed", None), ("multipart/alternative", None), ("text/plain", None),
                         ("multipart/related", None), ("text/html", None),
                         ("image/png", "board-entry0.png"),
                         ("application/octet-stream", f"{player}-entry0.age"),
                         ("application/octet-stream", f"{player}-entry0.html.gz.age"),
                         ("application/gzip", f"{game_id}-update-0-0.tar.gz")]
        parts = {t: p for t, _f, p in _parts(msg)}
        # the public update: the whole public copy in the first digest (entry 0), byte for byte
        update = read_update(f"{game_id}-update-0-0.tar.gz", parts["application/gzip"].get_content())
        assert (update.start, update.end) == (0, 0) and update.log_text == world.gd.read_log_text()
        assert update.files == {"public/view.json": (world.gd.public_dir / "view.json").read_bytes()}
        # the player with the decision learns from the message how to open their page (docs/playing.md)
        hint = ("Click your turn on your own page, the attached red-entry0.html.gz.age: open it with\n"
                "    age -d -i ~/.ssh/id_ed25519 red-entry0.html.gz.age | gunzip > red.html\n"
                "and open red.html in your browser; it saves the move file and says how to sign and send it.\n\n")
        assert parts["text/plain"].get_content().replace("\r\n", "\n") == first + (
            ": the move template is below." if player == "red" else "") + "\n\n" + (
            hint if player == "red" else "") + digest_txt
        html = parts["text/html"].get_content()
        command = "<pre>age -d -i ~/.ssh/id_ed25519 red-entry0.html.gz.age | gunzip &gt; red.html</pre>"
        assert (command in html) == (player == "red") and ("Your move (log entry 0)" in html) == (player == "red")
        assert "<svg" not in html
        cids = re.findall(r'src="cid:([^"]+)"', html)
        png = parts["image/png"]
        assert cids == [png["Content-ID"].strip("<>")]
        assert png.get_content_disposition() == "inline"
        assert png.get_content().startswith(PNG_MAGIC)
        assert len(received.raw) < 100_000
        ages = {f: p for _t, f, p in _parts(msg) if f and f.endswith(".age")}
        age, page = ages[f"{player}-entry0.age"], ages[f"{player}-entry0.html.gz.age"]
        assert age.get_content_disposition() == "attachment"
        secret = agecrypt.decrypt(age.get_content(), world.keys[player]).decode()
        assert f"For:     {player}" in secret and "Your secrets" in secret
        html_secret = gzip.decompress(agecrypt.decrypt(page.get_content(), world.keys[player])).decode()
        board = shorter_numbers(board_svg) if 'id="pbem-click"' in html_secret else board_svg   # a page with a panel
        assert html_secret.startswith("<!DOCTYPE html>") and board.splitlines()[0] in html_secret
        assert "Your secrets" in html_secret
        for other in (p for p in PLAYERS if p != player):
            for part in (age, page):
                with pytest.raises(agecrypt.AgeError):
                    agecrypt.decrypt(part.get_content(), world.keys[other])


@pytest.mark.filterwarnings(QUIET_TLS)
def test_send_over_implicit_tls(tmp_path, key_pool, toy_registered, dovecot):
    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="tls")
    try:
        report = send_digests(w.gd, w.config(), players=["blue"])
        assert report.sent == 1 and [r.rcpt_tos for r in w.router.log] == [[address("blue")]]
        assert w.config().smtp.port == w.smtp.port and w.config().smtp.security == "tls"
    finally:
        w.smtp.stop()


def test_wrong_password_and_untrusted_certificate_are_one_line_errors(world):
    env = dict(world.env(), PBEM_SMTP_PASSWORD="wrong")
    result = CliRunner().invoke(pbem_main, ["mail", "send", str(world.gd.root)], env=env)
    assert result.exit_code != 0
    assert result.output.startswith("pbem: error: cannot log in to SMTP server 127.0.0.1")
    assert "535" in result.output and result.output.count("\n") == 1
    path = world.gd.moderator_dir / "mail.toml"
    path.write_text("\n".join(line for line in path.read_text().splitlines() if not line.startswith("cafile")))
    result = cli(world, "send", ok=False)
    assert result.exit_code != 0 and result.output.count("\n") == 1
    assert "certificate not trusted" in result.output and "cafile" in result.output
    assert world.router.log == []


def test_settings_errors_are_one_line(world):
    path = world.gd.moderator_dir / "mail.toml"
    good = path.read_text()
    result = CliRunner().invoke(pbem_main, ["mail", "send", str(world.gd.root)], env={"PBEM_SMTP_PASSWORD": ""})
    assert result.output == "pbem: error: no SMTP password: set PBEM_SMTP_PASSWORD (for gm at 127.0.0.1)\n"
    path.write_text(good.replace('security = "starttls"', 'security = "none"').replace("127.0.0.1", "smtp.example.org", 1))
    assert "only allowed for a server on this machine" in cli(world, "send", ok=False).output
    path.write_text(good.replace("[players]\n", "[players]\nmallory = \"m@pbem.test\"\n"))
    assert "mallory who are not in this game" in cli(world, "send", ok=False).output
    path.write_text(good.replace('green = "Green Player <green@pbem.test>"\n', ""))
    assert "no address for player(s) green" in cli(world, "send", ok=False).output
    path.write_text(good.replace("host =", "hots =", 1))
    assert "unknown setting(s) smtp.hots" in cli(world, "send", ok=False).output
    path.write_text(good + 'password = "in-the-file"\n')
    path.chmod(0o644)
    out = cli(world, "send", ok=False).output
    assert "others can read it" in out and "chmod 600" in out
    path.unlink()
    assert "no mail settings: write" in cli(world, "send", ok=False).output
    assert world.router.log == []


def test_run_mails_a_player_when_they_have_a_decision_in_one_thread(tmp_path, key_pool, toy_registered, dovecot):
    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="none", inbox="maildir")
    try:
        first = run_cycle(w.gd, w.config())
        assert first.sent == 3 and "no new messages" in first.lines          # everyone: the game has begun
        assert run_cycle(w.gd, w.config()).sent == 0
        submit(w.gd, *move_files(w.gd, "red", w.keys["red"]))
        third = run_cycle(w.gd, w.config())
        assert third.sent == 1 and [len(w.mail_to(p)) for p in PLAYERS] == [1, 2, 1]   # only blue decides now
        welcome, turn = (r.msg for r in w.mail_to("blue"))
        assert turn["X-PBEM-Status"] == "your-move" and turn["X-PBEM-Entry"] == "1"
        assert turn["Subject"] == welcome["Subject"]                          # one subject...
        assert turn["In-Reply-To"].strip() == welcome["Message-ID"].strip() == turn["References"].strip()
        submit(w.gd, *move_files(w.gd, "blue", w.keys["blue"]))
        run_cycle(w.gd, w.config())
        first_to_green, later = (r.msg for r in w.mail_to("green"))
        assert later["X-PBEM-Status"] == "your-move"
        assert later["References"].split() == [first_to_green["Message-ID"].strip()]
    finally:
        w.smtp.stop()


def test_cadence_entry_mails_everyone_every_entry(tmp_path, key_pool, toy_registered, dovecot):
    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="none", inbox="maildir")
    try:
        path = w.gd.moderator_dir / "mail.toml"
        path.write_text('cadence = "entry"\n' + path.read_text())
        assert run_cycle(w.gd, w.config()).sent == 3
        submit(w.gd, *move_files(w.gd, "red", w.keys["red"]))
        assert run_cycle(w.gd, w.config()).sent == 3
    finally:
        w.smtp.stop()


@pytest.mark.parametrize("command", ["send", "fetch", "run"])
def test_every_mail_command_has_help_with_an_example(command):
    result = CliRunner().invoke(pbem_main, ["mail", command, "--help"])
    assert result.exit_code == 0 and "Example:" in result.output


_SIX = ["red", "blue", "green", "yellow", "orange", "purple"]


def _six_colours_board() -> str:
    """A board of many textured cells and text, six players' colours on one tiny piece each."""
    from pbem.game import BoardPicture, HexCell, Piece
    from pbem.views.render.hexmap_svg import render_svg

    kinds = {f"k{i}": f"#{40 + 15 * i:02x}{200 - 9 * i:02x}{90 + 11 * i:02x}" for i in range(14)}
    textures = ["dots", "trees", "peaks", "stars", "grid", "waves"]
    cells = [HexCell(q, r, f"{chr(65 + r)}{q}", f"k{(q + 2 * r) % 14}") for r in range(10) for q in range(10)]
    for i, colour in enumerate(_SIX):
        cells[i * 13 + 5].pieces = [Piece(f"x{i}", "explorer", colour, f"x{i}")]
    board = BoardPicture(cells, colours=kinds, textures={k: textures[i % 6] for i, k in enumerate(kinds)})
    return render_svg(board, "six colours")


def test_the_mail_png_keeps_every_colour_the_board_names_even_on_a_few_small_pieces():
    """Six players' colours on one tiny piece each, over a board of many textured cells and
    text: each colour is in the PNG exactly as the SVG names it (none mapped to a grey)."""
    import io

    from PIL import Image

    from pbem.core.palette import PLAYER_COLOURS
    from pbem.views.render.png import mail_png

    image = Image.open(io.BytesIO(mail_png(_six_colours_board()))).convert("RGB")
    present = {rgb for _n, rgb in image.getcolors(maxcolors=image.width * image.height)}
    for colour in _SIX:
        hex_ = PLAYER_COLOURS[colour]
        assert (int(hex_[1:3], 16), int(hex_[3:5], 16), int(hex_[5:7], 16)) in present, colour


def _png_chunks(png: bytes) -> dict[bytes, bytes]:
    chunks, at = {}, len(PNG_MAGIC)
    while at < len(png):
        size, kind = struct.unpack(">I4s", png[at:at + 8])
        chunks[kind] = chunks.get(kind, b"") + png[at + 8:at + 8 + size]
        at += 12 + size
    return chunks


@pytest.mark.parametrize("mover", [False, True])
def test_the_mail_png_has_a_palette_of_its_colours_only_and_every_pixel_drawn_as_rendered(mover):
    """The PNG's palette holds the 32 colours (not PIL's 256 entries: 672 bytes more a picture),
    the same picture every time, and every pixel whose rendered colour is one of those 32 shows
    exactly that colour (the zlib level changes bytes, never pixels)."""
    import io

    from PIL import Image

    from pbem.views.render.png import (
        MAIL_COLOURS,
        MAIL_ZOOM,
        MOVER_ZOOM,
        PATTERN_REACH,
        glance_svg,
        mail_png,
        mover_png,
        pattern_zoom,
    )

    svg = _six_colours_board()
    png = mover_png(svg) if mover else mail_png(svg)
    assert png == (mover_png(svg) if mover else mail_png(svg))
    chunks = _png_chunks(png)
    width, height, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    zoom = MOVER_ZOOM if mover else MAIL_ZOOM
    # the same size (a textured board's within the pixels pattern_zoom may move it)
    assert all(abs(got - n * zoom) <= PATTERN_REACH + 0.5 for got, n in zip((width, height), svg_size(svg)))
    assert colour_type == 3 and depth == 8 and len(chunks[b"PLTE"]) == 3 * MAIL_COLOURS
    palette = {tuple(chunks[b"PLTE"][i:i + 3]) for i in range(0, len(chunks[b"PLTE"]), 3)}
    shown = Image.open(io.BytesIO(png)).convert("RGB")
    drawn = glance_svg(svg) if mover else svg
    rendered = Image.open(io.BytesIO(svg_to_png(drawn, pattern_zoom(drawn, zoom), crisp=True))).convert("RGB")
    assert shown.size == rendered.size
    pixels = zip(zip(*[iter(shown.tobytes())] * 3), zip(*[iter(rendered.tobytes())] * 3))    # (r, g, b) tuples
    exact = [(s, r) for s, r in pixels if r in palette]
    assert len(exact) > 0.9 * width * height       # crisp shapes: most pixels are the SVG's own colours
    assert all(s == r for s, r in exact)


def test_a_textured_board_is_drawn_at_a_zoom_where_its_texture_tiles_are_copied_not_resampled():
    """At MAIL_ZOOM (0.85) on the Atlantis board's size, resvg's two single-precision scale factors
    multiply to 1 - 2^-24 and every textured pixel is resampled bicubically (blends of the dot and
    sand colours, and 45% of the picture's time); pattern_zoom picks the zoom a pixel or two away
    at which the tile is copied as drawn: the textured area shows only the tile's own colours."""
    import io

    from PIL import Image

    from pbem.views.render.png import MAIL_ZOOM, MOVER_ZOOM, PATTERN_REACH, pattern_zoom
    from pbem.views.render.textures import pattern_svg

    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="863.38" height="986.00"><defs>' + pattern_svg("dots")
           + '<rect id="r" width="300" height="300"/></defs><use href="#r" x="50.64" y="44" fill="#e8d49a"/>'
           '<use href="#r" x="50.64" y="44" fill="url(#pbem-t-dots)"/></svg>')

    def colours(zoom):
        image = Image.open(io.BytesIO(svg_to_png(svg, zoom, crisp=True))).convert("RGB")
        return {rgb for _n, rgb in image.crop((60, 60, 260, 260)).getcolors(10 ** 6)}

    zoom = pattern_zoom(svg, MAIL_ZOOM)
    assert zoom != MAIL_ZOOM and abs(zoom - MAIL_ZOOM) * 986 <= PATTERN_REACH + 0.5
    assert len(colours(zoom)) == 2 < len(colours(MAIL_ZOOM))       # sand and the dots' colour, no blends
    assert pattern_zoom(svg, MOVER_ZOOM) == MOVER_ZOOM                # 0.5 is such a zoom already
    untextured = svg.replace(pattern_svg("dots"), "")
    assert pattern_zoom(untextured, MAIL_ZOOM) == MAIL_ZOOM           # a board without textures: as asked


def test_the_movers_glance_leaves_out_the_cell_labels_only():
    """The mover's picture (half size) is drawn without the hex map's cell labels, 5 pixels high
    there; every other text (title, key, piece codes) stays, and the full picture keeps them all."""
    from pbem.views.render.png import glance_svg

    svg = _six_colours_board()
    labels = svg.count('class="pbem-label"')
    glance = glance_svg(svg)
    assert labels == 100 and 'class="pbem-label"' not in glance     # one a cell
    assert glance.count("<text") == svg.count("<text") - labels > 0
    kept = svg
    for text in re.findall(r'<text[^>]*class="pbem-label"[^>]*>[^<]*</text>', svg):
        kept = kept.replace(text, "", 1)
    assert glance == kept


def test_a_player_on_a_daily_cadence_gets_one_digest_a_day_with_everything_since(tmp_path, key_pool,
                                                                                 toy_registered, dovecot):
    from pbem.pipeline.moderator import moderate
    from pbem.transport.mail.compose import Turn
    from pbem.transport.mail.cycle import DAY, due
    from pbem.transport.mail.ledger import SentState
    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="none", inbox="maildir")
    try:
        path = w.gd.moderator_dir / "mail.toml"
        path.write_text('cadence = "entry"\n' + path.read_text())       # everyone else: every entry
        entry = moderate(w.gd, "cadence", "asked for one mail a day", player="green", cadence="daily")
        assert (entry["action"], entry["player"], entry["cadence"]) == ("cadence", "green", "daily")
        assert run_cycle(w.gd, w.config()).sent == 3                     # the first digest: everyone
        submit(w.gd, *move_files(w.gd, "red", w.keys["red"]))
        assert run_cycle(w.gd, w.config()).sent == 2                     # not green: mailed less than a day ago
        assert len(w.mail_to("green")) == 1
        state, turn, entries = SentState.load(w.gd), Turn.read(w.gd), w.gd.entries()
        everyone = ["red", "blue", "green"]
        assert due(w.config(), turn, state, everyone, entries) == []
        tomorrow = state.last_at("green") + DAY + 1
        assert due(w.config(), turn, state, everyone, entries, now=tomorrow) == ["green"]   # a day later: all since
        moderate(w.gd, "cadence", "back to normal", player="green", cadence="game")
        assert run_cycle(w.gd, w.config()).sent == 3                     # every entry again (the note too)
    finally:
        w.smtp.stop()


def test_a_digests_board_pictures_are_drawn_only_for_the_messages_that_show_them(tmp_path, key_pool):
    """The mover's message has the small picture; the full-size one is drawn when a message without
    a decision first asks for it (most cycles mail only the mover), and then the same each time."""
    from pipeline_helpers import new_game

    from pbem.transport.mail.compose import DigestParts, compose_digest
    from pbem.views.render.png import mail_png, mover_png

    gd = new_game(tmp_path / "game", "atlantis", key_pool, ["red", "blue", "green"])
    parts = DigestParts.read(gd)
    assert "png" not in vars(parts) and "mover_png" not in vars(parts)
    mover, other = parts.turn.pending[0], next(p for p in ["red", "blue", "green"] if p not in parts.turn.pending)

    def picture(player):
        msg = compose_digest(parts, b"secret", player, f"{player}@example.org", "mod@example.org", "", "example.org")
        [png] = [p.get_content() for p in msg.walk() if p.get_content_type() == "image/png"]
        return png

    assert picture(mover) == mover_png(parts.svg) and "png" not in vars(parts)
    assert picture(other) == mail_png(parts.svg) == parts.png != parts.mover_png
    given = DigestParts(parts.turn, parts.text, parts.html, parts.svg, b"")     # a caller's "no picture"
    assert given.png == b"" and given.mover_png == b""


def test_a_board_read_again_in_a_later_cycle_is_not_drawn_again(tmp_path, key_pool):
    """A cycle reads the digest's parts anew; a board drawn for a message before (the same SVG: the
    players of simultaneous orders mailed one after another, a late player's digest) comes from the
    process's few kept pictures, byte for byte what drawing it again gives."""
    from pipeline_helpers import new_game

    from pbem.transport.mail.compose import DigestParts, board_picture
    from pbem.views.render.png import mail_png, mover_png

    gd = new_game(tmp_path / "game", "atlantis", key_pool, ["red", "blue", "green"])
    board_picture.cache_clear()
    first = DigestParts.read(gd)
    drawn = (first.mover_png, first.png)
    assert board_picture.cache_info().misses == 2 and board_picture.cache_info().hits == 0
    again = DigestParts.read(gd)                  # the next cycle's parts: the same board
    assert (again.mover_png, again.png) == drawn == (mover_png(again.svg), mail_png(again.svg))
    assert board_picture.cache_info().misses == 2 and board_picture.cache_info().hits == 2
    changed = DigestParts(first.turn, first.text, first.html, first.svg.replace("</svg>", "<g/></svg>"))
    assert changed.mover_png == mover_png(changed.svg)       # another board: drawn
    assert board_picture.cache_info().misses == 3


def test_a_mail_png_of_few_colours_packs_its_pixels_into_fewer_bits():
    """Three colours: a 2-bit PNG with a palette of 4 entries, each area exactly its colour."""
    import io

    from PIL import Image

    from pbem.views.render.png import mail_png

    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="20" height="30" '
           'fill="#ff0000"/><rect x="20" width="10" height="30" fill="#00ff00"/></svg>')
    png = mail_png(svg)
    chunks = _png_chunks(png)
    depth, colour_type = struct.unpack(">BB", chunks[b"IHDR"][8:10])
    assert (depth, colour_type) == (2, 3) and len(chunks[b"PLTE"]) == 3 * 4
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.getpixel((5, 5)) == (255, 0, 0) and image.getpixel((20, 5)) == (0, 255, 0)
    assert image.getpixel((30, 5)) == (255, 255, 255)
    assert {rgb for _n, rgb in image.getcolors()} == {(255, 0, 0), (0, 255, 0), (255, 255, 255)}


@pytest.mark.filterwarnings(QUIET_TLS)    # the test server takes a login without TLS (127.0.0.1)
def test_a_session_the_server_closed_while_idle_is_opened_again_and_the_message_sent():
    """A moderator's cycle keeps one SMTP session for its receipts and digests; a server that closes
    a session idle past its timeout (421, then the hang-up) costs one new login, not a lost digest."""
    router = Router({})
    smtp = start_smtp(router, users={"gm": "pw"}, idle_timeout=0.3)
    try:
        server = Server(host="127.0.0.1", port=smtp.port, security="none", username="gm", password="pw")

        def message(n: int) -> EmailMessage:
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = "gm@example.org", "red@example.org", f"digest {n}"
            msg.set_content(f"body {n}\n")
            return msg

        with SmtpSender(server) as sender:
            sender.send(message(1), "red@example.org")
            sock = sender._conn.sock
            # the server's 421 and hang-up arrive once the session has been idle 0.3 s
            wait_for(lambda: bool(select.select([sock], [], [], 0)[0]), timeout=10)
            sender.send(message(2), "red@example.org")
            sender.send(message(3), "red@example.org")          # on the new session, no third login
        assert [r.msg["Subject"] for r in router.inbox("red@example.org")] == ["digest 1", "digest 2", "digest 3"]
        assert smtp.logins == ["gm", "gm"]
    finally:
        smtp.stop()


@pytest.mark.filterwarnings(QUIET_TLS)    # the test server takes a login without TLS (127.0.0.1)
def test_a_refusal_that_is_not_a_closed_session_is_one_error_and_no_new_login():
    """Only a closed session is opened again: a message the server refuses (here a recipient it does
    not take) stays one error line, sent once."""
    router = Router({}, refused=frozenset({"gone@example.org"}))
    smtp = start_smtp(router, users={"gm": "pw"})
    try:
        server = Server(host="127.0.0.1", port=smtp.port, security="none", username="gm", password="pw")
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = "gm@example.org", "gone@example.org", "digest"
        msg.set_content("body\n")
        with SmtpSender(server) as sender, pytest.raises(PbemError) as caught:
            sender.send(msg, "gone@example.org")
        assert str(caught.value).startswith("SMTP server 127.0.0.1 did not take the message to gone@example.org: "
                                            "recipient refused") and "\n" not in str(caught.value)
        assert smtp.logins == ["gm"] and router.log == []
    finally:
        smtp.stop()


def test_a_tls_context_is_made_once_per_ca_file_as_it_is_on_disk(tmp_path):
    """tls_context (pbem.transport.mail.smtp) keeps the verifying context it made for a CA file
    (loading a CA store costs tens of ms) until the file changes; a missing one is refused as the
    ssl module refuses it."""
    import ssl

    from mailservers import make_cert

    from pbem.transport.mail.config import Server
    from pbem.transport.mail.smtp import tls_context
    certs = [make_cert(tmp_path / str(n)).cert.read_text() for n in range(3)]
    cafile = tmp_path / "ca.pem"
    cafile.write_text("".join(certs))
    server = Server("mail.example.org", 587, "starttls", cafile=cafile)
    first = tls_context(server)
    assert tls_context(server) is first
    assert first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
    assert len(first.get_ca_certs()) == 3
    cafile.write_text("".join(certs[:2]))             # the settings' CA file replaced: a new context
    second = tls_context(server)
    assert second is not first and len(second.get_ca_certs()) == 2
    assert tls_context(server) is second
    assert tls_context(Server("mail.example.org", 587, "starttls")) is tls_context(Server("other", 465, "tls"))
    missing = Server("mail.example.org", 587, "starttls", cafile=tmp_path / "nowhere.pem")
    with pytest.raises(FileNotFoundError) as ours:
        tls_context(missing)
    with pytest.raises(FileNotFoundError) as theirs:
        ssl.create_default_context(cafile=str(tmp_path / "nowhere.pem"))
    assert str(ours.value) == str(theirs.value)
