"""Textures drawn over a cell's fill, so that kinds of terrain differ by more than colour.

Each is an SVG ``<pattern>`` tile (12 x 12 user units) of dark or light marks; a game
names one per kind in ``BoardPicture.textures``.  Unknown names draw nothing.
"""
from __future__ import annotations

__all__ = ["TEXTURES", "texture_id", "pattern_svg"]

TEXTURES: dict[str, str] = {
    "dots": '<circle cx="3" cy="3" r="1" fill="#6b5a2a" fill-opacity="0.45"/>'
            '<circle cx="9" cy="9" r="1" fill="#6b5a2a" fill-opacity="0.45"/>',
    "trees": '<path d="M6 1.5L9.5 8H2.5Z" fill="#1e3d14" fill-opacity="0.45"/>',
    "peaks": '<path d="M1 10L5 3L9 10" fill="none" stroke="#2b2420" stroke-opacity="0.5" stroke-width="1"/>',
    "stars": '<path d="M6 2.5L7 5.2L9.8 5.4L7.6 7.1L8.4 9.8L6 8.2L3.6 9.8L4.4 7.1L2.2 5.4L5 5.2Z" '
             'fill="#7a5200" fill-opacity="0.35"/>',
    "grid": '<path d="M0 .5H12M.5 0V12" fill="none" stroke="#000000" stroke-opacity="0.18" stroke-width="1"/>',
    "waves": '<path d="M0 8q3-3 6 0t6 0" fill="none" stroke="#ffffff" stroke-opacity="0.35" stroke-width="0.9"/>',
    "hatch": '<path d="M-3 3L3 -3M0 12L12 0M9 15L15 9" fill="none" stroke="#000000" stroke-opacity="0.3" stroke-width="1"/>',
    "crosshatch": '<path d="M0 12L12 0M0 0L12 12" fill="none" stroke="#1a2a3a" stroke-opacity="0.3" stroke-width="0.8"/>',
    "rings": '<circle cx="6" cy="6" r="4" fill="none" stroke="#0d3b12" stroke-opacity="0.45" stroke-width="0.9"/>'
             '<circle cx="6" cy="6" r="1.6" fill="none" stroke="#0d3b12" stroke-opacity="0.45" stroke-width="0.9"/>',
    "swirl": '<path d="M6 6m-1 0a1 1 0 1 1 2 0a2.2 2.2 0 1 1 -4.4 0a3.6 3.6 0 1 1 7.2 0" fill="none" stroke="#ffffff" '
             'stroke-opacity="0.55" stroke-width="0.9"/>',
    "rays": '<path d="M6 1V4.5M6 7.5V11M1 6H4.5M7.5 6H11M2.5 2.5L4.7 4.7M7.3 7.3L9.5 9.5M9.5 2.5L7.3 4.7M4.7 7.3L2.5 9.5" '
            'fill="none" stroke="#7a1c00" stroke-opacity="0.45" stroke-width="0.8"/>',
    "rubble": '<path d="M1.5 3l2-1.5 2 1-.5 2-2.5.5zM7 8l2.2-1 1.8 1.2-.8 2-2.4 0z" fill="#3e2a22" fill-opacity="0.45"/>',
    "bricks": '<path d="M0 .5H12M0 6.5H12M3 .5V6.5M9 6.5V12" fill="none" stroke="#3b2c00" stroke-opacity="0.4" '
              'stroke-width="0.9"/>',
    "stripes": '<path d="M0 3H12M0 9H12" fill="none" stroke="#00343c" stroke-opacity="0.35" stroke-width="1.2"/>',
}


def texture_id(name: str) -> str:
    return f"pbem-t-{name}"


def pattern_svg(name: str) -> str:
    return (f'<pattern id="{texture_id(name)}" width="12" height="12" patternUnits="userSpaceOnUse">'
            f"{TEXTURES[name]}</pattern>")
