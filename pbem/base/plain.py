"""Values as a person reads them, never as Python prints them.

``plain({'red': 22, 'blue': 12})`` is ``red 22, blue 12``; ``plain(['r1', 'r2'])`` is
``r1, r2``.  :func:`readable_line` is the digests' safety net: a game's event line
that printed a mapping or list of its event with ``str()`` gets the plain form instead,
so that no digest, receipt or replay shows ``{'red': 22}``.
"""
from __future__ import annotations

from typing import Any, Mapping

__all__ = ["plain", "readable_line"]


def plain(value: Any) -> str:
    """A mapping as ``key value, ...`` (nested: ``key: a 1, b 2; ...``), a list as ``a, b``."""
    if isinstance(value, Mapping):
        nested = any(isinstance(v, (Mapping, list, tuple)) for v in value.values())
        if nested:
            return "; ".join(f"{k}: {plain(v)}" for k, v in value.items())
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(plain(v) for v in value)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def readable_line(line: str, event: Mapping[str, Any]) -> str:
    """``line`` with every ``str()`` of a mapping or list value of ``event`` replaced by its plain form."""
    for value in event.values():
        if isinstance(value, (Mapping, list, tuple)) and value:
            printed = str(value)
            if printed in line:
                line = line.replace(printed, plain(value))
    return line
