"""Can a game be played from this position?  Checked wherever a position starts a new game.

:meth:`pbem.core.game.Game.check_position` makes sure every field of a position file is right.  A
position can pass it and still start a game that waits for ever (``partial: true`` with no
explorers: nobody has anything to place) or never ends (no volcano left on the island, in a game
that ends only when it is turned up).  :func:`check_playable` refuses such a position with one
:class:`~pbem.core.records.PositionError` line, before anything is written.  Three parts, in order:

1. **What the game knows** (:meth:`pbem.core.game.Game.check_playable`, neutral default: accept): the
   pieces and tiles its rules need to go on and to end, with a line in the game's words saying
   what is missing and what to add.
2. **The neutral part**, for any game: the game is over, or some decision is pending and every
   pending decision has at least one legal action.
3. **A trial**: :data:`TRIAL_ACTIONS` random legal actions played on a copy (their choices and
   rolls from a fixed key, so the same position always gets the same answer; nothing of it is
   kept or logged).  Every state it reaches must be over or offer each pending player an
   action, and no action the rules list as legal may fail.  A failure here is a rules bug,
   not the position's fault (the checks above are meant to catch every unplayable position): the
   line says so and names the step.  It costs a few hundred milliseconds once per new game and
   turns a game that would break some moves in into a refusal before the game exists.

A bounded trial cannot prove that a game ends: that is what part 1 is for.
"""
from __future__ import annotations

from typing import Any

from pbem.base.errors import escape_text, excerpt
from pbem.core.game import Game
from pbem.core.records import IllegalAction, PositionError
from pbem.core.rng import Rng

__all__ = ["check_playable", "decisions_without_actions", "TrialFailed", "TRIAL_ACTIONS"]

#: how many random actions the trial plays from the position
TRIAL_ACTIONS = 150
TRIAL_KEY = b"pbem playable: trial"


class TrialFailed(PositionError):
    """The trial game from a position failed: a rules bug (a position the rules cannot play on
    that :meth:`~pbem.core.game.Game.check_playable` did not refuse, or an action listed as legal that
    fails)."""


def decisions_without_actions(game: Game[Any], state: Any) -> str:
    """``''`` when the game is over or every pending decision has a legal action; otherwise what
    is stuck, as a phrase (``red has to decide (setup-place) but has no legal action``)."""
    if game.result(state) is not None:
        return ""
    pending = game.pending(state)
    if not pending:
        return "the game is not over, but nobody has a decision to make"
    for decision in pending:
        if not len(game.legal_choices(state, decision.player)):
            return f"{decision.player} has to decide ({decision.kind}) but has no legal action"
    return ""


def check_playable(game: Game[Any], state: Any, trial_actions: int = TRIAL_ACTIONS) -> None:
    """Raise :class:`PositionError` (one line) unless a game can be played on from ``state``."""
    if game.result(state) is not None:
        return
    try:
        game.check_playable(state)
    except PositionError:
        raise
    except Exception as exc:         # noqa: BLE001  (a bug in the game's check: one line, not a trace)
        raise TrialFailed("", f"the game's playability check fails on it ({failure(exc)}): a rules bug, please "
                              "report it with the position file") from exc
    stuck = decisions_without_actions(game, state)
    if stuck:
        raise PositionError("", f"{stuck}, so the game would wait for ever; change the position so that "
                                "the player to decide can act (or write it as the end of the game)")
    trial(game, state, trial_actions)


def trial(game: Game[Any], state: Any, actions: int = TRIAL_ACTIONS) -> None:
    """Play ``actions`` random legal actions on a copy of ``state``; raise :class:`TrialFailed`
    when a state on the way is stuck or an action fails."""
    work = game.copy_state(state)
    choose = Rng(TRIAL_KEY, "choose")
    for step in range(actions):
        stuck = decisions_without_actions(game, work)
        if stuck:
            raise TrialFailed("", f"after {step} random moves from it, {stuck} (a rules bug the position "
                                  "check missed: please report it with the position file)")
        if game.result(work) is not None:
            return
        player = game.pending(work)[0].player
        choices = game.legal_choices(work, player)
        action = choices[choose.randbelow(len(choices), f"{step}")]
        try:
            game.apply(work, player, action, Rng(TRIAL_KEY, f"apply/{step}"))
        except IllegalAction as exc:
            raise TrialFailed("", f"after {step} random moves from it, {player}'s legal action "
                                  f"{excerpt(action)} is refused ({exc}): a rules bug, please report it "
                                  "with the position file") from None
        except Exception as exc:     # noqa: BLE001  (any other failure is a bug in the rules: one line, not a trace)
            raise TrialFailed("", f"after {step} random moves from it, {player}'s legal action "
                                  f"{excerpt(action)} fails ({failure(exc)}): a rules bug, please report it with "
                                  "the position file") from exc


def failure(exc: BaseException) -> str:
    """``KeyError: 'X1'``: an unexpected exception in a few words."""
    text = escape_text(str(exc))
    return f"{type(exc).__name__}: {text[:117] + '...' if len(text) > 120 else text}"
