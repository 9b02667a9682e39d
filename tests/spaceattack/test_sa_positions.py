"""Space Attack positions: every position the game writes passes the check, a bad one is refused in one
line naming the field (in the game's words), and a game can start from one through `pbem new --position`."""
from __future__ import annotations

import copy
import json

import pytest
import yaml
from click.testing import CliRunner
from spaceattack_helpers import GAME, Pos

from pbem.cli.group import main
from pbem.core.bots import CHOOSERS
from pbem.core.rng import Rng
from pbem.game import PositionError
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir


@pytest.mark.parametrize("players, options", [
    (["red", "blue", "green"], {}),
    (["red", "blue"], {"map": "jacobs-ladder", "reactions": "ask"}),
    (["a", "b", "c", "d", "e", "f"], {"map": "asteroids", "overpopulated": "yes", "end": "to-the-last"}),
    (["red", "blue", "green", "yellow"], {"map": "starship-titanus", "blue_tiles": "any", "reactions": "ask"}),
], ids=["base", "ladder", "six-asteroids", "titanus"])
def test_every_position_the_game_writes_passes_the_check(players, options):
    state = GAME.setup(players, GAME.full_options(options), Rng(b"written", "setup"))
    rng = Rng(b"written", "bot")
    kinds = set()
    for i in range(6000):
        GAME.check_position(GAME.to_position(state))
        if GAME.result(state) is not None:
            break
        pending = GAME.pending(state)[0]
        kinds.add(pending.kind)
        GAME.apply(state, pending.player, CHOOSERS["greedy" if i % 3 else "random"](GAME, state, pending.player, rng),
                   Rng(b"written", f"a{i}"))
    assert GAME.result(state) is not None and {"move", "remove-tile", "creature"} <= kinds


def test_the_rule_tests_builder_positions_pass_the_check():
    p = Pos().station("F6", "F7").land("r1", "F6").drift("b1", "A4").boat("P1", "A5", "g1").boat("X1", "B3", "r2")
    p.creature("S1", "A3").saved("r3", "B1").captured("blue", "W1")
    tile = next(h for h, t in p.p["tiles"].items() if t["back"] == "teleport_creature")
    p.hand("red", "teleport_creature", tile=tile)
    GAME.check_position(p.p)


def test_a_fighter_flown_this_turn_and_lost_since_passes_the_check():
    """A fighter flown this turn stays in ``flown`` when a Black Hole takes it later in the turn (a game
    wrote such a position); one still in the supply has not flown."""
    p = Pos()
    p.p["boats"]["X1"] = {"where": "lost", "at": None, "owner": None}
    p.p["flown"] = ["X1"]
    GAME.check_position(p.p)
    assert p.p["boats"]["X2"]["where"] == "supply"
    p.p["flown"] = ["X2"]
    with pytest.raises(PositionError, match="flown.*X2.*not a fighter on the board"):
        GAME.check_position(p.p)


#: the Core Breach tile stays on the station: the game ends only when it is turned up (pbem.core.playable)
BREACH = next(t["at"] for t in Pos().p["tiles"].values() if t["back"] == "core_breach")
BASE = (Pos().station("F6", "F7", BREACH).land("r1", "F6").drift("b1", "A4").boat("X1", "B3", "r2")
        .captured("blue", "W1").p)

BAD = [
    ("captured-not-held", lambda p: p["captured"].update(blue=[]), "creatures.W1.where", "no player holds it"),
    ("held-not-captured", lambda p: p["captured"].update(red=["S1"]), "captured", "S1 is held by a player"),
    ("fighter-in-reserve", lambda p: p["boats"]["X2"].update(where="reserve", owner="red"), "boats.X2",
     "reserve"),
    ("two-aboard-a-fighter", lambda p: p["explorers"]["r4"].update(where="boat", at="X1"), "boats.X1",
     "at most 1"),
    ("steal-step-without-window", lambda p: p["turn"].update(step="steal"), "steal", "is missing"),
    ("play-tile-step", lambda p: p["turn"].update(step="play-tile"), "turn.step", "not a step of this game"),
    ("unknown-map", lambda p: p["options"].update(map="deathstar"), "options.map", "not a value of this option"),
    ("slot-of-another-map", lambda p: p["options"].update(map="asteroids"), "tiles.T", "not a station slot"),
    ("drifter-on-a-tile", lambda p: p["explorers"]["b1"].update(at="F7"), "explorers.b1.at",
     "it is a station tile, not an open space"),
    ("standing-order", lambda p: p["players"][0]["standing"].update(shark_defense="auto"),
     "players[0].standing", "not a standing order"),
    ("format", lambda p: p.update(format="atlantis/1"), "format", "is not space-attack/1"),
    ("flown", lambda p: p.update(flown=["P1"]), "flown", "not a fighter on the board"),
]


@pytest.mark.parametrize("change, field, words", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_position_is_refused_in_one_line_naming_the_field(change, field, words):
    pos = copy.deepcopy(BASE)
    change(pos)
    with pytest.raises(PositionError) as exc:
        GAME.check_position(pos)
    line = str(exc.value)
    assert line.startswith(f"position: {field}") and words in line and "\n" not in line, line
    problem = exc.value.problem            # the field is the position's key (explorers.b1.at)
    assert "explorer" not in problem and "island" not in problem and "sea space" not in problem


def test_a_game_starts_from_a_position_and_audits(tmp_path, key_pool):
    pos_file = tmp_path / "position.yaml"
    pos_file.write_text(yaml.safe_dump(BASE, sort_keys=False))
    target = tmp_path / "game"
    args = ["new", str(target), "--game", "space-attack", "--position", str(pos_file), "--seed", "ab" * 16]
    for p in ("red", "blue", "green"):
        args += ["--player", f"{p}={key_pool[p]}.pub"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    full = json.loads(CliRunner().invoke(main, ["show", str(target), "--full", "--format", "json"]).output)
    assert full == BASE
    assert audit(GameDir(target)).ok
