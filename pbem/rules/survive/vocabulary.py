"""A Survive game's words: what it calls its pieces, places and tiles, as one plain mapping.

The core's messages that name a piece or a place are made from the ruleset's
:attr:`~pbem.rules.survive.base.SurviveBase.vocabulary` (``self.word("explorer")``), so each game
speaks its own rule book without any rewriting of the core's text.  The mapping is plain data
(strings to strings) so that a module may export it, e.g. to the page's turn model.

:data:`SURVIVE_WORDS` are the words of Survive: Escape from Atlantis! (the core's own rule book);
every game's vocabulary has exactly its keys (``tests`` check it).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

#: word key -> the Atlantis word
SURVIVE_WORDS: Mapping[str, str] = MappingProxyType({
    # people
    "explorer": "explorer",
    "explorers": "explorers",
    "an explorer": "an explorer",
    "values key": "explorer_values",    # the secrets' key of a player's own hidden values
    "swimmer": "swimmer",
    "swimmers": "swimmers",
    "swim": "swim",                     # the verb: to swim one space
    "swum": "swum",
    "swam": "swam",
    "swimming": "swimming",
    "swim flag": "swim",                # the move's flag: {move: r7, to: G5, swim: true}
    # places
    "sea space": "sea space",
    "sea spaces": "sea spaces",
    "a sea space": "a sea space",
    "safe isle": "safe isle",
    "safe isles": "safe isles",
    "a safe isle": "a safe isle",
    "sea creature": "sea creature",
    "sail": "sail",                     # what ships do on the sea spaces
    "sailed": "sailed",
    "land": "land",                     # "G5 is land"
    # the land and its edge
    "terrain tile": "terrain tile",
    "terrain tiles": "terrain tiles",
    "a terrain tile": "a terrain tile",
    "island": "island",
    "an island": "an island",
    "an edge tile": "a coastal",        # a tile next to the open water, with its article
    "an inner tile": "an inland",       # a tile not next to it
    # the tile that ends the game, its event in the log, and the tile it acts as in challenges
    "end tile": "volcano",
    "end event": "eruption",
    "clear area": "whirlpool",
    # the rule book's own sentences that the core quotes
    "quote: own pieces": "\"You cannot move another player's Explorer tokens\"",
    "quote: no return": "\"Once an Explorer token leaves the island ... it can no longer return onto a Terrain tile\"",
    "quote: one swim": "\"a Swimmer may move only one sea space in a turn\"",
})
