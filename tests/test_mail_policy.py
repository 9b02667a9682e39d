"""pbem's mail policy (pbem.base.mailpolicy.MAIL_POLICY) reads and writes what the standard
library's ``email.policy.default`` does: the same header values, defects and parameters, the same
folded header lines, the same message bytes, while it makes each header class once, parses each
header value once (a bounded store) and folds each header once per fold setting.  And the count of
a fetched message's multipart sections (pbem.transport.mail.imap) is the case-blind count."""
from __future__ import annotations

import copy
import email.generator
import pickle
import re
from email import policy as stdpolicy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

import pytest

from pbem.base.mailpolicy import KEPT_CHARS, LONGEST_KEPT, MAIL_POLICY, SHORTEST_COUNTED
from pbem.transport.mail.imap import multipart_count

REGISTRY: Any = MAIL_POLICY.header_factory
STD = stdpolicy.default

#: header values as pbem writes them and as players' clients and strangers write them
HEADERS: list[tuple[str, str]] = [
    ("From", "Game Moderator <gm@pbem.test>"),
    ("To", "Red Player <red@pbem.test>"),
    ("To", "a@b.test, \"Smith, J.\" <j@x.test>, friends: c@d.test, e@f.test;"),
    ("Reply-To", "=?utf-8?q?R=C3=A9d?= <red@pbem.test>"),
    ("From", "=?utf-8?q?=E2=80=AERed=0A?= <red@pbem.test>"),
    ("From", "broken <<@>>, ,; \\"),
    ("Cc", "undisclosed-recipients:;"),
    ("Subject", "[g1] Survive: Escape from Atlantis!"),
    ("Subject", "Re: [g1] your move \u202e\u2067 caf\u00e9 " + "long words " * 12),
    ("Subject", "=?utf-8?q?move=0ABcc=3A_everyone=E2=80=AE?= tail"),
    ("Subject", "=?unknown-8bit?q?=FF?= and =?bogus"),
    ("Subject", "8-bit \udcff\udcfe from the wire"),
    ("Subject", ""),
    ("Date", "Fri, 27 Nov 2026 07:00:00 +0000"),
    ("Date", "not a date at all"),
    ("Message-ID", "<g1.5.red.1234@pbem.test>"),
    ("Message-ID", "<\u202e" + "m" * 100 + "@evil.test>"),
    ("Message-ID", "no angle brackets"),
    ("In-Reply-To", "<a@b.test>"),
    ("References", "<a@b.test> <c@d.test>"),
    ("MIME-Version", "1.0"),
    ("MIME-Version", "1.0 (produced by a client)"),
    ("Content-Type", "text/plain; charset=\"utf-8\""),
    ("Content-Type", "multipart/mixed; boundary=\"===============1234567890==\""),
    ("Content-Type", "text/plain; charset=utf-8; charset=latin-1"),                      # duplicated
    ("Content-Type", "application/octet-stream; name*0=\"a\"; name*1=\"b\"; name*0=\"c\""),
    ("Content-Type", "text/plain; charset*=utf-8''%E2%82%AC; format=flowed"),
    ("Content-Type", "multipart/mixed; boundary=\"\""),
    ("Content-Type", "text/plain; charset=x-no-such"),
    ("Content-Type", "garbage"),
    ("Content-Type", "text/"),
    ("Content-Disposition", "attachment; filename=\"move.yaml\""),
    ("Content-Disposition", "attachment; filename*=utf-8''%E2%80%AE%1B%5B2J" + "A" * 120 + ".yaml"),
    ("Content-Disposition", "inline; filename=\"lonely\x07\u2067.yaml\""),
    ("Content-Disposition", "attachment; filename=a; filename=b"),
    ("Content-Transfer-Encoding", "base64"),
    ("Content-Transfer-Encoding", "7bit (comment)"),
    ("Content-Transfer-Encoding", "x-unknown extra"),
    ("Auto-Submitted", "auto-generated"),
    ("X-PBEM-Game", "g1"),
    ("X-PBEM-Entry", "17"),
    ("X-Long", "x" * 240),
    ("X-Longer", "y" * (LONGEST_KEPT + 50)),
]

#: the fold settings a header is written with: as_bytes, SMTP (CRLF, and SMTPUTF8), short lines, none
FOLDS = [STD, STD.clone(linesep="\r\n"), STD.clone(linesep="\r\n", utf8=True), STD.clone(max_line_length=40),
         STD.clone(max_line_length=None)]


def _made(policy: Any, name: str, value: str) -> Any:
    try:
        return policy.header_factory(name, value)
    except Exception as exc:  # noqa: BLE001 - the same refusal is expected from both
        return exc


def _reading(header: Any) -> dict[str, Any]:
    """Everything a reader gets from a header object (or the error making it raised)."""
    if isinstance(header, Exception):
        return {"error": (type(header), str(header))}
    out: dict[str, Any] = {"str": str(header), "name": header.name, "kind": type(header).__mro__[1],
                           "defects": [(type(d), str(d)) for d in header.defects], "max_count": header.max_count}
    for attr in ("params", "content_type", "maintype", "subtype", "cte", "datetime", "version", "major",
                 "minor", "content_disposition"):
        if hasattr(header, attr):
            value = getattr(header, attr)
            out[attr] = dict(value) if attr == "params" else value
    if hasattr(header, "groups"):
        out["groups"] = [(g.display_name, [(a.display_name, a.username, a.domain) for a in g.addresses])
                         for g in header.groups]
    folds = []
    for pol in FOLDS:
        try:
            folds.append(header.fold(policy=pol))
        except Exception as exc:  # noqa: BLE001
            folds.append((type(exc), str(exc)))
    out["folds"] = folds
    return out


@pytest.mark.parametrize("name,value", HEADERS, ids=[f"{n}-{i}" for i, (n, _v) in enumerate(HEADERS)])
def test_each_header_reads_and_folds_as_the_standard_librarys(name: str, value: str) -> None:
    expected = _reading(_made(STD, name, value))
    first = _made(MAIL_POLICY, name, value)
    assert _reading(first) == expected
    again = _made(MAIL_POLICY, name, value)           # the kept one (or parsed anew), read and folded again
    assert _reading(again) == expected
    assert _reading(first) == expected
    # the same value under the name spelt otherwise: its own header (the name is written as given)
    assert _reading(_made(MAIL_POLICY, name.upper(), value)) == _reading(_made(STD, name.upper(), value))
    if not isinstance(first, Exception):
        assert (again is first) == (len(value) <= LONGEST_KEPT)     # parsed once, unless too long to keep


def _message(policy: Any) -> EmailMessage:
    """A digest-like message built the way pbem.transport.mail.compose builds one."""
    msg = EmailMessage(policy=policy)
    for name, value in [("From", "Game Moderator <gm@pbem.test>"), ("To", "Red Player <red@pbem.test>"),
                        ("Subject", "[g1] Survive: Escape from Atlantis! caf\u00e9 " + "word " * 20),
                        ("Date", "Fri, 27 Nov 2026 07:00:00 +0000"), ("Message-ID", "<g1.5.red@pbem.test>"),
                        ("References", "<g1.0.red@pbem.test> <g1.4.red@pbem.test>"),
                        ("X-PBEM-Game", "g1"), ("Auto-Submitted", "auto-generated")]:
        msg[name] = value
    msg.set_content("Your move (log entry 5).\n\n" + "the board\n" * 30)
    msg.add_alternative("<p>the board \u2014 <img src=\"cid:board@pbem.test\"></p>\n", subtype="html")
    html = msg.get_body(("html",))
    assert html is not None
    html.add_related(b"\x89PNG" + bytes(range(256)) * 4, "image", "png", cid="<board@pbem.test>",
                     filename="board-entry5.png", disposition="inline")
    msg.add_attachment(b"-----BEGIN AGE ENCRYPTED FILE-----\nabc\n-----END AGE ENCRYPTED FILE-----\n",
                       "application", "octet-stream", filename="red-entry5.age", cte="7bit")
    msg.add_attachment(b"\x1f\x8b" + bytes(300), "application", "gzip", filename="\u202elong " + "n" * 90 + ".tar.gz")
    msg.add_attachment("receipt: 5\n", filename="receipt-entry5.yaml")
    for n, part in enumerate(msg.walk()):          # the generator would pick random boundaries
        if part.is_multipart():
            part.set_boundary(f"==boundary{n}==")
    return msg


def _values(part: EmailMessage, name: str) -> Any:
    """Every value of a header as read, with its defects (or the error reading it raised)."""
    try:
        return [(str(v), [type(d) for d in v.defects]) for v in part.get_all(name, [])]
    except Exception as exc:  # noqa: BLE001 - a malformed header: the same refusal from both
        return (type(exc), str(exc))


def _parts(msg: EmailMessage) -> list[dict[str, Any]]:
    """What pbem and a player's client read from each part of a parsed message."""
    out = []
    for part in msg.walk():
        assert isinstance(part, EmailMessage)
        try:
            content: Any = part.get_content() if not part.is_multipart() else None
        except Exception as exc:  # noqa: BLE001
            content = (type(exc), str(exc))
        out.append({"type": part.get_content_type(), "params": part.get_params(), "charset": part.get_content_charset(),
                    "filename": part.get_filename(), "attachment": part.is_attachment(),
                    "boundary": part.get_boundary(), "disposition": part.get_content_disposition(),
                    "items": [(k, _values(part, k)) for k, _v in part.raw_items()],
                    "content": content, "defects": [type(d) for d in part.defects]})
    return out


def test_a_composed_message_has_the_standard_librarys_bytes() -> None:
    expected = _message(STD).as_bytes()
    for _ in range(2):                              # the second time from kept headers and kept folds
        built = _message(MAIL_POLICY)
        assert built.as_bytes() == expected
        assert built.as_bytes(policy=MAIL_POLICY.clone(linesep="\r\n")) == \
            _message(STD).as_bytes(policy=STD.clone(linesep="\r\n"))
        assert pickle.loads(pickle.dumps(built)).as_bytes() == expected     # as a host's worker hands it over
        assert copy.copy(built).as_bytes() == expected                       # as smtplib's send_message copies it


RAW_MESSAGES = [
    _message(STD).as_bytes(),
    (b"From: =?utf-8?q?=E2=80=AERed=0A?= <red@pbem.test>\r\nReply-To: red@pbem.test\r\n"
     b"Subject: =?utf-8?q?move=0ABcc=3A_everyone=E2=80=AE?= " + b"x" * 3000 + b"\r\n"
     b"Message-ID: <\xe2\x80\xae" + b"m" * 500 + b"@evil.test>\r\nMIME-Version: 1.0\r\n"
     b"Content-Type: multipart/mixed; boundary=\"b1\"; boundary=\"b2\"\r\n\r\n--b1\r\n"
     b"Content-Type: text/plain; charset=utf-8; charset=latin-1\r\n\r\nsee attachment\r\n--b1\r\n"
     b"Content-Type: application/x-yaml; name*0=\"mo\"; name*1=\"ve.yaml\"\r\n"
     b"Content-Disposition: attachment; filename*=utf-8''%E2%80%AE.yaml; filename=x\r\n\r\nformat: 1\r\n--b1--\r\n"),
    (b"From: red@pbem.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"\"\r\n\r\n--\r\n--\r\n"),
    (b"From: red@pbem.test\r\nContent-Type: text/plain; charset=x-no-such\r\nContent-Transfer-Encoding: base64\r\n"
     b"\r\n!!!not base64!!!\r\n"),
    b"Subject: \xff\xfe 8-bit\r\nContent-Type: text/plain; charset=\"\xff\"\r\n\r\n\xff body\r\n",
]


def _read(raw: bytes, policy: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bytes]:
    """A message parsed with ``policy``: its parts read, read again, and the bytes it writes."""
    msg = BytesParser(policy=policy).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return _parts(msg), _parts(msg), msg.as_bytes()


@pytest.mark.parametrize("raw", RAW_MESSAGES, ids=["composed", "hostile headers", "empty boundary",
                                                   "unknown charset", "8-bit headers"])
def test_a_parsed_message_reads_and_writes_as_with_the_standard_librarys(raw: bytes, monkeypatch) -> None:
    # a multipart without a boundary gets a random one when written: the same one here for both
    monkeypatch.setattr(email.generator.Generator, "_make_boundary", classmethod(lambda cls, text=None: "==b=="))
    expected = _read(raw, STD)
    assert _read(raw, MAIL_POLICY) == expected
    assert _read(raw, MAIL_POLICY) == expected       # from the kept headers


def test_the_kept_headers_stay_bounded_whatever_comes_in() -> None:
    """A stranger's stream of distinct header values (each as costly to keep as a value gets: an
    address list of one-letter addresses) never makes the registry keep more than its bound."""
    kept = REGISTRY.parsed
    capacity = KEPT_CHARS // LONGEST_KEPT
    for n in range(3 * capacity):
        value = (f"{n}," + "a," * LONGEST_KEPT)[:LONGEST_KEPT]
        header = REGISTRY("To", value)
        if n == 0:
            assert _reading(header) == _reading(STD.header_factory("To", value))
        assert kept.chars <= KEPT_CHARS
    assert 0 < len(kept) <= capacity
    assert kept.chars == sum(max(SHORTEST_COUNTED, len(v)) for (_n, v) in kept._kept)
    long_value = "b," * LONGEST_KEPT
    assert REGISTRY("To", long_value) is not REGISTRY("To", long_value)       # too long: parsed each time
    for n in range(KEPT_CHARS):                                                # many short ones
        REGISTRY("X-N", str(n))
        assert kept.chars <= KEPT_CHARS
    assert len(kept) <= KEPT_CHARS // SHORTEST_COUNTED
    assert REGISTRY("X-N", str(KEPT_CHARS - 1)) is REGISTRY("X-N", str(KEPT_CHARS - 1))   # the last ones are kept


@pytest.mark.parametrize("data", [
    b"", b"boundary=", b"BOUNDARY =", b"BoUnDaRy\t\r\n\x0b\x0c=x", b"boundary", b"boundar y=", b"boundaryboundary==",
    b"\xc0BOUNDARY\xdf= \xff" * 7, b"Content-Type: multipart/mixed; Boundary=\"b\"\r\n\r\n--b\r\nboundary  =\r\n--b--",
    bytes(range(256)) * 64 + b"bOUNDARY=" * 70,
], ids=lambda d: f"{len(d)} bytes")
def test_the_multipart_count_is_the_case_blind_count(data: bytes) -> None:
    """multipart_count counts in the lowered bytes what a case-blind bytes pattern finds."""
    case_blind = re.compile(rb"boundary\s*=", re.IGNORECASE)
    assert multipart_count(data) == len(case_blind.findall(data))
