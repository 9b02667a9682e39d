"""Turn digests (text and HTML) from Jinja2 templates in ``templates/``.

``render_digest(ctx, "text")`` uses ``templates/digest.txt.j2`` (autoescape
off); ``render_digest(ctx, "html")`` uses ``templates/digest.html.j2``
(autoescape on, ``board_svg`` embedded inline as trusted markup).  Both are
deterministic: the output depends only on the context (options are listed
sorted by name).
"""
from __future__ import annotations

import os
import re
import stat
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from pbem.base.data import templates_dir
from pbem.base.errors import PbemError
from pbem.core.picture import Section
from pbem.views.render.scriptdata import script_code, script_json
from pbem.views.render.sections_text import section_text

if TYPE_CHECKING:     # made only for a player's own page (pbem.views.outputs imports it there)
    from pbem.views.clickpage import ClickPage

__all__ = ["DigestContext", "render_digest", "render_secrets", "SIGN_COMMAND", "FORMATS"]

SIGN_COMMAND = "ssh-keygen -Y sign -n pbem-move -f ~/.ssh/id_ed25519 move.yaml"
TEXT_WIDTH = 78   # the text digest wraps its prose here (mail clients and terminals); the board is as drawn
FORMATS = {"text": "digest.txt.j2", "html": "digest.html.j2"}


@dataclass
class DigestContext:
    """Everything a digest shows; built by the engine, rendered here."""

    game_title: str
    game_id: str
    game_name: str
    options: dict[str, str] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)
    viewer: str | None = None          # None: the public digest
    turn_line: str = ""
    summary: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)   # one line per pending decision
    pending_words: list[str] = field(default_factory=list)   # the same in words (the HTML digest's)
    events: list[str] = field(default_factory=list)    # since the reader's last turn, one line each
    board_text: str = ""               # from hexmap_text.render_text
    board_svg: str = ""                # from hexmap_svg.render_svg (trusted, embedded as is)
    sections: list[Section] = field(default_factory=list)   # Game.sections: tables, card rows, tracks
    move_template: str = ""            # YAML to fill in; "" when no move is expected
    secrets_yaml: str | None = None    # only in per-player digests
    result: list[str] = field(default_factory=list)    # empty until the game is over
    result_sections: list[Section] = field(default_factory=list)   # the end-of-game page (Game.result_sections)
    footer: list[str] = field(default_factory=list)
    click: ClickPage | None = None     # the click-to-move panel (a player's own HTML page, when they decide)
    click_left_out: bool = False       # ... left out to keep the mail small (outputs.MESSAGE_BYTES)
    #: the page's script element carries this nonce (a page served under a content security policy
    #: that runs only scripts with it: `pbem play`'s /page); "" in every file pbem writes or mails
    script_nonce: str = ""
    #: the program that signs and sends the move this page composes ("pbem play", whose page frames
    #: this one): the page then says to press its Send instead of to save, sign and send the file;
    #: "" in every file pbem writes or mails
    sent_by: str = ""

    @property
    def secrets_empty(self) -> bool:
        """A player's digest whose secrets hold nothing (the page says so in words, not ``{}``)."""
        return self.secrets_yaml is not None and self.secrets_yaml.strip() in ("", "{}")


#: what textwrap turns into a plain space or a line break (a line with none fits as it is)
_ODD_SPACE = re.compile(r"[\t\n\x0b\x0c\r]")


def wrap(text: str, first: str = "", rest: str = "  ", width: int = TEXT_WIDTH) -> str:
    """``first`` + ``text`` wrapped at ``width`` columns, continuation lines indented by ``rest``.
    Words are never broken (a long hash stays whole on its own line)."""
    text = str(text)
    if text and len(first) + len(text) <= width and text == text.strip() and not _ODD_SPACE.search(text):
        return first + text          # one line, as textwrap makes it (most lines of a digest: no regexes)
    return _fill(text, first, rest, width)


@lru_cache(maxsize=2048)
def _fill(text: str, first: str, rest: str, width: int) -> str:
    """:func:`wrap`'s lines that need textwrap: a pure function of its strings, kept for the
    entry's other readers (each digest wraps the same public event lines)."""
    return textwrap.fill(text, width=width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or first.rstrip()


def template_cache() -> jinja2.BytecodeCache | None:
    """Where the compiled templates are kept between commands: ``$XDG_CACHE_HOME/pbem/templates``
    (default ``~/.cache/pbem/templates``), a folder only this user may read.  Compiling the
    digest templates costs a command such as `pbem submit` more than rendering them; Jinja2
    checks each cached template against its source, so an edited template is compiled again.
    None (compile every time) when there is no such folder and it cannot be made."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "pbem", "templates")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
            return None          # not a private folder of ours: compile every time
    except (OSError, AttributeError):
        return None
    return QuietBytecodeCache(folder, "%s.jinja")


class QuietBytecodeCache(jinja2.FileSystemBytecodeCache):
    """A cache that cannot be written (a full or read-only disk) only makes commands slower."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


@lru_cache(maxsize=None)
def _env(fmt: str, folder: str) -> jinja2.Environment:
    """One Environment per format and folder in a process: each template is compiled once
    (and, across commands, loaded compiled from :func:`template_cache`).  The templates are
    pbem's own files, installed with it: not looked at again on disk at every page
    (``auto_reload``: a page and the two it imports cost three ``stat`` calls otherwise)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        auto_reload=False,
        autoescape=(fmt == "html"),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        bytecode_cache=template_cache(),
    )
    env.filters["wrap"] = wrap
    env.filters["section_text"] = section_text
    env.filters["script_json"] = script_json     # the one way data goes into a <script> (scriptdata.py)
    env.filters["script_code"] = script_code     # and pbem's own JS files, checked (scriptdata.py)
    if fmt == "html":
        env.globals["section_html"] = partial(section_html, folder=folder)
    return env


#: a section's fields as :func:`section_html` keys its page part (every field, every cell a str)
SectionKey = tuple[str, str, tuple[str, ...], tuple[tuple[str, ...], ...], int | None, tuple[str, ...], str]


def section_html(section: Section, heading: str = "h2", *, folder: str) -> Markup:
    """``part(section, heading)`` of ``templates/parts.html.j2`` (the section's HTML under its
    heading), made once for every page that shows the same section: the entry's readers share most
    of theirs (the turn order, the public tables), and so do the entries that follow."""
    key = _section_key(section)
    if key is None:          # a cell that is no plain str (the macro writes any value; the key could not tell them apart)
        return _part(folder)(section, heading)
    return _section_html(folder, heading, key)


def _section_key(section: Section) -> SectionKey | None:
    """Every field of ``section``, as a key; None unless each text is a ``str`` and ``current`` an int or None."""
    texts = [section.title, section.kind, section.note, *section.columns, *section.colours]
    cells = [cell for row in section.rows for cell in row]
    if any(type(t) is not str for t in texts) or any(type(c) is not str for c in cells) \
            or not (section.current is None or type(section.current) is int) \
            or any(type(row) is not list for row in section.rows):
        return None
    return (section.title, section.kind, tuple(section.columns), tuple(tuple(row) for row in section.rows),
            section.current, tuple(section.colours), section.note)


@lru_cache(maxsize=1024)
def _section_html(folder: str, heading: str, key: SectionKey) -> Markup:
    """:func:`section_html` of the section ``key`` holds (a pure function of its fields)."""
    title, kind, columns, rows, current, colours, note = key
    section = Section(title, kind, list(columns), [list(row) for row in rows], current, list(colours), note)
    return _part(folder)(section, heading)


def _part(folder: str) -> Any:
    """The ``part`` macro of ``parts.html.j2`` (it reads nothing but its arguments)."""
    return _env("html", folder).get_template("parts.html.j2").module.part   # type: ignore[attr-defined]


def render_digest(ctx: DigestContext, fmt: str) -> str:
    """The digest as plain text (``fmt="text"``) or a standalone HTML5 page (``fmt="html"``)."""
    if fmt not in FORMATS:
        raise PbemError(f"unknown digest format {fmt!r}; use one of: {', '.join(FORMATS)}")
    return _render(ctx, fmt, FORMATS[fmt])


def render_secrets(ctx: DigestContext) -> str:
    """The text of a player's secrets file (``templates/secrets.txt.j2``): only what is theirs
    (their secrets, their move template, what they alone saw); ``ctx`` is their digest's context
    with ``events`` and ``sections`` narrowed to that (pbem.views.outputs.player_text)."""
    return _render(ctx, "text", "secrets.txt.j2")


def _render(ctx: DigestContext, fmt: str, name: str) -> str:
    env = _env(fmt, str(templates_dir()))
    template = env.get_template(name)
    board_svg = ctx.board_svg.rstrip("\n")
    if fmt == "html":
        board_svg = Markup(board_svg)  # our own generated SVG
    return template.render(
        ctx=ctx,
        options=sorted(ctx.options.items()),
        board_text=ctx.board_text.rstrip("\n"),
        board_svg=board_svg,
        move_template=ctx.move_template.rstrip("\n"),
        secrets_yaml=None if ctx.secrets_yaml is None else ctx.secrets_yaml.rstrip("\n"),
        sign_command=SIGN_COMMAND,
        game_over=bool(ctx.result),
    )
