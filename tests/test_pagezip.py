"""A player's page gzipped with its script compressed once (pbem.views.pagezip; issue 24).

The gzip file is one member whose deflate stream is made of three pieces (the page up to its
script, the script compressed once and kept, the rest): every gunzip must read back exactly the
page (the real ``gzip -d``, Python's gzip, pbem's own ``opened_bytes``), the bytes must depend on
the page alone (the memo only saves work), and the file must be about as small as one level-9
stream (a page's bytes count in the mail: pbem.views.outputs.MESSAGE_BYTES).
"""
from __future__ import annotations

import gzip
import random
import shutil
import subprocess

import pytest

from pbem.views import pagezip
from pbem.views.clickpage import model_code, page_script
from pbem.views.outputs import HTML_SUFFIX, opened_bytes, seal_bytes
from pbem.views.pagezip import SCRIPT_CLOSE, SCRIPT_OPEN, gzip_page

SCRIPTS = [(family, keep) for family in ("graph", "survive", "swarm") for keep in ((), ("family",), ("family", "setup"))]


def _script(family: str, keep: tuple[str, ...]) -> bytes:
    """The script element's content as templates/click.html.j2 writes it (the real JS files)."""
    return f'\n"use strict";\nvar PBEM_MODELS = {{}};\n{model_code(family)}\n{page_script(keep)}\n'.encode()


def _words(rng: random.Random, n: int) -> bytes:
    """``n`` bytes of page-like text: tags, numbers, words (repeats, as an SVG board has)."""
    parts = ["<g class=\"pbem-cell\">", "<path d=\"M", "</g>", "<text x=\"", "\"pieces\":[", "red", "blue", "&#8211;",
             " ", "\n", "é", "\u2028"]
    out: list[str] = []
    size = 0
    while size < n:
        word = rng.choice(parts) if rng.random() < 0.7 else str(rng.randint(0, 99999))
        out.append(word)
        size += len(word.encode())
    return "".join(out).encode()[:n]


def _page(rng: random.Random, script: bytes, head: int, tail: int) -> bytes:
    return (b"<!DOCTYPE html>\n" + _words(rng, head) + b'<script type="application/json" id="pbem-click-data">'
            + _words(rng, 500) + b"</script>\n" + SCRIPT_OPEN + script + SCRIPT_CLOSE + b"\n</div>\n"
            + _words(rng, tail) + b"</html>\n")


def _gunzips(data: bytes, plain: bytes) -> None:
    """Every reader gives back ``plain``: Python's gzip, pbem's opened_bytes, the gzip program."""
    assert gzip.decompress(data) == plain
    assert opened_bytes(data) == plain
    assert shutil.which("gzip"), "the gzip program is needed: the page is for any gunzip"
    out = subprocess.run(["gzip", "-d", "-c"], input=data, capture_output=True, check=True, timeout=60)
    assert out.stdout == plain, "gzip -d checks the CRC-32 and the length: it read the member whole"


@pytest.mark.parametrize("family,keep", SCRIPTS)
def test_page_reads_back_and_is_the_same_with_or_without_the_memo(family: str, keep: tuple[str, ...]) -> None:
    rng = random.Random(f"{family}{keep}")
    script = _script(family, keep)
    for head, tail in ((40_000, 6_000), (30, 20), (10, 70_000)):
        plain = _page(rng, script, head, tail)
        made = gzip_page(plain)
        assert made[:2] == b"\x1f\x8b"
        _gunzips(made, plain)
        assert seal_bytes(HTML_SUFFIX, plain) == made
        pagezip._script_deflated.cache_clear()
        assert gzip_page(plain) == made, "the bytes depend on the page alone, not on what the memo held"
        # about as small as one stream at the same level (the splice costs a few flush markers; the
        # rest of the page still refers back into the script)
        whole = len(gzip.compress(plain, compresslevel=pagezip.PAGE_GZIP_LEVEL, mtime=0))
        assert len(made) <= whole * 1.01 + 64, (len(made), whole)


def test_the_script_is_compressed_once_for_every_page_that_holds_it() -> None:
    rng = random.Random(7)
    script = _script("survive", ("family",))
    pagezip._script_deflated.cache_clear()
    for _ in range(5):
        plain = _page(rng, script, rng.randint(0, 50_000), rng.randint(0, 20_000))
        _gunzips(gzip_page(plain), plain)
    info = pagezip._script_deflated.cache_info()
    assert (info.misses, info.hits) == (1, 4)


@pytest.mark.parametrize("plain", [
    b"",
    b"<html>no script at all</html>\n",
    b"<html>" + SCRIPT_OPEN + b"var x = 1;" + SCRIPT_CLOSE + b"</html>",          # a small script: whole
    b"<html>" + SCRIPT_OPEN + b"x" * 40_000 + b"</html>",                        # never closed: whole
    SCRIPT_CLOSE + b"a" * 40_000 + SCRIPT_OPEN,                                 # close before open: whole
])
def test_pages_without_a_big_script_are_gzipped_whole(plain: bytes) -> None:
    made = gzip_page(plain)
    assert made == gzip.compress(plain, compresslevel=pagezip.PAGE_GZIP_LEVEL, mtime=0)
    _gunzips(made, plain)


@pytest.mark.parametrize("size", [pagezip.SCRIPT_MIN, pagezip.WINDOW - 1, pagezip.WINDOW, pagezip.WINDOW + 1])
def test_edges_of_the_window(size: int) -> None:
    """The rest of the page's dictionary at the window's edges: a script shorter than the window
    (part of the head in the dictionary), exactly as long, longer; an empty rest; a second script."""
    rng = random.Random(size)
    script = _words(rng, size)
    for head, tail in ((0, 0), (5, 1), (pagezip.WINDOW, 100), (100, pagezip.WINDOW * 2)):
        plain = _words(rng, head) + SCRIPT_OPEN + script + SCRIPT_CLOSE + _words(rng, tail)
        _gunzips(gzip_page(plain), plain)
    plain = SCRIPT_OPEN + script + SCRIPT_CLOSE + SCRIPT_OPEN + script + SCRIPT_CLOSE
    _gunzips(gzip_page(plain), plain)
