"""Everything the moderator sends out after an entry: public digests and per-player secrets.

All of it is made from ``game.view(state, viewer)`` (the one view function),
the public log entries, and for a player ``game.secrets(state, player)``.
"""
from __future__ import annotations

import base64
import gzip
import json
import textwrap
import zlib
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

from pbem.base import yamlio
from pbem.base.canonical import canonical
from pbem.base.errors import PbemError
from pbem.base.fsutil import public_mode, write_atomic, write_if_changed
from pbem.base.plain import readable_line
from pbem.core.picture import BoardPicture, Section
from pbem.core.results import result_lines
from pbem.core.sharedview import SharedView
from pbem.crypto import agecrypt
from pbem.store.movefile import MoveFile, render_move
from pbem.store.missedturns import in_disorder_now, rules_of
from pbem.store.table import Table
from pbem.store.update import UPDATE_BYTES   # room kept free in every message for `pbem play`'s public update
from pbem.views.boardmoves import BoardHistory, mark_moves
from pbem.views.pagezip import gzip_page
from pbem.views.prompts import waiting_words
from pbem.views.render.boardmemo import LASTING, BoardMemo, board_key
from pbem.views.render.digest import DigestContext, render_digest, render_secrets
from pbem.views.render.hexmap_svg import board_layers, render_svg, svg_pieces
from pbem.views.render.hexmap_text import render_text
from pbem.views.render.scriptdata import script_json
from pbem.views.render.svgnumbers import shorter_numbers
from pbem.views.viewpatch import patch_or_whole

if TYPE_CHECKING:     # the click-to-move panel is imported where a player's page is made (an audit never needs it)
    from pbem.views.choicegraph import Caps
    from pbem.views.clickpage import ClickPage

GZIP_MAGIC = b"\x1f\x8b"
HTML_SUFFIX = ".html.gz.age"   # secrets/PLAYER.html.gz.age: the player's own digest as an HTML page, gzipped
#: a digest message as mailed, at most (docs/email.md: under 100 KB, with room to spare); a page
#: with the game's own turn model takes the board picture's room in the message where it needs it
#: (the mail then leaves the picture out: pbem.transport.mail.compose), else the page gives up its
#: own model for the generic one, then click-to-move choices, then its click-to-move panel
MESSAGE_BYTES = 96_000
#: the message's headers and part boundaries, about (the board picture is counted from the board's
#: size: pbem.views.render.png.picture_bytes; the player's page and text secrets as they are)
HEADER_BYTES = 3_000
#: an encrypted file in a mail: ASCII armour (base64 in lines of 64: 4/3 x 65/64)
ARMOUR = 4 / 3 * 65 / 64
#: ... of the file with its age header (two recipients: the player and the moderator) and the
#: armour's first and last lines, at most
AGE_BYTES = 600


def armoured(n: int) -> int:
    """An encrypted file of ``n`` bytes as it travels in a mail (armoured age, as age writes it)."""
    return int((n + AGE_BYTES) * ARMOUR) + 1


def describe(table: Table, event: dict[str, Any]) -> str:
    """One human line for a logged event: the game's words, with no Python dict or list in it."""
    shown = {k: v for k, v in event.items() if k != "auto"}
    return readable_line(table.game.describe_event(shown), shown)


def events_since(table: Table, viewer: str | None, work: EntryWork | None = None) -> list[str]:
    """Public event lines since the viewer's last move (public: since the last move entry),
    from the reader's own last move on (its die roll and what followed).  ``work``: the lines of
    an entry are made once for every reader of this entry's digests (they are public)."""
    lines: list[str] = []
    for e in table.entries_from(table.since(viewer)):
        lines += entry_lines(table, e) if work is None else work.entry_lines(e)
    return lines


def entry_lines(table: Table, e: dict[str, Any]) -> list[str]:
    """One public log entry as the digest's "What happened" lists it."""
    who = e.get("player", "moderator")
    lines = [f"entry {e['index']} ({e['kind']}, {who}):"]
    for ev in e.get("events", []):
        lines.append(f"  {describe(table, ev)}" + (f"  [auto: {ev['auto']}]" if "auto" in ev else ""))
    if e.get("dropped"):
        lines.append(f"  orders dropped: {e['dropped']['reason']}")
    return lines


def moderator_lines(table: Table) -> list[str]:
    """Every moderator action so far, with its reason (shown in every digest)."""
    lines = []
    for e in table.notes:
        if e.get("kind") == "moderator" and e.get("action") not in ("bot-move",):
            who = f" {e['player']}" if "player" in e else ""
            extra = f" (entry {e['undoes']})" if "undoes" in e else ""
            lines.append(f"moderator, entry {e['index']}: {e['action']}{who}{extra} - {e.get('reason', '')}")
    if table.paused:
        lines.append(f"THE GAME IS PAUSED: {table.paused}")
    return lines


def footer_lines(table: Table) -> list[str]:
    """The digest's footer, the same for every reader: the moderator's actions, the missed-turn
    rules, the seed commitment and the rules."""
    h = table.header
    return moderator_lines(table) + turn_rules_lines(h) + [f"seed commitment: {h['seed_commitment']}",
                                                           f"rules: {h['game']} {h['rules']}"]


def disorder_lines(entries: list[dict[str, Any]]) -> list[str]:
    """Who is in civil disorder now, and how they take their seat back: at the top of every digest
    while it lasts (under the game's summary), the same for every reader."""
    return [f"CIVIL DISORDER: {player} missed too many deadlines; since entry {since} a bot decides every "
            f"decision of {player}'s seat, at once. {player}: to take your seat back, press \"Take my seat back\" in "
            "pbem play (or run `pbem play back`), or send a move - any move you sign, written since your own last "
            "move (it is refused, but the seat is yours again) - or ask the moderator; then read your next "
            "digest, and your decisions wait for you again"
            for player, since in in_disorder_now(entries).items()]


def turn_rules_lines(header: dict[str, Any]) -> list[str]:
    """The header's missed-turn rules as the digest's footer says them (nothing without deadlines)."""
    rules = rules_of(header)
    if rules is None:
        return []
    what = {"bot": "a bot decides", "pass": "the decision is declined where the rules allow",
            "wait": "a reminder only"}[rules.on_expiry]
    line = f"deadlines: {rules.hours:g} hours a decision; after it, {what}"
    if rules.disorder_after:
        line += f"; civil disorder after {rules.disorder_after} missed in a row"
    if rules.leave_days:
        line += f"; {rules.leave_days:g} days of leave a year"
    return [line]


def template_for(table: Table, player: str, view: dict[str, Any]) -> str:
    return _move_head(table.game_id, player, table.last["index"], table.last["hash"]) + fold_comments(
        table.game.move_template(view, player))


@lru_cache(maxsize=256)
def _move_head(game_id: str, player: str, index: int, entry_hash: str) -> str:
    """A move file's lines above its actions (YAML made once for a player's entry: their digest and page)."""
    return render_move(MoveFile(game_id, player, index, entry_hash, [])).replace("actions: []\n", "")


def fold_comments(template: str, width: int = 78) -> str:
    """A move template whose long trailing comments (``  - {...}   # yours: r1, r2...``) become
    wrapped comment lines above their line, so that no line is wider than ``width``."""
    out: list[str] = []
    for line in template.splitlines():
        code, sep, comment = line.partition("  # ")
        if len(line) <= width or not sep:
            out.append(line)
            continue
        indent = code[: len(code) - len(code.lstrip())]
        out.append(_comment_lines(comment.strip(), width, indent))
        out.append(code.rstrip())
    return "\n".join(out) + ("\n" if template.endswith("\n") else "")


@lru_cache(maxsize=1024)
def _comment_lines(comment: str, width: int, indent: str) -> str:
    """A long trailing comment as wrapped comment lines (a pure function of its text: the same
    comments recur in the templates of an entry's readers and of the entries after)."""
    return textwrap.fill(comment, width=width, initial_indent=indent + "# ", subsequent_indent=indent + "#   ",
                         break_long_words=False, break_on_hyphens=False)


class BoardDrawings:
    """The board drawings of one entry's digests.  Every reader's board is drawn from their own
    view, but the readers' boards differ only a little (the moves marked for each, a player's own
    hidden values): a picture equal to one recently drawn is not drawn again, and the parts of a
    board (its rows, a differing row's cells, the key under it) are drawn once and used again wherever another
    board has the same part (:class:`pbem.views.render.boardmemo.BoardMemo`: keyed by
    everything the part is drawn from, never by the reader).  ``memo``: where the boards and parts are
    kept; by default the process's lasting memo (:data:`pbem.views.render.boardmemo.LASTING`), so
    that the rows and cells of earlier entries' boards serve this entry's too."""

    def __init__(self, memo: BoardMemo | None = None) -> None:
        self._memo = memo if memo is not None else LASTING.take()

    def draw(self, board: BoardPicture, title: str, with_svg: bool, short: bool = False) -> tuple[str, str]:
        """(the board as text, as SVG: "" unless ``with_svg``).  ``short``: the SVG with the shorter
        numbers of the page with a click panel (:func:`shorter_numbers` of the SVG)."""
        cells = self._memo.cell_ids(board)
        drawn = board_key(board, cells)
        key = ("board", title, drawn)
        done = self._memo.board(key)
        if done is None:
            done = (render_text(board, self._memo, cells), "")
            self._memo.keep_board(key, done)
        text, svg = done
        if with_svg and short:
            return text, self._short_svg(board, title, cells, drawn)
        if with_svg and not svg:
            svg = render_svg(board, title, self._memo, cells)
            self._memo.keep_board(key, (text, svg))
        return text, svg if with_svg else ""

    def _short_svg(self, board: BoardPicture, title: str, cells: list[int], drawn: tuple[Any, ...]) -> str:
        """:func:`shorter_numbers` of the board's SVG, shortened piece by piece (each line of the
        document is whole elements and text, so its numbers are those the whole document's shortening
        gives it): a cell, a key, a header shortened once and kept in the memo under its own text."""
        key = ("short", title, drawn)
        done = self._memo.board(key)
        if done is None:
            memo = self._memo
            # cell by cell (not the layers' rows): a row that differs is shortened in its changed cells alone
            pieces = svg_pieces(replace(board_layers(board, title, memo=memo, ids=cells), rows=[]))
            done = "\n".join(memo.part(("short", piece), partial(shorter_numbers, piece)) for piece in pieces) + "\n"
            self._memo.keep_board(key, done)
        return cast(str, done)


def digest_context(table: Table, viewer: str | None, with_svg: bool = True,
                   history: BoardHistory | None = None, drawings: BoardDrawings | None = None,
                   clicks: Caps | None = None, work: EntryWork | None = None) -> DigestContext:
    """Everything a digest shows, for the public (viewer None) or one player.

    The board marks what moved since the reader's last turn when ``history`` (or, if not
    given, a replay of the log, which needs the seed) has the earlier board.  ``clicks``: a
    player with a decision gets the click-to-move panel on their HTML page
    (:mod:`pbem.views.clickpage`), its choices computed within these caps; never the public.
    ``work``: what this entry's other digests share (the views, the public event lines)."""
    game, state = table.game, table.state
    view = game.view(state, viewer) if work is None else work.view(viewer)
    click = None
    if clicks is not None and viewer is not None and with_svg:
        from pbem.views.clickpage import click_page
        click = click_page(table, viewer, clicks, view)
    if history is None:
        history = BoardHistory.for_viewers(table, [viewer])
    board = mark_moves(game.board_picture(view), history.after(table.since(viewer) - 1))
    # the page with a panel: its every byte counts in the mail (the board's numbers shortened)
    board_text, board_svg = ("", "") if board is None else (drawings or BoardDrawings()).draw(
        board, game.title, with_svg, short=click is not None)
    pending = game.pending(state)
    waiting = [f"{d.player}: {d.kind}" + (f" - {d.prompt}" if d.prompt else "") for d in pending]
    template_player = viewer if viewer is not None else (pending[0].player if pending else None)
    if viewer is not None and viewer not in {d.player for d in pending}:
        template_player = None
    events = events_since(table, viewer, work)
    if viewer is not None:
        events += [f"  (only you) {readable_line(game.describe_event(ev), ev)}" for ev in table.private.get(viewer, [])]
    result = game.result(state)
    h = table.header
    return DigestContext(
        game_title=game.title, game_id=table.game_id, game_name=h["game"],
        options=game.display_options(h["options"]),
        players=table.players, viewer=viewer,
        turn_line=f"log entry {table.last['index']}, head hash {table.last['hash']}",
        summary=game.summary(view) + disorder_lines(table.entries), pending=waiting,
        pending_words=[waiting_words(d.player, d.kind, d.prompt) for d in pending], events=events,
        board_text=board_text, board_svg=board_svg,
        sections=game.sections(view),
        move_template=template_for(table, template_player, view) if template_player else "",
        secrets_yaml=yamlio.dump(player_secrets(table, viewer)) if viewer is not None else None,
        result=result_lines(result) if result is not None else [],
        result_sections=game.result_sections(view, result) if result is not None else [],
        footer=footer_lines(table) if work is None else work.footer(),
        click=click,
    )


def player_secrets(table: Table, player: str) -> dict[str, Any]:
    """What the player's secrets section shows: the game's secrets, and their preference list."""
    out = dict(table.game.secrets(table.state, player))
    remaining = table.prefs.of(player)
    if remaining:
        out["preference_list"] = [yamlio.dump_flow(a) for a in remaining]
    return out


def public_view_file(table: Table, work: EntryWork | None = None) -> dict[str, Any]:
    """public/view.json: what `pbem check` and `pbem legal` use on a player's machine."""
    return {"game": table.header["game"], "id": table.game_id, "index": table.last["index"],
            "hash": table.last["hash"],
            "pending": [{"player": d.player, "kind": d.kind} for d in table.game.pending(table.state)],
            "view": table.game.view(table.state, None) if work is None else work.view(None)}


@dataclass
class EntryWork:
    """What one entry's outputs share (:func:`write_outputs`): the boards drawn, the public digest's
    context and text made once, the public parts' size in a digest message counted once, each page
    gzipped once (the mail-fitting check and the encryption seal the same bytes), each reader's view
    made once (``game.view`` is a pure function of the entry's state and the reader: the cache is
    keyed by the reader whose view it is, and is the table's state's alone), each public entry's
    event lines made once."""

    table: Table
    history: BoardHistory
    drawings: BoardDrawings = field(default_factory=BoardDrawings)
    _views: dict[str | None, Any] = field(default_factory=dict)
    _entry_lines: dict[int, list[str]] = field(default_factory=dict)
    _public: DigestContext | None = None
    _public_text: bytes | None = None
    _public_parts: tuple[int, int] | None = None
    _sealed: dict[tuple[str, bytes], bytes] = field(default_factory=dict)
    _footer: list[str] | None = None
    _public_sections: list[Section] | None = None

    def view(self, viewer: str | None) -> Any:
        """``game.view(state, viewer)`` of this entry (the same object each time: never changed by its
        readers), as a :class:`pbem.core.sharedview.SharedView`: the game reads it back into a state
        once for all the hooks the reader's digest asks of it (summary, sections, template, picture,
        click-to-move model).  A player's view knows the entry's public view (``public``): what shows
        only what everybody sees (the games' summaries) is made once, from it, for every reader."""
        if viewer not in self._views:
            public = None if viewer is None else self.view(None)
            self._views[viewer] = SharedView(self.table.game.view(self.table.state, viewer), public)
        return self._views[viewer]

    def footer(self) -> list[str]:
        """:func:`footer_lines`, once for the entry's readers (the same object: never changed by them)."""
        if self._footer is None:
            self._footer = footer_lines(self.table)
        return self._footer

    def entry_lines(self, entry: dict[str, Any]) -> list[str]:
        """:func:`entry_lines`, each public entry once."""
        index = entry["index"]
        if index not in self._entry_lines:
            self._entry_lines[index] = entry_lines(self.table, entry)
        return self._entry_lines[index]

    def public_context(self) -> DigestContext:
        if self._public is None:
            self._public = digest_context(self.table, None, history=self.history, drawings=self.drawings, work=self)
        return self._public

    def public_sections(self) -> list[Section]:
        """The public digest's sections (what a player's text secrets leave out): the public
        context's where it is made already, else only the sections (a reader's outputs alone need
        no public board drawn unless their page has the click-to-move panel)."""
        if self._public is not None:
            return self._public.sections
        if self._public_sections is None:
            self._public_sections = self.table.game.sections(self.view(None))
        return self._public_sections

    def public_text(self) -> bytes:
        if self._public_text is None:
            self._public_text = render_digest(self.public_context(), "text").encode()
        return self._public_text

    def public_message_parts(self) -> tuple[int, int]:
        """:func:`public_message_parts` of this entry (the text digest has no SVG board: the same text)."""
        if self._public_parts is None:
            from pbem.views.render.png import picture_bytes
            ctx = self.public_context()
            self._public_parts = (len(self.public_text())
                                  + len(render_digest(replace(ctx, board_text="", board_svg=""), "html").encode()),
                                  picture_bytes(ctx.board_svg))
        return self._public_parts

    def seal(self, suffix: str, plain: bytes) -> bytes:
        """:func:`seal_bytes`, each content once."""
        key = (suffix, plain)
        if key not in self._sealed:
            self._sealed[key] = seal_bytes(suffix, plain)
        return self._sealed[key]


def public_outputs(table: Table, history: BoardHistory | None = None,
                   drawings: BoardDrawings | None = None, work: EntryWork | None = None) -> dict[str, bytes]:
    if work is None:
        ctx = digest_context(table, None, history=history, drawings=drawings)
        text = render_digest(ctx, "text").encode()
    else:
        ctx, text = work.public_context(), work.public_text()
    return {
        "public/digest.txt": text,
        "public/digest.html": render_digest(ctx, "html").encode(),
        "public/board.svg": ctx.board_svg.encode(),
        "public/view.json": (json.dumps(public_view_file(table, work), sort_keys=True, indent=1) + "\n").encode(),
    }


def player_plaintexts(table: Table, player: str, history: BoardHistory | None = None,
                      drawings: BoardDrawings | None = None, work: EntryWork | None = None) -> dict[str, bytes]:
    """The contents of that player's encrypted files, by suffix: ``.age`` their own digest as
    text with their secrets, ``.html.gz.age`` the same digest as an HTML page with their private
    board drawn in it (their own hidden values shown); that one is gzip-compressed before it is
    encrypted (:func:`seal_bytes`), so that it fits in a mail beside the board picture.
    ``work``: what the entry's other outputs share (``history`` and ``drawings`` are then its own)."""
    from pbem.views.clickpage import GRAPH, MAIL_CAPS, smaller
    if work is not None:
        history, drawings = work.history, work.drawings
    ctx = digest_context(table, player, history=history, drawings=drawings, clicks=MAIL_CAPS, work=work)
    text = player_text(table, player, ctx, work)
    html = render_digest(ctx, "html").encode()
    # the page fits in a digest message however the game is played: it is made from the log alone
    # (mail settings are the moderator's private files, and an audit must make the same page)
    public, picture = 0, 0
    if ctx.click is not None:
        public, picture = work.public_message_parts() if work is not None else public_message_parts(table, history,
                                                                                                     drawings)
    public += picture
    while public and ctx.click is not None:       # the page with the panel must fit in the digest message
        over = message_over(public, text, html, work.seal if work is not None else seal_bytes)
        if over <= 0:
            break
        if over <= picture and ctx.click.graph is None and ctx.click.family != GRAPH:
            break           # the game's own model fits without the board's picture: the mail leaves it out
        click = smaller(table, ctx.click, int(over / ARMOUR) + 1)
        page = with_other_choices(html, ctx.click, click)
        ctx = replace(ctx, click=click, click_left_out=click is None)
        html = page if page is not None else render_digest(ctx, "html").encode()
    return {".age": text, HTML_SUFFIX: html}


def message_over(public: int, text: bytes, html: bytes, seal: Callable[[str, bytes], bytes] | None = None) -> int:
    """How many bytes a digest message with these public parts (``public``: :func:`public_message_bytes`)
    and this player's text secrets and page would be over :data:`MESSAGE_BYTES` (<= 0: it fits).
    ``seal``: :func:`seal_bytes` or one that remembers (:meth:`EntryWork.seal`)."""
    private = armoured(len(text)) + armoured(len((seal or seal_bytes)(HTML_SUFFIX, html)))
    return int(public + HEADER_BYTES + UPDATE_BYTES + private - MESSAGE_BYTES)


def page_budget(table: Table, player: str, history: BoardHistory | None = None, picture: bool = True) -> int:
    """The bytes to spare in ``player``'s digest message with their page as first made (the game's
    own turn model, before :func:`pbem.views.clickpage.smaller`); negative: by how much it misses.
    ``picture``: with the board's picture in the message (without: what the message has where
    the page needs the picture's room).  (For the figures: benchmarks/message_sizes.py.)"""
    from pbem.views.clickpage import MAIL_CAPS
    ctx = digest_context(table, player, history=history, clicks=MAIL_CAPS)
    text = player_text(table, player, ctx)
    public, png = public_message_parts(table, history)
    return -message_over(public + (png if picture else 0), text, render_digest(ctx, "html").encode())


def with_other_choices(html: bytes, page: ClickPage, other: ClickPage | None) -> bytes | None:
    """The player's HTML page, made with the click-to-move ``page``, as it is with ``other``
    instead: the panel's choices are the one thing that differs (its data, written once in the
    page: templates/click.html.j2), so they are swapped rather than the page made again.
    None where the page must be made again (no panel any more, or another model's script)."""
    if other is None or (other.file_name, other.sign_command, other.family) != (page.file_name, page.sign_command,
                                                                                page.family):
        return None
    old = str(script_json(page.data)).encode()
    if html.count(old) != 1:
        return None
    return html.replace(old, str(script_json(other.data)).encode())


def public_message_bytes(table: Table, history: BoardHistory | None, drawings: BoardDrawings | None = None) -> int:
    """About what the public parts of the digest message of a player with a decision take: the
    text digest, the HTML one without its board nor its text map, and the board's picture at its
    size in that message (:func:`pbem.views.render.png.picture_bytes`).  (What moved is marked only
    when ``history`` has it: a few bytes.)"""
    return sum(public_message_parts(table, history, drawings))


def public_message_parts(table: Table, history: BoardHistory | None,
                         drawings: BoardDrawings | None = None) -> tuple[int, int]:
    """:func:`public_message_bytes` in two: (the text and HTML digests, the board's picture)."""
    from pbem.views.render.png import picture_bytes
    ctx = digest_context(table, None, history=history or BoardHistory(table, []), drawings=drawings)
    return (len(render_digest(replace(ctx, board_svg=""), "text").encode())
            + len(render_digest(replace(ctx, board_text="", board_svg=""), "html").encode()),
            picture_bytes(ctx.board_svg))


def player_text(table: Table, player: str, ctx: DigestContext, work: EntryWork | None = None) -> bytes:
    """The plaintext of secrets/PLAYER.age, from the player's digest context: only what is theirs
    (templates/secrets.txt.j2): their secrets, their move template, what they alone saw, the parts
    of their view the public's lacks, and their view for `pbem turn` (the view block at the end).
    The board, the public events and who is waiting travel once, in the digest message's body.
    ``work``: the entry's shared work (the public digest's sections, the views)."""
    game = table.game
    public_sections = game.sections(game.view(table.state, None)) if work is None else work.public_sections()
    own = replace(ctx, events=[f"{readable_line(game.describe_event(ev), ev)}" for ev in table.private.get(player, [])],
                  sections=[s for s in ctx.sections if s not in public_sections], board_text="", board_svg="",
                  click=None)
    return (render_secrets(own) + private_view_block(table, player, work)).encode()


def player_plaintext(table: Table, player: str) -> bytes:
    """The plaintext of secrets/PLAYER.age (:func:`player_text`).  (The text never has the
    click-to-move panel, so its choices are not computed here.)"""
    return player_text(table, player, digest_context(table, player, with_svg=False))


VIEW_BEGIN, VIEW_END = "----- BEGIN view -----", "----- END view -----"


def private_view_block(table: Table, player: str, work: EntryWork | None = None) -> str:
    """The player's own view, for `pbem turn`: as a patch on the public view of the same entry
    (public/view.json; pbem.views.viewpatch), gzip + base64; a few hundred bytes."""
    if work is None:
        public, private = table.game.view(table.state, None), table.game.view(table.state, player)
    else:
        public, private = work.view(None), work.view(player)
    data = {"game": table.game_id, "index": table.last["index"], "hash": table.last["hash"], "player": player,
            **patch_or_whole(public, private)}
    payload = base64.b64encode(gzip.compress(canonical(data), mtime=0)).decode("ascii")
    return "\n".join(["", "Your view of the game, for `pbem turn` (nothing to read by eye):", VIEW_BEGIN,
                      *base64_lines(payload), VIEW_END, ""])


def base64_lines(payload: str, width: int = 76) -> list[str]:
    """Base64 text in lines of ``width``: what ``textwrap.wrap(payload, width)`` makes of it (no
    space nor hyphen in it: the long word cut every ``width`` characters), without its regexes."""
    return [payload[k:k + width] for k in range(0, len(payload), width)]


def read_private_view(plaintext: str) -> dict[str, Any]:
    """The view block of a decrypted secrets file (see :func:`private_view_block`)."""
    start, end = plaintext.find(VIEW_BEGIN), plaintext.find(VIEW_END)
    if start < 0 or end < start:
        raise PbemError("these secrets hold no view block (made by an older pbem?); use the public view")
    payload = "".join(plaintext[start + len(VIEW_BEGIN):end].split())
    try:
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)        # gzip, at most 16 MiB
        data = json.loads(inflate.decompress(base64.b64decode(payload, validate=True), 16 * 2**20))
    except (ValueError, OSError, EOFError, zlib.error):
        raise PbemError("the view block of these secrets is damaged; decrypt the file again") from None
    if not isinstance(data, dict) or not isinstance(data.get("view", data.get("patch")), dict):
        raise PbemError("the view block of these secrets is damaged; decrypt the file again")
    return data


def secrets_file(table: Table, player: str, suffix: str) -> Path:
    return table.gd.secrets_html_path(player) if suffix == HTML_SUFFIX else table.gd.secrets_path(player)


def write_outputs(table: Table, careful: bool = False) -> list[Path]:
    """The public files and every player's encrypted secrets (text and HTML); returns their paths.

    ``careful``: leave a file alone when it already holds the right content
    (for secrets: when it decrypts, with the moderator key, to the right text).
    Not flushed one by one: the snapshot records them (:mod:`pbem.pipeline.append`).
    """
    work = EntryWork(table, BoardHistory.for_viewers(table, [None, *table.players]))
    paths: list[Path] = []
    mode = public_mode()
    for rel, data in public_outputs(table, work=work).items():
        path = table.gd.root / rel
        paths.append(path)
        if careful:
            write_if_changed(path, data, mode=mode, durable=False)
        else:
            write_atomic(path, data, mode=mode, durable=False)
    moderator_pub = table.header["moderator"]["key"]
    for player in table.players:
        for suffix, plain in player_plaintexts(table, player, work=work).items():
            path = secrets_file(table, player, suffix)
            paths.append(path)
            if careful and _holds(path, plain, table.gd.moderator_key_path):
                continue
            cipher = agecrypt.encrypt(work.seal(suffix, plain), [table.player_keys(player)[0], moderator_pub])
            write_atomic(path, cipher, mode=0o600, durable=False)   # encrypted, but still only the player's
    return paths


def seal_bytes(suffix: str, plain: bytes) -> bytes:
    """What is encrypted for a file with ``suffix``: the HTML page gzip-compressed (fixed time:
    deterministic; :data:`pbem.views.pagezip.PAGE_GZIP_LEVEL`: a mail holds it beside the board picture, under 100 KB;
    the page's script compressed once for every page that holds it: :func:`pbem.views.pagezip.gzip_page`),
    the text as it is."""
    return gzip_page(plain) if suffix == HTML_SUFFIX else plain


def opened_bytes(decrypted: bytes) -> bytes:
    """The content of a decrypted file: gunzipped when it is gzip data."""
    return gzip.decompress(decrypted) if decrypted[:2] == GZIP_MAGIC else decrypted


def _holds(path: Path, plain: bytes, moderator_key: Path) -> bool:
    """Does the encrypted file at ``path`` hold exactly ``plain`` (once gunzipped)?"""
    try:
        return opened_bytes(agecrypt.decrypt(path.read_bytes(), moderator_key)) == plain
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile, agecrypt.AgeError):
        return False
