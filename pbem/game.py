"""The public API for game authors: everything a game implements and uses, in one place.

A game (``pbem/rules/*`` here, or another distribution's ``pbem.games`` entry point)
imports from this module, :mod:`pbem.core` and :mod:`pbem.base` only, never from the store,
the views, the pipeline or the transports (the layer contract in ``.importlinter`` checks it).
The implementation lives in :mod:`pbem.core.game`; pbem's own modules import it from there.
"""
from __future__ import annotations

from pbem.core.game import HANDS_OVER, NEEDS_CHANCE, Game, best_scored
from pbem.core.picture import (ActionPlaces, BoardPicture, BoardPlaces, HexCell, OrderField, OrderForm, Piece, Section,
                               default_places)
from pbem.core.records import (OPTION_REFUSALS, Action, Decision, Event, IllegalAction, OptionError, OptionSpec, Position,
                               PositionError, Result)
from pbem.core.rng import NeedsSecret, Rng
from pbem.core.turnmodel import TurnModel

__all__ = ["Action", "Position", "IllegalAction", "OptionError", "OPTION_REFUSALS", "NeedsSecret", "PositionError",
           "OptionSpec", "Decision", "Event", "Result", "Piece", "HexCell", "BoardPicture", "BoardPlaces", "Section", "ActionPlaces",
           "OrderField", "OrderForm", "NEEDS_CHANCE", "HANDS_OVER", "best_scored", "Game", "default_places", "Rng", "TurnModel"]
