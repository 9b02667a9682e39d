"""Space Swarm positions through `pbem new --game space-swarm --position FILE`: checked like moves.

Every position bot games write (as `pbem show --full` writes it) passes the check; a bad one is
refused with one line naming the field, a non-zero exit and no game folder; `--option` with a
position applies or is refused in one line; and random damage to a valid position (wrong types
and values anywhere) gives a PositionError or a position the bots then play to the end, never a
traceback.
"""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from click.testing import CliRunner
from swarm_helpers import GAME, Pos

from pbem.base import yamlio
from pbem.base.yamlio import POSITION_LIMITS, load_strict
from pbem.cli.group import main
from pbem.core.bots import CHOOSERS
from pbem.core.rng import Rng
from pbem.game import PositionError
from pbem.pipeline.audit import audit
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.mapgen import map_text
from pbem.store.gamedir import GameDir
from pbem.store.table import Table

NAMES = ["red", "blue", "green", "yellow", "purple", "orange"]


def play_until(n: int, options: dict[str, str], seed: bytes, until: Callable[[dict[str, Any]], bool],
               limit: int = 5000) -> dict[str, Any]:
    """The first position of a seeded bot game where ``until`` holds."""
    state = GAME.setup(NAMES[:n], GAME.full_options(options), Rng(seed, "setup"))
    rng = Rng(seed, "bot")
    for i in range(limit):
        pos = GAME.to_position(state)
        if until(pos):
            return pos
        assert GAME.result(state) is None, "the game ended before the wanted position"
        player = GAME.pending(state)[0].player
        GAME.apply(state, player, CHOOSERS["greedy" if i % 3 else "random"](GAME, state, player, rng),
                   Rng(seed, f"a{i}"))
    raise AssertionError("the bots never reached the wanted position")


def play_to_the_end(position: dict[str, Any], seed: bytes = b"to-the-end", limit: int = 6000) -> None:
    """Bots play a (checked) position until the game is over."""
    state = GAME.from_position(position)
    rng = Rng(seed, "bot")
    for i in range(limit):
        if GAME.result(state) is not None:
            return
        player = GAME.pending(state)[0].player
        GAME.apply(state, player, CHOOSERS["greedy" if i % 2 else "random"](GAME, state, player, rng),
                   Rng(seed, f"a{i}"))
    raise AssertionError("the game did not end")


def mid_move(pos: dict[str, Any]) -> bool:
    """Moving, with fleets that have moved, Technology in play, cards in hand and on the discard pile."""
    active = pos["order"][pos["turn_index"]]
    return (pos["phase"] == "movement" and pos["turns"] >= 5 and bool(pos["moved"].get(active))
            and any(pos["tech"].values()) and bool(pos["hands"][active]) and bool(pos["discard"])
            and any(len(s) >= 2 for s in pos["stacks"].values()))


BASE = play_until(3, {}, b"swarm-positions", mid_move)
ACTIVE = BASE["order"][BASE["turn_index"]]
OTHER = next(p for p in BASE["players"] if p["name"] != ACTIVE)["name"]
PLAYERS = [p["name"] for p in BASE["players"]]
BID = play_until(3, {}, b"swarm-bid", lambda p: p["phase"] == "bid" and p["step"] == "slot")
OVER = play_until(2, {}, b"swarm-over", lambda p: p["phase"] == "over")
REACT = play_until(4, {"react_combat": "ask"}, b"swarm-react",
                   lambda p: p["phase"] == "attack" and p["step"] == "react")
RESEARCH = play_until(2, {"tech_phase": "research"}, b"swarm-research",
                      lambda p: p["phase"] == "research" and p["step"] == "develop")
DEVELOP = play_until(2, {}, b"swarm-develop", lambda p: p["step"] == "develop" and p["turns"] >= 3)


# --- helpers for the table of bad positions -------------------------------------------------------------
def labels(pos: dict[str, Any], code: str) -> list[str]:
    rows = [r.split() for r in pos["map"]["rows"]]
    return [f"{chr(65 + c)}{r + 1}" for r, row in enumerate(rows) for c, x in enumerate(row) if x == code]


def set_terrain(pos: dict[str, Any], label: str, code: str) -> None:
    col, row = ord(label[0]) - 65, int(label[1:]) - 1
    cells = pos["map"]["rows"][row].split()
    cells[col] = code
    pos["map"]["rows"][row] = " ".join(cells)


def empty_space(pos: dict[str, Any]) -> str:
    """A Deep Space with nobody's fleets."""
    taken = {lab for s in pos["stacks"].values() for lab in s}
    return next(lab for lab in labels(pos, ".") if lab not in taken)


def pile_of(pos: dict[str, Any], card: str) -> list[str]:
    piles = [pos["deck"], pos["discard"], *pos["hands"].values(), *pos["tech"].values()]
    return next(p for p in piles if card in p)


def drop_card(pos: dict[str, Any]) -> None:
    card = pos["deck"][-1]
    pos["deck"].remove(card)
    del pos["cards"][card]


def event_card(pos: dict[str, Any]) -> str:
    faces = swarm_data().faces
    return next(c for c, name in pos["cards"].items() if not faces[name].is_technology)


def move_to_tech(pos: dict[str, Any], card: str) -> None:
    pile_of(pos, card).remove(card)
    pos["tech"][ACTIVE].append(card)


def a_stack(pos: dict[str, Any], player: str) -> str:
    return next(iter(pos["stacks"][player]))


def moved_label(pos: dict[str, Any]) -> str:
    return next(iter(pos["moved"][ACTIVE]))


def supernova_stack(pos: dict[str, Any]) -> None:
    label = empty_space(pos)
    set_terrain(pos, label, "S")
    pos["stacks"][ACTIVE][label] = 2


def other_map_text(pos: dict[str, Any]) -> None:
    """The options hold a hand-made map that differs from the position's in one Deep Space."""
    rows = [r.replace(" ", "") for r in pos["map"]["rows"]]
    label = labels(pos, ".")[0]
    col, row = ord(label[0]) - 65, int(label[1:]) - 1
    rows[row] = rows[row][:col] + "N" + rows[row][col + 1:]
    pos["options"]["map"] = map_text(rows, [p["home"] for p in pos["players"]])


def bad_boost(pos: dict[str, Any], **change: Any) -> None:
    card = pos["discard"][0]
    face = swarm_data().faces[pos["cards"][card]]
    boost = {"player": ACTIVE, "attribute": face.attribute, "amount": face.bonus, "card": card,
             "until": "turn" if face.is_technology else "phase"}
    boost.update(change)
    pos["boosts"].append(boost)


def no_discard_needed(pos: dict[str, Any]) -> None:
    pos.update(phase="development", step="discard", stack_moves=0, moved={})


def dead_but_not_eliminated(pos: dict[str, Any]) -> None:
    pos["stacks"][OTHER] = {}


BAD: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    # the file's shape
    ("missing-key", lambda p: p.pop("deck"), "deck", "is missing"),
    ("unknown-key", lambda p: p.update(weather="storm"), "weather", "is not a key here"),
    ("format", lambda p: p.update(format="space-attack/1"), "format", "is not space-swarm/1"),
    ("partial-text", lambda p: p.update(partial="yes"), "partial", "is not true or false"),
    ("stacks-a-list", lambda p: p.update(stacks=["A1"]), "stacks", "must be a mapping, not a list"),
    # options
    ("unknown-option", lambda p: p["options"].update(weather="storm"), "options.weather",
     "is not an option of space-swarm"),
    ("option-value", lambda p: p["options"].update(decks="3"), "options.decks", "is not a value of this option"),
    ("option-map-file", lambda p: p["options"].update(map="duel.yaml"), "options", "give map=generated"),
    ("size-not-the-maps", lambda p: p["options"].update(size="9x7"), "map", "options.size is 9x7"),
    ("hand-made-map-not-this-one", other_map_text, "options.map", "not this position's map"),
    # players
    ("one-player", lambda p: p.update(players=p["players"][:1]), "players", "takes 2-6 players, not 1"),
    ("same-name", lambda p: p["players"][1].update(name=p["players"][0]["name"]), "players[1].name",
     "is already a player"),
    ("home-off-the-map", lambda p: p["players"][0].update(home="Z9"), "players[0].home",
     "'Z9' is not a space of this map (spaces look like A1..H8)"),
    ("home-not-a-cluster", lambda p: p["players"][0].update(home=labels(p, ".")[0]), "players[0].home",
     "every home is a Star Cluster"),
    ("same-home", lambda p: p["players"][1].update(home=p["players"][0]["home"]), "players[1].home",
     "is already the home of"),
    ("standing-hidden", lambda p: p["players"][0].update(standing=None), "players[0].standing", "is missing"),
    ("standing-key", lambda p: p["players"][0]["standing"].update(shark="auto"), "players[0].standing",
     "is not a standing order"),
    ("standing-slot-places", lambda p: p["players"][0]["standing"].update(slot=[0, 9]),
     "players[0].standing.slot", "whole numbers 1-3"),
    ("standing-cards", lambda p: p["players"][0]["standing"].update(combat=["C99"]),
     "players[0].standing.combat", "not a card of this game"),
    # the map
    ("map-too-wide", lambda p: p["map"].update(width=27), "map.width", "is not a whole number from 3 to 26"),
    ("map-rows-count", lambda p: p["map"]["rows"].pop(), "map.rows", "has 7 rows; the map is 8 high"),
    ("map-row-width", lambda p: p["map"].update(rows=[*p["map"]["rows"][:2], "C .", *p["map"]["rows"][3:]]),
     "map.rows[2]", "has 2 terrain codes; the map is 8 wide"),
    ("terrain-code", lambda p: set_terrain(p, empty_space(p), "X"), "map.rows", "'X' is not a terrain code"),
    # cards
    ("card-of-two-decks", lambda p: p["cards"].update(C55="Attack +1"), "cards.C55", "is not a card of this game"),
    ("hidden-face", lambda p: p["cards"].update(C1=None), "cards.C1", "is hidden (null)"),
    ("unknown-face", lambda p: p["cards"].update(C1="Attack +9"), "cards.C1", "is not a card"),
    ("eighth-attack", lambda p: p["cards"].update({c: "Attack +1" for c in list(p["cards"])[:8]}), "cards.C",
     "the deck has 7 Attack +1 card(s); this is one more"),
    ("card-missing", drop_card, "cards", "is missing: the game has 54 cards"),
    ("card-twice", lambda p: p["discard"].append(p["deck"][0]), "discard", "is already in deck"),
    ("card-nowhere", lambda p: p["deck"].pop(), "cards.C", "lies nowhere"),
    ("pile-names-no-card", lambda p: p["deck"].append("C77"), "deck", "'C77' is not a card of this position"),
    ("event-in-play", lambda p: move_to_tech(p, event_card(p)), f"tech.{ACTIVE}", "an Event card"),
    ("hands-of-a-player-missing", lambda p: p["hands"].pop(OTHER), f"hands.{OTHER}", "is missing"),
    ("hands-of-a-stranger", lambda p: p["hands"].update(mallory=[]), "hands.mallory", "is not a player"),
    # phase, step, counters, turn order
    ("phase", lambda p: p.update(phase="lunch"), "phase", "'lunch' is not a phase"),
    ("step-of-another-phase", lambda p: p.update(step="produce"), "step",
     "'produce' is not a decision of the movement phase"),
    ("research-without-the-option", lambda p: p.update(phase="research", step="develop"), "phase",
     "only with tech_phase=research"),
    ("discard-within-the-limit", no_discard_needed, "step", "within the hand limit"),
    ("round-zero", lambda p: p.update(round=0), "round", "is not a whole number, at least 1"),
    ("turns-text", lambda p: p.update(turns="five"), "turns", "is not a whole number"),
    ("turn-index", lambda p: p.update(turn_index=3), "turn_index", "is not a whole number from 0 to 2"),
    ("order-twice", lambda p: p.update(order=[p["order"][0]] * 3), "order", "is listed twice"),
    ("order-leaves-out", lambda p: p.update(order=p["order"][:2], turn_index=0), "order",
     "is in the game but not in the turn order"),
    ("stack-moves-negative", lambda p: p.update(stack_moves=-1), "stack_moves", "at least 0"),
    ("stack-moves-over-strategy", lambda p: p.update(stack_moves=40), "stack_moves", "Strategic level is"),
    # stacks and moves
    ("stack-off-the-map", lambda p: p["stacks"][ACTIVE].update(Z9=2), f"stacks.{ACTIVE}.Z9",
     "'Z9' is not a space of this map (spaces look like A1..H8)"),
    ("stack-on-a-super-nova", supernova_stack, f"stacks.{ACTIVE}", "is a Super Nova"),
    ("no-fleets", lambda p: p["stacks"][ACTIVE].update({a_stack(p, ACTIVE): 0}), f"stacks.{ACTIVE}.",
     "is not a whole number from 1 to 9999"),
    ("fleets-text", lambda p: p["stacks"][ACTIVE].update({a_stack(p, ACTIVE): "3"}), f"stacks.{ACTIVE}.",
     "is not a whole number"),
    ("stacks-of-a-player-missing", lambda p: p["stacks"].pop(OTHER), f"stacks.{OTHER}", "is missing"),
    ("out-but-not-eliminated", dead_but_not_eliminated, "eliminated", "has no fleets left"),
    ("eliminated-with-fleets", lambda p: p.update(eliminated=[OTHER]), "eliminated", "has fleets"),
    ("moved-by-another", lambda p: p["moved"].update({OTHER: {a_stack(p, OTHER): [1]}}), f"moved.{OTHER}",
     "only the active race"),
    ("moved-more-than-there", lambda p: p["moved"][ACTIVE].update({moved_label(p): [1] * 99}),
     f"moved.{ACTIVE}.", "fleets moved, but"),
    ("moved-beyond-movement", lambda p: p["moved"][ACTIVE].update({moved_label(p): [9]}), f"moved.{ACTIVE}.",
     "more than"),
    # the records of a turn
    ("boost-card-not-discarded", lambda p: bad_boost(p, card=p["deck"][0]), "boosts[0].card",
     "is not a card on the discard pile"),
    ("boost-lasts-wrong", lambda p: bad_boost(p, until="forever"), "boosts[0].until", "is not how long"),
    ("boost-amount", lambda p: bad_boost(p, amount=5), "boosts[0].amount", "is not a whole number"),
    ("visited-not-ruins", lambda p: p.update(visited=[p["players"][0]["home"]]), "visited", "not Alien Ruins"),
    ("window-while-moving", lambda p: p.update(window={"kind": "combat", "queue": [OTHER]}), "window",
     "must be null unless the step is react"),
    ("react-without-window", lambda p: p.update(phase="attack", step="react", moved={}), "window",
     "is missing: step react waits on a reaction window"),
    ("slots-outside-the-bid", lambda p: p.update(slots=[None, None, None]), "slots",
     "must be null outside the Round Bid"),
    ("targets-while-moving", lambda p: p.update(targets={a_stack(p, ACTIVE): {ACTIVE: OTHER}}), "targets",
     "only while the battles wait"),
    ("produced-negative", lambda p: p["produced"].update({ACTIVE: -2}), f"produced.{ACTIVE}", "at least 0"),
    ("victory-while-playing", lambda p: p.update(victory="control"), "victory", "must be '' while the game goes on"),
    ("winners-while-playing", lambda p: p.update(winners=[ACTIVE]), "winners", "must be empty"),
    ("escaped-control-characters", lambda p: p["order"].append("\u202enobody\x1b[31m" * 5), "order",
     "\\u202enobody\\x1b"),
]

#: broken positions of the other steps: (name, base, change, field, words)
BAD_STEPS: list[tuple[str, dict[str, Any], Callable[[dict[str, Any]], Any], str, str]] = [
    ("slot-with-one-place-free", BID, lambda p: p.update(slots=[p["order"][0], p["order"][1], None]), "step",
     "the last free place is taken without asking"),
    ("slots-too-many", BID, lambda p: p["slots"].append(None), "slots", "one per race in the game"),
    ("slots-twice", BID, lambda p: p.update(slots=[p["order"][0], p["order"][0], None]), "slots", "has two places"),
    ("bid-without-slots", BID, lambda p: p.update(slots=None), "slots", "is missing"),
    ("window-kind", REACT, lambda p: p["window"].update(kind="bid"), "window.kind",
     "is not a reaction window of the attack phase"),
    ("window-empty", REACT, lambda p: p["window"].update(queue=[]), "window.queue", "is empty"),
    ("window-asks-the-attacker", REACT, lambda p: p["window"]["queue"].insert(0, p["order"][p["turn_index"]]),
     "window.queue", "is the active race"),
    ("target-self", REACT, lambda p: p.update(targets={a_stack(p, p["order"][p["turn_index"]]): {
        p["order"][p["turn_index"]]: p["order"][p["turn_index"]]}}), "targets.", "does not strike itself"),
    ("over-with-a-step", OVER, lambda p: p.update(step="move"), "step", "is not a step once the game is over"),
    ("over-unknown-victory", OVER, lambda p: p.update(victory="surrender"), "victory", "is not a way to win"),
    ("over-wrong-winners", OVER, lambda p: p.update(winners=[x for x in ("red", "blue") if x not in p["winners"]]),
     "winners", "victory goes to"),
    ("develop-in-development-with-research-option", DEVELOP, lambda p: p["options"].update(tech_phase="research"),
     "step", "with tech_phase=research Technology is placed in the Research Phase"),
]


# --- running `pbem new` ----------------------------------------------------------------------------------
def run(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def names_of(position: dict[str, Any]) -> list[str]:
    return [p["name"] for p in position["players"]]


def new_from(tmp_path: Path, key_pool: dict[str, Path], position: dict[str, Any], *extra: str,
             players: list[str] | None = None) -> tuple[Any, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    pos_file = tmp_path / "position.yaml"
    pos_file.write_text(yamlio.dump(position))     # as `pbem show --full` writes a position
    target = tmp_path / "game"
    args: list[Any] = ["new", target, "--game", "space-swarm", "--position", pos_file, "--seed", "ab" * 16]
    for p in players or names_of(position):
        args += ["--player", f"{p}={key_pool[p]}.pub"]
    return run(*args, *extra), target


def refused(result: Any, target: Path) -> str:
    """The one line of a refusal: non-zero exit, no traceback, nothing written."""
    assert result.exit_code != 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert not target.exists()
    for leak in ("KeyError", "TypeError", "AttributeError", "IndexError", "Traceback"):
        assert leak not in result.output
    return lines[0]


def edited(base: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    pos = copy.deepcopy(base)
    change(pos)
    return pos


# --- the positions games write pass ------------------------------------------------------------------------
@pytest.mark.parametrize("n, options", [
    (2, {}), (3, {"tech_phase": "research", "mulligan": "once"}), (4, {"react_combat": "ask", "react_bid": "ask"}),
    (5, {"decks": "2", "combat_hexes": "active"}), (6, {"slot": "last", "react_bid": "auto", "symmetry": "half-turn"}),
    (2, {"size": "5x4", "home_hazards": "keep", "cut_homes": "allow"}),
], ids=["2p", "3p-research", "4p-ask", "5p-two-decks", "6p", "2p-small-map"])
def test_every_position_of_bot_games_passes_the_check_as_show_full_writes_it(n, options):
    for k in range(2):
        seed = f"written/{n}/{k}".encode() * 2
        state = GAME.setup(NAMES[:n], GAME.full_options(options), Rng(seed, "setup"))
        rng = Rng(seed, "bot")
        steps = set()
        for i in range(6000):
            pos = GAME.to_position(state)
            if i % 7 == 0:          # what `pbem show --full` writes, read back as `pbem new --position` reads it
                pos = load_strict(yamlio.dump(pos), "position file", POSITION_LIMITS)
            GAME.check_position(pos)
            steps.add((pos["phase"], pos["step"]))
            if GAME.result(state) is not None:
                break
            player = GAME.pending(state)[0].player
            GAME.apply(state, player, CHOOSERS["greedy" if i % 3 else "random"](GAME, state, player, rng),
                       Rng(seed, f"a{i}"))
        assert GAME.result(state) is not None and ("over", "") in steps
        assert {("production", "produce"), ("movement", "move"), ("attack", "attack")} <= steps


def test_a_hand_made_map_position_passes_and_a_builder_position_passes_as_partial():
    duel = map_text(["C..R.", ".N.S.", ".A.W.", "W...C"], ["A1", "E4"])
    pos = play_until(2, {"map": duel}, b"duel", lambda p: p["phase"] == "movement" and p["turns"] >= 3)
    GAME.check_position(pos)
    teaching = Pos(["C . . .", ". N . .", ". . . C"]).stack("red", "A1", 3).stack("blue", "D3", 2)
    teaching.hand("red", "Attack +1", "Defense +2").deck("Movement +1").turn("red", "move")
    with pytest.raises(PositionError, match="cards: C4 is missing: the game has 54 cards"):
        GAME.check_position(teaching.p)
    GAME.check_position({**teaching.p, "partial": True})


def test_show_full_of_a_game_started_from_a_position_is_that_position_and_passes(tmp_path, key_pool):
    for name, base in [("move", BASE), ("bid", BID), ("react", REACT)]:
        result, target = new_from(tmp_path / name, key_pool, base)
        assert result.exit_code == 0, result.output
        shown = run("show", target, "--full")
        assert shown.exit_code == 0, shown.output
        full = yaml.safe_load(shown.output)
        assert full == base
        GAME.check_position(full)
        assert json.loads(run("show", target, "--full", "--format", "json").output) == base
    assert audit(GameDir(tmp_path / "move" / "game")).ok


# --- bad positions: one line naming the field, nothing written -----------------------------------------------
def test_the_table_of_bad_positions_covers_the_rules():
    assert len(BAD) + len(BAD_STEPS) >= 40
    assert len({c[0] for c in BAD} | {c[0] for c in BAD_STEPS}) == len(BAD) + len(BAD_STEPS)


@pytest.mark.parametrize("change, field, words", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_position_is_refused_in_one_line_naming_the_field(tmp_path, key_pool, change, field, words):
    result, target = new_from(tmp_path, key_pool, edited(BASE, change), players=PLAYERS)
    line = refused(result, target)
    assert line.startswith(f"pbem: error: position: {field}") and words in line, line
    assert len(line) < 400


@pytest.mark.parametrize("base, change, field, words", [c[1:] for c in BAD_STEPS], ids=[c[0] for c in BAD_STEPS])
def test_a_bad_position_of_another_step_is_refused_in_one_line(tmp_path, key_pool, base, change, field, words):
    result, target = new_from(tmp_path, key_pool, edited(base, change), players=names_of(base))
    line = refused(result, target)
    assert line.startswith(f"pbem: error: position: {field}") and words in line, line


def test_each_bad_base_position_is_itself_accepted():
    for base in (BASE, BID, OVER, REACT, RESEARCH, DEVELOP):
        GAME.check_position(base)


# --- options with a position ----------------------------------------------------------------------------------
def test_an_option_given_with_a_position_applies_and_the_game_plays_with_it(tmp_path, key_pool):
    result, target = new_from(tmp_path, key_pool, REACT, "--option", "react_combat=never",
                              "--option", "combat_hexes=active")
    assert result.exit_code == 0, result.output
    table = Table.load(GameDir(target))
    assert table.header["options"]["react_combat"] == "never" == table.state.options["react_combat"]
    assert table.state.options["combat_hexes"] == "active"
    assert table.game.to_position(table.state)["options"] == table.header["options"]
    assert audit(GameDir(target)).ok


@pytest.mark.parametrize("base, option, words", [
    (BASE, "decks=2", "decks is decided at set-up and the position has decks=1"),
    (BASE, "map=generated", None),
    (BASE, "symmetry=half-turn", "symmetry is decided at set-up"),
    (BASE, "size=9x7", "size is decided at set-up"),
    (BASE, "combat_hexes=some", "option combat_hexes='some' is not one of all, active"),
    (BASE, "weather=storm", "unknown option 'weather'"),
    (DEVELOP, "tech_phase=research", "position: step: with tech_phase=research"),
    (RESEARCH, "tech_phase=development", "position: phase: the game waits in the Research Phase only"),
], ids=["decks", "map-same", "symmetry", "size", "bad-value", "unknown", "tech-phase-develop", "tech-phase-research"])
def test_an_option_that_cannot_go_with_the_position_is_refused_in_one_line(tmp_path, key_pool, base, option, words):
    result, target = new_from(tmp_path, key_pool, base, "--option", option)
    if words is None:           # the position's own value of a set-up option is fine
        assert result.exit_code == 0, result.output
        return
    assert words in refused(result, target)


def test_tech_phase_may_change_where_the_step_allows_it(tmp_path, key_pool):
    result, target = new_from(tmp_path, key_pool, BASE, "--option", "tech_phase=research")
    assert result.exit_code == 0, result.output
    table = Table.load(GameDir(target))
    assert table.state.options["tech_phase"] == "research"
    play_to_the_end(table.game.to_position(table.state))


# --- hostile: random damage never gives a traceback -----------------------------------------------------------
WRONG_VALUES: list[Any] = [None, True, False, -1, 0, 1, 2, 7, 10 ** 30, 1.5, "", "Z9", "A1", "C1", "C54", "red",
                           "blue", "attack", "react", "\u202e\x00", "x" * 300, [], {}, ["red"], [None], [1, 2],
                           {"A1": 1}, {"red": []}, {"kind": "bid", "queue": ["red"]}]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, (*prefix, i))
    return out


def damaged(base: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    pos = copy.deepcopy(base)
    for _ in range(rnd.choice([1, 1, 1, 2, 3])):
        section = rnd.choice(list(pos))             # every section as likely as another, then a field in it
        path = rnd.choice([(section,), *paths(pos[section], (section,))])
        parent = pos
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        how = rnd.random()
        if how < 0.12 and isinstance(parent, dict):
            del parent[last]
        elif how < 0.2 and isinstance(parent, dict):
            parent[rnd.choice(["weather", "Z9", "C200", "mallory", 7])] = rnd.choice(WRONG_VALUES)
        elif how < 0.35:          # a value from elsewhere in the position: the right type, maybe the wrong place
            other = rnd.choice(paths(base))
            value: Any = base
            for key in other:
                value = value[key]
            parent[last] = copy.deepcopy(value)
        elif how < 0.55 and isinstance(parent[last], int) and not isinstance(parent[last], bool):
            parent[last] = rnd.randint(-1, 12)          # a number, maybe one the rules allow here
        else:
            parent[last] = copy.deepcopy(rnd.choice(WRONG_VALUES))
    return pos


@pytest.mark.parametrize("name, base", [("move", BASE), ("bid", BID), ("react", REACT), ("over", OVER),
                                        ("research", RESEARCH), ("develop", DEVELOP)])
def test_damaged_positions_are_refused_cleanly_or_played_to_the_end(name, base):
    rnd = random.Random(f"swarm-fuzz/{name}")     # a seeded generator of the test's own: reproducible
    accepted = refused_count = 0
    for _ in range(200):
        pos = damaged(base, rnd)
        try:
            GAME.check_position(pos)
        except PositionError as exc:
            line = str(exc)
            assert line.startswith("position: ") and "\n" not in line and len(line) < 600, line
            refused_count += 1
            continue
        accepted += 1
        play_to_the_end(pos)
    assert refused_count > 50 and accepted >= 5, (refused_count, accepted)
