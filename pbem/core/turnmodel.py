"""What a game hands its players' pages so that they work out a whole turn themselves.

A *turn model* is a JavaScript model of a game's rules shipped with pbem
(``templates/turnmodel/<family>.js``, registered there as ``PBEM_MODELS[family]``) and the
plain JSON data it reads: the board's geometry and the rule parameters the game's options
change, made from one player's own view (never a value that player may not see).  The
page follows the player's turn with it up to the turn's real stops (a hidden tile's back,
a roll), so the moderator need not work out every position the player could reach.
``Game.turn_model`` gives one (default: None, the page then uses the generic model over the
capped choice graph).  docs/turn-model.md has the API and how the tests prove a model
against the engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["TurnModel"]


@dataclass(frozen=True)
class TurnModel:
    """``family`` names the JS model (``templates/turnmodel/<family>.js``); ``data`` is plain JSON
    (dicts, lists, strings, numbers, booleans, None) for that model: geometry and rule
    parameters, from the player's own view only."""

    family: str
    data: dict[str, Any] = field(default_factory=dict)
