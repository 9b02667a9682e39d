"""Composing a move from the legal choices, one step at a time (`pbem turn`, the click-to-move page).

Everything goes through the :class:`pbem.core.game.Game` interface, on the state the player can
see: their private view (the public view plus their own secrets) or the public view.  Each
step lists the actions the rules allow now, in the game's order; choosing one applies it to a
copy.  When an action needs a die roll or a hidden value (its result is the moderator's to
compute), the move stops there, as a written-ahead move does: the player is asked again after
the moderator has applied it.  So nothing offered here is a move the engine would refuse.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.core.draws import preview_draws
from pbem.core.engine import Rejected, apply_actions
from pbem.core.game import Game, pending_players
from pbem.core.records import Action
from pbem.core.rng import NeedsSecret

#: why a move ends although the player had more to decide
STOP_HIDDEN = ("what happens next depends on a die roll or a hidden value; the moderator applies it, and "
               "you are asked again if there is more to decide")


@dataclass
class Step:
    """What the player may do now: the legal actions, or why there is nothing (more) to choose."""

    choices: list[Action]
    stop: str = ""


@dataclass
class Composer:
    game: Game[Any]
    start: Any                 # the state the player sees (not changed)
    player: str
    actions: list[Action] = field(default_factory=list)
    events: list[str] = field(default_factory=list)     # what the chosen actions did, as the digest says it
    _state: Any = None
    _stop: str = ""

    def __post_init__(self) -> None:
        self._state = self.game.copy_state(self.start)

    @property
    def state(self) -> Any:
        """The state after the chosen actions (the composer's own: read it, do not change it)."""
        return self._state

    def step(self) -> Step:
        """The choices now (empty with a reason when the move is complete or cannot go on)."""
        if self._stop:
            return Step([], self._stop)
        if self.player not in pending_players(self.game, self._state):
            why = "your part is done: the game now waits for " + (
                ", ".join(pending_players(self.game, self._state)) or "nobody (the game is over)")
            return Step([], why if self.actions else f"{self.player} has no decision to make now")
        try:
            choices = self.game.legal_actions(self._state, self.player)
        except NeedsSecret as exc:
            return Step([], f"the choices now depend on hidden information you do not have here ({exc}); "
                            "use the template in your decrypted digest")
        return Step(list(choices))

    def choose(self, action: Action) -> list[str]:
        """Add ``action`` (one of the choices); returns what it did that the player may know."""
        if action not in self.step().choices:
            raise Rejected(f"{self.game.describe_action(action)} is not one of the choices now")
        applied = apply_actions(self.game, self._state, self.player, [action], preview_draws())
        self.actions.append(dict(action))
        lines = [self.game.describe_event(e.public) for e in applied.events]
        self.events += lines
        if applied.needs_secret or any(e.chance for e in applied.events):
            self._stop = STOP_HIDDEN
        return lines

    def undo(self) -> None:
        """Take back the last action."""
        kept = self.actions[:-1]
        self.actions, self.events, self._stop = [], [], ""
        self._state = self.game.copy_state(self.start)
        for action in kept:
            self.choose(action)
