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
    "terrain tile": "station tile",
    "island": "station",
    "an edge tile": "an edge",          # "on the outside edge of the Station"
    "an inner tile": "an inner",
    "end tile": "Core Breach",
    "end event": "core-breach",
    "clear area": "black hole",
})
