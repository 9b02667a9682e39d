"""Survive: Space Attack! (2-4 players, 5-6 with its kit), with its challenges as options.

:class:`SpaceAttackGame` is the game at the :class:`pbem.game.Game` interface: its options, the
station map each option combination plays on (a data set of its own:
:mod:`~pbem.rules.spaceattack.data`), and the layers it puts in front of
:class:`~pbem.rules.spaceattack.rules.SpaceAttackRules` (Survive's challenges and 5-6 player kit, :mod:`~pbem.rules.survive.challenges`).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.rules.survive.words import PHRASES as SURVIVE_PHRASES
from pbem.game import OptionError, OptionSpec, Section
from pbem.rules.spaceattack.data import SpaceAttackData, load, map_names
from pbem.rules.spaceattack.position_check import SpaceAttackPositionCheck
from pbem.rules.spaceattack.rules import SpaceAttackRules
from pbem.rules.spaceattack.state import SpaceAttackState
from pbem.rules.survive.challenges import Overpopulated, Players56, ToTheLast
from pbem.rules.survive.game import Layer, SurviveGame

#: Survive: Space Attack! - The Crew Strikes Back (its rules could not be found)
NOT_SUPPORTED = ("crew_strikes_back", "crew-strikes-back")

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("map", "standard", map_names(),
               "the station: standard (side A), or challenge #3's starship-titanus (side A), jacobs-ladder or "
               "asteroids (side B, two Jump Points)", setup_only=True),
    OptionSpec("reactors", "auto", ("auto", "recommended", "random"),
               "where the 4 Reactor tiles go: auto = a challenge map's recommended slots, at random on the "
               "standard station; recommended (a challenge map only); random", setup_only=True),
    OptionSpec("overpopulated", "no", ("no", "yes"),
               "challenge #1: up to two crew tokens on each inner station tile at set-up", setup_only=True),
    OptionSpec("end", "core-breach", ("core-breach", "to-the-last"),
               "core-breach: the Core Breach ends the game; to-the-last: challenge #2 (it acts as a black hole; "
               "the game ends when the last crew token leaves the board)"),
    OptionSpec("colours", "1", ("1", "auto", "2"),
               "crew colours per player: 1 (the text: \"Each player chooses a color\"); auto = 2 in a "
               "two-player game, else 1 (the text's opt-in for two players); 2 (two players only)", setup_only=True),
    OptionSpec("pods", "per-player", ("per-player", "per-colour"),
               "escape pods at set-up: 2 per player, or 2 per colour", setup_only=True),
    OptionSpec("memory", "strict", ("strict", "open"),
               "strict: you see your crew values only during set-up; open: always"),
    OptionSpec("reactions", "auto", ("auto", "never", "ask"),
               "the starting standing order for the yellow tiles (defence and steal)", setup_only=True),
    OptionSpec("blue_tiles", "one", ("one", "any"),
               "how many blue tiles you may play after your roll"),
    OptionSpec("enclosed", "open", ("open", "station"),
               "do the open spaces the station encloses at set-up count as open space for removal and "
               "challenge #1 (open: yes; station: no)"),
    OptionSpec("evolve_attack", "appear", ("appear", "fighters-only"),
               "appear: an evolved creature attacks its space; fighters-only: it destroys only a crewed fighter "
               "there (a Queen or Warrior)"),
)


class SpaceAttackGame(SurviveGame[SpaceAttackState]):
    name = "space-attack"
    title = "Survive: Space Attack!"
    rules_version = "space-attack/1"
    min_players = 2
    max_players = 6   # 5-6 with the 5-6 Player kit
    anytime_actions: tuple[str, ...] = ("standing",)
    private_orders: tuple[str, ...] = ("standing",)   # sealed by pbem play
    data_folder = "space-attack"
    base_rules = SpaceAttackRules

    def option_specs(self) -> Sequence[OptionSpec]:
        return OPTIONS

    phrases = {**SURVIVE_PHRASES,
               "pod": lambda a: f"Launch escape pod {a['pod']} at {a['at']}",
               "deploy": lambda a: "Deploy no fighter" if a["deploy"] == "none"
               else f"Deploy {a['deploy']}" + (f" to {a['to']}" if "to" in a else ""),
               "fire": lambda a: f"Fire turret {a['fire']} at {a['at']}",
               "steal": lambda a: "Steal nothing" if a["steal"] == "none" else f"Steal tile {a['steal']}"}

    # --- one data set per station map --------------------------------------------------------
    def data_variant(self, options: Mapping[str, str]) -> str:
        return str(options.get("map", "standard"))

    def load_data(self, variant: str) -> SpaceAttackData:
        return load(variant)

    def layers(self, options: Mapping[str, str], n_players: int) -> tuple[Layer, ...]:
        out: list[Layer] = []
        if options["overpopulated"] == "yes":
            out.append(Overpopulated)
        if self.sa_rules.players56_setup(n_players) is not None:
            out.append(Players56)
        if options["end"] == "to-the-last":
            out.append(ToTheLast)
        return tuple(out)

    @property
    def sa_rules(self) -> SpaceAttackRules:
        rules = self.base
        assert isinstance(rules, SpaceAttackRules)
        return rules

    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        for name in options:
            if name in NOT_SUPPORTED:
                raise OptionError("\"The Crew Strikes Back\" is not supported: its rules could not be found "
                                  "(docs/games/space-attack.md)")
        super().check_options(options, players)
        self.check_player_count(players)
        full = self.full_options(options)
        n = len(players)
        kit = self.sa_rules.players56_setup(n) is not None
        if full["colours"] == "2" and n != 2:
            raise OptionError(f"colours=2 needs exactly 2 players (there are not enough crew colours for {n})")
        if kit and full["pods"] == "per-colour":
            raise OptionError("pods=per-colour cannot be used with 5-6 players: the 5-6 Player kit says how many "
                              "escape pods each seat gets")
        data = self.data_for(full["map"])
        if full["reactors"] == "recommended" and isinstance(data, SpaceAttackData) and not data.reactor_slots:
            raise OptionError(f"reactors=recommended needs a challenge map: the {full['map']} station has no "
                              "recommended Reactor slots (use reactors=auto or random)")

    def check_position(self, position: Mapping[str, Any]) -> None:
        """Positions are validated like moves: see :mod:`pbem.rules.spaceattack.position_check`."""
        SpaceAttackPositionCheck(self, position).run()

    def describe_game_event(self, event: Mapping[str, Any]) -> str:
        return self.base.describe(event)

    def sections(self, view: Mapping[str, Any]) -> list[Section]:
        rules = self.view_rules(view)
        assert isinstance(rules, SpaceAttackRules)
        return rules.sections(view)

    # --- the rules' helpers, for callers that hold a game (tests, tools) ------------------------
    def rules_for(self, state: SpaceAttackState) -> SpaceAttackRules:
        rules = self.rules(state)
        assert isinstance(rules, SpaceAttackRules)
        return rules


GAME = SpaceAttackGame
