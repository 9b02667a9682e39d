"""Checking an Atlantis position: the Survive core's check (:mod:`pbem.rules.survive.position_check`)
with the records of the mini-expansions (challenge #5's sunk-tile round and ship choice, the
dolphins, the giant squid).

The helpers are re-exported here (``from pbem.rules.atlantis.position_check import fail``).
"""
from __future__ import annotations

from typing import Any, ClassVar, Mapping

from pbem.rules.atlantis.dive import STEP_DIVE, STEP_PROTECT, Dolphins
from pbem.rules.atlantis.players56 import STEP_SHIP, STEP_SUNK, Challenge5
from pbem.rules.atlantis.squid import STEP_SQUID_PLACE, STEP_SQUID_TAKE, GiantSquid
from pbem.rules.survive.position_check import (  # noqa: F401  (re-exported)
    BOX_KEY,
    HISTORY_KEYS,
    PHASES,
    SETUP_PHASES,
    STEP_ORDER,
    SurvivePositionCheck,
    expect_choice,
    expect_flag,
    expect_int,
    expect_keys,
    expect_list,
    expect_mapping,
    expect_null,
    expect_text,
    fail,
    handle_range,
    show,
    type_name,
)
from pbem.rules.survive.state import SEA, STEP_CREATURE

FORMAT = "atlantis/1"


class PositionCheck(SurvivePositionCheck):
    """One check of one Atlantis position (make a new one per position)."""

    VARIANT_KEYS: ClassVar[Mapping[str, type[Any]]] = {
        "sunk": Challenge5, "ship_choice": Challenge5, "dolphins": Dolphins, "squid": GiantSquid}
    STEP_ORDER: ClassVar[tuple[str, ...]] = (*STEP_ORDER, STEP_SHIP, STEP_SUNK, STEP_DIVE, STEP_PROTECT,
                                             STEP_SQUID_PLACE, STEP_SQUID_TAKE)

    def steps_after_the_roll(self) -> tuple[str, ...]:
        return (STEP_CREATURE, STEP_DIVE)

    def variant_records(self, pos: Mapping[str, Any], step: str) -> None:
        """The records of the mini-expansions (present only when their option is on)."""
        sunk = pos.get("sunk")
        if step == STEP_SUNK and sunk is None:
            fail("sunk", f"is missing: step {STEP_SUNK} waits on it")
        if sunk is not None:
            sunk = expect_mapping(sunk, "sunk")
            expect_keys(sunk, "sunk", ("tile", "explorers", "queue"))
            self.handles([sunk["tile"]], "sunk.tile", self.tiles, "a tile")
            self.handles(sunk["explorers"], "sunk.explorers", self.explorers, "an explorer")
            self.handles(sunk["queue"], "sunk.queue", self.players, "a player")
        choice = pos.get("ship_choice")
        if (step == STEP_SHIP) != (choice is not None):
            fail("ship_choice", f"is missing: step {STEP_SHIP} waits on it" if step == STEP_SHIP
                 else f"must be null unless the step is {STEP_SHIP}")
        if choice is not None:
            choice = expect_mapping(choice, "ship_choice")
            expect_keys(choice, "ship_choice", ("tile", "at"))
            self.handles([choice["tile"]], "ship_choice.tile", self.tiles, "a tile")
            self.sea_space(choice["at"], "ship_choice.at")
        if "dolphins" in pos or isinstance(self.rules, Dolphins):
            self.dolphins(pos.get("dolphins"), step)
        if isinstance(self.rules, GiantSquid):
            self.squid(pos.get("squid"), step)

    def dolphins(self, value: Any, step: str) -> None:
        record = expect_mapping(value if value is not None else {}, "dolphins")
        expect_keys(record, "dolphins", (), ("protects", "choosing"))
        protects = expect_mapping(record.get("protects") or {}, "dolphins.protects")
        dolphins = {h: c for h, c in self.creatures.items() if c["kind"] == "dolphin"}
        guarded: dict[str, str] = {}
        for dolphin, swimmer in protects.items():
            field = f"dolphins.protects.{dolphin}"
            d = dolphins.get(dolphin)
            if d is None or d["where"] != SEA:
                fail(field, "is not a dolphin at sea")
            e = self.explorers.get(swimmer) if isinstance(swimmer, str) else None
            if e is None or e["where"] != SEA or e["at"] != d["at"]:
                fail(field, f"{show(swimmer)} is not a swimmer in dolphin {dolphin}'s space ({d['at']})")
            if swimmer in guarded:
                fail(field, f"{swimmer} is already protected by {guarded[swimmer]}: one dolphin per swimmer")
            guarded[swimmer] = dolphin
        choosing = record.get("choosing")
        if (step == STEP_PROTECT) != (choosing is not None):
            fail("dolphins.choosing", f"is missing: step {STEP_PROTECT} waits on it" if step == STEP_PROTECT
                 else f"must be null unless the step is {STEP_PROTECT}")
        if choosing is not None:
            d = dolphins.get(choosing) if isinstance(choosing, str) else None
            if d is None or d["where"] != SEA:
                fail("dolphins.choosing", f"{show(choosing)} is not a dolphin at sea")

    def squid(self, value: Any, step: str) -> None:
        squid_steps = (STEP_SQUID_PLACE, STEP_SQUID_TAKE)
        if value is None:
            if step in squid_steps:
                fail("squid", f"is missing: step {step} waits on it")
            return
        record = expect_mapping(value, "squid")
        expect_keys(record, "squid", ("kind", "squid", "resume", "roll"))
        expect_choice(record["kind"], "squid.kind", (step,) if step in squid_steps else (),
                      "the squid decision of this step")
        squids = [h for h, c in self.creatures.items() if c["kind"] == "squid"]
        expect_choice(record["squid"], "squid.squid", squids, "a giant squid")
        expect_choice(record["resume"], "squid.resume", self.rules.turn_steps, "a turn step to go on after")
        expect_flag(record["roll"], "squid.roll")
