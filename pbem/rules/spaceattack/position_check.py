"""Checking a Space Attack position before a game starts from it: the Survive core's check
(:mod:`pbem.rules.survive.position_check`) on the chosen map's board, with Space Attack's pieces,
steps and records.

What Space Attack adds to the core's check:

* the board is the one of the position's ``map`` (read from its options);
* a creature may be ``captured``: then exactly one player's ``captured`` list names it, or the
  open steal window does; the ``captured`` mapping names every player;
* fighters (``X1``..) never wait in a player's reserve and carry at most one crew token;
* the steps are the game's own (``deploy``, ``blue-tile``, ``steal`` besides the core's), and the
  ``steal`` step waits on a ``steal`` record whose queue is not empty;
* ``flown`` names fighters at sea (or lost since they flew), ``resume`` a turn step, ``blue_played`` and ``extra`` count.

Problems are reported in the game's own words (crew tokens, open spaces, Jump Points).
"""
from __future__ import annotations

from typing import Any, ClassVar, Mapping

from pbem.rules.spaceattack.data import AFTER_ROLL, DEFENSE, MOVEMENT, STEAL
from pbem.rules.spaceattack.rules import SpaceAttackRules
from pbem.rules.spaceattack.state import CAPTURED
from pbem.rules.spaceattack.turn import STEP_BLUE, STEP_DEPLOY, STEP_STEAL
from pbem.rules.survive.position_check import (
    STEP_ORDER,
    SurvivePositionCheck,
    expect_choice,
    expect_int,
    expect_keys,
    expect_list,
    expect_mapping,
    fail,
    show,
)
from pbem.rules.survive.state import (
    LOST,
    RESERVE,
    SEA,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_DEFENSE,
    SUPPLY,
)


class SpaceAttackPositionCheck(SurvivePositionCheck):
    CREATURE_PLACES: ClassVar[tuple[str, ...]] = (SUPPLY, SEA, CAPTURED, LOST)
    HAND_KINDS: ClassVar[tuple[str, ...]] = (MOVEMENT, AFTER_ROLL, DEFENSE, STEAL)
    STEP_RECORDS: ClassVar[Mapping[str, str]] = {STEP_BOARDERS: "boarding", STEP_DEFENSE: "reaction",
                                                 STEP_STEAL: "steal"}
    OPTIONAL_KEYS: ClassVar[tuple[str, ...]] = (*SurvivePositionCheck.OPTIONAL_KEYS, "captured", "flown", "steal",
                                                "resume", "blue_played", "extra")
    STEP_ORDER: ClassVar[tuple[str, ...]] = (STEP_DEPLOY, *STEP_ORDER[1:4], STEP_BLUE, STEP_CREATURE, STEP_DEFENSE,
                                             STEP_STEAL)

    def steps_after_the_roll(self) -> tuple[str, ...]:
        return (STEP_BLUE, STEP_CREATURE)

    @property
    def sa_rules(self) -> SpaceAttackRules:
        assert isinstance(self.rules, SpaceAttackRules)
        return self.rules

    def variant_records(self, pos: Mapping[str, Any], step: str) -> None:
        rules = self.sa_rules
        fighters = set(rules.fighter_handles)
        for h in sorted(fighters & set(self.boats)):
            if self.boats[h]["where"] == RESERVE:
                fail(f"boats.{h}.where", "a fighter never waits in a player's reserve: fighters come from tiles")
        held = self.captured(pos.get("captured"))
        in_window = self.steal(pos.get("steal"))
        named = held + in_window
        for h, c in self.creatures.items():
            if (c["where"] == CAPTURED) != (h in named):
                if c["where"] == CAPTURED:
                    fail(f"creatures.{h}.where", "captured, but no player holds it (captured: PLAYER: [...])")
                fail("captured", f"{h} is held by a player but is {c['where']}, not captured")
        if len(set(named)) != len(named):
            fail("captured", "a creature is held twice")
        for h in expect_list(pos.get("flown") or [], "flown"):
            # a fighter flown this turn may be lost since (a Black Hole tile removed the same turn)
            if h not in fighters or self.boats.get(h, {}).get("where") not in (SEA, LOST):
                fail("flown", f"{show(h)} is not a fighter on the board (or lost since it flew this turn)")
        resume = pos.get("resume") or ""
        if resume:
            expect_choice(resume, "resume", rules.turn_steps, "a turn step to go on with")
        expect_int(pos.get("blue_played") or 0, "blue_played", 0)
        expect_int(pos.get("extra") or 0, "extra", 0)

    def captured(self, value: Any) -> list[str]:
        record = expect_mapping(value if value is not None else {}, "captured")
        out: list[str] = []
        for player, handles in record.items():
            self.player(player, "captured")
            out += self.handles(handles, f"captured.{player}", self.creatures, "a creature")
        return out

    def steal(self, value: Any) -> list[str]:
        if value is None:
            return []
        record = expect_mapping(value, "steal")
        expect_keys(record, "steal", ("creatures", "capturer", "queue"))
        self.player(record["capturer"], "steal.capturer")
        queue = self.handles(record["queue"], "steal.queue", self.players, "a player")
        if not queue:
            fail("steal.queue", "is empty: a steal window asks at least one player")
        creatures = self.handles(record["creatures"], "steal.creatures", self.creatures, "a creature")
        if not creatures:
            fail("steal.creatures", "is empty: a steal window is about captured creatures")
        return creatures
