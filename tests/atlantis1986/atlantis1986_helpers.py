"""Building concrete Escape from Atlantis (1986) positions for rule tests."""
from __future__ import annotations

from atlantis_positions import GameHelpers, PositionBuilder, kinds

from pbem.core.rng import Rng
from pbem.rules.atlantis.state import sort_handles
from pbem.rules.atlantis1986.game import Atlantis1986Game

GAME = Atlantis1986Game()
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
