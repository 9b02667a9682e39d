"""Generic renderers: ASCII and SVG hex maps, text and HTML digests.

* :func:`pbem.views.render.hexmap_text.render_text` -- ASCII map for plain-text mail
* :func:`pbem.views.render.hexmap_svg.render_svg` -- standalone SVG picture
* :func:`pbem.views.render.digest.render_digest` with :class:`pbem.views.render.digest.DigestContext`

Import the submodules directly; this package imports nothing so that using
one renderer does not load the others' dependencies (Jinja2).
"""
