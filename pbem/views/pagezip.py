"""A player's HTML page gzipped, its script compressed once (issue 24: outputs per move).

A page with the click-to-move panel (templates/click.html.j2) is its own content (title, board,
the panel's data) around one large script that is the same in every page of its family: the
turn model's JS and the page's script (templates/turnmodel/*.js, templates/click.js, minified),
about 100 KB of the page's 130.  Gzipping the whole page at level 9 compresses that script again
for every page.  :func:`gzip_page` writes one gzip member of the same plain bytes in three raw
deflate pieces, each ending on a byte boundary with a non-final block (``Z_SYNC_FLUSH``), the
last one final: the page up to the script, the script itself (compressed once and kept,
:func:`_script_deflated`: a bounded memo keyed by the script's bytes), and the rest of the page
(compressed with the last 32 KiB before it as its dictionary: it may refer back into the script,
as one stream would); then the CRC-32 and the length of the whole page.  Any gunzip reads it
(``gzip -d``, :func:`gzip.decompress`): it is one gzip member, one deflate stream.

The bytes made are a function of the page's bytes alone (the memo only saves the work): the same
page gives the same gzip file.  A page without such a script is gzipped whole, as before.  Only
the gunzipped bytes are pinned and audited (pbem.views.outputs.opened_bytes).
"""
from __future__ import annotations

import gzip
import struct
import zlib
from functools import lru_cache

__all__ = ["gzip_page", "PAGE_GZIP_LEVEL", "SCRIPT_OPEN", "SCRIPT_CLOSE"]

#: the gzip level of a player's page: 9 (6 takes less time for 0.7% more bytes: those bytes cost
#: one more Space Attack message in 20 its board picture; docs/performance.md, "Outputs per move")
PAGE_GZIP_LEVEL = 9
#: where a page's script element starts and ends (templates/click.html.j2: an element without
#: attributes; the panel's data is in ``<script type="application/json" ...>``, not this one)
SCRIPT_OPEN, SCRIPT_CLOSE = b"<script>", b"</script>"
#: a script shorter than this is gzipped with its page (not worth a piece of its own)
SCRIPT_MIN = 16_384
WINDOW = 32_768        # deflate's window: what the rest of the page may refer back to
#: gzip's header as :func:`gzip.compress` writes it with ``mtime=0`` at level 9 (no name, no time,
#: XFL 2 "slowest", OS 3 "Unix"): fixed, so that the bytes do not depend on the machine
HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03"


def gzip_page(plain: bytes) -> bytes:
    """``plain`` gzipped at :data:`PAGE_GZIP_LEVEL` (``gzip -d`` gives it back): its script
    element's content compressed once for all the pages that hold the same script."""
    start = plain.find(SCRIPT_OPEN)
    end = plain.find(SCRIPT_CLOSE, start) if start >= 0 else -1
    if start < 0 or end < 0 or end - start - len(SCRIPT_OPEN) < SCRIPT_MIN:
        return gzip.compress(plain, compresslevel=PAGE_GZIP_LEVEL, mtime=0)
    start += len(SCRIPT_OPEN)
    head, script, tail = plain[:start], plain[start:end], plain[end:]
    first = zlib.compressobj(PAGE_GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    before = first.compress(head) + first.flush(zlib.Z_SYNC_FLUSH)
    last = zlib.compressobj(PAGE_GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS,
                            zdict=_window(head, script))
    after = last.compress(tail) + last.flush(zlib.Z_FINISH)
    return b"".join((HEADER, before, _script_deflated(script), after,
                     struct.pack("<II", zlib.crc32(plain), len(plain) & 0xFFFFFFFF)))


def _window(head: bytes, script: bytes) -> bytes:
    """The last :data:`WINDOW` bytes of ``head + script`` (what precedes the page's rest)."""
    if len(script) >= WINDOW:
        return script[-WINDOW:]
    return head[len(head) - (WINDOW - len(script)):] + script if len(head) + len(script) > WINDOW else head + script


@lru_cache(maxsize=16)
def _script_deflated(script: bytes) -> bytes:
    """The script as raw deflate, ending on a byte boundary in a non-final block (the rest of
    the page follows it in the same stream).  A pure function of the script's bytes: a few
    scripts (the model families, with and without the set-up plan) serve every page."""
    comp = zlib.compressobj(PAGE_GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return comp.compress(script) + comp.flush(zlib.Z_SYNC_FLUSH)
