"""A reader's view shared by one entry's outputs (:mod:`pbem.core.sharedview`): the game reads it
back into a state once for all the hooks a digest asks of it, and what they make is what they make
of the plain view.

At random points of random games of every kind (set-up and play), for every reader: the summary,
sections, move template, board picture and click-to-move model of the shared view equal those of
the plain view (for every player's template, not only the decider's), the shared view is read back
once however many hooks ask, a shared view refuses a change and its copies are plain dicts, and the
outputs made of it are the bytes of the plain view's (JSON).  A game's summary shows only what every
reader sees: every reader's plain view has the public view's summary, and a player's shared view that
knows its entry's public view takes the summary made once from it.  Space Swarm's board and its
public sections (all but a player's hand) are every reader's too, made from the public view's state.
"""
from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from pbem.core.sharedview import SharedView, read_back, read_public
from test_board_piece import random_points

CASES = [
    ("atlantis", ["red", "blue", "green"], "s1", 90),
    ("atlantis-1986", ["red", "blue", "green", "yellow"], "s2", 90),
    ("space-attack", ["red", "blue", "green"], "s3", 90),
    ("space-swarm", ["red", "blue", "green"], "s4", 40),
]


def hooks(game: Any, view: Any, players: list[str], viewer: str | None) -> list[Any]:
    out = [game.summary(view), game.sections(view), game.board_picture(view)]
    out += [game.move_template(view, p) for p in players]
    if viewer is not None:
        model = game.turn_model(view, viewer)
        out.append(None if model is None else (model.family, json.dumps(model.data, sort_keys=True, default=repr)))
    return out


@pytest.mark.parametrize("name, players, seed, steps", CASES, ids=[c[0] for c in CASES])
def test_the_hooks_make_of_a_shared_view_what_they_make_of_the_plain_one(name, players, seed, steps):
    looked = 0
    for n, (game, state) in enumerate(random_points(name, players, seed, steps)):
        if n % 5:
            continue
        for viewer in [None, *players]:
            plain = game.view(state, viewer)
            shared = SharedView(game.view(state, viewer))
            assert json.dumps(shared, sort_keys=True) == json.dumps(plain, sort_keys=True)
            assert hooks(game, shared, players, viewer) == hooks(game, plain, players, viewer), (name, n, viewer)
            assert hooks(game, shared, players, viewer) == hooks(game, plain, players, viewer), (name, n, viewer)
            assert game.read_view(shared) is game.read_view(shared)      # read once, kept
            assert game.read_view(plain) is not game.read_view(plain)    # a plain view: read each time
            looked += 1
    assert looked >= 20


def test_a_shared_view_is_read_back_once_per_key():
    calls: list[str] = []

    def read(view: Any) -> list[int]:
        calls.append(view["a"])
        return [view["a"]]

    shared = SharedView({"a": "x"})
    first = read_back(shared, "state", read)
    assert read_back(shared, "state", read) is first and calls == ["x"]
    assert read_back(shared, "other", read) is not first and calls == ["x", "x"]
    plain = {"a": "y"}
    assert read_back(plain, "state", read) == ["y"] and read_back(plain, "state", read) == ["y"]
    assert calls == ["x", "x", "y", "y"]
    assert read_back(SharedView({"a": "z"}), "state", read) == ["z"]    # each shared view its own memo


def test_a_shared_view_refuses_a_change_and_its_copies_are_plain():
    shared = SharedView({"a": 1, "b": {"c": 2}})
    read_back(shared, "state", lambda v: dict(v))
    for change in (lambda v: v.__setitem__("a", 2), lambda v: v.__delitem__("a"), lambda v: v.update(a=3),
                   lambda v: v.pop("a"), lambda v: v.popitem(), lambda v: v.clear(),
                   lambda v: v.setdefault("d", 4)):
        with pytest.raises(TypeError, match="not changed"):
            change(shared)
    assert shared == {"a": 1, "b": {"c": 2}}
    for twin in (copy.copy(shared), copy.deepcopy(shared), pickle.loads(pickle.dumps(shared)), dict(shared)):
        assert type(twin) is dict and twin == shared
        twin["a"] = 5                  # a copy may be changed: it has no memo to go stale


@pytest.mark.parametrize("name, players, seed, steps", CASES, ids=[c[0] for c in CASES])
def test_the_summary_is_every_readers_and_made_once_from_the_public_view(name, players, seed, steps):
    looked = 0
    for n, (game, state) in enumerate(random_points(name, players, seed, steps)):
        if n % 3:
            continue
        public = SharedView(game.view(state, None))
        expected = game.summary(game.view(state, None))
        for viewer in players:
            assert game.summary(game.view(state, viewer)) == expected, (name, n, viewer)   # what every reader sees
            shared = SharedView(game.view(state, viewer), public)
            assert game.summary(shared) == expected
            assert game.summary(shared) is not game.summary(shared)       # each reader its own list
            assert not shared._read                                        # the player's view: not read back
            looked += 1
        assert "summary" in public._read
    assert looked >= 40


def test_space_swarms_board_and_public_sections_are_every_readers():
    name, players, seed, steps = CASES[3]
    looked = 0
    for n, (game, state) in enumerate(random_points(name, players, seed, steps)):
        public = game.view(state, None)
        board, sections = game.board_picture(public), game.sections(public)
        for viewer in players:
            mine = game.view(state, viewer)
            assert game.board_picture(mine) == board, (n, viewer)
            assert game.sections(mine)[:len(sections)] == sections, (n, viewer)
            shared = SharedView(mine, SharedView(public))
            assert game.board_picture(shared) == board and game.sections(shared) == game.sections(mine)
            looked += 1
    assert looked >= 40


def test_read_public_reads_the_public_view_once_or_the_view_itself():
    calls: list[str] = []

    def read(view: Any) -> str:
        calls.append(view["who"])
        return view["who"]

    public = SharedView({"who": "public"})
    mine, theirs = SharedView({"who": "mine"}, public), SharedView({"who": "theirs"}, public)
    assert read_public(mine, "k", read) == read_public(theirs, "k", read) == read_public(public, "k", read) == "public"
    assert calls == ["public"]
    assert read_public(SharedView({"who": "alone"}), "k", read) == "alone"     # no public view known: its own
    assert read_public({"who": "plain"}, "k", read) == read_public({"who": "plain"}, "k", read) == "plain"
    assert calls == ["public", "alone", "plain", "plain"]
