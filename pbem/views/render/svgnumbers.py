"""The board's SVG with shorter numbers, for the player's page with a click-to-move panel (issue 21:
every byte of that page counts in the mail; docs/email.md).

In every tag's attributes a number of 10 or more becomes a whole number and a smaller one keeps
one decimal (hexes are 40 pixels and more across: half a pixel does not show; the vertices two
hexes share round alike, so no gap opens between them).  Text between tags is left as it is, and
so is path data (``d``: its numbers follow letters).  The public board (public/board.svg and the
public digest) keeps its numbers: the public outputs stay as they are.

How (issue 24: a board has a few thousand numbers): the tags are cut out of the SVG in one split,
joined by a character no tag holds (NUL), and their numbers replaced in one pass over them, each
distinct number worked out once (the numbers cut out by a split, each looked up in the cache of
:func:`short_number`, rather than a call back per match); the result is the same as shortening tag by tag.
"""
from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["shorter_numbers"]

_TAG = re.compile(r"<[a-zA-Z][^>]*>")
_TAGS = re.compile(r"(<[a-zA-Z][^>]*>)")      # the same tags, kept by re.split
#: a number not right after a letter, digit, ".", "#" or "-", and not followed by a letter, digit or "."
#: (``(?<![\w.#-])-?\d+\.\d+(?![\w.])``), written to start with its first character's class so that
#: the search skips to the candidates: that first character, then the look back past it
_NUMBER = re.compile(r"[-\d](?<![\w.#-][-\d])(?:(?<=-)\d+|(?<=\d)\d*)\.\d+(?![\w.])")
_JOIN = "\x00"      # no tag holds it in an SVG (XML forbids it); an SVG that has one is shortened tag by tag
#: the same numbers, kept by re.split: it finds the matches ``_NUMBER.sub`` replaces (the same scan, left
#: to right), and the distinct numbers are then looked up with no Python call per match
_NUMBERS = re.compile(f"({_NUMBER.pattern})")


@lru_cache(maxsize=8192)
def short_number(number: str) -> str:
    """One number as the page writes it (``863.38`` -> ``863``, ``-6.64`` -> ``-6.6``, ``0.04`` -> ``0``)."""
    value = float(number)
    if abs(value) >= 10:
        return str(round(value))
    text = f"{value:.1f}"
    return "0" if text in ("0.0", "-0.0") else text.removesuffix(".0")


def _short(match: re.Match[str]) -> str:
    return short_number(match.group(0))


def shorter_numbers(svg: str) -> str:
    """``svg`` with the numbers in its tags shortened (see the module's text)."""
    if _JOIN in svg:
        return _TAG.sub(lambda tag: _NUMBER.sub(_short, tag.group(0)), svg)
    parts = _TAGS.split(svg)            # text, tag, text, tag, ..., text
    if len(parts) == 1:
        return svg
    # a number never touches a tag's ends ("<" and ">"), so the join changes no match
    pieces = _NUMBERS.split(_JOIN.join(parts[1::2]))     # text, number, text, number, ..., text
    pieces[1::2] = map(short_number, pieces[1::2])
    parts[1::2] = "".join(pieces).split(_JOIN)
    return "".join(parts)
