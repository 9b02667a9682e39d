"""Space Swarm's turn model for the player's page (``Game.turn_model``; docs/turn-model.md): the
data ``templates/turnmodel/swarm.js`` needs besides the player's view to work out their turn as
the engine does: the map's links (neighbours and Worm Holes), what each terrain code is, what
each card face does, the rule numbers, the options' defaults, the prompts' texts, the race codes
that name stacks on the board and the standing orders' form.  Made from the view alone: nothing
here is hidden from the player (card faces are the printed deck list, not who holds what)."""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import TurnModel
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.events import HELPS_IN, STANDING_KEYS
from pbem.rules.spaceswarm.options import OPTION_SPECS
from pbem.rules.spaceswarm.picture import race_codes
from pbem.rules.spaceswarm.places import FIELDS, ORDER_WORDS, STANDING_TITLE
from pbem.rules.spaceswarm.prompts import NO_EVENTS, PROMPTS, REACT_WHAT, RESEARCH_DEVELOP
from pbem.rules.spaceswarm.terrain import link_table
from pbem.core.sharedview import read_back
from pbem.rules.spaceswarm.view import read_position

FAMILY = "swarm"
#: the options the model reads (the rest are set-up options: the map is in the view)
MODEL_OPTIONS = ("tech_phase", "event_phase", "combat_hexes", "react_combat", "react_bid", "slot")


def turn_model(view: Mapping[str, Any], player: str) -> TurnModel:
    state = read_back(view, "state", read_position)
    data = swarm_data()
    return TurnModel(FAMILY, {
        "links": [list(cells) for cells in link_table(state.hexmap)],
        "terrain": {t.code: key for key, t in data.terrains.items()},
        "faces": {name: [f.type, f.attribute, f.bonus] for name, f in data.faces.items()},
        "base": data.base,
        "hand_base": data.hand_limit_base,
        "research_draw": data.research_draw,
        "ruins_draw": data.ruins_draw,
        "defaults": {s.name: s.default for s in OPTION_SPECS if s.name in MODEL_OPTIONS},
        "helps": {kind: list(attributes) for kind, attributes in HELPS_IN.items()},
        "prompts": dict(PROMPTS),
        "research_develop": list(RESEARCH_DEVELOP),
        "no_events": NO_EVENTS,
        "react_what": dict(REACT_WHAT),
        "codes": race_codes(state.players),
        "standing": {"title": STANDING_TITLE, "keys": list(STANDING_KEYS),
                     "fields": {key: [label, list(values), [ORDER_WORDS[v] for v in values]]
                                for key, (label, values) in FIELDS.items()}},
    })
