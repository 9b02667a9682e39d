"""Move-file actions: recognising their kind and checking their keys.

Every action is a small mapping; its *kind* is named by its first key (see
``KINDS``).  This module only checks the shape (known keys, required keys);
the rules mixins check the meaning.  Errors are one line a player can act on.
"""
from __future__ import annotations

from collections.abc import Mapping  # (isinstance with typing's Mapping is several times slower)
from dataclasses import dataclass
from typing import Any

from pbem.game import IllegalAction


@dataclass(frozen=True)
class ActionShape:
    kind: str
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    example: str = ""


# In priority order: the first shape whose key is present names the kind
# ("play" before "boat" because a wind tile is {play: T3, boat: B2, to: F4};
# "remove" before "board" because {remove: G5, board: [...]} is a removal).
SHAPES: tuple[ActionShape, ...] = (
    ActionShape("place", ("place", "on"), (), "{place: r7, on: G5}"),
    ActionShape("play", ("play",), ("swimmer", "boat", "creature", "to", "path"),
                "{play: T12, swimmer: r3, to: F4} or {play: none}"),
    ActionShape("move", ("move", "to"), ("swim", "dolphin"), "{move: r7, to: G5} or {move: B3, to: F4}"),
    ActionShape("done", ("done",), (), "{done: move}"),
    ActionShape("remove", ("remove",), ("board",), "{remove: G5}"),
    ActionShape("creature", ("creature",), ("to", "path"),
                "{creature: K2, to: F4} or {creature: none}"),
    ActionShape("defend", ("defend",), (), "{defend: T7} or {defend: none}"),
    ActionShape("standing", ("standing",), (), "{standing: {shark_defense: ask, whale_defense: auto}}"),
    ActionShape("boat", ("boat", "at"), (), "{boat: B1, at: F2}"),
    ActionShape("board", ("board",), (), "{board: [r1, b2, g3]}"),
    # the Dolphins & Dive Dice and Giant Squid mini-expansions ("dive" before "protect")
    ActionShape("dive", ("dive",), ("to", "path", "protect"),
                "{dive: K2, to: F4}, {dive: P1, protect: r3} or {dive: none}"),
    ActionShape("protect", ("protect",), (), "{protect: r3}"),
    ActionShape("squid", ("squid", "at"), (), "{squid: Q1, at: F4}"),
    ActionShape("take", ("take",), (), "{take: r3}"),
)


#: (shapes, an action's keys in order) -> its kind, for keys already found well-formed (the check
#: depends on the keys alone); bounded, so that a stranger's made-up keys cannot fill it
_KNOWN_KEYS: dict[tuple[int, tuple[Any, ...]], tuple[tuple[ActionShape, ...], str]] = {}
_KNOWN_KEYS_MAX = 1024


def action_kind(action: Any, shapes: tuple[ActionShape, ...] | None = None) -> str:
    """The kind of ``action`` after checking its keys; IllegalAction if malformed.

    ``shapes``: a variant's own action shapes (default: :data:`SHAPES`)."""
    shapes = SHAPES if shapes is None else shapes
    if not (type(action) is dict or isinstance(action, Mapping)) or not action:     # (dict: the common case, at once)
        raise IllegalAction("an action is a mapping such as {move: r7, to: G5}")
    try:
        key = (id(shapes), tuple(action))
        known = _KNOWN_KEYS.get(key)
    except TypeError:       # an unhashable key: checked (and refused) below
        key, known = None, None
    if known is not None and known[0] is shapes:      # (the entry holds the tuple: its id stays its own)
        return known[1]
    kind = _checked_kind(action, shapes)
    if key is not None and len(_KNOWN_KEYS) < _KNOWN_KEYS_MAX:
        _KNOWN_KEYS[key] = (shapes, kind)
    return kind


def _checked_kind(action: Mapping[Any, Any], shapes: tuple[ActionShape, ...]) -> str:
    for shape in shapes:
        if shape.kind in action:
            allowed = set(shape.required) | set(shape.optional)
            unknown = sorted(str(k) for k in action if k not in allowed)
            if unknown:
                raise IllegalAction(f"unknown key {unknown[0]!r} in a {shape.kind} action; "
                                    f"it takes {', '.join(shape.required + shape.optional)} (e.g. {shape.example})")
            missing = [k for k in shape.required if k not in action]
            if missing:
                raise IllegalAction(f"a {shape.kind} action needs {missing[0]!r} (e.g. {shape.example})")
            return shape.kind
    keys = ", ".join(sorted(str(k) for k in action))
    raise IllegalAction(f"unknown action with keys {keys}; actions start with one of "
                        f"{', '.join(s.kind for s in shapes)}")


def is_none(value: Any) -> bool:
    """``none`` (or YAML null) where a handle could be written."""
    return value is None or (isinstance(value, str) and value.lower() == "none")


def handle_arg(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise IllegalAction(f"{what} must be a handle such as r7, B3, T12 or K2, not {value!r}")
    return value


def swim_arg(action: Mapping[str, Any]) -> bool:
    """The ``swim:`` flag of a move (default false)."""
    swim = action.get("swim", False)
    if not isinstance(swim, bool):
        raise IllegalAction("swim must be true or false")
    return swim


def handle_list(value: Any, what: str, piece: str = "explorer") -> list[str]:
    """A list of distinct handles (``piece``: what one of them is called, in the game's words)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise IllegalAction(f"{what} must be a list of handles, e.g. [r1, b2, g3]")
    if len(set(value)) != len(value):
        raise IllegalAction(f"{what} names a {piece} twice" if piece[0] not in "aeiou" else f"{what} names an {piece} twice")
    return list(value)


def face_entry(order: Any, face: str | None) -> Mapping[str, Any] | None:
    """The entry of a written-ahead creature order for the shown ``face``, checked:
    None for ``none``, else a mapping ``{creature: HANDLE, to: SPACE}`` (``path`` allowed)."""
    if is_none(order):
        return None
    if not isinstance(order, Mapping) or "creature" not in order:
        raise IllegalAction(f"the {face} order must be none or {{creature: HANDLE, to: SPACE}}")
    extra = sorted(str(k) for k in order if k not in ("creature", "to", "path"))
    if extra:
        raise IllegalAction(f"unknown key {extra[0]!r} in the {face} order")
    return order
