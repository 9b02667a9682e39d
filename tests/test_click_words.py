"""Words, not syntax: on every decision page of bot games of every game, every choice (its
button, its list entry, its history line: Game.describe_action) and every prompt the page
shows reads in words, never in move-file syntax (the set-up in one message's too); the move
file still shows the syntax.  The Survive family's page (templates/turnmodel/survive.js) says
each game's own words: Atlantis's people and ships, the 1986 edition's villagers and boats, Space
Attack's crew and escape pods, never another game's.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from click_helpers import page_words, random_point
from pbem.core.actionwords import action_words, plain_words, value_words
from pbem.core.actiontext import action_text
from pbem.core.registry import load_game
from pbem.views.choicegraph import build_graph
from pbem.views.clickpage import MAIL_CAPS, graph_model, plan_data
from pbem.views.prompts import page_prompt

sys.path.insert(0, str(Path(__file__).resolve().parent / "turnmodel"))
from harness import ModelProcess, model_files  # noqa: E402

GAMES = [
    ("atlantis", ["red", "blue", "green"], {"dolphins": "yes", "squid": "yes"}),
    ("atlantis-1986", ["red", "blue", "green"], {}),
    ("space-attack", ["red", "blue", "green"], {}),
    ("space-swarm", ["red", "blue", "green"], {}),
]
SYNTAX = ("{", "}", "[", "]")
SURVIVE = [g for g in GAMES if g[0] != "space-swarm"]
#: each Survive game's own words for its pieces, places and dice: another game's page never says them
OWN_WORDS = {
    "atlantis": ("people", "ship", "terrain tile"),
    "atlantis-1986": ("villager", "boat", "spinner"),
    "space-attack": ("crew", "escape pod", "station", "fighter"),
}


def foreign_words(name: str, text: str) -> list[str]:
    """The words of the other Survive games that ``text`` (a prompt of game ``name``'s page) says."""
    return [w for other, words in OWN_WORDS.items() if other != name for w in words if w in text.lower()]


@pytest.mark.slow(seconds=60)
def points_of(game, players, options, first_seed: int, last_step: int, every: int):
    """(steps, state, player with a decision) at every ``every``-th step of two seeded random games,
    up to ``last_step`` or the game's end."""
    for seed in range(2):
        for steps in range(0, last_step, every):
            point = random_point(game, players, options, bytes([seed + first_seed]) * 32, steps, random.Random(steps))
            if point is None:
                break
            yield (steps, *point)


@pytest.mark.parametrize("name, players, options", GAMES, ids=[g[0] for g in GAMES])
def test_no_button_or_prompt_shows_move_file_syntax(name, players, options):
    game = load_game(name)
    kinds: set[str] = set()
    pages = plans = 0
    for steps, state, player in points_of(game, players, options, first_seed=1, last_step=240, every=7):
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
        plan = plan_data(game, game.view(state, player), player)     # the set-up in one message
        for group in (plan or {}).get("groups", []):
            plans += 1
            labels = [group["prompt"]] + ([group["words"]] if isinstance(group["words"], str) else group["words"])
            for label in labels:
                assert not any(c in label for c in SYNTAX), (name, steps, "set-up plan", label)
        for a in used:
            words = graph.words[a] or graph.texts[a]
            assert not any(c in words for c in SYNTAX), (name, steps, graph.texts[a], words)
            kinds.add(graph.texts[a].split(":")[0])
    assert pages > 10 and len(kinds) >= 4
    assert plans or name == "space-swarm", "no set-up plan was seen"


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


@pytest.fixture(scope="module")
def survive_model() -> Iterator[ModelProcess]:
    with ModelProcess(model_files(["survive"])) as node:
        yield node


def as_the_page_has_it(value: Any) -> Any:
    """Data as the page's script reads it: through JSON with its keys sorted (pbem.views.render.scriptdata)."""
    return json.loads(json.dumps(value, sort_keys=True))


@pytest.mark.slow(seconds=40)
@pytest.mark.parametrize("name, players, options", SURVIVE, ids=[g[0] for g in SURVIVE])
def test_each_survive_page_says_its_own_games_words(name, players, options, survive_model):
    """At decision points of random games (the set-up and the turns), the Survive model of the
    page, started from the page's own data (its keys sorted as the page has them), says each
    decision in the game's own words (Game.turn_model's ``prompts``): words, no move-file syntax,
    none of another Survive game's words; and lists the choices in the engine's order (the set-up's
    pieces r1, r2 ... r10, not r1, r10, r2)."""
    game = load_game(name)
    said: dict[str, str] = {}
    for steps, state, player in points_of(game, players, options, first_seed=7, last_step=160, every=5):
        view = game.view(state, player)
        model = game.turn_model(view, player)
        assert model is not None and model.family == "survive"
        s = survive_model.start("survive", as_the_page_has_it(model.data), as_the_page_has_it(view), player)
        decision = survive_model.decision(s)
        engine = game.pending(state)[0]
        assert decision is not None and decision["kind"] == engine.kind
        prompt = decision["prompt"]
        assert prompt == model.data["prompts"][engine.kind], (name, steps, engine.kind, prompt)
        assert not any(c in prompt for c in SYNTAX), (name, steps, prompt)
        assert foreign_words(name, prompt) == [], (name, steps, prompt)
        said[engine.kind] = prompt
        legal = survive_model.legal(s)
        if legal is not None:
            assert json.dumps(legal) == json.dumps(game.legal_actions(state, player)), (name, steps, engine.kind)
        survive_model.drop([s])
    assert {"setup-place", "move", "remove-tile"} <= set(said), said
    own = " ".join(said.values())
    assert all(w in own for w in OWN_WORDS[name][:2]), (name, said)      # the game's own pieces, by name


RULESETS = [  # game, players, options: every Survive ruleset's decisions have the page's words
    ("atlantis", 3, {}), ("atlantis", 3, {"dolphins": "yes", "squid": "yes"}), ("atlantis", 3, {"squid": "replace-whales"}),
    ("atlantis", 5, {"overpopulated": "yes"}), ("atlantis-1986", 2, {"spinner": "dice", "start_boats": "placed"}),
    ("atlantis-1986", 4, {}), ("space-attack", 3, {}), ("space-attack", 6, {"overpopulated": "yes"}),
]


@pytest.mark.parametrize("name, count, options", RULESETS)
def test_every_survive_decision_has_the_games_words(name, count, options):
    """Each decision a Survive ruleset has is worded for the page (Game.turn_model's ``prompts``, from
    SurviveRules.model_prompts): the game's own words, none of another Survive game's, no syntax."""
    from pbem.core.rng import Rng
    game = load_game(name)
    players = ["red", "blue", "green", "yellow", "purple", "orange"][:count]
    state = game.setup(players, game.resolve_options(options, players), Rng(b"w" * 32, "setup"))
    model = game.turn_model(game.view(state, "red"), "red")
    assert model is not None
    prompts = model.data["prompts"]
    assert set(prompts) == set(game.rules(state).deciders), (name, options)
    for kind, words in prompts.items():
        assert words and not any(c in words for c in SYNTAX) and foreign_words(name, words) == [], (kind, words)
    if options.get("spinner") == "dice":                # the 1986 dice that replace the spinner
        assert "the dice show" in prompts["creature"] and not any("spinner" in w for w in prompts.values())


@pytest.mark.parametrize("name", ["atlantis", "atlantis-1986", "space-attack", "space-swarm"])
def test_the_html_digest_says_who_is_waiting_for_what_in_words(name, key_pool, tmp_path):
    """The HTML digest's "Waiting for" names each decision in words (QA: it showed
    ``red: setup-place - place an explorer ... {place: r1, on: G5}``); the text digest, read by a
    player who writes the move file by hand, keeps the prompt's examples."""
    import re

    from pipeline_helpers import new_game
    gd = new_game(tmp_path / name, name, key_pool, ["red", "blue"])
    html = (gd.public_dir / "digest.html").read_text()
    waiting = re.search(r'<section class="pending">(.*?)</section>', html, re.S)
    assert waiting is not None
    lines = re.findall(r"<li>(.*?)</li>", waiting.group(1), re.S)
    assert lines and all(not any(s in line for s in SYNTAX) for line in lines), lines
    assert all(re.match(r"(red|blue): [A-Za-z]", line) for line in lines), lines
    from pbem.store.table import Table
    table = Table.load(gd)
    text = " ".join((gd.public_dir / "digest.txt").read_text().split())
    for d in table.game.pending(table.state):         # the text digest: the decision's kind and whole prompt
        assert " ".join(f"{d.player}: {d.kind} - {d.prompt}".split()) in text, (d, text)
