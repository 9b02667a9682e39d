"""The node harness (harness.py, runner.js) itself, on a toy model written here: what it answers,
and that it catches a model breaking the API's promises (a changed state, a state that is not
plain JSON, an exception) with the JS message."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness import ModelError, ModelProcess, digest, made, model_files, ok, same

COUNTER = r"""
PBEM_MODELS.counter = {
  start: (data, view, player) => ({n: view.n, max: data.max, player}),
  decision: (s) => (s.n < s.max ? {kind: 'count', prompt: `at ${s.n}`, player: s.player} : null),
  legal: (s) => (s.n === 2 ? null : [{add: 1}, {add: 2}].filter((a) => s.n + a.add <= s.max)),
  apply: (s, a) => ({state: {...s, n: s.n + a.add}, stop: a.add === 2}),
  words: (s, a) => `Add ${a.add} to ${s.n}`,
  places: (s, a) => ({piece: '', from: '', to: '', tile: ''}),
  pieces: (s) => [{handle: 'c', shape: 'disc', owner: s.player, cell: `A${s.n}`, label: '', aboard: '', value: null}],
  forms: (s) => [],
};
PBEM_MODELS.counter.twice = (s, k) => s.n * 2 + k;
PBEM_MODELS.mutating = {...PBEM_MODELS.counter, apply: (s, a) => { s.n += a.add; return {state: s, stop: false}; }};
PBEM_MODELS.unplain = {...PBEM_MODELS.counter, apply: (s, a) => ({state: {...s, f: () => 1, n: undefined}, stop: false})};
PBEM_MODELS.sneaky = {...PBEM_MODELS.counter, legal: (s) => { s.n = 0; return [{add: 1}]; }};
PBEM_MODELS.sharing = {...PBEM_MODELS.counter, start: (data, view, player) => ({n: view.n, max: data.max, player, g: {k: [1]}}),
                       apply: (s, a) => { const t = {...s, n: s.n + a.add}; if (a.add === 2) s.g.k.push(2); return {state: t, stop: false}; }};
PBEM_MODELS.resetting = {...PBEM_MODELS.sharing,
                         apply: (s, a) => { const t = {...s, n: s.n + a.add}; if (a.add === 2) s.g.k[0] = 0; return {state: t, stop: false}; }};
PBEM_MODELS.wordless = {...PBEM_MODELS.counter, words: (s, a) => { throw new Error('no words here'); }};
PBEM_MODELS.valued = {...PBEM_MODELS.counter, pieces: (s) => PBEM_MODELS.counter.pieces(s).map((p) => ({...p, value: 3}))};
PBEM_MODELS.throwing = {...PBEM_MODELS.counter, legal: (s) => { throw new Error('no legal here'); }};
PBEM_MODELS.seeing = {...PBEM_MODELS.counter, start: (data, view, player) => ({n: view.n, max: data.max, player, data, view,
                                                                            keys: Object.keys(view)})};
PBEM_MODELS.scribbling = {...PBEM_MODELS.counter, start: (data, view, player) => { view.list.push(0); return {n: 0, max: 1, player}; }};
"""


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    path = tmp_path / "counter.js"
    path.write_text(COUNTER, encoding="utf-8")
    return path


def test_the_api_over_json_lines(toy: Path) -> None:
    with ModelProcess([toy]) as node:
        s = node.start("counter", {"max": 4}, {"n": 0}, "red")
        assert node.decision(s) == {"kind": "count", "prompt": "at 0", "player": "red"}
        assert node.legal(s) == [{"add": 1}, {"add": 2}]
        t, stop = node.apply(s, {"add": 1})
        assert (stop, node.state(t)["n"], node.state(s)["n"]) == (False, 1, 0)    # a new state; the old one kept
        u, stop = node.apply(t, {"add": 1})
        assert stop is False and node.legal(u) is None          # n == 2: not modelled (the page stops: cut)
        v, stop = node.apply(s, {"add": 2})
        assert stop is True
        assert node.words(t, {"add": 2}) == "Add 2 to 1"
        assert node.pieces(v)[0]["cell"] == "A2"
        assert node.places(s, {"add": 1}) == {"piece": "", "from": "", "to": "", "tile": ""}
        assert node.forms(s) == []
        assert node.batch([{"op": "legal", "s": t}, {"op": "decision", "s": v}]) == [
            [{"add": 1}, {"add": 2}], {"kind": "count", "prompt": "at 2", "player": "red"}]
        node.drop([s])
        with pytest.raises(ModelError, match="no state"):
            node.legal(s)


def test_a_batch_names_the_states_its_calls_made_and_drops_go_with_the_next_request(toy: Path) -> None:
    """In a batch, ``made(i)`` is the state the batch's call ``i`` made (start's, apply's), so one
    exchange applies an action and asks about the state reached; a call that made none (it threw, or
    makes no state) gives an error for the calls naming it.  ``drop`` is sent with the next request
    (no exchange of its own), and that request finds the states gone."""
    with ModelProcess([toy]) as node:
        calls = node.calls
        started, legal, applied, decision, pieces, dropped, gone = node.answers([
            {"op": "start", "family": "counter", "data": {"max": 4}, "view": {"n": 0}, "player": "red"},
            {"op": "legal", "s": made(0)}, {"op": "apply", "s": made(0), "action": {"add": 1}},
            {"op": "decision", "s": made(2)}, {"op": "pieces", "s": made(2)}, {"op": "drop", "s": made(2)},
            {"op": "decision", "s": made(2)}])
        assert node.calls == calls + 1
        s, t = ok(started, "start"), ok(applied, "apply")["state"]
        assert ok(legal, "legal") == [{"add": 1}, {"add": 2}] and ok(decision, "decision")["prompt"] == "at 1"
        assert ok(pieces, "pieces")[0]["cell"] == "A1" and ok(dropped, "drop") is None
        assert "no state" in gone["error"]                          # dropped by the call before it
        with pytest.raises(ModelError, match="no state"):
            node.state(t)
        refused = node.answers([{"op": "legal", "s": s}, {"op": "start", "family": "nothing"},
                                {"op": "legal", "s": made(1)}, {"op": "legal", "s": made(0)}, {"op": "legal", "s": made(7)}])
        assert "no model" in refused[1]["error"]
        assert all("no state made by call" in a["error"] for a in refused[2:]), refused
        assert node.state(s)["n"] == 0
        calls = node.calls
        node.drop([s])
        assert node.calls == calls                                  # no exchange of its own
        u = node.start("counter", {"max": 4}, {"n": 1}, "red")      # the drop went with this request
        assert node.calls == calls + 1 and node.state(u)["n"] == 1
        with pytest.raises(ModelError, match="no state"):
            node.state(s)


def test_a_model_breaking_its_promises_is_caught(toy: Path) -> None:
    with ModelProcess([toy]) as node:
        s = node.start("mutating", {"max": 4}, {"n": 0}, "red")
        with pytest.raises(ModelError, match="apply changed the state it was given"):
            node.apply(s, {"add": 1})
        s = node.start("unplain", {"max": 4}, {"n": 0}, "red")
        t, _ = node.apply(s, {"add": 1})          # stored as its JSON round trip: what is not JSON is gone
        assert "f" not in node.state(t) and "n" not in node.state(t)
        s = node.start("sneaky", {"max": 4}, {"n": 2}, "red")      # a call before apply changed the state
        node.legal(s)
        with pytest.raises(ModelError, match="apply changed the state it was given"):
            node.apply(s, {"add": 1})
        s = node.start("sharing", {"max": 4}, {"n": 0}, "red")     # a value the next state shares, changed later
        t, _ = node.apply(s, {"add": 1})
        assert node.state(t)["g"] == {"k": [1]}
        with pytest.raises(ModelError, match="apply changed the state it was given"):
            node.apply(t, {"add": 2})
        with pytest.raises(ModelError, match="apply changed the state it was given"):
            node.apply(s, {"add": 1})                              # the first state shares it too: changed as well
        s = node.start("throwing", {"max": 4}, {"n": 0}, "red")
        with pytest.raises(ModelError, match="legal: no legal here"):
            node.legal(s)
        with pytest.raises(ModelError, match="no model \"nothing\""):
            node.start("nothing", {}, {}, "red")
        with pytest.raises(ModelError, match="unknown op"):
            node.call("eval", code="1")
        assert node.decision(node.start("counter", {"max": 1}, {"n": 1}, "red")) is None   # still answering


def test_frozen_a_write_to_a_value_two_states_share_throws_in_the_model(toy: Path) -> None:
    """With ``--frozen`` (the shipped models' mode) a value the next state shares is frozen once found
    unchanged: the model's write to it throws where it writes (the file runs as strict code, so an
    assignment throws as a push does); what is not shared is still checked at the next apply."""
    with ModelProcess([toy], frozen=True) as node:
        for family, error in (("sharing", "not extensible"), ("resetting", "read only")):
            s = node.start(family, {"max": 4}, {"n": 0}, "red")
            t, _ = node.apply(s, {"add": 1})
            with pytest.raises(ModelError, match=error):
                node.apply(t, {"add": 2})
            assert node.state(t)["g"] == node.state(s)["g"] == {"k": [1]}      # unchanged
            node.apply(t, {"add": 1})                                         # and still taken
        s = node.start("mutating", {"max": 4}, {"n": 0}, "red")
        with pytest.raises(ModelError, match="apply changed the state it was given"):
            node.apply(s, {"add": 1})
        s = node.start("sneaky", {"max": 4}, {"n": 2}, "red")
        node.legal(s)
        with pytest.raises(ModelError, match="apply changed the state it was given"):
            node.apply(s, {"add": 1})
    with ModelProcess([toy]) as node:                                         # (not frozen: caught at the next apply)
        s = node.start("resetting", {"max": 4}, {"n": 0}, "red")
        t, _ = node.apply(s, {"add": 1})
        with pytest.raises(ModelError, match="apply changed the state it was given"):
            node.apply(t, {"add": 2})


def test_listed_and_pieces_as_fresh_answer_in_one_exchange(toy: Path) -> None:
    """``listed``: the legal actions with each one's words and places (the swarm walks' one exchange
    a step); ``pieces_as_fresh``: whether a state's pieces are those of a model started afresh."""
    with ModelProcess([toy]) as node:
        s = node.start("counter", {"max": 4}, {"n": 1}, "red")
        calls = node.calls
        legal, (words, places) = node.call("listed", s=s, ops=["words", "places"])
        assert node.calls == calls + 1
        assert legal == node.legal(s) == [{"add": 1}, {"add": 2}]
        assert words == ["Add 1 to 1", "Add 2 to 1"] and places == [node.places(s, a) for a in legal]
        assert node.call("listed", s=node.apply(s, {"add": 1})[0], ops=["words"]) == [None, None]   # n == 2: cut
        # expect: a part written exactly as the text of its digest answered true
        assert node.call("listed", s=s, ops=["words", "places"],
                         expect=[digest('[{"add":1},{"add":2}]'), digest('["Add 1 to 1"]')]) \
            == [True, [["Add 1 to 1", "Add 2 to 1"], places]]
        broken = node.start("throwing", {"max": 4}, {"n": 1}, "red")
        with pytest.raises(ModelError, match="listed: no legal here"):
            node.call("listed", s=broken, ops=["words"])
        wordless = node.start("wordless", {"max": 4}, {"n": 1}, "red")     # a throw in words: named in the answer
        legal, each = node.call("listed", s=wordless, ops=["words"])
        assert legal == [{"add": 1}, {"add": 2}] and "no words here" in each["error"]
        t, _ = node.apply(s, {"add": 1})
        assert node.pieces_as_fresh(t, "counter", {"max": 4}, {"n": 2}, "red") is None
        with pytest.raises(ModelError, match="no state"):                # the fresh one not kept
            node.state(t + 1)
        got, want = node.pieces_as_fresh(t, "counter", {"max": 4}, {"n": 3}, "red") or ([], [])
        assert (got[0]["cell"], want[0]["cell"]) == ("A2", "A3")
        valued = node.start("valued", {"max": 4}, {"n": 2}, "red")      # the same pieces but their values
        assert node.pieces_as_fresh(valued, "counter", {"max": 4}, {"n": 2}, "red") is not None
        assert node.pieces_as_fresh(valued, "counter", {"max": 4}, {"n": 2}, "red", blank=True) is None
        with pytest.raises(ModelError, match="no model"):
            node.pieces_as_fresh(t, "nothing", {}, {}, "red")
        # expect (a JSON text's digest): {same: true} only for exactly the result's JSON text; else the
        # result itself
        assert [same(a) for a in node.answers([{"op": "legal", "s": s, "expect": digest('[{"add":1},{"add":2}]')},
                                               {"op": "legal", "s": s, "expect": digest('[{"add":1}]')},
                                               {"op": "legal", "s": s, "expect": '[{"add":1},{"add":2}]'},
                                               {"op": "legal", "s": s}])] == [True, False, False, False]
        assert node.answers([{"op": "decision", "s": s,
                              "expect": digest('{"prompt":"at 1","kind":"count","player":"red"}')}]) \
            == [{"ok": {"kind": "count", "prompt": "at 1", "player": "red"}}]       # another key order: the value


def test_a_family_extension_is_called_by_method(toy: Path) -> None:
    with ModelProcess([toy]) as node:
        s = node.start("counter", {"max": 4}, {"n": 3}, "red")
        assert node.method(s, "twice", 1) == 7
        for name in ("legal", "nothing", "constructor"):      # the core API goes by its own op; no other name
            with pytest.raises(ModelError, match="no extension"):
                node.method(s, name)


def test_loose_mode_skips_the_checks(toy: Path) -> None:
    with ModelProcess([toy], strict=False) as node:
        s = node.start("mutating", {"max": 4}, {"n": 0}, "red")
        node.apply(s, {"add": 1})
        assert node.state(s)["n"] == 1


API = ["apply", "decision", "forms", "legal", "pieces", "places", "start", "words"]


@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_each_shipped_model_registers_its_family_with_the_whole_api(path: Path) -> None:
    with ModelProcess([path]) as node:
        families = node.call("families")
    assert path.stem in families, f"{path.name} registers {sorted(families)}, not PBEM_MODELS.{path.stem}"
    assert [f for f in API if f not in families[path.stem]] == []


def test_explore_answers_as_a_page_exploring_state_by_state(toy: Path) -> None:
    """``explore``: "cut" where ``legal`` is null or the turn has more states than the cap, else
    "stop" where an action stops, else "complete" (the counter's turns worked out by hand)."""
    with ModelProcess([toy]) as node:
        assert node.explore(node.start("counter", {"max": 4}, {"n": 0}, "red"), 100) == "cut"      # reaches n == 2
        assert node.explore(node.start("counter", {"max": 1}, {"n": 0}, "red"), 100) == "complete"
        three = node.start("counter", {"max": 5}, {"n": 3}, "red")        # 3 -> 4 -> 5, and 3 -> 5 a STOP
        assert [node.explore(three, cap) for cap in (1, 2, 3, 100)] == ["cut", "cut", "stop", "stop"]
        assert node.explore(node.start("counter", {"max": 5}, {"n": 5}, "red"), 1) == "complete"


@pytest.mark.parametrize("name", ["atlantis", "space-attack"])
def test_explore_is_the_survive_models_own_exploration_with_no_state_merged(name: str) -> None:
    """The label test (test_survive_model.py) takes the plain exploration's answer from ``explore``:
    at states of a random game, with caps from a few states to more than a turn has, it is the
    answer of survive.js's own ``choices(state, cap, false)`` (every state one by one, depth first)."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from test_survive_model import random_game

    from pbem.core.registry import load_game
    game = load_game(name)
    answers = set()
    with ModelProcess(model_files(["survive"])) as node:
        for k, state in enumerate(random_game(game, ["red", "blue", "green"], {}, 5)):
            if k % 9 != 4 or k > 60:
                continue
            player = game.pending(state)[0].player
            view = game.view(state, player)
            model = game.turn_model(view, player)
            assert model is not None
            s = node.start(model.family, model.data, view, player)
            for cap in (1, 3, 40, 300):
                own = node.method(s, "choices", cap, False)
                assert node.explore(s, cap) == own, f"{name} step {k} cap {cap}"
                answers.add(own)
            node.drop([s])
    assert answers >= {"cut", "stop"}, answers


def test_a_wrong_expectation_is_answered_with_the_result_so_the_caller_shows_what_differs(toy: Path) -> None:
    """``expect`` carries a digest, never the text: where the result's JSON is another text (a wrong
    expectation, on purpose here), the answer is the result itself, for the caller to compare and
    show; the same value written in another key order is not the same text either."""
    with ModelProcess([toy]) as node:
        s = node.start("counter", {"max": 4}, {"n": 1}, "red")
        right = json.dumps(node.pieces(s), separators=(",", ":"))
        wrong = right.replace('"A1"', '"A7"')
        got = node.answers([{"op": "pieces", "s": s, "expect": digest(right)},
                            {"op": "pieces", "s": s, "expect": digest(wrong)}])
        assert got[0] == {"same": True}
        model, engine = ok(got[1], "pieces"), json.loads(wrong)
        assert [(a["cell"], b["cell"]) for a, b in zip(model, engine) if a != b] == [("A1", "A7")]
        legal, (places,) = node.call("listed", s=s, ops=["places"], expect=[digest("[]"), digest("[]")])
        assert legal == [{"add": 1}, {"add": 2}] and len(places) == 2


class Recorded:
    """A model process's stdin, the lines written to it recorded."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.lines = stream, []

    def write(self, text: str) -> int:
        self.lines.append(text)
        return int(self.stream.write(text))

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def test_kept_fields_send_what_changed_and_the_model_sees_the_whole_value(toy: Path) -> None:
    """With ``--frozen`` the data and view of ``start`` and ``pieces_as_fresh`` are sent as what
    changed since the last ones (runner.js ``kept``): the model still gets the whole value, its keys
    in their order, and the values the requests share are frozen (a model writing into one throws)."""
    big = list(range(2000))
    with ModelProcess([toy], frozen=True) as node:
        node.proc.stdin = recorded = Recorded(node.proc.stdin)     # type: ignore[assignment]
        first = node.start("seeing", {"max": 4, "big": big}, {"n": 1, "list": big, "z": 1}, "red")
        views = [{"n": 1, "list": big, "z": 1}, {"z": 2, "n": 1, "list": big}, {"list": big, "n": 3}]
        seen = []
        for view in views:
            seen.append(node.state(node.start("seeing", {"max": 4, "big": big}, view, "red")))
        sent = [json.loads(line) for line in recorded.lines]
        assert all(10 * len(line) < len(recorded.lines[0]) for line in recorded.lines[1::2])
        assert [call["kept"]["view"]["sent"] for call in sent[1::2]] == [{}, {"z": 2}, {"n": 3}]
        for view, state in zip(views, seen):
            assert state["view"] == view and state["keys"] == list(view) and state["data"] == {"max": 4, "big": big}
        assert node.pieces_as_fresh(first, "seeing", {"max": 4, "big": big}, {"n": 1, "list": big}, "red") is None
        assert node.pieces_as_fresh(first, "seeing", {"max": 4, "big": big}, {"n": 2, "list": big}, "red") is not None
        with pytest.raises(ModelError, match="not extensible"):
            node.start("scribbling", {}, {"list": big}, "red")
        # a caller out of step with the runner (a request it never sent counted) is an error
        node._kept["view"] = (node._kept["view"][0] + 1, {})      # type: ignore[index]
        with pytest.raises(ModelError, match="the caller counts"):
            node.start("seeing", {"max": 4, "big": big}, {"n": 1}, "red")
    with ModelProcess([toy]) as node:                               # (not frozen: every value sent whole)
        node.proc.stdin = recorded = Recorded(node.proc.stdin)     # type: ignore[assignment]
        for _ in range(2):
            node.start("seeing", {"max": 4}, {"n": 1, "list": big}, "red")
        assert all("kept" not in json.loads(line) for line in recorded.lines)
