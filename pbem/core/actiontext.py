"""Actions in move-file syntax, and as keys, remembered: the same few come back in every decision.

A game's legal actions are made afresh at every decision, but they are the same few dozen
mappings again and again; the click-to-move choices (:mod:`pbem.views.choicegraph`) number and
write each of them.  :func:`action_key` is a hashable key equal for two actions exactly when
their ``repr`` is (each value with its type: ``1`` is not ``true``), for the plain ones (string
keys; strings, numbers, booleans, null and lists of them); :func:`action_text` writes an action
in move-file syntax (:func:`pbem.base.yamlio.dump_flow`), the plain ones remembered.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from pbem.base.yamlio import dump_flow

__all__ = ["action_key", "action_text"]

_SCALARS = frozenset({str, int, bool, float, type(None)})

ActionKey = tuple[tuple[str, type, Any], ...]


def action_key(action: Mapping[str, Any]) -> ActionKey | None:
    """``((key, type, value), ...)`` (a list value as a tuple of ``(type, item)``), or None for an
    action that is not plain (then compare ``repr``)."""
    out = []
    scalars = _SCALARS
    for k, v in action.items():
        t = type(v)
        if type(k) is not str:
            return None
        if t in scalars:
            out.append((k, t, v))
        elif t is list and all(type(x) in scalars for x in v):
            out.append((k, t, tuple((type(x), x) for x in v)))
        else:
            return None
    return tuple(out)


@lru_cache(maxsize=16384)
def _flow(key: ActionKey) -> str:
    return dump_flow({k: [x for _t, x in v] if t is list else v for k, t, v in key})


def action_text(action: Mapping[str, Any]) -> str:
    """An action in move-file syntax (:func:`pbem.base.yamlio.dump_flow`); the plain ones remembered."""
    key = action_key(action)
    return dump_flow(dict(action)) if key is None else _flow(key)
