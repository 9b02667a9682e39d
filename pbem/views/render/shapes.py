"""The drawings of pieces: one SVG ``<symbol>`` per shape, in a 20 x 20 box centred on 0.

A shape's parts without a ``fill`` take the owner's colour from the ``<use>`` that draws
it; creatures and vessels carry their own neutral colours.  Shapes are inline paths (no
external files, no fonts but the text written on them).  :data:`SHAPES` is the one
table from a shape name (``pbem.core.picture.Piece.shape``) to its drawing.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Shape", "SHAPES", "WIDE", "shape_of", "symbol_id"]

OUTLINE = "#1a1a1a"
BADGE = "#f4f4f4"        # the light disc behind a creature's icon


@dataclass(frozen=True)
class Shape:
    """How one kind of piece is drawn."""

    body: str            # SVG elements inside the symbol, coordinates in -10..10
    text_y: float        # baseline of the piece's text, in the same box
    text_size: float     # font size for up to two characters, in box units
    owned: bool = True   # filled with the owner's colour (else its own colours, dark text)
    wide: bool = False   # a vessel: drawn across a row with its passengers aboard
    meaning: str = ""    # what the shape stands for, for people reading the code


def _badge(icon: str) -> str:
    return (f'<circle r="9.6" fill="{BADGE}" stroke="{OUTLINE}" stroke-width="0.9"/>'
            f'<g fill="{OUTLINE}" stroke="{OUTLINE}" stroke-linecap="round" stroke-linejoin="round">{icon}</g>')


SHAPES: dict[str, Shape] = {
    "disc": Shape(f'<circle r="9.2" stroke="{OUTLINE}" stroke-width="1"/>', 3.2, 9.0, meaning="a plain token"),
    "explorer": Shape(
        f'<circle cy="-6.6" r="3.3" stroke="{OUTLINE}" stroke-width="0.9"/>'
        f'<path d="M-9.2 9.8C-9.2 0-5 -3.2 0 -3.2S9.2 0 9.2 9.8Z" stroke="{OUTLINE}" stroke-width="0.9"/>',
        7.4, 8.0, meaning="a person standing on land (head and shoulders)"),
    "swimmer": Shape(
        f'<circle cy="-2" r="7.6" stroke="{OUTLINE}" stroke-width="0.9"/>'
        '<path d="M-10 5.2q2.5-2.6 5 0t5 0t5 0t5 0V10H-10Z" fill="#ffffff" stroke="#1f4e79" stroke-width="0.8"/>',
        1.0, 7.6, meaning="a person in the water (head above the waves)"),
    "fleet": Shape(
        f'<path d="M0-10C5-6 7-1 7 4L9.5 9.5L3 7.5L0 9.5L-3 7.5L-9.5 9.5L-7 4C-7-1-5-6 0-10Z" '
        f'stroke="{OUTLINE}" stroke-width="0.9"/>', 4.6, 8.4, meaning="a stack of fleets (the count)"),
    "serpent": Shape(_badge(
        '<path d="M-7.5 1.5c1.2-5.5 3.8-5.5 5 0c1.2-5.5 3.8-5.5 5 0c.8-4.5 2.5-6 4.6-5.6" fill="none" '
        'stroke-width="2.1"/><circle cx="7.4" cy="-4.3" r="1.6"/>'), 7.8, 5.6, owned=False,
        meaning="sea serpent: humps of a long body"),
    "shark": Shape(_badge('<path d="M-6.5 1.6C-3 .6-.4-3.2.8-8C2.6-4.6 4.6-1.5 7 1.6Z"/>'
                          '<path d="M-8 2.2H8" fill="none" stroke-width="1"/>'), 7.8, 5.6, owned=False,
                   meaning="shark: a fin above the water"),
    "whale": Shape(_badge('<path d="M-8-.4C-8-4.4-3-5.6 1-4.8C4-4.3 4.8-3 6-4.3L8.4-6.8L8-2.4L9-.8'
                          'C6-1.3 4.6.2 2 .8C-3 1.6-8 1.6-8-.4Z"/>'
                          '<path d="M-3.5-5.6q0-1.8-1.6-2.8M-3.5-5.6q0-1.8 1.6-2.8" fill="none" stroke-width="0.9"/>'),
                   7.8, 5.6, owned=False, meaning="whale: a big body with its tail and spout"),
    "dolphin": Shape(_badge('<path d="M-7.5 1C-5-5.5 3-6.8 7.5-1.6" fill="none" stroke-width="2.6"/>'
                            '<path d="M-1.2-4.6L.6-8.2L2.2-4.4Z"/><path d="M-7.5 1L-9.2-1.4M-7.5 1L-9.6 2" '
                            'fill="none" stroke-width="1.3"/>'), 7.8, 5.6, owned=False,
                     meaning="dolphin: an arched back and a small fin"),
    "squid": Shape(_badge('<path d="M0-9C3-7 3.4-3.4 2.4-1.2H-2.4C-3.4-3.4-3-7 0-9Z"/>'
                          '<path d="M-1.9-1q-2 1.8-3.2 3M-.6-1q-.4 1.8-1 3M.6-1q.4 1.8 1 3M1.9-1q2 1.8 3.2 3" '
                          'fill="none" stroke-width="1"/>'), 7.8, 5.6, owned=False,
                   meaning="giant squid: a pointed mantle with tentacles"),
    "octopus": Shape(_badge('<circle cy="-4.4" r="3.8"/><path d="M-3 -1.6q-3 1.2-4.6 3.4M-1.2-1q-.8 2-2 3.4'
                            'M1.2-1q.8 2 2 3.4M3-1.6q3 1.2 4.6 3.4" fill="none" stroke-width="1.2"/>'),
                     7.8, 5.6, owned=False, meaning="octopus: a round head with curling arms"),
    "monster": Shape(_badge('<path d="M-8.6 1.6L-6-5.6L-3.4.2L0-8.2L3.4.2L6-5.6L8.6 1.6Z"/>'), 7.8, 5.6,
                     owned=False, meaning="sea monster: a spiked back"),
    # Space Attack
    "drifter": Shape(
        f'<circle r="9.4" fill="none" stroke="{OUTLINE}" stroke-width="0.8" stroke-dasharray="2.2 1.6"/>'
        f'<circle r="7" stroke="{OUTLINE}" stroke-width="0.9"/>', 3.0, 7.6,
        meaning="a person drifting in open space (a helmet on a tether ring)"),
    "queen": Shape(_badge('<path d="M-7 1.5L-8-6L-3.5-2.5L0-8.5L3.5-2.5L8-6L7 1.5Z"/>'), 7.8, 5.6, owned=False,
                   meaning="Queen: a crown"),
    "spawn": Shape(_badge('<circle cx="-3.6" cy="-1.6" r="2.6"/><circle cx="3.6" cy="-1.6" r="2.6"/>'
                          '<circle cy="-6" r="2.6"/>'), 7.8, 5.6, owned=False,
                   meaning="Spawn: a cluster of eggs"),
    "warrior": Shape(_badge('<path d="M-7.5 1.5C-8.2-4-5.5-8-1.2-8.6L-3-5C-5-4-5.2-1-4 1.5Z"/>'
                            '<path d="M7.5 1.5C8.2-4 5.5-8 1.2-8.6L3-5C5-4 5.2-1 4 1.5Z"/>'), 7.8, 5.6,
                     owned=False, meaning="Warrior: two claws"),
    # vessels: the renderer draws the hull across a row and the passengers on it; the symbol is the key's sample
    "ship": Shape('<path d="M-10-1.5H10L6.8 6.5H-6.8Z" fill="#8d5a2b" stroke="#3e2510" stroke-width="0.9"/>'
                  '<path d="M0-1.5V-9.5L5.5-3Z" fill="#ffffff" stroke="#3e2510" stroke-width="0.7"/>',
                  5.0, 5.0, owned=False, wide=True, meaning="ship: a wooden hull, its passengers aboard"),
    "pod": Shape('<rect x="-10" y="-5" width="20" height="10" rx="5" fill="#b8c0c8" stroke="#2f3a44" '
                 'stroke-width="0.9"/>', 2.0, 5.0, owned=False, wide=True,
                 meaning="escape pod: a capsule, its passengers aboard"),
    "fighter": Shape('<path d="M-10-5H6L10 0L6 5H-10L-7 0Z" fill="#dfe3e8" stroke="#2f3a44" stroke-width="0.9"/>',
                     2.0, 5.0, owned=False, wide=True, meaning="fighter: a dart, its pilot aboard"),
}
WIDE = frozenset(name for name, s in SHAPES.items() if s.wide)
HULLS = {"ship": ("#8d5a2b", "#3e2510"), "pod": ("#b8c0c8", "#2f3a44"), "fighter": ("#dfe3e8", "#2f3a44")}


def shape_of(name: str) -> Shape:
    """The drawing for ``name``; an unknown shape is a plain disc."""
    return SHAPES.get(name, SHAPES["disc"])


def symbol_id(name: str) -> str:
    return f"pbem-s-{name if name in SHAPES else 'disc'}"
