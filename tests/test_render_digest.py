"""Text and HTML digests: sections, escaping, per-player parts, determinism."""
from __future__ import annotations

import dataclasses
from html.parser import HTMLParser

import pytest

from pbem.base.errors import PbemError
from pbem.game import BoardPicture, HexCell, Section
from pbem.views.render.digest import SIGN_COMMAND, DigestContext, render_digest
from pbem.views.render.hexmap_svg import render_svg
from pbem.views.render.hexmap_text import render_text

BOARD = BoardPicture([HexCell(0, 0, "D4", "isle", ["S1"]), HexCell(1, 0, "E4", "sea", ["B3:r7,b2", "S1"]),
                      HexCell(0, 1, "D5", "beach", [])], legend={"S": "serpent"})
MOVE = "game: atl-1\nturn: 7\nplayer: alice\nactions:\n  - {move: r7, to: F6}\n"
SECRETS = "tiles:\n  F6: whale  # hidden\n"
SECTIONS = ["What happened", "Waiting for", "Your move"]


def make(**changes) -> DigestContext:
    ctx = DigestContext(
        game_title="Atlantis", game_id="atl-1", game_name="atlantis",
        options={"variant": "classic", "dolphins": "off"}, players=["alice", "bob"], viewer="alice",
        turn_line="Turn 7: alice to move", summary=["Tiles left: 23"],
        pending=["alice: move up to 3 steps", "bob: choose a defense"],
        events=["bob moved r7 to F6", "the <script>alert('x')</script> & co"],
        board_text=render_text(BOARD), board_svg=render_svg(BOARD, "Turn 7"),
        move_template=MOVE, secrets_yaml=SECRETS, result=[], footer=["pbem 0.1.0"])
    return dataclasses.replace(ctx, **changes)


class Checker(HTMLParser):
    """Records tags and text; checks that non-void elements nest properly."""

    VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.errors: list[str] = []
        self.decl = ""

    def handle_decl(self, decl):
        self.decl = decl

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> Checker:
    checker = Checker()
    checker.feed(html)
    checker.close()
    assert not checker.errors, checker.errors
    assert not checker.stack, checker.stack
    return checker


def test_text_sections_in_order():
    text = render_digest(make(), "text")
    assert text.startswith("Atlantis\n========\n")
    for needle in ["atl-1", "atlantis", "dolphins=off, variant=classic", "alice, bob", "Turn 7: alice to move",
                   "Tiles left: 23"]:
        assert needle in text
    positions = [text.index(s) for s in ["Board\n-----", "What happened\n---", "Waiting for\n---",
                                         "Your secrets", "Your move\n---"]]
    assert positions == sorted(positions)
    assert render_text(BOARD).rstrip("\n") in text
    assert "* bob moved r7 to F6\n" in text
    assert "* bob: choose a defense\n" in text
    assert "the <script>alert('x')</script> & co" in text      # plain text is not escaped
    assert "Result" not in text
    assert text.endswith("pbem 0.1.0\n")


def test_text_move_fence_and_signing():
    text = render_digest(make(), "text")
    fenced = text.split("----- BEGIN move.yaml -----\n", 1)[1].split("----- END move.yaml -----\n", 1)[0]
    assert fenced == MOVE
    assert SIGN_COMMAND == "ssh-keygen -Y sign -n pbem-move -f ~/.ssh/id_ed25519 move.yaml"
    assert SIGN_COMMAND in text
    assert "move.yaml and move.yaml.sig to the moderator" in text


def test_text_secrets_only_when_given():
    text = render_digest(make(), "text")
    assert "Your secrets (for alice only" in text
    assert text.split("----- BEGIN secrets -----\n", 1)[1].split("----- END secrets -----", 1)[0] == SECRETS
    public = render_digest(make(secrets_yaml=None, viewer=None), "text")
    assert "secret" not in public.lower() and "whale" not in public


def test_text_game_over():
    text = render_digest(make(result=["alice wins with 9", "bob 4"], pending=[], move_template=""), "text")
    assert "Result\n------\nalice wins with 9\nbob 4\n" in text
    assert "Your move" not in text
    assert "Nobody: the game is over." in text


def test_text_empty_lists_and_tidy():
    text = render_digest(make(events=[], pending=[], move_template="", options={}, footer=[], summary=[]), "text")
    assert "Nothing new since your last turn." in text
    assert "Waiting for\n-----------\nNobody.\n" in text
    assert "Nothing to send now" in text
    assert "Options:" not in text and "BEGIN move.yaml" not in text
    for t in (text, render_digest(make(), "text")):
        assert all(line == line.rstrip() for line in t.split("\n"))
        assert "\n\n\n" not in t
        assert t.endswith("\n") and not t.endswith("\n\n")


def test_html_is_standalone_and_parses():
    html = render_digest(make(), "html")
    assert html.startswith("<!DOCTYPE html>\n")
    checker = parse(html)
    assert checker.decl.lower() == "doctype html"
    assert checker.tags[:3] == ["html", "head", "meta"]
    assert {"style", "title", "body", "svg", "polygon"} <= set(checker.tags)
    assert "script" not in checker.tags and "link" not in checker.tags and "img" not in checker.tags
    assert all(name not in ("src", "href") and not name.startswith("on") for name, _ in checker.attrs)
    assert html.count("<svg") == 1 and render_svg(BOARD, "Turn 7").rstrip("\n") in html   # inline, unescaped
    text = "".join(checker.text)
    for needle in ["What happened", "Waiting for", "Your secrets", "Your move", SIGN_COMMAND, "move.yaml.sig",
                   "dolphins=off, variant=classic", "Turn 7: alice to move"]:
        assert needle in text
    assert MOVE.rstrip("\n") in text and SECRETS.rstrip("\n") in text


def test_html_escapes_event_text():
    html = render_digest(make(), "html")
    assert "<script" not in html.lower()
    assert "the &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co" in html
    checker = parse(html)
    assert "the <script>alert('x')</script> & co" in "".join(checker.text)
    evil = render_digest(make(game_title="</title><b>x", players=["<i>eve</i>"], move_template="a: <b>"), "html")
    assert "<b>" not in evil and "<i>" not in evil
    parse(evil)


def test_html_secrets_only_when_given():
    public = render_digest(make(secrets_yaml=None, viewer=None), "html")
    assert "Your secrets" not in public and "whale" not in public and 'class="secret"' not in public
    parse(public)
    private = render_digest(make(), "html")
    assert "Your secrets (for alice only" in private and 'class="secret"' in private


def test_html_empty_secrets_say_so_in_words():
    """A player with nothing secret (the 1986 edition hides no values, deals no tiles) reads words,
    not a bare ``{}``; the text secrets keep their YAML block as it is."""
    for empty in ("{}\n", "{}", ""):
        html = render_digest(make(secrets_yaml=empty), "html")
        section = html[html.index('<section class="secret">'):]
        section = section[:section.index("</section>")]
        assert "You hold no secrets now." in section and "{}" not in section and "<pre>" not in section
        parse(html)
    assert "<pre>" in render_digest(make(), "html").split('<section class="secret">')[1].split("</section>")[0]
    assert "{}" in render_digest(make(secrets_yaml="{}\n"), "text")


def test_html_game_over():
    html = render_digest(make(result=["alice wins"], pending=[]), "html")
    checker = parse(html)
    text = "".join(checker.text)
    assert "Result" in text and "alice wins" in text and "Your move" not in text


def test_deterministic():
    for fmt in ("text", "html"):
        first = render_digest(make(), fmt)
        assert render_digest(make(), fmt) == first
        # option order does not matter
        assert render_digest(make(options={"dolphins": "off", "variant": "classic"}), fmt) == first


def test_unknown_format():
    with pytest.raises(PbemError, match="unknown digest format 'pdf'"):
        render_digest(make(), "pdf")


PARTS = [
    Section("Races", "table", ["race", "fleets"], [["red", "12"], ["blue <b>", "3"]], colours=["#d32f2f", ""],
            note="a note"),
    Section("Discard pile", "cards", rows=[["C7", "Attack +2"], ["C9", ""]]),
    Section("Turn order", "track", rows=[["red", ""], ["blue", "(out)"]], current=1),
]


def test_game_sections_render_in_text_after_the_board():
    text = render_digest(make(sections=PARTS), "text")
    races = text.index("Races\n-----\n")
    assert text.index("Board\n-----") < races < text.index("What happened")
    assert "race      fleets\n--------  ------\nred       12\nblue <b>  3\na note\n" in text
    assert "Discard pile\n------------\n[C7 Attack +2] [C9]\n" in text
    assert "Turn order\n----------\n1. red\n2. blue (out)  <- now\n" in text
    assert all(line == line.rstrip() for line in text.splitlines())


def test_game_sections_render_in_html_escaped():
    html = render_digest(make(sections=PARTS), "html")
    parse(html)
    assert "<h2>Races</h2>" in html and "<th" in html and "blue &lt;b&gt;" in html
    assert "background: #d32f2f;" in html and "<b>C7</b> Attack +2" in html
    assert '<li style="font-weight: bold;">blue (out) &#8592; now</li>' in html


def test_no_sections_no_change():
    for fmt in ("text", "html"):
        assert render_digest(make(), fmt) == render_digest(make(sections=[]), fmt)
        assert "<section class=\"part\">" not in render_digest(make(), fmt)


# --- wrap: a line that fits is taken as it is (no textwrap), with textwrap's own result ----------------------

def _textwrap_fill(text: str, first: str, rest: str, width: int) -> str:
    import textwrap
    return textwrap.fill(text, width=width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or first.rstrip()


@pytest.mark.parametrize("text", [
    "bob moved r7 to F6", "", " ", "a", "  leading", "trailing  ", "two  spaces inside", "tab\there", "line\nbreak",
    "x" * 76, "x" * 77, "x" * 78, "y " * 39, "word " * 20 + "end", "non\u00a0breaking\u00a0space", "\u00a0edge\u00a0",
    "carriage\rreturn", "form\x0cfeed", "é" * 80, "a-hyphenated-word " * 5, "seed commitment: " + "f" * 64])
@pytest.mark.parametrize("first,rest", [("", ""), ("", "  "), ("* ", "    "), ("- ", "  ")])
def test_wrap_is_textwraps_fill(text, first, rest):
    from pbem.views.render.digest import TEXT_WIDTH, wrap
    for width in (TEXT_WIDTH, 20, 3):
        assert wrap(text, first, rest, width) == _textwrap_fill(text, first, rest, width), (text, first, width)


def test_wrap_is_textwraps_fill_on_random_text():
    """Random words, spaces and the characters textwrap treats as spaces, at every width."""
    import random
    from pbem.views.render.digest import wrap
    rng = random.Random(20261126)
    alphabet = ["a", "bc", "def", " ", "  ", "\t", "\n", "-", "é", "\u00a0", "x" * 30]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        first, rest = rng.choice([("", ""), ("* ", "    "), ("", "  ")])
        width = rng.choice([10, 40, 78])
        assert wrap(text, first, rest, width) == _textwrap_fill(text, first, rest, width), (text, first, width)


def test_section_html_is_the_macro_made_once():
    """A section's HTML (section_html, made once for every page that shows it) is parts.html.j2's
    part() of that section, for every kind and field; a section with a cell that is no plain str
    (which a key could not tell from an equal str, int or bool) is made by the macro each time."""
    from pbem.base.data import templates_dir
    from pbem.views.render.digest import _part, _section_html, _section_key, section_html
    folder = str(templates_dir())
    part = _part(folder)
    sections = [Section("Players", columns=["who", "<b>"], rows=[["alice", "1 & 2"], ["bob"]], colours=["#ff0000"]),
                Section("Players", columns=["who", "<b>"], rows=[["alice", "1 & 2"], ["bob"]], colours=["#00ff00"]),
                Section("Hand", kind="cards", rows=[["whale", ""], ["boat", "x"]], note="n"),
                Section("Hand", kind="cards", rows=[]),
                Section("Turn", kind="track", rows=[["alice"], ["bob", "next"]], current=1, colours=["red"]),
                Section("Turn", kind="track", rows=[["alice"], ["bob", "next"]], current=0, colours=["red"]),
                Section("Turn", kind="track", rows=[["alice"], ["bob", "next"]], current=None)]
    odd = [Section("Scores", rows=[["alice", 1]]), Section("Scores", rows=[["alice", True]]),
           Section("Turn", kind="track", rows=[["a"], ["b"]], current=True)]
    _section_html.cache_clear()
    for heading in ("h2", "h3"):
        for section in sections + odd:
            for _ in range(2):
                assert section_html(section, heading, folder=folder) == part(section, heading)
    assert all(_section_key(s) is None for s in odd)
    assert len({_section_key(s) for s in sections}) == len(sections)
    assert _section_html.cache_info().currsize == 2 * len(sections)
