"""Checking a Survive position before a game starts from it: positions are validated like moves.

:class:`SurvivePositionCheck` reads a position file the way
:meth:`~pbem.rules.survive.view.ViewRules.read_position` does, but first makes sure
that every field is there, has the right type and an allowed value, and that the
position is one the rules can play on:

* every option value is one its spec allows, and the options combine (``check_options``);
* every piece is a piece of this game with these players and options (its handle and
  kind come from the box: ``new_state`` with a fixed, meaningless Rng), in a place its
  kind may be (an explorer "on land" on an island tile, a ship or a creature on a sea
  space, a saved explorer on a safe isle, a passenger in a ship at sea);
* whose turn it is, which step is pending (and the record that step needs: a boat
  choice, a defense window, ...), the die face, the history counters;
* the counts: never more than the box holds (per colour and value, per terrain and
  back, per kind); fewer only with ``partial: true`` (a teaching position);
* every reference (a passenger's ship, a swimmer in ``turn.swum``, a queue of players,
  a dolphin's swimmer) names something that exists.

The first problem found is raised as one :class:`~pbem.game.PositionError` naming the
field, e.g. ``position: boats.B3.at: 'ocean' is not a space on the board (spaces look
like G6)``.  Values from the file are shown as short escaped excerpts.

The tables at the top say where each kind of piece may be; a game (Atlantis with its
mini-expansions, the 1986 edition, Space Attack) subclasses and changes the tables or one
check, and names its own records (:attr:`SurvivePositionCheck.VARIANT_KEYS`,
:meth:`SurvivePositionCheck.variant_records`).
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence

from pbem.core.position_fields import (# noqa: F401  (re-exported for the games' checks)
    expect_choice, expect_flag, expect_int, expect_keys, expect_list, expect_mapping, expect_null,
    expect_option_values, expect_player_names, expect_text, fail, show, type_name,
)
from pbem.core.rng import Rng
from pbem.rules.survive.board import Board
from pbem.rules.survive.reactions import ORDERS
from pbem.rules.survive.rules import SurviveRules
from pbem.rules.survive.state import (
    BOAT,
    HAND,
    ISLAND,
    ISLE,
    LAND,
    LOST,
    OVER,
    PLAY,
    RESERVE,
    SEA,
    SETUP_BOAT,
    SETUP_PLACE,
    STEP_BOARDERS,
    STEP_CREATURE,
    STEP_DEFENSE,
    STEP_MOVE,
    STEP_REMOVE,
    STEP_TILE,
    SUPPLY,
    USED,
    State,
    sort_handles,
)

if TYPE_CHECKING:
    from pbem.rules.survive.game import SurviveGame

#: the core's decision kinds of a turn in the order error lines list them
STEP_ORDER = (STEP_TILE, STEP_MOVE, STEP_REMOVE, STEP_BOARDERS, STEP_CREATURE, STEP_DEFENSE)
#: the key of the Rng that builds "the box" (the pieces of a game); nothing it draws is used
BOX_KEY = b"pbem position check: the box"
PHASES = (SETUP_PLACE, SETUP_BOAT, PLAY, OVER)
SETUP_PHASES = (SETUP_PLACE, SETUP_BOAT)
HISTORY_KEYS = ("placed", "removed", "rolls", "turns")


def handle_range(handles: Sequence[str]) -> str:
    ordered = sort_handles(handles)
    return f"{ordered[0]}..{ordered[-1]}" if len(ordered) > 1 else (ordered[0] if ordered else "none")


class SurvivePositionCheck:
    """One check of one position for ``game`` (make a new one per position)."""

    #: where a piece of each kind may be (``where``); ``at`` is checked by the place's own rule
    EXPLORER_PLACES: ClassVar[tuple[str, ...]] = (RESERVE, LAND, BOAT, SEA, ISLE, LOST)
    TILE_PLACES: ClassVar[tuple[str, ...]] = (ISLAND, HAND, USED)
    BOAT_PLACES: ClassVar[tuple[str, ...]] = (RESERVE, SUPPLY, SEA, LOST)
    CREATURE_PLACES: ClassVar[tuple[str, ...]] = (SUPPLY, SEA, LOST)
    #: the tile kinds a hand may hold (tiles.yaml ``kind``, as the options make it)
    HAND_KINDS: ClassVar[tuple[str, ...]] = ("hand", "defense")

    #: turn step -> the position record it waits on (the step is open exactly when the record is set)
    STEP_RECORDS: ClassVar[Mapping[str, str]] = {STEP_BOARDERS: "boarding", STEP_DEFENSE: "reaction"}
    #: top-level keys a layer adds -> the layer (the key belongs to positions it plays)
    VARIANT_KEYS: ClassVar[Mapping[str, type[Any]]] = {}
    #: the decision kinds in the order error lines list them (a game adds its own)
    STEP_ORDER: ClassVar[tuple[str, ...]] = STEP_ORDER
    REQUIRED_KEYS: ClassVar[tuple[str, ...]] = ("options", "players", "phase", "turn", "explorers", "tiles",
                                                "boats", "creatures")
    OPTIONAL_KEYS: ClassVar[tuple[str, ...]] = ("format", "partial", "boarding", "reaction", "history")

    # what the check has read so far (set by :meth:`run`, in this order)
    partial: bool
    players: list[str]                    # names in seat order
    options: dict[str, str]               # full options
    rules: SurviveRules[Any]              # the rules these players and options play
    box: State                            # every piece these players and options play with
    phase: str
    colours: dict[str, str]               # colour -> its player
    turn: dict[str, Any]
    tiles: dict[str, dict[str, Any]]
    land: set[str]                        # spaces with an island tile
    boats: dict[str, dict[str, Any]]
    creatures: dict[str, dict[str, Any]]
    explorers: dict[str, dict[str, Any]]

    def __init__(self, game: SurviveGame[Any], position: Mapping[str, Any]) -> None:
        self.game = game
        self.pos = position
        self.use_board(game.data.board)

    def use_board(self, board: Board) -> None:
        """The board the labels are checked against (a game with several boards calls it again
        once the options are known)."""
        self.labels = board.labels
        self.index = board.index
        self.isles = {board.labels[c] for c in board.isles}
        self.slots = {board.labels[c] for c in board.island_slots}

    # --- the whole check, in reading order ---------------------------------------------
    def run(self) -> None:
        pos = expect_mapping(self.pos, "", "a mapping of the keys in docs/position-format.md")
        self.top_level(pos)
        self.partial = expect_flag(pos.get("partial", False), "partial")
        self.players = self.player_names(pos["players"])
        self.options = self.option_values(pos["options"])
        self.rules = self.game.ruleset(self.options, len(self.players))
        #: the game's words (:attr:`pbem.rules.survive.base.SurviveBase.vocabulary`)
        self.word = self.rules.word
        self.use_board(self.rules.board)
        self.box = self.rules.new_state(self.players, self.options, Rng(BOX_KEY, "box"))
        self.variant_keys(pos)
        self.phase = expect_choice(pos["phase"], "phase", PHASES, "a phase")
        self.colours = self.player_records(pos["players"])
        self.turn = expect_mapping(pos["turn"], "turn")
        self.tiles = self.tile_records(pos["tiles"])
        self.land = {t["at"] for t in self.tiles.values() if t["where"] == ISLAND}
        self.boats = self.boat_records(pos["boats"])
        self.creatures = self.creature_records(pos["creatures"])
        self.explorers = self.explorer_records(pos["explorers"])
        self.passengers()
        self.turn_record(self.turn)
        self.step_records(pos)
        self.history(pos.get("history"))
        self.end_of_game()

    # --- the file's shape --------------------------------------------------------------
    def top_level(self, pos: Mapping[str, Any]) -> None:
        expect_keys(pos, "", self.REQUIRED_KEYS, (*self.OPTIONAL_KEYS, *self.VARIANT_KEYS))
        expected = self.game.base.position_format
        if pos.get("format", expected) != expected:
            fail("format", f"{show(pos.get('format'))} is not {expected}, the position format this pbem reads: use "
                           "the pbem version that wrote it, or write the position again as `pbem show --full` does")

    def variant_keys(self, pos: Mapping[str, Any]) -> None:
        for key, layer in self.VARIANT_KEYS.items():
            if key in pos and not isinstance(self.rules, layer):
                fail(key, "belongs to a variant that these options do not play")

    # --- options and players ---------------------------------------------------------------
    def player_names(self, value: Any) -> list[str]:
        return expect_player_names(value, self.game, ("name", "colours", "standing"))

    def option_values(self, value: Any) -> dict[str, str]:
        return expect_option_values(value, self.game, self.players)

    def player_records(self, records: list[dict[str, Any]]) -> dict[str, str]:
        """colour -> its player; every player has as many colours as the options give."""
        n = len(self.players)
        in_box = list(self.rules.colour_prefixes(n))
        per_player = self.rules.colours_per_player(n, self.options)
        owner: dict[str, str] = {}
        for i, record in enumerate(records):
            field = f"players[{i}].colours"
            colours = expect_list(record["colours"], field)
            if len(colours) != per_player:
                fail(field, f"{record['name']} plays {per_player} colour{'s' if per_player > 1 else ''} "
                            f"with these options, not {len(colours)}")
            for colour in colours:
                expect_choice(colour, field, in_box, "a colour in the box")
                if colour in owner:
                    fail(field, f"{colour} is already {owner[colour]}'s colour")
                owner[colour] = record["name"]
            self.standing(record["standing"], f"players[{i}].standing")
        return owner

    def standing(self, value: Any, field: str) -> None:
        if value is None:
            fail(field, "is missing: a start position gives every player's standing orders "
                        "({} for none; `pbem show --full` writes them)")
        orders = expect_mapping(value, field)
        for key, order in orders.items():
            expect_choice(key, field, self.rules.standing_keys(), "a standing order")
            expect_choice(order, f"{field}.{key}", ORDERS, "a standing order")

    # --- tiles -------------------------------------------------------------------------------
    def tile_records(self, value: Any) -> dict[str, dict[str, Any]]:
        records = expect_mapping(value, "tiles")
        handles = list(self.box.tiles)
        backs = list(self.rules.tile_backs)
        box_count = Counter((t, b) for b, spec in self.rules.tile_backs.items() for t in self.rules.terrains
                            for _ in range(spec[t]))
        seen_at: dict[str, str] = {}
        count: Counter[tuple[str, str]] = Counter()
        for h, record in records.items():
            field = f"tiles.{h}"
            if h not in self.box.tiles:
                fail(field, f"is not a tile of this game (tiles are {handle_range(handles)})")
            record = expect_mapping(record, field)
            expect_keys(record, field, ("at", "terrain", "where", "back"), ("holder", "obtained"))
            at = self.space(record["at"], f"{field}.at")
            if at not in self.slots:
                fail(f"{field}.at", f"{at} is not {self.word('an island')} slot (tiles stand on the {self.word('island')}'s "
                                   f"{len(self.slots)} slots)")
            if at in seen_at:
                fail(f"{field}.at", f"{at} is already tile {seen_at[at]}'s slot")
            seen_at[at] = h
            terrain = expect_choice(record["terrain"], f"{field}.terrain", self.rules.terrains, "a terrain")
            if record["back"] is None:
                fail(f"{field}.back", "is missing: a start position gives every tile's back "
                                      "(`pbem show --full` writes them)")
            back = expect_choice(record["back"], f"{field}.back", backs, "a tile back")
            count[(terrain, back)] += 1
            if count[(terrain, back)] > box_count[(terrain, back)]:
                fail(f"{field}.back", f"the box has {box_count[(terrain, back)]} {terrain} tile(s) with back "
                                      f"{back}; this is one more")
            where = expect_choice(record["where"], f"{field}.where", self.TILE_PLACES, "a place for a tile")
            holder, obtained = record.get("holder"), record.get("obtained")
            if where == HAND:
                self.player(holder, f"{field}.holder")
                expect_int(obtained, f"{field}.obtained", 0)
                kind = self.rules.tile_kind(self.box, back)
                if kind not in self.HAND_KINDS:
                    fail(f"{field}.where", f"a {back} tile is played at once ({kind}); it is never held in a hand")
            else:
                expect_null(holder, f"{field}.holder", f"for a tile that is {where} (only a hand tile has a holder)")
                if where == USED and obtained is not None:      # a played tile remembers when it was taken
                    expect_int(obtained, f"{field}.obtained", 0)
                else:
                    expect_null(obtained, f"{field}.obtained", f"for a tile that is {where}")
        if not self.partial and len(records) != len(handles):
            fail("tiles", f"has {len(records)} of the {len(handles)} tiles; write partial: true for a "
                          "position with pieces missing")
        return records

    # --- ships and creatures -------------------------------------------------------------------
    def boat_records(self, value: Any) -> dict[str, dict[str, Any]]:
        records = expect_mapping(value, "boats")
        handles = list(self.box.boats)
        at_sea: dict[str, str] = {}
        for h, record in records.items():
            field = f"boats.{h}"
            if h not in self.box.boats:
                fail(field, f"is not a ship of this game (ships are {handle_range(handles)})")
            record = expect_mapping(record, field)
            expect_keys(record, field, ("where", "at"), ("owner",))
            where = expect_choice(record["where"], f"{field}.where", self.BOAT_PLACES, "a place for a ship")
            owner = record.get("owner")
            if where == SEA:
                at = self.sea_space(record["at"], f"{field}.at")
                if at in at_sea:
                    fail(f"{field}.at", f"{at} already holds ship {at_sea[at]}: one ship per {self.word('sea space')}")
                at_sea[at] = h
            else:
                expect_null(record["at"], f"{field}.at", f"for a ship that is {where}")
            if where == RESERVE:
                self.player(owner, f"{field}.owner")
                if self.phase not in SETUP_PHASES:
                    fail(f"{field}.where", f"ships wait in a player's reserve only during setup (phase is {self.phase})")
            else:
                expect_null(owner, f"{field}.owner", "(only a ship in a player's reserve has an owner)")
        self.count_check("boats", records, handles, "ships")
        return records

    def creature_records(self, value: Any) -> dict[str, dict[str, Any]]:
        records = expect_mapping(value, "creatures")
        box = self.box.creatures
        for h, record in records.items():
            field = f"creatures.{h}"
            if h not in box:
                fail(field, f"is not a creature of this game with these options ({self.creature_list()})")
            record = expect_mapping(record, field)
            expect_keys(record, field, ("kind", "where", "at"))
            expect_choice(record["kind"], f"{field}.kind", (box[h].kind,), f"the kind of {h}")
            where = expect_choice(record["where"], f"{field}.where", self.CREATURE_PLACES, "a place for a creature")
            if where == SEA:
                self.sea_space(record["at"], f"{field}.at")
            else:
                expect_null(record["at"], f"{field}.at", f"for a creature that is {where}")
        for kind in sorted({c.kind for c in box.values()}):
            mine = [h for h, c in box.items() if c.kind == kind]
            self.count_check("creatures", {h: r for h, r in records.items() if h in mine}, mine, kind + "s")
        return records

    def creature_list(self) -> str:
        kinds: dict[str, list[str]] = {}
        for h, c in self.box.creatures.items():
            kinds.setdefault(c.kind, []).append(h)
        return "; ".join(f"{kind} {handle_range(hs)}" for kind, hs in kinds.items()) or "none"

    # --- explorers ---------------------------------------------------------------------------
    def explorer_records(self, value: Any) -> dict[str, dict[str, Any]]:
        records = expect_mapping(value, "explorers")
        values = self.rules.explorer_values(len(self.players), self.options)
        prefixes = self.rules.colour_prefixes(len(self.players))
        colour_of = {f"{prefix}{i + 1}": colour for colour, prefix in prefixes.items() for i in range(len(values))}
        box_values = Counter(values)
        counted: dict[str, Counter[int]] = {c: Counter() for c in self.colours}
        for h, record in records.items():
            field = f"explorers.{h}"
            colour = colour_of.get(h)
            if colour is None:
                fail(field, f"is not {self.word('an explorer')} of this game (each colour's {self.word('explorers')} are "
                            f"{', '.join(handle_range([p + str(i + 1) for i in range(len(values))]) for p in prefixes.values())})")
            if colour not in self.colours:
                fail(field, f"{colour} is nobody's colour in this position")
            record = expect_mapping(record, field)
            expect_keys(record, field, ("colour", "where", "at", "value"))
            expect_choice(record["colour"], f"{field}.colour", (colour,), f"the colour of {h}")
            if record["value"] is None:
                fail(f"{field}.value", f"is missing: a start position gives every {self.word('explorer')}'s value "
                                       "(`pbem show --full` writes them)")
            value_ = expect_int(record["value"], f"{field}.value", min(values), max(values))
            counted[colour][value_] += 1
            if counted[colour][value_] > box_values[value_]:
                fail(f"{field}.value", f"{colour} has {box_values[value_]} {self.word('explorer')}(s) of value {value_} "
                                       "in the box; this is one more")
            where = expect_choice(record["where"], f"{field}.where", self.EXPLORER_PLACES,
                                  f"a place for {self.word('an explorer')}")
            self.explorer_place(h, where, record["at"], f"{field}.at")
        for colour in sorted(self.colours):
            mine = [h for h, c in colour_of.items() if c == colour]
            self.count_check("explorers", {h: r for h, r in records.items() if h in mine}, mine,
                             f"{colour} explorers")
        return records

    def explorer_place(self, handle: str, where: str, at: Any, field: str) -> None:
        """Where an explorer may be: the rule of its ``where``."""
        if where == LAND:
            label = self.space(at, field)
            if label not in self.land:
                fail(field, f"{label} has no {self.word('island')} tile: {self.word('an explorer')} on {self.word('land')} "
                            f"stands on {self.word('a terrain tile')}")
        elif where == SEA:
            self.sea_space(at, field)
        elif where == ISLE:
            label = self.space(at, field)
            if label not in self.isles:
                fail(field, f"{label} is not {self.word('a safe isle')} ({', '.join(sorted(self.isles))})")
        elif where == BOAT:
            boat = self.boats.get(at) if isinstance(at, str) else None
            if boat is None:
                fail(field, f"{show(at)} is not a ship in this position (a passenger's at: is its ship, e.g. B3)")
            if boat["where"] != SEA:
                fail(field, f"ship {at} is not at sea ({boat['where']}), so nobody can be aboard")
        else:
            expect_null(at, field, f"for {self.word('an explorer')} that is {where}")
        if where == RESERVE and self.phase != SETUP_PLACE:
            fail(field.rsplit(".", 1)[0] + ".where", f"{self.word('explorers')} wait in reserve only while they are placed "
                                                     f"(phase {SETUP_PLACE}, not {self.phase})")

    def passengers(self) -> None:
        aboard = Counter(e["at"] for e in self.explorers.values() if e["where"] == BOAT)
        for boat, n in sorted(aboard.items()):
            room = self.rules.capacity(self.box, boat)
            if n > room:
                fail(f"boats.{boat}", f"carries {n} {self.word('explorers')}; a ship carries at most {room}")

    # --- the turn ----------------------------------------------------------------------------
    def turn_record(self, turn: dict[str, Any]) -> None:
        expect_keys(turn, "turn", ("number", "player", "step"), ("moves", "swum", "tile_played", "die"))
        expect_int(turn["number"], "turn.number", 0)
        self.player(turn["player"], "turn.player")
        step = self.step(turn["step"])
        expect_int(turn.get("moves", 0), "turn.moves", 0, self.rules.movement_points(self.box))
        self.handles(turn.get("swum") or [], "turn.swum", self.explorers, "an explorer")
        expect_flag(turn.get("tile_played", False), "turn.tile_played")
        self.die(step, turn.get("die"))
        for h, tile in self.tiles.items():
            if tile["where"] == HAND and tile["obtained"] > turn["number"]:
                fail(f"tiles.{h}.obtained", f"turn {tile['obtained']} is after this turn ({turn['number']})")

    def step(self, value: Any) -> str:
        if self.phase in SETUP_PHASES:
            return expect_choice(value, "turn.step", (self.phase,), f"the step of phase {self.phase}")
        if self.phase == OVER:
            return expect_choice(value, "turn.step", ("",), "a step once the game is over (write '')")
        return expect_choice(value, "turn.step", self.play_steps(), "a step of this game with these options")

    def play_steps(self) -> list[str]:
        steps = [s for s in self.rules.deciders if s not in SETUP_PHASES]
        order = self.STEP_ORDER
        return sorted(steps, key=lambda s: order.index(s) if s in order else len(order))

    def die(self, step: str, value: Any) -> None:
        faces = self.die_faces(step)
        if value is None:
            if step in self.steps_after_the_roll():
                fail("turn.die", f"step {step} comes after the roll: give the face ({', '.join(faces)})")
            return
        expect_choice(value, "turn.die", faces, "a face of the die")

    def steps_after_the_roll(self) -> tuple[str, ...]:
        return (STEP_CREATURE,)

    def die_faces(self, step: str) -> list[str]:
        """The faces ``turn.die`` may show (the red die, or the two dive dice with dolphins)."""
        return self.rules.die_faces_shown()

    # --- what a step waits on ------------------------------------------------------------------
    def step_records(self, pos: Mapping[str, Any]) -> None:
        step = self.turn["step"]
        for record_step, key in self.STEP_RECORDS.items():
            if (step == record_step) != (pos.get(key) is not None):
                if step == record_step:
                    fail(key, f"is missing: step {step} waits on it")
                fail(key, f"must be null unless the step is {record_step} (it is {step or 'none'})")
        if pos.get("boarding") is not None:
            self.boarding(expect_mapping(pos["boarding"], "boarding"))
        if pos.get("reaction") is not None:
            self.reaction(expect_mapping(pos["reaction"], "reaction"))
        self.variant_records(pos, step)

    def boarding(self, record: dict[str, Any]) -> None:
        expect_keys(record, "boarding", ("tile", "boat", "at"))
        self.handles([record["tile"]], "boarding.tile", self.tiles, "a tile")
        at = self.sea_space(record["at"], "boarding.at")
        boat = self.boats.get(record["boat"]) if isinstance(record["boat"], str) else None
        if boat is None or boat["where"] != SEA or boat["at"] != at:
            fail("boarding.boat", f"{show(record['boat'])} is not a ship at sea at {at}")

    def reaction(self, record: dict[str, Any]) -> None:
        expect_keys(record, "reaction", ("kind", "creature", "at", "queue"))
        defenses = [b for b in self.rules.tile_backs if self.rules.tile_kind(self.box, b) == "defense"]
        expect_choice(record["kind"], "reaction.kind", defenses, "a defense tile")
        at = self.sea_space(record["at"], "reaction.at")
        creature = self.creatures.get(record["creature"]) if isinstance(record["creature"], str) else None
        if creature is None or creature["where"] != SEA or creature["at"] != at:
            fail("reaction.creature", f"{show(record['creature'])} is not a creature at sea at {at}")
        queue = self.handles(record["queue"], "reaction.queue", self.players, "a player")
        if not queue:
            fail("reaction.queue", "is empty: a defense window asks at least one player")

    def variant_records(self, pos: Mapping[str, Any], step: str) -> None:
        """The records a game's layers add (present only when their option is on).  Default: none."""

    # --- the rest ----------------------------------------------------------------------------
    def history(self, value: Any) -> None:
        record = expect_mapping(value if value is not None else {}, "history")
        for key, n in record.items():
            expect_choice(key, "history", HISTORY_KEYS, "a history counter")
            expect_int(n, f"history.{key}", 0)

    def end_of_game(self) -> None:
        """Once the game is over every explorer is saved or lost."""
        if self.phase != OVER:
            return
        for h, e in self.explorers.items():
            if e["where"] not in (ISLE, LOST):
                fail(f"explorers.{h}.where", f"{e['where']}, but the game is over: every {self.word('explorer')} is saved (isle) "
                                             "or lost")

    # --- small readers -----------------------------------------------------------------------
    def space(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or value not in self.index:
            fail(field, f"{show(value)} is not a space on the board (spaces look like G6)")
        return value

    def sea_space(self, value: Any, field: str) -> str:
        label = self.space(value, field)
        if label in self.isles:
            fail(field, f"{label} is {self.word('a safe isle')}, not {self.word('a sea space')}")
        if label in self.land:
            fail(field, f"{label} has {self.word('an island')} tile: it is {self.word('land')}, not {self.word('a sea space')}")
        return label

    def player(self, value: Any, field: str) -> str:
        return expect_choice(value, field, self.players, "a player")

    def handles(self, value: Any, field: str, known: Mapping[str, Any] | Sequence[str], what: str) -> list[str]:
        items = expect_list(value, field)
        seen: list[str] = []
        for item in items:
            if not isinstance(item, str) or item not in known:
                fail(field, f"{show(item)} is not {what} in this position")
            if item in seen:
                fail(field, f"{item} is listed twice")
            seen.append(item)
        return seen

    def count_check(self, section: str, records: Mapping[str, Any], handles: Sequence[str], what: str) -> None:
        """Fewer pieces than the box holds only in a ``partial: true`` position."""
        if self.partial or len(records) == len(handles):
            return
        missing = sort_handles(h for h in handles if h not in records)
        fail(section, f"{missing[0]} is missing: the game has {len(handles)} {what} ({handle_range(handles)}); "
                      "write partial: true for a position with pieces missing")
