"""Survive: Escape from Atlantis! (30th anniversary), with its mini-expansions as options.

:class:`AtlantisGame` is the game at the :class:`pbem.game.Game` interface: its options,
and which layers an option combination puts in front of
:class:`~pbem.rules.atlantis.rules.AtlantisRules` (see :meth:`AtlantisGame.layers`).
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from pbem.game import (
    BoardPicture,
    BoardPlaces,
    OptionError,
    OptionSpec,
    Piece,
    Result,
    Section,
)
from pbem.rules.atlantis.challenges import (
    END_CHOICES,
    END_SUBMERGED,
    END_TO_THE_LAST,
    END_VOLCANO,
    AllEqual,
    Overpopulated,
    Submerged,
    ToTheLast,
)
from pbem.rules.atlantis.dive import Dolphins
from pbem.rules.atlantis.picture import atlantis_picture, atlantis_piece, atlantis_places
from pbem.rules.atlantis.players56 import Challenge5, Players56
from pbem.rules.atlantis.position_check import PositionCheck
from pbem.rules.atlantis.result_page import result_sections as atlantis_result_sections
from pbem.rules.atlantis.rules import AtlantisRules
from pbem.rules.atlantis.squid import GiantSquid, SquidsForWhales
from pbem.rules.atlantis.state import AtlantisState
from pbem.rules.survive.game import Layer, SurviveGame

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("memory", "strict", ("strict", "open"),
               "strict: you see your explorer values only during setup; open: always"),
    OptionSpec("colours", "1", ("1", "auto", "2"),
               "explorer colours per player: 1 (the text: \"Each player chooses a color\"); auto = 2 in a "
               "two-player game, else 1 (the text's opt-in for two players); 2 (two players only)", setup_only=True),
    OptionSpec("defense", "auto", ("auto", "never", "ask"),
               "default standing order for defense tiles", setup_only=True),
    OptionSpec("lagoon", "sea", ("sea", "land"),
               "does the central sea hex count as a sea space when choosing which tile to remove"),
    OptionSpec("boats", "per-player", ("per-player", "per-colour"),
               "ships at setup: 2 per player, or 2 per colour", setup_only=True),
    OptionSpec("layout", "random", ("random", "fixup"),
               "fixup: reshuffle the terrain until no beach/forest tile is isolated", setup_only=True),
    # the 5-6 Players! mini-expansion's tie-breaks
    OptionSpec("ties", "auto", ("auto", "shared", "broken"),
               "auto: ties broken as in the 5-6 player rules in a 5-6 player game, shared otherwise; "
               "shared: tied players share the win; broken: more explorers rescued, then (all-equal) "
               "more points, then fewer turns taken"),
    # the challenges
    OptionSpec("overpopulated", "no", ("no", "yes"),
               "yes: challenge #1 (2-4 players: up to two explorers on each inland tile at setup) or, "
               "with 5-6 players, challenge #5", setup_only=True),
    OptionSpec("end", END_VOLCANO, END_CHOICES,
               "volcano: the volcano ends the game; to-the-last: challenge #2 (ends when the last explorer "
               "leaves the board); submerged: challenge #4 (ends with the last terrain tile)"),
    OptionSpec("scoring", "values", ("values", "all-equal"),
               "values: add up the saved explorers' values; all-equal: challenge #3, count them"),
    # Dolphins & Dive Dice
    OptionSpec("dolphins", "no", ("no", "yes"),
               "Dolphins & Dive Dice (challenge #6): dolphin tiles place dolphin tokens that protect "
               "swimmers; two dive dice replace the creature die", setup_only=True),
    # The Giant Squid
    OptionSpec("squid", "no", ("no", "yes", "replace-whales"),
               "The Giant Squid: yes = a squid comes with every whale; "
               "replace-whales = variant #1, squids instead of whales", setup_only=True),
    OptionSpec("squid_take", "yes", ("yes", "no"),
               "The Giant Squid: a squid placed next to people takes one of them "
               "(no = variant #2)"),
)


class AtlantisGame(SurviveGame[AtlantisState]):
    name = "atlantis"
    title = "Survive: Escape from Atlantis! (30th anniversary)"
    rules_version = "atlantis-30th/1"
    min_players = 2
    max_players = 6   # 5-6 with the 5-6 Players! mini-expansion (players56.py)
    anytime_actions: tuple[str, ...] = ("standing",)
    private_orders: tuple[str, ...] = ("standing",)   # sealed by pbem play
    data_folder = "atlantis"
    base_rules = AtlantisRules
    #: checks a position file before a game starts from it
    position_check: type[PositionCheck] = PositionCheck

    def __init__(self) -> None:
        super().__init__()
        plain = self.base
        assert isinstance(plain, AtlantisRules)
        self.plain: AtlantisRules = plain
        # event lines of every layer: an event is described without knowing the options
        self.describer = self.rules_with((Challenge5, ToTheLast, Dolphins, GiantSquid))

    def option_specs(self) -> Sequence[OptionSpec]:
        return OPTIONS

    def layers(self, options: Mapping[str, str], n_players: int) -> tuple[Layer, ...]:
        """The mini-expansions and challenges these options play, asked in this order."""
        out: list[Layer] = []
        overpopulated = options["overpopulated"] == "yes"
        if self.plain.players56_setup(n_players) is not None:
            out.append(Challenge5 if overpopulated else Players56)
        elif overpopulated:
            out.append(Overpopulated)
        if options["end"] == END_TO_THE_LAST:
            out.append(ToTheLast)
        elif options["end"] == END_SUBMERGED:
            out.append(Submerged)
        if options["scoring"] == "all-equal":
            out.append(AllEqual)
        if options["dolphins"] == "yes":
            out.append(Dolphins)
        if options["squid"] == "yes":
            out.append(GiantSquid)
        elif options["squid"] == "replace-whales":
            out.append(SquidsForWhales)
        return tuple(out)

    def check_options(self, options: Mapping[str, str], players: Sequence[str]) -> None:
        if self.plain.players56_setup(len(players)) is not None and options.get("boats") == "per-colour":
            raise OptionError("boats=per-colour cannot be used with 5-6 players: "
                              "the 5-6 player rules say how many ships each seat gets")
        end = options.get("end")
        if isinstance(end, str) and end not in END_CHOICES:
            asked = set(re.split(r"[\s,+&/]+", end.strip()))
            if {END_TO_THE_LAST, END_SUBMERGED} <= asked:
                raise OptionError("end=to-the-last (challenge #2) and end=submerged (#4) cannot be combined: "
                                  "#2 plays on after the last tile is gone, #4 ends the game with it")
        super().check_options(options, players)
        if options.get("squid_take", "yes") == "no" and options.get("squid", "no") == "no":
            raise OptionError("squid_take=no (variant #2) needs squid=yes or squid=replace-whales")
        self.check_player_count(players)
        per = self.base.colours_per_player(len(players), self.full_options(options))
        in_box = len(self.ruleset(self.full_options(options), len(players)).colour_prefixes(len(players)))
        if per * len(players) > in_box:
            raise OptionError(f"colours={options.get('colours')} needs {per * len(players)} colours; "
                              f"there are {in_box}")

    def check_position(self, position: Mapping[str, Any]) -> None:
        """Positions are validated like moves: see :mod:`pbem.rules.atlantis.position_check`."""
        self.position_check(self, position).run()

    def describe_game_event(self, event: Mapping[str, Any]) -> str:
        return self.describer.describe(event)

    def board_picture(self, view: Mapping[str, Any]) -> BoardPicture:
        """Pieces in player colours, drawn from the view only (pbem/rules/atlantis/picture.py)."""
        return atlantis_picture(view, self.data_folder)

    def board_piece(self, view: Mapping[str, Any], handle: str) -> Piece | None:
        """One piece of :meth:`board_picture`, drawn alone."""
        return atlantis_piece(view, handle, self.data_folder)

    def board_places(self, view: Mapping[str, Any]) -> BoardPlaces:
        """Where the pieces of :meth:`board_picture` are, found without drawing."""
        return atlantis_places(view, self.data_folder)

    def result_sections(self, view: Mapping[str, Any], result: Result) -> list[Section]:
        """The end-of-game table: every saved explorer's value, the tie-break (result_page.py)."""
        return atlantis_result_sections(view, result)


#: the game this module registers (entry point "pbem.games"; the source-checkout scan reads it)
GAME = AtlantisGame
