"""Checking a 1986 position: the 30th-anniversary check with this edition's pieces and spinner.

No tile is ever held in a hand (every tile bottom acts when its tile sinks), nobody keeps
standing orders, the steps are the edition's own (``dive`` is a spun dive, not the dive
dice), and ``turn.die`` is a face of the Atlantean Swirler (or of the two dice with
``spinner=dice``): ``KIND-MOVE`` such as ``shark-2`` or ``octopus-dive``, a dive face
exactly at the ``dive`` step.
"""
from __future__ import annotations

from typing import Any, Callable, ClassVar, Mapping

from pbem.rules.atlantis.position_check import PositionCheck, fail
from pbem.rules.atlantis.state import ISLAND, STEP_CREATURE, USED, State
from pbem.rules.atlantis1986.spinner import DIVE, STEP_DIVE, face_parts


class PositionCheck1986(PositionCheck):
    TILE_PLACES: ClassVar[tuple[str, ...]] = (ISLAND, USED)
    STANDING_KEYS: ClassVar[tuple[str, ...]] = ()
    #: the edition's own steps (its ``deciders``) need no variant
    VARIANT_STEPS: ClassVar[Mapping[str, Callable[[Any, State], bool]]] = {}

    def die_faces(self, step: str) -> list[str]:
        game = self.game
        if game.option(self.box, "spinner") == "dice":
            dice = game.comp["dice"]
            faces = [f"{kind}-{move}" for kind in dict.fromkeys(dice["creature"]) for move in dict.fromkeys(dice["move"])]
        else:
            faces = game.spinner_faces()
        if step == STEP_DIVE:
            return [f for f in faces if face_parts(f)[1] == DIVE]
        if step == STEP_CREATURE:
            return [f for f in faces if face_parts(f)[1] != DIVE]
        return faces

    def die(self, step: str, value: Any) -> None:
        if value is not None and step in (STEP_DIVE, STEP_CREATURE) and value not in self.die_faces(step):
            other = STEP_CREATURE if step == STEP_DIVE else STEP_DIVE
            if value in self.die_faces(other):
                fail("turn.die", f"{value} waits for the {other} step, not {step}")
        super().die(step, value)

