"""The turn: "During your game turn, you must perform these actions in the following order".

1. ``deploy``: "play any Creatures that you have captured in a prior turn onto Empty spaces"
   (``{deploy: Q6, to: F4}``, one at a time, then ``{deploy: none}``); skipped when you hold none.
2. ``move``: three movement points ("You can also use a movement to fire a Laser Turret"), with
   red tiles played before, between or after them (``{play: T12, ...}``), then ``{done: move}``.
3. ``remove-tile``: as in the core, with four station kinds.
4. ``blue-tile`` then ``creature``: "You must roll the Creature die. After rolling, you may play
   any Blue Station Tiles you have. Then, you may move a Creature".

Two steps open whenever the player holds any tile from an earlier turn (step 2, also when they
have no crew left) or any tile at all (the blue-tile decision), whatever its colour, so the
public cannot tell what they hold; for the same reason step 2 then stays open after the third
movement point until ``{done: move}``.

A reaction window (a defence, a steal) or the revealer's boarding choice can interrupt a step;
``state.resume`` remembers which, and the step goes on when the window closes
(:meth:`TurnRules.continue_step`).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from pbem.core.choices import Chain, Pairs

from pbem.game import Action, IllegalAction, NeedsSecret, Rng
from pbem.rules.survive.actions import handle_arg, is_none
from pbem.rules.survive.base import ActionHandler, Decider, Events, OutcomeTest, StepStarter, event
from pbem.rules.survive.movement import ON_BOARD
from pbem.rules.survive.state import LAND, PLAY, SEA, SETUP_BOAT, STEP_CREATURE, STEP_DEFENSE, STEP_MOVE, STEP_REMOVE, STEP_TILE, Tile
from pbem.rules.spaceattack.craft import STEP_STEAL
from pbem.rules.spaceattack.data import AFTER_ROLL, MOVEMENT, STEAL
from pbem.rules.spaceattack.state import SpaceAttackState
from pbem.rules.spaceattack.setup import REACTOR
from pbem.rules.spaceattack.tiles import StationTiles

STEP_DEPLOY, STEP_BLUE = "deploy", "blue-tile"
BLUE_ONE, BLUE_ANY = "one", "any"


def deployment(creature: str, space: str) -> dict[str, Any]:
    """The action placing captured ``creature`` on ``space`` (step 1: :meth:`TurnRules.deploy_choices`)."""
    return {"deploy": creature, "to": space}


class TurnRules(StationTiles):
    #: the turn model's Space Attack parameters (``turn_model_params``): drifting, fighters, turrets
    #: and their captures, the step open while an earlier tile is held, the roll at the blue-tile
    #: step; the steal decider, the deploy step and step 4 come before or after what it plays
    turn_model_covers = frozenset({"legal_move", "move_choices", "explorer_move", "boat_steps", "do_move", "advance",
                                   "turn_step_list", "decider", "start_creature_step", "legal_boat", "next_turn",
                                   "start_move_step", "start_deploy_step", "legal_deploy", "do_deploy",
                                   "start_roll_step", "legal_blue", "do_play", "more_blue", "continue_step",
                                   "wait_or_advance", "waiting_decision", "crew_in_play", "holds_earlier_tile"})

    def turn_model_params(self, state: SpaceAttackState) -> dict[str, Any]:
        return {**super().turn_model_params(state), "swim_key": "drift", "ship_place_key": "pod",
                "roll_step": STEP_BLUE, "fighters": list(self.fighter_handles), "turret_terrain": REACTOR,
                "rays": True,        # the model works out the lines from the board (survive.js: geometry)
                "hand_open": True, "hand_play_kind": MOVEMENT,
                "tile_kinds": {back: kind for back, kind in self.back_kind.items()}, "after_roll_kind": AFTER_ROLL}

    def turn_step_list(self) -> tuple[str, ...]:
        return (STEP_DEPLOY, STEP_MOVE, STEP_REMOVE, STEP_BLUE, STEP_CREATURE)

    def step_table(self) -> dict[str, StepStarter[SpaceAttackState]]:
        return {**super().step_table(), STEP_DEPLOY: self.start_deploy_step, STEP_BLUE: self.start_roll_step}

    def next_turn(self, state: SpaceAttackState, rng: Rng | None, events: Events) -> None:
        state.flown, state.blue_played, state.extra = [], 0, 0
        super().next_turn(state, rng, events)

    def advance(self, state: SpaceAttackState, rng: Rng | None, events: Events, after: str | None,
                die: str | None = None) -> None:
        state.resume = ""
        super().advance(state, rng, events, after, die)

    # --- who holds what ------------------------------------------------------------------------
    def crew_in_play(self, state: SpaceAttackState, player: str) -> bool:
        """Is :meth:`explorers_in_play` not empty (asked at every movement point: stops at the first)?"""
        for e in state.explorers_of(player):
            if e.where in ON_BOARD:
                return True
        return False

    def holds_earlier_tile(self, state: SpaceAttackState, player: str) -> bool:
        """Any tile in hand taken before this turn ("obtained during a previous round"): one pass
        over the hand (:meth:`hand` with :meth:`earlier`, asked after every movement point)."""
        number, tiles = state.turn.number, state.tiles
        for h in state.hands.get(player, ()):
            if (tiles[h].obtained or 0) < number:
                return True
        return False

    def earlier(self, state: SpaceAttackState) -> Callable[[Tile], bool]:
        number = state.turn.number
        return lambda tile: (tile.obtained or 0) < number

    # --- windows and interrupted steps ------------------------------------------------------------
    def waiting_decision(self, state: SpaceAttackState) -> str | None:
        if state.steal is not None:
            return STEP_STEAL
        return super().waiting_decision(state)

    def decider(self, state: SpaceAttackState) -> str | None:
        """The core's decider (:meth:`SurviveBase.decider`), with the steal window's player first in its queue."""
        if state.steal is not None and state.phase == PLAY and state.turn.step == STEP_STEAL:
            return state.open_steal().queue[0]
        return super().decider(state)

    def wait_or_advance(self, state: SpaceAttackState, rng: Rng | None, events: Events, after: str,
                        die: str | None = None) -> Events:
        """End an action of step ``after``: wait for the window or choice it opened (remembering
        the step), else go on with the step."""
        if state.phase != PLAY:
            return events
        waiting = self.waiting_decision(state)
        if waiting:
            state.resume = after
            state.turn.step = waiting
        else:
            self.continue_step(state, rng, events, after, die)
        return events

    def continue_step(self, state: SpaceAttackState, rng: Rng | None, events: Events, step: str,
                      die: str | None = None) -> None:
        """Go on after an action of ``step`` (or a window that interrupted it)."""
        if state.phase != PLAY:
            return
        if step == STEP_MOVE and not self.move_step_over(state):
            state.resume, state.turn.step = "", STEP_MOVE
        elif step == STEP_BLUE and self.more_blue(state):
            state.resume, state.turn.step = "", STEP_BLUE
        else:
            self.advance(state, rng, events, step, die)

    def window_closed(self, state: SpaceAttackState, rng: Rng | None, events: Events) -> Events:
        """A reaction window was answered: wait for the next one, else go on with the step it interrupted."""
        return self.wait_or_advance(state, rng, events, state.resume or STEP_CREATURE)

    # --- 1. play creatures from your "hand" --------------------------------------------------------
    def start_deploy_step(self, state: SpaceAttackState, rng: Rng | None, events: Events, die: str | None) -> bool:
        return bool(state.captured.get(state.turn.player))

    def legal_deploy(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        spaces = [self.label(c) for c in self.empty_spaces(state)]
        return [{"deploy": "none"}] + [{"deploy": h, "to": s} for h in state.captured.get(player, []) for s in spaces]

    def deploy_choices(self, state: SpaceAttackState, player: str) -> Sequence[Action]:
        """:meth:`legal_deploy` in its order, each creature to each empty space made only when read
        (:class:`~pbem.core.choices.Pairs` of :func:`deployment`: the greedy bot scores them 1
        without making them)."""
        spaces = [self.label(c) for c in self.empty_spaces(state)]
        return Chain([[{"deploy": "none"}], Pairs(list(state.captured.get(player, [])), spaces, deployment)])

    def do_deploy(self, state: SpaceAttackState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        if (is_none(action["deploy"]) and self.current_step(state) in (STEP_MOVE, STEP_REMOVE)
                and self.decider(state) == player and state.turn.moves == 0):
            return []   # harmless: there was nothing to deploy this turn
        self.expect(state, player, STEP_DEPLOY)
        events: Events = []
        if is_none(action["deploy"]):
            if set(action) - {"deploy"}:
                raise IllegalAction("{deploy: none} takes no other keys")
            events.append(event({"event": "deploy-done", "player": player}))
            self.advance(state, rng, events, STEP_DEPLOY)
            return events
        handle = handle_arg(action["deploy"], "deploy")
        mine = state.captured_by(player)
        if handle not in mine:
            raise IllegalAction(f"{handle} is not a creature you have captured ({', '.join(mine)})")
        if action.get("to") is None:
            raise IllegalAction("say where: {deploy: " + handle + ", to: SPACE}")
        cell = self.cell_arg(action["to"], "to")
        if not self.vacant(state, cell):
            raise IllegalAction(f"{self.label(cell)} is not an empty space (no station tile, crew, ship or creature)")
        mine.remove(handle)
        state.put_creature(handle, SEA, cell)
        events.append(event({"event": "deploy", "player": player, "creature": handle,
                             "kind": state.creatures[handle].kind, "to": self.label(cell)}))
        if not mine:
            self.advance(state, rng, events, STEP_DEPLOY)
        return events

    # --- 2. move, fire, play red tiles ----------------------------------------------------------------
    def start_move_step(self, state: SpaceAttackState, rng: Rng | None, events: Events, die: str | None) -> bool:
        """"It's possible that you might not have any Crew left to move ... continue playing, but
        during step #2 ... you may only play Station tiles. You may no longer move empty ships.\""""
        player = state.turn.player
        if self.crew_in_play(state, player) or self.holds_earlier_tile(state, player):
            return True
        events.append(event({"event": "skip", "player": player, "step": STEP_MOVE, "reason": "no crew left"}))
        return False

    def move_step_over(self, state: SpaceAttackState) -> bool:
        """Three points spent, and no tile from an earlier turn in hand (else {done: move} ends it)."""
        return (state.turn.moves >= self.movement_points(state)
                and not self.holds_earlier_tile(state, state.turn.player))

    def points_left(self, state: SpaceAttackState, player: str) -> None:
        points = self.movement_points(state)
        if state.turn.moves >= points:
            raise IllegalAction(f"all {points} movement points are spent: play a tile or write {{done: move}}")
        if not self.crew_in_play(state, player):
            raise IllegalAction("you have no crew left: \"you may only play Station tiles. You may no longer "
                                "move empty ships.\"")

    def explorer_move(self, handle: str, step: tuple[int, bool]) -> dict[str, Any]:
        """The core's move, with ``drift: true`` (step into the open space beside a ship) for ``swim``."""
        cell, drift = step
        if drift:
            return {"move": handle, "to": self.board.labels[cell], "drift": True}
        return {"move": handle, "to": self.board.labels[cell]}

    def boat_steps(self, state: SpaceAttackState, boat: str) -> list[int]:
        """A ship's spaces as the core's; a fighter's, where one flight may end (none once flown)."""
        if not self.is_fighter(boat):
            return super().boat_steps(state, boat)
        if boat in state.flown:
            return []
        return self.flights(state, boat)

    def boat_move_counts(self, state: SpaceAttackState, boats: list[str]) -> list[int]:
        """The core's counts for the ships, each fighter's flights counted (:meth:`flight_count`;
        none once flown)."""
        fighters = self.fighter_handles
        plain = [b for b in boats if b not in fighters]
        if len(plain) == len(boats):
            return super().boat_move_counts(state, boats)
        ships = iter(super().boat_move_counts(state, plain))
        flown, count = state.flown, self.flight_count
        return [next(ships) if b not in fighters else 0 if b in flown else count(state, b) for b in boats]

    def legal_fire(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        return [{"fire": t, "at": self.label(c)} for t in self.turrets(state) if self.mans_turret(state, player, t)
                for c in self.shots(state, t)]

    def fire_choices(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        """:meth:`legal_fire` in its order, the turrets ``player`` mans found from their crew on
        station tiles (:meth:`manned_turrets`) rather than every turret asked in turn."""
        labels = self.board.labels
        return [{"fire": t, "at": labels[c]} for t in self.manned_turrets(state, player) for c in self.shots(state, t)]

    def manned_turrets(self, state: SpaceAttackState, player: str) -> list[str]:
        """The turrets (:meth:`turrets`, in their order) with a crew token of ``player``'s on their
        tile (:meth:`mans_turret`): the Reactor tiles still on the station under their crew."""
        tile_at, tiles = state.tile_at, state.tiles
        manned = set()
        for e in state.explorers_of(player):
            if e.where == LAND:
                handle = tile_at.get(e.cell)      # type: ignore[arg-type]
                if handle is not None and tiles[handle].terrain == REACTOR:
                    manned.add(handle)
        if len(manned) < 2:
            return list(manned)
        return [t for t in tiles if t in manned]      # (the tiles' order, as :meth:`turrets` lists them)

    def mans_turret(self, state: SpaceAttackState, player: str, turret: str) -> bool:
        """"If a player has a Crew token on a Station tile with a Laser Turret"."""
        return any(state.explorers[h].owner == player for h in state.on_land(state.tiles[turret].cell))

    def legal_move(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        if state.turn.moves < self.movement_points(state) and self.crew_in_play(state, player):
            out = super().legal_move(state, player) + self.legal_fire(state, player)
        else:
            out = [{"done": "move"}]
        return out + self.hand_plays(state, player, MOVEMENT, self.earlier(state))

    def move_choices(self, state: SpaceAttackState, player: str) -> Sequence[Action]:
        """:meth:`legal_move` in its order, the pieces' moves as the core's :class:`MoveChoices`
        (made only when read; a fighter's steps are its flights), then the shots and the tiles."""
        plays = self.hand_choices(state, player, MOVEMENT, self.earlier(state))
        if state.turn.moves < self.movement_points(state) and self.crew_in_play(state, player):
            return Chain([super().move_choices(state, player), self.fire_choices(state, player), plays])
        return Chain([[{"done": "move"}], plays])

    def do_move(self, state: SpaceAttackState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_MOVE)
        handle = handle_arg(action["move"], "move")
        cell = self.cell_arg(action["to"])
        drift = action.get("drift", False)
        if not isinstance(drift, bool):
            raise IllegalAction("drift must be true or false")
        self.points_left(state, player)
        events: Events = []
        if handle in state.boats:
            if drift:
                raise IllegalAction("drift is for crew, not ships")
            if self.is_fighter(handle):
                self.move_fighter(state, player, handle, cell, events)
            else:
                self.move_boat(state, player, handle, cell, False, events)
        elif handle in state.explorers:
            self.move_explorer(state, player, handle, cell, drift, events)
        else:
            raise IllegalAction(f"{handle} is neither a crew token nor a ship")
        state.turn.moves += 1
        return self.wait_or_advance(state, rng, events, STEP_MOVE)

    def move_fighter(self, state: SpaceAttackState, player: str, fighter: str, cell: int, events: Events) -> None:
        """"A Fighter with a Crew token may only be moved by that player. An empty Fighter can be
        moved by any player. ... A player may spend at most 1 movement point on each Fighter in a turn.\""""
        if state.boats[fighter].where != SEA:
            raise IllegalAction(f"fighter {fighter} is not on the board")
        if player not in self.controllers(state, fighter):
            raise IllegalAction(f"fighter {fighter} carries another player's crew: only they fly it")
        if fighter in state.flown:
            raise IllegalAction(f"fighter {fighter} has flown this turn: at most 1 movement point per fighter")
        self.check_flight(state, fighter, cell)
        if self.flight_captures(state, fighter, cell):
            self.others_must_be_known(state)
        state.flown.append(fighter)
        self.fly(state, player, fighter, cell, events, captor=player)

    def do_fire(self, state: SpaceAttackState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_MOVE)
        turret = self.turret_arg(state, action["fire"])
        cell = self.cell_arg(action["at"], "at")
        self.points_left(state, player)
        if not self.mans_turret(state, player, turret):
            raise IllegalAction(f"to fire the turret on {turret} you need a crew token of your own on its tile "
                                f"({self.label(state.tiles[turret].cell)})")
        self.check_shot(state, turret, cell)
        self.others_must_be_known(state)
        events: Events = []
        self.fire(state, player, turret, cell, events)
        state.turn.moves += 1
        return self.wait_or_advance(state, rng, events, STEP_MOVE)

    # --- red and blue tiles ---------------------------------------------------------------------------
    def do_play(self, state: SpaceAttackState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        step = self.current_step(state)
        if is_none(action["play"]):
            if set(action) - {"play"}:
                raise IllegalAction("{play: none} takes no other keys")
            if step == STEP_MOVE and self.decider(state) == player:
                raise IllegalAction("to end your movement step write {done: move}")
            self.expect(state, player, STEP_BLUE)
            events: Events = [event({"event": "no-play", "player": player})]
            self.advance(state, rng, events, STEP_BLUE)
            return events
        self.expect(state, player, STEP_MOVE, STEP_BLUE)
        handle = handle_arg(action["play"], "play")
        if handle not in self.hand(state, player):
            raise IllegalAction(f"{handle} is not a tile in your hand")
        tile = state.tiles[handle]
        back = self.known_back(state, handle)
        kind = MOVEMENT if step == STEP_MOVE else AFTER_ROLL
        if self.back_kind[back] != kind:
            when = "during your movement step" if step == STEP_MOVE else "after your roll"
            raise IllegalAction(f"{handle} ({back}) is not played {when}")
        if kind == MOVEMENT and (tile.obtained or 0) >= state.turn.number:
            raise IllegalAction(f"{handle} was taken this turn: red tiles are played from your next turn on")
        events = []
        self.hand_tiles[back].play(state, player, back, action, events)
        # "Once a tile is played in this way, remove it from the game."
        state.use_tile(handle)
        if step == STEP_BLUE:
            state.blue_played += 1
        events.insert(0, event({"event": "play", "player": player, "tile": handle, "back": back}, chance=True))
        return self.wait_or_advance(state, rng, events, step)

    def start_roll_step(self, state: SpaceAttackState, rng: Rng | None, events: Events, die: str | None) -> bool:
        """"You must roll the Creature die. After rolling, you may play any Blue Station Tiles you have.\""""
        face = die if die is not None else self.roll_die(state, rng)
        state.turn.die = face
        state.history["rolls"] = state.history.get("rolls", 0) + 1
        events.append(event({"event": "roll", "player": state.turn.player, "face": face}, chance=True))
        return bool(self.hand(state, state.turn.player))

    def more_blue(self, state: SpaceAttackState) -> bool:
        """``blue_tiles=any``: the decision comes back while you hold tiles; ``one``: one tile."""
        return self.option(state, "blue_tiles") == BLUE_ANY and bool(self.hand(state, state.turn.player))

    def legal_blue(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        return [{"play": "none"}] + self.hand_plays(state, player, AFTER_ROLL, lambda tile: True)

    def start_creature_step(self, state: SpaceAttackState, rng: Rng | None, events: Events, die: str | None) -> bool:
        """"If the Creature rolled isn't present on the board, nothing happens.\""""
        if self.movable_creatures(state, state.turn.die or ""):
            return True
        events.append(event({"event": "no-creature", "player": state.turn.player, "kind": state.turn.die}))
        return False

    def creature_after_blue(self, state: SpaceAttackState, player: str, action: Mapping[str, Any],
                            rng: Rng) -> Events:
        """A creature order at the blue-tile decision: no (more) blue tile, then the order."""
        self.expect(state, player, STEP_BLUE)
        self.creature_order(state, action)          # its shape, before anything changes
        events: Events = [event({"event": "no-play", "player": player})]
        if not self.movable_creatures(state, state.turn.die or ""):
            self.advance(state, rng, events, STEP_BLUE)
            return events
        state.turn.step = STEP_CREATURE
        try:
            return events + self.do_creature(state, player, action, rng)
        except (IllegalAction, NeedsSecret):
            state.turn.step = STEP_BLUE
            raise

    # --- reactions: defence and steal ----------------------------------------------------------------
    def legal_defend(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        r = state.open_reaction()
        c = state.creatures[r.creature]
        out: list[dict[str, Any]] = []
        for h in self.defense_tiles(state, player, r.kind):
            out.extend({"defend": h, "to": self.label(d)} for d in sorted(self.redirect_reach(state, c, r.kind)))
        return out + [{"defend": "none"}]

    def do_defend(self, state: SpaceAttackState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_DEFENSE)
        r = state.open_reaction()
        events: Events = []
        if is_none(action["defend"]):
            if set(action) - {"defend"}:
                raise IllegalAction("{defend: none} takes no other keys")
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
            c = state.creatures[r.creature]
            spaces = self.redirect_spaces(state, r.kind)
            path = self.creature_walk(state, c, action, spaces)
            if not path or path[-1] == c.cell:
                raise IllegalAction(f"send {c.handle} away from {self.label(c.cell)}: 1 to {spaces} spaces, "
                                    "to: SPACE")
            self.check_defense_knowledge(state, c.kind, path[-1])
            self.redirect(state, player, tile, path, events)
        if state.reaction is None:
            return self.window_closed(state, rng, events)
        return events

    def legal_steal(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        return [{"steal": h} for h in self.steal_tiles(state, player)] + [{"steal": "none"}]

    def do_steal(self, state: SpaceAttackState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        self.expect(state, player, STEP_STEAL)
        s = state.open_steal()
        events: Events = []
        if is_none(action["steal"]):
            self.require_knowledge(state, s.queue[1:])
            s.queue.pop(0)
            note = event({"event": "no-steal", "player": player})
            events.append(note)
            self.run_steal(state, events, note)
        else:
            tile = handle_arg(action["steal"], "steal")
            if tile not in self.hand(state, player):
                raise IllegalAction(f"{tile} is not in your hand")
            if self.back_kind[self.known_back(state, tile)] != STEAL:
                raise IllegalAction(f"{tile} is not a steal tile")
            self.play_steal(state, player, tile, events)
        if state.steal is None:
            return self.window_closed(state, rng, events)
        return events

    # --- set-up: escape pods ---------------------------------------------------------------------------
    def do_pod(self, state: SpaceAttackState, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        """``{pod: P1, at: F2}``: the core's ship placement."""
        return self.do_boat(state, player, {"boat": action["pod"], "at": action["at"]}, rng)

    def legal_boat(self, state: SpaceAttackState, player: str) -> list[dict[str, Any]]:
        return [{"pod": a["boat"], "at": a["at"]} for a in super().legal_boat(state, player)]

    # --- the tables ----------------------------------------------------------------------------------------
    def action_table(self) -> dict[str, ActionHandler[SpaceAttackState]]:
        return {**super().action_table(), "deploy": self.do_deploy, "fire": self.do_fire, "steal": self.do_steal,
                "pod": self.do_pod, "play": self.do_play}

    def outcome_table(self) -> dict[str, OutcomeTest[SpaceAttackState]]:
        return {**super().outcome_table(), "pod": self.ship_placement_outcome}

    def decider_table(self) -> dict[str, Decider[SpaceAttackState]]:
        # the movement step and the escape pods' placement are Space Attack's own listings
        table = {**super().decider_table(), STEP_DEPLOY: self.deploy_choices, STEP_BLUE: self.legal_blue,
                 STEP_STEAL: self.legal_steal, STEP_MOVE: self.move_choices, SETUP_BOAT: self.legal_boat}
        table.pop(STEP_TILE, None)      # tiles are played in steps 2 and 4, not in a step of their own
        return table

    def step_handler_table(self) -> dict[str, dict[str, ActionHandler[SpaceAttackState]]]:
        return {**super().step_handler_table(), STEP_BLUE: {"creature": self.creature_after_blue}}

