"""The end of the core's chain: a Survive ruleset's entry points (decisions, legal actions,
applying an action, secrets), dispatched through the tables.

A game is a subclass (``AtlantisRules(SurviveRules[AtlantisState])``) that names its
state, its move-file shapes and its words; an expansion is a subclass of its game that
:class:`~pbem.rules.survive.game.SurviveGame` adds only when its option is on.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, ClassVar, Mapping, Sequence

from pbem.core.choices import Chain, Pairs
from pbem.game import (
    Action,
    Decision,
    IllegalAction,
    NeedsSecret,
    OrderField,
    OrderForm,
    Rng,
    best_scored,
)
from pbem.core.position_fields import fail
from pbem.rules.survive.actions import SHAPES, ActionShape, action_kind
from pbem.rules.survive.base import Decider, Events, Spaces, StateT, event
from pbem.rules.survive.creatures import CreatureOrder, CreatureRules
from pbem.rules.survive.movement import MoveChoices
from pbem.rules.survive.setup import SetupRules
from pbem.rules.survive.state import (
    BOAT,
    LAND,
    OVER,
    SEA,
    SETUP_BOAT,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_DEFENSE,
    STEP_MOVE,
    STEP_REMOVE,
    STEP_TILE,
    at,
    ship_of,
)
from pbem.base.yamlio import dump_flow

#: the key of the Rng of the set-up played on a copy by :meth:`SurviveRules.check_setup_can_finish`
SETUP_TRIAL_KEY = b"pbem playable: set-up"
SAVE = 100.0      # the greedy bot: landing a person on an exit
BOARD = 3.0       # getting onto a ship
STAY = -0.5       # ending movement early
from pbem.rules.survive.view import ViewRules

__all__ = ["SurviveRules", "event", "order_text"]


@lru_cache(maxsize=4096)
def order_text(handle: str, rest: tuple[tuple[str, Any], ...]) -> str:
    """A creature order in move-file syntax, ``{creature: K1, to: F4}`` (the same few are written
    for every decision of a page: remembered)."""
    return dump_flow({"creature": handle, **dict(rest)})


def ahead_choice(face: str, items: tuple[tuple[str, Any], ...]) -> tuple[str, str]:
    """A step-4 choice (``{creature: K1, to: F4}`` as its items) written ahead for ``face``: the
    order in move-file syntax and how it reads (``K1 to F4``; ``move no shark`` for none)."""
    try:
        return _ahead_choice(face, items)
    except TypeError:            # a list inside: not remembered
        return _ahead_choice.__wrapped__(face, items)


@lru_cache(maxsize=8192)
def _ahead_choice(face: str, items: tuple[tuple[str, Any], ...]) -> tuple[str, str]:
    handle, rest = items[0][1], items[1:]
    if str(handle).lower() == "none":
        return "none", f"move no {face}"
    return order_text(str(handle), rest), " ".join([str(handle), *(f"{k} {v}" for k, v in rest)])


@lru_cache(maxsize=8192)
def ahead_move(handle: str, to: str) -> tuple[str, str]:
    """:func:`ahead_choice` of ``{creature: HANDLE, to: TO}``."""
    return _ahead_choice("", (("creature", handle), ("to", to)))


def _placement(handle: str, spot: str) -> Action:
    return {"place": handle, "on": spot}


def _ship_placement(boat: str, spot: str) -> Action:
    return {"boat": boat, "at": spot}


@dataclass(frozen=True)
class _TilePlay:
    """Playing ``tile`` to move a piece (named by ``key``: a creature, a swimmer, a ship) to a space."""

    tile: str
    key: str

    def __call__(self, piece: str, to: str) -> Action:
        return {"play": self.tile, self.key: piece, "to": to}


class SurviveRules(ViewRules[StateT]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The greedy bot's tables, worked out with the ruleset (once per board).  Not
        # ``cached_property``s: one sets its value through the object's ``__dict__``, which makes
        # CPython 3.11 keep every attribute of the ruleset in a dict of its own, and each later
        # ``self.x`` of the rules (hundreds a decision) then costs more.
        #: steps from each space to the nearest safe isle (:meth:`isle_distances`)
        self.isle_distance = self.isle_distances()
        #: what one move from each space to each space it may reach scores (:meth:`step_gains`)
        self.step_gain = self.step_gains()
        #: the scores of the walks from each space to each next to it (:meth:`walk_gain_rows`)
        self.walk_gains = self.walk_gain_rows()

    #: the greedy bot scores as the core does (:meth:`bot_preference`, :meth:`prefer_move`), so
    #: what each piece's score shares is worked out once per list; a ruleset that scores its own
    #: way declares False
    core_scores: ClassVar[bool] = True
    #: the move-file action shapes of this game (every layer's: the syntax does not change
    #: with the options)
    action_shapes: tuple[ActionShape, ...] = SHAPES
    #: action kinds a player may send when it is not their decision (standing orders)
    anytime_actions: tuple[str, ...] = ()
    #: action kinds whose layer may be off -> the decision they answer (for the refusal)
    layer_action_steps: Mapping[str, str] = {}

    #: hooks this class overrides that the turn model (pbem.rules.survive.turnmodel) still plays
    #: exactly, through :meth:`turn_model_params`; a class names only the hooks it defines itself
    turn_model_covers: frozenset[str] = frozenset()

    # --- the turn model's parameters ----------------------------------------------------
    def _closed_spaces(self, state: StateT) -> list[str]:
        """The labels of the open spaces that do not count as sea spaces for the removal (the
        ``closed_spaces`` parameter: the open spaces in :meth:`not_sea_for_removal`, made once)."""
        not_sea = self.not_sea_for_removal(state)
        return [self.label(c) for c in range(self.board.playable_count) if c not in state.tile_at and c in not_sea]

    def turn_model_params(self, state: StateT) -> dict[str, Any]:
        """The rule parameters the page's turn model reads (``templates/turnmodel/survive.js``),
        as plain data: the core's readings of the rules; a layer that covers a hook of its own
        (``turn_model_covers``) adds or changes the parameter that makes the difference."""
        return {
            "movement_points": self.movement_points(state),
            #: each ship's capacity (the ruleset's ``capacity`` hook, ship by ship)
            "capacities": {h: self.capacity(state, h) for h in state.boats},
            "swimmer_killers": list(self.swimmer_killers()),
            #: what an occupied ship (any ship, with ``empty_ships_prey``) sailing into a creature's
            #: space meets, the first kinds found first: ``capsize`` (its people swim there) or
            #: ``sink`` (they are lost with it)
            "ship_meets": [{"kinds": list(self.ship_sinkers()), "effect": "capsize"}],
            "empty_ships_prey": False,
            #: swimmers may ride a dolphin in their space to a sea space next to it ({move, to, ride})
            "rides": False,
            #: a dolphin in a swimmer's space protects it and may swim along ({move, to, dolphin: true});
            #: who protects whom is the view's ``dolphins.protects``
            "dolphin_escorts": False,
            #: which tile may be removed: ``coast`` (the first terrain left, by the sea if any is)
            #: or ``rings`` (the outermost ring left, its empty tiles if any; ``rings``: per space)
            "removal": "coast",
            "rings": None,
            #: kinds an occupied ship may not sail into (the ruleset's ``ship_barriers``)
            "ship_blockers": list(self.ship_barriers()),
            "terrains": list(self.terrains),
            #: the open spaces that do not count as sea spaces when choosing the tile to remove (the
            #: ruleset's ``not_sea_for_removal``; a removed tile's space always counts)
            "closed_spaces": self._closed_spaces(state),
            #: the game ends when no person is left on the board (checked after every action)
            "end_when_board_empty": False,
            #: kinds whose space a ship may not be placed on at set-up
            "setup_ship_blockers": list(self.starting_creature_kinds()),
            #: how many people a tile may hold at set-up, per space (the core: an empty tile)
            "setup_limits": {self.label(cell): 1 for cell in state.tile_at},
            #: the seats (1 = the first player) whose last person goes onto an occupied tile without
            #: one of their own; ``crowd``: once no tile is empty, people go onto occupied tiles
            #: without one of their own holding fewer than this many (None: never)
            "final_on_occupied": [],
            "crowd": None,
            #: the ``setup_limits`` come first; with no tile left under them, the rule without them
            "setup_fallback": False,
            #: do owners still see their people's values once play begins?
            "values_seen_in_play": self.owner_always_sees_values(state),
            #: the key of an explorer's move into the sea beside a ship (``swim``; Space Attack: ``drift``)
            "swim_key": "swim",
            #: the key of a ship placement at set-up (``boat``; Space Attack: ``pod``)
            "ship_place_key": "boat",
            #: the step whose start rolls the die (a STOP) after the removal
            "roll_step": STEP_CREATURE,
            #: Space Attack's movement step: ``fighters`` (ships that fly straight lines, once a
            #: turn), turrets on tiles of ``turret_terrain`` that a player's crew there fires, both
            #: capturing creatures; the step stays open while the player holds a tile from an earlier
            #: turn (``hand_open``), and tiles of kind ``hand_play_kind`` (``tile_kinds``: back ->
            #: kind) are played in it: the model does not list those plays (it cuts there);
            #: ``rays``: true where fighters and turrets see along straight lines (Space Attack's
            #: ``Craft.rays``): the model works them out from the board's labels
            "fighters": [],
            "turret_terrain": None,
            "rays": False,
            "hand_open": False,
            "hand_play_kind": None,
            "tile_kinds": {},
            #: step 4: the faces a creature order is written ahead for at the removal, and each
            #: creature kind's move (die ``moves``) and behaviour (``rule``: serpent, shark, whale)
            "ahead_faces": self.ahead_faces(),
            #: where a serpent-behaviour creature stops: ``always`` (it moves one space), or
            #: ``attack`` (where it would attack: an occupied ship, drifters)
            "serpent_stops": "always",
            #: the creature kinds each die face moves (a face not named: its own kind), the kinds
            #: that may stay where they are, the kinds that stop a whale, and what a whale removes
            #: where it ends
            "die_kinds": {},
            "stay": [],
            "whale_stopped_by": [],
            "whale_eats": [],
            #: the creature tile that also moves a squid (to any vacant space, or not at all)
            "squid_moves_with": None,
            #: who an attack threatens (those who may answer it with a defence tile): ``protects`` (the
            #: people the answering tile protects: the swimmers there, or those aboard the ship there)
            #: or ``hit`` (the owners of the drifters a serpent or shark hits there, the controllers of
            #: the occupied ship a serpent or whale hits there)
            "threat": "protects",
            "after_roll_kind": None,
            #: the dive dice (``faces`` of the first die, its ``wild`` face, the second die's
            #: ``anywhere`` face), or None
            "dive": None,
            #: the 1986 spinner (``pass``: {creature: none} allowed; ``dive``: the diving face), or None
            "spin": None,
            #: step 1: each tile back's kind (``hand``: played in step 1), rule (``dolphin``, ``wind``,
            #: ``move-to-empty-space``) and creature, and how far the moving tiles move
            "backs": {back: {"kind": self.back_kind[back], "rule": self.back_rule(back),
                             "creature": spec.get("creature"), "crew_on": spec.get("crew_on"),
                             "piece": spec.get("piece"), "creatures": spec.get("creatures"),
                             "changes": spec.get("changes")}
                      for back, spec in self.tile_backs.items()},
            "tile_moves": dict(self.comp.get("tile_moves") or {}),
            #: the creature kinds another player may answer with a defence tile, and whom it protects
            #: (``swimmers``, or a ship's ``ship`` people)
            "answered": {kind: str(self.tile_backs[back].get("protects", "")) for kind in self.comp["creatures"]
                         if (back := self.answering_back(kind)) is not None},
            "creatures": {kind: {"moves": spec.get("die_moves"), "rule": str(spec.get("rule", kind))}
                          for kind, spec in self.comp["creatures"].items()},
        }

    # --- decisions ------------------------------------------------------------------
    def pending(self, state: StateT) -> list[Decision]:
        who = self.decider(state)
        if who is None:
            return []
        kind = self.current_step(state)
        return [Decision(who, kind, lambda: self.prompt(state, kind))]   # the text only when read

    def prompt(self, state: StateT, kind: str) -> str:
        """One line for decision ``kind``: a layer's (:meth:`variant_prompt`), else the game's."""
        return self.variant_prompt(state, kind) or self.game_prompt(state, kind)

    def game_prompt(self, state: StateT, kind: str) -> str:
        """The game's own prompt for decision ``kind`` (its words)."""
        return ""

    def model_prompts(self, state: StateT) -> dict[str, str]:
        """What the player's page (the turn model, templates/turnmodel/survive.js) says for each
        decision it follows, by kind: the game's own words, without move-file syntax and without
        what only one state knows (the model says them at every state it reaches; ``state`` gives
        the options).  The Survive rule book's words; a game with other pieces says its own, and a
        layer that adds a decision adds its words (each ``super()`` first)."""
        return {
            SETUP_PLACE: f"place one of your people on an empty {self.word('terrain tile')}",
            SETUP_BOAT: f"place a ship on a free {self.word('sea space')} next to the {self.word('island')}",
            STEP_TILE: "step 1: play a tile from your hand, or none",
            STEP_MOVE: "step 2: move your people and ships, or end the movement step",
            STEP_REMOVE: f"step 3: remove a {self.word('terrain tile')}",
            STEP_CREATURE: "step 4: move a creature the die shows, or none",
            STEP_BOARDERS: f"choose the {self.word('swimmers')} who board the ship",
            STEP_DEFENSE: f"a {self.word('sea creature')} attacks: play a defense tile, or none",
        }

    def legal_actions(self, state: StateT, player: str) -> list[Action]:
        if self.decider(state) != player:
            return []
        actions = self.deciders[self.current_step(state)](state, player)
        return actions if isinstance(actions, list) else list(actions)

    def legal_choices(self, state: StateT, player: str) -> Sequence[Action]:
        """The legal actions as the decision's entry in :meth:`decider_table` gives them: made
        only when read where the core lists a decision that pairs two lists (set-up placement:
        every explorer in reserve on every empty tile; creature-moving tiles) or counts each
        piece's moves first (the movement step)."""
        if self.decider(state) != player:
            return []
        return self.deciders[self.current_step(state)](state, player)

    def decider_table(self) -> dict[str, Decider[StateT]]:
        """The core's listings in their quicker forms (equal, action for action, to
        :meth:`legal_place`, :meth:`legal_boat`, :meth:`legal_play_tile`, :meth:`legal_move` and
        :meth:`legal_creature`).  A layer that lists one of these decisions its own way (or
        changes a rule the quicker form counts by, such as a piece's moves) declares it by
        putting its own listing in this table."""
        table = super().decider_table()
        quick: dict[str, Decider[StateT]] = {SETUP_PLACE: self.place_choices, SETUP_BOAT: self.boat_choices,
                                             STEP_TILE: self.tile_choices, STEP_MOVE: self.move_choices,
                                             STEP_CREATURE: self.creature_choices}
        return {kind: quick.get(kind, listing) for kind, listing in table.items()}

    def place_choices(self, state: StateT, player: str) -> Sequence[Action]:
        """:meth:`legal_place` as pairs (every explorer in reserve on every empty tile)."""
        labels = self.board.labels
        return Pairs(self.reserve_explorers(state, player), [labels[c] for c in self.placement_spots(state)],
                     _placement)

    def boat_choices(self, state: StateT, player: str) -> Sequence[Action]:
        """:meth:`legal_boat` as pairs (every ship in reserve on every free space)."""
        labels = self.board.labels
        return Pairs(self.reserve_boats(state, player), [labels[c] for c in self.boat_spots(state)], _ship_placement)

    def tile_choices(self, state: StateT, player: str) -> Sequence[Action]:
        """:meth:`legal_play_tile` with each creature-moving tile's options (every creature of
        its kind to every vacant sea space), and each piece-moving tile's (:func:`moving_tile`:
        each piece to each space it may go to), as pairs made only when read."""
        parts: list[Sequence[Action]] = [[{"play": "none"}]]
        for h in self.playable_now(state, player):
            back = self.known_back(state, h)
            if self.back_kind[back] != "hand":
                continue
            tile = self.hand_tiles[back]
            if tile.options == self.options_move_creature:
                kind = str(self.tile_backs[back]["creature"])
                creatures = [c.handle for c in state.creatures.values() if c.kind == kind and c.where == SEA]
                parts.append(Pairs(creatures, self.vacant_labels(state), _TilePlay(h, "creature")))
            elif tile.moves is not None:          # one piece moved: each piece with where it may go
                play = _TilePlay(h, tile.key)
                parts.extend(Pairs([piece], spaces, play) for piece, spaces in tile.moves(state, player, back))
            else:
                parts.append([{"play": h, **params} for params in tile.options(state, player, back)])
        return Chain(parts)

    # --- can a game go on from a position -----------------------------------------------
    def check_playable(self, state: StateT) -> None:
        super().check_playable(state)
        if state.phase in (SETUP_PLACE, SETUP_BOAT):
            self.check_setup_can_finish(state)

    def check_setup_can_finish(self, state: StateT) -> None:
        """The set-up comes to its end: on a copy, every explorer and ship still to place is
        placed (each time the first legal placement, as the rules list them) until play begins;
        where a player has nothing to place or no room for it, the line says what to add."""
        work = state.copy()
        rng = Rng(SETUP_TRIAL_KEY, "set-up")
        for _ in range(len(state.explorers) + len(state.boats) + 1):
            if work.phase not in (SETUP_PLACE, SETUP_BOAT):
                return
            decisions = self.pending(work)
            if not decisions:
                return               # (the engine's own check names it)
            player = decisions[0].player
            choices = self.legal_choices(work, player)
            if not len(choices):
                fail(*self.why_setup_stops(state, work, player))
            self.apply(work, player, choices[0], rng)

    def why_setup_stops(self, start: StateT, now: StateT, player: str) -> tuple[str, str]:
        """(field, problem) for a set-up, begun at ``start``, that stops at ``now``: ``player``
        has to place but cannot."""
        placing = now.phase == SETUP_PLACE
        word = self.word
        (what, whats), field = ((word("explorer"), word("explorers")), "explorers") if placing else \
            (("ship", "ships"), "boats")

        def waiting(state: StateT, p: str) -> list[str]:
            return self.reserve_explorers(state, p) if placing else self.reserve_boats(state, p)
        if not waiting(now, player):
            others = [p for p in now.players if waiting(now, p)]
            if others:
                return ("turn.player", f"{player} has no {what} left to place: write the turn of a player "
                                       f"who has ({', '.join(others)})")
            return (field, f"none is left to place in phase {now.phase}: add {whats} in reserve, or write "
                           "the phase that follows")
        total = sum(len(waiting(start, p)) for p in start.players) if start.phase == now.phase else \
            sum(len(waiting(now, p)) for p in now.players)
        placed = total - sum(len(waiting(now, p)) for p in now.players)
        island = word("island")
        room = f"on the {island} (set-up puts {whats} on {word('terrain tiles')})" if placing else \
            f"in the free {word('sea spaces')} next to the {island}"
        return ("tiles", f"{total} {whats} wait to be placed, but there is room for {placed} {room}, none for "
                         f"{player}'s next: add {word('terrain tiles')} to the {island} or leave {whats} out")

    # --- applying an action ----------------------------------------------------------
    def apply(self, state: StateT, player: str, action: Mapping[str, Any], rng: Rng) -> Events:
        kind = action_kind(action, self.action_shapes)
        if kind not in self.anytime_actions and state.phase == OVER:
            raise IllegalAction("the game is over")
        handler = self.step_handlers.get(self.current_step(state), {}).get(kind) or self.action_handlers.get(kind)
        if handler is None:
            # an action of a layer these options leave out: refused as out of turn
            self.expect(state, player, self.layer_action_steps.get(kind, kind))
            raise IllegalAction(f"{kind} actions are not part of this game with these options")
        events = handler(state, player, action, rng)
        self.after_action(state, events)
        return events

    def known_outcomes(self, state: StateT, player: str, actions: Sequence[Mapping[str, Any]]) -> list[str]:
        """:meth:`pbem.game.Game.known_outcomes` from :attr:`outcome_tests` (action kind -> test);
        not known for a kind the decision answers with a handler of its own (:attr:`step_handlers`)."""
        tests = self.outcome_tests
        if not tests or self.decider(state) != player:
            return [""] * len(actions)
        own = self.step_handlers.get(self.current_step(state), {})
        out = []
        for action in actions:
            for kind in tests:                  # (an action's kind is one of its keys)
                if kind in action:
                    break
            else:
                out.append("")
                continue
            try:
                kind = action_kind(action, self.action_shapes)      # as apply finds the handler
            except IllegalAction:
                kind = ""
            test = tests.get(kind)
            out.append(test(state, player, action) if test is not None and kind not in own else "")
        return out

    # --- secrets -----------------------------------------------------------------------
    def secrets(self, state: StateT, player: str) -> dict[str, Any]:
        """What ``player`` knows that the public does not: hand tiles with backs, own
        values when visible, standing orders."""
        out: dict[str, Any] = {
            "hand": {h: {"back": state.tiles[h].back, "obtained": state.tiles[h].obtained}
                     for h in self.hand(state, player)},
            "standing": dict(sorted((state.standing.get(player) or {}).items())),
        }
        values = {h: e.value for h, e in state.explorers.items()
                  if e.owner == player and self.sees_value(state, player, e)
                  and not self.sees_value(state, None, e)}
        if values:
            out[self.word("values key")] = values
        return out

    # --- the click-to-move page: step 4 written ahead ---------------------------------------------
    def ahead_faces(self) -> list[str]:
        """The die faces a creature order may be written ahead for (``{creature: {FACE: ...}}``):
        the creature die's.  A layer whose roll is not keyed that way returns []."""
        return list(dict.fromkeys(self.creature_die_faces()))

    def ahead_forms(self, view: Mapping[str, Any], player: str) -> list[OrderForm]:
        """At the tile removal, the creature order for each die face, written ahead as the move
        template offers it: the choices the rules give for that face now (its creatures on the
        board and where they may go).  After the roll the engine uses the order for the face it
        shows, or asks again if that order no longer fits."""
        turn = view["turn"]
        if view["phase"] == OVER or turn["player"] != player or turn["step"] != STEP_REMOVE \
                or not self.ahead_faces() or STEP_CREATURE not in self.deciders:
            return []
        return self.ahead_forms_of(self.read_position(view), player)

    def ahead_forms_of(self, state: StateT, player: str) -> list[OrderForm]:
        """:meth:`ahead_forms` on a state made from ``player``'s own view, without reading the view
        back (:meth:`pbem.game.Game.ahead_order_forms`); the state is left as it was."""
        turn = state.turn
        faces = self.ahead_faces()
        if state.phase == OVER or turn.player != player or turn.step != STEP_REMOVE or not faces \
                or STEP_CREATURE not in self.deciders or self.decider(state) != player:
            return []
        fields = []
        rolled = turn.die
        try:
            for face in faces:
                turn.die = face
                try:
                    written = self.ahead_choices(state, player, face)
                except NeedsSecret:
                    return []
                fields.append(OrderField(face, f"if the die shows {face}", tuple(v for v, _ in written),
                                         tuple(t for _, t in written)))
        finally:
            turn.die = rolled
        return [OrderForm("creature", "Written ahead: a creature order for each face of the die", tuple(fields),
                          "ahead", "The die is rolled after your tile removal; the order for the face it shows is "
                                   "used, or you are asked again if it no longer fits.")]

    def ahead_choices(self, state: StateT, player: str, face: str) -> list[tuple[str, str]]:
        """Step 4's choices (:meth:`legal_creature`) once ``face`` is rolled, each written ahead
        (:func:`ahead_choice`).  Where step 4 is listed as the core lists it (``{creature: none}``,
        then each movable creature to each space it may end on), from the creatures and their
        spaces, without making the actions."""
        if self.deciders.get(STEP_CREATURE) != self.creature_choices:     # a layer lists step 4 its own way
            return [ahead_choice(face, tuple(choice.items())) for choice in self.legal_creature(state, player)]
        out = [ahead_choice(face, (("creature", "none"),))]
        ends: dict[str, Spaces] = {}        # each kind's stop cells, worked out once
        labels = self.board.labels
        for handle in self.movable_creatures(state, face):
            c = state.creatures[handle]
            if c.kind not in ends:
                ends[c.kind] = self.stop_cells(state, c.kind)
            out.extend(ahead_move(handle, labels[cell]) for cell in self.creature_spaces(state, c, ends[c.kind]))
        return out

    # --- bots ---------------------------------------------------------------------------
    #: the actions that decline a decision, in the order they are looked for
    PASSES: tuple[dict[str, str], ...] = ({"play": "none"}, {"done": "move"}, {"creature": "none"},
                                          {"defend": "none"})

    def pass_action(self, state: StateT, player: str) -> dict[str, Any] | None:
        """Decline the pending decision if the rules allow it (tile removal and set-up do not)."""
        legal = self.legal_choices(state, player)
        for candidate in self.PASSES:
            if candidate in legal:
                return dict(candidate)
        return None

    # --- hints for the greedy bot: a cheap score per action, no look-ahead -----------------
    # Scores only use what the deciding player can see (positions of pieces), never hidden
    # values, so a bot's choices leak nothing.
    def isle_distances(self) -> tuple[int, ...]:
        """Steps from each cell to the nearest safe isle (breadth-first over all hexes)."""
        n = len(self.board.labels)
        dist = [n] * n
        queue = deque(self.board.isles)
        for cell in self.board.isles:
            dist[cell] = 0
        while queue:
            cell = queue.popleft()
            for nb in self.neighbours_with_isles(cell):
                if dist[nb] > dist[cell] + 1:
                    dist[nb] = dist[cell] + 1
                    queue.append(nb)
        return tuple(dist)

    def neighbours_with_isles(self, cell: int) -> list[int]:
        if self.board.is_isle(cell):
            return [c for c in range(len(self.board.labels)) if cell in self.board.isles_next_to[c]]
        return list(self.board.neighbours[cell]) + list(self.board.isles_next_to[cell])

    def bot_preference(self, state: StateT, player: str, action: Mapping[str, Any]) -> float:
        if "move" in action and "to" in action:
            return self.prefer_move(state, player, str(action["move"]), str(action["to"]))
        if action.get("done") == "move":
            return STAY
        return 0.0

    def bot_favourites(self, state: StateT, player: str, actions: Sequence[Mapping[str, Any]]) -> Sequence[int]:
        """The greedy bot's favourites (:meth:`pbem.game.Game.bot_favourites`): every action where
        the core's scores score none of them (every decision but the movement step), else the
        best scored."""
        if self.core_scores and self.scores_none(actions):
            return range(len(actions))
        return best_scored(self.bot_preferences(state, player, actions))

    def scores_none(self, actions: Sequence[Mapping[str, Any]]) -> bool:
        """Do the core's scores (:meth:`bot_preferences`) score every one of ``actions`` 0: a lazy
        sequence by what it makes (:meth:`lazy_scores_none`, without making them), else each
        action (:meth:`listed_scores_none`)."""
        if type(actions) is not list:       # (a list is none of the lazy sequences: not asked of it)
            lazy = self.lazy_scores_none(actions)
            if lazy is not None:
                return lazy
        return self.listed_scores_none(actions)

    def lazy_scores_none(self, actions: Sequence[Mapping[str, Any]]) -> bool | None:
        """:meth:`scores_none` of a lazy sequence, by what it makes; None for any other sequence."""
        kind = type(actions)        # (the exact classes first: a failed isinstance of an ABC costs a call)
        if kind is MoveChoices:
            return False
        if kind is Pairs:
            return self.never_scored(actions.make)       # type: ignore[attr-defined]
        if isinstance(actions, Chain):
            return all(self.scores_none(part) for part in actions.parts)
        return None

    def listed_scores_none(self, actions: Sequence[Mapping[str, Any]]) -> bool:
        """:meth:`scores_none` of actions listed: no moves and no ``{done: move}``."""
        return not any(("move" in a and "to" in a) or a.get("done") == "move" for a in actions)

    def bot_preferences(self, state: StateT, player: str, actions: Sequence[Mapping[str, Any]]) -> list[float]:
        """:meth:`bot_preference` of each action; with the core's scores, what each piece's score
        shares (where it stands, who is aboard) is worked out once for the list."""
        if not self.core_scores:
            return [self.bot_preference(state, player, a) for a in actions]
        if type(actions) is not list:       # (a list is none of these lazy sequences: not asked of it)
            if isinstance(actions, Chain):
                return [s for part in actions.parts for s in self.bot_preferences(state, player, part)]
            if isinstance(actions, Pairs) and self.never_scored(actions.make):
                return [0.0] * len(actions)         # not moves: scored 0 without making them
            if isinstance(actions, MoveChoices):             # the movement step, piece by piece from the steps
                return self.move_scores(state, player, actions)
        dist, index, is_isle = self.isle_distance, self.board.index, self.board.is_isle
        boat_at = state.boat_at
        known: dict[str, tuple[str, int, float]] = {}      # piece -> (kind, cell, explorer: aboard / ship: mine)
        out: list[float] = []
        for action in actions:
            if not ("move" in action and "to" in action):
                out.append(STAY if action.get("done") == "move" else 0.0)
                continue
            piece, target = str(action["move"]), index.get(str(action["to"]))
            if target is None:
                out.append(0.0)
                continue
            facts = known.get(piece)
            if facts is None:
                facts = known[piece] = self._piece_facts(state, player, piece)
            kind, here, extra = facts
            if kind == "explorer":
                if is_isle(target):
                    out.append(SAVE)
                else:
                    bonus = BOARD if target in boat_at and not extra else 0.0
                    out.append(bonus + dist[here] - dist[target])
            elif kind == "ship":
                out.append(extra * (dist[here] - dist[target]))
            else:
                out.append(0.0)
        return out

    def step_gains(self) -> tuple[dict[int, float], ...]:
        """For each space, what one move from it to each space a move may reach (the spaces next
        to it, the safe isles next to it, itself) scores for the core: :data:`SAVE` onto a safe
        isle, else how many steps nearer the nearest safe isle it ends (:meth:`prefer_move`,
        without the bonus for getting onto a ship).  Worked out once per board."""
        dist, board = self.isle_distance, self.board
        return tuple({t: SAVE if board.is_isle(t) else float(dist[here] - dist[t])
                      for t in (*board.neighbours[here], *board.isles_next_to[here], here)}
                     for here in range(len(board.labels)))

    def walk_gain_rows(self) -> tuple[list[float], ...]:
        """For each space, the scores (:attr:`step_gain`) of the moves from it to each space next
        to it, in the board's order: what an explorer on land with no ship next to it scores
        (:meth:`move_scores`; :meth:`explorer_steps` lists one move to each).  Once per board."""
        gains, nb = self.step_gain, self.board.neighbours
        return tuple([gains[here][n] for n in nb[here]] for here in range(len(self.board.labels)))

    def move_scores(self, state: StateT, player: str, moves: MoveChoices) -> list[float]:
        """The core's scores (:meth:`bot_preference`) of the movement step's moves, piece by piece:
        :data:`STAY` for ``{done: move}``; an explorer's from the table :attr:`step_gain` of its
        space, :data:`BOARD` more onto a ship's space for an explorer not aboard one; a ship's, how
        much nearer a safe isle it carries each of ``player``'s explorers aboard.

        An explorer not listed yet is scored as :meth:`explorer_steps` would list it, in its
        order, without listing it (the same tests, one pass); a ship without ``player``'s
        explorers scores 0 on every move and is only counted (:meth:`MoveChoices.ship_counts`).
        The counts found on the way are the step's (:meth:`MoveChoices.take_counts`: a piece
        listed later is checked against its count)."""
        step_gain, explorers, boats, boat_at = self.step_gain, state.explorers, state.boats, state.boat_at
        pieces, steps_of, listed = moves.pieces, moves.steps_of, moves.listed
        nb, land, isle_steps = self.board.neighbours, state.tile_at, self.isle_steps
        has_room, may_swim, may_board = self.has_room, self.may_swim, self.may_board_from_the_sea
        near, walk_gains, ships_at = self.board.neighbour_sets, self.walk_gains, boat_at.keys()
        scores = [STAY]
        score = scores.append
        counts: list[int] = []
        for i in range(moves.explorers):
            before = len(scores)
            handle = pieces[i]
            e = explorers[handle]
            steps = listed(i)
            where = e.where
            if steps is not None:
                if where == BOAT:
                    gain = step_gain[at(boats[ship_of(e.boat)].cell)]
                    for t, _swim in steps:
                        score(gain[t])
                else:
                    gain = step_gain[at(e.cell)]
                    for t, _swim in steps:
                        score(gain[t] + BOARD if t in boat_at else gain[t])
            elif where == LAND:                       # (explorer_steps, scored as it lists)
                cell = at(e.cell)
                if ships_at.isdisjoint(near[cell]):
                    scores += walk_gains[cell]            # (no ship next to it: one walk or swim to each space)
                    counts.append(len(scores) - before)
                    continue
                gain = step_gain[cell]
                for n in nb[cell]:
                    if n in land:
                        score(gain[n] + BOARD if n in boat_at else gain[n])       # walk
                        continue
                    boat = boat_at.get(n)
                    if boat is None or has_room(state, boat):
                        score(gain[n] + BOARD if n in boat_at else gain[n])       # swim, or board
                    if boat is not None:
                        score(gain[n] + BOARD)                                      # swim beside the ship
            elif where == BOAT:
                cell = at(boats[ship_of(e.boat)].cell)
                gain = step_gain[cell]
                if not ships_at.isdisjoint(near[cell]):       # (else no ship next to it to climb into)
                    for n in nb[cell]:
                        boat = boat_at.get(n)
                        if boat is not None and has_room(state, boat):
                            score(gain[n])                                          # to the ship next to it
                if may_swim(state, handle):
                    score(gain[cell])                                               # jump overboard
                for t, _swim in isle_steps[cell]:
                    score(gain[t])                                                  # onto a safe isle
            elif where == SEA:
                cell = at(e.cell)
                gain = step_gain[cell]
                boat = boat_at.get(cell)
                if boat is not None and has_room(state, boat) and may_board(state, handle):
                    score(gain[cell] + BOARD)                                       # climb into the ship here
                if may_swim(state, handle):
                    for n in nb[cell]:
                        if n not in land:
                            score(gain[n] + BOARD if n in boat_at else gain[n])   # swim
                for t, _swim in isle_steps[cell]:
                    score(gain[t] + BOARD if t in boat_at else gain[t])           # onto a safe isle
            counts.append(len(scores) - before)
        dist = self.isle_distance
        ships = range(moves.explorers, len(pieces))
        aboard: list[int] = []      # each ship's explorers of ``player``
        for i in ships:
            mine = 0
            for h in boats[pieces[i]].passengers:
                if explorers[h].owner == player:
                    mine += 1
            aboard.append(mine)
        idle = [i for i, mine in zip(ships, aboard) if not mine]
        idle_counts = iter(moves.ship_counts(idle) if idle else ())     # (counted together)
        for i, mine in zip(ships, aboard):
            if not mine:
                n = next(idle_counts)
                scores.extend([0] * n)             # (mine * (here - dist[t]): 0 on every move)
                counts.append(n)
                continue
            b = boats[pieces[i]]
            here = dist[at(b.cell)]
            steps = steps_of(i)
            # (from the distances: a layer's ship may go further than one space)
            scores += [mine * (here - dist[t]) for t in steps]
            counts.append(len(steps))
        moves.take_counts(counts)
        return scores

    def never_scored(self, make: Callable[[Any, Any], Action]) -> bool:
        """Are the actions ``make`` makes (:class:`~pbem.core.choices.Pairs`) ones the core's scores
        never score, not being moves: set-up placements, creature-moving tiles, step 4's orders."""
        return (make is _placement or make is _ship_placement or isinstance(make, (_TilePlay, CreatureOrder))
                or make == self.creature_to)

    def _piece_facts(self, state: StateT, player: str, piece: str) -> tuple[str, int, float]:
        """What :meth:`prefer_move` reads of a piece: ("explorer", its cell, 1.0 if aboard a ship),
        ("ship", its cell, explorers of ``player`` aboard), or ("none", 0, 0.0)."""
        if piece in state.explorers:
            e = state.explorers[piece]
            here = state.explorer_cell(e)
            if here is None:
                return ("none", 0, 0.0)
            return ("explorer", here, 1.0 if e.where == BOAT else 0.0)
        if piece in state.boats and state.boats[piece].cell is not None:
            boat = state.boats[piece]
            mine = sum(1 for p in boat.passengers if state.explorers[p].owner == player)
            return ("ship", at(boat.cell), mine)
        return ("none", 0, 0.0)

    def prefer_move(self, state: StateT, player: str, piece: str, to: str) -> float:
        target = self.board.index.get(to)
        if target is None:
            return 0.0
        dist = self.isle_distance
        if piece in state.explorers:
            e = state.explorers[piece]
            here = state.explorer_cell(e)
            if here is None:
                return 0.0
            if self.board.is_isle(target):
                return SAVE
            bonus = BOARD if target in state.boat_at and e.where != BOAT else 0.0
            return bonus + dist[here] - dist[target]
        if piece in state.boats and state.boats[piece].cell is not None:
            boat = state.boats[piece]
            mine = sum(1 for p in boat.passengers if state.explorers[p].owner == player)
            return mine * (dist[at(boat.cell)] - dist[target])
        return 0.0

    # --- texts from a view --------------------------------------------------------------
    def summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        return []

    def template(self, view: Mapping[str, Any], player: str) -> str:
        return "actions:\n  - {}  # see `pbem legal`\n"
