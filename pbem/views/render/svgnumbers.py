"""The board's SVG with shorter numbers, for the player's page with a click-to-move panel (issue 21:
every byte of that page counts in the mail; docs/email.md).

In every tag's attributes a number of 10 or more becomes a whole number and a smaller one keeps
one decimal (hexes are 40 pixels and more across: half a pixel does not show; the vertices two
hexes share round alike, so no gap opens between them).  Text between tags is left as it is, and
so is path data (``d``: its numbers follow letters).  The public board (public/board.svg and the
public digest) keeps its numbers: the public outputs stay as they are.
"""
from __future__ import annotations

import re

__all__ = ["shorter_numbers"]

_TAG = re.compile(r"<[a-zA-Z][^>]*>")
_NUMBER = re.compile(r"(?<![\w.#-])(-?\d+\.\d+)(?![\w.])")


def _short(match: re.Match[str]) -> str:
    value = float(match.group(1))
    if abs(value) >= 10:
        return str(round(value))
    text = f"{value:.1f}"
    return "0" if text in ("0.0", "-0.0") else text.removesuffix(".0")


def shorter_numbers(svg: str) -> str:
    """``svg`` with the numbers in its tags shortened (see the module's text)."""
    return _TAG.sub(lambda tag: _NUMBER.sub(_short, tag.group(0)), svg)
