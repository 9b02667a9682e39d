"""Position files through `pbem new --position`: checked like moves, options applied or refused,
and the audit check that the header's options are the game's.

Bad positions are refused with one line naming the field, before anything is written (the
target folder stays absent or empty); the positions the games write themselves, and the
example in docs/, load; `--option` with `--position` plays with the position's options
overridden by the given ones, or refuses an option decided at set-up.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from click.testing import CliRunner

from pbem.base import yamlio
from pbem.cli.group import main
from pbem.core.bots import CHOOSERS
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.pipeline.audit import audit
from pbem.pipeline.newgame import sign_entry
from pbem.store.gamedir import GameDir
from pbem.store.log import seal, write_log
from pbem.store.table import Table

DOCS = Path(__file__).resolve().parents[1] / "docs"
ATLANTIS = load_game("atlantis")
A1986 = load_game("atlantis-1986")
PLAYERS = ["red", "blue", "green"]


def played(game: Any, players: list[str], options: dict[str, str], seed: bytes, until: Callable[[Any], bool],
           bot: str = "random", limit: int = 3000) -> Any:
    """A state reached by a bot from a seeded setup: the first one where ``until(position)`` holds."""
    state = game.setup(players, game.full_options(options), Rng(seed, "setup"))
    rng = Rng(seed, "bot")
    for i in range(limit):
        if until(game.to_position(state)):
            return state
        player = game.pending(state)[0].player
        game.apply(state, player, CHOOSERS[bot](game, state, player, rng), Rng(seed, f"a{i}"))
    raise AssertionError("the bot never reached the wanted position")


def mid_game(pos: dict[str, Any]) -> bool:
    """Turn 6 or later, moving, with explorers on land, swimming and aboard, and a tile in a hand."""
    wheres = {e["where"] for e in pos["explorers"].values()}
    return (pos["phase"] == "play" and pos["turn"]["step"] == "move" and pos["turn"]["number"] >= 6
            and {"land", "sea", "boat"} <= wheres and any(t["where"] == "hand" for t in pos["tiles"].values()))


BASE = ATLANTIS.to_position(played(ATLANTIS, PLAYERS, {}, b"positions", mid_game))
BASE_1986 = A1986.to_position(played(A1986, ["red", "blue"], {}, b"positions-1986",
                                     lambda p: p["phase"] == "play" and p["turn"]["number"] >= 4
                                     and p["turn"]["step"] == "move"))


def first(pos: dict[str, Any], section: str, **match: Any) -> str:
    """The first handle in ``section`` whose record has the given values."""
    return next(h for h, r in pos[section].items() if all(r.get(k) == v for k, v in match.items()))


def run(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def new_from(tmp_path: Path, key_pool: dict[str, Path], position: dict[str, Any], *extra: str,
             game: str = "atlantis", players: list[str] = PLAYERS) -> tuple[Any, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    pos_file = tmp_path / "position.yaml"
    pos_file.write_text(yamlio.dump(position))     # as `pbem show --full` writes a position
    target = tmp_path / "game"
    args = ["new", target, "--game", game, "--position", pos_file, "--seed", "ab" * 16]
    for p in players:
        args += ["--player", f"{p}={key_pool[p]}.pub"]
    return run(*args, *extra), target


def refused(result: Any, target: Path) -> str:
    """The one line of a refusal; nothing was written."""
    assert result.exit_code != 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert not target.exists() or not any(target.iterdir())
    for leak in ("KeyError", "TypeError", "AttributeError", "IndexError", "Traceback"):
        assert leak not in result.output
    return lines[0]


# --- bad positions: each refused with a line naming the field ---------------------------------------

def edit(fn: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(base: dict[str, Any]) -> dict[str, Any]:
        pos = copy.deepcopy(base)
        fn(pos)
        return pos
    return apply


def on_land(p):
    return first(p, "explorers", where="land")


def swimmer(p):
    return first(p, "explorers", where="sea")


def at_sea(p):
    return first(p, "boats", where="sea")


def sea_label(p):
    return p["boats"][at_sea(p)]["at"]


def land_label(p):
    return p["explorers"][on_land(p)]["at"]


def hand_tile(p):
    return first(p, "tiles", where="hand")


def island_tile(p):
    return first(p, "tiles", where="island")


def red_explorers(p):
    return [h for h, e in p["explorers"].items() if e["colour"] == "red"]


BAD = [
    # (id, change, field the message names, words it says)
    ("ship-where-ocean", lambda p: p["boats"][at_sea(p)].update(where="ocean"), "boats.B", "not a place for a ship"),
    ("ship-at-ocean", lambda p: p["boats"][at_sea(p)].update(at="ocean"), ".at", "'ocean' is not a space on the board"),
    ("ship-on-land", lambda p: p["boats"][at_sea(p)].update(at=land_label(p)), ".at", "it is land, not a sea space"),
    ("two-ships-one-space", lambda p: p["boats"][first(p, "boats", where="supply")].update(where="sea", at=sea_label(p)),
     ".at", "one ship per sea space"),
    ("ship-in-reserve-in-play", lambda p: p["boats"][at_sea(p)].update(where="reserve", at=None, owner="red"),
     ".where", "only during setup"),
    ("ship-owner-unknown", lambda p: p["boats"][first(p, "boats", where="supply")].update(owner="nobody"),
     ".owner", "must be null"),
    ("explorer-on-land-at-sea", lambda p: p["explorers"][on_land(p)].update(at=sea_label(p)), "explorers.",
     "has no island tile"),
    ("swimmer-on-land", lambda p: p["explorers"][swimmer(p)].update(at=land_label(p)), "explorers.",
     "it is land, not a sea space"),
    ("swimmer-on-isle", lambda p: p["explorers"][swimmer(p)].update(at="B1"), "explorers.", "is a safe isle"),
    ("saved-at-sea", lambda p: p["explorers"][swimmer(p)].update(where="isle"), "explorers.", "is not a safe isle"),
    ("explorer-at-Z99", lambda p: p["explorers"][on_land(p)].update(at="Z99"), "explorers.",
     "'Z99' is not a space on the board"),
    ("explorer-where-ocean", lambda p: p["explorers"][on_land(p)].update(where="ocean"), ".where",
     "not a place for an explorer"),
    ("passenger-without-ship", lambda p: p["explorers"][on_land(p)].update(where="boat", at="B99"), "explorers.",
     "is not a ship in this position"),
    ("passenger-in-supply-ship", lambda p: p["explorers"][on_land(p)].update(
        where="boat", at=first(p, "boats", where="supply")), "explorers.", "is not at sea"),
    ("ship-overfull", lambda p: [p["explorers"][h].update(where="boat", at=at_sea(p)) for h in red_explorers(p)[:4]],
     "boats.B", "at most 3"),
    ("lost-with-a-place", lambda p: p["explorers"][on_land(p)].update(where="lost"), ".at", "must be null"),
    ("reserve-in-play", lambda p: p["explorers"][on_land(p)].update(where="reserve", at=None), ".where",
     "only while they are placed"),
    ("explorer-value-hidden", lambda p: p["explorers"][on_land(p)].update(value=None), ".value", "every explorer's value"),
    ("explorer-value-7", lambda p: p["explorers"][on_land(p)].update(value=7), ".value", "from 1 to 6"),
    ("explorer-value-twice", lambda p: [p["explorers"][h].update(value=6) for h in red_explorers(p)[:2]],
     ".value", "value 6 in the box"),
    ("explorer-wrong-colour", lambda p: p["explorers"]["r1"].update(colour="blue"), "explorers.r1.colour", "red"),
    ("explorer-not-in-box", lambda p: p["explorers"].update(r11=dict(p["explorers"]["r1"])), "explorers.r11",
     "not an explorer of this game"),
    ("explorer-of-nobodys-colour", lambda p: p["explorers"].update(y1=dict(p["explorers"]["r1"], colour="yellow")),
     "explorers.y1", "nobody's colour"),
    ("most-explorers-missing", lambda p: [p["explorers"].pop(h) for h in red_explorers(p)[1:]], "explorers",
     "partial: true"),
    ("tiles-missing", lambda p: p["tiles"].pop(island_tile(p)), "tiles", "partial: true"),
    ("creatures-missing", lambda p: p["creatures"].pop("W5"), "creatures", "W5 is missing"),
    ("tile-at-Z99", lambda p: p["tiles"][island_tile(p)].update(at="Z99"), "tiles.T", "'Z99' is not a space"),
    ("tile-at-sea-space", lambda p: p["tiles"][island_tile(p)].update(at="A3"), "tiles.T", "not an island slot"),
    ("two-tiles-one-slot", lambda p: p["tiles"]["T2"].update(at=p["tiles"]["T1"]["at"]), "tiles.T2.at",
     "already tile T1's slot"),
    ("tile-terrain", lambda p: p["tiles"][island_tile(p)].update(terrain="lava"), ".terrain", "not a terrain"),
    ("tile-back", lambda p: p["tiles"][island_tile(p)].update(back="kraken"), ".back", "not a tile back"),
    ("tile-back-hidden", lambda p: p["tiles"][island_tile(p)].update(back=None), ".back", "every tile's back"),
    ("tile-where", lambda p: p["tiles"][island_tile(p)].update(where="sky"), ".where", "not a place for a tile"),
    ("whirlpool-in-hand", lambda p: p["tiles"][first(p, "tiles", back="whirlpool")].update(
        where="hand", holder="red", obtained=1), ".where", "never held in a hand"),
    ("hand-without-holder", lambda p: p["tiles"][hand_tile(p)].update(holder="nobody"), ".holder", "not a player"),
    ("hand-obtained-later", lambda p: p["tiles"][hand_tile(p)].update(obtained=99), ".obtained", "after this turn"),
    ("too-many-shark-backs", lambda p: [p["tiles"][h].update(back="shark") for h, t in p["tiles"].items()
                                        if t["terrain"] == "mountain"], ".back", "the box has 1 mountain"),
    ("creature-kind", lambda p: p["creatures"]["K1"].update(kind="whale"), "creatures.K1.kind", "the kind of K1"),
    ("creature-on-land", lambda p: p["creatures"]["S1"].update(where="sea", at=land_label(p)), "creatures.S1.at",
     "not a sea space"),
    ("creature-not-in-box", lambda p: p["creatures"].update(P1={"kind": "dolphin", "where": "supply", "at": None}),
     "creatures.P1", "not a creature of this game"),
    ("turn-player-nobody", lambda p: p["turn"].update(player="nobody"), "turn.player", "'nobody' is not a player"),
    ("turn-step", lambda p: p["turn"].update(step="dance"), "turn.step", "not a step of this game"),
    ("turn-step-of-a-variant", lambda p: p["turn"].update(step="sunk-move"), "turn.step", "not a step of this game"),
    ("turn-number", lambda p: p["turn"].update(number="five"), "turn.number", "a whole number"),
    ("turn-moves", lambda p: p["turn"].update(moves=4), "turn.moves", "from 0 to 3"),
    ("turn-swum-unknown", lambda p: p["turn"].update(swum=["r99"]), "turn.swum", "'r99' is not an explorer"),
    ("turn-swum-twice", lambda p: p["turn"].update(swum=["r1", "r1"]), "turn.swum", "listed twice"),
    ("turn-die-face", lambda p: p["turn"].update(step="creature", die="kraken"), "turn.die", "not a face of the die"),
    ("creature-step-without-die", lambda p: p["turn"].update(step="creature", die=None), "turn.die", "after the roll"),
    ("defense-without-reaction", lambda p: p["turn"].update(step="defense", die="shark"), "reaction", "is missing"),
    ("reaction-out-of-step", lambda p: p.update(reaction={"kind": "shark_defense", "creature": "K1", "at": "A3",
                                                          "queue": ["blue"]}), "reaction", "must be null unless"),
    ("boarding-out-of-step", lambda p: p.update(boarding={"tile": "T1", "boat": "B1", "at": "A3"}), "boarding",
     "must be null unless"),
    ("phase", lambda p: p.update(phase="halftime"), "phase", "not a phase"),
    ("over-with-explorers-in-play", lambda p: (p.update(phase="over"), p["turn"].update(step="")),
     "explorers.", "the game is over"),
    ("setup-step", lambda p: p.update(phase="setup-boat"), "turn.step", "the step of phase setup-boat"),
    ("option-value", lambda p: p["options"].update(memory="perfect"), "options.memory", "not a value of this option"),
    ("option-unknown", lambda p: p["options"].update(colour="red"), "options.colour", "not an option of atlantis"),
    ("option-combination", lambda p: p["options"].update(squid_take="no"), "options", "squid_take=no"),
    ("option-colours", lambda p: p["options"].update(colours="2"), "options", "needs 6 colours"),
    ("player-colours", lambda p: p["players"][1].update(colours=["red"]), "players[1].colours", "already red's"),
    ("player-colour-not-in-box", lambda p: p["players"][1].update(colours=["purple"]), "players[1].colours",
     "not a colour in the box"),
    ("player-two-colours", lambda p: p["players"][1].update(colours=["blue", "yellow"]), "players[1].colours",
     "plays 1 colour"),
    ("standing-hidden", lambda p: p["players"][1].update(standing=None), "players[1].standing", "standing orders"),
    ("standing-order", lambda p: p["players"][1]["standing"].update(shark_defense="pray"),
     "players[1].standing.shark_defense", "not a standing order"),
    ("history", lambda p: p["history"].update(moon=1), "history", "not a history counter"),
    ("unknown-key", lambda p: p.update(weather="storm"), "weather", "not a key here"),
    ("missing-key", lambda p: p.pop("turn"), "turn", "is missing"),
    ("explorers-a-list", lambda p: p.update(explorers=["r1"]), "explorers", "must be a mapping, not a list"),
    ("format", lambda p: p.update(format="chess/1"), "format", "is not atlantis/1"),
    ("partial-text", lambda p: p.update(partial="yes"), "partial", "true or false"),
    ("variant-key-without-option", lambda p: p.update(dolphins={"protects": {}, "choosing": None}), "dolphins",
     "variant that these options do not play"),
    ("control-characters-shown-escaped", lambda p: p["turn"].update(player="\u202enobody\x1b[31m" * 10),
     "turn.player", "\\u202enobody\\x1b"),
]


@pytest.mark.parametrize("change,field,words", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_atlantis_position_is_refused_in_one_line_naming_the_field(tmp_path, key_pool, change, field, words):
    result, target = new_from(tmp_path, key_pool, edit(change)(BASE))
    line = refused(result, target)
    assert line.startswith("pbem: error: position: ") and field in line and words in line, line
    assert len(line) < 300


BAD_1986 = [
    ("tile-in-a-hand", lambda p: p["tiles"]["T1"].update(where="hand", holder="red", obtained=1), "tiles.T1.where",
     "not a place for a tile"),
    ("standing-orders", lambda p: p["players"][0]["standing"].update(shark_defense="auto"),
     "players[0].standing", "not a standing order"),
    ("dive-face-at-creature-step", lambda p: p["turn"].update(step="creature", die="shark-dive"), "turn.die",
     "waits for the dive step"),
    ("spinner-face", lambda p: p["turn"].update(step="dive", die="whale-dive"), "turn.die", "not a face of the die"),
    ("thirteenth-villager", lambda p: p["explorers"].update(r13=dict(p["explorers"]["r1"])), "explorers.r13",
     "not an explorer of this game"),
    ("base-game-option", lambda p: p["options"].update(memory="open"), "options.memory", "not an option of atlantis-1986"),
    ("whale", lambda p: p["creatures"].update(W1={"kind": "whale", "where": "supply", "at": None}), "creatures.W1",
     "not a creature of this game"),
]


@pytest.mark.parametrize("change,field,words", [c[1:] for c in BAD_1986], ids=[c[0] for c in BAD_1986])
def test_a_bad_1986_position_is_refused_in_one_line_naming_the_field(tmp_path, key_pool, change, field, words):
    result, target = new_from(tmp_path, key_pool, edit(change)(BASE_1986), game="atlantis-1986",
                              players=["red", "blue"])
    line = refused(result, target)
    assert line.startswith("pbem: error: position: ") and field in line and words in line, line


def test_the_players_must_be_the_positions(tmp_path, key_pool):
    result, target = new_from(tmp_path, key_pool, BASE, players=["red", "green", "blue"])
    assert "give the same --player names in the same seat order" in refused(result, target)


def test_an_existing_empty_target_folder_stays_empty(tmp_path, key_pool):
    (tmp_path / "game").mkdir()
    result, target = new_from(tmp_path, key_pool, edit(lambda p: p["turn"].update(player="nobody"))(BASE))
    refused(result, target)
    assert target.is_dir() and not any(target.iterdir())


# --- positions the games write, and the example in docs/, load ---------------------------------------

@pytest.mark.parametrize("game,players,options", [
    (ATLANTIS, PLAYERS, {}),
    (ATLANTIS, ["red", "blue"], {"memory": "open", "lagoon": "land"}),
    (ATLANTIS, ["red", "blue", "green", "yellow", "p5"], {"overpopulated": "yes", "dolphins": "yes", "squid": "yes"}),
    (ATLANTIS, ["red", "blue", "green", "yellow", "p5", "p6"], {"squid": "replace-whales", "squid_take": "no",
                                                                 "end": "to-the-last"}),
    (ATLANTIS, ["red", "blue", "green", "yellow"], {"dolphins": "yes", "end": "submerged", "scoring": "all-equal"}),
    (A1986, ["red", "blue", "green"], {"spinner": "dice", "start_boats": "placed"}),
    (A1986, ["red", "blue"], {"creature_move": "optional", "empty_boats": "safe", "setup_limit": "three"}),
], ids=["base", "two-players", "five-dolphins-squid", "six-replace-whales", "four-dive", "1986-dice", "1986-two"])
def test_every_position_a_game_writes_passes_the_check(game, players, options):
    """From set-up to the end of a bot game, every position ``to_position`` writes is accepted."""
    state = game.setup(players, game.full_options(options), Rng(b"written", "setup"))
    rng = Rng(b"written", "bot")
    for i in range(4000):
        game.check_position(game.to_position(state))
        if game.result(state) is not None:
            break
        player = game.pending(state)[0].player
        game.apply(state, player, CHOOSERS["greedy" if i % 3 else "random"](game, state, player, rng),
                   Rng(b"written", f"a{i}"))
    assert game.result(state) is not None


def test_the_rule_tests_builder_positions_pass_the_check():
    """The hand-built positions of the rule tests (tests/atlantis_positions.py) are full positions."""
    from atlantis_positions import PositionBuilder

    class Pos(PositionBuilder):
        game, default_seed = ATLANTIS, b"atl"

    p = Pos().land("r1", "F3").swim("b1", "A4").boat("B1", "A5", "g1").creature("K1", "A3").saved("r2")
    ATLANTIS.check_position(p.p)


def test_a_full_position_round_trips_through_new(tmp_path, key_pool):
    result, target = new_from(tmp_path, key_pool, BASE)
    assert result.exit_code == 0, result.output
    full = json.loads(run("show", target, "--full", "--format", "json").output)
    assert full == BASE
    assert audit(GameDir(target)).ok


def test_the_docs_example_is_a_partial_position_that_starts_a_game(tmp_path, key_pool):
    example = DOCS / "examples" / "atlantis-lesson.yaml"
    pos = yaml.safe_load(example.read_text())
    assert pos["partial"] is True
    result, target = new_from(tmp_path, key_pool, pos, players=["red", "blue"])
    assert result.exit_code == 0, result.output
    table = Table.load(GameDir(target))
    assert {"move": "r2", "to": "D2"} in table.game.legal_actions(table.state, "red")
    full = table.game.to_position(table.state)
    assert "partial" not in full and len(full["explorers"]) == 6
    without = {k: v for k, v in pos.items() if k != "partial"}
    result, target = new_from(tmp_path / "again", key_pool, without, players=["red", "blue"])
    assert "partial: true" in refused(result, target)


# --- options with a position ----------------------------------------------------------------------------

def finished(options: dict[str, str] | None = None) -> dict[str, Any]:
    """A finished game: red saved two explorers of value 1, blue one of value 6 (of their
    values 1, 1, 1, 2, 2, 3, 3, 4, 5, 6); everybody else is lost."""
    pos = copy.deepcopy(BASE)
    pos["options"].update(options or {})
    pos.update(phase="over", boarding=None, reaction=None)
    pos["turn"].update(step="", die=None)
    for e in pos["explorers"].values():
        e.update(where="lost", at=None)
    reds = [h for h, e in pos["explorers"].items() if e["colour"] == "red" and e["value"] == 1][:2]
    blue = [h for h, e in pos["explorers"].items() if e["colour"] == "blue" and e["value"] == 6]
    for h in reds:
        pos["explorers"][h].update(where="isle", at="B1")
    pos["explorers"][blue[0]].update(where="isle", at="L12")
    return pos


def test_an_option_given_with_a_position_is_the_option_the_game_plays_with(tmp_path, key_pool):
    result, target = new_from(tmp_path / "values", key_pool, finished())
    assert result.exit_code == 0, result.output
    table = Table.load(GameDir(target))
    assert table.game.result(table.state).winners == ["blue"]          # values: blue 6, red 2

    result, target = new_from(tmp_path / "equal", key_pool, finished(), "--option", "scoring=all-equal")
    assert result.exit_code == 0, result.output
    table = Table.load(GameDir(target))
    assert table.header["options"]["scoring"] == "all-equal"
    assert table.game.to_position(table.state)["options"] == table.header["options"]
    assert table.game.result(table.state).winners == ["red"]            # all equal: red 2, blue 1
    assert "scoring=all-equal" in (target / "public" / "digest.txt").read_text()
    assert audit(GameDir(target)).ok


def test_an_option_of_the_position_file_is_kept_and_can_be_overridden(tmp_path, key_pool):
    result, target = new_from(tmp_path / "kept", key_pool, finished({"scoring": "all-equal"}))
    assert result.exit_code == 0, result.output
    assert Table.load(GameDir(target)).header["options"]["scoring"] == "all-equal"
    result, target = new_from(tmp_path / "back", key_pool, finished({"scoring": "all-equal"}),
                              "--option", "scoring=values", "--option", "memory=open")
    assert result.exit_code == 0, result.output
    table = Table.load(GameDir(target))
    assert table.state.options["scoring"] == "values" and table.state.options["memory"] == "open"
    assert table.game.result(table.state).winners == ["blue"]


@pytest.mark.parametrize("option,words", [
    ("colours=auto", "colours is decided at set-up and the position has colours=1"),
    ("dolphins=yes", "dolphins is decided at set-up"),
    ("squid=yes", "squid is decided at set-up"),
    ("defense=never", "defense is decided at set-up"),
    ("memory=perfect", "option memory='perfect' is not one of strict, open"),
    ("weather=storm", "unknown option 'weather'"),
    ("squid_take=no", "squid_take=no (variant #2) needs squid=yes"),
])
def test_an_option_that_cannot_go_with_the_position_is_refused(tmp_path, key_pool, option, words):
    result, target = new_from(tmp_path, key_pool, BASE, "--option", option)
    assert words in refused(result, target)


def test_a_set_up_option_given_with_the_positions_own_value_is_accepted(tmp_path, key_pool):
    result, target = new_from(tmp_path, key_pool, BASE, "--option", "colours=1", "--option", "dolphins=no")
    assert result.exit_code == 0, result.output


def test_a_1986_set_up_option_is_refused_and_a_rule_option_applies(tmp_path, key_pool):
    result, target = new_from(tmp_path / "a", key_pool, BASE_1986, "--option", "start_boats=placed",
                              game="atlantis-1986", players=["red", "blue"])
    assert "start_boats is decided at set-up" in refused(result, target)
    result, target = new_from(tmp_path / "b", key_pool, BASE_1986, "--option", "spinner=dice",
                              game="atlantis-1986", players=["red", "blue"])
    assert result.exit_code == 0, result.output
    table = Table.load(GameDir(target))
    assert table.header["options"]["spinner"] == "dice" == table.state.options["spinner"]


# --- the audit: the header's options are the game's -----------------------------------------------------

def test_audit_finds_a_header_whose_options_differ_from_the_game(tmp_path, key_pool):
    result, target = new_from(tmp_path, key_pool, finished(), "--option", "scoring=all-equal")
    assert result.exit_code == 0, result.output
    gd = GameDir(target)
    assert audit(gd).ok
    # what `pbem new` did before: the header says one thing, the game plays another; signed properly
    header = {k: v for k, v in gd.entries()[0].items() if k not in ("hash", "signature")}
    header["options"] = dict(header["options"], scoring="values")
    write_log(gd.log_path, [seal(sign_entry(header, gd.moderator_key_path))])
    problems = audit(gd).problems
    assert ("entry 0: the header's options differ from the options the game is played with: "
            "scoring=values in the header, all-equal in the game") in problems
