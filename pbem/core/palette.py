"""Player colours for board pictures: the Okabe-Ito palette, safe for colour-blind readers.

Games name colours as players know them (``red``, ``blue``...); the renderers draw them
with the palette's nearest colour and always write a letter on the piece as well, so
that no piece is told apart by colour alone.  A CSS ``#rrggbb`` passes through as is.
"""
from __future__ import annotations

import re
from typing import Sequence

__all__ = ["OKABE_ITO", "PLAYER_COLOURS", "NEUTRAL", "fill_of", "ink_on", "seat_colours"]

# Okabe & Ito (2008), "Color Universal Design": eight colours told apart by every common colour vision.
OKABE_ITO = {
    "black": "#000000", "orange": "#e69f00", "sky blue": "#56b4e9", "bluish green": "#009e73",
    "yellow": "#f0e442", "blue": "#0072b2", "vermillion": "#d55e00", "reddish purple": "#cc79a7",
}

# colour names games and players use -> the palette
PLAYER_COLOURS = {
    "red": OKABE_ITO["vermillion"], "blue": OKABE_ITO["blue"], "green": OKABE_ITO["bluish green"],
    "yellow": OKABE_ITO["yellow"], "orange": OKABE_ITO["orange"], "purple": OKABE_ITO["reddish purple"],
    "pink": OKABE_ITO["reddish purple"], "cyan": OKABE_ITO["sky blue"], "sky": OKABE_ITO["sky blue"],
    "black": OKABE_ITO["black"], "white": "#ffffff", "grey": "#8c8c8c", "gray": "#8c8c8c",
}
# seat order for players whose names are no colour
SEAT_ORDER = ("red", "blue", "green", "yellow", "orange", "purple", "cyan", "black", "white", "grey")
NEUTRAL = "#f2f2f2"   # a piece nobody owns
_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def fill_of(colour: str) -> str:
    """The CSS fill for a piece of ``colour`` (a name above, or ``#rrggbb``); "" or unknown -> neutral."""
    name = colour.strip().lower()
    if _HEX.fullmatch(name):
        return name
    return PLAYER_COLOURS.get(name, NEUTRAL)


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (a ``#rrggbb``)."""
    if not _HEX.fullmatch(fill):
        return "#000000"
    r, g, b = (int(fill[i:i + 2], 16) / 255 for i in (1, 3, 5))
    lum = 0.2126 * r ** 2.2 + 0.7152 * g ** 2.2 + 0.0722 * b ** 2.2
    return "#000000" if lum > 0.18 else "#ffffff"


def seat_colours(players: Sequence[str]) -> dict[str, str]:
    """A colour name for each player: their own name when it is a colour, else the free ones in seat order."""
    taken = {p: p.lower() for p in players if p.lower() in PLAYER_COLOURS}
    free = [c for c in SEAT_ORDER if c not in taken.values()]
    out: dict[str, str] = {}
    for p in players:
        out[p] = taken[p] if p in taken else (free.pop(0) if free else "grey")
    return out
