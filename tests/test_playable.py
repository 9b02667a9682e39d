"""Only playable positions start a game (pbem.core.playable; docs/position-format.md, "Playable").

* Each unplayable kind of position, for each Survive game, through `pbem new --position`: one
  line saying what is missing and what to add, exit 1, no game folder.  The same position with
  the missing thing put back starts a game, and `pbem move --bot` writes a move for it.
* The game-independent part on small variants of the toy game: a pending decision without a
  legal action, a game neither over nor waiting, a trial game that breaks (a rules bug: one line,
  not a trace), the game's own hook, the same answer every time.
Random partial positions: tests/test_playable_fuzz.py.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable, Mapping

import pytest
import yaml
from click.testing import CliRunner

from pbem.cli.group import main
from pbem.core.bots import CHOOSERS
from pbem.core.playable import TrialFailed, check_playable
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import Decision, PositionError
from toygame import ToyGame

PLAYERS = ["red", "blue"]
ENDER = {"atlantis": "volcano", "atlantis-1986": "volcano", "space-attack": "core_breach"}
SURVIVE = sorted(ENDER)


def position_after(name: str, steps: int, options: Mapping[str, str] | None = None,
                   until: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """The position after ``steps`` random actions from the set-up (or the first one ``until`` likes)."""
    game = load_game(name)
    state = game.setup(PLAYERS, game.full_options(dict(options or {})), Rng(b"playable", "setup"))
    for step in range(steps):
        if until is not None and until(game.to_position(state)):
            break
        player = game.pending(state)[0].player
        game.apply(state, player, CHOOSERS["random"](game, state, player, Rng(b"playable", f"c{step}")),
                   Rng(b"playable", f"a{step}"))
    pos = copy.deepcopy(game.to_position(state))
    assert until is None or until(pos)
    pos["partial"] = True
    return pos


def in_play(pos: dict[str, Any]) -> bool:
    return pos["phase"] == "play" and pos["turn"]["step"] == "move" and not pos["turn"].get("swum")


def island(pos: dict[str, Any]) -> dict[str, Any]:
    return {h: t for h, t in pos["tiles"].items() if t["where"] == "island"}


def without_tiles(pos: dict[str, Any], tiles: set[str]) -> None:
    """Leave ``tiles`` out: the explorers on them swim where they stood (as when a tile is removed)."""
    gone = {pos["tiles"][h]["at"] for h in tiles}
    pos["tiles"] = {h: t for h, t in pos["tiles"].items() if h not in tiles}
    for e in pos["explorers"].values():
        if e["where"] == "land" and e["at"] in gone:
            e["where"] = "sea"


def reds(name: str, pos: dict[str, Any], n: int) -> dict[str, Any]:
    """The first ``n`` explorers of red, the player to place."""
    colours = {c for p in pos["players"] if p["name"] == "red" for c in p["colours"]}
    return dict([(h, e) for h, e in pos["explorers"].items() if e["colour"] in colours][:n])


def no_explorers(name: str) -> dict[str, Any]:
    pos = position_after(name, 0)
    pos["explorers"] = {}
    return pos


def no_island_tiles(name: str) -> dict[str, Any]:
    pos = position_after(name, 400, until=in_play)
    without_tiles(pos, set(island(pos)))
    return pos


def no_ender(name: str) -> dict[str, Any]:
    pos = position_after(name, 400, until=in_play)
    without_tiles(pos, {h for h, t in island(pos).items() if t["back"] == ENDER[name]})
    return pos


def no_room_to_place(name: str) -> dict[str, Any]:
    """Set-up: the tile that ends the game and four more; every explorer still to place."""
    pos = position_after(name, 0)
    keep = [h for h, t in pos["tiles"].items() if t["back"] == ENDER[name]][:1]
    keep += [h for h, t in pos["tiles"].items() if t["back"] != ENDER[name]][:4]
    pos["tiles"] = {h: pos["tiles"][h] for h in keep}
    return pos


def nothing_to_place_for_the_player_to_place(name: str) -> dict[str, Any]:
    pos = position_after(name, 0)
    reds = {c for p in pos["players"] if p["name"] == "red" for c in p["colours"]}
    pos["explorers"] = {h: e for h, e in pos["explorers"].items() if e["colour"] not in reds}
    return pos


def words(name: str, text: str) -> str:
    """A line in the game's words (Space Attack: crew tokens on a station); the field stays the key."""
    if name != "space-attack":
        return text
    field, _, text = text.partition(": ")[2].partition(": ")
    for old, new in (("explorers", "crew tokens"), ("explorer", "crew token"), ("terrain tiles", "station tiles"),
                     ("island", "station")):
        text = text.replace(old, new)
    return f"position: {field}: {text}"


def ender_line(name: str) -> str:
    if name == "space-attack":
        return ("position: tiles: no core breach tile is left on the station, and the game ends only when one is "
                "turned up: add one to the station (a reactor tile with back: core_breach)")
    return ("position: tiles: no volcano tile is left on the island, and the game ends only when one is turned up: "
            "add one to the island (a mountain tile with back: volcano)")


def colours_line(name: str, pos: dict[str, Any]) -> str:
    n = 12 if name == "atlantis-1986" else 10
    prefixes = {"red": "r", "blue": "b", "green": "g", "yellow": "y"}
    ranges = ", ".join(f"{prefixes[c]}1..{prefixes[c]}{n}" for p in pos["players"] for c in p["colours"])
    return words(name, f"position: explorers: there are none, so nobody has anything to move or save: add explorers "
                       f"({ranges})")


def new_game(tmp_path: Path, key_pool: dict[str, Path], name: str, pos: dict[str, Any]) -> tuple[Any, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "position.yaml"
    path.write_text(yaml.safe_dump(pos, sort_keys=False))
    target = tmp_path / "game"
    args = ["new", str(target), "--game", name, "--position", str(path), "--seed", "cd" * 16]
    for p in PLAYERS:
        args += ["--player", f"{p}={key_pool[p]}.pub"]
    return CliRunner().invoke(main, args), target


def refused(tmp_path: Path, key_pool: dict[str, Path], name: str, pos: dict[str, Any]) -> str:
    result, target = new_game(tmp_path, key_pool, name, pos)
    assert result.exit_code == 1, result.output
    assert not target.exists()
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pbem: error: position: "), result.output
    return lines[0].removeprefix("pbem: error: ")


def accepted(tmp_path: Path, key_pool: dict[str, Path], name: str, pos: dict[str, Any]) -> None:
    """The game starts, and a bot writes a move for the player to move."""
    result, target = new_game(tmp_path, key_pool, name, pos)
    assert result.exit_code == 0, result.output
    status = CliRunner().invoke(main, ["status", str(target)])
    player = next(p for p in PLAYERS if f"waiting for {p}" in status.output)
    made = CliRunner().invoke(main, ["move", str(target), "--player", player, "--bot", "random",
                                     "--out", str(tmp_path / "m.yaml")])
    assert made.exit_code == 0, made.output
    assert "actions:\n  - " in (tmp_path / "m.yaml").read_text()


@pytest.mark.parametrize("name", SURVIVE)
def test_no_explorers_at_all_is_refused(name, tmp_path, key_pool):
    pos = no_explorers(name)
    assert refused(tmp_path / "a", key_pool, name, pos) == colours_line(name, pos)
    pos["explorers"] = reds(name, position_after(name, 0), 1)                        # one is enough
    accepted(tmp_path / "b", key_pool, name, pos)


@pytest.mark.parametrize("name", SURVIVE)
def test_no_tile_left_on_the_island_is_refused(name, tmp_path, key_pool):
    assert refused(tmp_path, key_pool, name, no_island_tiles(name)) == ender_line(name)


@pytest.mark.parametrize("name", SURVIVE)
def test_no_tile_that_ends_the_game_is_refused_and_with_it_the_game_starts(name, tmp_path, key_pool):
    assert refused(tmp_path / "a", key_pool, name, no_ender(name)) == ender_line(name)
    accepted(tmp_path / "b", key_pool, name, position_after(name, 400, until=in_play))


@pytest.mark.parametrize("name", ["atlantis", "space-attack"])
def test_a_set_up_without_room_for_its_explorers_is_refused(name, tmp_path, key_pool):
    line = refused(tmp_path / "a", key_pool, name, no_room_to_place(name))
    # two players, one colour each (the default): 20 explorers
    assert line == words(name, "position: tiles: 20 explorers wait to be placed, but there is room for 5 on the island "
                               "(set-up puts explorers on terrain tiles), none for blue's next: add terrain tiles to "
                               "the island or leave explorers out")
    pos = no_room_to_place(name)
    pos["explorers"] = reds(name, pos, 5)                                          # as many as there is room for
    accepted(tmp_path / "b", key_pool, name, pos)


def test_the_1986_edition_places_any_number_of_villagers_on_a_tile(tmp_path, key_pool):
    """(setup_limit=three: at most three a tile; beach, the default: no limit past the beaches)"""
    accepted(tmp_path / "a", key_pool, "atlantis-1986", no_room_to_place("atlantis-1986"))
    pos = no_room_to_place("atlantis-1986")
    pos["options"]["setup_limit"] = "three"
    assert refused(tmp_path / "b", key_pool, "atlantis-1986", pos) == (
        "position: tiles: 24 explorers wait to be placed, but there is room for 7 on the island (set-up puts "
        "explorers on terrain tiles), none for blue's next: add terrain tiles to the island or leave explorers out")


@pytest.mark.parametrize("name", SURVIVE)
def test_a_player_to_place_with_nothing_to_place_is_refused(name, tmp_path, key_pool):
    line = refused(tmp_path, key_pool, name, nothing_to_place_for_the_player_to_place(name))
    assert line == words(name, "position: turn.player: red has no explorer left to place: write the turn of a "
                               "player who has (blue)")


def test_ship_placement_with_no_ship_left_to_place_is_refused(tmp_path, key_pool):
    pos = position_after("atlantis", 200, until=lambda p: p["phase"] == "setup-boat")
    pos["boats"] = {h: b for h, b in pos["boats"].items() if b["where"] != "reserve"}
    assert refused(tmp_path, key_pool, "atlantis", pos) == (
        "position: boats: none is left to place in phase setup-boat: add ships in reserve, or write the phase "
        "that follows")


def test_challenge_4_needs_a_tile_on_the_island_and_challenge_2_does_not(tmp_path, key_pool):
    pos = position_after("atlantis", 400, {"end": "submerged"}, until=in_play)
    without_tiles(pos, set(island(pos)))
    assert refused(tmp_path / "a", key_pool, "atlantis", pos) == (
        "position: tiles: no terrain tile is left on the island, and with challenge #4 (end: submerged) the game "
        "ends when the last one is removed: add terrain tiles to the island")
    pos = position_after("atlantis", 400, {"end": "to-the-last"}, until=in_play)
    without_tiles(pos, set(island(pos)))       # the game ends when the last explorer leaves the board
    accepted(tmp_path / "b", key_pool, "atlantis", pos)


def test_a_step_that_waits_with_nothing_to_do_is_refused(tmp_path, key_pool):
    """No tile to remove, at the step that removes one (the game-independent check)."""
    pos = position_after("atlantis", 400, {"end": "to-the-last"}, until=in_play)
    without_tiles(pos, set(island(pos)))
    pos["turn"].update(step="remove-tile", moves=0)
    player = pos["turn"]["player"]
    assert refused(tmp_path, key_pool, "atlantis", pos) == (
        f"position: {player} has to decide (remove-tile) but has no legal action, so the game would wait for ever; "
        "change the position so that the player to decide can act (or write it as the end of the game)")


def test_the_1986_edition_with_everyone_safe_or_dead_needs_no_volcano(tmp_path, key_pool):
    """Its other end: nobody left on the board ends the game at its next step."""
    board = load_game("atlantis-1986").base.board
    isle = board.labels[sorted(board.isles)[0]]
    pos = no_ender("atlantis-1986")
    for e in pos["explorers"].values():
        if e["where"] in ("land", "sea", "boat"):
            e.update(where="isle", at=isle)
    accepted(tmp_path, key_pool, "atlantis-1986", pos)


# --- the game-independent part -------------------------------------------------------------------
class Stuck(ToyGame):
    """Waits for red, who has no legal action."""

    def legal_actions(self, state: Any, player: str) -> list[dict[str, Any]]:
        return []


class NeitherOverNorWaiting(ToyGame):
    def pending(self, state: Any) -> list[Decision]:
        return []

    def result(self, state: Any) -> None:
        return None


class BreaksOnTheThirdCard(ToyGame):
    def apply(self, state: Any, player: str, action: Any, rng: Rng) -> list[Any]:
        if "draw" in action and sum(len(h) for h in state["hands"].values()) == 2:
            raise KeyError("card 3")
        return super().apply(state, player, action, rng)


class StuckAfterTwoDraws(ToyGame):
    def legal_actions(self, state: Any, player: str) -> list[dict[str, Any]]:
        if sum(len(h) for h in state["hands"].values()) >= 2:
            return []
        return super().legal_actions(state, player)


class RefusesEmptyHands(ToyGame):
    def check_playable(self, state: Any) -> None:
        if not any(state["deck"]):
            raise PositionError("deck", "is empty: add cards")


class HookBreaks(ToyGame):
    def check_playable(self, state: Any) -> None:
        raise IndexError("list index out of range")


def toy_state(game: ToyGame, deck: list[int] | None = None) -> Any:
    state = game.setup(PLAYERS, {"limit": "3"}, Rng(b"toy", "setup"))
    if deck is not None:
        state["deck"] = deck
    return state


def refusal(game: ToyGame, state: Any) -> PositionError:
    with pytest.raises(PositionError) as exc:
        check_playable(game, state)
    assert "\n" not in str(exc.value)
    return exc.value


def test_the_toy_game_from_its_set_up_is_playable():
    check_playable(ToyGame(), toy_state(ToyGame()))
    over = toy_state(ToyGame())
    over["stopped"] = list(PLAYERS)
    check_playable(Stuck(), over)            # over: nothing more is asked


def test_a_decision_without_a_legal_action_is_refused():
    exc = refusal(Stuck(), toy_state(Stuck()))
    assert str(exc) == ("position: red has to decide (draw-or-stop) but has no legal action, so the game would wait "
                        "for ever; change the position so that the player to decide can act (or write it as the end "
                        "of the game)")
    assert not isinstance(exc, TrialFailed)


def test_a_game_neither_over_nor_waiting_is_refused():
    assert "the game is not over, but nobody has a decision to make" in str(refusal(NeitherOverNorWaiting(),
                                                                                 toy_state(ToyGame())))


def test_a_trial_game_that_breaks_is_a_rules_bug_in_one_line():
    game = BreaksOnTheThirdCard()
    exc = refusal(game, toy_state(game))
    assert isinstance(exc, TrialFailed)
    assert str(exc) == ("position: after 3 random moves from it, blue's legal action {\"draw\": true} fails "
                        "(KeyError: 'card 3'): a rules bug, please report it with the position file")
    assert str(refusal(game, toy_state(game))) == str(exc)           # the same answer every time
    stuck = refusal(StuckAfterTwoDraws(), toy_state(StuckAfterTwoDraws()))
    assert isinstance(stuck, TrialFailed) and "has to decide (draw-or-stop) but has no legal action (a rules bug" \
        in str(stuck), str(stuck)


def test_the_games_own_check_comes_first_and_a_broken_one_is_one_line():
    game = RefusesEmptyHands()
    check_playable(game, toy_state(game))
    assert str(refusal(game, toy_state(game, [0] * 20))) == "position: deck: is empty: add cards"
    broken = refusal(HookBreaks(), toy_state(HookBreaks()))
    assert isinstance(broken, TrialFailed) and "IndexError" in str(broken) and "rules bug" in str(broken)
