"""Reaction windows: tiles played in another player's turn, by standing order or when asked.

"These tiles can only be played during another player's turn ... in reaction to a
creature's movement made by an opponent."  A creature behaviour that attacks (its
:class:`~pbem.rules.survive.base.CreatureRule` has an ``attack``) opens a window at its
space; every *other* player with pieces threatened there is considered in seat order
after the mover.  A player holding a tile that answers the attacker (the tile back's
``answers:`` in the tiles data) answers by standing order:

* ``auto``  - play it;
* ``never`` - do not (noted in that player's private events only);
* ``ask``   - open a ``defense`` decision: ``{defend: TILE}`` or ``{defend: none}``.

Standing orders are private (and may be sealed, see :mod:`pbem.core.sealed`).  What a played
tile does is its rule's entry in :meth:`ReactionRules.reaction_effect_table`; the core's
``remove-attacker`` removes the creature and closes the window.  When nobody answers,
the creature's ``attack`` happens.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from pbem.game import Event, IllegalAction, NeedsSecret, Rng
from pbem.rules.survive.actions import handle_arg, is_none
from pbem.rules.survive.base import ActionHandler, Decider, Events, StateT, event
from pbem.rules.survive.movement import MovementRules
from pbem.rules.survive.state import STEP_CREATURE, STEP_DEFENSE, Creature, Reaction

ORDERS = ("auto", "never", "ask")

#: a played reaction tile: (state, player, tile, events, auto reason)
ReactionEffect = Callable[[StateT, str, str, Events, str], None]


class ReactionRules(MovementRules[StateT]):
    def reaction_effect_table(self) -> dict[str, ReactionEffect[StateT]]:
        """Reaction tile rule -> what playing it does."""
        return {"remove-attacker": self.remove_attacker}

    def answering_back(self, creature_kind: str) -> str | None:
        """The reaction tile back that answers an attack by ``creature_kind`` (data ``answers:``)."""
        for back, spec in self.tile_backs.items():
            if self.back_kind[back] == "defense" and spec.get("answers") == creature_kind:
                return back
        return None

    def threatened_pieces(self, state: StateT, kind: str, cell: int) -> list[str]:
        """The people a reaction tile ``kind`` protects at ``cell`` (data ``protects:``):
        the swimmers there, or those aboard the ship there."""
        if self.tile_backs[kind].get("protects") == "swimmers":
            return self.unprotected(state, state.swimmers(cell))
        boat = state.boat_at.get(cell)
        return list(state.boats[boat].passengers) if boat else []

    def threatened_players(self, state: StateT, kind: str, cell: int) -> list[str]:
        """Other players with threatened pieces at ``cell``, in seat order after the mover."""
        owners = {state.explorers[h].owner for h in self.threatened_pieces(state, kind, cell)}
        return [p for p in state.players_from(state.turn.player) if p in owners]

    def check_defense_knowledge(self, state: StateT, creature_kind: str, cell: int) -> None:
        """Raise NeedsSecret (before anything changes) when a defense decision at ``cell``
        would depend on hand tiles or standing orders this state does not know."""
        kind = self.answering_back(creature_kind)
        if kind is None or not self.creature_rule(creature_kind).stops(state, cell):
            return
        self.require_knowledge(state, self.threatened_players(state, kind, cell))

    def require_knowledge(self, state: StateT, players: list[str]) -> None:
        for p in players:
            hand = self.hand(state, p)
            if hand and (state.standing.get(p) is None or any(state.tiles[h].back is None for h in hand)):
                raise NeedsSecret(f"whether {p} defends depends on their hidden tiles")

    def defense_tiles(self, state: StateT, player: str, kind: str) -> list[str]:
        """``player``'s hand tiles that answer ``kind`` (NeedsSecret when their backs are hidden)."""
        return [h for h in self.hand(state, player) if self.known_back(state, h) == kind]

    def standing_order(self, state: StateT, player: str, kind: str) -> str:
        orders = state.standing.get(player)
        if orders is None:
            raise NeedsSecret(f"{player}'s standing orders are private")
        return orders.get(kind, self.standing_default(state.options))

    def threaten(self, state: StateT, kind: str, creature: Creature, cell: int, events: Events) -> None:
        """A creature is about to attack at ``cell``: open the window, then attack unless defended."""
        threatened = self.threatened_players(state, kind, cell)
        state.reaction = Reaction(kind, creature.handle, cell, threatened)
        note = None
        if threatened:
            note = event({"event": "attack", "creature": creature.handle, "at": self.label(cell),
                          "threatened": list(threatened)})
            events.append(note)
        self.run_defense(state, events, note)

    def run_defense(self, state: StateT, events: Events, note: Event | None = None) -> None:
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
        attack = self.creature_rule(c.kind).attack
        if attack is not None:
            attack(state, c, r.cell, events)

    def play_defense(self, state: StateT, player: str, tile: str, events: Events, auto: str = "") -> None:
        """Play reaction tile ``tile``: its rule decides what happens."""
        effect = self.reaction_effect_table()[self.back_rule(self.known_back(state, tile))]
        effect(state, player, tile, events, auto)

    def remove_attacker(self, state: StateT, player: str, tile: str, events: Events, auto: str) -> None:
        """"play this Terrain tile to remove the Shark [Whale] from the game"; the tile leaves the game."""
        r = state.open_reaction()
        t = state.tiles[tile]
        state.use_tile(tile)
        self.remove_creature(state, r.creature)
        state.reaction = None
        events.append(event({"event": "defend", "player": player, "tile": tile, "back": t.back,
                             "creature": r.creature, "at": self.label(r.cell)}, chance=True, auto=auto))

    def remove_creature(self, state: StateT, handle: str) -> None:
        state.put_creature(handle, "lost")

    def legal_defend(self, state: StateT, player: str) -> list[dict[str, Any]]:
        kind = state.open_reaction().kind
        return [{"defend": h} for h in self.defense_tiles(state, player, kind)] + [{"defend": "none"}]

    def do_defend(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_DEFENSE)
        r = state.open_reaction()
        events: Events = []
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
    def do_standing(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        if player not in state.players:
            raise IllegalAction(f"{player!r} is not playing in this game")
        keys = self.standing_keys()
        orders = action["standing"]
        if not isinstance(orders, Mapping) or not orders:
            raise IllegalAction("standing orders look like {standing: {shark_defense: ask, whale_defense: auto}}")
        for key, value in orders.items():
            if key not in keys:
                raise IllegalAction(f"unknown standing order {key!r}; known: {', '.join(keys)}")
            if value not in ORDERS:
                raise IllegalAction(f"standing order {key} must be one of {', '.join(ORDERS)}")
        current = state.standing.get(player)
        if current is None:
            current = {k: self.standing_default(state.options) for k in keys}
        current.update({str(k): str(v) for k, v in orders.items()})
        state.standing[player] = current
        private = {"event": "standing", "player": player, "orders": dict(sorted(current.items()))}
        return [event({"event": "standing", "player": player}, private={player: private})]

    # --- the tables ---------------------------------------------------------------------
    def action_table(self) -> dict[str, ActionHandler[StateT]]:
        table = super().action_table()
        if self.standing_keys():
            table.update({"defend": self.do_defend, "standing": self.do_standing})
        return table

    def decider_table(self) -> dict[str, Decider[StateT]]:
        table = super().decider_table()
        if self.standing_keys():
            table[STEP_DEFENSE] = self.legal_defend
        return table
