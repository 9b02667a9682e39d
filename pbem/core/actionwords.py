"""Actions in words, for buttons, prompts and history lines (``Game.describe_action``).

A game gives a table from an action's kind (its first key) to a phrase: a function of the
action that says it in the game's words ("Move r5 to E9 (swim)").  :func:`action_words` uses
the game's phrase, and for a kind the table lacks (or a phrase that does not fit the action)
a plain reading of the mapping that never shows move-file syntax: ``{move: C4, path: [D4, E5]}``
reads "Move C4, path D4, E5".  Values: a list is its items joined by commas, a mapping its
``key value`` pairs, a boolean yes or no, null none.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

__all__ = ["Phrase", "action_words", "value_words", "plain_words"]

Phrase = Callable[[Mapping[str, Any]], str]


def value_words(value: Any) -> str:
    """A value of an action as words: ``[D4, E5]`` -> ``D4, E5``, ``{C4: 1}`` -> ``C4 1``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(value_words(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {value_words(v)}" for k, v in value.items())
    return str(value)


def plain_words(action: Mapping[str, Any]) -> str:
    """Any action read plainly: its kind with its value, then each other key with its value."""
    parts = [f"{str(k).replace('_', ' ')} {value_words(v)}" for k, v in action.items()]
    text = ", ".join(parts)
    return text[:1].upper() + text[1:]


def action_words(action: Mapping[str, Any], phrases: Mapping[str, Phrase]) -> str:
    """``action`` in the words of ``phrases`` (kind -> phrase), else read plainly."""
    if not action:
        return "Nothing"
    phrase = phrases.get(str(next(iter(action))))
    if phrase is not None:
        try:
            return phrase(action)
        except (KeyError, TypeError, ValueError, AttributeError):
            pass
    return plain_words(action)
