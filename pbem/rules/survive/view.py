"""Positions and views: THE one function that decides what a viewer sees.

:meth:`ViewRules.make_view` turns a state into a plain position.  With
``omniscient=True`` it is the full position (``to_position``); otherwise hidden
values the viewer may not see are ``None``:

* people's values: the owner sees their own during setup (or always, when
  :meth:`ViewRules.owner_always_sees_values`); everybody sees the values of saved
  people once the game is over ("flip over all of the Explorer tokens you have
  managed to get to safe isles");
* tile backs: public once revealed or played; a hand tile's back only to its holder;
* standing orders: only to their player.

Everything else (boards, hands' handles, the turn) is public.  The board
picture, summary and move template are drawn from a view, never from a state.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Any, Mapping, Sequence

from pbem.base.canonical import canonical
from pbem.core.picture import places_of
from pbem.core.sharedview import read_back
from pbem.game import ActionPlaces, BoardPicture, BoardPlaces, HexCell, OrderField, OrderForm, Piece, default_places
from pbem.rules.survive.base import StateT
from pbem.rules.survive.flow import TurnFlow
from pbem.rules.survive.reactions import ORDERS
from pbem.rules.survive.state import (
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
    Tile,
    Turn,
    at,
    sort_handles,
)

SETUP_PHASES = (SETUP_PLACE, SETUP_BOAT)


#: the fields of the pieces a view shows, but the hidden ones (each piece's handle first)
_EXPLORER_FIELDS = attrgetter("handle", "colour", "where", "cell", "boat")
_TILE_FIELDS = attrgetter("handle", "cell", "terrain", "where", "holder", "obtained")
_BOAT_FIELDS = attrgetter("handle", "where", "cell", "owner")
_CREATURE_FIELDS = attrgetter("handle", "kind", "where", "cell")


def _items(mapping: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...] | None:
    return None if mapping is None else tuple(mapping.items())


class ViewRules(TurnFlow[StateT]):
    #: the ``format:`` of this game's positions
    position_format: str = "atlantis/1"

    def owner_always_sees_values(self, state: StateT) -> bool:
        """May owners see their people's values after set-up?  Default: no ("Once the game has
        begun, you can no longer look at or reveal the value of your Explorer tokens")."""
        return False

    def cell_colours(self) -> dict[str, str]:
        """Board picture fill per cell kind (SVG colours): sea, the three terrains, the exits."""
        return {"sea": "#4a90d9", "beach": "#f1e2a0", "forest": "#5b9a47", "mountain": "#8d7d72", "isle": "#e9c46a"}

    def picture_legend(self, view: Mapping[str, Any]) -> dict[str, str]:
        """What the board picture's marks mean, from a view."""
        return {}

    # --- who sees what ------------------------------------------------------------
    def sees_value(self, state: StateT, viewer: str | None, e: Explorer) -> bool:
        if e.owner != viewer:
            return state.phase == OVER and e.where == ISLE
        if state.phase == OVER and e.where == ISLE:
            return True
        # "Once the game has begun, you can no longer look at or reveal the value of your Explorer tokens"
        return self.owner_always_sees_values(state) or state.phase in SETUP_PHASES

    def sees_back(self, state: StateT, viewer: str | None, t: Tile) -> bool:
        return t.where == USED or (t.where == HAND and viewer is not None and t.holder == viewer)

    def standing_view(self, state: StateT, player: str, viewer: str | None, omniscient: bool) -> dict[str, str] | None:
        orders = state.standing.get(player)
        if orders is None or not (omniscient or viewer == player):
            return None
        return dict(sorted(orders.items()))

    def make_view(self, state: StateT, viewer: str | None, omniscient: bool = False) -> dict[str, Any]:
        # Piece dicts are kept in handle order (setup and read_position build them so).
        lab = self.board.labels
        sees_value, sees_back = self.sees_value, self.sees_back
        explorers = {}
        for h, e in state.explorers.items():
            where, cell, value = e.where, e.cell, e.value
            if value is not None and not omniscient and not sees_value(state, viewer, e):
                value = None
            explorers[h] = {"colour": e.colour, "where": where,
                            "at": e.boat if where == BOAT else (None if cell is None else lab[cell]), "value": value}
        tiles = {}
        for h, t in state.tiles.items():
            back = t.back
            if back is not None and not omniscient and not sees_back(state, viewer, t):
                back = None
            tiles[h] = {"at": lab[t.cell], "terrain": t.terrain, "where": t.where, "holder": t.holder,
                        "obtained": t.obtained, "back": back}
        turn = state.turn
        return {
            "format": self.position_format,
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

    def view_key(self, state: StateT, viewer: str | None) -> tuple[Any, ...]:
        """:meth:`make_view` (not omniscient) as tuples, field for field: equal for two states
        exactly when their views are (:meth:`pbem.game.Game.view_key`), and several times quicker
        to make than the view and its JSON.  A space is its cell number, as the view's label (a
        person's ``at`` is their cell and their ship: one of them is None, as ``where`` says); the
        values and backs the viewer sees come apart from the rest; a layer's
        :meth:`extra_view` is taken as its canonical JSON.  (Kept in step with :meth:`make_view`
        by tests/golden/test_choice_graphs.py.)"""
        sees_value, sees_back = self.sees_value, self.sees_back
        turn, explorers, tiles = state.turn, state.explorers.values(), state.tiles.values()
        extra = self.extra_view(state)
        return (
            self.position_format,
            tuple(sorted(state.options.items())),
            tuple((p, tuple(state.colours[p]), _items(self.standing_view(state, p, viewer, False)))
                  for p in state.players),
            state.phase,
            (turn.number, turn.player, turn.step, turn.moves, tuple(sort_handles(turn.swum)), turn.tile_played,
             turn.die),
            None if state.boarding is None else (state.boarding.tile, state.boarding.boat, state.boarding.cell),
            None if state.reaction is None else (state.reaction.kind, state.reaction.creature, state.reaction.cell,
                                                 tuple(state.reaction.queue)),
            tuple(map(_EXPLORER_FIELDS, explorers)),
            tuple((e.handle, e.value) for e in explorers if e.value is not None and sees_value(state, viewer, e)),
            tuple(map(_TILE_FIELDS, tiles)),
            tuple((t.handle, t.back) for t in tiles if t.back is not None and sees_back(state, viewer, t)),
            tuple(map(_BOAT_FIELDS, state.boats.values())),
            tuple(map(_CREATURE_FIELDS, state.creatures.values())),
            tuple(sorted(state.history.items())),
            canonical(extra) if extra else b"",
        )

    def extra_view(self, state: StateT) -> dict[str, Any]:
        """Public keys a layer adds to positions and views (a layer merges ``super()``'s).

        Only keys in use are written, so base-game positions keep their shape."""
        return {}

    def read_extra(self, state: StateT, pos: Mapping[str, Any]) -> None:
        """Read back into ``state`` what :meth:`extra_view` wrote (before the indexes are rebuilt)."""

    # --- reading a position back ------------------------------------------------------
    def read_position(self, pos: Mapping[str, Any]) -> StateT:
        try:
            return self._read_position(pos)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise ValueError(f"not a valid {self.position_format.split('/')[0]} position: {type(exc).__name__} {exc}") from None

    def read_view(self, view: Mapping[str, Any]) -> StateT:
        """:meth:`read_position` of a view, read once per shared view (:mod:`pbem.core.sharedview`: the
        summary, template, picture and turn model of one reader's digest share it): never changed."""
        return read_back(view, "state", self.read_position)

    def _space(self, label: Any) -> int:
        return self.board.index[label]

    def _read_position(self, pos: Mapping[str, Any]) -> StateT:
        if pos.get("format", self.position_format) != self.position_format:
            raise ValueError(f"format {pos.get('format')!r}, expected {self.position_format}")
        index = self.board.index       # a space's label -> its cell (a missing label: KeyError, as _space's)
        players = [p["name"] for p in pos["players"]]
        colours = {p["name"]: list(p["colours"]) for p in pos["players"]}
        owner_of = {c: p for p, cs in colours.items() for c in cs}
        explorers = {}
        given = pos["explorers"]
        for h in sort_handles(given):
            d = given[h]
            where, colour = d["where"], d["colour"]
            owner, value, label = owner_of[colour], d.get("value"), d.get("at")
            aboard = where == BOAT
            explorers[h] = Explorer(h, colour, owner, value, where,
                                    None if aboard or label is None else index[label], label if aboard else None)
        tiles = {}
        given = pos["tiles"]
        for h in sort_handles(given):
            d = given[h]
            tiles[h] = Tile(h, index[d["at"]], d["terrain"], d.get("back"), d["where"], d.get("holder"),
                            d.get("obtained"))
        boats = {}
        given = pos["boats"]
        for h in sort_handles(given):
            d = given[h]
            where, label = d["where"], d.get("at")
            boats[h] = Boat(h, where, None if label is None else index[label], d.get("owner"))
        creatures = {}
        given = pos["creatures"]
        for h in sort_handles(given):
            d = given[h]
            kind, where, label = d["kind"], d["where"], d.get("at")
            creatures[h] = Creature(h, kind, where, None if label is None else index[label])
        t = pos["turn"]
        turn = Turn(number=int(t["number"]), player=t["player"], step=t["step"], moves=int(t.get("moves", 0)),
                    swum=sort_handles(t.get("swum") or []), tile_played=bool(t.get("tile_played", False)),
                    die=t.get("die"))
        b, r = pos.get("boarding"), pos.get("reaction")
        state = self.state_class(
            players=players, colours=colours, options=dict(pos["options"]),
            standing={p["name"]: (dict(p["standing"]) if p.get("standing") is not None else None)
                      for p in pos["players"]},
            phase=pos["phase"], turn=turn, explorers=explorers, tiles=tiles, boats=boats, creatures=creatures,
            boarding=None if b is None else Boarding(b["tile"], b["boat"], self._space(b["at"])),
            reaction=None if r is None else Reaction(r["kind"], r["creature"], self._space(r["at"]), list(r["queue"])),
            history=dict(pos.get("history") or {}))
        self.read_extra(state, pos)
        state.rebuild_indexes()
        return state

    # --- the board picture ------------------------------------------------------------
    def picture(self, view: Mapping[str, Any]) -> BoardPicture:
        state = self.read_view(view)
        lab = self.board.labels
        marks: dict[int, list[str]] = {}
        for h in sort_handles(state.creatures):
            c = state.creatures[h]
            if c.where == SEA:
                marks.setdefault(at(c.cell), []).append(h)
        for h in sort_handles(state.boats):
            b = state.boats[h]
            if b.where == SEA:
                crew = sort_handles(b.passengers)
                marks.setdefault(at(b.cell), []).append(h + (":" + ",".join(crew) if crew else ""))
        for h in sort_handles(state.explorers):
            e = state.explorers[h]
            if e.where in (LAND, SEA, ISLE):
                marks.setdefault(at(e.cell), []).append(h)
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
        return BoardPicture(cells=cells, legend=self.picture_legend(view), colours=self.cell_colours())

    def picture_piece(self, view: Mapping[str, Any], handle: str) -> Piece | None:
        """:meth:`pbem.game.Game.board_piece`: default, found on the whole :meth:`picture`."""
        return next((p for c in self.picture(view).cells for p in c.pieces if p.handle == handle), None)

    def picture_places(self, view: Mapping[str, Any]) -> BoardPlaces:
        """:meth:`pbem.game.Game.board_places`: default, read off the whole :meth:`picture`."""
        return places_of(self.picture(view))

    # --- one line per event -----------------------------------------------------------------
    #: one line per event kind (a game overrides the words: :meth:`event_lines`)
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

    def event_lines(self) -> Mapping[str, str]:
        """Event kind -> its line, ``str.format`` fields from the event."""
        return self.EVENT_LINES

    def describe(self, ev: Mapping[str, Any]) -> str:
        lines = self.event_lines()
        kind = ev.get("event")
        if kind not in lines:
            return ", ".join(f"{k}={v}" for k, v in ev.items())
        fields = {k: (", ".join(str(x) for x in v) if isinstance(v, list) else v) for k, v in ev.items()}
        fields.setdefault("player", "")
        for key in ("cause", "reason"):               # logged in the core's words, read in the game's
            if isinstance(fields.get(key), str):
                fields[key] = self.shown(fields[key])
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
            line = lines[str(kind)].format(**fields)
        except KeyError:
            return ", ".join(f"{k}={v}" for k, v in ev.items())
        if kind == "game-over" and ev.get("tiebreak"):
            parts = "; ".join(f"{name} {numbers}" for name, numbers in ev["tiebreak"].items())
            line += f" (tie broken by: {parts})"
        return line

    # --- the click-to-move page ------------------------------------------------------------------
    def piece_spaces(self, view: Mapping[str, Any]) -> dict[str, str]:
        """Where every piece of a view is: handle -> space ("" off the board); people aboard a
        ship are where the ship is."""
        boats = {h: b["at"] or "" for h, b in view["boats"].items()}
        where = dict(boats)
        for h, e in view["explorers"].items():
            where[h] = boats.get(e["at"], "") if e["where"] == BOAT else (e["at"] or "")
        where.update({h: c["at"] or "" for h, c in view["creatures"].items()})
        return where

    def state_piece_spaces(self, state: StateT) -> dict[str, str]:
        """:meth:`piece_spaces` of the view of ``state`` (anybody's: where pieces are is public),
        read off the state."""
        lab = self.board.labels
        boats = {h: "" if b.cell is None else lab[b.cell] for h, b in state.boats.items()}
        where = dict(boats)
        for h, e in state.explorers.items():
            where[h] = boats.get(e.boat or "", "") if e.where == BOAT else ("" if e.cell is None else lab[e.cell])
        where.update({h: "" if c.cell is None else lab[c.cell] for h, c in state.creatures.items()})
        return where

    def state_action_places(self, state: StateT, player: str,
                            actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        """:meth:`action_places` of the player's view of ``state``, without making the view
        (:meth:`pbem.game.Game.state_action_places`)."""
        where = self.state_piece_spaces(state)
        return [default_places(a, self.board.index, where) for a in actions]

    def action_places(self, view: Mapping[str, Any], player: str,
                      actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
        """The piece an action moves (its handle: a person, a ship, a creature, also when a hand
        tile moves it), where it goes (``to``/``at``/``on``, the end of a ``path``), or the space
        whose tile it removes; read from the view, as :func:`pbem.game.default_places` does."""
        where = self.piece_spaces(view)
        return [default_places(a, self.board.index, where) for a in actions]

    STANDING_WORDS = {"auto": "auto: play it when it can", "never": "never", "ask": "ask me"}

    def order_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        """The player's standing orders (one per defence tile back) as a form, and whatever a
        layer lets them write ahead (:meth:`ahead_forms`)."""
        return self.standing_forms(view, player) + self.ahead_forms(view, player)

    def standing_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        """The forms of :meth:`order_forms` the player may send at any time (``when`` "first": the
        standing orders), without working out the orders written ahead (the turn model's data
        carries these only)."""
        mine = next((p for p in view["players"] if p["name"] == player), None)
        forms: list[OrderForm] = []
        if mine is not None and mine.get("standing") is not None and self.standing_keys():
            fields = tuple(OrderField(k, k.replace("_", " "), ORDERS, tuple(self.STANDING_WORDS[o] for o in ORDERS),
                                      str(mine["standing"].get(k, self.standing_default(view["options"]))))
                           for k in self.standing_keys())
            forms.append(OrderForm("standing", "Standing orders: your defence tiles in other players' turns",
                                   fields, "first", self.standing_form_note()))
        return forms

    def standing_form_note(self) -> str:
        """A line under the standing orders' form on the click-to-move page."""
        key = self.standing_keys()[0]
        return ("Written in your move file, these orders are readable in the log and hint at the tiles you hold; "
                f"to keep them secret, leave them as they are here and seal them: pbem seal GAME "
                f"'{{standing: {{{key}: ask}}}}' prints the line to add to the move file.")

    def ahead_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        """Orders ``player`` may write ahead, at this point of their move, for the step after the
        next roll or hidden tile (``OrderForm.when == "ahead"``).  Default: none."""
        return []

    # --- texts ---------------------------------------------------------------------------------
    def variants_line(self, state: StateT) -> str:
        """Which options differ from the plain game (the digests say what is in play)."""
        changed = [f"{spec.name}={state.options.get(spec.name, spec.default)}"
                   for spec in self.option_specs
                   if str(state.options.get(spec.name, spec.default)) != spec.default]
        players = f"{len(state.players)} players"
        return f"In play: {players}, " + (", ".join(changed) if changed else "the standard rules") + "."
