"""Queens, Spawns and Warriors: the core's serpent, shark and whale, with what Space Attack adds.

* **Attacking** "means that the Creature enters the space or appears there and can remove your
  Drifter or controlled ship": every creature that ends a move in a space, or appears there
  (placed by a Spawn or Warrior tile, or evolved there), attacks it, and a defence tile of its
  kind may answer.  The Queen attacks too (the core's serpent opens no window): drifters and
  occupied ships.
* A Queen moved more than one space (an extra space, a Queen defence) stops on entering a
  space she would attack, as the Spawn and Warrior do.
* **Defence** ("you may play one of these tiles, stopping any tokens in the space from being
  removed. You then move the Creature up to the number of spaces shown on the tile, using the
  normal rules. It affects tokens in the space it ends."): the reaction effect ``defend``
  moves the creature 1 to N spaces (it must leave the space) and it arrives where it ends: a
  new attack, which may open a new window.
* **Evolution** (the blue evolve tiles) swaps a creature for a token of another kind: "If there
  is an unused token, use that. If there are none, then use a token of your choice from the
  board. If neither of these is possible, then you cannot play the tile."
"""
from __future__ import annotations

from typing import Any

from pbem.game import IllegalAction
from pbem.rules.spaceattack.craft import Craft
from pbem.rules.spaceattack.state import SpaceAttackState
from pbem.rules.survive.base import CreatureRule, Events, event
from pbem.rules.survive.reactions import ReactionEffect
from pbem.rules.survive.state import SEA, SUPPLY, Creature, at, sort_handles

#: what an evolved creature does in its space (option ``evolve_attack``)
APPEAR, FIGHTERS_ONLY = "appear", "fighters-only"


class Creatures(Craft):
    # --- the behaviours -----------------------------------------------------------------------
    def creature_behaviours(self) -> dict[str, CreatureRule[SpaceAttackState]]:
        """The serpent behaviour (the Queen) attacks through a reaction window, like the others."""
        return {**super().creature_behaviours(),
                "serpent": CreatureRule(self.stops_queen, self.arrive_queen, self.attack_queen,
                                        stop_cells=self.queen_stop_cells)}

    #: step 4 in the turn model: ``serpent_stops: attack`` (the Queen stops where she attacks, and
    #: attacks as a serpent), the view's ``extra`` spaces
    #: who an attack threatens is the turn model's ``threat: hit``; ``cause_name`` words events only
    turn_model_covers = frozenset({"creature_steps", "creature_behaviours", "threatened_pieces",
                                   "threatened_players", "cause_name", "evolve_tokens", "on_board_of"})

    def turn_model_params(self, state: SpaceAttackState) -> dict[str, Any]:
        return {**super().turn_model_params(state), "serpent_stops": "attack", "threat": "hit"}

    def stops_queen(self, state: SpaceAttackState, cell: int) -> bool:
        """She stops on entering a space she would attack: an occupied ship, or drifters."""
        return self.stops_whale(state, cell) or bool(state.swimmers(cell))

    def queen_stop_cells(self, state: SpaceAttackState) -> set[int]:
        """:meth:`stops_queen` for every space at once: the occupied ships' spaces and the drifters'
        (from the indexes, which hold only the spaces with something there)."""
        return self.whale_stop_cells(state) | state.sea_at.keys()

    def arrive_queen(self, state: SpaceAttackState, c: Creature, cell: int, events: Events) -> None:
        if self.stops_queen(state, cell):
            self.threaten_from(state, c, cell, events)

    def attack_queen(self, state: SpaceAttackState, c: Creature, cell: int, events: Events) -> None:
        """"remove that Ship and any passengers from the game. Also remove any Drifters"."""
        self.arrive_serpent(state, c, cell, events)

    def cause_name(self, kind: str) -> str:
        return kind.capitalize()

    # --- who is attacked ----------------------------------------------------------------------------
    def rule_of(self, kind: str) -> str:
        return str(self.comp["creatures"][kind]["rule"])

    def hit_by(self, state: SpaceAttackState, kind: str, cell: int) -> tuple[list[str], str | None]:
        """What a ``kind`` creature arriving at ``cell`` would remove or throw into space: the
        drifters there (Queen, Spawn) and the ship whose crew it hits (Queen, Warrior)."""
        rule = self.rule_of(kind)
        drifters = list(state.swimmers(cell)) if rule in ("serpent", "shark") else []
        boat = state.boat_at.get(cell)
        ship = boat if boat is not None and state.boats[boat].passengers and rule in ("serpent", "whale") else None
        return drifters, ship

    def attacked_crew(self, state: SpaceAttackState, kind: str, cell: int) -> list[str]:
        drifters, ship = self.hit_by(state, kind, cell)
        return drifters + (list(state.boats[ship].passengers) if ship else [])

    def threatened_pieces(self, state: SpaceAttackState, kind: str, cell: int) -> list[str]:
        return self.attacked_crew(state, str(self.tile_backs[kind]["answers"]), cell)

    def threatened_players(self, state: SpaceAttackState, kind: str, cell: int) -> list[str]:
        """"If a Creature is attacking a Drifter or Ship you control": the owners of the drifters,
        the controllers of the ship (a minority aboard cannot defend it), in seat order after the
        active player, who is never asked."""
        drifters, ship = self.hit_by(state, str(self.tile_backs[kind]["answers"]), cell)
        owners = {state.explorers[h].owner for h in drifters}
        if ship is not None:
            owners.update(self.controllers(state, ship))
        return [p for p in state.players_from(state.turn.player) if p in owners]

    # --- defence: the creature is redirected ------------------------------------------------------------
    def redirect_spaces(self, state: SpaceAttackState, tile_back: str) -> int:
        return int(self.tile_backs[tile_back]["spaces"])

    def redirect_reach(self, state: SpaceAttackState, creature: Creature, tile_back: str) -> dict[int, list[int]]:
        """Where a defence tile may send the attacker: 1 to N spaces by its normal rules, not back
        to the space it attacks."""
        paths = self.creature_reach(state, creature, self.redirect_spaces(state, tile_back))
        paths.pop(at(creature.cell), None)
        return paths

    def defense_tiles(self, state: SpaceAttackState, player: str, kind: str) -> list[str]:
        """A defence tile answers only if the attacker can be sent somewhere."""
        tiles = super().defense_tiles(state, player, kind)
        if tiles and state.reaction is not None:
            c = state.creatures[state.reaction.creature]
            if not self.redirect_reach(state, c, kind):
                return []
        return tiles

    def auto_redirect(self, state: SpaceAttackState, player: str, creature: Creature, tile_back: str) -> list[int]:
        """A standing order ``auto`` aims the creature by a fixed rule: where the fewest of the
        defender's crew would be removed or thrown into space, then the fewest crew of anybody,
        then the first space in board order."""
        paths = self.redirect_reach(state, creature, tile_back)

        def cost(cell: int) -> tuple[int, int, int]:
            hit = self.attacked_crew(state, creature.kind, cell)
            return (sum(1 for h in hit if state.explorers[h].owner == player), len(hit), cell)
        return paths[min(paths, key=cost)]

    def defend_by_order(self, state: SpaceAttackState, player: str, tile: str, events: Events, auto: str) -> None:
        """The reaction effect ``defend`` played by a standing order: aimed by :meth:`auto_redirect`."""
        c = state.creatures[state.open_reaction().creature]
        path = self.auto_redirect(state, player, c, self.known_back(state, tile))
        self.redirect(state, player, tile, path, events, auto)

    def redirect(self, state: SpaceAttackState, player: str, tile: str, path: list[int], events: Events,
                 auto: str = "") -> None:
        """"stopping any tokens in the space from being removed. You then move the Creature ... It
        affects tokens in the space it ends."  The tile leaves the game."""
        r = state.open_reaction()
        t = state.tiles[tile]
        state.use_tile(tile)
        state.reaction = None
        c = state.creatures[r.creature]
        dest = path[-1]
        state.put_creature(c.handle, SEA, dest)
        events.append(event({"event": "defend", "player": player, "tile": tile, "back": t.back,
                             "creature": c.handle, "at": self.label(r.cell), "to": self.label(dest),
                             "path": [self.label(x) for x in path]}, chance=True, auto=auto))
        self.creature_rule(c.kind).arrive(state, c, dest, events)

    def reaction_effect_table(self) -> dict[str, ReactionEffect[SpaceAttackState]]:
        return {**super().reaction_effect_table(), "defend": self.defend_by_order}

    # --- how far the rolled creature moves ----------------------------------------------------------
    def creature_steps(self, state: SpaceAttackState, kind: str) -> int:
        """The die's move plus this turn's extra spaces ("Move the creature you rolled one extra space")."""
        return self.die_moves(kind) + state.extra

    # --- a creature appears: placed by a tile, or evolved --------------------------------------------
    def appear(self, state: SpaceAttackState, handle: str, cell: int, events: Events) -> None:
        """A creature comes into ``cell`` and attacks it ("appears there")."""
        c = state.creatures[handle]
        state.put_creature(handle, SEA, cell)
        events.append(event({"event": "appear", "piece": handle, "at": self.label(cell)}))
        self.creature_rule(c.kind).arrive(state, c, cell, events)

    # --- evolution ------------------------------------------------------------------------------
    def on_board_of(self, state: SpaceAttackState, kind: str) -> list[str]:
        return sort_handles(c.handle for c in state.creatures.values() if c.kind == kind and c.where == SEA)

    def evolve_tokens(self, state: SpaceAttackState, into: str) -> list[str] | None:
        """The tokens an evolution into ``into`` may use: None when an unused one is there (it is
        used), else the ones on the board (the player chooses)."""
        return None if self.supply(state, into) else self.on_board_of(state, into)

    def evolve(self, state: SpaceAttackState, player: str, handle: str, into: str, token: str | None,
               events: Events) -> None:
        """Swap ``handle`` for a token of kind ``into`` (checked by the caller); the old token is
        unused again.  The new one attacks its space as the option ``evolve_attack`` says."""
        old = state.creatures[handle]
        cell = at(old.cell)
        new = token if token is not None else self.supply(state, into)[0]
        state.put_creature(handle, SUPPLY)
        moved_from = state.creatures[new].cell
        state.put_creature(new, SEA, cell)
        record: dict[str, Any] = {"event": "evolve", "player": player, "creature": handle, "kind": old.kind,
                                  "into": new, "new_kind": into, "at": self.label(cell)}
        if moved_from is not None:
            record["from"] = self.label(moved_from)
        events.append(event(record))
        c = state.creatures[new]
        if self.option(state, "evolve_attack") == APPEAR:
            self.creature_rule(into).arrive(state, c, cell, events)
            return
        # fighters-only: "Creatures that evolve into a Queen or Warrior while in the same space as a
        # Fighter will destroy the Fighter" (an occupied one; nothing else happens)
        boat = state.boat_at.get(cell)
        if boat is None or not self.is_fighter(boat) or not state.boats[boat].passengers:
            return
        rule = self.rule_of(into)
        if rule == "serpent":
            self.lose_ship_and_crew(state, boat, events, cause=f"{self.cause_name(into)} {new}")
        elif rule == "whale":
            self.capsize(state, boat, events, cause=f"{self.cause_name(into)} {new}")

    def check_evolution(self, state: SpaceAttackState, handle: str, into: str, token: str | None,
                        changes: dict[str, list[str]]) -> None:
        c = state.creatures.get(handle)
        if c is None or c.where != SEA or c.kind not in changes:
            kinds = " or ".join(changes)
            raise IllegalAction(f"this tile evolves a {kinds} on the board; {handle} is not one")
        if into not in changes[c.kind]:
            raise IllegalAction(f"this tile evolves a {c.kind} into {' or '.join(changes[c.kind])}, not {into!r}")
        tokens = self.evolve_tokens(state, into)
        if tokens is None:
            if token is not None:
                raise IllegalAction(f"an unused {into} token is there, so it is used: drop 'token'")
        elif not tokens:
            raise IllegalAction(f"no {into} token is unused or on the board: this tile cannot be played")
        elif token is None:
            raise IllegalAction(f"no {into} token is unused: name the one to take from the board, "
                                f"token: {tokens[0]} (one of {', '.join(tokens)})")
        elif token not in tokens:
            raise IllegalAction(f"{token} is not a {into} on the board ({', '.join(tokens)})")
