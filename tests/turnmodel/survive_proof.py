"""The proof of the Survive family's turn model (templates/turnmodel/survive.js) against the engine.

At a state where a player has a decision, the model starts from the player's own view
(``game.turn_model(view, player)``) and the engine from the same view
(``game.from_position(view)``); a walk then takes random actions through the player's turn and at
every step checks

* ``decision``: the model's (kind, player) is the engine's pending decision for the player (None
  when the engine waits for nobody or somebody else: the player's part is over);
* ``legal``: null (not modelled: the walk ends, counted as ``cut``) or exactly the engine's
  ``legal_actions`` (canonical JSON, the same order);
* ``places``: the engine's ``action_places`` for the action taken; ``words`` some text;
* ``apply``: the model's ``stop`` is true exactly when the engine needs a secret or rolled (the walk
  then ends: ``stop``); otherwise the model's next state has the pieces (and, at the next step, the
  decision and legal actions) of a model started afresh from the engine's next view.

:func:`exhaustive` does the same for every legal action of a state (every successor).  Failures
print the game, options, the position and the path.  Used by test_survive_model.py; ``make
soak-turnmodel`` runs more states (figures for the report).
"""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from harness import ModelProcess, made, ok

from pbem.core.draws import preview_draws
from pbem.core.engine import Rejected, apply_actions
from pbem.game import Game


def canon(value: Any) -> str:
    """``value``'s canonical JSON; a list's is its items' canonical texts in order (so two lists of
    actions are compared in one call, each action's text as it would be alone)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def engine_step(game: Any, engine: Any, player: str, action: Any) -> tuple[Any, Rejected | None, bool]:
    """The engine's step on a copy of ``engine``: the state after it, the refusal if it refused, and
    whether it stopped for a roll or a hidden value."""
    after = game.copy_state(engine)
    try:
        applied = apply_actions(game, after, player, [action], preview_draws())
    except Rejected as exc:
        return after, exc, False
    return after, None, applied.needs_secret or any(e.chance for e in applied.events)


@dataclass
class Tally:
    """What the walks found: per game, how the walks ended (``stop``, ``done``, ``cut``), the
    decision kinds cut, the steps checked."""

    ends: Counter[tuple[str, str]] = field(default_factory=Counter)      # (game, end)
    cut_kinds: Counter[tuple[str, str]] = field(default_factory=Counter)  # (game, decision kind)
    steps: int = 0
    points: int = 0

    def share(self, game: str) -> float:
        """The share of decision points whose walk reached the turn's real stop (or its end)."""
        whole = self.ends[(game, "stop")] + self.ends[(game, "done")]
        total = whole + self.ends[(game, "cut")]
        return whole / total if total else 0.0


class Mismatch(AssertionError):
    pass


@dataclass
class Step:
    """A step of a planned walk (:meth:`Prover.walk`): the random draws' state before it, the
    number drawn, the engine's action, where the step's requests start in the exchange (places,
    words, apply, then the checks of the state reached), the engine's state after it, its refusal,
    its stop, whether the game is over after it."""
    drawn: Any
    number: int
    action: Any
    first: int
    after: Any
    refused: Rejected | None
    stop: bool
    over: bool


class _Replay(Exception):
    """A planned walk to be done again step by step (:meth:`Prover.walk`)."""


class Prover:
    def __init__(self, node: ModelProcess, tally: Tally) -> None:
        self.node, self.tally = node, tally
        self._views: dict[tuple[int, str], tuple[Any, Any]] = {}     # (id(state), player) -> (state, view)

    def start(self, game: Game[Any], view: Mapping[str, Any], player: str) -> int:
        model = game.turn_model(view, player)
        assert model is not None, f"{game.name} has no turn model"
        # plain JSON: the request is written with json.dumps, which refuses anything else (TypeError)
        return self.node.start(model.family, model.data, view, player)

    @staticmethod
    def engine_decision(game: Game[Any], state: Any, player: str) -> tuple[str, str] | None:
        mine = [d for d in game.pending(state) if d.player == player]
        return (mine[0].kind, mine[0].player) if mine else None

    def walk(self, game: Game[Any], state: Any, player: str, rng: random.Random, what: str,
             max_steps: int = 40) -> str:
        """One random walk through ``player``'s turn from ``state`` (not changed); how it ended.

        The walk is planned in full from the engine's side (each step's legal actions are checked
        to be the engine's, so the action drawn is the same) and sent in one exchange: the model
        started and asked its decision, forms and legal actions; then at each step the action's
        places, words and apply, and where the engine goes on the state reached against a fresh
        model's and its decision, forms and legal actions.  The answers are checked step by step
        in order, as :meth:`walk_stepwise` checks them.  Where the model's listed action is not
        the engine's as JSON writes it (the same value, keys in another order), or the model stops
        listing (a cut), the walk is done again step by step from its start (the random draws and
        the tally put back), so that the model is always given its own listed action."""
        view = game.view(state, player)
        engine = game.from_position(view)
        model = game.turn_model(view, player)
        assert model is not None, f"{game.name} has no turn model"
        drawn, steps_before, cuts_before = rng.getstate(), self.tally.steps, self.tally.cut_kinds.copy()
        calls: list[dict[str, Any]] = [
            {"op": "start", "family": model.family, "data": model.data, "view": view, "player": player}]
        calls += [{"op": op, "s": made(0)} for op in ("decision", "forms", "legal")]
        # each step: (the random draws before it, the action's number in the list, the action, where
        # its places/words/apply are, after, refused, stop, whether the game is over after it); the
        # answers of a step's checks follow its apply
        plan: list[Step] = []
        at: int | dict[str, int] = made(0)
        walker = engine
        for _ in range(max_steps):
            if self.engine_decision(game, walker, player) is None:
                break
            legal = game.legal_actions(walker, player)
            if not legal:
                break
            before = rng.getstate()
            number = rng.randrange(len(legal))
            action = json.loads(json.dumps(legal[number]))
            after, refused, engine_stop = engine_step(game, walker, player, action)
            first = len(calls)
            calls += [{"op": op, "s": at, "action": action} for op in ("places", "words", "apply")]
            reached = made(first + 2)
            over = False
            if refused is None and engine_stop:
                calls.append({"op": "forms", "s": reached})
            elif refused is None:
                request, over = self.fresh(game, after, player, reached)
                calls += [request] + [{"op": op, "s": reached} for op in ("decision", "forms", "legal")]
            plan.append(Step(before, number, action, first, after, refused, engine_stop, over))
            if refused is not None or engine_stop:
                break
            at, walker = reached, after
        last = rng.getstate()
        answers = self.node.answers(calls)
        applied = [answers[0]] + [answers[step.first + 2] for step in plan]
        handles = [int(a["ok"]) if k == 0 else int(a["ok"]["state"]) for k, a in enumerate(applied) if "ok" in a]
        try:
            return self._walk_checked(game, view, engine, player, rng, what, max_steps, answers, plan, last)
        except _Replay:
            rng.setstate(drawn)
            self.tally.steps, self.tally.cut_kinds = steps_before, cuts_before
            return self.walk_stepwise(game, state, player, rng, what, max_steps)
        finally:
            self.node.drop(handles)

    def _walk_checked(self, game: Game[Any], view: Any, engine: Any, player: str, rng: random.Random, what: str,
                      max_steps: int, answers: list[dict[str, Any]], plan: list["Step"], last: Any) -> str:
        """The answers of :meth:`walk`'s exchange checked as :meth:`walk_stepwise` checks its own
        (``last``: the random draws' state after the plan)."""
        path: list[Any] = []

        def fail(message: str) -> Mismatch:
            return Mismatch(f"{what}, player {player}, after {canon(path)}: {message}\n"
                            f"position: {canon(view)}")
        ok(answers[0], "start")
        now = answers[1:4]
        over: bool | None = None
        for k in range(max_steps):
            self.tally.steps += 1
            if over is not None:
                self.check_fresh(now.pop(0), over, fail)
                over = None
            end, legal = self.check_decision(game, engine, player, now, fail)
            if end == "cut":                # the draws put back to where the walk stopped drawing
                rng.setstate(plan[k].drawn if k < len(plan) else last)
            if end is not None:
                return end
            step = plan[k]
            action, first, after, refused, engine_stop, next_over = (step.action, step.first, step.after, step.refused,
                                                                     step.stop, step.over)
            if json.dumps(legal[step.number]) != json.dumps(action):
                raise _Replay()             # the model writes its listed action otherwise: its own is taken
            path.append(action)
            places, words, applied_answer = answers[first:first + 3]
            stop = bool(self.check_applied(game, engine, player, action, places, words, applied_answer, refused,
                                           engine_stop, fail)["stop"])
            to = plan[k + 1].first if k + 1 < len(plan) else len(answers)
            now = answers[first + 3:to]
            if stop:
                self.check_stop_forms(game, engine, player, now[0], fail)
                return "stop"
            over = next_over
            engine = after
        if over is not None:
            self.check_fresh(now[0], over, fail)
        raise fail(f"no end after {max_steps} steps")

    def walk_stepwise(self, game: Game[Any], state: Any, player: str, rng: random.Random, what: str,
                      max_steps: int = 40) -> str:
        """:meth:`walk` an exchange a step: the action taken is the model's own listed one."""
        view = game.view(state, player)
        engine = game.from_position(view)
        model = game.turn_model(view, player)
        assert model is not None, f"{game.name} has no turn model"
        path: list[Any] = []

        def fail(message: str) -> Mismatch:
            return Mismatch(f"{what}, player {player}, after {canon(path)}: {message}\n"
                            f"position: {canon(view)}")
        # the model's answers at a step (decision, forms, legal), each read (and checked) in turn:
        # at the first step asked in the exchange starting the model; from the second on in the one
        # that applied the action, after the check of the pieces of the state reached against a
        # fresh model's
        started, *answers = self.node.answers(
            [{"op": "start", "family": model.family, "data": model.data, "view": view, "player": player}]
            + [{"op": op, "s": made(0)} for op in ("decision", "forms", "legal")])
        s = int(ok(started, "start"))
        handles = [s]
        over: bool | None = None          # the state reached: whether the game is over there (its pieces' check first)
        try:
            for _ in range(max_steps):
                self.tally.steps += 1
                if over is not None:
                    self.check_fresh(answers.pop(0), over, fail)
                    over = None
                end, legal = self.check_decision(game, engine, player, answers, fail)
                if end is not None:
                    return end
                action = legal[rng.randrange(len(legal))]
                path.append(action)
                # the engine's step first (its refusal reported after the model's answers are checked),
                # so that the exchange applying the action also asks what the next step needs: where
                # the engine goes on, the pieces of the state reached and its decision, forms and
                # legal actions; where it stops, the forms there
                after, refused, engine_stop = engine_step(game, engine, player, action)
                reached = made(2)
                then: list[dict[str, Any]] = []
                next_over = False
                if refused is None and engine_stop:
                    then = [{"op": "forms", "s": reached}]
                elif refused is None:
                    request, next_over = self.fresh(game, after, player, reached)
                    then = [request] + [{"op": op, "s": reached} for op in ("decision", "forms", "legal")]
                places, words, applied_answer, *answers = self.node.answers(
                    [{"op": op, "s": s, "action": action} for op in ("places", "words", "apply")] + then)
                if "ok" in applied_answer:
                    handles.append(applied_answer["ok"]["state"])
                out = self.check_applied(game, engine, player, action, places, words, applied_answer, refused,
                                         engine_stop, fail)
                t, stop = int(out["state"]), bool(out["stop"])
                if stop:
                    self.check_stop_forms(game, engine, player, answers[0], fail)
                    return "stop"
                over = next_over
                s, engine = t, after
            if over is not None:
                self.check_fresh(answers[0], over, fail)
            raise fail(f"no end after {max_steps} steps")
        finally:
            self.node.drop(handles)

    def check_applied(self, game: Game[Any], engine: Any, player: str, action: Any, places: dict[str, Any],
                      words: dict[str, Any], applied: dict[str, Any], refused: Rejected | None, engine_stop: bool,
                      fail: Any) -> Any:
        """The model's answers to an action taken (its places, words and apply) checked against the
        engine's step (``refused``, ``engine_stop``); the apply's answer (the state reached, stop)."""
        self.check_step(game, engine, player, action, ok(places, "places"), ok(words, "words"), fail)
        out = ok(applied, "apply")
        if refused is not None:
            raise fail(f"the engine refuses {canon(action)}: {refused}")
        if bool(out["stop"]) != engine_stop:
            raise fail(f"stop {bool(out['stop'])}, the engine {'stops' if engine_stop else 'goes on'}")
        return out

    def check_decision(self, game: Game[Any], engine: Any, player: str, answers: list[dict[str, Any]],
                       fail: Any) -> tuple[str | None, list[Any]]:
        """The model's answers at a step (decision, forms, legal) checked against the engine's:
        ("done", []) where the walk ends (no decision, or nothing legal), ("cut", []) where the model
        lists no actions (counted), else (None, the legal actions)."""
        decision, forms, legal_answer = answers
        got = ok(decision, "decision")
        expected = self.engine_decision(game, engine, player)
        if (None if got is None else (got["kind"], got["player"])) != expected:
            raise fail(f"decision {got}, the engine waits for {expected}")
        if expected is None:
            return "done", []
        self.check_forms(game, engine, player, ok(forms, "forms"), fail)
        legal = ok(legal_answer, "legal")
        if legal is None:
            self.tally.cut_kinds[(game.name, expected[0])] += 1
            return "cut", []
        engine_legal = game.legal_actions(engine, player)
        if canon(legal) != canon(engine_legal):         # (a list's text is its items' texts, in order)
            raise fail(f"legal differs at {expected[0]}:\n model  {[canon(a) for a in legal]}\n"
                       f" engine {[canon(a) for a in engine_legal]}")
        return ("done" if not legal else None), legal

    def check_forms(self, game: Game[Any], engine: Any, player: str, got: Any, fail: Any) -> None:
        """The model's forms ``got`` are the engine's ``order_forms`` (standing orders, and at the
        removal the creature order written ahead for each face), or null (not modelled: counted)."""
        if got is None:
            self.tally.cut_kinds[(game.name, "forms")] += 1
            return
        # (``as_data`` is ``dataclasses.asdict``, written out: test_a_forms_data_is_its_asdict)
        want = json.loads(json.dumps([f.as_data() for f in game.order_forms(self.view(game, engine, player), player)]))
        if got != want:
            raise fail(f"forms differ:\n model  {canon(got)}\n engine {canon(want)}")

    def check_stop_forms(self, game: Game[Any], before: Any, player: str, answer: dict[str, Any], fail: Any) -> None:
        """At a STOP, the orders written ahead the page offers (``answer``: the model's forms at the
        state the STOP reached) are those of the decision that stopped (the engine's
        ``order_forms`` there, ``when: ahead``)."""
        got = ok(answer, "forms")
        if got is None:
            self.tally.cut_kinds[(game.name, "forms")] += 1
            return
        want = json.loads(json.dumps([f.as_data() for f in game.order_forms(self.view(game, before, player), player)
                                      if f.when == "ahead"]))
        if [f for f in got if f["when"] == "ahead"] != want:
            raise fail(f"forms written ahead at the stop differ:\n model  {canon(got)}\n engine {canon(want)}")

    def check_step(self, game: Game[Any], engine: Any, player: str, action: Any, got: Any, words: Any,
                   fail: Any) -> None:
        """The model's places ``got`` and ``words`` of ``action`` are the engine's."""
        view = self.view(game, engine, player)
        place = game.action_places(view, player, [action])[0]
        want = {"piece": place.piece, "from": place.from_cell, "to": place.to_cell, "tile": place.tile}
        if got != want:
            raise fail(f"places of {canon(action)}: {got}, the engine {want}")
        if words != game.describe_action(action):       # the page and `pbem turn` word it alike
            raise fail(f"words of {canon(action)}: {words!r}, the engine {game.describe_action(action)!r}")

    def fresh(self, game: Game[Any], after: Any, player: str, t: int | dict[str, int]) -> tuple[dict[str, Any], bool]:
        """The request comparing model state ``t`` (a handle, or ``made(i)`` in a batch)'s pieces with those of a model started afresh
        from the engine's view of ``after`` (runner.js ``pieces_as_fresh``: one exchange, or a
        part of one), and whether the game is over there (the end shows every saved person's
        value: values are left out of the comparison)."""
        view = self.view(game, after, player)
        model = game.turn_model(view, player)
        assert model is not None, f"{game.name} has no turn model"
        over = view["phase"] == "over"
        return {"op": "pieces_as_fresh", "s": t, "family": model.family, "data": model.data, "view": view,
                "player": player, "blank": over}, over

    @staticmethod
    def check_fresh(answer: dict[str, Any], over: bool, fail: Any) -> None:
        """The answer of a :meth:`fresh` request: None (the same JSON), or both lists compared here."""
        differ = ok(answer, "pieces_as_fresh")
        if differ is None:
            return
        got, want = differ["got"], differ["want"]
        if over:
            got = [{**p, "value": None} for p in got]
            want = [{**p, "value": None} for p in want]
        if got != want:
            diff = [(a, b) for a, b in zip(got, want) if a != b][:3]
            raise fail(f"pieces differ from the engine's next view: {diff or (len(got), len(want))}")

    def view(self, game: Game[Any], state: Any, player: str) -> Any:
        """``game.view(state, player)``, made once for the state the walk or the exhaustive check
        is at (states are not changed once reached: each step copies)."""
        key = (id(state), player)
        kept = self._views.get(key)
        if kept is None or kept[0] is not state:
            if len(self._views) >= 8:
                self._views.clear()
            kept = self._views[key] = (state, game.view(state, player))     # the state held: its id stays its own
        return kept[1]

    def point(self, game: Game[Any], state: Any, rng: random.Random, what: str, walks: int = 1) -> None:
        """Walks from ``state`` for each player with a decision there."""
        for player in sorted({d.player for d in game.pending(state)}):
            self.tally.points += 1
            for _ in range(walks):
                end = self.walk(game, state, player, rng, what)
                self.tally.ends[(game.name, end)] += 1

    def exhaustive(self, game: Game[Any], state: Any, what: str, limit: int = 100) -> int:
        """Every legal action of the first player with a decision: each successor compared (stop,
        pieces, and the next step's decision and legal actions); where there are more than
        ``limit`` (set-up: every person on every tile), ``limit`` of them spread evenly.  How many
        were compared."""
        pending = game.pending(state)
        if not pending:
            return 0
        player = pending[0].player
        view = game.view(state, player)
        engine = game.from_position(view)
        model = game.turn_model(view, player)
        assert model is not None, f"{game.name} has no turn model"
        started, listed = self.node.answers([
            {"op": "start", "family": model.family, "data": model.data, "view": view, "player": player},
            {"op": "legal", "s": made(0)}])
        s = int(ok(started, "start"))
        compared = 0
        try:
            legal = ok(listed, "legal")
            if legal is None:
                return 0
            if len(legal) > limit:
                legal = [legal[k * len(legal) // limit] for k in range(limit)]
            # every action in one exchange: the engine's step first (a refusal raised after the
            # model's answers are checked), so that where the engine goes on, the requests applying
            # the action also compare the pieces of the successor with a fresh model's and ask its
            # decision and legal actions (then drop it); the answers checked action by action, in
            # the order of the list, as one exchange per action checked them
            steps: list[tuple[Any, Any, Rejected | None, bool, bool, int, int]] = []
            calls: list[dict[str, Any]] = []
            for action in legal:
                after, refused, engine_stop = engine_step(game, engine, player, action)
                at = len(calls)
                calls += [{"op": op, "s": s, "action": action} for op in ("places", "words", "apply")]
                over = False
                if refused is None and not engine_stop:
                    reached = made(at + 2)
                    request, over = self.fresh(game, after, player, reached)
                    calls += [request, {"op": "decision", "s": reached}, {"op": "legal", "s": reached},
                              {"op": "drop", "s": reached}]
                steps.append((action, after, refused, engine_stop, over, at, len(calls)))
            answers = self.node.answers(calls)
            for action, after, refused, engine_stop, over, at, to in steps:
                def fail(message: str, action: Any = action) -> Mismatch:
                    return Mismatch(f"{what}, player {player}, every action: {canon(action)}: {message}\n"
                                    f"position: {canon(view)}")
                places, words, applied_answer, *next_answers = answers[at:to]
                self.check_step(game, engine, player, action, ok(places, "places"), ok(words, "words"), fail)
                out = ok(applied_answer, "apply")
                t, stop = int(out["state"]), bool(out["stop"])
                if refused is not None:
                    self.node.drop([t])
                    raise refused
                if stop != engine_stop:
                    raise fail(f"stop {stop}, the engine {'stops' if engine_stop else 'goes on'}")
                if stop:
                    self.node.drop([t])
                else:
                    pieces, decision, next_legal, _ = next_answers
                    self.check_fresh(pieces, over, fail)
                    expected = self.engine_decision(game, after, player)
                    got = ok(decision, "decision")
                    if (None if got is None else (got["kind"], got["player"])) != expected:
                        raise fail(f"next decision {got}, the engine {expected}")
                    nxt = ok(next_legal, "legal")
                    if expected is not None and nxt is not None and \
                            canon(nxt) != canon(game.legal_actions(after, player)):
                        raise fail("the next legal actions differ")
                compared += 1
        finally:
            self.node.drop([s])
        return compared
