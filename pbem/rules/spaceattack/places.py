"""Space Attack on the click-to-move page (``Game.action_places``): where each piece stands.

The core reads an action's pieces and spaces from the view (crew, escape pods, fighters and
creatures by their handles; :meth:`~pbem.rules.survive.view.ViewRules.action_places`).  Space
Attack adds the laser turrets: a turret is named by its Reactor tile and stands on it, so
``{fire: T37, at: F9}`` picks the turret on T37's space and shoots at F9, and a red tile that
fires one (``{play: T5, turret: T37, at: F9}``) reads the same way.  Captured creatures are
off the board (in front of their captor): ``{deploy: Q6, to: F4}`` puts Q6 on F4.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.rules.spaceattack.setup import REACTOR
from pbem.rules.survive.state import ISLAND


def turret_spaces(view: Mapping[str, Any]) -> dict[str, str]:
    """Each laser turret (its Reactor tile's handle) -> the space it stands on."""
    return {h: str(t["at"]) for h, t in view["tiles"].items()
            if t["terrain"] == REACTOR and t["where"] == ISLAND and t.get("at")}


def state_turret_spaces(tiles: Mapping[str, Any], labels: Sequence[str]) -> dict[str, str]:
    """:func:`turret_spaces` read off a state's tiles (``labels``: each cell's space)."""
    return {h: str(labels[t.cell]) for h, t in tiles.items()
            if t.terrain == REACTOR and t.where == ISLAND and labels[t.cell]}
