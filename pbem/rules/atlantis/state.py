"""The Atlantis state: the Survive core's state plus the records of the mini-expansions.

The core's records and constants (:mod:`pbem.rules.survive.state`) are re-exported here,
so ``from pbem.rules.atlantis.state import sort_handles`` keeps working.  The expansion
records are set only while their layer is in play (their option on) and written to
positions only then (see each layer's ``extra_view``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pbem.rules.survive.state import (  # noqa: F401  (re-exported)
    BOAT,
    HAND,
    ISLAND,
    ISLE,
    LAND,
    LOST,
    OVER,
    PLAY,
    RESERVE,
    SEA,
    SETUP_BOAT,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_DEFENSE,
    STEP_MOVE,
    STEP_REMOVE,
    STEP_TILE,
    SUPPLY,
    USED,
    Boarding,
    Boat,
    Creature,
    Explorer,
    Reaction,
    State,
    Tile,
    Turn,
    at,
    handle_key,
    ship_of,
    sort_handles,
)

if TYPE_CHECKING:     # (typing.Self is Python 3.11's; the annotations are never evaluated)
    from typing import Self


@dataclass(slots=True)
class SunkRound:
    """Challenge #5: the one-point mini-round for the explorers of a just-sunk tile."""

    tile: str
    explorers: list[str]       # the explorers that stood on the tile
    queue: list[str]           # players still to use their point; queue[0] decides


@dataclass(slots=True)
class ShipChoice:
    """Challenge #5: a boat tile found the supply empty; its revealer picks a ship from the board."""

    tile: str
    cell: int


@dataclass(slots=True)
class SquidStep:
    """The Giant Squid: a squid to place, or a person it takes, in the middle of a turn step."""

    kind: str                  # the decision: squid-place | squid-take
    squid: str
    resume: str                # the turn step that goes on once it is decided
    roll: bool = False         # the creature die is still to be rolled (step 3 was interrupted)


@dataclass
class AtlantisState(State):
    """The core state plus the mini-expansions' records (unused while their option is off)."""

    sunk: SunkRound | None = None          # challenge #5 only
    ship_choice: ShipChoice | None = None  # challenge #5 only
    protects: dict[str, str] = field(default_factory=dict)  # dolphins only: dolphin -> its swimmer
    dolphin_choice: str | None = None      # dolphins only: a placed dolphin waits for its swimmer
    squid_step: SquidStep | None = None    # giant squid only

    def copy(self) -> Self:
        new = super().copy()
        if self.sunk is not None:
            new.sunk = SunkRound(self.sunk.tile, list(self.sunk.explorers), list(self.sunk.queue))
        if self.ship_choice is not None:
            new.ship_choice = ShipChoice(self.ship_choice.tile, self.ship_choice.cell)
        new.protects = dict(self.protects)
        if self.squid_step is not None:
            step = self.squid_step
            new.squid_step = SquidStep(step.kind, step.squid, step.resume, step.roll)
        return new
