"""How the survive family's actions read on a player's page and in `pbem turn`
(``Game.describe_action``): one phrase per action kind (pbem.core.actionwords)."""
from __future__ import annotations

from typing import Any, Mapping

from pbem.core.actionwords import Phrase, value_words

__all__ = ["PHRASES"]


def _route(a: Mapping[str, Any]) -> str:
    out = f" to {a['to']}" if "to" in a else ""
    return out + (f" along {value_words(a['path'])}" if a.get("path") else "")


def _move(a: Mapping[str, Any]) -> str:
    how = [k for k in ("swim", "ride", "dolphin", "drift") if a.get(k)]
    return f"Move {a['move']} to {a['to']}" + (f" ({', '.join(how)})" if how else "")


def _play(a: Mapping[str, Any]) -> str:
    if a["play"] == "none":
        return "Play no tile"
    rest = [f"{k} {value_words(v)}" for k, v in a.items() if k not in ("play", "to", "path")]
    return f"Play tile {a['play']}" + (": " + ", ".join(rest) if rest else "") + _route(a)


def _none_or(nothing: str, some: Phrase) -> Phrase:
    return lambda a: nothing if next(iter(a.values())) == "none" else some(a)


PHRASES: dict[str, Phrase] = {
    "place": lambda a: f"Place {a['place']} on {a['on']}",
    "play": _play,
    "move": _move,
    "done": lambda a: "End your moves" if a["done"] == "move" else f"Done with {a['done']}",
    "remove": lambda a: f"Remove the tile on {a['remove']}" + (f", boarding {value_words(a['board'])}" if a.get("board") else ""),
    "creature": _none_or("Move no creature", lambda a: f"Move creature {a['creature']}" + _route(a)),
    "defend": _none_or("Do not defend", lambda a: f"Defend with {a['defend']}" + _route(a)),
    "standing": lambda a: f"Standing orders: {value_words(a['standing'])}",
    "boat": lambda a: f"Put boat {a['boat']} on {a['at']}",
    "board": lambda a: f"Board {value_words(a['board'])}",
    "dive": _none_or("No dive", lambda a: f"Dive {a['dive']}" + _route(a)
                     + (f", protecting {a['protect']}" if a.get("protect") else "")),
    "protect": lambda a: f"Protect {a['protect']}",
    "squid": lambda a: f"Put squid {a['squid']} on {a['at']}",
    "take": lambda a: f"Take {a['take']}",
}
