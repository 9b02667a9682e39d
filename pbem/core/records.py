"""The records a game and the engine exchange: decisions, events, results, option specs, and the
errors of the rules (:class:`IllegalAction`) and of a game's options and positions.

Part of the public game API (:mod:`pbem.game` re-exports them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from pbem.base.errors import PbemError

Action = dict[str, Any]
Position = dict[str, Any]

__all__ = ["Action", "Position", "IllegalAction", "OptionError", "OPTION_REFUSALS", "PositionError", "OptionSpec", "Decision", "Event",
           "Result"]


class IllegalAction(Exception):
    """The action breaks a rule.  ``str(exc)`` is one line a player can act on."""


class OptionError(PbemError):
    """A bad option value or combination, or a bad player count (one line)."""


#: what a game raises when it refuses options (``Game.check_options``, ``Game.resolve_options``):
#: an :class:`OptionError`, or a ``ValueError`` with a one-line message (a game's own check, such
#: as Space Swarm's hand-made map), which pbem takes the same way
OPTION_REFUSALS: tuple[type[Exception], ...] = (OptionError, ValueError)


class PositionError(PbemError):
    """A position that cannot start a game.  ``str(exc)`` is one line naming the field and what
    is allowed, e.g. ``position: turn.player: 'nobody' is not a player (players: red, blue)``."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"position: {field}: {problem}" if field else f"position: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class OptionSpec:
    """One ``--option NAME=VALUE`` a game accepts.

    ``setup_only``: the option decides the set-up (which pieces, who gets what), so a game
    started from a position keeps the position's value; ``pbem new --position`` refuses an
    ``--option`` that would change it.
    """

    name: str
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""
    setup_only: bool = False


class Decision:
    """A decision the game is waiting for.

    ``player``; ``kind``, e.g. "setup-explorer", "play-tile", "move", "remove-tile", "creature",
    "defense"; ``prompt``, one line for humans with no hidden information.  A game may give
    the prompt as a function of no arguments: it is then made only when someone reads it (bots
    and simulations ask for the pending decisions after every action and never read it); read
    it before the state changes."""

    __slots__ = ("player", "kind", "_prompt")

    def __init__(self, player: str, kind: str, prompt: str | Callable[[], str] = "") -> None:
        self.player = player
        self.kind = kind
        self._prompt = prompt

    @property
    def prompt(self) -> str:
        if not isinstance(self._prompt, str):
            self._prompt = self._prompt()
        return self._prompt

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return (self.player, self.kind, self.prompt) == (other.player, other.kind, other.prompt)

    def __hash__(self) -> int:
        return hash((self.player, self.kind, self.prompt))

    def __repr__(self) -> str:
        return f"Decision(player={self.player!r}, kind={self.kind!r}, prompt={self.prompt!r})"


@dataclass
class Event:
    """Something that happened while applying an action.

    ``public`` goes to the log and every digest; ``private`` maps a player to
    what only that player learns (it goes to that player's secrets only).
    ``chance`` is True when the step drew randomness or revealed hidden
    information, so later written-ahead orders may no longer fit.
    ``auto`` is set when the engine decided something on a player's behalf
    (a standing order fired); its text is the reason, and it is logged.
    """

    public: dict[str, Any]
    private: dict[str, dict[str, Any]] = field(default_factory=dict)
    chance: bool = False
    auto: str = ""


@dataclass(frozen=True)
class Result:
    """The end of the game: scores per player and the winners (ties share)."""

    scores: dict[str, int]
    winners: list[str]
    detail: dict[str, Any] = field(default_factory=dict)
