"""What players see: nothing about villagers is hidden; tile bottoms are, until sunk.

Positions have the 30th-anniversary shape (``format: atlantis/1``).  Every
villager's ``value`` is 1 and public; a tile's ``back`` (its bottom) is
``null`` in views until the tile sinks.  There are no hands of tiles and no
standing orders, so a player's secrets are empty.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import NeedsSecret
from pbem.rules.survive.rules import SurviveRules
from pbem.rules.survive.state import (
    ISLE,
    LOST,
    OVER,
    SETUP_BOAT,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_MOVE,
    STEP_REMOVE,
    Explorer,
    State,
)
from pbem.rules.survive.view import ViewRules

STEP_DIVE = "dive"


def face_parts(face: str) -> tuple[str, str]:
    """``"shark-2"`` -> ``("shark", "2")``; ``"octopus-dive"`` -> ``("octopus", "dive")``."""
    kind, _, move = face.rpartition("-")
    return kind, move


CREATURE_NAMES = {"shark": "shark", "octopus": "octopus (giant squid)", "monster": "sea monster", "dolphin": "dolphin"}


class View1986(SurviveRules[State]):
    state_class = State

    # --- who sees what ------------------------------------------------------------
    def turn_model_params(self, state: State) -> dict[str, Any]:
        return {**super().turn_model_params(state), "values_seen_in_play": True}

    def sees_value(self, state: State, viewer: str | None, e: Explorer) -> bool:
        """Villagers carry no hidden number in this edition."""
        return True

    def secrets(self, state: State, player: str) -> dict[str, Any]:
        return {}

    # --- texts ---------------------------------------------------------------------
    EVENT_LINES: dict[str, str] = {
        **ViewRules.EVENT_LINES,
        "place": "{player} places villager {explorer} on {at}",
        "boat": "{player} places boat {boat} at {at}",
        "sail": "{player} moves boat {boat} {from} -> {to}",
        "remove": "{player} sinks {terrain} tile {tile} at {at}{fell}",
        "board": "{explorers} climb into boat {boat}",
        "ship-lost": "boat {boat} destroyed at {at} ({cause}){swim}",
        "spin": "{player} spins {face}",
        "no-creature": "no {kind} on the board: nothing happens",
        "no-move": "no {kind} can move: nothing happens",
        "dive": "{player}'s {kind} {creature} dives at {from} and appears at {to}",
    }

    def describe(self, ev: Mapping[str, Any]) -> str:
        if ev.get("event") == "move" and ev.get("how") == "dolphin":
            return "{player}'s villager {explorer} rides dolphin {dolphin} {from} -> {to}".format(
                **{k: ev.get(k, "") for k in ("player", "explorer", "dolphin", "from", "to")})
        return super().describe(ev)

    def model_prompts(self, state: State) -> dict[str, str]:
        """The page's words for each decision (the 1986 rule book's villagers, boats and spinner, or
        the dice that replace it)."""
        shows = "the dice show" if self.option(state, "spinner") == "dice" else "the spinner shows"
        return {
            **super().model_prompts(state),
            SETUP_PLACE: "place one of your villagers on an island tile (one per beach tile)",
            SETUP_BOAT: "place a boat on a free sea space next to the island",
            STEP_MOVE: "move your villagers and boats, or end your moves",
            STEP_REMOVE: "sink a tile",
            STEP_CREATURE: f"move a creature of the kind {shows}",
            STEP_DIVE: f"a creature of the kind {shows} dives: choose it and where it comes up",
            STEP_BOARDERS: "choose the villagers who climb into the boat",
        }

    def game_prompt(self, state: State, kind: str) -> str:
        if kind == SETUP_PLACE:
            return "place a villager on an island tile (one per beach tile): {place: r7, on: G5}"
        if kind == SETUP_BOAT:
            return "place a boat on a free sea space next to the island: {boat: B1, at: G2}"
        if kind == STEP_MOVE:
            left = self.movement_points(state) - state.turn.moves
            return (f"move: {left} movement point(s) left: {{move: r7, to: G5}}, {{move: B3, to: F4}}, "
                    "{move: r3, to: F4, ride: D1} or {done: move}")
        if kind == STEP_REMOVE:
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            return f"sink a tile, one of {', '.join(spots)}: {{remove: {spots[0]}}}"
        if kind == STEP_BOARDERS:
            b = state.open_boarding()
            return (f"choose {self.capacity(state, b.boat)} villagers at {self.label(b.cell)} to climb into "
                    f"boat {b.boat}: {{board: [r1, b2, g3]}}")
        if kind == STEP_CREATURE:
            creature, n = face_parts(state.turn.die or "")
            return (f"the spinner shows {state.turn.die}: move a {creature} up to {n} sea space(s): "
                    "{creature: HANDLE, to: SPACE}")
        if kind == STEP_DIVE:
            creature, _ = face_parts(state.turn.die or "")
            return f"the spinner shows {state.turn.die}: a {creature} dives: {{dive: HANDLE, to: SPACE}}"
        return super().game_prompt(state, kind)

    def summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        state = self.read_view(view)
        lines = [self.variants_line(state)]
        if state.phase == OVER:
            lines.append("Game over.")
        elif state.phase in (SETUP_PLACE, SETUP_BOAT):
            unplaced = sum(1 for e in state.explorers.values() if e.where == "reserve")
            boats = sum(1 for b in state.boats.values() if b.where == "reserve")
            lines.append(f"Setup: {self.decider(state)} to place; {unplaced} villagers and {boats} boats "
                         "still to place.")
        else:
            step = self.current_step(state)
            extra = f", {state.turn.moves}/{self.comp['movement_points']} points used" if step == STEP_MOVE else ""
            extra += f", spinner: {state.turn.die}" if step in (STEP_CREATURE, STEP_DIVE) else ""
            lines.append(f"Turn {state.turn.number}: {state.turn.player} ({step}{extra}); "
                         f"waiting for {self.decider(state)}.")
        lines.append(f"Island tiles left: {self.tiles_left(state)}.")
        tribes = []
        for p in state.players:
            mine = [e for e in state.explorers.values() if e.owner == p]
            saved = sum(1 for e in mine if e.where == ISLE)
            lost = sum(1 for e in mine if e.where == LOST)
            tribes.append(f"{'/'.join(state.colours[p])} ({p}) {saved} saved, {lost} lost")
        lines.append("Villagers: " + "; ".join(tribes) + ".")
        return lines

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_view(view)
        who = self.decider(state)
        if state.phase == OVER:
            return "actions: []   # the game is over\n"
        if who != player:
            return f"actions: []   # waiting for {who} ({self.current_step(state)})\n"
        step = self.current_step(state)
        try:
            legal = self.legal_actions(state, player)
        except NeedsSecret:
            legal = []
        lines = ["actions:"]
        if legal and step in (SETUP_PLACE, SETUP_BOAT, STEP_BOARDERS, STEP_CREATURE, STEP_DIVE):
            shown = ", ".join(_flow(a) for a in legal[1:9])
            lines.append(f"  - {_flow(legal[0])}" + (f"   # or {shown}, ..." if shown else ""))
            return "\n".join(lines) + "\n"
        if step == STEP_MOVE:
            left = self.comp["movement_points"] - state.turn.moves
            lines.append(f"  # movement: {left} point(s), one per action: {{move: r7, to: G5}} (villager), "
                         "{move: B3, to: F4} (boat), {move: r3, to: F4, ride: D1} (dolphin ride)")
            lines.append("  - {done: move}")
        if step in (STEP_MOVE, STEP_REMOVE):
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            lines += [f"  # sinking: sinkable now: {', '.join(spots)}", f"  - {{remove: {spots[0] if spots else 'G3'}}}"]
        lines.append("  # spinning: the spin comes after the sinking; orders may be written ahead per face or kind,")
        lines.append("  #   e.g. - creature: {shark-dive: {creature: K1, to: A5}, shark: {creature: K1, to: F4}}")
        return "\n".join(lines) + "\n"

    # --- the board picture -----------------------------------------------------------
def _flow(action: Mapping[str, Any]) -> str:
    """An action in YAML flow style: {creature: K2, to: F4}."""
    parts = []
    for k, v in action.items():
        parts.append(f"{k}: [{', '.join(map(str, v))}]" if isinstance(v, list) else f"{k}: {v}")
    return "{" + ", ".join(parts) + "}"
