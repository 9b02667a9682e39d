"""Space Attack's set-up and scoring, through the Survive core's hooks.

"Shuffle the Station tiles face up ..., and place them randomly on the thick white-bordered
spaces of the game board" (on a challenge map the Reactors may take their recommended slots);
"Place one Laser Turret on each of the Reactor tiles"; crew colours, hidden values and escape
pods as in the core; the five Fighters wait in the supply.  Scoring: "flip over all of the
Crew tokens you have managed to get to Jump Points ... Players also get a 1 point bonus for
each different Jump Point", with the rule book's tie-breaks.

Random draws at set-up, in order: ``station layout`` (the station kinds onto the slots; with
recommended Reactors the 36 other kinds onto the other slots), ``backs cargo_bay``,
``backs habitat``, ``backs bridge``, ``backs reactor``, then ``values <colour>`` per colour.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.game import OptionSpec, Rng
from pbem.rules.survive.base import SurviveData
from pbem.rules.survive.rules import SurviveRules
from pbem.rules.survive.scoring import TieBreak
from pbem.rules.survive.state import ISLE, SUPPLY, Boat, sort_handles
from pbem.rules.spaceattack.data import DEFENSE, STEAL, SpaceAttackData
from pbem.rules.spaceattack.state import SpaceAttackState
from pbem.rules.spaceattack.vocabulary import SPACE_ATTACK_WORDS

REACTOR = "reactor"


class SpaceAttackSetup(SurviveRules[SpaceAttackState]):
    state_class = SpaceAttackState
    position_format = "space-attack/1"
    vocabulary = SPACE_ATTACK_WORDS

    def __init__(self, data: SurviveData, option_specs: Sequence[OptionSpec]) -> None:
        if not isinstance(data, SpaceAttackData):
            raise TypeError("Space Attack plays on SpaceAttackData")
        self.sa = data
        fighters = data.comp["fighters"]
        #: the fighters' handles (X1..X5): ships with their own movement
        self.fighter_handles = tuple(f"{fighters['prefix']}{i + 1}" for i in range(int(fighters["count"])))
        #: yellow back -> the standing order that plays it, and back
        self.standing_of = {b: str(spec["standing"]) for b, spec in data.tile_backs.items()
                            if spec["kind"] in (DEFENSE, STEAL)}
        super().__init__(data, option_specs)

    # --- options read through the core's hooks -------------------------------------------
    def colours_per_player(self, n_players: int, options: Mapping[str, str]) -> int:
        """One colour each by default ("Each player chooses a color"); ``colours=auto``: "If you're
        playing with two players, you can decide to use two colors for each player" (two each), one
        otherwise; ``colours=2``: two."""
        choice = options.get("colours", "1")
        if choice == "auto":
            return 2 if n_players == 2 else 1
        return int(choice)

    def starting_ships(self, players: Sequence[str], colours: Mapping[str, Sequence[str]],
                       options: Mapping[str, str]) -> dict[str, int]:
        """"Each player gets 2 Escape Pod tokens"; ``pods=per-colour``: 2 per colour."""
        n = int(self.comp["boats"]["per_player"])
        return {p: n * len(colours[p]) if options.get("pods") == "per-colour" else n for p in players}

    def standing_keys(self) -> tuple[str, ...]:
        """One standing order per yellow tile (tiles.yaml ``standing``): queen_defense, ..., steal."""
        return tuple(self.standing_of.values())

    def standing_default(self, options: Mapping[str, str]) -> str:
        return options.get("reactions", "auto")

    def owner_always_sees_values(self, state: SpaceAttackState) -> bool:
        """``memory=open``; strict: "Once the game has begun, you can no longer look at or reveal
        the value of your Crew tokens, even if they've reached a Jump Point"."""
        return self.option(state, "memory") == "open"

    def not_sea_for_removal(self, state: SpaceAttackState) -> set[int]:
        """An open space: no station tile on it.  ``enclosed=station``: the spaces the station
        enclosed at set-up do not count (spaces of removed tiles always do)."""
        closed = set(state.tile_at)
        if self.option(state, "enclosed") != "open":
            closed.update(self.sa.enclosed)
        return closed

    # --- the station ---------------------------------------------------------------------------
    def recommended_reactors(self, options: Mapping[str, str]) -> bool:
        """``reactors=auto``: on the map's recommended slots when it has them (the challenge maps)."""
        choice = options.get("reactors", "auto")
        return choice == "recommended" or (choice == "auto" and bool(self.sa.reactor_slots))

    def deal_terrain(self, rng: Rng, options: Mapping[str, str]) -> list[str]:
        """"The setups show recommended locations for the four Reactor tiles ... All other tile
        types should be selected at random, as normal.  If desired you may select all tiles,
        including Reactor, at random.\""""
        pool = self.terrain_pool()
        slots = self.board.island_slots
        if not self.recommended_reactors(options):
            return rng.shuffled(pool, "station layout")
        fixed = set(self.sa.reactor_slots)
        for _ in fixed:               # one Reactor per recommended slot (the data keeps 4 and 4)
            pool.remove(REACTOR)
        others = iter(rng.shuffled(pool, "station layout"))
        return [REACTOR if cell in fixed else next(others) for cell in slots]

    def new_state(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> SpaceAttackState:
        state = super().new_state(players, options, rng)
        # "5 Fighter tokens": all set aside; they come into play from Fighter tiles
        for handle in self.fighter_handles:
            state.boats[handle] = Boat(handle, SUPPLY)
        state.boats = {h: state.boats[h] for h in sort_handles(state.boats)}
        state.captured = {p: [] for p in players}
        state.rebuild_indexes()
        return state

    # --- ships ------------------------------------------------------------------------------
    def is_fighter(self, boat: str) -> bool:
        return boat in self.fighter_handles

    def ship_capacities(self) -> dict[str, int]:
        """"Each Escape Pod can only carry a maximum of three Crew tokens"; "Each Fighter can only
        carry a maximum of one Crew token"."""
        fighters = int(self.comp["fighters"]["capacity"])
        return {**super().ship_capacities(), **{h: fighters for h in self.fighter_handles}}

    #: a creature kind's supply is the core's (the model asks for no other)
    turn_model_covers = frozenset({"supply"})

    def supply(self, state: SpaceAttackState, kind: str) -> list[str]:
        """Tokens set aside: ``escape_pod`` / ``fighter`` (``boat``: every ship), or creatures."""
        if kind == "fighter":
            return [h for h in self.fighter_handles if h in state.boats and state.boats[h].where == SUPPLY]
        if kind == "escape_pod":
            return [b.handle for b in state.boats.values() if b.where == SUPPLY and not self.is_fighter(b.handle)]
        return super().supply(state, kind)

    # --- scoring -------------------------------------------------------------------------------
    def jump_points_reached(self, state: SpaceAttackState, player: str) -> set[tuple[str, int]]:
        """(colour, Jump Point cell) of ``player``'s saved crew."""
        return {(e.colour, e.cell) for e in state.explorers.values()
                if e.owner == player and e.where == ISLE and e.cell is not None}

    def exit_bonus(self, state: SpaceAttackState, player: str) -> int:
        """"a 1 point bonus for each different Jump Point"; with two colours "a bonus point for
        each individual color you get to each Jump Point"."""
        return int(self.comp["jump_point_bonus"]) * len(self.jump_points_reached(state, player))

    def score_detail(self, state: SpaceAttackState) -> dict[str, Any]:
        """The Jump Point bonus of each player (in the game-over event and the result)."""
        return {"bonus": {p: self.exit_bonus(state, p) for p in state.players}}

    def tie_break_chain(self, state: SpaceAttackState) -> list[str]:
        """"the player who saved the most Crew tokens wins. If it is still tied, the player who
        reached the most different Jump Points wins. If still tied, the player who went latest
        in turn order is the winner.\""""
        return ["rescued", "jump_points", "seat"]

    def tie_break_table(self) -> dict[str, TieBreak[SpaceAttackState]]:
        return {**super().tie_break_table(),
                "jump_points": (lambda state, p: len({cell for _, cell in self.jump_points_reached(state, p)}), True),
                "seat": (lambda state, p: state.players.index(p), True)}
