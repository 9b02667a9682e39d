"""The game's options: every ruling where players could reasonably disagree, and
the substitutes of components.md section 7 (docs/games/space-swarm.md explains each)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from pbem.game import OptionSpec
from pbem.rules.spaceswarm.mapgen import GENERATED, MapSettings

ORDERS = ("auto", "never", "ask")
SLOT_ORDERS = ("ask", "first", "last")

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("map", GENERATED, (), "generated (seeded, from the d20 table), or FILE: a hand-made map (YAML)",
               setup_only=True),
    OptionSpec("size", "auto", (), "generated map size: auto (by player count) or COLUMNSxROWS, e.g. 9x7",
               setup_only=True),
    OptionSpec("home_hazards", "keep", ("keep", "reroll"),
               "keep: a Super Nova / Quasar / Black Hole rolled next to a home stays (the text rolls each space "
               "once); reroll: re-roll it (pbem's generator fix)", setup_only=True),
    OptionSpec("cut_homes", "allow", ("allow", "reroll"),
               "allow: a generated map whose Super Novas cut two homes apart is played (the text rolls each space "
               "once); reroll: roll the map again (pbem's generator fix)", setup_only=True),
    OptionSpec("symmetry", "none", ("none", "half-turn"),
               "half-turn: the generated terrain is the same seen from either end of the map", setup_only=True),
    OptionSpec("tech_phase", "development", ("development", "research"),
               "when Technology cards are placed: the Development Phase, or the Research Phase (before the draw)"),
    OptionSpec("event_phase", "other", ("other", "any"),
               "when Event cards are played: in the other phases than the one where Technology cards are placed "
               "(the text), or in any phase"),
    OptionSpec("mulligan", "repeat", ("repeat", "once"),
               "a starting draw without Technology is redrawn until it has one, or only once", setup_only=True),
    OptionSpec("decks", "1", ("1", "2"), "one deck of 54 cards, or two shuffled together (long games, 5-6 players)",
               setup_only=True),
    OptionSpec("combat_hexes", "all", ("all", "active"),
               "battles in the Attack Phase: every space with opposing stacks, or only where the active race is"),
    OptionSpec("react_combat", "auto", ORDERS,
               "default standing order before battles you are in: play your combat Event cards (auto), never, or ask"),
    OptionSpec("react_bid", "never", ORDERS,
               "default standing order before the Round Bid: play Initiative Event cards (auto), never, or ask"),
    OptionSpec("slot", "ask", SLOT_ORDERS,
               "default standing order for your place in the Round Bid: ask, first or last free place"),
)


@dataclass(frozen=True)
class Settings:
    """The options of one game, typed."""

    map: str
    map_settings: MapSettings
    tech_phase: str
    event_phase: str
    mulligan: str
    decks: int
    combat_hexes: str
    react_combat: str
    react_bid: str
    slot: str

    @classmethod
    def of(cls, options: Mapping[str, str]) -> "Settings":
        """The options, typed (the rules ask on every move: worked out once per set of options)."""
        try:
            return _settings(tuple(options.items()))
        except TypeError:          # an unhashable value (a hand-made position): worked out each time
            return cls.read(options)

    @classmethod
    def read(cls, options: Mapping[str, str]) -> "Settings":
        o = {s.name: str(options.get(s.name, s.default)) for s in OPTION_SPECS}
        return cls(map=o["map"],
                   map_settings=MapSettings(o["size"], o["home_hazards"], o["cut_homes"], o["symmetry"]),
                   tech_phase=o["tech_phase"], event_phase=o["event_phase"], mulligan=o["mulligan"], decks=int(o["decks"]),
                   combat_hexes=o["combat_hexes"], react_combat=o["react_combat"], react_bid=o["react_bid"],
                   slot=o["slot"])


@lru_cache(maxsize=64)
def _settings(items: tuple[tuple[str, str], ...]) -> Settings:
    return Settings.read(dict(items))
