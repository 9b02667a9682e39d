"""Words, not syntax: on every decision page of bot games of every game, every choice (its
button, its list entry, its history line: Game.describe_action) and every prompt the page
shows reads in words, never in move-file syntax; the move file still shows the syntax.
"""
from __future__ import annotations

import random

import pytest

from click_helpers import page_words, random_point
from pbem.core.actionwords import action_words, plain_words, value_words
from pbem.core.actiontext import action_text
from pbem.core.registry import load_game
from pbem.views.choicegraph import build_graph
from pbem.views.clickpage import MAIL_CAPS, graph_model, page_prompt

GAMES = [
    ("atlantis", ["red", "blue", "green"], {"dolphins": "yes", "squid": "yes"}),
    ("atlantis-1986", ["red", "blue", "green"], {}),
    ("space-attack", ["red", "blue", "green"], {}),
    ("space-swarm", ["red", "blue", "green"], {}),
]
SYNTAX = ("{", "}", "[", "]")


@pytest.mark.slow(seconds=60)
@pytest.mark.parametrize("name, players, options", GAMES, ids=[g[0] for g in GAMES])
def test_no_button_or_prompt_shows_move_file_syntax(name, players, options):
    game = load_game(name)
    kinds: set[str] = set()
    pages = 0
    for seed in range(2):
        for steps in range(0, 240, 7):
            point = random_point(game, players, options, bytes([seed + 1]) * 32, steps, random.Random(steps))
            if point is None:
                break
            state, player = point
            graph = build_graph(game, state, player, MAIL_CAPS)
            assert graph is not None
            data = graph_model(game, game.view(state, player), graph)
            pages += 1
            used = sorted({a for n in graph.nodes for a in n.actions})   # every action a node offers, each once
            if data["words"]:               # the words as the page puts them together are the engine's
                shown = page_words(data)
                assert all(shown[a] == graph.words[a] for a in used)
            for prompt in data["prompts"]:
                assert not any(c in prompt for c in SYNTAX), (name, steps, prompt)
            for a in used:
                words = graph.words[a] or graph.texts[a]
                assert not any(c in words for c in SYNTAX), (name, steps, graph.texts[a], words)
                kinds.add(graph.texts[a].split(":")[0])
    assert pages > 10 and len(kinds) >= 4


def test_the_words_of_an_action():
    assert value_words([1, "a"]) == "1, a" and value_words({"C4": 1, "D5": 2}) == "C4 1, D5 2"
    assert value_words(None) == "none" and value_words(True) == "yes"
    assert plain_words({"move": "C4", "path": ["D4", "E5"]}) == "Move C4, path D4, E5"
    broken = {"place": lambda a: f"Place {a['place']} on {a['on']}"}
    assert action_words({"place": "r1", "on": "F6"}, broken) == "Place r1 on F6"
    assert action_words({"place": "r1"}, broken) == "Place r1"          # the phrase does not fit: read plainly
    atlantis, attack, swarm = load_game("atlantis"), load_game("space-attack"), load_game("space-swarm")
    assert atlantis.describe_action({"move": "r5", "to": "E9", "swim": True}) == "Move r5 to E9 (swim)"
    assert atlantis.describe_action({"done": "move"}) == "End your moves"
    assert attack.describe_action({"move": "r5", "to": "E9", "drift": True}) == "Move r5 to E9 (drift)"
    assert attack.describe_action({"fire": "T37", "at": "F9"}) == "Fire turret T37 at F9"
    assert swarm.describe_action({"move": "H8", "path": ["G8", "A3"], "fleets": 2}) == "Move 2 fleets from H8 along G8, A3"
    assert swarm.describe_action({"produce": {"C4": 1, "D5": 2}}) == "Produce 1 on C4, 2 on D5"
    assert action_text({"done": "move"}) == "{done: move}"                 # the move file keeps its syntax


@pytest.mark.parametrize("prompt, shown", [
    ("step 2: 2 movement point(s) left: {move: b1, to: G5}, {move: B1, to: F4} or {done: move}",
     "step 2: 2 movement point(s) left"),
    ("Attack Phase: {attack: all} (targets: {D4: green} where several enemies share a space)", "Attack Phase"),
    ("sink a tile, one of D8, E4, F4: {remove: D8}", "sink a tile, one of D8, E4, F4"),
    ("Move Phase: {move: C4, path: [D4, E5]} ... then {done: move}", "Move Phase"),
    ("place an explorer", "place an explorer"),
    ("{slot: 1}", "Your choice"),
])
def test_a_prompt_as_the_page_shows_it(prompt, shown):
    assert page_prompt(prompt) == shown
