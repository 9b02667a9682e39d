"""The hostile-input corpus: move files a stranger (or a player gone bad) might send.

Run ``python tests/hostile/make_corpus.py`` to (re)write ``tests/hostile/corpus/``;
``tests/test_hostile_corpus.py`` checks that the committed files are exactly what
this script makes.  Each file is a *template*: before a test uses it, the
placeholders ``@GAME@``, ``@PLAYER@``, ``@AFTER@`` and ``@HASH@`` are replaced by
the test game's id, the player whose turn it is, the index and the hash of the
last log entry (:func:`instantiate`), so that the files that are meant to reach
the rules are bound to the right place and are refused by the rules, not by a
stale position.

Files too big to commit (just over the limits) and files that need the test
game's moderator key (real sealed actions) are made at test time by
:func:`big_entries` and :func:`sealed_entries`; special files (a FIFO, symbolic
links to /dev/zero and out of the game folder, a folder named like a move file,
a socket) by :func:`make_special_files`.  Garbage signatures (used in place of a
real one) come from :func:`garbage_signatures`.

Every entry must be refused: none is a legal move.  ``check_may_pass`` marks the
entries that ``pbem check`` (a player's preview, without the moderator key)
cannot refuse: an action sealed to the moderator is opened only by ``submit``.
"""
from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import json
import os
import socket
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
MANIFEST = "MANIFEST.json"
SUFFIX = ".yaml"

#: the placeholders a template may hold (replaced byte for byte by :func:`instantiate`)
PLACEHOLDERS = ("@GAME@", "@PLAYER@", "@AFTER@", "@HASH@")

#: move-file limits the big entries are made just over (pbem.store.movefile / pbem.base.yamlio)
MAX_BYTES = 64 * 1024
MAX_SCALAR = 16 * 1024
MAX_SIGNATURE_BYTES = 8 * 1024


@dataclass(frozen=True)
class Entry:
    name: str               # file stem: letters, digits, '-' (a valid incoming/ name in git mode)
    category: str
    about: str
    data: bytes
    check_may_pass: bool = False


# --- building blocks ---------------------------------------------------------------------

HEAD = ("format: pbem-move/1\ngame: '@GAME@'\nplayer: '@PLAYER@'\nafter: @AFTER@\n"
        "after_hash: '@HASH@'\n")
#: a toy-game action that is well formed but illegal (the toy game knows only draw: true / stop: true)
ILLEGAL = "{draw: false}"


def move(actions: str = f"  - {ILLEGAL}\n", head: str = HEAD) -> str:
    """A move file bound to the right place, with ``actions`` (YAML lines under ``actions:``)."""
    return head + "actions:\n" + actions


def with_field(field: str, value: str | None) -> str:
    """The bound move file with one field replaced by ``value`` (None: left out)."""
    if field == "actions":
        return HEAD + ("" if value is None else f"actions: {value}\n")
    lines = []
    for line in move().splitlines(keepends=True):
        if line.startswith(field + ":"):
            if value is not None:
                lines.append(f"{field}: {value}\n")
        else:
            lines.append(line)
    return "".join(lines)


def stream(label: str, size: int) -> bytes:
    """Deterministic pseudo-random bytes (SHA-256 in counter mode), the same on every machine:
    the digests of ``label/0``, ``label/1``... one after the other, cut at ``size``."""
    prefix, sha256 = label.encode() + b"/", hashlib.sha256
    return b"".join([sha256(prefix + b"%d" % counter).digest() for counter in range(-(-size // 32))])[:size]


def u(text: str) -> bytes:
    return text.encode("utf-8")


# --- the committed corpus -----------------------------------------------------------------

def _bombs() -> list[Entry]:
    laughs = ["format: pbem-move/1", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        laughs.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    in_actions = move("  - {draw: &x [a, a, a, a, a, a, a, a]}\n" + "".join(
        "  - {draw: [*x, *x, *x, *x, *x, *x, *x, *x]}\n" for _ in range(60)))
    many = move("".join(f"  - {{draw: &a{i} v}}\n" for i in range(3000)))
    quadratic = ("format: pbem-move/1\nlong: &s '" + "x" * 12000 + "'\nmore: [" + ", ".join(["*s"] * 400) + "]\n")
    return [
        Entry("bomb-billion-laughs", "bomb", "the classic alias bomb: 9 levels of 9 aliases (10^9 strings)",
              u("\n".join(laughs) + "\n")),
        Entry("bomb-aliases-in-actions", "bomb", "aliases of an anchored list inside the actions", u(in_actions)),
        Entry("bomb-many-anchors", "bomb", "3000 anchors, one per action", u(many)),
        Entry("bomb-quadratic", "bomb", "a 12 KB string aliased 400 times (5 MB once expanded)", u(quadratic)),
        Entry("bomb-alias-as-key", "bomb", "an alias used as a mapping key",
              u("format: &f pbem-move/1\n*f : x\n")),
        Entry("bomb-merge-key", "bomb", "a merge key (<<) pulling in an anchored mapping",
              u("base: &b {format: pbem-move/1, game: '@GAME@'}\n<<: *b\n" + move().split("\n", 2)[2])),
        Entry("bomb-recursive", "bomb", "a list that contains itself", u(move("  - &r [*r]\n"))),
        Entry("bomb-undefined-alias", "bomb", "an alias of an anchor that does not exist",
              u(move("  - *nothing\n"))),
        Entry("bomb-anchored-document", "bomb", "an anchor on the whole document", u("--- &top\n" + move())),
    ]


def _nesting() -> list[Entry]:
    def block_mapping(depth: int) -> str:
        return "".join("  " * i + f"k{i}:\n" for i in range(depth)) + "  " * depth + "x\n"

    def flow(depth: int) -> str:
        return "[" * depth + "]" * depth

    return [
        Entry("nest-brackets-5000", "nesting", "5000 unclosed [", b"[" * 5000),
        Entry("nest-braces-3000", "nesting", "3000 nested {a: ...}", u("{a: " * 3000 + "x" + "}" * 3000 + "\n")),
        Entry("nest-flow-13", "nesting", "flow lists nested 13 deep (the limit is 12)", u(flow(13) + "\n")),
        Entry("nest-block-mapping-200", "nesting", "block mappings indented 200 levels", u(block_mapping(200))),
        Entry("nest-block-sequence-300", "nesting", "'- - - ...' 300 nested sequences on one line",
              u("- " * 300 + "x\n")),
        Entry("nest-mixed-2000", "nesting", "[{a: [{a: ... 2000 deep", u("[{a: " * 1000 + "x" + "}]" * 1000 + "\n")),
        Entry("nest-in-action-13", "nesting", "an action whose value is nested 13 deep in all",
              u(move("  - {draw: " + flow(11) + "}\n"))),
        Entry("nest-at-the-limit", "nesting", "an action nested exactly to the limit (reaches the rules)",
              u(move("  - {draw: " + "[" * 10 + "x" + "]" * 10 + "}\n"))),
    ]


def _keys() -> list[Entry]:
    return [
        Entry("key-sequence", "keys", "a list as a key (unhashable)", b"? [a, b]\n: c\n"),
        Entry("key-mapping-in-list", "keys", "a flow mapping as a key inside a list", b"- {play: none}: x\n"),
        Entry("key-mapping", "keys", "a mapping as a key", b"? {a: 1}\n: x\n"),
        Entry("key-null", "keys", "a null key", b"~: x\nformat: pbem-move/1\n"),
        Entry("key-empty", "keys", "an empty (null) key", b"? \n: x\n"),
        Entry("key-integer", "keys", "an integer key", b"1: x\n"),
        Entry("key-negative", "keys", "a negative integer key", b"-5: x\n"),
        Entry("key-bool", "keys", "a boolean key", b"true: x\n"),
        Entry("key-in-action-integer", "keys", "an integer key inside an action", u(move("  - {1: 2}\n"))),
        Entry("key-in-action-list", "keys", "a list key inside an action", u(move("  - {[a]: b}\n"))),
        Entry("key-duplicate", "keys", "a header key written twice", u(move() + "format: pbem-move/1\n")),
        Entry("key-duplicate-in-action", "keys", "an action key written twice",
              u(move("  - {draw: true, draw: false}\n"))),
    ]


def _binary() -> list[Entry]:
    gz = gzip.compress(b"format: pbem-move/1\n" * 2000, mtime=0)
    return [
        Entry("binary-random", "binary", "4 KB of random bytes", stream("random", 4096)),
        Entry("binary-png", "binary", "a PNG signature and random chunks", b"\x89PNG\r\n\x1a\n" + stream("png", 2000)),
        Entry("binary-elf", "binary", "an ELF header", b"\x7fELF\x02\x01\x01\x00" + bytes(56) + stream("elf", 1000)),
        Entry("binary-gzip", "binary", "gzip-compressed move lines (never decompressed)", gz),
        Entry("binary-zeros", "binary", "4 KB of NUL bytes", bytes(4096)),
        Entry("binary-ff", "binary", "4 KB of 0xff", b"\xff" * 4096),
        Entry("binary-sshsig-blob", "binary", "a raw (unarmoured) SSHSIG blob",
              b"SSHSIG\x00\x00\x00\x01" + stream("sshsig", 300)),
    ]


def _encodings() -> list[Entry]:
    text = move()
    return [
        Entry("utf8-invalid-ff", "encoding", "bytes 0xff 0xfe inside a value", u(move("  - {draw: ")) + b"\xff\xfe}\n"),
        Entry("utf8-overlong", "encoding", "an overlong encoding of '/'", u(move("  - {draw: a")) + b"\xc0\xaf}\n"),
        Entry("utf8-surrogate", "encoding", "an encoded UTF-16 surrogate", u(move("  - {draw: ")) + b"\xed\xa0\x80}\n"),
        Entry("utf8-truncated", "encoding", "a multi-byte character cut off at the end", u(text) + b"\xe2\x82"),
        Entry("utf8-latin1", "encoding", "a Latin-1 'e acute' in a value", u(move("  - {draw: caf")) + b"\xe9}\n"),
        Entry("utf16-le-bom", "encoding", "the move file in UTF-16 LE with a BOM", b"\xff\xfe" + text.encode("utf-16-le")),
        Entry("utf16-be", "encoding", "the move file in UTF-16 BE without a BOM", text.encode("utf-16-be")),
        Entry("utf32-le-bom", "encoding", "the move file in UTF-32 LE with a BOM", text.encode("utf-32")),
        Entry("utf8-noncharacter", "encoding", "U+FFFE (a non-character) in a value",
              u(move("  - {draw: a\ufffeb}\n"))),
        Entry("bom-utf8", "encoding", "a UTF-8 BOM before a well-formed move (reaches the rules)",
              b"\xef\xbb\xbf" + u(text)),
        Entry("bom-in-the-middle", "encoding", "a UTF-8 BOM in front of the actions line",
              u(text.replace("actions:", "\ufeffactions:"))),
        Entry("bom-twice", "encoding", "two UTF-8 BOMs", b"\xef\xbb\xbf\xef\xbb\xbf" + u(text)),
    ]


def _control() -> list[Entry]:
    return [
        Entry("ctrl-nul-in-value", "control", "a raw NUL in a value", u(move("  - {draw: a")) + b"\x00b}\n"),
        Entry("ctrl-nul-in-key", "control", "a raw NUL in a key", u(move("  - {dr")) + b"\x00aw: true}\n"),
        Entry("ctrl-escape-raw", "control", "a raw terminal escape sequence",
              u(move("  - {draw: \x1b[2J\x1b[31mred}\n"))),
        Entry("ctrl-escape-quoted", "control", "terminal escapes written as YAML escapes (they reach the rules)",
              u(move('  - {draw: "\\e[2J\\e[31mred\\e]0;owned\\a"}\n'))),
        Entry("ctrl-del", "control", "a raw DEL", u(move("  - {draw: a\x7fb}\n"))),
        Entry("ctrl-bell-backspace", "control", "bell and backspaces as YAML escapes",
              u(move('  - {draw: "ok\\b\\b\\bno\\a"}\n'))),
        Entry("ctrl-nul-quoted", "control", "a NUL as a YAML escape (reaches the rules)",
              u(move('  - {"dr\\0aw": true}\n'))),
        Entry("ctrl-c1-csi", "control", "the C1 control U+009B (CSI)", u(move("  - {draw: a\u009b2Jb}\n"))),
        Entry("ctrl-next-line", "control", "U+0085 NEXT LINE, which YAML reads as a line break",
              u(move(f"  - {ILLEGAL}\u0085  - {{stop: true}}\n"))),
        Entry("ctrl-vertical-tab", "control", "raw vertical tab and form feed", u(move("  - {draw: \x0b\x0c}\n"))),
        Entry("ctrl-cr-only", "control", "old Mac line endings (CR only)", u(move().replace("\n", "\r"))),
        Entry("ctrl-line-separator", "control", "U+2028 LINE SEPARATOR in a value",
              u(move("  - {draw: 'a\u2028b'}\n"))),
        Entry("ctrl-in-player", "control", "terminal escapes in the player name",
              u(with_field("player", '"red\\e[0m\\e]0;x\\a"'))),
        Entry("ctrl-in-game", "control", "terminal escapes in the game id", u(with_field("game", '"\\e]0;pwned\\a"'))),
    ]


def _bidi() -> list[Entry]:
    return [
        Entry("bidi-rlo-in-value", "bidi", "RIGHT-TO-LEFT OVERRIDE in an action value",
              u(move("  - {draw: \u202etrue}\n"))),
        Entry("bidi-rlo-in-key", "bidi", "RIGHT-TO-LEFT OVERRIDE in an action key", u(move("  - {\u202ewerd: true}\n"))),
        Entry("bidi-in-player", "bidi", "bidi controls in the player name", u(with_field("player", "\u202ederla\u202c"))),
        Entry("bidi-in-game", "bidi", "bidi controls in the game id", u(with_field("game", "toy-\u2067evil\u2069"))),
        Entry("bidi-isolates", "bidi", "every bidi isolate and embedding in one value",
              u(move("  - {draw: \u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u202e}\n"))),
        Entry("bidi-zero-width", "bidi", "zero-width space and joiner inside 'draw'",
              u(move("  - {dr\u200baw: tr\u200due}\n"))),
        Entry("bidi-in-comment", "bidi", "bidi controls in a comment (comments are ignored)",
              u("# \u202eevom a si siht\n" + move())),
        Entry("bidi-homoglyph", "bidi", "a Cyrillic 'a' in 'draw' (looks the same)", u(move("  - {dr\u0430w: true}\n"))),
        Entry("bidi-rtl-text-long", "bidi", "a long right-to-left text in a value",
              u(move("  - {draw: '" + "\u05e9\u05dc\u05d5\u05dd " * 500 + "'}\n"))),
    ]


def _tags() -> list[Entry]:
    tags = {
        "python-apply": "!!python/object/apply:os.system ['echo owned']",
        "python-new": "!!python/object/new:subprocess.Popen [[echo, owned]]",
        "python-object": "!!python/object:collections.OrderedDict {}",
        "python-name": "!!python/name:os.system",
        "python-module": "!!python/module:os",
        "python-tuple": "!!python/tuple [a, b]",
        "python-bytes": "!!python/bytes aGVsbG8=",
        "binary": "!!binary aGVsbG8=",
        "set": "!!set {a, b}",
        "omap": "!!omap [a: 1, b: 2]",
        "pairs": "!!pairs [a: 1, a: 2]",
        "timestamp": "!!timestamp 2001-12-14",
        "float": "!!float 1.5",
        "int": "!!int 7",
        "str": "!!str true",
        "bool": "!!bool yes",
        "null": "!!null ''",
        "map": "!!map {a: b}",
        "seq": "!!seq [a]",
        "merge": "!!merge <<",
        "value": "!!value =",
        "local": "!local thing",
        "verbatim": "!<tag:yaml.org,2002:str> x",
        "non-specific": "! x",
        "unknown-global": "!<tag:example.com,2024:evil> x",
    }
    out = [Entry(f"tag-{name}", "tags", f"the tag {tag.split()[0]} on an action value",
                 u(move(f"  - {{draw: {tag}}}\n"))) for name, tag in tags.items()]
    out += [
        Entry("tag-directive", "tags", "a %TAG directive and a tag using its handle",
              u("%TAG !e! tag:example.com,2000:app/\n---\n" + move("  - {draw: !e!foo x}\n"))),
        Entry("tag-on-actions", "tags", "a tag on the actions list", u(move().replace("actions:", "actions: !!seq"))),
        Entry("tag-on-document", "tags", "a tag on the whole document", u("--- !!map\n" + move())),
        Entry("tag-on-key", "tags", "a tag on a key", u(move("  - {!!str draw: true}\n"))),
    ]
    return out


def _documents() -> list[Entry]:
    return [
        Entry("doc-two-documents", "documents", "two YAML documents", u(move() + "---\n" + move())),
        Entry("doc-empty-second", "documents", "a second, empty document", u(move() + "---\n...\n---\n")),
        Entry("doc-end-then-junk", "documents", "junk after the document-end marker",
              u(move() + "...\n\x01\x02 garbage [\n")),
        Entry("doc-yaml-1-1", "documents", "a %YAML 1.1 directive (reaches the rules)", u("%YAML 1.1\n---\n" + move())),
        Entry("doc-yaml-2-0", "documents", "a %YAML 2.0 directive", u("%YAML 2.0\n---\n" + move())),
        Entry("doc-empty", "documents", "an empty file", b""),
        Entry("doc-only-comment", "documents", "only a comment", b"# nothing here\n"),
        Entry("doc-scalar", "documents", "a plain scalar", b"pbem-move/1 is what I mean\n"),
        Entry("doc-list", "documents", "a list instead of a mapping", u("- " + move().replace("\n", "\n  "))),
        Entry("doc-whitespace", "documents", "only blank lines and spaces", b"\n   \n\t\n"),
    ]


def _fields() -> list[Entry]:
    wrong = {
        "format": ["7", "[pbem-move/1]", "{v: 1}", "~", "true", "pbem-move/2", "PBEM-MOVE/1", None],
        "game": ["7", "[x]", "{a: b}", "~", "true", "''", "'" + "g" * 200 + "'", None],
        "player": ["7", "[red]", "{name: red}", "~", "true", "''", "blue", "nobody", None],
        "after": ["one", "1.5", "-1", "99999999999999999999999", "true", "[0]", "~", "0x10",
                  "9" * 5000, None],
        "after_hash": ["7", "[x]", "~", "abc", "'" + "a" * 200 + "'", "true", "zzzzzzzzzzzzzzzz", None],
        "actions": ["draw", "{draw: true}", "7", "~", "[]", "true", None],
    }
    out = []
    for field, values in wrong.items():
        for n, value in enumerate(values):
            shown = "left out" if value is None else (value if len(value) < 30 else f"{value[:12]}... ({len(value)} chars)")
            name = f"field-{field.replace('_', '-')}-{n + 1:02d}"
            out.append(Entry(name, "fields", f"'{field}' is {shown}", u(with_field(field, value))))
    return out


def _unknown_and_counts() -> list[Entry]:
    many_keys = move() + "".join(f"x{i}: {i}\n" for i in range(1000))
    return [
        Entry("unknown-extra-key", "unknown keys", "an extra key", u(move() + "comment: hi\n")),
        Entry("unknown-capitalised", "unknown keys", "'Actions' instead of 'actions'",
              u(move().replace("actions:", "Actions:"))),
        Entry("unknown-1000-keys", "unknown keys", "1000 unknown keys", u(many_keys)),
        Entry("actions-101", "counts", "101 actions (the cap is 100)", u(move("  - {draw: true}\n" * 101))),
        Entry("actions-100-illegal", "counts", "100 illegal actions (at the cap: reaches the rules)",
              u(move(f"  - {ILLEGAL}\n" * 100))),
        Entry("actions-5000-flow", "counts", "5000 actions in one flow list",
              u(move().replace(f"actions:\n  - {ILLEGAL}\n", "actions: [" + ", ".join(["{x: 1}"] * 5000) + "]\n"))),
    ]


def _action_shapes() -> list[Entry]:
    shapes = {
        "string": "draw", "integer": "7", "null": "~", "list": "[draw, true]", "empty-mapping": "{}",
        "nested-lists": "[[[]]]", "fifty-keys": "{" + ", ".join(f"k{i}: {i}" for i in range(50)) + "}",
        "unknown": "{dance: true}", "draw-text": "{draw: 'true'}", "draw-list": "{draw: [true]}",
        "draw-mapping": "{draw: {true: true}}", "draw-null": "{draw: ~}",
        "huge-integer": "{draw: " + "7" * 4000 + "}", "both": "{draw: true, stop: true}",
        "long-key": "{" + "k" * 10000 + ": true}", "quoted-empty-key": "{'': true}",
        "stop-false": "{stop: false}", "block-scalar": "{draw: |\n      true\n    }",
    }
    out = [Entry(f"action-{name}", "action shapes", f"an action that is {name.replace('-', ' ')}: {text[:40]}",
                 u(move(f"  - {text}\n"))) for name, text in shapes.items()]
    out += [
        Entry("action-then-garbage", "action shapes", "a legal action, then a number",
              u(move("  - {draw: true}\n  - 7\n"))),
        Entry("action-stop-then-more", "action shapes", "stop, then an action out of turn",
              u(move("  - {stop: true}\n  - {stop: true}\n"))),
    ]
    return out


def _numbers() -> list[Entry]:
    values = {"nan": ".nan", "inf": ".inf", "minus-inf": "-.inf", "exponent": "1e3", "float": "0.0",
              "hex": "0x0", "octal": "0o0", "underscore": "0_0", "timestamp": "2001-12-14t21:59:43.10-05:00",
              "date": "2024-01-01", "sexagesimal": "0:00"}
    out = [Entry(f"number-after-{name}", "numbers", f"after: {text}", u(with_field("after", text)))
           for name, text in values.items()]
    out += [
        Entry("number-in-action-nan", "numbers", "NaN in an action", u(move("  - {draw: .nan}\n"))),
        Entry("number-in-action-date", "numbers", "a timestamp in an action", u(move("  - {draw: 2024-01-01}\n"))),
        Entry("number-hash-float", "numbers", "after_hash: 1e10", u(with_field("after_hash", "1e10"))),
        Entry("number-stale-hash", "numbers", "an after_hash of zeros (a position that never was)",
              u(with_field("after_hash", "'" + "0" * 64 + "'"))),
    ]
    return out


def _sealed() -> list[Entry]:
    armour = "-----BEGIN AGE ENCRYPTED FILE-----\n{}\n-----END AGE ENCRYPTED FILE-----"
    fake = armour.format(base64.b64encode(stream("age", 600)).decode())
    huge = armour.format(base64.b64encode(stream("age-huge", 11000)).decode())
    shapes = {
        "garbage": "{sealed: garbage, commit: abc}",
        "empty": "{sealed: '', commit: ''}",
        "fake-armour": "{sealed: " + json.dumps(fake) + ", commit: " + "0" * 64 + "}",
        "huge-armour": "{sealed: " + json.dumps(huge) + ", commit: " + "0" * 64 + "}",
        "list": "{sealed: [a, b], commit: [c]}",
        "mapping": "{sealed: {a: b}, commit: {c: d}}",
        "integer": "{sealed: 7, commit: 8}",
        "null": "{sealed: ~, commit: ~}",
        "binary-text": "{sealed: " + json.dumps(stream("bin", 200).decode("latin-1")) + ", commit: x}",
        "age-header-only": '{sealed: "age-encryption.org/v1\\n-> X25519 AAAA\\n--- AAAA\\n", commit: x}',
    }
    out = [Entry(f"sealed-{name}", "sealed", f"a sealed action that is {name.replace('-', ' ')}",
                 u(move(f"  - {text}\n")), check_may_pass=True) for name, text in shapes.items()]
    out.append(Entry("sealed-extra-key", "sealed", "a sealed action with a third key (so not a sealed action)",
                     u(move("  - {sealed: x, commit: y, secret: z}\n"))))
    return out


def _mail() -> list[Entry]:
    text = move()
    nbsp = text.replace("  - ", "\u00a0\u00a0- ")
    flowed = text.replace("after_hash: ", "after_hash: \n ")
    return [
        Entry("mail-crlf", "mail", "CRLF line endings (reaches the rules)", u(text.replace("\n", "\r\n"))),
        Entry("mail-crlf-trailing-spaces", "mail", "CRLF and trailing spaces",
              u(text.replace("\n", "  \r\n"))),
        Entry("mail-nbsp-indent", "mail", "non-breaking spaces as indentation", u(nbsp)),
        Entry("mail-flowed", "mail", "a format=flowed soft break left in the text", u(flowed)),
        Entry("mail-quoted-reply", "mail", "every line quoted with '> '",
              u("".join("> " + line for line in text.splitlines(keepends=True)))),
        Entry("mail-quoted-printable", "mail", "quoted-printable left undecoded",
              u(text.replace("=", "=3D").replace("\n", "=0A\n").replace(": ", ":=20"))),
        Entry("mail-tab-indent", "mail", "tabs as indentation", u(text.replace("  - ", "\t- "))),
        Entry("mail-smart-quotes", "mail", "typographic quotes around the values",
              u(text.replace("'", "\u201c"))),
        Entry("mail-html", "mail", "the move wrapped in HTML",
              u("<html><body><p>" + text.replace("\n", "<br>\n") + "</p></body></html>\n")),
        Entry("mail-signature-dashes", "mail", "a mail signature after the move",
              u(text + "-- \nSent from my phone\n")),
        Entry("mail-base64-undecoded", "mail", "the move still base64-encoded", base64.encodebytes(u(text))),
    ]


def _strings() -> list[Entry]:
    return [
        Entry("string-over-limit", "strings", "a value one character over the 16 KiB scalar limit",
              u(move("  - {draw: '" + "x" * (MAX_SCALAR + 1) + "'}\n"))),
        Entry("string-at-limit", "strings", "a value of exactly 16 KiB (reaches the rules)",
              u(move("  - {draw: '" + "x" * MAX_SCALAR + "'}\n"))),
        Entry("string-many-lines", "strings", "a literal block of 3000 lines",
              u(move("  - draw: |\n" + "      line\n" * 3000))),
        Entry("string-long-line-of-spaces", "strings", "60 000 spaces then a value",
              u(move("  - {draw: " + " " * 60000 + "x}\n"))),
    ]


def committed_entries() -> list[Entry]:
    """Every entry of the committed corpus, in a fixed order."""
    groups: list[Callable[[], list[Entry]]] = [
        _bombs, _nesting, _keys, _binary, _encodings, _control, _bidi, _tags, _documents, _fields,
        _unknown_and_counts, _action_shapes, _numbers, _sealed, _mail, _strings]
    entries = [e for group in groups for e in group()]
    names = [e.name for e in entries]
    assert len(names) == len(set(names)), "corpus names must be unique"
    return entries


# --- made at test time ------------------------------------------------------------------------

def big_entries() -> list[Entry]:
    """Files just over the size limits, and bigger (too big to commit).  Made once per process
    (collection names them, the tests' game binds them; the 8 MiB stream is 262,144 hashes)."""
    return list(_big_entries())


@functools.lru_cache(maxsize=1)
def _big_entries() -> tuple[Entry, ...]:
    pad = "#" + "x" * 78 + "\n"
    body = move()
    over = body + pad * ((MAX_BYTES - len(body)) // len(pad) + 1)
    return (
        Entry("huge-just-over", "huge", "one comment line past 64 KiB", u(over)),
        Entry("huge-exactly-limit-plus-one", "huge", "64 KiB + 1 byte",
              u(body) + b"#" * (MAX_BYTES + 1 - len(u(body)) - 1) + b"\n"),
        Entry("huge-string-100k", "huge", "a 100 KB string in an action",
              u(move("  - {draw: '" + "x" * 100_000 + "'}\n"))),
        Entry("huge-one-mib", "huge", "1 MiB of move lines", u(body + "  - {draw: false}\n" * 65536)),
        Entry("huge-eight-mib-binary", "huge", "8 MiB of random bytes", stream("huge", 8 * 1024 * 1024)),
    )


def sealed_entries(moderator_key: str, seal: Callable[[bytes, str], str]) -> list[Entry]:
    """Sealed actions that are real age encryptions to the game's moderator key, but wrong inside.

    ``seal(plaintext, key)`` returns the age armour.  None may reveal what it holds in a refusal:
    each plaintext holds the marker ``SECRET-CONTENT``."""
    def sealed(plaintext: str, commit: str | None = None) -> str:
        data = plaintext.encode()
        digest = commit if commit is not None else hashlib.sha256(data).hexdigest()
        return "  - {sealed: " + json.dumps(seal(data, moderator_key)) + ", commit: " + digest + "}\n"
    salt = "salt: 00112233445566778899aabbccddeeff\n"
    bomb = salt + "x: &a [SECRET-CONTENT, SECRET-CONTENT]\ny: [*a, *a, *a]\naction: {draw: true}\n"
    plaintexts = {
        "wrong-commit": (salt + "action: {draw: SECRET-CONTENT}\n", "0" * 64),
        "illegal-action": (salt + "action: {draw: SECRET-CONTENT}\n", None),
        "unknown-action": (salt + "action: {SECRET-CONTENT: true}\n", None),
        "alias-bomb": (bomb, None),
        "python-tag": (salt + "action: !!python/object/apply:os.system [SECRET-CONTENT]\n", None),
        "not-a-mapping": ("- SECRET-CONTENT\n", None),
        "no-salt": ("action: {draw: SECRET-CONTENT}\n", None),
        "action-not-mapping": (salt + "action: SECRET-CONTENT\n", None),
        "deep": (salt + "action: {draw: " + "[" * 20 + "SECRET-CONTENT" + "]" * 20 + "}\n", None),
    }
    out = [Entry(f"sealed-real-{name}", "sealed", f"a real sealed action whose plaintext is {name.replace('-', ' ')}",
                 u(move(sealed(text, commit))), check_may_pass=True)
           for name, (text, commit) in plaintexts.items()]
    return out


def make_special_files(folder: Path, outside: Path) -> dict[str, Path]:
    """Special files in ``folder``, each a move file with a .sig beside it; ``outside`` is a
    folder out of the game.  Returns name -> the move file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    made: dict[str, Path] = {}

    def sig_for(path: Path) -> None:
        path.with_name(path.name + ".sig").write_text(GARBAGE_ARMOUR)

    fifo = folder / "fifo.yaml"
    os.mkfifo(fifo)
    sig_for(fifo)
    made["fifo"] = fifo
    zero = folder / "dev-zero.yaml"
    zero.symlink_to("/dev/zero")
    sig_for(zero)
    made["symlink-dev-zero"] = zero
    urandom = folder / "dev-urandom.yaml"
    urandom.symlink_to("/dev/urandom")
    sig_for(urandom)
    made["symlink-dev-urandom"] = urandom
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "elsewhere.yaml").write_bytes(u(move()))
    out = folder / "outside.yaml"
    out.symlink_to(outside / "elsewhere.yaml")
    sig_for(out)
    made["symlink-out-of-the-game"] = out
    loop = folder / "loop.yaml"
    loop.symlink_to(loop)
    sig_for(loop)
    made["symlink-loop"] = loop
    dangling = folder / "dangling.yaml"
    dangling.symlink_to(outside / "does-not-exist")
    sig_for(dangling)
    made["symlink-dangling"] = dangling
    directory = folder / "move.yaml"
    directory.mkdir()
    (directory / "inside").write_text("x")
    sig_for(directory)
    made["folder-named-move-yaml"] = directory
    sock_path = folder / "socket.yaml"
    here = os.getcwd()
    try:
        os.chdir(folder)            # bound by a short relative name: a socket path must be short
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.bind(sock_path.name)   # the socket file stays; nobody listens
    finally:
        os.chdir(here)
    sig_for(sock_path)
    made["socket"] = sock_path
    # a regular move whose *signature* is the special file
    for name, target in (("sig-fifo", None), ("sig-dev-zero", "/dev/zero"), ("sig-folder", "dir")):
        path = folder / f"{name}.yaml"
        path.write_bytes(u(move()))
        sig = path.with_name(path.name + ".sig")
        if target is None:
            os.mkfifo(sig)
        elif target == "dir":
            sig.mkdir()
        else:
            sig.symlink_to(target)
        made[name] = path
    return made


# --- garbage signatures ---------------------------------------------------------------------------

def _armour(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    return ("-----BEGIN SSH SIGNATURE-----\n" + "\n".join(text[i:i + 70] for i in range(0, len(text), 70))
            + "\n-----END SSH SIGNATURE-----\n")


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _sshsig(key_type: bytes = b"ssh-ed25519", namespace: bytes = b"pbem-move", hashalg: bytes = b"sha512",
            sig_type: bytes = b"ssh-ed25519", raw_key: bytes = bytes(32), raw_sig: bytes = bytes(64)) -> bytes:
    return (b"SSHSIG" + struct.pack(">I", 1) + _string(_string(key_type) + _string(raw_key)) + _string(namespace)
            + _string(b"") + _string(hashalg) + _string(_string(sig_type) + _string(raw_sig)))


GARBAGE_ARMOUR = _armour(stream("garbage-sig", 300))


def garbage_signatures(player_key: bytes = bytes(32)) -> dict[str, str]:
    """Signatures nobody can have made: damaged armour, and well-formed blobs with hostile fields.

    ``player_key`` (the 32 raw bytes of a player's public key, which anyone may know) makes the
    blobs that claim to be that player's, so that they get past the key check."""
    evil = "\u202e\x1b[2J" + "A" * 3000
    return {
        "players-key-evil-namespace": _armour(_sshsig(namespace=evil.encode(), raw_key=player_key)),
        "players-key-zero-signature": _armour(_sshsig(raw_key=player_key)),
        "players-key-sha1": _armour(_sshsig(hashalg=b"sha1", raw_key=player_key)),
        "random-blob": GARBAGE_ARMOUR,
        "empty": "",
        "not-armoured": "this is not a signature\n",
        "bad-base64": "-----BEGIN SSH SIGNATURE-----\n!!!!\n-----END SSH SIGNATURE-----\n",
        "cut-short": GARBAGE_ARMOUR.split("-----END")[0],
        "binary": stream("sig-binary", 200).decode("latin-1"),
        "bidi-key-type": _armour(_sshsig(key_type=evil.encode())),
        "control-hashalg": _armour(_sshsig(hashalg=evil.encode())),
        "long-namespace": _armour(_sshsig(namespace=evil.encode())),
        "bidi-sig-type": _armour(_sshsig(sig_type=evil.encode())),
        "zero-key": _armour(_sshsig()),
        "non-utf8-key-type": _armour(_sshsig(key_type=b"\xff\xfe" * 100)),
        "huge-length": _armour(b"SSHSIG" + struct.pack(">I", 1) + struct.pack(">I", 0xFFFFFFFF) + b"x" * 10),
        "over-the-limit": _armour(stream("sig-big", MAX_SIGNATURE_BYTES)),
    }


# --- templates -> files -------------------------------------------------------------------------------

def instantiate(template: bytes, game: str, player: str, after: int, after_hash: str) -> bytes:
    """The template with its placeholders filled in (byte for byte; binary files are left alone)."""
    for key, value in (("@GAME@", game), ("@PLAYER@", player), ("@AFTER@", str(after)), ("@HASH@", after_hash)):
        template = template.replace(key.encode(), value.encode())
    return template


def manifest(entries: list[Entry]) -> dict[str, dict[str, object]]:
    return {e.name + SUFFIX: {"category": e.category, "about": e.about,
                              **({"check_may_pass": True} if e.check_may_pass else {})} for e in entries}


def write_corpus(folder: Path = CORPUS) -> list[Path]:
    """Write every committed entry and the manifest into ``folder`` (stale files removed)."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = committed_entries()
    wanted = {e.name + SUFFIX for e in entries} | {MANIFEST}
    for old in folder.iterdir():
        if old.name not in wanted:
            old.unlink()
    written = []
    for entry in entries:
        path = folder / (entry.name + SUFFIX)
        path.write_bytes(entry.data)
        written.append(path)
    (folder / MANIFEST).write_text(json.dumps(manifest(entries), indent=1, ensure_ascii=True) + "\n")
    return written


def load_corpus(folder: Path = CORPUS) -> list[Entry]:
    """The committed corpus as it is on disk (name, category, about, bytes)."""
    info = json.loads((folder / MANIFEST).read_text())
    return [Entry(name[: -len(SUFFIX)], str(meta["category"]), str(meta["about"]), (folder / name).read_bytes(),
                  bool(meta.get("check_may_pass", False))) for name, meta in info.items()]


if __name__ == "__main__":
    paths = write_corpus(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS)
    print(f"wrote {len(paths)} corpus files and {MANIFEST} to {paths[0].parent}")
