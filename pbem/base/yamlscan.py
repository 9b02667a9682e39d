"""A lexical pre-scan of untrusted YAML: pbem's own limits fire before any parser's.

:mod:`pbem.base.yamlio` runs this over the raw text before PyYAML sees it.  A parser
has limits of its own that differ from release to release (libyaml 0.2.5 as
bundled with PyYAML 6.0.4 stops at 1000 nested collections with its own message,
and it reads that far ahead before handing over a single event), so pbem's
limits are checked first, here, on the text itself:

* nesting depth: open block collections (an indentation stack, with the compact
  ``- - x`` and ``- key: v`` forms and a sequence at its parent key's column)
  plus flow brackets and braces outside quotes and comments;
* node count: collections and scalars;
* anchors ``&`` and aliases ``*`` where they are tokens (at the start of a node,
  not inside a plain scalar such as ``a*b``).

It reads only what decides these and skips the rest (the contents of block
scalars and quoted scalars, the continuation lines of plain scalars).  For YAML
that both parsers read, it never counts more than they do: its depth is the
parser's (but for a collection written as a key, which pbem refuses anyway,
where it may count a level less) and its node count at most the parser's (a
missing value, a null the parser makes up, is not counted).  Where the text is
not valid YAML it may count less; the parser then stops at the error.

Most documents need no line-by-line reading at all: :func:`surely_within` first
bounds the depth, the node count and the anchors with a few passes of the
regular-expression engine and string methods, and only a document these bounds
cannot clear is read in full.
The event scan in :mod:`pbem.base.yamlio` stays behind it as the second line of
defence.  A refusal is a :class:`Refusal` with the 1-based line number.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

ANCHORS = "anchors and aliases (& and *) are not allowed; write every value out"


class Refusal(Exception):
    """A limit crossed at ``line`` (1-based): ``why`` says which."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line
        self.why = why


@dataclass(frozen=True)
class Shape:
    """What the pre-scan counted: the deepest nesting and the number of nodes."""

    depth: int
    nodes: int


#: line breaks other than "\n" that YAML parsers count as one (PyYAML and libyaml alike)
_ODD_BREAKS = re.compile("\r\n?|[\x85\u2028\u2029]")
_BLANKS = " \t"
#: what cannot follow & or * in an anchor's or alias's name
_NOT_A_NAME = " \t\n,[]{}"
_PLAIN_REST = r"(?:[^ \t\n,\[\]{}:]+|:(?=[^ \t\n,\[\]{}]))*"
#: a plain scalar in flow context: its first word cannot start with an indicator, the next ones
#: (after spaces or line breaks) cannot start a comment
_FLOW_PLAIN = (rf"[^ \t\n,\[\]{{}}:#&*!?\"\']{_PLAIN_REST}"
               rf"(?:[ \t\n]+(?:[^ \t\n,\[\]{{}}:#]|:(?=[^ \t\n,\[\]{{}}])){_PLAIN_REST})*")
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\''


@functools.cache
def _flow_token() -> re.Pattern[str]:
    """One token in flow context, after any whitespace, comments and indicators (groups 1-3: the
    last ``,``, ``:`` and ``?`` among them; at the start of a token in flow context ``:`` and ``?``
    are always indicators); its own group says what it is: an opening or closing bracket, a scalar
    (quoted, or plain over one or more lines), an anchor or alias, a tag, or (none of these) the
    end of the text or an unterminated quoted scalar.  Compiled when first needed (it takes a few
    milliseconds, and most documents never need it)."""
    return re.compile(rf"(?:[ \t\n]+|#[^\n]*|(,)|(:)|(\?))*(?:([\[{{])|([\]}}])"
                      rf"|({_QUOTED}|{_FLOW_PLAIN})"
                      rf"|([&*])(?=[^ \t\n,\[\]{{}}])|(![^ \t\n,\[\]{{}}]*)|\Z|[\"\'&*])", re.S)


_COMMA, _COLON, _QUESTION, _OPEN, _CLOSE, _SCALAR, _ANCHOR, _TAG_TOKEN = 1, 2, 3, 4, 5, 6, 7, 8
_DOUBLE = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SINGLE = re.compile(r"'(?:[^']|'')*'", re.S)
_TAG = re.compile(r"![^ \t\n,\[\]{}]*")
_BLOCK_SCALAR_HEAD = re.compile(r"[|>][0-9+-]*(?=[ \t\n#]|$)")
#: in block context, on one line: where a plain key ends (": ", ":" at the end) or a comment begins
_KEY_OR_COMMENT = re.compile(r":(?=[ \t\n])|:$|[ \t]#", re.M)
#: the commonest lines: indentation, maybe "- ", then ``key:`` with or without a plain value, or a plain
#: value alone after "- " (groups: indentation, dash, key, the key's value)
_KEY = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
_PLAIN_VALUE = r"[A-Za-z0-9_./+=(][^\n]*"
_FAST_LINE = re.compile(rf"( *)(?:(- +)(?=[^ ]))?(?:({_KEY}):(?: +({_PLAIN_VALUE}))?"
                        r"|(?<=- )[A-Za-z0-9_./+=(][^:\n#]*)$", re.M)
#: each line's leading run of spaces, tabs and the indicators that open block collections
_LEADING_RUN = re.compile(r"[ \t?:-]*")
_LEADING_RUNS = re.compile(r"\n[ \t?:-]*")
#: & or * and a name, where a token may start (see :func:`surely_within`)
_MAYBE_ANCHOR = re.compile(r"(?<![^ \t\n\[\]{},:?\"\'-])[&*][^ \t\n,\[\]{}]")
_DOCUMENT_MARK = re.compile(r"(?:---|\.\.\.)(?=[ \t\n]|$)")


@functools.lru_cache(maxsize=64)
def _run_of(length: int) -> re.Pattern[str]:
    """A line whose leading run of spaces, tabs and ``- ? :`` is at least ``length`` long."""
    return re.compile(rf"\n[ \t?:-]{{{length}}}")


@functools.lru_cache(maxsize=64)
def _same_keys(col: int) -> re.Pattern[str]:
    """Lines of ``key: plain value`` at column ``col`` (the same mapping, nothing deeper)."""
    return re.compile(rf"(?: {{{col}}}{_KEY}: +{_PLAIN_VALUE}\n)+")


@functools.lru_cache(maxsize=64)
def _end_of_indented(parent: int) -> re.Pattern[str]:
    """The first line break after which a line with content starts at column <= ``parent``
    (that ends a block scalar or a plain scalar's continuation lines)."""
    if parent < 0:
        return re.compile(r"\n(?=(?:---|\.\.\.)(?:[ \t\n]|$))")
    return re.compile(rf"\n {{0,{parent}}}(?=[^ \n])")


class _Scanner:
    def __init__(self, text: str, max_depth: int, max_nodes: int) -> None:
        self.text = text
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.cols: list[int] = []        # the open block collections: their columns...
        self.seqs: list[bool] = []       # ...and whether each is a sequence (else a mapping)
        self.depth = 0
        self.nodes = 0
        #: after a plain scalar: the column of its collection (-1: none), until a line at or left of it
        self.plain_parent: int | None = None

    # --- counting ----------------------------------------------------------------------------
    def line_of(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def count(self, pos: int, opened: int = 0) -> None:
        self.nodes += 1
        if opened > self.depth:
            self.deepen(opened, pos)
        if self.nodes > self.max_nodes:
            raise Refusal(self.line_of(pos), f"more than {self.max_nodes} values")

    def deepen(self, depth: int, pos: int) -> None:
        if depth > self.depth:
            self.depth = depth
            if depth > self.max_depth:
                raise Refusal(self.line_of(pos), f"nested more than {self.max_depth} levels deep")

    def open_block(self, col: int, seq: bool, pos: int) -> bool:
        """A block collection at ``col``; True when it is a new one (not the one already open)."""
        cols, seqs = self.cols, self.seqs
        if cols and cols[-1] == col:
            if seqs[-1] == seq:
                return False                             # the next entry or key of the same one
            if not seq and len(cols) > 1 and cols[-2] == col and not seqs[-2]:
                cols.pop()                               # a key after a sequence at its parent key's column
                seqs.pop()
                return False
            if not seq:
                return False                             # a key where a sequence is: the parser refuses it
        cols.append(col)                                 # deeper, or a sequence at its parent key's column
        seqs.append(seq)
        self.count(pos, len(cols))
        return True

    # --- the document -------------------------------------------------------------------------
    def run(self) -> Shape:
        """Line by line.  The commonest lines (``key: value``, ``- key: value``, ``key:`` and
        ``- value`` with a plain value) take one regular expression and a few steps here; any
        other line goes through :meth:`block_line`."""
        text, cols, seqs, fast = self.text, self.cols, self.seqs, _FAST_LINE.match
        end = len(text)
        pos = 0
        while pos < end:
            eol = text.find("\n", pos)
            if eol < 0:
                eol = end
            m = fast(text, pos, eol)
            if m is None:
                pos = self.block_line(pos, eol)
                continue
            pos = eol + 1
            col = m.end(1) - m.start(1)
            if self.plain_parent is not None:
                if col > self.plain_parent:
                    continue                             # a plain scalar's continuation line
                self.plain_parent = None
            while cols and cols[-1] > col:
                cols.pop()
                seqs.pop()
            dash, key = m.group(2), m.group(3)
            if dash is not None:
                if not (cols and cols[-1] == col and seqs[-1]):
                    self.open_block(col, True, m.start(2))
                col += len(dash)
            if key is not None:
                if not (cols and cols[-1] == col and not seqs[-1]):
                    self.open_block(col, False, m.start(3))
                self.nodes += 1
            if key is None or m.group(4) is not None:
                self.nodes += 1                          # the plain value
                self.plain_parent = cols[-1] if cols else -1
                if key is not None:                      # and the lines like it that follow
                    more = _same_keys(col).match(text, pos)
                    if more is not None:
                        self.nodes += 2 * text.count("\n", pos, more.end())
                        pos = more.end()
            if self.nodes > self.max_nodes:
                raise Refusal(self.line_of(m.start()), f"more than {self.max_nodes} values")
        return Shape(self.depth, self.nodes)

    def skip_ws(self, c: int, eol: int) -> int:
        text = self.text
        while c < eol and text[c] in _BLANKS:
            c += 1
        return c

    def block_line(self, pos: int, eol: int) -> int:
        """One line in block context; returns where the next line to read starts."""
        text = self.text
        c = pos
        while c < eol and text[c] == " ":
            c += 1
        if self.plain_parent is not None:
            if c >= eol or (c - pos > self.plain_parent and not _DOCUMENT_MARK.match(text, pos)):
                return eol + 1                           # a plain scalar's continuation line
            self.plain_parent = None
        c = self.skip_ws(c, eol)         # a tab here is the parser's error: read on as if it were a space
        if c >= eol or text[c] == "#":
            return eol + 1
        col = c - pos
        if col == 0:
            if _DOCUMENT_MARK.match(text, c):
                self.cols.clear()
                self.seqs.clear()
                if text[c] == ".":
                    return eol + 1
                c = self.skip_ws(c + 3, eol)
                if c >= eol or text[c] == "#":
                    return eol + 1
                return self.node(c, eol, pos, after_key=True)
            if text[c] == "%":
                return eol + 1                           # a directive
        cols = self.cols
        while cols and cols[-1] > col:
            cols.pop()
            self.seqs.pop()
        return self.node(c, eol, pos, after_key=False)

    def node(self, c: int, eol: int, pos: int, after_key: bool) -> int:
        """The node that starts at ``c`` on the line that starts at ``pos``.  ``after_key``: it is
        the value of a key on the same line (so it cannot be a block entry or a key itself)."""
        text = self.text
        tagged = -1                      # the column of a tag before the node: a key's column
        while True:
            ch = text[c]
            col = c - pos
            key_col = col if tagged < 0 else tagged
            blank_after = c + 1 >= eol or text[c + 1] in _BLANKS
            if not after_key and ch == "-" and blank_after and tagged < 0:   # a block sequence entry
                self.open_block(col, True, c)
            elif not after_key and ch == "?" and blank_after and tagged < 0:  # an explicit key
                self.open_block(col, False, c)
            elif not after_key and ch == ":" and blank_after and tagged < 0:  # an explicit key's value
                self.open_block(col, False, c)
            elif ch in "&*" and c + 1 < eol and text[c + 1] not in _NOT_A_NAME:
                raise Refusal(self.line_of(c), ANCHORS)
            elif ch == "!":
                found = _TAG.match(text, c)
                tagged = key_col
                c = found.end() if found else c + 1
                c = self.skip_ws(c, eol)
                if c >= eol or text[c] == "#":
                    return eol + 1
                continue
            elif ch in "[{":
                base = len(self.cols)
                end, deepest = self.flow(c)
                return self.after_closed(end, key_col, pos, after_key, deepest - base)
            elif ch in "\"'":
                self.count(c)
                found = (_DOUBLE if ch == '"' else _SINGLE).match(text, c)
                if found is None:
                    return len(text)                     # unterminated: the parser stops there too
                return self.after_closed(found.end(), key_col, pos, after_key, 0)
            elif ch in "|>" and _BLOCK_SCALAR_HEAD.match(text, c):
                self.count(c)
                return self.skip_indented(eol)
            elif ch == "#":
                return eol + 1
            else:                                        # a plain scalar: a key, or a value
                found = None if after_key else _KEY_OR_COMMENT.search(text, c, eol)
                if found is not None and text[found.start()] == ":":
                    self.open_block(key_col, False, c)
                    self.count(c)
                    c = found.end()
                    after_key = True
                    tagged = -1
                else:
                    self.count(c)                        # its continuation lines, if any, are skipped
                    self.plain_parent = self.cols[-1] if self.cols else -1
                    return eol + 1
                c = self.skip_ws(c, eol)
                if c >= eol or text[c] == "#":
                    return eol + 1
                continue
            c = self.skip_ws(c + 1, eol)
            if c >= eol or text[c] == "#":
                return eol + 1

    def after_closed(self, end: int, col: int, pos: int, after_key: bool, inner: int) -> int:
        """After a flow collection (``inner`` levels deep) or a quoted scalar (``inner`` 0) that
        started at column ``col`` and ended at ``end``: a key (``"a b": v``; a collection as a key
        is refused later, but counts here one level below its mapping), or the line's end."""
        text = self.text
        eol = text.find("\n", end)
        if eol < 0:
            eol = len(text)
        c = self.skip_ws(end, eol)
        if c < eol and text[c] == ":" and (c + 1 >= eol or text[c + 1] in _BLANKS) and not after_key \
                and text.count("\n", pos, end) == 0:
            if self.open_block(col, False, pos + col) and inner:
                self.deepen(len(self.cols) + inner, pos + col)
            c = self.skip_ws(c + 1, eol)
            if c < eol and text[c] != "#":
                return self.node(c, eol, pos, after_key=True)
        return eol + 1

    def skip_indented(self, eol: int) -> int:
        """Past the lines indented deeper than the innermost block collection (a block
        scalar's contents, or a plain scalar's continuation lines)."""
        parent = self.cols[-1] if self.cols else -1
        found = _end_of_indented(parent).search(self.text, eol)
        return found.start() + 1 if found else len(self.text)

    def flow(self, c: int) -> tuple[int, int]:
        """A flow collection that opens at ``c``: where it closes (or the text's end), and the
        deepest nesting inside it, counting the block collections around it.

        An entry of a flow sequence written ``key: value`` (or ``? key``) is a mapping of its
        own, one level deeper, without a bracket of its own."""
        base = deepest = len(self.cols)
        depth, nodes, max_nodes = 0, self.nodes, self.max_nodes
        seqs: list[bool] = []            # each open bracket: a sequence (else a mapping)...
        pairs: list[bool] = []           # ...and, for a sequence, whether its entry is a pair
        # every position matches some alternative, so the tokens follow one another without a gap
        for m in _flow_token().finditer(self.text, c):
            kind = m.lastindex
            if seqs and seqs[-1]:
                comma = m.start(_COMMA)
                key = max(m.start(_COLON), m.start(_QUESTION))
                if comma >= 0:
                    if pairs[-1]:
                        depth -= 1                       # the pair's mapping ended with its entry
                    elif 0 <= key < comma:               # the entry just ended was a pair ("a: ,")
                        nodes += 1
                        if base + depth + 1 > deepest:
                            deepest = base + depth + 1
                            self.nodes = nodes
                            self.deepen(deepest, key)
                    pairs[-1] = False
                if key > comma and not pairs[-1]:        # this entry is a mapping of one pair
                    pairs[-1] = True
                    depth += 1
                    nodes += 1
                    if base + depth > deepest:
                        deepest = base + depth
                        self.nodes = nodes
                        self.deepen(deepest, key)
            if kind == _SCALAR:
                nodes += 1
            elif kind == _OPEN:
                depth += 1
                nodes += 1
                seqs.append(self.text[m.start(kind)] == "[")
                pairs.append(False)
                if base + depth > deepest:
                    deepest = base + depth
                    self.nodes = nodes
                    self.deepen(deepest, m.start(kind))
            elif kind == _CLOSE:
                depth -= 1 + pairs.pop()
                seqs.pop()
                if depth == 0:
                    self.nodes = nodes
                    return m.end(), deepest
            elif kind == _ANCHOR:
                raise Refusal(self.line_of(m.start(kind)), ANCHORS)
            elif kind != _TAG_TOKEN:
                break                                    # the end, or an unterminated quoted scalar
            if nodes > max_nodes:
                self.nodes = nodes
                raise Refusal(self.line_of(m.start(kind)), f"more than {max_nodes} values")
        self.nodes = nodes
        return len(self.text), deepest


def _normalised(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        text = _ODD_BREAKS.sub("\n", text)
    return text


def surely_within(text: str, max_depth: int, max_nodes: int) -> bool:
    """True when bounds that take no line-by-line reading already show that ``text`` is within
    the limits and holds no anchor or alias (then :func:`measure` could not refuse it).

    * Every node takes at least a third of a character: a scalar at least one, a flow
      collection its bracket, a block sequence its ``-``; the most a single character makes
      is three (``:`` alone: a mapping, its empty key and its empty value).
    * A block collection starts at a column of its line's leading run of spaces, tabs and
      ``- ? :`` indicators, or just after it; the open ones have rising columns, but for a
      sequence at its parent key's column, so there are at most two for each such column.
      Flow collections are at most as deep as there are ``{`` and twice as many ``[`` in all
      (an entry ``a: b`` of a flow sequence is a mapping without a bracket of its own).
    * An anchor or alias token is ``&`` or ``*`` and a name, at the start of a node: after
      a space, a line break, an indicator, a bracket or a quote.
    """
    if 3 * len(text) + 3 > max_nodes:
        return False
    if ("&" in text or "*" in text) and _MAYBE_ANCHOR.search(text) is not None:
        return False
    flow = 2 * text.count("[") + text.count("{")
    if flow >= max_depth:
        return False
    runs = (max_depth - flow) // 2           # no run this long: at most this many columns
    first = _LEADING_RUN.match(text)
    if runs > 0 and (first is None or first.end() < runs) and _run_of(runs).search(text) is None:
        return True
    columns: set[int] = set()
    for run in set(_LEADING_RUNS.findall(text)) | {"\n" + first.group() if first else "\n"}:
        columns.add(len(run) - 1)
        columns.update(i - 1 for i, ch in enumerate(run) if ch in "-?:")
    return 2 * len(columns) + flow <= max_depth


def prescan(text: str, max_depth: int, max_nodes: int) -> None:
    """Check ``text`` against the depth and node limits, and for anchors and aliases, before
    any parser reads it; raises :class:`Refusal` (with the line) at the first limit crossed."""
    text = _normalised(text)
    if not surely_within(text, max_depth, max_nodes):
        _Scanner(text, max_depth, max_nodes).run()


def measure(text: str, max_depth: int = 10**9, max_nodes: int = 10**12) -> Shape:
    """The full scan: the deepest nesting and the node count (for a valid document, the
    parser's depth, and at most its node count); raises :class:`Refusal` as :func:`prescan`."""
    return _Scanner(_normalised(text), max_depth, max_nodes).run()
