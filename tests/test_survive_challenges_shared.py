"""Survive's challenges #1 "Overpopulated!" and #2 "To the last!" and its 5-6 player kit exist
once (pbem/rules/survive/challenges.py), and Atlantis and Space Attack both play them, each in
its own words (its vocabulary)."""
from __future__ import annotations

import pytest

from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import IllegalAction
from pbem.rules.atlantis.game import AtlantisGame
from pbem.rules.spaceattack.game import SpaceAttackGame
from pbem.rules.spaceattack.vocabulary import SPACE_ATTACK_WORDS
from pbem.rules.survive import challenges
from pbem.rules.survive.vocabulary import SURVIVE_WORDS


def layers_of(game_name: str, options: dict[str, str], n_players: int) -> tuple[type, ...]:
    game = load_game(game_name)
    assert isinstance(game, (AtlantisGame, SpaceAttackGame))
    return game.layers(game.full_options(options), n_players)


@pytest.mark.parametrize("game_name", ["atlantis", "space-attack"])
def test_both_games_play_the_one_overpopulated_and_to_the_last(game_name: str) -> None:
    assert challenges.Overpopulated in layers_of(game_name, {"overpopulated": "yes"}, 3)
    assert challenges.ToTheLast in layers_of(game_name, {"end": "to-the-last"}, 3)
    assert not set(layers_of(game_name, {}, 3)) & {challenges.Overpopulated, challenges.ToTheLast}


@pytest.mark.parametrize("game_name", ["atlantis", "space-attack"])
@pytest.mark.parametrize("n_players", [5, 6])
def test_both_games_play_the_one_5_6_player_kit(game_name: str, n_players: int) -> None:
    kit = [layer for layer in layers_of(game_name, {}, n_players) if issubclass(layer, challenges.Players56)]
    assert len(kit) == 1
    assert not [layer for layer in layers_of(game_name, {}, 4) if issubclass(layer, challenges.Players56)]


def test_no_game_module_defines_a_challenge_of_its_own_under_the_shared_names() -> None:
    from pbem.rules.atlantis import challenges as atlantis_challenges
    assert atlantis_challenges.Overpopulated is challenges.Overpopulated
    assert atlantis_challenges.ToTheLast is challenges.ToTheLast
    with pytest.raises(ModuleNotFoundError):
        __import__("pbem.rules.spaceattack.layers")


def test_every_vocabulary_names_every_word_of_the_core() -> None:
    assert set(SPACE_ATTACK_WORDS) == set(SURVIVE_WORDS)
    assert all(isinstance(v, str) and v for v in SPACE_ATTACK_WORDS.values())


@pytest.mark.parametrize(("game_name", "piece", "other"), [("atlantis", "explorer", "crew"),
                                                            ("space-attack", "crew token", "explorer")])
def test_each_game_reads_the_shared_challenges_in_its_own_words(game_name: str, piece: str, other: str) -> None:
    game = load_game(game_name)
    players = ["a", "b", "c", "d", "e", "f"]
    state = game.setup(players, {"overpopulated": "no"}, Rng(b"words", "setup"))
    rules = game.rules(state)
    assert isinstance(rules, challenges.Players56)
    prompt = game.pending(state)[0].prompt
    assert piece in prompt and other not in prompt
    # play the set-up to the sixth player's final placement: "onto an occupied tile"
    rng = Rng(b"words", "play")
    refusal = ""
    while game.pending(state) and game.pending(state)[0].kind == "setup-place":
        decision = game.pending(state)[0]
        if rules.final_placement_on_occupied(state, decision.player):
            own = next(c for c in state.tile_at if rules.has_own_colour(state, decision.player, c))
            mine = rules.reserve_explorers(state, decision.player)[0]
            with pytest.raises(IllegalAction) as refused:
                game.apply(state, decision.player, {"place": mine, "on": rules.label(own)}, rng)
            refusal = str(refused.value)
            assert piece in decision.prompt and other not in decision.prompt
            break
        state_actions = game.legal_actions(state, decision.player)
        game.apply(state, decision.player, state_actions[0], rng)
    article = "an" if piece[0] in "aeiou" else "a"
    assert refusal == f"{rules.label(own)} already holds {article} {piece} of your colour"
