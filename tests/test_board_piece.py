"""``Game.board_piece``: one piece of the board picture, drawn alone, is the piece the whole
picture draws; ``Game.board_places``, found without drawing, are the places read off the whole
picture; and the set-up plan's template fill reads a template as the page's script does.

The click-to-move page's set-up plan (pbem/views/setupplan.py) asks how each piece a player may
place looks once placed: Atlantis, the 1986 edition and Space Attack draw that one piece
(``atlantis_piece``, ``spaceattack.picture.piece``) rather than the whole board.  At random
points of random games of all four games (set-up and play), for every viewer and every handle
of the view (people, vessels, creatures, passengers, a handle that is no piece), the piece drawn
alone equals the one found on the whole picture (a top-level piece of a space; None for a
passenger or a piece off the board).  The digests mark what moved since a reader's last turn
against the places of the earlier board (:class:`pbem.views.boardmoves.BoardHistory`), which the
same three games find without drawing that board: they equal the places of the whole picture.
"""
from __future__ import annotations

import random
import re
from typing import Any, Iterator

import pytest

from pbem.core.game import Game, pending_players
from pbem.core.picture import places_of
from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.views.clickpage import _fill, _template

CASES = [  # game, players, seed, the random decisions made (every one's position looked at up to 80, then every 7th)
    ("atlantis", ["red", "blue", "green"], "p1", 170),
    ("atlantis", ["red", "blue", "green", "yellow", "purple"], "p2", 120),
    ("atlantis-1986", ["red", "blue", "green", "yellow"], "p3", 150),
    ("space-attack", ["red", "blue", "green"], "p4", 170),
    ("space-attack", ["red", "blue"], "p5", 120),
    ("space-swarm", ["red", "blue", "green"], "p6", 60),
]


def random_points(name: str, players: list[str], seed: str, steps: int) -> Iterator[tuple[Game[Any], Any]]:
    game = load_game(name)
    state = game.setup(players, game.full_options({}), Rng(seed.encode(), "setup"))
    for step in range(steps):
        if step < 80 or step % 7 == 0:
            yield game, state
        if not game.pending(state):
            return
        who = pending_players(game, state)[0]
        legal = game.legal_actions(state, who)
        if not legal:
            return
        rng = Rng(seed.encode(), f"step {step}")
        game.apply(state, who, dict(rng.choice(legal)), rng)


def handles(view: Any, picture: Any) -> list[str]:
    """Every handle the view or the picture names, and one that is no piece."""
    named = [h for kind in ("explorers", "boats", "creatures") for h in (view.get(kind) or {})]
    drawn = [x.handle for c in picture.cells for p in c.pieces for x in (p, *p.passengers)]
    return sorted(set(named + drawn)) + ["nobody99"]


@pytest.mark.parametrize("name, players, seed, steps", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_a_piece_or_the_places_found_alone_are_those_of_the_whole_picture(name, players, seed, steps):
    looked = passengers = 0
    for game, state in random_points(name, players, seed, steps):
        for viewer in [None, *players]:
            view = game.view(state, viewer)
            picture = game.board_picture(view)
            assert picture is not None
            on_top = {p.handle: p for c in picture.cells for p in c.pieces}
            for h in handles(view, picture):
                assert game.board_piece(view, h) == on_top.get(h), (name, viewer, h)
                looked += h in on_top
                passengers += h not in on_top and any(h == x.handle for p in on_top.values() for x in p.passengers)
            assert game.board_places(view) == places_of(picture), (name, viewer)
    assert looked > 100
    if name != "space-swarm":
        assert passengers > 0            # people aboard vessels were met (and are not drawn alone)


def reference_fill(template: str, piece: str, spot: str) -> str:
    """The page's script's reading (templates/click.js): ``#p`` the piece, ``#s`` the space, ``##`` a ``#``."""
    return re.sub(r"#(p|s|#)", lambda m: piece if m.group(1) == "p" else spot if m.group(1) == "s" else "#", template)


def test_the_plan_templates_are_filled_as_the_page_fills_them():
    r = random.Random(7)
    for _ in range(20_000):
        template = "".join(r.choice("#ps{}0: a") for _ in range(r.randrange(12)))
        piece, spot = r.choice(["r1", "{0}", "#p"]), r.choice(["G5", "}", "{1}", "##"])
        assert _fill(template, piece, spot) == reference_fill(template, piece, spot), template
    actions = [(f"r{n}", f"G{n + 2}", f"{{place: r{n}, at: G{n + 2}}}", f"r{n} on G{n + 2} #{n}") for n in range(1, 12)]
    assert _template(actions, 2) == "{place: #p, at: #s}"
    assert _template(actions, 3) is None                        # "#1", "#2": no one template
    assert _template(actions[:1], 3) == "#p on #s ##1"
    assert _template([*actions[:3], ("r9", "G9", "{place: r9, on: G9}", "")], 2) is None


def reference_plan(game: Game[Any], view: Any, player: str) -> Any:
    """The set-up plan as it was first made (pbem/views/setupplan.py before it read the places off
    the state and took the first piece's look from the state the player's choice leads to): the
    places of each group from a view made for them, each piece's look from a trial on a copy."""
    from pbem.core.draws import preview_draws
    from pbem.core.engine import Rejected, apply_actions
    from pbem.core.rng import NeedsSecret
    from pbem.views.setupplan import MAX_STEPS, SetupPlan, _group, is_placement_round

    def looks(state: Any, group: Any, legal: Any, places: Any) -> list[Any]:
        first: dict[str, Any] = {}
        for action, place in zip(legal, places):
            first.setdefault(place.piece, action)
        out = []
        for piece in group.pieces:
            trial = game.copy_state(state)
            try:
                apply_actions(game, trial, player, [dict(first[piece])], preview_draws())
            except (Rejected, NeedsSecret):
                continue
            found = game.board_piece(game.view(trial, player), piece)
            if found is not None:
                out.append(found)
        return out

    state = game.copy_state(game.read_view(view))
    groups: dict[str, Any] = {}
    for _ in range(MAX_STEPS):
        pending = game.pending(state)
        if not pending:
            break
        who = pending_players(game, state)[0]
        mine = who == player
        decision = next(d for d in pending if d.player == player) if mine else None
        new_group = decision is not None and decision.kind not in groups
        try:
            choices = game.legal_actions(state, who)
        except NeedsSecret:
            break
        if not choices:
            break
        choice = choices[0] if mine else choices[-1]
        if decision is not None and new_group:
            places = game.action_places(game.view(state, player), player, choices)
            if not is_placement_round(places):
                break
            group = _group(game, decision.kind, decision.prompt, choices, places)
            group.looks = looks(state, group, choices, places)
            groups[decision.kind] = group
        try:
            applied = apply_actions(game, state, who, [dict(choice)], preview_draws())
        except (Rejected, NeedsSecret):
            break
        if applied.needs_secret or any(e.chance for e in applied.events):
            break
    return SetupPlan(list(groups.values())) if groups else None


@pytest.mark.parametrize("name, players, seed", [("atlantis", ["red", "blue", "green"], "s1"),
                                                 ("atlantis-1986", ["red", "blue", "green", "yellow"], "s2"),
                                                 ("space-attack", ["red", "blue"], "s3")])
def test_the_setup_plan_is_the_plain_play_on(name, players, seed):
    """At every point of a random set-up, the plan of each player who decides (the one whose page
    has it) is the plan played on the plain way (:func:`reference_plan`): every group, piece, space,
    action and look the same."""
    from pbem.views.setupplan import setup_plan
    plans = 0
    for game, state in random_points(name, players, seed, 60):
        for player in pending_players(game, state):
            view = game.view(state, player)
            plan = setup_plan(game, view, player)
            assert plan == reference_plan(game, view, player), (name, player)
            plans += plan is not None and any(g.looks for g in plan.groups)
    assert plans > 10
