"""The Space Attack state: the Survive core's state plus what Space Attack adds.

The core's records keep the core's (Atlantis) names: *explorers* are the crew, *boats* the
ships (escape pods ``P1..`` and fighters ``X1..``), *sea* is open space, an *isle* a Jump
Point, *land* a station tile.  Space Attack adds:

* ``captured``: the creatures each player has captured and holds "in front of them";
* ``flown``: the fighters a movement point has been spent on this turn ("at most 1 movement
  point on each Fighter in a turn");
* ``steal``: an open steal window (a capture another player may take with a steal tile);
* ``resume``: the turn step a reaction window or a choice interrupted, which goes on once it
  is closed;
* ``blue_played`` and ``extra``: blue tiles played after this turn's roll, and extra spaces
  the rolled creature may move.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pbem.rules.survive.state import State

if TYPE_CHECKING:     # (typing.Self is Python 3.11's; the annotations are never evaluated)
    from typing import Self

#: where a captured creature is (Creature.where): in front of a player, or in a steal window
CAPTURED = "captured"


@dataclass(slots=True)
class Steal:
    """A capture other players may steal: "When another player captures one or more Creatures
    with a single action you get them instead"."""

    creatures: list[str]
    capturer: str
    queue: list[str]           # players not yet considered; queue[0] is being asked


@dataclass
class SpaceAttackState(State):
    captured: dict[str, list[str]] = field(default_factory=dict)   # player -> creature handles
    flown: list[str] = field(default_factory=list)
    steal: Steal | None = None
    resume: str = ""
    blue_played: int = 0
    extra: int = 0

    def copy(self) -> Self:
        new = super().copy()
        new.captured = {p: list(cs) for p, cs in self.captured.items()}
        new.flown = list(self.flown)
        if self.steal is not None:
            new.steal = Steal(list(self.steal.creatures), self.steal.capturer, list(self.steal.queue))
        return new

    def open_steal(self) -> Steal:
        if self.steal is None:
            raise RuntimeError("no steal window is open")
        return self.steal

    def captured_by(self, player: str) -> list[str]:
        return self.captured.setdefault(player, [])
