"""Checking a Space Swarm position before a game starts from it: positions are validated like moves.

:class:`SwarmPositionCheck` reads a position the way :func:`pbem.rules.spaceswarm.view.read_position`
does, but first makes sure every field is there, has the right type and an allowed value, and
that the game can go on from it:

* the format; every option value is one its spec allows and the options combine
  (``check_options``); a hand-made map in the options is the position's map, with its homes;
* 2-6 players with different names; each home a Star Cluster of the map, no two alike (every
  set-up makes it so: "Each player starts with three Fleet counters on one Cluster space");
  standing orders given (``{}`` for none) with known keys and values;
* the map: a width and height in the generator's range, one row of that many known terrain
  codes (``C . . S``) per row; an explicit ``size`` option is the map's size;
* the phase and the step: a decision kind of that phase (``develop`` in the Development Phase
  with ``tech_phase=development``, in the Research Phase with ``tech_phase=research``;
  ``discard`` only when the active race is over its hand limit; ``react`` with an open window
  of the phase's kind; ``slot`` with at least two free places); ``''`` once the game is over;
* ``round``, ``turns`` at least 1, ``turn_index`` a place of ``order``, ``stack_moves`` within
  the active race's Strategic level in its Move Phase; ``order`` lists players once each and every
  race still in the game, and the active race is in the game;
* stacks: every player's, space label -> fleets (1-9999), never on a Super Nova; ``moved`` only
  for the active race in its Move Phase, never more fleets than the stack nor more spaces than
  its Movement;
* cards: each of the deck's cards (C1..C54, C1..C108 with ``decks=2``) exactly once across
  ``deck`` + ``hands`` + ``tech`` + ``discard``, with a known face (never ``null``: write it with
  ``pbem show --full``) and no more of a face than the box holds; Technology in play is
  Technology; fewer cards only with ``partial: true``;
* boosts name a player and a discarded card, with that card's attribute and bonus, lasting a
  ``turn`` for Technology and a ``phase`` for an Event card;
* ``visited`` names Alien Ruins, ``window``/``slots``/``targets`` are open exactly when their
  step is, ``produced``/``destroyed`` count per player, ``eliminated`` is exactly the races
  without fleets, and once the game is over ``victory`` and ``winners`` are what the rules give.

The first problem found is raised as one :class:`~pbem.game.PositionError` naming the field,
e.g. ``position: stacks.red.Z9: 'Z9' is not a space of this map (spaces look like A1..H8)``.
Values from the file are shown as short escaped excerpts.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from pbem.core.position_fields import (
    expect_choice, expect_flag, expect_int, expect_keys, expect_list, expect_mapping, expect_option_values,
    expect_player_names, expect_text, fail, show,
)
from pbem.game import Game
from pbem.rules.spaceswarm import victory
from pbem.rules.spaceswarm.attributes import current, hand_limit
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.events import STANDING_KEYS
from pbem.rules.spaceswarm.hexmap import HexMap
from pbem.rules.spaceswarm.mapgen import GENERATED, is_map_text, parse_map_text
from pbem.rules.spaceswarm.options import ORDERS, SLOT_ORDERS, Settings
from pbem.rules.spaceswarm.state import (
    ATTACK,
    BID,
    DEVELOP,
    DEVELOPMENT,
    DISCARD,
    FIGHT,
    MOVE,
    MOVEMENT,
    OVER,
    PRODUCE,
    PRODUCTION,
    REACT,
    RESEARCH,
    SLOT,
    UNTIL_PHASE,
    UNTIL_TURN,
    WINDOW_BID,
    WINDOW_COMBAT,
    SwarmState,
)
from pbem.rules.spaceswarm.terrain import ALIEN_RUINS, STAR_CLUSTER, SUPER_NOVA
from pbem.rules.spaceswarm.view import FORMAT, _read

REQUIRED_KEYS = ("format", "options", "map", "players", "phase", "step", "round", "order", "turn_index", "turns",
                 "stack_moves", "stacks", "cards", "deck", "hands", "tech", "discard")
OPTIONAL_KEYS = ("partial", "moved", "boosts", "visited", "window", "slots", "targets", "produced", "destroyed",
                 "eliminated", "victory", "winners")
PHASES = (DEVELOPMENT, PRODUCTION, MOVEMENT, ATTACK, RESEARCH, BID, OVER)
#: phase -> the decisions the game may wait for in it ("" once the game is over)
STEPS_OF_PHASE: dict[str, tuple[str, ...]] = {
    DEVELOPMENT: (DEVELOP, DISCARD), PRODUCTION: (PRODUCE,), MOVEMENT: (MOVE,), ATTACK: (FIGHT, REACT),
    RESEARCH: (DEVELOP,), BID: (REACT, SLOT), OVER: ("",)}
#: the phase a reaction window of each kind opens in
WINDOW_PHASE = {WINDOW_BID: BID, WINDOW_COMBAT: ATTACK}
VICTORIES = (victory.CONTROL, victory.DECK, victory.LAST_RACE)
#: fleets in one space: far more than a game makes, few enough to count one by one
MAX_FLEETS = 9999


class SwarmPositionCheck:
    """One check of one position for ``game`` (make a new one per position)."""

    partial: bool
    players: list[str]
    options: dict[str, str]
    hexmap: HexMap
    homes: dict[str, str]
    faces: dict[str, str]                 # card handle -> face name
    place_of: dict[str, str]              # card handle -> the field it lies in
    phase: str
    step: str
    alive: list[str]                      # players with fleets, in seat order
    active: str                           # whose turn it is ("" in the Round Bid and once over)

    def __init__(self, game: Game[Any], position: Mapping[str, Any]) -> None:
        self.game = game
        self.pos = position

    # --- the whole check, in reading order -----------------------------------------------
    def run(self) -> None:
        pos = expect_mapping(self.pos, "", "a mapping of the keys in docs/position-format.md")
        expect_keys(pos, "", REQUIRED_KEYS, OPTIONAL_KEYS)
        if pos["format"] != FORMAT:
            fail("format", f"{show(pos['format'])} is not {FORMAT}, the position format this pbem reads: use the "
                           "pbem version that wrote it, or write the position again as `pbem show --full` does")
        self.partial = expect_flag(pos.get("partial", False), "partial")
        self.players = self.player_names(pos["players"])
        self.options = self.option_values(pos["options"])
        self.hexmap = self.map_record(pos["map"])
        self.homes = self.player_records(pos["players"])
        self.hand_made_map()
        self.faces = self.card_faces(pos["cards"])
        self.place_of = {}
        self.piles(pos)
        self.phase = expect_choice(pos["phase"], "phase", PHASES, "a phase")
        self.step = self.step_of_phase(pos["step"])
        expect_int(pos["round"], "round", 1)
        expect_int(pos["turns"], "turns", 1)
        expect_int(pos["stack_moves"], "stack_moves", 0)
        stacks = self.stack_records(pos["stacks"])
        self.alive = [p for p in self.players if stacks[p]]
        self.eliminated(pos.get("eliminated"))
        self.active = self.turn_order(pos["order"], pos["turn_index"])
        self.boosts(pos.get("boosts"))
        self.moved(pos.get("moved"), stacks)
        self.visited(pos.get("visited"))
        self.window(pos.get("window"))
        self.slots(pos.get("slots"))
        self.targets(pos.get("targets"), stacks)
        for key in ("produced", "destroyed"):
            self.counters(pos.get(key), key)
        self.end_of_game(pos.get("victory"), pos.get("winners"))
        self.with_the_rules(_read(pos))

    # --- players and options -----------------------------------------------------------------
    def player_names(self, value: Any) -> list[str]:
        return expect_player_names(value, self.game, ("name", "home", "standing"))

    def option_values(self, value: Any) -> dict[str, str]:
        return expect_option_values(value, self.game, self.players)

    def player_records(self, records: list[dict[str, Any]]) -> dict[str, str]:
        """player -> home: a Star Cluster of the map, each player's own."""
        homes: dict[str, str] = {}
        for i, record in enumerate(records):
            field = f"players[{i}].home"
            home = self.space(record["home"], field)
            if self.hexmap.terrain[self.hexmap.index(home)] != STAR_CLUSTER:
                fail(field, f"{home} is {self.terrain_name(home)}; every home is a Star Cluster "
                            "(\"three Fleet counters on one Cluster space\")")
            if home in homes.values():
                fail(field, f"{home} is already the home of {next(p for p, h in homes.items() if h == home)}")
            homes[record["name"]] = home
            self.standing(record["standing"], f"players[{i}].standing")
        return homes

    def standing(self, value: Any, field: str) -> None:
        if value is None:
            fail(field, "is missing: a start position gives every player's standing orders "
                        "({} for none; `pbem show --full` writes them)")
        orders = expect_mapping(value, field)
        n = len(self.players)
        for key, order in orders.items():
            expect_choice(key, field, STANDING_KEYS, "a standing order")
            if key == "slot":
                if isinstance(order, list):
                    if not order or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= n
                                            for v in order):
                        fail(f"{field}.slot", f"a list of places must hold whole numbers 1-{n}, not {show(order)}")
                else:
                    expect_choice(order, f"{field}.slot", SLOT_ORDERS, "a slot order (or a list of places)")
            elif isinstance(order, list):
                self.card_names(order, f"{field}.{key}")
            else:
                expect_choice(order, f"{field}.{key}", ORDERS, "a standing order (or a list of cards)")

    def card_names(self, value: list[Any], field: str) -> None:
        """A standing order's list of cards: cards of this game, each once (they need not be held now)."""
        seen: set[str] = set()
        for card in value:
            if not isinstance(card, str) or card not in self.box_handles():
                fail(field, f"{show(card)} is not a card of this game (cards are C1..C{self.box_size()})")
            if card in seen:
                fail(field, f"{card} is listed twice")
            seen.add(card)

    # --- the map --------------------------------------------------------------------------------
    def map_record(self, value: Any) -> HexMap:
        record = expect_mapping(value, "map")
        expect_keys(record, "map", ("width", "height", "rows"))
        data = swarm_data()
        width = expect_int(record["width"], "map.width", data.min_side, data.max_columns)
        height = expect_int(record["height"], "map.height", data.min_side, data.max_rows)
        rows = expect_list(record["rows"], "map.rows")
        if len(rows) != height:
            fail("map.rows", f"has {len(rows)} rows; the map is {height} high")
        by_code = data.terrain_by_code()
        terrain: list[str] = []
        for r, row in enumerate(rows):
            field = f"map.rows[{r}]"
            codes = expect_text(row, field).split()
            if len(codes) != width:
                fail(field, f"has {len(codes)} terrain codes; the map is {width} wide (codes apart, e.g. 'C . . S')")
            for code in codes:
                if code not in by_code:
                    fail(field, f"{show(code)} is not a terrain code ({' '.join(by_code)})")
                terrain.append(by_code[code])
        size = self.options["size"]
        if self.options["map"] == GENERATED and size != "auto" and size != f"{width}x{height}":
            fail("map", f"is {width}x{height} but options.size is {size} (write size: auto, or the map's size)")
        return HexMap(width, height, tuple(terrain))

    def hand_made_map(self) -> None:
        """A hand-made map in the options is the map the position plays on, with its homes."""
        text = self.options["map"]
        if not is_map_text(text):
            return
        board = parse_map_text(text, len(self.players))   # checked by check_options
        if (board.hexmap.width, board.hexmap.height, board.hexmap.terrain) != \
                (self.hexmap.width, self.hexmap.height, self.hexmap.terrain):
            fail("options.map", "the hand-made map in the options is not this position's map")
        homes = [board.hexmap.label(c) for c in board.homes]
        if homes != [self.homes[p] for p in self.players]:
            fail("players", f"the homes are not the hand-made map's ({', '.join(homes)}, in seat order)")

    # --- cards -----------------------------------------------------------------------------------
    def box_size(self) -> int:
        return len(swarm_data().deck) * Settings.of(self.options).decks

    def box_handles(self) -> set[str]:
        return {f"C{i + 1}" for i in range(self.box_size())}

    def card_faces(self, value: Any) -> dict[str, str]:
        records = expect_mapping(value, "cards")
        data = swarm_data()
        decks = Settings.of(self.options).decks
        in_box = Counter(face.name for face in data.deck)
        count: Counter[str] = Counter()
        handles = self.box_handles()
        for h, name in records.items():
            field = f"cards.{h}"
            if h not in handles:
                fail(field, f"is not a card of this game (cards are C1..C{self.box_size()})")
            if name is None:
                fail(field, "is hidden (null): a start position gives every card's face "
                            "(`pbem show --full` writes them)")
            expect_choice(name, field, list(data.faces), "a card")
            count[name] += 1
            if count[name] > in_box[name] * decks:
                fail(field, f"the deck has {in_box[name] * decks} {name} card(s); this is one more")
        if not self.partial and len(records) != len(handles):
            missing = next(f"C{i + 1}" for i in range(len(handles)) if f"C{i + 1}" not in records)
            fail("cards", f"{missing} is missing: the game has {len(handles)} cards (C1..C{len(handles)}); "
                          "write partial: true for a position with cards missing")
        return dict(records)

    def piles(self, pos: Mapping[str, Any]) -> None:
        """Every card of ``cards`` lies in exactly one of deck, hands, tech and discard."""
        self.pile(pos["deck"], "deck")
        for key in ("hands", "tech"):
            record = self.per_player(pos[key], key)
            for player in self.players:
                self.pile(record[player], f"{key}.{player}")
        self.pile(pos["discard"], "discard")
        for h in sorted(self.faces, key=lambda c: int(c[1:])):
            if h not in self.place_of:
                fail(f"cards.{h}", "lies nowhere: every card is in the deck, a hand, a player's tech or the discard")
        data = swarm_data()
        for player in self.players:
            for h in pos["tech"][player]:
                if not data.faces[self.faces[h]].is_technology:
                    fail(f"tech.{player}", f"{h} is {self.faces[h]}, an Event card; only Technology stays in play")

    def pile(self, value: Any, field: str) -> None:
        for h in expect_list(value, field):
            if not isinstance(h, str) or h not in self.faces:
                fail(field, f"{show(h)} is not a card of this position (cards: C1..C{self.box_size()})")
            if h in self.place_of:
                fail(field, f"{h} is already in {self.place_of[h]}: each card lies in one place")
            self.place_of[h] = field

    def per_player(self, value: Any, field: str) -> dict[str, Any]:
        """A mapping with exactly one entry per player."""
        record = expect_mapping(value, field)
        for key in record:
            if key not in self.players:
                fail(f"{field}.{key}", f"is not a player (players: {', '.join(self.players)})")
        for player in self.players:
            if player not in record:
                fail(f"{field}.{player}", "is missing: give every player's (an empty one for none)")
        return record

    # --- phase, step and turn order --------------------------------------------------------------
    def step_of_phase(self, value: Any) -> str:
        if self.phase == RESEARCH and Settings.of(self.options).tech_phase != "research":
            fail("phase", "the game waits in the Research Phase only with tech_phase=research (the card is placed "
                          "before the draw); with tech_phase=development the draw ends the turn at once")
        step = expect_choice(value, "step", STEPS_OF_PHASE[self.phase],
                             f"a decision of the {self.phase} phase" if self.phase != OVER
                             else "a step once the game is over (write '')")
        if self.phase == DEVELOPMENT and step == DEVELOP and Settings.of(self.options).tech_phase == "research":
            fail("step", "with tech_phase=research Technology is placed in the Research Phase, not the "
                         "Development Phase")
        return step

    def stack_records(self, value: Any) -> dict[str, dict[str, int]]:
        record = self.per_player(value, "stacks")
        out: dict[str, dict[str, int]] = {}
        for player in self.players:
            field = f"stacks.{player}"
            stacks = expect_mapping(record[player], field)
            out[player] = {}
            for label, n in stacks.items():
                self.space(label, f"{field}.{label}")
                if self.hexmap.terrain[self.hexmap.index(label)] == SUPER_NOVA:
                    fail(f"{field}.{label}", f"{label} is a Super Nova: \"Stacks may not enter or move through "
                                             "this space\"")
                out[player][label] = expect_int(n, f"{field}.{label}", 1, MAX_FLEETS)
        return out

    def eliminated(self, value: Any) -> None:
        out = self.player_list(value if value is not None else [], "eliminated")
        for p in self.players:
            if (p in self.alive) == (p in out):
                fail("eliminated", f"{p} has fleets, so is in the game" if p in out else
                     f"{p} has no fleets left, so is out of the game: list {p} in eliminated")

    def turn_order(self, value: Any, index: Any) -> str:
        """The active player (empty in the Round Bid and once the game is over)."""
        order = self.player_list(value, "order")
        for p in self.alive:
            if p not in order:
                fail("order", f"{p} is in the game but not in the turn order")
        if not order:
            fail("order", "is empty: it lists this round's turn order")
        i = expect_int(index, "turn_index", 0, len(order) - 1)
        if self.phase in (BID, OVER):
            return ""
        if order[i] not in self.alive:
            fail("turn_index", f"it is {order[i]}'s turn, but {order[i]} has no fleets left")
        return order[i]

    def player_list(self, value: Any, field: str) -> list[str]:
        seen: list[str] = []
        for p in expect_list(value, field):
            expect_choice(p, field, self.players, "a player")
            if p in seen:
                fail(field, f"{p} is listed twice")
            seen.append(p)
        return seen

    # --- the records of a turn --------------------------------------------------------------------
    def boosts(self, value: Any) -> None:
        data = swarm_data()
        used: set[str] = set()
        for i, record in enumerate(expect_list(value if value is not None else [], "boosts")):
            field = f"boosts[{i}]"
            record = expect_mapping(record, field)
            expect_keys(record, field, ("player", "attribute", "amount", "card", "until"))
            expect_choice(record["player"], f"{field}.player", self.players, "a player")
            card = record["card"]
            if not isinstance(card, str) or self.place_of.get(card) != "discard":
                fail(f"{field}.card", f"{show(card)} is not a card on the discard pile (a card played as an event "
                                      "is discarded)")
            if card in used:
                fail(f"{field}.card", f"{card} gives a bonus twice")
            used.add(card)
            face = data.faces[self.faces[card]]
            expect_choice(record["attribute"], f"{field}.attribute", (face.attribute,), f"the attribute of {card}")
            expect_int(record["amount"], f"{field}.amount", face.bonus, face.bonus)
            until = UNTIL_TURN if face.is_technology else UNTIL_PHASE
            expect_choice(record["until"], f"{field}.until", (until,),
                          f"how long {card} ({'Technology' if face.is_technology else 'Event'}) lasts")

    def moved(self, value: Any, stacks: dict[str, dict[str, int]]) -> None:
        record = expect_mapping(value if value is not None else {}, "moved")
        for player, spaces in record.items():
            field = f"moved.{player}"
            expect_choice(player, "moved", self.players, "a player")
            spaces = expect_mapping(spaces, field)
            if spaces and (self.phase != MOVEMENT or player != self.active):
                fail(field, "only the active race's fleets have moved, and only in its Move Phase")
            for label, used in spaces.items():
                self.space(label, f"{field}.{label}")
                have = stacks[player].get(label, 0)
                used = expect_list(used, f"{field}.{label}")
                if len(used) > have:
                    fail(f"{field}.{label}", f"{len(used)} fleets moved, but {player} has {have} there")
                for n in used:
                    expect_int(n, f"{field}.{label}", 1)

    def visited(self, value: Any) -> None:
        seen: set[str] = set()
        for label in expect_list(value if value is not None else [], "visited"):
            self.space(label, "visited")
            if self.hexmap.terrain[self.hexmap.index(label)] != ALIEN_RUINS:
                fail("visited", f"{label} is {self.terrain_name(label)}, not Alien Ruins")
            if label in seen:
                fail("visited", f"{label} is listed twice")
            seen.add(label)

    def window(self, value: Any) -> None:
        if (self.step == REACT) != (value is not None):
            if value is None:
                fail("window", f"is missing: step {REACT} waits on a reaction window")
            fail("window", f"must be null unless the step is {REACT} (it is {self.step or 'none'})")
        if value is None:
            return
        record = expect_mapping(value, "window")
        expect_keys(record, "window", ("kind", "queue"))
        kind = expect_choice(record["kind"], "window.kind", [k for k, ph in WINDOW_PHASE.items() if ph == self.phase],
                             f"a reaction window of the {self.phase} phase")
        queue = self.player_list(record["queue"], "window.queue")
        if not queue:
            fail("window.queue", "is empty: an open window asks at least one player")
        for p in queue:
            if p not in self.alive:
                fail("window.queue", f"{p} has no fleets left and is not asked")
            if kind == WINDOW_COMBAT and p == self.active:
                fail("window.queue", f"{p} is the active race: it fights with {{attack: all}}, not in the window")

    def slots(self, value: Any) -> None:
        if (self.phase == BID) != (value is not None):
            if value is None:
                fail("slots", "is missing: the Round Bid fills the next round's turn order (a list, null for a "
                              "free place)")
            fail("slots", f"must be null outside the Round Bid (the phase is {self.phase})")
        if value is None:
            return
        slots = expect_list(value, "slots")
        if len(slots) != len(self.alive):
            fail("slots", f"has {len(slots)} places; the turn order has one per race in the game ({len(self.alive)})")
        taken: list[str] = []
        for s in slots:
            if s is None:
                continue
            expect_choice(s, "slots", self.alive, "a race in the game (or null for a free place)")
            if s in taken:
                fail("slots", f"{s} has two places")
            taken.append(s)
        if self.step == SLOT and len(slots) - len(taken) < 2:
            fail("step", "slot asks for a place, but the last free place is taken without asking")

    def targets(self, value: Any, stacks: dict[str, dict[str, int]]) -> None:
        record = expect_mapping(value if value is not None else {}, "targets")
        if record and not (self.phase == ATTACK and self.step == REACT):
            fail("targets", "are kept only while the battles wait on reactions (attack phase, step react)")
        for label, chosen in record.items():
            field = f"targets.{label}"
            self.space(label, field)
            chosen = expect_mapping(chosen, field)
            for chooser, target in chosen.items():
                expect_choice(chooser, field, self.players, "a player")
                expect_choice(target, f"{field}.{chooser}", self.players, "a player")
                for p in (chooser, target):
                    if not stacks[p].get(label):
                        fail(f"{field}.{chooser}", f"{p} has no stack at {label}")
                if chooser == target:
                    fail(f"{field}.{chooser}", "a race does not strike itself")

    def counters(self, value: Any, field: str) -> None:
        record = expect_mapping(value if value is not None else {}, field)
        for player, n in record.items():
            expect_choice(player, field, self.players, "a player")
            expect_int(n, f"{field}.{player}", 0)

    def end_of_game(self, how: Any, winners: Any) -> None:
        how = how if how is not None else ""
        winners = winners if winners is not None else []
        if self.phase != OVER:
            if how != "":
                fail("victory", f"must be '' while the game goes on, not {show(how)}")
            if winners != []:
                fail("winners", f"must be empty while the game goes on, not {show(winners)}")
            return
        expect_choice(how, "victory", VICTORIES, "a way to win")
        if not self.player_list(winners, "winners"):
            fail("winners", "is empty: a game that is over has winners")

    # --- what needs the rules: attributes and the victory conditions -----------------------------
    def with_the_rules(self, state: SwarmState) -> None:
        active = self.active
        if self.step == DISCARD and len(state.hands[active]) <= hand_limit(state, active):
            fail("step", f"discard: {active} holds {len(state.hands[active])} card(s), within the hand limit of "
                         f"{hand_limit(state, active)} (2 + Strategic)")
        if self.phase == MOVEMENT:
            strategy = current(state, active, "strategy")
            if state.stack_moves > strategy:
                fail("stack_moves", f"{state.stack_moves} stacks moved, but {active}'s Strategic level is {strategy}")
            move = current(state, active, "movement")
            for cell, used in state.moved[active].items():
                if max(used) > move:
                    fail(f"moved.{active}.{state.hexmap.label(cell)}",
                         f"a fleet moved {max(used)} spaces, more than {active}'s Movement of {move}")
        if self.phase == OVER:
            self.winners_by_the_rules(state)

    def winners_by_the_rules(self, state: SwarmState) -> None:
        how = state.victory
        if how == victory.CONTROL:
            expected = [c] if (c := victory.controls_every_star_cluster(state)) else []
            rule = "the race alone on every Star Cluster"
        elif how == victory.LAST_RACE:
            expected = victory.last_race(state) or []
            rule = "the one race left (or everybody, when none is)"
        else:
            if state.deck:
                fail("victory", f"deck, but {len(state.deck)} card(s) are left in the deck")
            expected = victory.most_spaces(state)
            rule = "the races occupying the most spaces"
        if not expected:
            fail("victory", f"{how}, but no race wins that way here ({rule})")
        if sorted(state.winners) != sorted(expected):
            fail("winners", f"{', '.join(state.winners)}; a {how} victory goes to {rule}: {', '.join(expected)}")

    # --- small readers ------------------------------------------------------------------------
    def space(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or value not in self.hexmap.labels:
            fail(field, f"{show(value)} is not a space of this map (spaces look like A1..{self.hexmap.labels[-1]})")
        return value

    def terrain_name(self, label: str) -> str:
        return swarm_data().terrains[self.hexmap.terrain[self.hexmap.index(label)]].name


def check_position(game: Game[Any], position: Mapping[str, Any]) -> None:
    """Raise :class:`~pbem.game.PositionError` (one line naming the field) unless the game can start
    from ``position``."""
    SwarmPositionCheck(game, position).run()
