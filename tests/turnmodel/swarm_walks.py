"""Space Swarm's turn model (templates/turnmodel/swarm.js) driven against the engine: the states,
the walks and the checks that tests/turnmodel/test_swarm_model.py runs (and the soak,
``python tests/turnmodel/swarm_walks.py GAMES``, reports figures from).

At a state of a bot game, the player the game waits for gets their own view; the engine plays on
``from_position(view)`` (what the player's machine could know) and the model starts from the same
view and the data of ``Game.turn_model``.  A walk takes random listed actions; before each the
model's decision, legal actions and pieces must be the engine's, and the actions' words, places
and the standing-orders form must be what the page would show; after each the model's ``stop``
must be the engine's (a card drawn, a hidden hand or standing order needed) and, unless it
stopped, the model's view of its next state must be the engine's view, field for field.
"""
from __future__ import annotations

import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from harness import ModelProcess, digest, made, model_files, ok, same

from pbem.core.bots import CHOOSERS
from pbem.core.draws import preview_draws, setup_rng
from pbem.core.engine import Rejected, action_rng, apply_actions
from pbem.core.rng import Rng
from pbem.game import ActionPlaces
from pbem.rules.spaceswarm.game import SpaceSwarmGame
from pbem.rules.spaceswarm.picture import race_codes
from pbem.rules.spaceswarm.state import SwarmState

GAME = SpaceSwarmGame()
NAMES = ["red", "blue", "green", "yellow", "purple", "orange"]
FAMILY = "swarm"
#: the options a turn can differ by, each value at least once (with 2-6 players)
CASES: list[tuple[int, dict[str, str]]] = [
    (2, {}),
    (3, {"tech_phase": "research", "slot": "first"}),
    (4, {"react_combat": "ask", "react_bid": "auto"}),
    (5, {"combat_hexes": "active", "react_combat": "never", "slot": "last"}),
    (6, {"react_bid": "ask", "decks": "2", "tech_phase": "research"}),
    (3, {"react_combat": "ask", "react_bid": "ask", "slot": "ask", "combat_hexes": "active"}),
    (2, {"event_phase": "any"}),
    (4, {"event_phase": "any", "tech_phase": "research", "react_combat": "ask"}),
]


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


class Mismatch(AssertionError):
    """The model and the engine disagree; says where (the position file and the path)."""


@dataclass
class Tally:
    walks: int = 0
    steps: int = 0
    decisions: int = 0
    done: int = 0                 # walks that reached the end of the player's part
    stops: int = 0                # walks that reached a real STOP
    cuts: int = 0                 # walks that reached a decision the model does not list
    successors: int = 0
    written: int = 0              # actions written by hand (not listed) tried
    written_taken: int = 0        # ... and taken by the engine
    counts: int = 0               # numbers tried in the number pickers
    played: int = 0               # cards of the hand played as events at a decision (listed there or not)
    played_taken: int = 0         # ... and taken by the engine
    kinds: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        whole = self.done + self.stops
        return (f"{self.walks} walks, {self.steps} steps, {self.decisions} decision points, "
                f"{whole}/{self.walks} whole turns to their real end ({self.done} done, {self.stops} stops, "
                f"{self.cuts} cut), {self.successors} successors checked exhaustively, {self.counts} picker numbers, {self.written} written actions ({self.written_taken} taken), "
                f"{self.played} cards played as events ({self.played_taken} taken); kinds {self.kinds}")


def bot_states(n: int, options: dict[str, str], seed: str, every: int, limit: int = 1500) -> Iterator[SwarmState]:
    """Copies of the states of a bot game (greedy and random bots taking turns) every ``every``
    actions, at the decisions of players (and the first)."""
    players = NAMES[:n]
    s = GAME.setup(players, GAME.full_options(options), setup_rng(seed.encode(), "g"))
    bot_rng = Rng(seed.encode(), "bot")
    for step in range(limit):
        if GAME.result(s) is not None:
            return
        player = GAME.pending(s)[0].player
        if step % every == 0:
            yield GAME.copy_state(s)
        bot = "greedy" if players.index(player) % 2 else "random"
        action = CHOOSERS[bot](GAME, s, player, bot_rng)
        GAME.apply(s, player, action, action_rng(seed.encode(), "g", step + 1, 0))


def engine_pieces(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The board picture's pieces in the model's form (owner: the race whose code names the stack)."""
    codes = {code: p for p, code in race_codes([p["name"] for p in view["players"]]).items()}
    out = []
    for cell in GAME.board_picture(view).cells:
        for piece in cell.pieces:
            out.append({"handle": piece.handle, "shape": piece.shape, "owner": codes[piece.handle.split("@")[0]],
                        "cell": cell.label, "label": piece.text, "aboard": "", "value": piece.value,
                        "title": piece.title})
    return out


def differing(got: list[Any], want: list[Any]) -> str:
    """What differs between the model's list ``got`` and the engine's ``want``: the first items that
    differ (by position), or the lengths."""
    pairs = [(k, a, b) for k, (a, b) in enumerate(zip(got, want)) if a != b][:3]
    if not pairs:
        return f"model {len(got)} items, engine {len(want)}"
    return "; ".join(f"#{k} model {json.dumps(a)} engine {json.dumps(b)}" for k, a, b in pairs)


def place_dict(p: ActionPlaces) -> dict[str, str]:
    return {"piece": p.piece, "from": p.from_cell, "to": p.to_cell, "tile": p.tile}


def form_dicts(view: dict[str, Any], player: str) -> list[dict[str, Any]]:
    # (keys in the order swarm.js writes them, so that the same forms are the same JSON text)
    return [{"key": f.key, "title": f.title,
             "fields": [{"name": x.name, "label": x.label, "values": list(x.values), "texts": list(x.texts),
                         "current": x.current} for x in f.fields],
             "when": f.when, "note": f.note} for f in GAME.order_forms(view, player)]


@dataclass
class Root:
    """A state of a bot game as the walks and checks there start from it: the player's view, the
    engine playing on ``from_position(view)`` (never changed: each step copies it), the model
    started from the view (handle ``s``, never changed: the runner checks) and its legal actions,
    compared with the engine's once (None: cut)."""
    player: str
    view: dict[str, Any]
    engine: SwarmState
    s: int
    legal: list[Any] | None


@dataclass
class Planned:
    """A step of :meth:`Walker.steps_compared` planned for a batch: the engine's side worked out
    (``after`` None: the engine refuses), the model's requests at ``at`` (the apply) to ``to``."""
    action: Any
    path: list[Any]
    after: SwarmState | None
    stop: bool
    at: int
    to: int
    asked: Any                      # what the compared answers are checked against (None: not compared)
    compare: list[Any] | None = None

    def legal(self) -> list[Any] | None:
        """The engine's legal actions for the player where it goes on (as :meth:`Walker.compared`
        gives them where the model agrees), [] where the player's part is over."""
        want, _, _, _, engine_legal, _ = self.asked
        return [] if want is None else engine_legal


class Walker:
    """One node process; walks and successor checks against the engine."""

    def __init__(self, node: ModelProcess, tally: Tally) -> None:
        self.node, self.tally = node, tally
        #: (view JSON, player) -> the engine's pieces and forms, for the sampled state checked now
        self._drawn: dict[tuple[str, str], tuple[list[Any], str, list[Any], str]] = {}
        #: (view JSON, player, legal actions' JSON) -> the engine's places of those actions and their
        #: JSON's digest, for the sampled state checked now
        self._placed: dict[tuple[str, str, str], tuple[list[dict[str, str]], str]] = {}

    def start(self, view: dict[str, Any], player: str) -> int:
        model = GAME.turn_model(view, player)
        assert model is not None and model.family == FAMILY
        return self.node.start(FAMILY, plain(model.data), view, player)

    def root(self, state: SwarmState, player: str) -> Root:
        """``player``'s view of ``state``, the model started from it and compared with the engine."""
        view = plain(GAME.view(state, player))
        engine = GAME.from_position(view)
        model = GAME.turn_model(view, player)
        assert model is not None and model.family == FAMILY
        calls, asked = self.comparing(made(0), engine, player)      # started and compared in one exchange
        started, *answers = self.node.answers([{"op": "start", "family": FAMILY, "data": plain(model.data),
                                                "view": view, "player": player}] + calls)
        s = int(ok(started, "start"))
        return Root(player, view, engine, s, self.compared(answers, asked, view, player, []))

    def where(self, view: dict[str, Any], player: str, path: Sequence[Any], what: str) -> Mismatch:
        return Mismatch(f"{what}\n  player {player}, path {json.dumps(list(path))}\n"
                        f"  position: {json.dumps(view, sort_keys=True)}")

    def compare(self, s: int, state: SwarmState, player: str, start: dict[str, Any], path: list[Any]) -> list[Any] | None:
        """The model's state ``s`` against the engine's ``state``: decision, legal, pieces, view,
        forms, and each listed action's words and places; the legal actions (None: cut; [] at DONE)."""
        calls, asked = self.comparing(s, state, player)
        return self.compared(self.node.answers(calls), asked, start, player, path)

    def comparing(self, s: int | dict[str, int], state: SwarmState, player: str) -> tuple[list[dict[str, Any]], Any]:
        """The requests of :meth:`compare` for model state ``s`` (a handle, or ``made(i)`` in a batch)
        and what :meth:`compared` checks their answers against."""
        text = json.dumps(GAME.view(state, player), separators=(",", ":"))
        pending = GAME.pending(state)
        want = None if not pending or pending[0].player != player else \
            {"kind": pending[0].kind, "prompt": pending[0].prompt, "player": player}
        pieces, pieces_digest, forms, forms_digest = self.drawn(text, player)
        # the engine's legal actions and their places, where the engine waits for the player, and
        # their JSON's digests: the model's need not be read back where they are written exactly so
        engine_legal: list[Any] | None = None
        engine_places: list[dict[str, str]] | None = None
        expect: list[str | None] = []
        if want is not None:
            legal_text = json.dumps(GAME.legal_actions(state, player), separators=(",", ":"))
            engine_legal = json.loads(legal_text)
            engine_places, places_digest = self.placed(text, player, legal_text, engine_legal)
            expect = [digest(legal_text), None, places_digest]
        # the model's answers in one exchange: the listed actions with the words and places of each;
        # its view, pieces and forms only where their JSON is not exactly the engine's (the same text
        # is the same value: node compares the digests; another text is read back and compared as a
        # value, and the difference shown)
        calls: list[dict[str, Any]] = [
            {"op": "decision", "s": s}, {"op": "pieces", "s": s, "expect": pieces_digest},
            {"op": "method", "s": s, "name": "view", "args": [], "expect": digest(text)},
            {"op": "forms", "s": s, "expect": forms_digest},
            {"op": "listed", "s": s, "ops": ["words", "places"], "expect": expect}]
        return calls, (want, text, pieces, forms, engine_legal, engine_places)

    def compared(self, answers: list[dict[str, Any]], asked: Any, start: dict[str, Any], player: str,
                 path: list[Any]) -> list[Any] | None:
        """The answers to :meth:`comparing`'s requests checked: the legal actions (as :meth:`compare`)."""
        want, text, pieces, forms, engine_legal, engine_places = asked
        got_decision, got_pieces, got_view, got_forms, listed = answers
        if ok(got_decision, "decision") != want:
            raise self.where(start, player, path, f"decision {ok(got_decision, 'decision')} != engine {want}")
        if not same(got_view):
            model_view, view = ok(got_view, "method"), json.loads(text)
            if model_view != view:
                diff = sorted(k for k in view if view[k] != model_view.get(k))
                raise self.where(start, player, path, f"view differs in {diff}: model {[model_view.get(k) for k in diff]} "
                                                      f"engine {[view[k] for k in diff]}")
        if not same(got_pieces) and ok(got_pieces, "pieces") != pieces:
            raise self.where(start, player, path, f"pieces differ: {differing(ok(got_pieces, 'pieces'), pieces)}")
        if not same(got_forms) and ok(got_forms, "forms") != forms:
            raise self.where(start, player, path, f"forms {ok(got_forms, 'forms')} != {forms}")
        got_legal, each = ok(listed, "listed")
        if want is None:
            if got_legal not in ([], None):
                raise self.where(start, player, path, f"legal {got_legal} at the end of the player's part")
            return []
        self.tally.decisions += 1
        self.tally.kinds[want["kind"]] = self.tally.kinds.get(want["kind"], 0) + 1
        if got_legal is None:
            return None
        assert engine_legal is not None and engine_places is not None
        legal = engine_legal
        if got_legal is not True and got_legal != legal:
            raise self.where(start, player, path, f"legal differs at {want['kind']}:\n  model  {got_legal}\n  engine {legal}")
        # each listed action's words and places (the model's list, just found equal to the engine's)
        words, places = ok(each, "listed") if isinstance(each, dict) else each
        if any(not isinstance(w, str) or not w for w in words):
            raise self.where(start, player, path, f"words {words}")
        if places is not True and places != engine_places:
            raise self.where(start, player, path, f"places differ: {differing(places, engine_places)}")
        return legal

    def forget(self) -> None:
        """The views drawn so far forgotten (the next sampled state meets others)."""
        self._drawn.clear()
        self._placed.clear()

    def placed(self, text: str, player: str, legal_text: str, legal: list[Any]) -> tuple[list[dict[str, str]], str]:
        """The engine's places of the actions ``legal`` (whose JSON is ``legal_text``) in the view whose
        JSON is ``text``, and their JSON's digest, made once for each view and list the checks of one
        sampled state meet (a function of the view and the actions alone)."""
        key = (text, player, legal_text)
        found = self._placed.get(key)
        if found is None:
            places = [place_dict(p) for p in GAME.action_places(json.loads(text), player, legal)]
            found = self._placed[key] = (places, digest(json.dumps(places, separators=(",", ":"))))
        return found

    def drawn(self, text: str, player: str) -> tuple[list[Any], str, list[Any], str]:
        """The engine's pieces (the board picture's) and forms of the view whose JSON is ``text``, and
        their JSON's digests, made once for each view the checks of one sampled state meet (their walks,
        successors and pickers reach many views more than once); both are functions of the view alone."""
        key = (text, player)
        found = self._drawn.get(key)
        if found is None:
            view = json.loads(text)
            pieces, forms = engine_pieces(view), form_dicts(view, player)
            found = self._drawn[key] = (pieces, digest(json.dumps(pieces, separators=(",", ":"))),
                                        forms, digest(json.dumps(forms, separators=(",", ":"))))
        return found

    def step(self, s: int, state: SwarmState, player: str, action: Any, start: dict[str, Any],
             path: list[Any]) -> tuple[int, SwarmState, bool] | None:
        """Both take ``action``: (model state, engine state, stop); None where the engine refuses
        it (then the model must refuse it too)."""
        out = self.steps_compared(s, state, player, [(action, path, None)], start)[0]
        return None if out is None else out[:3]

    def steps_compared(self, s: int, state: SwarmState, player: str,
                       steps: Sequence[tuple[Any, list[Any], list[Any] | None]],
                       start: dict[str, Any]) -> list[tuple[int, SwarmState, bool, list[Any] | None] | None]:
        """:meth:`step` for each (action, path, compare) of ``steps``, and where ``compare`` (a path,
        for the failure message) is given and the engine goes on, the model's next state compared
        with the engine's (:meth:`compare`) in the same exchange as the apply: for each, (model state,
        engine state, stop, the legal actions there or None), or None where the engine refuses.
        All from the model's state ``s`` and the engine's ``state`` (neither changes), in one exchange; the answers
        checked step by step in the order given (the first that fails raises, as one exchange per
        step would have raised it).  The model states made are the caller's to drop."""
        if not steps:
            return []
        calls: list[dict[str, Any]] = []
        plans = [self.planned(s, state, player, action, path, compare, calls) for action, path, compare in steps]
        answers = self.node.answers(calls)
        return [self.checked(plan, answers, start, player) for plan in plans]

    def planned(self, s: int | dict[str, int], state: SwarmState, player: str, action: Any, path: list[Any],
                compare: list[Any] | None, calls: list[dict[str, Any]]) -> "Planned":
        """The engine's step of :meth:`steps_compared` (on a copy of ``state``), and the model's
        requests for it added to ``calls`` (a batch: ``s`` may be ``made(i)``)."""
        after = GAME.copy_state(state)
        at = len(calls)
        calls.append({"op": "apply", "s": s, "action": action})
        try:
            applied = apply_actions(GAME, after, player, [action], preview_draws())
        except Rejected:
            return Planned(action, path, None, False, at, at + 1, None)
        stop = applied.needs_secret or any(e.chance for e in applied.events)
        more, asked = self.comparing(made(at), after, player) if compare is not None and not stop else ([], None)
        calls += more
        return Planned(action, path, after, stop, at, len(calls), asked, compare)

    def checked(self, plan: "Planned", answers: list[dict[str, Any]], start: dict[str, Any],
                player: str) -> tuple[int, SwarmState, bool, list[Any] | None] | None:
        """The model's answers to a :meth:`planned` step checked: what :meth:`steps_compared` gives for it."""
        applied_answer = answers[plan.at]
        if plan.after is None:                  # the engine refused: the model must have thrown
            if "error" in applied_answer:
                return None
            raise self.where(start, player, plan.path + [plan.action], "the model takes an action the engine refuses")
        got = ok(applied_answer, "apply")
        t, got_stop = int(got["state"]), bool(got["stop"])
        if got_stop != plan.stop:
            self.node.drop([t])
            raise self.where(start, player, plan.path + [plan.action], f"stop {got_stop} != engine {plan.stop}")
        legal = None
        if plan.asked is not None:
            assert plan.compare is not None
            legal = self.compared(answers[plan.at + 1:plan.to], plan.asked, start, player, plan.compare)
        return t, plan.after, plan.stop, legal

    def walk(self, root: Root, rnd: random.Random, max_steps: int = 60) -> None:
        """A random path through the player's turn from their view (the root's).  The walk is the
        engine's (the model's legal actions are checked to be the engine's at every step: a walk
        taken from the engine's is the same walk), planned in full and sent in one exchange, each
        step's apply followed by the comparison of the state it reaches; the answers are checked
        step by step in order.  Where the model stops listing (a cut) the walk ends there, the
        random draws put back to where they were then."""
        player, start, engine, s = root.player, root.view, root.engine, root.s
        self.tally.walks += 1
        calls: list[dict[str, Any]] = []
        steps: list[tuple[Planned, bool, Any]] = []      # (step, an event tried on the way, rnd state after)
        path: list[Any] = []
        at: int | dict[str, int] = s
        legal = root.legal
        end = "max"
        for _ in range(max_steps):
            if legal is None:
                end = "cut"
                break
            if not legal:
                end = "done"
                break
            if engine.hands[player] and rnd.random() < 0.25:
                card = rnd.choice(engine.hands[player])
                steps.append((self.planned(at, engine, player, {"event": card}, list(path), path + [{"event": card}],
                                           calls), True, None))
            action = self.standing(engine, player, rnd) if rnd.random() < 0.08 else self.choose(legal, rnd)
            # the state reached compared in the requests applying the action (unless it stopped)
            step = self.planned(at, engine, player, action, list(path), path + [action], calls)
            steps.append((step, False, rnd.getstate()))
            path.append(action)
            if step.after is None or step.stop:
                end = "refused" if step.after is None else "stop"
                break
            at, engine, legal = made(step.at), step.after, step.legal()
        answers = self.node.answers(calls) if calls else []
        try:
            for step, event, drawn in steps:
                out = self.checked(step, answers, start, player)
                if event:
                    self.tally.played += 1
                    self.tally.played_taken += out is not None
                    continue
                assert out is not None, self.where(start, player, step.path + [step.action], "a listed action refused")
                self.tally.steps += 1
                if out[2]:
                    self.tally.stops += 1
                    return
                if out[3] is None:          # the model does not list the decision reached: cut there
                    rnd.setstate(drawn)
                    self.tally.cuts += 1
                    return
            if end == "cut":
                self.tally.cuts += 1
            elif end == "done":
                self.tally.done += 1
            else:
                raise self.where(start, player, path, f"no end after {max_steps} steps")
        finally:
            applied = [answers[step.at] for step, _, _ in steps] if answers else []
            self.node.drop([int(a["ok"]["state"]) for a in applied if "ok" in a])

    @staticmethod
    def choose(legal: list[Any], rnd: random.Random) -> Any:
        """Mostly a move of the turn itself; now and then a card played as an event."""
        turn = [a for a in legal if "event" not in a]
        return rnd.choice(turn if turn and rnd.random() < 0.9 else legal)

    @staticmethod
    def standing(state: SwarmState, player: str, rnd: random.Random) -> dict[str, Any]:
        """A standing order the page's form could send (any time): a value of the form, or a list
        of cards / places."""
        key = rnd.choice(["combat", "bid", "slot"])
        if key == "slot":
            value: Any = rnd.choice(["ask", "first", "last", sorted(rnd.sample(range(1, len(state.players) + 1), 2))])
        else:
            hand = state.hands[player]
            value = rnd.choice(["auto", "never", "ask"] + ([rnd.sample(hand, 1)] if hand else []))
        return {"standing": {key: value}}

    def successors(self, root: Root) -> None:
        """Every listed action from the player's view (the root's): the model's stop and next
        state must be the engine's."""
        player, start, engine, s = root.player, root.view, root.engine, root.s
        legal = root.legal or []
        # (compared unless it stopped; every successor in one exchange)
        outs = self.steps_compared(s, engine, player, [(action, [], [action]) for action in legal], start)
        self.node.drop([out[0] for out in outs if out is not None])
        for action, out in zip(legal, outs):
            assert out is not None, self.where(start, player, [action], "a listed action refused")
            self.tally.successors += 1

    def pickers(self, root: Root, rnd: random.Random, tries: int = 12) -> None:
        """The number pickers (the model's ``counts``/``counted`` extension) at ``player``'s decision:
        the numbers of fleets to produce on each stack, to move along a listed path.  ``counted``
        must give an action exactly where the engine takes one with those numbers, and then the
        engine's next view."""
        player, start, engine, s = root.player, root.view, root.engine, root.s
        legal = root.legal or []
        shapes = [a for a in legal if "produce" in a][:1] + rnd.sample([a for a in legal if "move" in a],
                                                                         min(4, sum("move" in a for a in legal)))
        for action in shapes:
            pickers = self.node.method(s, "counts", action)
            assert pickers, self.where(start, player, [action], "no number picker for a listed action")
            shown = {k["key"]: k["value"] for k in pickers}
            tried = self.numbers(action, pickers, rnd, tries)
            self.tally.counts += len(tried)
            # the picker's actions for the numbers shown and for every number tried in one exchange,
            # the actions written for them taken in a second, the picker's actions the engine takes
            # (compared unless they stopped) in a third
            as_shown, *mades = self.node.batch([{"op": "method", "s": s, "name": "counted", "args": [action, values]}
                                                for values in [shown, *tried]])
            assert as_shown == action, \
                self.where(start, player, [action], "the picker's numbers as shown do not give the action")
            writtens = [self.written(action, values) for values in tried]
            outs = self.steps_compared(s, engine, player, [(w, [values], None) for w, values in zip(writtens, tried)],
                                       start)
            self.node.drop([out[0] for out in outs if out is not None])
            for values, made, written, out in zip(tried, mades, writtens, outs):
                if (made is None) != (out is None):
                    raise self.where(start, player, [action, values],
                                     f"the picker gives {made}, the engine {'refuses' if out is None else 'takes'} "
                                     f"{written}")
            taken = [(made, written, out) for made, written, out in zip(mades, writtens, outs) if out is not None]
            agains = self.steps_compared(s, engine, player, [(made, [made], [made]) for made, _, _ in taken], start)
            self.node.drop([again[0] for again in agains if again is not None])
            for (made, written, out), again in zip(taken, agains):
                assert out is not None and again is not None
                _, after, stop, _ = again
                if not stop:
                    if plain(GAME.view(after, player)) != plain(GAME.view(out[1], player)):
                        raise self.where(start, player, [made, written], "the picker's action differs")

    @staticmethod
    def numbers(action: dict[str, Any], pickers: list[dict[str, Any]], rnd: random.Random,
                tries: int) -> list[dict[str, int]]:
        """Numbers to try: every count of a move picker and one more; for production, splits of
        the total (and some that do not add up)."""
        if "move" in action:
            top = pickers[0]["max"]
            return [{"fleets": k} for k in range(1, top + 2)]
        total = max(k["max"] for k in pickers)
        out = []
        for _ in range(tries):
            values = {k["key"]: 0 for k in pickers}
            left = total + (rnd.choice([-1, 1]) if rnd.random() < 0.2 else 0)
            while left > 0:
                key = rnd.choice(list(values))
                values[key] += 1
                left -= 1
            out.append(values)
        return out

    @staticmethod
    def written(action: dict[str, Any], values: dict[str, int]) -> dict[str, Any]:
        """The action a player would write for these numbers, whatever they are."""
        if "move" in action:
            return {"move": action["move"], "path": action["path"], "fleets": values["fleets"]}
        return {"produce": {key: n for key, n in values.items() if n}}

    def handwritten(self, state: SwarmState, root: Root, rnd: random.Random, tries: int = 10) -> None:
        """Actions a player may write by hand besides the listed ones (a move with ``fleets``,
        ``pick`` and ``drop``, other spellings, mistakes): the model takes exactly those the
        engine takes, with the same next view."""
        player, start, engine, s = root.player, root.view, root.engine, root.s
        legal = root.legal or []
        actions = [self.scribble(rnd.choice(legal), state, player, rnd) for _ in range(tries)]
        # (compared unless it stopped; all in one exchange)
        outs = self.steps_compared(s, engine, player, [(action, [], [action]) for action in actions], start)
        self.node.drop([out[0] for out in outs if out is not None])
        self.tally.written += len(actions)
        self.tally.written_taken += sum(out is not None for out in outs)

    def events(self, root: Root) -> None:
        """Each card of the player's hand played as an event at their decision, whether the decision
        lists it or not (an "any time" action; an Event card is refused in the phase where Technology
        is placed unless ``event_phase=any``): the model takes exactly what the engine takes."""
        cards = root.engine.hands[root.player]
        # (compared unless it stopped; all in one exchange)
        outs = self.steps_compared(root.s, root.engine, root.player,
                                   [({"event": card}, [], [{"event": card}]) for card in cards], root.view)
        self.node.drop([out[0] for out in outs if out is not None])
        self.tally.played += len(cards)
        self.tally.played_taken += sum(out is not None for out in outs)

    @staticmethod
    def scribble(action: dict[str, Any], state: SwarmState, player: str, rnd: random.Random) -> dict[str, Any]:
        """``action`` as a player might write it instead."""
        out = json.loads(json.dumps(action))
        kind = next(iter(out))
        if kind == "move":
            path = out["path"]
            here = state.fleets[player][state.hexmap.index(out["move"])]
            way = rnd.choice([path[:-1] or path, path])       # mostly spaces the stack passes through
            change = rnd.randrange(9)
            if change < 3:
                out["fleets"] = rnd.randint(1, here + 1)
            if change in (1, 2, 3, 4):
                out["drop"] = {rnd.choice(way): rnd.randint(1, 3)}
            if change in (2, 4, 5, 6):
                out["pick"] = {rnd.choice(way): rnd.randint(1, 3)}
            if change == 7:
                out["path"] = rnd.choice([path[::-1], path + path[-1:], [out["move"]] + path, path[:-1] + ["A1"]])
            if change == 8:
                out["move"] = out["move"].lower()
                out["fleets"] = rnd.choice(["all", "2", 0, -1, 2.5, True, None])
            return out
        if kind == "produce" and rnd.random() < 0.5:
            mine = [state.hexmap.label(c) for c in sorted(state.fleets[player])]
            return {"produce": {rnd.choice(mine).lower(): rnd.randint(0, 4), rnd.choice(mine): rnd.randint(1, 4)}}
        value = out[kind]
        if isinstance(value, str) and value.startswith("C"):
            out[kind] = rnd.choice([value.lower(), " " + value, [value], value + "0"])
        elif kind == "discard":
            out[kind] = rnd.choice([value[:-1], value + value[:1], [c.lower() for c in value], value[0]])
        elif kind in ("react", "slot", "done", "attack", "develop"):
            out[kind] = rnd.choice([value, "none", None, 0, 1, 99, "all", [], {}])
            if rnd.random() < 0.3:
                out["targets"] = {"A1": player}
        return out


def run(games: Sequence[tuple[int, dict[str, str], str]], every: int, walks_per_state: int,
        exhaustive_every: int, tally: Tally, node: ModelProcess | None = None) -> None:
    """The walks and checks at the sampled states of each game, in ``node`` (else a node of its own)."""
    if node is None:
        with ModelProcess(model_files([FAMILY])) as own:
            run(games, every, walks_per_state, exhaustive_every, tally, own)
        return
    walker = Walker(node, tally)
    for n, options, seed in games:
        rnd = random.Random(seed)
        for k, state in enumerate(bot_states(n, options, seed, every)):
            player = GAME.pending(state)[0].player
            root = walker.root(state, player)       # compared once: each check below starts from it
            for _ in range(walks_per_state):
                walker.walk(root, rnd)
            if exhaustive_every and k % exhaustive_every == 0:
                walker.successors(root)
            if GAME.pending(state)[0].kind in ("produce", "move"):
                walker.pickers(root, rnd)
            walker.handwritten(state, root, rnd)
            walker.events(root)
            node.drop([root.s])
            walker.forget()


if __name__ == "__main__":          # the soak: python swarm_walks.py GAMES_PER_CASE
    per_case = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    tally, began = Tally(), time.process_time()
    run([(n, o, f"soak/{i}/{k}") for i, (n, o) in enumerate(CASES) for k in range(per_case)], 3, 2, 4, tally)
    print(tally.line(), f"; {time.process_time() - began:.0f} s CPU (python side)")
