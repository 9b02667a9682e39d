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
}


def texture_id(name: str) -> str:
    return f"pbem-t-{name}"


def pattern_svg(name: str) -> str:
    return (f'<pattern id="{texture_id(name)}" width="12" height="12" patternUnits="userSpaceOnUse">'
            f"{TEXTURES[name]}</pattern>")
