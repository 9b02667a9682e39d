"""Plain-text rendering of digest sections (:class:`pbem.core.picture.Section`): tables,
card rows and tracks, as ASCII for a monospace e-mail.  Deterministic, no
trailing spaces."""
from __future__ import annotations

from pbem.core.picture import Section
from pbem.views.render.hexmap_text import _ascii

__all__ = ["section_text"]

LINE_WIDTH = 78


def _table(section: Section) -> list[str]:
    rows = [[_ascii(c) for c in row] for row in section.rows]
    header = [_ascii(c) for c in section.columns]
    width = max([len(header)] + [len(r) for r in rows])
    grid = ([header] if header else []) + rows
    widths = [max((len(r[i]) for r in grid if i < len(r)), default=0) for i in range(width)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip()

    out = []
    if header:
        out.append(line(header))
        out.append("  ".join("-" * w for w in widths))
    out += [line(r) for r in rows]
    return out


def _item(row: list[str]) -> str:
    label = _ascii(row[0]) if row else ""
    detail = _ascii(row[1]) if len(row) > 1 and row[1] else ""
    return f"{label} {detail}".strip()


def _cards(section: Section) -> list[str]:
    """Cards as ``[C12 Attack +1]`` chips, wrapped at the line width."""
    out: list[str] = []
    current = ""
    for row in section.rows:
        chip = f"[{_item(row)}]"
        if current and len(current) + 1 + len(chip) > LINE_WIDTH:
            out.append(current)
            current = chip
        else:
            current = f"{current} {chip}".strip()
    if current:
        out.append(current)
    return out or ["(none)"]


def _track(section: Section) -> list[str]:
    """An ordered track on one line each: ``1. red <-`` marks the current item."""
    out = []
    for i, row in enumerate(section.rows):
        mark = "  <- now" if section.current == i else ""
        out.append(f"{i + 1}. {_item(row)}{mark}")
    return out or ["(empty)"]


RENDERERS = {"table": _table, "cards": _cards, "track": _track}


def section_text(section: Section) -> str:
    """The body of a section (without its title), lines joined by newlines."""
    render = RENDERERS.get(section.kind)
    if render is None:
        raise ValueError(f"unknown section kind {section.kind!r}; use one of {', '.join(RENDERERS)}")
    lines = render(section)
    if section.note:
        lines.append(_ascii(section.note))
    return "\n".join(line.rstrip() for line in lines)
