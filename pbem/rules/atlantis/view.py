"""Positions and views: THE one function that decides what a viewer sees.

:meth:`ViewRules.make_view` turns a state into a plain position.  With
``omniscient=True`` it is the full position (``to_position``); otherwise hidden
values the viewer may not see are ``None``:

* explorer values: the owner sees their own during setup (or always with
  ``memory=open``); everybody sees the values of saved explorers once the game
  is over ("flip over all of the Explorer tokens you have managed to get to safe isles");
* tile backs: public once revealed or played; a hand tile's back only to its holder;
* standing orders: only to their player.

Everything else (boards, hands' handles, the turn) is public.  The board
picture, summary and move template are drawn from a view, never from a state.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import BoardPicture, HexCell, NeedsSecret
from pbem.rules.atlantis.base import RulesBase
from pbem.rules.atlantis.state import (
    BOAT,
    HAND,
    ISLE,
    LAND,
    OVER,
    SEA,
    SETUP_BOAT,
    SETUP_PLACE,
    USED,
    Boarding,
    Boat,
    Creature,
    Explorer,
    Reaction,
    State,
    Tile,
    Turn,
    sort_handles,
)

FORMAT = "atlantis/1"
SETUP_PHASES = (SETUP_PLACE, SETUP_BOAT)
CELL_COLOURS = {"sea": "#4a90d9", "beach": "#f1e2a0", "forest": "#5b9a47", "mountain": "#8d7d72", "isle": "#e9c46a"}


class ViewRules(RulesBase):
    # --- who sees what ------------------------------------------------------------
    def sees_value(self, state: State, viewer: str | None, e: Explorer) -> bool:
        if e.owner != viewer:
            return state.phase == OVER and e.where == ISLE
        if state.phase == OVER and e.where == ISLE:
            return True
        # "Once the game has begun, you can no longer look at or reveal the value of your Explorer tokens"
        return self.option(state, "memory") == "open" or state.phase in SETUP_PHASES

    def sees_back(self, state: State, viewer: str | None, t: Tile) -> bool:
        return t.where == USED or (t.where == HAND and viewer is not None and t.holder == viewer)

    def standing_view(self, state: State, player: str, viewer: str | None, omniscient: bool) -> dict | None:
        orders = state.standing.get(player)
        if orders is None or not (omniscient or viewer == player):
            return None
        return dict(sorted(orders.items()))

    def make_view(self, state: State, viewer: str | None, omniscient: bool = False) -> dict[str, Any]:
        # Piece dicts are kept in handle order (setup and read_position build them so).
        lab = self.board.labels
        explorers = {}
        for h, e in state.explorers.items():
            at = e.boat if e.where == BOAT else (None if e.cell is None else lab[e.cell])
            explorers[h] = {"colour": e.colour, "where": e.where, "at": at,
                            "value": e.value if omniscient or self.sees_value(state, viewer, e) else None}
        tiles = {}
        for h, t in state.tiles.items():
            tiles[h] = {"at": lab[t.cell], "terrain": t.terrain, "where": t.where, "holder": t.holder,
                        "obtained": t.obtained,
                        "back": t.back if omniscient or self.sees_back(state, viewer, t) else None}
        turn = state.turn
        return {
            "format": FORMAT,
            "options": {k: state.options[k] for k in sorted(state.options)},
            "players": [{"name": p, "colours": list(state.colours[p]),
                         "standing": self.standing_view(state, p, viewer, omniscient)}
                        for p in state.players],
            "phase": state.phase,
            "turn": {"number": turn.number, "player": turn.player, "step": turn.step, "moves": turn.moves,
                     "swum": sort_handles(turn.swum), "tile_played": turn.tile_played, "die": turn.die},
            "boarding": None if state.boarding is None else {
                "tile": state.boarding.tile, "boat": state.boarding.boat, "at": lab[state.boarding.cell]},
            "reaction": None if state.reaction is None else {
                "kind": state.reaction.kind, "creature": state.reaction.creature,
                "at": lab[state.reaction.cell], "queue": list(state.reaction.queue)},
            "explorers": explorers,
            "tiles": tiles,
            "boats": {h: {"where": b.where, "at": None if b.cell is None else lab[b.cell], "owner": b.owner}
                      for h, b in state.boats.items()},
            "creatures": {h: {"kind": c.kind, "where": c.where, "at": None if c.cell is None else lab[c.cell]}
                          for h, c in state.creatures.items()},
            "history": {k: state.history[k] for k in sorted(state.history)},
            **self.extra_view(state),
        }

    def extra_view(self, state: State) -> dict[str, Any]:
        """Public keys a variant adds to positions and views (a mixin merges ``super()``'s).

        Only keys in use are written, so base-game positions keep their shape."""
        return {}

    def read_extra(self, state: State, pos: Mapping[str, Any]) -> None:
        """Read back into ``state`` what :meth:`extra_view` wrote (before the indexes are rebuilt)."""

    # --- reading a position back ------------------------------------------------------
    def read_position(self, pos: Mapping[str, Any]) -> State:
        try:
            return self._read_position(pos)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise ValueError(f"not a valid atlantis position: {type(exc).__name__} {exc}") from None

    def _cell(self, label: Any) -> int | None:
        return None if label is None else self.board.index[label]

    def _read_position(self, pos: Mapping[str, Any]) -> State:
        if pos.get("format", FORMAT) != FORMAT:
            raise ValueError(f"format {pos.get('format')!r}, expected {FORMAT}")
        players = [p["name"] for p in pos["players"]]
        colours = {p["name"]: list(p["colours"]) for p in pos["players"]}
        owner_of = {c: p for p, cs in colours.items() for c in cs}
        explorers = {}
        for h in sort_handles(pos["explorers"]):
            d = pos["explorers"][h]
            where = d["where"]
            explorers[h] = Explorer(h, d["colour"], owner_of[d["colour"]], d.get("value"), where,
                                    None if where == BOAT else self._cell(d.get("at")),
                                    d.get("at") if where == BOAT else None)
        tiles = {}
        for h in sort_handles(pos["tiles"]):
            d = pos["tiles"][h]
            tiles[h] = Tile(h, self._cell(d["at"]), d["terrain"], d.get("back"), d["where"],
                            d.get("holder"), d.get("obtained"))
        boats = {h: Boat(h, d["where"], self._cell(d.get("at")), d.get("owner"))
                 for h, d in ((h, pos["boats"][h]) for h in sort_handles(pos["boats"]))}
        creatures = {h: Creature(h, d["kind"], d["where"], self._cell(d.get("at")))
                     for h, d in ((h, pos["creatures"][h]) for h in sort_handles(pos["creatures"]))}
        t = pos["turn"]
        turn = Turn(number=int(t["number"]), player=t["player"], step=t["step"], moves=int(t.get("moves", 0)),
                    swum=sort_handles(t.get("swum") or []), tile_played=bool(t.get("tile_played", False)),
                    die=t.get("die"))
        b, r = pos.get("boarding"), pos.get("reaction")
        state = State(
            players=players, colours=colours, options=dict(pos["options"]),
            standing={p["name"]: (dict(p["standing"]) if p.get("standing") is not None else None)
                      for p in pos["players"]},
            phase=pos["phase"], turn=turn, explorers=explorers, tiles=tiles, boats=boats, creatures=creatures,
            boarding=None if b is None else Boarding(b["tile"], b["boat"], self._cell(b["at"])),
            reaction=None if r is None else Reaction(r["kind"], r["creature"], self._cell(r["at"]), list(r["queue"])),
            history=dict(pos.get("history") or {}))
        self.read_extra(state, pos)
        state.rebuild_indexes()
        return state

    # --- the board picture ------------------------------------------------------------
    def picture(self, view: Mapping[str, Any]) -> BoardPicture:
        state = self.read_position(view)
        lab = self.board.labels
        marks: dict[int, list[str]] = {}
        for h in sort_handles(state.creatures):
            c = state.creatures[h]
            if c.where == SEA:
                marks.setdefault(c.cell, []).append(h)
        for h in sort_handles(state.boats):
            b = state.boats[h]
            if b.where == SEA:
                crew = sort_handles(b.passengers)
                marks.setdefault(b.cell, []).append(h + (":" + ",".join(crew) if crew else ""))
        for h in sort_handles(state.explorers):
            e = state.explorers[h]
            if e.where in (LAND, SEA, ISLE):
                marks.setdefault(e.cell, []).append(h)
        cells = []
        for cell, label in enumerate(lab):
            if self.board.is_isle(cell):
                kind = "isle"
            elif cell in state.tile_at:
                kind = state.tiles[state.tile_at[cell]].terrain
            else:
                kind = "sea"
            q, r = self.board.axial[cell]
            cells.append(HexCell(q=q, r=r, label=label, kind=kind, marks=marks.get(cell, [])))
        legend = {}
        for kind, spec in self.comp["creatures"].items():
            legend[f"{spec['prefix']}1..{spec['prefix']}{spec['count']}"] = kind.replace("serpent", "sea serpent")
        boats = self.comp["boats"]
        legend[f"{boats['prefix']}1..{boats['prefix']}{boats['count']}"] = "ship; B3:r7,b2 = ship B3 carrying r7 and b2"
        in_play = {c for p in view["players"] for c in p["colours"]}
        for colour, prefix in self.colour_prefixes(len(view["players"])).items():
            if colour not in in_play:
                continue
            n = sum(1 for e in view["explorers"].values() if e["colour"] == colour)
            legend[f"{prefix}1..{prefix}{n}"] = (f"{colour} explorer: on a terrain tile, swimming on sea, "
                                                 "saved on a safe isle")
        return BoardPicture(cells=cells, legend=legend, colours=dict(CELL_COLOURS))

    # --- one line per event -----------------------------------------------------------------
    EVENT_LINES: dict[str, str] = {
        "place": "{player} places {explorer} on {at}",
        "boat": "{player} places ship {boat} at {at}",
        "turn": "turn {turn}: {player}",
        "skip": "{player} skips step {step}: {reason}",
        "no-play": "{player} plays no tile",
        "play": "{player} plays {tile} ({back})",
        "move": "{player} moves {explorer} {from} -> {to} ({how})",
        "sail": "{player} sails ship {boat} {from} -> {to}",
        "done": "{player} ends movement after {used} point(s)",
        "remove": "{player} removes {terrain} tile {tile} at {at}{fell}",
        "reveal": "{tile} is {back}",
        "to-hand": "{player} takes {tile} into hand{secret}",
        "appear": "{piece} comes into play at {at}",
        "board": "{explorers} board ship {boat}",
        "supply-empty": "no {kind} left in the supply: nothing is placed",
        "lost": "{explorers} lost at {at} ({cause})",
        "ship-lost": "ship {boat} lost at {at} ({cause}){swim}",
        "creatures-lost": "{creatures} swallowed at {at} ({cause})",
        "roll": "{player} rolls {face}",
        "no-creature": "no {kind} on the board: nothing happens",
        "creature": "{player} moves {kind} {creature} {from} -> {to}",
        "defend": "{player} plays {tile} ({back}): {creature} at {at} is removed",
        "no-defense": "{player} does not defend",
        "attack": "{creature} attacks at {at}, threatening {threatened}",
        "standing": "{player} updates standing orders{orders}",
        "game-over": "game over ({reason}): scores {scores}; winners {winners}",
    }

    def describe(self, ev: Mapping[str, Any]) -> str:
        kind = ev.get("event")
        if kind not in self.EVENT_LINES:
            return ", ".join(f"{k}={v}" for k, v in ev.items())
        fields = {k: (", ".join(str(x) for x in v) if isinstance(v, list) else v) for k, v in ev.items()}
        fields.setdefault("player", "")
        fields["fell"] = f"; {fields['swimmers']} now swimming" if ev.get("swimmers") else ""
        fields["swim"] = f"; {fields['swimmers']} now swimming" if ev.get("swimmers") else ""
        fields["secret"] = f" ({ev['back']})" if ev.get("back") else ""
        fields["orders"] = f": {ev['orders']}" if ev.get("orders") else ""
        if kind == "creature" and ev.get("creature") is None:
            return f"{ev.get('player')} does not move a {ev.get('kind')}"
        if kind == "creature" and ev.get("how") == "tile":
            return "{player} moves {kind} {creature} {from} -> {to} (tile)".format(**fields)
        if kind == "move" and ev.get("how") == "dolphin":
            return "{player}'s dolphin carries {explorer} {from} -> {to}".format(**fields)
        try:
            return self.EVENT_LINES[kind].format(**fields)
        except KeyError:
            return ", ".join(f"{k}={v}" for k, v in ev.items())

    # --- summary and move template --------------------------------------------------------
    def variants_line(self, state: State) -> str:
        """Which options differ from the plain game (the digests say what is in play)."""
        changed = [f"{spec.name}={state.options.get(spec.name, spec.default)}"
                   for spec in self.option_specs()  # type: ignore[attr-defined]
                   if str(state.options.get(spec.name, spec.default)) != spec.default]
        players = f"{len(state.players)} players"
        return f"In play: {players}, " + (", ".join(changed) if changed else "the standard rules") + "."

    def summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        state = self.read_position(view)
        lines = [self.variants_line(state)]
        if state.phase == OVER:
            lines.append("Game over.")
        elif state.phase in SETUP_PHASES:
            unplaced = sum(1 for e in state.explorers.values() if e.where == "reserve")
            ships = sum(1 for b in state.boats.values() if b.where == "reserve")
            lines.append(f"Setup ({state.phase}): {self.decider(state)} to place; "
                         f"{unplaced} explorers and {ships} ships still to place.")
        else:
            step = state.turn.step
            extra = f", {state.turn.moves}/{self.comp['movement_points']} points used" if step == "move" else ""
            extra += f", die: {state.turn.die}" if step in ("creature", "defense") else ""
            lines.append(f"Turn {state.turn.number}: {state.turn.player} (step {step}{extra}); "
                         f"waiting for {self.decider(state)}.")
        lines.append(f"Tiles left: {self.tiles_left(state)}.")
        saved = []
        for p in state.players:
            for colour in state.colours[p]:
                n = sum(1 for e in state.explorers.values() if e.colour == colour and e.where == ISLE)
                lost = sum(1 for e in state.explorers.values() if e.colour == colour and e.where == "lost")
                saved.append(f"{colour} ({p}) {n} saved, {lost} lost")
        lines.append("Explorers: " + "; ".join(saved) + ".")
        hands = [f"{p} {len(self.hand(state, p))}" for p in state.players if self.hand(state, p)]
        if hands:
            lines.append("Tiles in hand: " + ", ".join(hands) + ".")
        return lines

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_position(view)
        who = self.decider(state)
        if state.phase == OVER:
            return "actions: []   # the game is over\n"
        if who != player:
            return (f"actions: []   # waiting for {who} ({self.current_step(state)})\n"
                    "# any time: - {standing: {shark_defense: ask, whale_defense: auto}}\n")
        step = self.current_step(state)
        lines = ["actions:"]

        def hint(items: list[str], n: int = 12) -> str:
            return ", ".join(items[:n]) + (", ..." if len(items) > n else "")

        def legal() -> list[dict[str, Any]]:
            try:
                return self.legal_actions(state, player)
            except NeedsSecret:
                return []

        if step == SETUP_PLACE:
            acts = legal()
            mine = sort_handles({a["place"] for a in acts})
            spots = sorted({a["on"] for a in acts}, key=lambda s: self.board.index[s])
            lines.append(f"  - {{place: {mine[0] if mine else 'r1'}, on: {spots[0] if spots else 'G5'}}}"
                         f"   # yours: {hint(mine)}; empty tiles: {hint(spots)}")
        elif step == SETUP_BOAT:
            acts = legal()
            ships = sort_handles({a["boat"] for a in acts})
            spots = sorted({a["at"] for a in acts}, key=lambda s: self.board.index[s])
            lines.append(f"  - {{boat: {ships[0] if ships else 'B1'}, at: {spots[0] if spots else 'F2'}}}"
                         f"   # free sea spaces next to the island: {hint(spots)}")
        elif step == "choose-boarders":
            swimmers = sort_handles(state.swimmers(state.open_boarding().cell))
            lines.append(f"  - {{board: [{', '.join(swimmers[:3])}]}}   # choose 3 of {', '.join(swimmers)}")
        elif step == "defense":
            r = state.open_reaction()
            lines.append(f"  - {{defend: none}}   # or {{defend: TILE}} to remove {r.creature} at {self.label(r.cell)}")
        else:
            steps = ["play-tile", "move", "remove-tile", "creature"]
            for s in steps[steps.index(step):]:
                lines.extend(self.template_step(state, player, s, s == step, legal))
        lines.append("# any time: - {standing: {shark_defense: ask, whale_defense: auto}}")
        return "\n".join(lines) + "\n"

    def template_step(self, state: State, player: str, step: str, now: bool, legal) -> list[str]:
        if step == "play-tile":
            return ["  # step 1: play a tile from your hand, e.g. {play: T12, swimmer: r3, to: F4} (dolphin),",
                    "  #   {play: T12, boat: B3, to: F4} (wind), {play: T12, creature: S2, to: F4} (move a creature)",
                    "  - {play: none}"]
        if step == "move":
            left = self.comp["movement_points"] - state.turn.moves
            return [f"  # step 2: {left} movement point(s), one per action: {{move: r7, to: G5}} "
                    "(explorer) or {move: B3, to: F4} (ship)",
                    "  - {done: move}"]
        if step == "remove-tile":
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            return [f"  # step 3: removable now: {', '.join(spots)}",
                    f"  - {{remove: {spots[0] if spots else 'G5'}}}"]
        if now and state.turn.die:
            options = [f"{a['creature']}->{a['to']}" for a in legal() if a.get("creature") != "none"]
            return [f"  # step 4: the die shows {state.turn.die}; e.g. {', '.join(options[:8])}",
                    "  - {creature: none}"]
        return ["  # step 4: an order for each die face, e.g. shark: {creature: K1, to: F4}",
                "  - creature:", "      serpent: none", "      shark: none", "      whale: none"]
