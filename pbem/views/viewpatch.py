"""A player's view as a small patch on the public view (JSON Merge Patch, RFC 7396).

A player's own view differs from the public one only where they know more (their explorers'
values, the backs of the tiles in their hand...).  Their encrypted secrets carry just that
difference, and `pbem turn` applies it to the public view of the same log entry.
"""
from __future__ import annotations

from typing import Any


def make_patch(public: Any, private: Any) -> Any:
    """The merge patch that turns ``public`` into ``private``."""
    if not isinstance(public, dict) or not isinstance(private, dict):
        return private
    patch: dict[str, Any] = {}
    for key, value in private.items():
        if key not in public:
            patch[key] = value
        elif public[key] != value:
            patch[key] = make_patch(public[key], value)
    for key in public:
        if key not in private:
            patch[key] = None
    return patch


def apply_patch(target: Any, patch: Any) -> Any:
    """RFC 7396: mappings merge key by key, ``null`` removes a key, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = apply_patch(out.get(key), value)
    return out


def patch_or_whole(public: Any, private: Any) -> dict[str, Any]:
    """``{"patch": ...}`` when the patch rebuilds ``private`` exactly (a value hidden as null in
    ``private`` but known in ``public`` cannot be written as a merge patch), else ``{"view": ...}``."""
    patch = make_patch(public, private)
    return {"patch": patch} if apply_patch(public, patch) == private else {"view": private}
