"""Building concrete Escape from Atlantis (1986) positions for rule tests."""
from __future__ import annotations

from atlantis_positions import GameHelpers, PositionBuilder, kinds

from typing import Any

from pbem.core.rng import Rng
from pbem.game import Position
from pbem.rules.atlantis.state import sort_handles
from pbem.rules.atlantis1986.game import Atlantis1986Game, Atlantis1986Rules
from pbem.rules.survive.state import State


class Atlantis1986TestGame(Atlantis1986Game):
    """The 1986 game with the rules' helpers that only tests call."""

    @property
    def rules_1986(self) -> Atlantis1986Rules:
        rules = self.base
        assert isinstance(rules, Atlantis1986Rules)
        return rules

    @property
    def rings(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        return self.rules_1986.rings

    @property
    def board(self) -> Any:
        return self.data.board

    @property
    def comp(self) -> dict[str, Any]:
        return self.data.comp

    def label(self, cell: int | None) -> str:
        return self.base.label(cell)

    def roll_die(self, state: State, rng: Rng | None) -> str:
        return self.rules(state).roll_die(state, rng)

    def decision_kind(self, state: State, step: str) -> str:
        return self.rules(state).decision_kind(state, step)

    def template(self, view: Position, player: str) -> str:
        return self.move_template(view, player)


GAME = Atlantis1986TestGame()
_HELPERS = GameHelpers(GAME, b"atlantis-1986-tests")
rng, where, act = _HELPERS.rng, _HELPERS.where, _HELPERS.act
__all__ = ["GAME", "Pos", "act", "creature_step", "has_run", "kinds", "rng", "spin_rng", "where"]


def spin_rng(face: str, options: dict | None = None) -> Rng:
    """An Rng whose first spin (spinner, or the two dice with ``spinner=dice``) shows ``face``."""
    state = Pos(options=options).state()
    for i in range(5000):
        if GAME.roll_die(state, Rng(b"atlantis-1986-tests", f"spin{i}")) == face:
            return Rng(b"atlantis-1986-tests", f"spin{i}")
    raise AssertionError(f"no seed spins {face}")


class Pos(PositionBuilder):
    """A hand-built position: a seeded setup with the board emptied, then pieces put back.

    Every island tile stays (terrains by ring) unless ``island(...)`` keeps only some;
    all villagers start "lost" except a bystander (the last player's last villager,
    swimming at M9, so that the game goes on), boats and creatures in the supply, and
    it is ``players[0]``'s turn 5, step ``move``.
    """

    game = GAME
    default_seed = b"a1986"

    def prepare(self, p: dict) -> None:
        self.bystander = sort_handles(h for h, e in p["explorers"].items() if e["colour"] == self.players[-1])[-1]
        p["explorers"][self.bystander].update(where="sea", at="M9")

    def island(self, *labels: str) -> "Pos":
        """Only these island slots keep their tile."""
        for t in self.p["tiles"].values():
            t["where"] = "island" if t["at"] in labels else "used"
        return self

    def back(self, label: str, back: str) -> "Pos":
        self.p["tiles"][self.tile_at(label)]["back"] = back
        return self


def has_run(events, *run: str) -> bool:
    """The event kinds ``run`` happen one after the other in ``events``."""
    k = kinds(events)
    return any(k[i:i + len(run)] == list(run) for i in range(len(k)))


def creature_step(state, face: str) -> None:
    """Put ``state`` in the spinning phase with the spinner showing ``face``."""
    state.turn.die = face
    state.turn.step = GAME.decision_kind(state, "creature")
