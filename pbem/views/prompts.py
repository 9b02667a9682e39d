"""A decision's prompt in words: without its examples in move-file syntax.

The engine's prompts end with examples for a player who writes the move file by hand
(``place an explorer on an empty terrain tile: {place: r1, on: G5}``); the text digest keeps
them.  The pages (the click-to-move panel, `pbem play`) and the HTML digest's "Waiting for"
show each decision in words only: the page has a button for each choice.
"""
from __future__ import annotations

import re

__all__ = ["page_prompt", "waiting_words"]

_TRAILING = re.compile(r"(?:[\s:;,(\-]|\b(?:or|e\.g\.|like|such as|then|\.\.\.))+$")


def page_prompt(prompt: str) -> str:
    """A decision's prompt as the page shows it: up to its examples in move-file syntax (the
    page shows each choice in words on its own button), e.g. "step 2: 2 movement point(s) left:
    {move: b1, to: G5} or {done: move}" -> "step 2: 2 movement point(s) left"."""
    if "{" not in prompt:
        return prompt
    head = _TRAILING.sub("", prompt[:prompt.index("{")])
    return head or "Your choice"


def waiting_words(player: str, kind: str, prompt: str) -> str:
    """One line of the HTML digest's "Waiting for": the player and their decision in words (the
    prompt without its move-file examples; the decision's kind where the game gives no prompt)."""
    return f"{player}: {page_prompt(prompt) if prompt else kind.replace('-', ' ')}"
