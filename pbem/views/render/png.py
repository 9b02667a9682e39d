"""SVG board -> PNG, for e-mail (mail clients drop inline SVG; a ``cid:`` PNG shows everywhere).

Uses resvg (the Rust renderer) through the ``resvg-py`` wheel: no system
libraries needed.  Text is drawn with the system fonts (the board asks for
DejaVu Sans first; Debian's ``fonts-dejavu-core`` provides it).
"""
from __future__ import annotations

import math
import re
import struct
from typing import Any, cast

from pbem.base.errors import PbemError

__all__ = ["PNG_MAGIC", "ZOOM", "MAIL_ZOOM", "MAIL_COLOURS", "MOVER_ZOOM", "svg_size", "svg_to_png", "mail_png",
           "mover_png", "picture_bytes", "pattern_zoom", "glance_svg", "PNG_LEVEL"]

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ZOOM = 2.0   # rendered at twice the display size, so it stays sharp on high-density screens
MAIL_ZOOM = 0.85     # the board in a mail: a little under its own size (Atlantis: about 735 x 880 pixels)
MAIL_COLOURS = 32    # ... in 32 colours: those the SVG names first, then the most used (blends, text), so the message stays small
#: the board in the message of a player with a decision: a glance (their page, the message's one large
#: attachment, has the whole board to zoom and click on), so that the bytes go to their page's panel
MOVER_ZOOM = 0.5
#: the most bytes a mail picture takes per pixel, with a margin (measured at MOVER_ZOOM in 32 colours
#: on every game's boards at most 0.0746, the glance without its cell labels at zlib level 6; 0.0646
#: at MAIL_ZOOM: benchmarks/png_costs.py; docs/email.md)
PNG_BYTES_PER_PIXEL = 0.085
#: zlib level of the mail pictures: 6 costs a third of 8's time (3.5 against 11 ms a glance, 8 against
#: 23 the larger picture) for 5-7% more bytes, affordable since the glance has no cell labels (its
#: densest text); 9 would cost 25 ms (benchmarks/png_costs.py; docs/performance.md)
PNG_LEVEL = 6

_ROOT = re.compile(r"<svg\b[^>]*>", re.DOTALL)
_NUM = r"\s*=\s*[\"']\s*([0-9]+(?:\.[0-9]+)?)\s*(?:px)?\s*[\"']"


def svg_to_png(svg: str, zoom: float = ZOOM, crisp: bool = False) -> bytes:
    """Render an SVG document to PNG bytes (white background, ``zoom`` times its own size).

    ``crisp``: shapes without anti-aliasing (text keeps it), for a small palette PNG.
    Raises ``PbemError`` with one line if the SVG cannot be rendered.
    """
    try:
        import resvg_py
    except ImportError:  # pragma: no cover - a packaging error
        raise PbemError("SVG to PNG needs the resvg-py package: pip install resvg-py") from None
    extra: dict[str, Any] = {"shape_rendering": "crisp_edges", "text_rendering": "optimize_legibility"} if crisp \
        else {}
    try:
        png = bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff", **extra))
    except (ValueError, RuntimeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise PbemError(f"cannot render the board SVG as PNG: {first}") from None
    if not png.startswith(PNG_MAGIC):
        raise PbemError("cannot render the board SVG as PNG: the renderer returned no PNG data")
    return png


def mail_png(svg: str, zoom: float = MAIL_ZOOM, colours: int = MAIL_COLOURS) -> bytes:
    """The board as a small PNG for e-mail: shapes drawn without anti-aliasing at ``zoom``,
    every pixel mapped to the nearest of ``colours`` colours: the ones the SVG names first (so
    the players' and the terrain's colours stay exactly as drawn, even on a few small pieces),
    then the most used others; saved with a palette of just those colours, zlib level
    :data:`PNG_LEVEL`.  Textured boards are drawn at :func:`pattern_zoom` (a pixel or two off ``zoom``).
    Deterministic: ties between colours are broken by the colour's value."""
    import io

    from PIL import Image
    image = Image.open(io.BytesIO(svg_to_png(svg, pattern_zoom(svg, zoom), crisp=True))).convert("RGB")
    counts = image.getcolors(maxcolors=image.width * image.height) or []
    by_use = [cast(tuple[int, int, int], rgb) for _n, rgb in sorted(counts, key=lambda c: (-c[0], c[1]))]
    # the colours the picture asks for come first, however few pixels they cover (a player's
    # colour on a handful of small pieces), then the most used others (blends, text edges)
    drawn = svg_colours(svg)
    top = [rgb for rgb in by_use if rgb in drawn][:colours]
    top += [rgb for rgb in by_use if rgb not in drawn][:max(0, colours - len(top))]
    palette = Image.new("P", (1, 1))
    flat = [v for rgb in top for v in rgb]
    palette.putpalette(flat + flat[:3] * (256 - len(top)))
    small = image.quantize(palette=palette, dither=Image.Dither.NONE)
    # the PNG's palette just as long as the indices used need (PIL writes all 256 entries
    # otherwise: 672 bytes more on 32 colours)
    bits = max(1, cast(tuple[int, int], small.getextrema())[1].bit_length())
    out = io.BytesIO()
    small.save(out, "PNG", compress_level=PNG_LEVEL, bits=bits)
    return out.getvalue()


def mover_png(svg: str) -> bytes:
    """The picture in the message of a player with a decision (:data:`MOVER_ZOOM`): a glance,
    drawn from :func:`glance_svg` (the board without its cell labels)."""
    return mail_png(glance_svg(svg), MOVER_ZOOM)


_CELL_LABEL = re.compile(r'<text\b[^>]*\sclass="pbem-label"[^>]*>[^<]*</text>')


def glance_svg(svg: str) -> str:
    """The board for the mover's glance: without the cell labels (``A3``, ``B10``: the hex map's
    ``pbem-label`` texts), 5 pixels high at :data:`MOVER_ZOOM`, too small to read, and two
    thirds of what resvg draws as text; the player's page, the message's attachment, has the
    board with them (docs/email.md).  Everything else is drawn as on the full board."""
    return _CELL_LABEL.sub("", svg)


def picture_bytes(svg: str, zoom: float = MOVER_ZOOM) -> int:
    """The most the mail picture of ``svg`` at ``zoom`` takes in a message as sent (base64 in lines
    of 76, the part's headers), from the board's size alone: the same on every machine (the
    picture itself depends on the fonts installed), so that a page made from the log fits."""
    size = svg_size(svg)
    if size is None:
        return 0
    png = PNG_BYTES_PER_PIXEL * size[0] * size[1] * zoom * zoom
    return int(png * 4 / 3 * 78 / 76) + 400


def pattern_zoom(svg: str, zoom: float) -> float:
    """``zoom``, or where the SVG fills shapes with ``<pattern>`` tiles (the terrain textures),
    the zoom nearest it (the picture at most :data:`PATTERN_REACH` pixels wider or higher) at
    which resvg draws those tiles without resampling them.

    resvg draws a tile into a pixmap at the canvas's scale and paints it through a transform
    that undoes that scale: where the two single-precision factors multiply to exactly 1 the
    paint is a plain copy (tiny-skia's nearest-pixel path); where they give 1 - 2^-24 (zoom
    0.85 on the Atlantis board) every textured pixel is sampled bicubically, 45% of the
    picture's time.  The canvas's scale on each axis is ``round(size * zoom) / size`` (resvg's
    zoom fit), so the check is made on those figures as resvg computes them; where no zoom
    within reach passes, ``zoom`` itself is used (only the speed differs)."""
    if "<pattern" not in svg:
        return zoom
    size = _resvg_size(svg)
    if size is None:
        return zoom
    width, height = size
    if _exact_scale(_round(_f32(width * _f32(zoom))), width) and _exact_scale(_round(_f32(height * _f32(zoom))), height):
        return zoom
    best: tuple[float, float] | None = None
    for nw in range(_round(width * zoom) - PATTERN_REACH, _round(width * zoom) + PATTERN_REACH + 1):
        if nw < 1 or not _exact_scale(nw, width):
            continue
        for nh in range(_round(height * zoom) - PATTERN_REACH, _round(height * zoom) + PATTERN_REACH + 1):
            low, high = max((nw - 0.5) / width, (nh - 0.5) / height), min((nw + 0.5) / width, (nh + 0.5) / height)
            if nh < 1 or low >= high or not _exact_scale(nh, height):
                continue
            z = (low + high) / 2
            if (_round(_f32(width * _f32(z))), _round(_f32(height * _f32(z)))) != (nw, nh):
                continue
            off = max(abs(nw - width * zoom), abs(nh - height * zoom))
            if best is None or off < best[0]:
                best = (off, z)
    return zoom if best is None else best[1]


#: how many pixels :func:`pattern_zoom` may make the picture wider or higher than ``zoom`` would
PATTERN_REACH = 2


def _f32(x: float) -> float:
    """``x`` rounded to single precision (resvg's arithmetic)."""
    return cast(float, struct.unpack("f", struct.pack("f", x))[0])


def _round(x: float) -> int:
    """Rust's ``f32::round``: halves away from zero (sizes are positive)."""
    return math.floor(x + 0.5)


def _exact_scale(pixels: int, size: int) -> bool:
    """Whether the canvas scale ``pixels / size`` times resvg's inverse of it is exactly 1 in single precision."""
    scale = _f32(_f32(pixels) / _f32(size))
    inverse = _f32(1.0 / _f32(math.sqrt(_f32(scale * scale))))
    return _f32(scale * inverse) == 1.0


def _resvg_size(svg: str) -> tuple[int, int] | None:
    """The board's size in whole pixels as resvg rounds it (``svg_size`` rounds halves to even)."""
    root = _ROOT.search(svg)
    if root is None:
        return None
    w = re.search(r"\swidth" + _NUM, root.group(0))
    h = re.search(r"\sheight" + _NUM, root.group(0))
    if not (w and h):
        return None
    return _round(_f32(float(w.group(1)))), _round(_f32(float(h.group(1))))


_HEX_COLOUR = re.compile(r"#([0-9a-fA-F]{6})\b")


def svg_colours(svg: str) -> set[tuple[int, int, int]]:
    """Every ``#rrggbb`` colour the SVG names."""
    return {(int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)) for h in _HEX_COLOUR.findall(svg)}


def svg_size(svg: str) -> tuple[int, int] | None:
    """The display size (width, height) in CSS pixels from the root element, if it says."""
    root = _ROOT.search(svg)
    if root is None:
        return None
    tag = root.group(0)
    w = re.search(r"\swidth" + _NUM, tag)
    h = re.search(r"\sheight" + _NUM, tag)
    if w and h:
        return round(float(w.group(1))), round(float(h.group(1)))
    box = re.search(r"\sviewBox\s*=\s*[\"']\s*[-0-9.]+[\s,]+[-0-9.]+[\s,]+([0-9.]+)[\s,]+([0-9.]+)\s*[\"']", tag)
    if box:
        return round(float(box.group(1))), round(float(box.group(2)))
    return None
