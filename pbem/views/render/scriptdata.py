"""Data inside a page's ``<script>`` element: the one way every page writes it.

A ``<script>`` element's text is not parsed as HTML, but the HTML tokenizer still looks into it:
``</script`` (any case) ends the element, and ``<!--`` followed by ``<script`` puts it in the
"script data double escaped" state, where the next ``</script>`` no longer ends the element and
the rest of the page is swallowed.  :func:`script_json` writes JSON in which none of this can
happen: every ``<``, ``>`` and ``&`` is written ``\\u003c``, ``\\u003e``, ``\\u0026``, and
every character outside ASCII (U+2028 and U+2029 among them, which older JavaScript would not
take in a string literal) as ``\\uXXXX``.  These characters stand only inside JSON strings, where
the escape means the same character, so ``JSON.parse`` reads back exactly the data written.
Keys are sorted: the same data gives the same bytes.

The templates write it as ``{{ value | script_json }}`` (the filter every page's Jinja2
environment has, :func:`pbem.views.render.digest._env`); ``tests/test_script_data.py`` fails when a
template puts anything else inside a ``<script>`` element.
"""
from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import Markup

__all__ = ["script_json", "SCRIPT_ESCAPES"]

#: the characters written as ``\\uXXXX`` besides everything outside ASCII
SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_TABLE = str.maketrans(SCRIPT_ESCAPES)


def script_json(data: Any) -> Markup:
    """``data`` as JSON safe to stand between ``<script type="application/json">`` and ``</script>``
    (or as a value in a script): ASCII only, no ``<``, ``>`` or ``&``, keys sorted."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return Markup(text.translate(_TABLE))


#: what must never stand inside a script pbem ships: a script tag (which would end the element or
#: start another) or a comment opener, in any case and spacing
_CODE_BREAK = re.compile(r"<\s*/?\s*script|<!--", re.IGNORECASE)


def script_code(code: str) -> Markup:
    """pbem's own JavaScript (templates/click.js, templates/turnmodel/*.js: files shipped with pbem,
    never data) to stand inside ``<script>``: refused if it could end the element or open a comment
    there.  Data goes in with :func:`script_json` only."""
    found = _CODE_BREAK.search(code)
    if found is not None:
        raise ValueError(f"a script pbem ships holds {found.group(0)!r}, which would break the page's script element")
    return Markup(code)
