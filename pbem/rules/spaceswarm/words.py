"""How Space Swarm's actions read on a player's page and in `pbem turn`
(``Game.describe_action``): one phrase per action kind (pbem.core.actionwords)."""
from __future__ import annotations

from typing import Any, Mapping

from pbem.core.actionwords import Phrase, value_words

__all__ = ["PHRASES"]


def _move(a: Mapping[str, Any]) -> str:
    fleets = a.get("fleets")
    what = f"{fleets} fleet{'s' if fleets != 1 else ''}" if fleets is not None else "the fleets"
    return f"Move {what} from {a['move']} along {value_words(a['path'])}"


def _produce(a: Mapping[str, Any]) -> str:
    where = a["produce"]
    if isinstance(where, Mapping):
        return "Produce " + ", ".join(f"{n} on {cell}" for cell, n in where.items())
    return f"Produce on {where}"


PHRASES: dict[str, Phrase] = {
    "move": _move,
    "produce": _produce,
    "done": lambda a: "End your moves" if a["done"] == "move" else f"Done with {a['done']}",
    "attack": lambda a: "Attack everywhere you can" if a["attack"] == "all" else f"Attack {value_words(a['attack'])}",
    "develop": lambda a: "Develop nothing" if a["develop"] == "none" else f"Develop card {a['develop']}",
    "discard": lambda a: f"Discard {value_words(a['discard'])}",
    "react": lambda a: "No reaction" if a["react"] == "none" else f"React with {value_words(a['react'])}",
    "slot": lambda a: f"Take slot {a['slot']}",
    "event": lambda a: f"Play event card {a['event']}",
}
