"""Checking a 1986 position: the 30th-anniversary check with this edition's pieces and spinner.

No tile is ever held in a hand (every tile bottom acts when its tile sinks), nobody keeps
standing orders, the steps are the edition's own (``dive`` is a spun dive, not the dive
dice), and ``turn.die`` is a face of the Atlantean Swirler (or of the two dice with
``spinner=dice``): ``KIND-MOVE`` such as ``shark-2`` or ``octopus-dive``, a dive face
exactly at the ``dive`` step.
"""
from __future__ import annotations

from typing import Any, ClassVar

from pbem.rules.atlantis.position_check import PositionCheck, fail
from pbem.rules.survive.state import ISLAND, STEP_CREATURE, USED
from pbem.rules.atlantis1986.spinner import DIVE, STEP_DIVE, SpinnerRules1986, face_parts


class PositionCheck1986(PositionCheck):
    TILE_PLACES: ClassVar[tuple[str, ...]] = (ISLAND, USED)

    def die_faces(self, step: str) -> list[str]:
        rules = self.rules
        assert isinstance(rules, SpinnerRules1986)
        if rules.option(self.box, "spinner") == "dice":
            dice = rules.comp["dice"]
            faces = [f"{kind}-{move}" for kind in dict.fromkeys(dice["creature"]) for move in dict.fromkeys(dice["move"])]
        else:
            faces = rules.spinner_faces()
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

