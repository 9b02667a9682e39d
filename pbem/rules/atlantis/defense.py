"""Defense tiles, standing orders and reaction windows.

"These tiles can only be played during another player's turn ... in reaction to
a creature's movement made by an opponent."  When a shark ends its die move on
swimmers, or a whale on an occupied ship, every *other* player with pieces
there is considered in seat order after the mover.  A player who holds a
matching tile answers by standing order:

* ``auto``  - play it (it always saves the threatened pieces);
* ``never`` - do not (noted in that player's private events only);
* ``ask``   - open a ``defense`` decision: ``{defend: T7}`` or ``{defend: none}``.

The first tile played removes the creature and ends the window.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.game import IllegalAction, NeedsSecret, Rng
from pbem.rules.atlantis.actions import handle_arg, is_none
from pbem.rules.atlantis.base import RulesBase, event
from pbem.rules.atlantis.setup import STANDING_KEYS
from pbem.rules.atlantis.state import (
    STEP_CREATURE,
    STEP_DEFENSE,
    USED,
    Creature,
    Reaction,
    State,
)

ORDERS = ("auto", "never", "ask")
ANSWERS = {"shark": "shark_defense", "whale": "whale_defense"}


class DefenseRules(RulesBase):
    def threatened_players(self, state: State, kind: str, cell: int) -> list[str]:
        """Other players with swimmers (shark) or explorers aboard the ship (whale) at ``cell``."""
        if kind == "shark_defense":
            pieces = self.unprotected(state, state.swimmers(cell))
        else:
            boat = state.boat_at.get(cell)
            pieces = list(state.boats[boat].passengers) if boat else []
        owners = {state.explorers[h].owner for h in pieces}
        return [p for p in state.players_from(state.turn.player) if p in owners]

    def check_defense_knowledge(self, state: State, creature_kind: str, cell: int) -> None:
        """Raise NeedsSecret (before anything changes) when a defense decision at ``cell``
        would depend on hand tiles or standing orders this state does not know."""
        kind = ANSWERS.get(creature_kind)
        if kind is None or not getattr(self, "stops_" + creature_kind)(state, cell):
            return
        self.require_knowledge(state, self.threatened_players(state, kind, cell))

    def require_knowledge(self, state: State, players: list[str]) -> None:
        for p in players:
            hand = self.hand(state, p)
            if hand and (state.standing.get(p) is None or any(state.tiles[h].back is None for h in hand)):
                raise NeedsSecret(f"whether {p} defends depends on their hidden tiles")

    def defense_tiles(self, state: State, player: str, kind: str) -> list[str]:
        """``player``'s hand tiles that answer ``kind`` (NeedsSecret when their backs are hidden)."""
        return [h for h in self.hand(state, player) if self.known_back(state, h) == kind]

    def standing_order(self, state: State, player: str, kind: str) -> str:
        orders = state.standing.get(player)
        if orders is None:
            raise NeedsSecret(f"{player}'s standing orders are private")
        return orders.get(kind, self.option(state, "defense"))

    def threaten(self, state: State, kind: str, creature: Creature, cell: int, events: list) -> None:
        """A creature is about to attack at ``cell``: open the window, then attack unless defended."""
        threatened = self.threatened_players(state, kind, cell)
        state.reaction = Reaction(kind, creature.handle, cell, threatened)
        note = None
        if threatened:
            note = event({"event": "attack", "creature": creature.handle, "at": self.label(cell),
                          "threatened": list(threatened)})
            events.append(note)
        self.run_defense(state, events, note)

    def run_defense(self, state: State, events: list, note=None) -> None:
        """Go through the waiting players; stop at an ``ask``; attack when nobody defended.

        A ``never`` order is noted only in that player's private part of ``note`` (a
        public event that happens whether or not anybody holds a tile), so the public
        does not learn who holds defense tiles."""
        r = state.open_reaction()
        while r.queue:
            player = r.queue[0]
            tiles = self.defense_tiles(state, player, r.kind)
            if not tiles:
                r.queue.pop(0)
                continue
            order = self.standing_order(state, player, r.kind)
            if order == "auto":
                self.play_defense(state, player, tiles[0], events, auto=f"standing order {r.kind}: auto")
                return
            if order == "never":
                if note is not None:
                    note.private[player] = {"event": "no-defense", "player": player, "tile": tiles[0],
                                            "reason": f"standing order {r.kind}: never"}
                r.queue.pop(0)
                continue
            return  # ask: wait for {defend: ...}
        state.reaction = None
        c = state.creatures[r.creature]
        getattr(self, "attack_" + c.kind)(state, c, r.cell, events)

    def play_defense(self, state: State, player: str, tile: str, events: list, auto: str = "") -> None:
        """"play this Terrain tile to remove the Shark [Whale] from the game"; the tile leaves the game."""
        r = state.open_reaction()
        t = state.tiles[tile]
        t.where, t.holder = USED, None
        self.remove_creature(state, r.creature)
        state.reaction = None
        events.append(event({"event": "defend", "player": player, "tile": tile, "back": t.back,
                             "creature": r.creature, "at": self.label(r.cell)}, chance=True, auto=auto))

    def legal_defend(self, state: State, player: str) -> list[dict[str, Any]]:
        kind = state.open_reaction().kind
        return [{"defend": h} for h in self.defense_tiles(state, player, kind)] + [{"defend": "none"}]

    def do_defend(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        self.expect(state, player, STEP_DEFENSE)
        r = state.open_reaction()
        events: list = []
        if is_none(action["defend"]):
            self.require_knowledge(state, r.queue[1:])
            r.queue.pop(0)
            note = event({"event": "no-defense", "player": player})
            events.append(note)
            self.run_defense(state, events, note)
        else:
            tile = handle_arg(action["defend"], "defend")
            if tile not in self.hand(state, player):
                raise IllegalAction(f"{tile} is not in your hand")
            if self.known_back(state, tile) != r.kind:
                raise IllegalAction(f"{tile} cannot be played against this attack")
            self.play_defense(state, player, tile, events)
        if state.reaction is None:
            self.advance(state, rng, events, STEP_CREATURE)
        return events

    # --- standing orders (any time, any player) ----------------------------------------
    def do_standing(self, state: State, player: str, action: Mapping[str, Any], rng: Rng) -> list:
        if player not in state.players:
            raise IllegalAction(f"{player!r} is not playing in this game")
        orders = action["standing"]
        if not isinstance(orders, Mapping) or not orders:
            raise IllegalAction("standing orders look like {standing: {shark_defense: ask, whale_defense: auto}}")
        for key, value in orders.items():
            if key not in STANDING_KEYS:
                raise IllegalAction(f"unknown standing order {key!r}; known: {', '.join(STANDING_KEYS)}")
            if value not in ORDERS:
                raise IllegalAction(f"standing order {key} must be one of {', '.join(ORDERS)}")
        current = state.standing.get(player)
        if current is None:
            current = {k: self.option(state, "defense") for k in STANDING_KEYS}
        current.update({str(k): str(v) for k, v in orders.items()})
        state.standing[player] = current
        private = {"event": "standing", "player": player, "orders": dict(sorted(current.items()))}
        return [event({"event": "standing", "player": player}, private={player: private})]
