"""The bots' fast forms (issue 12, third round) agree with the plain rules, at every step of
every golden game and of simulated games with each bot.

* ``Game.bot_favourites`` (the greedy bot's best-scored actions, found without scoring where no
  action is scored) equals the indexes within 1e-9 of the best of ``bot_preference`` of each
  listed legal action (and ``bot_preferences`` of the list equals those scores);
* the movement step's listing equals the game's plain ``legal_move`` (Space Attack's and the 1986
  edition's chain the core's ``MoveChoices`` with their shots, tiles and dolphin rides);
* the movement step (``pbem.rules.survive.movement.MoveChoices``) and step 4 give the listed
  actions and their scores in every order of use: counted first and then listed (the random
  bot), counted, scored and then listed (in the golden games), scored first (the greedy bot),
  or every piece's steps listed first and the length taken from them; a piece listed after
  being counted is checked against its count (test_fast_paths.py checks the other fast forms
  at the same steps);
* the overpopulated challenge's set-up spots (``crowded_setup_spots``) are each tile's plain
  ``people_allowed_at_setup``;
* the greedy bot's scores of the movement step (each explorer scored as its steps would be
  listed, without listing them; a ship without the player's explorers only counted) equal the
  plain scores, and the counts they find are each piece's listing;
* Space Attack's deployments (step 1), made when read, are the plain ``legal_deploy``;
* the set-up's empty tiles, read from the island's index (``State.tile_at``, in handle order),
  are the tiles the plain rule names;
* Atlantis's dive dice (challenge #6): each piece's spaces read from its sea walk
  (``Dolphins.dive_cells``) are the plain ``dive_destinations``'s, and the movement step (listed
  in full only where a swimmer may take its dolphin along) is the plain ``legal_move``, in
  simulated games with dolphins and squids too;
* challenge #2's end check ("To the last!": ``ToTheLast.explorers_on_board``, read from the
  state's indexes) is whether any explorer is on land, at sea or aboard a ship.
"""
from __future__ import annotations

from typing import Any

import pytest
from golden_games import CONFIGS, Config, replay

from pbem.core.bots import CHOOSERS
from pbem.core.choices import Chain
from pbem.core.draws import setup_rng
from pbem.core.engine import action_rng
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import Game
from pbem.rules.survive.movement import MoveChoices
from pbem.rules.survive.challenges import Overpopulated, ToTheLast
from pbem.rules.survive.setup import SetupRules
from pbem.rules.atlantis1986.view import STEP_DIVE
from pbem.rules.atlantis1986.island import IslandRules1986
from pbem.rules.atlantis1986.spinner import SpinnerRules1986
from pbem.rules.atlantis.dive import STEP_DIVE as STEP_DIVE_DICE, Dolphins
from pbem.rules.spaceattack.turn import STEP_DEPLOY, TurnRules
from pbem.rules.survive.state import BOAT, ISLAND, LAND, PLAY, SEA, SETUP_PLACE, STEP_CREATURE, STEP_MOVE

SURVIVE = [c for c in CONFIGS if c.game in ("atlantis", "atlantis-1986", "space-attack")]


def plain_favourites(scores: list[float]) -> list[int]:
    """The greedy bot's choice set as it was written first: every index within 1e-9 of the best."""
    if not scores:
        return []
    least = max(scores) - 1e-9
    return [i for i, s in enumerate(scores) if s >= least]


def moves(choices: Any) -> list[MoveChoices]:
    """The movement step's sequence, if ``choices`` is one or chains one (Space Attack's shots and
    tiles, the 1986 edition's dolphin rides come after it); [] for the other decisions."""
    if isinstance(choices, Chain):
        return [part for part in choices.parts if isinstance(part, MoveChoices)]
    return [choices] if isinstance(choices, MoveChoices) else []


def check_state(game: Game, state: Any, scored_after_count: bool = False) -> int:
    """Compare the fast forms with the plain rules on ``state``; returns how many were compared.
    ``scored_after_count``: also the order "counted, scored, then read" (the golden games)."""
    rules = game.rules(state)             # type: ignore[attr-defined]
    compared = 0
    if type(rules).placement_spots is SetupRules.placement_spots:     # the core's, from the tile index
        assert rules.placement_spots(state) == [t.cell for t in state.tiles.values()
                                                if t.where == ISLAND and not state.on_land(t.cell)]
    assert list(state.tile_at) == [t.cell for t in state.tiles.values() if t.where == ISLAND]
    check_setup_and_spin(rules, state)
    check_pieces(rules, state)
    check_dive_dice(rules, state)
    check_board_emptied(rules, state)
    for player in state.players:
        listed = rules.legal_actions(state, player)
        if rules.decider(state) == player and rules.current_step(state) == STEP_MOVE:
            assert listed == rules.legal_move(state, player)      # the game's plain listing of the step
        if rules.decider(state) == player and rules.current_step(state) == STEP_CREATURE:
            assert listed == rules.legal_creature(state, player)  # (the 1986 spinner's orders: pairs made when read)
        if rules.decider(state) == player and rules.current_step(state) == STEP_DIVE:
            assert listed == rules.legal_dive(state, player)
        if rules.decider(state) == player and rules.current_step(state) == STEP_DEPLOY:
            assert listed == rules.legal_deploy(state, player)    # (Space Attack's deployments: pairs made when read)
        scores = [rules.bot_preference(state, player, a) for a in listed]     # one action at a time
        assert rules.bot_preferences(state, player, listed) == scores
        favourites = list(rules.bot_favourites(state, player, rules.legal_choices(state, player)))
        assert favourites == plain_favourites(scores)
        scored_first = rules.legal_choices(state, player)           # the greedy bot's: scored, then read
        assert rules.bot_preferences(state, player, scored_first) == scores
        assert [scored_first[i] for i in favourites] == [listed[i] for i in favourites]
        assert len(scored_first) == len(listed)
        chosen_first = rules.legal_choices(state, player)           # the greedy bot's own order: favourites, then
        top = rules.bot_favourites(state, player, chosen_first)     # read by index (Space Attack's hand tiles are
        assert [chosen_first[i] for i in top] == [listed[i] for i in favourites]   # made only if read)
        assert list(chosen_first) == listed
        for part in moves(scored_first):                            # the counts the scores found
            assert part.counts() == [len(part.group(i)) for i in range(len(part.pieces))]
        counted_first = rules.legal_choices(state, player)          # the random bot's order: count, then list
        assert len(counted_first) == len(listed)
        assert list(counted_first) == listed
        if scored_after_count:
            counted_scored = rules.legal_choices(state, player)     # counted, then scored, then read
            assert len(counted_scored) == len(listed)
            assert rules.bot_preferences(state, player, counted_scored) == scores
            assert list(counted_scored) == listed
        listed_first = rules.legal_choices(state, player)           # the greedy bot's: every piece's steps first
        for part in moves(listed_first):
            for i in range(len(part.pieces)):
                part.steps_of(i)
        assert len(listed_first) == len(listed)
        assert [listed_first[i] for i in range(len(listed_first))] == listed
        for part in moves(rules.legal_choices(state, player)):      # each count equals its piece's listing
            assert part.counts() == [len(part.group(i)) for i in range(len(part.pieces))]
        compared += 1
    return compared


def check_setup_and_spin(rules: Any, state: Any) -> None:
    """The set-up's one-space check (``placeable``) is membership of the listing; the 1986
    edition's set-up spots are its plain rule (``tile_limit_at_setup`` of each island tile); and
    its spinner's "may any of these creatures move" (``any_may_move``, asked without walking) is
    whether each creature's walk (``creature_destinations``) finds anywhere."""
    if state.phase == SETUP_PLACE:
        spots = rules.placement_spots(state)
        assert [c for c in range(rules.board.playable_count) if rules.placeable(state, c)] == spots
        if isinstance(rules, Overpopulated):      # its spots with the sea read once: each tile's plain limit
            assert rules.crowded_setup_spots(state) == [
                t.cell for t in state.tiles.values()
                if t.where == ISLAND and len(state.on_land(t.cell)) < rules.people_allowed_at_setup(state, t.cell)]
        if isinstance(rules, IslandRules1986):
            plain = []
            for t in state.tiles.values():
                limit = rules.tile_limit_at_setup(state, t)
                if t.where == ISLAND and (limit is None or len(state.on_land(t.cell)) < limit):
                    plain.append(t.cell)
            assert spots == plain
    if isinstance(rules, SpinnerRules1986) and state.phase == PLAY and state.turn.die is not None:
        kind = rules.spun(state)[0]
        for handle in rules.on_board(state, kind):
            walked = bool(rules.creature_destinations(state, state.creatures[handle]))
            assert rules.any_may_move(state, [handle]) == walked
        assert rules.any_may_move(state, rules.on_board(state, kind)) == any(
            rules.creature_destinations(state, state.creatures[h]) for h in rules.on_board(state, kind))


def check_pieces(rules: Any, state: Any) -> None:
    """For every player: the movement step's ships (``boats_to_move``) are the plain
    ``movable_boats`` (each ship's ``controllers`` asked); Space Attack's manned turrets are the
    turrets whose tile holds the player's crew (``mans_turret`` asked of each), its fighters' counts
    their flights, the Queen's stop spaces hers asked space by space, and its one-pass questions (crew in play, a tile from an earlier turn in hand)
    the plain listings' answers."""
    for player in state.players:
        assert rules.boats_to_move(state, player) == rules.movable_boats(state, player)
        if isinstance(rules, TurnRules):
            turrets = rules.turrets(state)
            assert rules.manned_turrets(state, player) == [t for t in turrets if rules.mans_turret(state, player, t)]
            assert rules.fire_choices(state, player) == rules.legal_fire(state, player)
            assert rules.crew_in_play(state, player) == bool(rules.explorers_in_play(state, player))
            earlier = rules.earlier(state)
            assert rules.holds_earlier_tile(state, player) == any(earlier(state.tiles[h])
                                                                  for h in rules.hand(state, player))
    if isinstance(rules, TurnRules):
        cells = range(rules.board.playable_count)
        assert rules.queen_stop_cells(state) == {c for c in cells if rules.stops_queen(state, c)}
        for fighter in rules.fighter_handles:
            if state.boats[fighter].where == SEA:
                assert rules.flight_count(state, fighter) == len(rules.flights(state, fighter))


@pytest.mark.parametrize("config", SURVIVE, ids=[f"game{c.game_no:02d}-{c.game}" for c in SURVIVE])
def test_fast_forms_equal_the_plain_rules_in_the_golden_games(config: Config) -> None:
    compared = steps = 0
    for game, state, _number, _step in replay(config):
        compared += check_state(game, state, scored_after_count=True)
        steps += 1
    assert compared > steps


@pytest.mark.parametrize("bot", ["random", "greedy"])
@pytest.mark.parametrize("name", ["atlantis", "atlantis-1986", "space-attack"])
def test_fast_forms_equal_the_plain_rules_in_simulated_games(name: str, bot: str) -> None:
    """Whole 4-player games played by a bot (as ``pbem.core.bots.simulate`` plays them), checked at every step."""
    game = load_game(name)
    players = ["red", "blue", "green", "yellow"]
    for k in range(3):
        seed = f"fast-forms/{name}/{bot}/{k}".encode()
        state = game.setup(players, game.full_options({}), setup_rng(seed, "sim"))
        bot_rng, steps = Rng(seed, "bot"), 0
        while game.result(state) is None:
            check_state(game, state)
            player = game.pending(state)[0].player
            action = CHOOSERS[bot](game, state, player, bot_rng)
            steps += 1
            game.apply(state, player, action, action_rng(seed, "sim", steps, 0))
        assert steps > 100


def check_dive_dice(rules: Any, state: Any) -> None:
    """Atlantis's dive dice: each piece's spaces (``dive_cells``, read from its sea walk) are the
    plain ``dive_destinations``'s; the decision's listing is compared with the plain ``legal_dive``
    in :func:`check_state`."""
    if isinstance(rules, Dolphins) and state.phase == PLAY and rules.current_step(state) == STEP_DIVE_DICE:
        for piece in rules.dive_pieces(state):
            assert rules.dive_cells(state, piece) == [cell for cell, _swimmers in rules.dive_destinations(state, piece)]


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_fast_forms_equal_the_plain_rules_with_dolphins_and_squids(bot: str) -> None:
    """A whole Atlantis game with the dive dice, the squids instead of whales and the overpopulated
    challenge, checked at every step (the golden games with dolphins play the rest: squids and
    whales, the to-the-last end, 3-6 players)."""
    game = load_game("atlantis")
    options = [{"dolphins": "yes", "squid": "replace-whales", "overpopulated": "yes"}]
    dives = 0
    for k, chosen in enumerate(options):
        seed = f"fast-forms/dolphins/{bot}/{k + 1}".encode()
        players = ["red", "blue", "green", "yellow"]
        state = game.setup(players, game.full_options(chosen), setup_rng(seed, "sim"))
        bot_rng, steps = Rng(seed, "bot"), 0
        while game.result(state) is None:
            check_state(game, state)
            rules = game.rules(state)              # type: ignore[attr-defined]
            dives += state.phase == PLAY and rules.current_step(state) == STEP_DIVE_DICE
            player = game.pending(state)[0].player
            action = CHOOSERS[bot](game, state, player, bot_rng)
            steps += 1
            game.apply(state, player, action, action_rng(seed, "sim", steps, 0))
        assert steps > 100
    assert dives > 10


def check_board_emptied(rules: Any, state: Any) -> None:
    """Challenge #2's end check, read from the indexes, is each explorer's ``where`` asked."""
    if isinstance(rules, ToTheLast):
        assert rules.explorers_on_board(state) == any(e.where in (LAND, BOAT, SEA) for e in state.explorers.values())
