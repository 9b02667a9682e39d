"""Space Attack's words for what the Survive core names (:mod:`pbem.rules.survive.vocabulary`):
crew tokens on station tiles, the station's edge, the Core Breach that a challenge turns into a
black hole.  Plain data, exported as it is."""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

#: word key (:data:`pbem.rules.survive.vocabulary.SURVIVE_WORDS`) -> Space Attack's word
SPACE_ATTACK_WORDS: Mapping[str, str] = MappingProxyType({
    "explorer": "crew token",
    "explorers": "crew tokens",
    "an explorer": "a crew token",
    "values key": "crew_values",
    "swimmer": "drifter",
    "swimmers": "drifters",
    "swim": "drift",
    "swum": "drifted",
    "swam": "drifted",
    "swimming": "drifting",
    "swim flag": "drift",
    "sea space": "open space",
    "sea spaces": "open spaces",
    "a sea space": "an open space",
    "safe isle": "Jump Point",
    "safe isles": "Jump Points",
    "a safe isle": "a Jump Point",
    "sea creature": "creature",
    "sail": "move",
    "sailed": "flew",
    "land": "a station tile",
    "terrain tile": "station tile",
    "terrain tiles": "station tiles",
    "a terrain tile": "a station tile",
    "island": "station",
    "an island": "a station",
    "an edge tile": "an edge",          # "on the outside edge of the Station"
    "an inner tile": "an inner",
    "end tile": "Core Breach",
    "end event": "core-breach",
    "clear area": "black hole",
    "quote: own pieces": "\"You cannot move another player's Crew tokens\"",
    "quote: no return": "\"Once a Crew token leaves the station ... it can no longer return onto a Station tile\"",
    "quote: one swim": "\"a Drifter may move only one open space in a turn\"",
})
