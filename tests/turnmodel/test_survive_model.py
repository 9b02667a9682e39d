"""The Survive family's turn model (templates/turnmodel/survive.js) proven against the engine
(survive_proof.py says how): states from every golden game and from random games over option
combinations; random walks through the player's turn at each, every action's successor at some.

``PBEM_TURNMODEL_SOAK=N`` (``make soak-turnmodel``) takes N times as many states and prints the
figures: the share of decision points whose whole turn the model follows to its real stop."""
from __future__ import annotations

import os
import random
import sys
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Iterator

import pytest
from harness import ModelProcess, made, model_files, ok
from survive_proof import Prover, Tally

from pbem.core.picture import OrderField, OrderForm
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import Game

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "golden"))
from golden_games import CONFIGS, replay  # noqa: E402

SOAK = int(os.environ.get("PBEM_TURNMODEL_SOAK", "0") or 0)
EVERY = max(1, 31 // (SOAK or 1))          # a golden game's steps looked at: every EVERY-th


@pytest.fixture(scope="module")
def node() -> Iterator[ModelProcess]:
    with ModelProcess(model_files(["survive"])) as process:
        yield process


@pytest.fixture(scope="module")
def tally() -> Iterator[Tally]:
    found = Tally()
    yield found
    if SOAK:
        games = sorted({g for g, _ in found.ends})
        print(f"\nturn model walks: {found.points} decision points, {found.steps} steps checked")
        for g in games:
            ends = {e: n for (gg, e), n in found.ends.items() if gg == g}
            print(f"  {g}: whole turn modelled at {found.share(g):.1%} of walks {ends}")
        print("  cut at:", dict(found.cut_kinds))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"golden{c.game_no:02d}")
def test_golden_game_states(config: Any, node: ModelProcess, tally: Tally) -> None:
    prover = Prover(node, tally)
    rng = random.Random(config.game_no)
    for game, state, number, _step in replay(config):
        if number % EVERY == 1:
            prover.point(game, state, rng, f"{config.describe()} step {number}")
        if number % (EVERY * 9) == 2:
            prover.exhaustive(game, state, f"{config.describe()} step {number}")


def random_game(game: Game[Any], players: list[str], options: dict[str, str], seed: int) -> Iterator[Any]:
    """The states of one game of random moves (each action taken at random from the legal ones)."""
    state = game.setup(players, options, Rng(b"turn-model", f"{seed}/setup"))
    pick = random.Random(seed)
    for step in range(400):
        pending = game.pending(state)
        if not pending:
            return
        yield state
        player = pending[0].player
        legal = game.legal_actions(state, player)
        game.apply(state, player, legal[pick.randrange(len(legal))], Rng(b"turn-model", f"{seed}/{step}"))


#: option combinations played by random games (the golden games cover each option value once)
RANDOM_GAMES = (
    ("atlantis", 2, {}),
    ("atlantis", 4, {"lagoon": "land", "end": "to-the-last"}),
    ("atlantis", 3, {"squid": "yes", "end": "submerged"}),
    ("atlantis", 5, {"squid": "replace-whales", "overpopulated": "yes"}),
    ("atlantis", 6, {"overpopulated": "yes", "end": "to-the-last"}),
    ("atlantis", 3, {"dolphins": "yes"}),
    ("atlantis-1986", 3, {}),
    ("space-attack", 3, {}),
)


@pytest.mark.parametrize("name,n,options", RANDOM_GAMES, ids=lambda v: str(v))
def test_random_game_states(name: str, n: int, options: dict[str, str], node: ModelProcess, tally: Tally) -> None:
    game = load_game(name)
    players = ["red", "blue", "green", "yellow", "purple", "orange"][:n]
    prover = Prover(node, tally)
    for seed in range(max(1, SOAK)):
        rng = random.Random(seed)
        for k, state in enumerate(random_game(game, players, options, seed)):
            if k % EVERY == 3:
                prover.point(game, state, rng, f"random {name} {n} players {options} seed {seed} step {k}")


#: the parts of the turn each Atlantis expansion leaves to the moderator's engine, by design: written-ahead
#: orders are not offered for the dive dice (docs/playing.md); every other part is the model's
EXPANSION_PARTS_OFF = (
    ({}, set()),
    ({"dolphins": "yes"}, {"ahead"}),
    ({"squid": "yes"}, set()),
    ({"squid": "replace-whales"}, set()),
    ({"dolphins": "yes", "squid": "yes"}, {"ahead"}),
)


@pytest.mark.parametrize("options,off", EXPANSION_PARTS_OFF, ids=lambda v: str(v))
def test_each_atlantis_expansion_keeps_its_turn_on_the_page(options: dict[str, str], off: set[str]) -> None:
    """A hook an expansion overrides in a set form of a rule the model plays (``serpent_stop_cells`` of
    ``stops_serpent``, ``whale_stop_cells`` of ``stops_whale``) is covered with it: otherwise the whole
    part goes off the page (the dive decision of Dolphins & Dive Dice, the creature step and its
    written-ahead orders with the Giant Squid), and the player writes it by hand in a second message."""
    game = load_game("atlantis")
    state = game.setup(["red", "blue", "green"], options, Rng(b"turn-model", "expansion parts"))
    model = game.turn_model(game.view(state, "red"), "red")
    assert model is not None
    assert {part for part, on in model.data["parts"].items() if not on} == off, model.data["not_modelled"]


@pytest.mark.parametrize("name", ["atlantis", "atlantis-1986", "space-attack"])
def test_the_model_works_out_the_boards_geometry_as_the_engine_has_it(name: str, node: ModelProcess) -> None:
    """The model's data carries the board's labels only: the model works out each cell's neighbours
    and (Space Attack) each playable cell's straight lines, and they are the engine's own."""
    game = load_game(name)
    players = ["red", "blue", "green"]
    state = game.setup(players, {}, Rng(b"turn-model", "geometry"))
    view = game.view(state, "red")
    model = game.turn_model(view, "red")
    assert model is not None and "neighbours" not in model.data and model.data["params"]["rays"] in (True, False)
    g = node.state(node.start(model.family, model.data, view, "red"))["g"]
    rules = game.view_rules(view)             # type: ignore[attr-defined]
    assert g["neighbours"] == [list(n) for n in rules.board.neighbours]
    if name == "space-attack":
        assert g["rays"] == [[list(line) for line in lines] for lines in rules.rays]
        assert sum(len(line) for lines in g["rays"] for line in lines) > 1000
    else:
        assert g["rays"] is None


#: (game, players, options) whose random games' decision pages are labelled in the next test
LABELLED = (("atlantis", 3, {}), ("atlantis-1986", 3, {}), ("space-attack", 3, {}))


@pytest.mark.parametrize("name,n,options", LABELLED, ids=lambda v: str(v))
def test_the_pages_choices_label_is_the_plain_explorations_and_rarely_cut(name: str, n: int, options: dict[str, str],
                                                                         node: ModelProcess) -> None:
    """The page's data-choices comes from the model's ``choices``: it explores the player's turn with
    the states of a movement step merged by what can change the answer.  Wherever exploring every
    state one by one finishes (1,000 states: ``node.explore``, the runner's exploration from the
    core API, the answer of survive.js's ``choices(state, 1000, false)``; test_harness.py compares
    them), both give the same label; a part of the turn the model does not know is still found
    ("cut"); and merged, a whole mid-game turn fits the page's 2,000 states, so at most 5% of the
    pages say "cut" (issue 21)."""
    game = load_game(name)
    players = ["red", "blue", "green", "yellow"][:n]
    labels: dict[str, int] = {}
    compared = 0
    for seed in (1, 2):
        for k, state in enumerate(random_game(game, players, options, seed)):
            if k % 7 != 3:
                continue
            player = game.pending(state)[0].player
            view = game.view(state, player)
            model = game.turn_model(view, player)
            assert model is not None
            # the page's label, the plain exploration's (every 35th step) and, with the movement
            # parts off, the model's decision: one exchange
            calls: list[dict[str, Any]] = [{"op": "start", "family": model.family, "data": model.data, "view": view,
                                            "player": player}, {"op": "method", "s": made(0), "name": "choices"}]
            if k % 35 == 3:
                calls.append({"op": "explore", "s": made(0), "cap": 1000})
            off_at = len(calls)
            if view.get("phase") == "play" and model.data["parts"].get("move"):
                off = {**model.data, "parts": {**model.data["parts"], "move": False, "tile": False}}
                calls += [{"op": "start", "family": model.family, "data": off, "view": view, "player": player},
                          {"op": "decision", "s": made(off_at)}]
            answers = node.answers(calls)
            s = int(ok(answers[0], "start"))
            merged = ok(answers[1], "method")
            labels[merged] = labels.get(merged, 0) + 1
            if k % 35 == 3:
                plain = ok(answers[2], "explore")
                if plain != "cut":
                    assert merged == plain, f"{name} seed {seed} step {k}: merged {merged}, every state {plain}"
                    compared += 1
            if len(answers) > off_at:
                t, decision = int(ok(answers[off_at], "start")), ok(answers[off_at + 1], "decision")
                if decision is not None and decision["kind"] in ("move", "play-tile"):
                    assert node.method(t, "choices") == "cut", f"{name} seed {seed} step {k}: a part off is a cut"
                node.drop([t])
            node.drop([s])
    pages = sum(labels.values())
    assert compared >= 1 and pages >= 20, (compared, pages)
    assert labels.get("cut", 0) <= 0.05 * pages, labels


def test_a_forms_data_is_its_asdict() -> None:
    """``OrderForm.as_data`` (the turn model's standing-orders forms) is ``dataclasses.asdict``:
    the same dict for every field of the form and of its fields (a field added to either is missed
    here first), on the forms of the three games' set-ups and a removal."""
    forms = []
    for name in ("atlantis", "atlantis-1986", "space-attack"):
        game = load_game(name)
        state = game.setup(["red", "blue", "green"], {}, Rng(b"turn-model", "forms"))
        forms += game.order_forms(game.view(state, "red"), "red")
    forms.append(OrderForm("creature", "t", (OrderField("whale", "w", ("a", "b"), ("A", "B"), "a"),), "ahead", "n"))
    assert forms and all(form.as_data() == asdict(form) and list(form.as_data()) == list(asdict(form))
                         for form in forms)
    assert [list(f) for f in forms[-1].as_data()["fields"]] == [[x.name for x in fields(OrderField)]]
