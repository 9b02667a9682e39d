"""The choices a player can click through on their digest page: a graph of their decisions.

From the player's own view (``game.from_position(game.view(state, player))``), the legal actions
now and, for each, what follows: the next decision (a node of the graph, the same node for two
orders that reach the same view, e.g. r1 then r2 or r2 then r1), ``STOP`` where the next step
needs a roll or a hidden value (the moderator applies it; :mod:`pbem.views.compose` stops there too),
``DONE`` where the player's part is over, or ``CUT`` where the graph was capped.  Every action a
node offers is one ``Game.legal_actions`` listed there, and every edge is found by applying the
action with the engine (:func:`pbem.core.engine.apply_actions` without the seed), so the page never
offers what the engine would refuse, unless the game knows where it leads without that
(``Game.known_outcomes``: a tile removal stops for its hidden back; checked against the engine
by the tests).  Two orders reach one node when ``Game.view_key`` of their states is equal (the
key of the view, which a game may make more cheaply than the view itself).

The graph is capped (:class:`Caps`: nodes, edges followed, gzipped bytes of page data) so that
the digest stays small and quick to make.  Which edges are followed: every first choice, always;
then, counting only the actions that move or place a piece, the paths with fewer of them first
(so "move, done, remove a tile" comes before "move, move"), a piece moved again before another
piece, and otherwise in the order found.  Deterministic: the same state gives the same graph.
"""
from __future__ import annotations

import gc
import gzip
import hashlib
import heapq
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator, Mapping

from pbem.base.canonical import canonical
from pbem.base.yamlio import dump_flow
from pbem.core.actiontext import action_text
from pbem.core.draws import preview_draws
from pbem.core.engine import Rejected, apply_actions
from pbem.core.game import HANDS_OVER, NEEDS_CHANCE, Game, pending_players
from pbem.core.picture import ActionPlaces, OrderForm
from pbem.core.records import Action, Decision
from pbem.core.rng import NeedsSecret

__all__ = ["STOP", "DONE", "CUT", "Caps", "Node", "ChoiceGraph", "build_graph", "fit", "graph_data", "packed_size"]

STOP, DONE, CUT = -1, -2, -3
_REFUSED = -9          # listed by the game but refused by the engine (a rules bug): dropped, never offered
_KNOWN = {NEEDS_CHANCE: STOP, HANDS_OVER: DONE}    # Game.known_outcomes -> where an edge ends


@dataclass(frozen=True)
class Caps:
    """How much of the graph is made: ``nodes`` decisions, ``applies`` edges followed (each costs
    one, tried with the engine or known from the game; the first choices are always followed) and
    ``gzip_bytes`` of gzipped
    page data (:func:`graph_data`) at most.  The first decision is always whole, whatever its
    size, and the orders written ahead come on top."""

    nodes: int = 200
    applies: int = 500
    gzip_bytes: int = 5000


@dataclass
class Node:
    """One decision: the actions offered (numbers into :attr:`ChoiceGraph.texts`, in the game's
    order) and, for each, what follows (a node number, STOP, DONE or CUT)."""

    state: Any                           # the state (never changed while an edge may still be followed from it)
    prompt: int                          # number into ChoiceGraph.prompts
    actions: list[int]
    after: list[int]
    at: dict[int, int]                   # piece -> the space it is on now (numbers into names; -1: off the board)
    ahead: int = -1                      # number into ChoiceGraph.ahead_forms: orders for after a STOP (-2: none)
    stop: str = ""                       # why there is nothing to choose (the choices need a secret)
    level: int = 0                       # actions moving a piece on the path that found it
    piece: int = -1                      # the piece the last of them moved
    found_from: int = -1                 # the node whose edge found it
    known: list[int] = field(default_factory=list)   # per action: STOP or DONE where the game knows (else CUT)
    left: int = 0                        # edges not yet followed that must be tried (the last may use ``state``)
    forms: list[OrderForm] | None = None  # the orders written ahead, read before ``state`` went to the last edge


@dataclass
class ChoiceGraph:
    """A player's choices; ``texts``, ``words``, ``places``, ``names`` and ``prompts`` are the
    tables the nodes name by number."""

    player: str
    texts: list[str] = field(default_factory=list)          # each action in move-file syntax
    actions: list[Action] = field(default_factory=list)
    words: list[str] = field(default_factory=list)          # how each reads (Game.describe_action), "" = as written
    places: list[tuple[int, int, int]] = field(default_factory=list)   # (piece, to, tile) as names; -1: none
    names: list[str] = field(default_factory=list)          # pieces and spaces
    prompts: list[str] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    first_forms: list[OrderForm] = field(default_factory=list)
    ahead_forms: list[OrderForm] = field(default_factory=list)
    #: action number -> its text's shape and values, and its words' shape (:func:`_parse`: they
    #: depend on the action alone, so :func:`graph_data` works them out once per graph)
    parsed: dict[int, tuple[str, list[str], str | None]] = field(default_factory=dict, repr=False, compare=False)
    #: the page data of the graph as it is, when :func:`build_graph` measured it last and nothing
    #: changed since: the next :func:`graph_data` hands it over (once) instead of making it again
    made: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def cut(self) -> bool:
        """Did the caps leave out part of the graph?"""
        return any(a == CUT for n in self.nodes for a in n.after)

    def word(self, name: int) -> str:
        return self.names[name] if name >= 0 else ""

    def action_places(self, number: int, node: Node) -> ActionPlaces:
        """Where action ``number`` of ``node`` shows on the board, in words."""
        piece, to, tile = self.places[number]
        return ActionPlaces(self.word(piece), self.word(node.at.get(piece, -1)) if piece >= 0 else "",
                            self.word(to), self.word(tile))


@dataclass
class _Builder:
    game: Game[Any]
    player: str
    caps: Caps
    graph: ChoiceGraph
    index: dict[str, int] = field(default_factory=dict)            # action (repr) -> number
    piece_of: list[int] = field(default_factory=list)              # action number -> the piece it moves (a name)
    names: dict[str, int] = field(default_factory=dict)
    prompts: dict[str, int] = field(default_factory=dict)
    seen: dict[Any, int] = field(default_factory=dict)             # Game.view_key of a node's state -> node
    forms: dict[bytes, int] = field(default_factory=dict)          # canonical ahead form -> number
    form_keys: dict[OrderForm, bytes] = field(default_factory=dict)   # ahead form -> its canonical form
    #: the edges to follow, most wanted first: (level, switch, order, node, lane, at) stands for
    #: the edge ``lane[at]`` of the node, next of the node's edges of that level and switch (the
    #: rest of the lane is pushed in turn, each with its own order: what one entry per edge gives)
    queue: list[tuple[int, int, int, int, list[int], int]] = field(default_factory=list)
    order: int = 0
    applies: int = 0
    measured: tuple[int, int, dict[str, Any]] = (-1, 0, {})        # (applies, packed size, data) last measured

    def name(self, text: str) -> int:
        if not text:
            return -1
        number = self.names.get(text)
        if number is None:
            number = self.names[text] = len(self.graph.names)
            self.graph.names.append(text)
        return number

    def prompt(self, text: str) -> int:
        number = self.prompts.get(text)
        if number is None:
            number = self.prompts[text] = len(self.graph.prompts)
            self.graph.prompts.append(text)
        return number

    def action_number(self, action: Action, place: ActionPlaces) -> int:
        """A new action's number."""
        number = len(self.graph.texts)
        text = action_text(action)
        words = self.game.describe_action(action)
        self.graph.actions.append(dict(action))
        self.graph.texts.append(text)
        self.graph.words.append("" if words == text else words)
        piece = self.name(place.piece)
        self.graph.places.append((piece, self.name(place.to_cell), self.name(place.tile)))
        self.piece_of.append(piece)
        return number

    def numbers(self, state: Any, legal: list[Action]) -> tuple[list[int], dict[int, int]]:
        """The numbers of the actions ``legal`` of a decision, and where each piece they move is
        (``at``).  ``Game.state_action_places`` is asked about the actions not seen before and,
        for the pieces the others move, about one action each: the piece, its destination and
        the space an action takes depend on the action alone, only the space a piece is on now
        depends on the view (:class:`pbem.core.picture.ActionPlaces`)."""
        index, numbers = self.index, []
        asked: list[int] = []                  # which actions of ``legal`` are asked about, in order
        new: dict[str, int] = {}               # the key of an action not seen before -> the first
        pieces: set[int] = set()               # the pieces (names) of the known actions asked about
        piece_of = self.piece_of
        for k, action in enumerate(legal):
            key = repr(action)
            found = index.get(key)
            if found is None:
                if key not in new:
                    new[key] = k
                    asked.append(k)
                numbers.append(-1)
            else:
                numbers.append(found)
                piece = piece_of[found]
                if piece >= 0 and piece not in pieces:
                    pieces.add(piece)
                    asked.append(k)
        if new:
            asked.sort()
        places = dict(zip(asked, self.game.state_action_places(state, self.player, [legal[k] for k in asked])))
        for key, k in new.items():
            index[key] = self.action_number(legal[k], places[k])
        if new:
            numbers = [index[repr(a)] if n < 0 else n for a, n in zip(legal, numbers)]
        name = self.name
        at = {name(p.piece): name(p.from_cell) for p in places.values() if p.piece}
        return numbers, at

    def add_node(self, state: Any, level: int, piece: int, found_from: int, decisions: list[Decision]) -> int:
        """A new node for ``state`` (``decisions``: what the game waits for there).  The player's
        view of it is not made: what the node needs of it the game reads off the state."""
        game, player, graph = self.game, self.player, self.graph
        prompt = self.prompt(next((d.prompt for d in decisions if d.player == player), ""))
        number = len(graph.nodes)
        try:
            legal = game.legal_actions(state, player)
        except NeedsSecret as exc:
            graph.nodes.append(Node(None, prompt, [], [], {}, stop="the choices now depend on something you "
                                                                 f"cannot see ({exc})", found_from=found_from))
            return number
        known = [_KNOWN.get(o, CUT) for o in game.known_outcomes(state, player, legal)]
        numbers, at = self.numbers(state, legal)
        node = Node(state, prompt, numbers, [CUT] * len(numbers), at, level=level, piece=piece,
                    found_from=found_from, known=known, left=known.count(CUT))
        graph.nodes.append(node)
        places_table, order = graph.places, self.order
        lanes: dict[tuple[int, int], list[int]] = {}     # (level, switch) -> the edges, in order
        for k, a in enumerate(numbers):
            moved = places_table[a][0]
            switch = int(moved >= 0 and piece >= 0 and moved != piece)
            lanes.setdefault((level + int(moved >= 0), switch), []).append(k)
        for (lane_level, switch), lane in lanes.items():
            heapq.heappush(self.queue, (lane_level, switch, order + lane[0], number, lane, 0))
        self.order = order + len(numbers)
        return number

    def ahead_form(self, node: Node) -> int:
        """The orders the player may write ahead after a STOP from this node (a number into
        ``ahead_forms``, the same number for the same form), or -2 for none."""
        if node.forms is not None:      # (read before its state went to the last edge followed from it)
            forms = node.forms
        elif node.state is not None:
            forms = self.game.ahead_order_forms(node.state, self.player)
        else:                           # (no choices: nothing follows)
            return -2
        if not forms:
            return -2
        ahead = forms[0]
        key = self.form_keys.get(ahead)
        if key is None:
            key = self.form_keys[ahead] = canonical(_form_data(ahead))
        if key not in self.forms:
            self.forms[key] = len(self.graph.ahead_forms)
            self.graph.ahead_forms.append(ahead)
        return self.forms[key]

    def follow(self, number: int, k: int) -> None:
        """Apply the k-th action of a node to a copy of its state (to the state itself when no
        other edge is to be tried from it): where does it lead?"""
        game, player, node = self.game, self.player, self.graph.nodes[number]
        self.applies += 1
        if node.known[k] != CUT:             # the game knows: no need to try it
            node.after[k] = node.known[k]
            return
        node.left -= 1
        if node.left:
            state = game.copy_state(node.state)
        else:           # the last edge to try takes the state itself, once what the node reads off it is read
            node.forms = game.ahead_order_forms(node.state, player)
            state, node.state = node.state, None
        action = self.graph.actions[node.actions[k]]
        try:
            applied = apply_actions(game, state, player, [action], preview_draws())
        except Rejected:                     # listed but refused: a rules bug; never offer it
            node.after[k] = _REFUSED
            return
        if applied.needs_secret or any(e.chance for e in applied.events):
            node.after[k] = STOP
            return
        decisions = game.pending(state)
        if not any(d.player == player for d in decisions):
            node.after[k] = DONE
            return
        key = game.view_key(state, player)
        known = self.seen.get(key)
        if known is not None:
            node.after[k] = known
            return
        moved = self.graph.places[node.actions[k]][0]
        self.seen[key] = len(self.graph.nodes)
        node.after[k] = self.add_node(state, node.level + int(moved >= 0), moved if moved >= 0 else node.piece,
                                      number, decisions)

    def packed(self) -> int:
        """The packed size of the page data of the graph as it is now (remembered until the next
        edge is followed: :func:`build_graph` fits the graph with it when none was)."""
        if self.measured[0] != self.applies:
            data = graph_data(self.graph)
            self.measured = (self.applies, packed_size(data), data)
        return self.measured[1]

    def run(self) -> None:
        """Follow edges, most wanted first, until a cap is reached.  The size of the page data is
        measured now and then: next when about the rest of the byte cap should be used up."""
        for k in range(len(self.graph.nodes[0].actions)):      # every first choice, whatever the caps
            self.follow(0, k)
        self.queue = [item for item in self.queue if item[3] != 0]
        heapq.heapify(self.queue)
        look_at = len(self.graph.nodes) + 8
        nodes, queue, caps = self.graph.nodes, self.queue, self.caps
        while queue and self.applies < caps.applies and len(nodes) < caps.nodes:
            level, switch, order, number, lane, at = heapq.heappop(queue)
            if at + 1 < len(lane):        # the node's next edge of the lane
                heapq.heappush(queue, (level, switch, order + lane[at + 1] - lane[at], number, lane, at + 1))
            self.follow(number, lane[at])
            if len(nodes) >= look_at:
                size, n = self.packed(), len(nodes)
                if size > caps.gzip_bytes:
                    return
                look_at = n + max(16, int((caps.gzip_bytes - size) / (size / n)))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (as it was after).  A graph holds thousands of
    states while it is made, each of a few hundred records, lists and dicts, and makes as many
    again: the collector, started every 700 new containers, walks them all again and again
    (10-20% of a graph's time) and finds nothing, since a state, a node and an action are
    trees: what the graph drops, reference counting frees at once, as ever.  (A cycle made
    meanwhile is collected at the collector's next pass after.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def build_graph(game: Game[Any], state: Any, player: str, caps: Caps | None = None) -> ChoiceGraph | None:
    """The graph of ``player``'s choices on their own view of ``state``; None when they have no
    decision now.  ``state`` may be the full state: only the player's view of it is used."""
    if player not in pending_players(game, state):
        return None
    with _collector_paused():
        return _build_graph(game, state, player, caps or Caps())


def _build_graph(game: Game[Any], state: Any, player: str, caps: Caps) -> ChoiceGraph:
    view = game.view(state, player)
    start = game.from_position(view)
    view = game.view(start, player)
    builder = _Builder(game, player, caps, ChoiceGraph(player))
    builder.seen[game.view_key(start, player)] = 0
    builder.add_node(start, 0, -1, -1, game.pending(start))
    builder.graph.first_forms = [f for f in game.order_forms(view, player) if f.when == "first"]
    builder.run()
    graph = builder.graph
    measured = builder.measured[1:] if builder.measured[0] == builder.applies else None
    for node in graph.nodes:
        if _REFUSED in node.after:
            measured = None
            kept = [(a, n) for a, n in zip(node.actions, node.after) if n != _REFUSED]
            node.actions, node.after = [a for a, _ in kept], [n for _, n in kept]
    made = _fit(graph, caps.gzip_bytes, measured)
    for node in graph.nodes:      # the orders written ahead, for the decisions kept (their size is not capped)
        if STOP in node.after:
            node.ahead = max(builder.ahead_form(node), -1)
        node.state, node.known, node.forms = None, [], None     # not needed any more
    if not graph.ahead_forms:     # (else the nodes that have them read differently now)
        graph.made = made
    return graph


# --- the page's data -------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def _key_text(name: str) -> str:
    """How a mapping key is written in move-file syntax (``shark``, ``'on'``): a YAML dump, remembered
    (every form's key and fields' names, for every page: the same few names)."""
    return dump_flow({name: 0})[1:-len(": 0}")]


def _form_data(form: OrderForm) -> dict[str, Any]:
    """A form for the page; ``k`` is each key as the move file writes it."""
    return {"key": form.key, "k": _key_text(form.key), "title": form.title, "note": form.note,
            "fields": [{"name": f.name, "k": _key_text(f.name), "label": f.label, "values": list(f.values),
                        "texts": [t or v for t, v in zip(f.texts, f.values)] if f.texts else list(f.values),
                        "current": f.current} for f in form.fields]}


def _classes(graph: ChoiceGraph, kept: int) -> list[int]:
    """For each of the first ``kept`` nodes, the first node the page cannot tell from it: the
    same prompt, actions, forms and places of the pieces they move, and for each action a node
    it cannot tell from the other's (moving r1 then taking the tile at G5 and moving r2 then
    taking it often leave the same choices).

    What the refinement of :func:`_classes_refined` finds; on a graph without a cycle (a move
    spends something: the usual case) in one pass, each node after every node it leads to."""
    nodes = graph.nodes
    order = _children_first(graph, kept)
    if order is None:
        return _classes_refined(graph, kept)
    static: dict[tuple[Any, ...], int] = {}
    kinds = [static.setdefault((n.prompt, tuple(n.actions), n.ahead, n.stop, tuple(sorted(n.at.items()))),
                               len(static)) for n in nodes[:kept]]
    ids: dict[tuple[int, tuple[int, ...]], int] = {}
    cls = [0] * kept
    for number in order:
        after = tuple(cls[a] if 0 <= a < kept else CUT if a >= kept else a for a in nodes[number].after)
        cls[number] = ids.setdefault((kinds[number], after), len(ids))
    first: dict[int, int] = {}
    return [first.setdefault(c, number) for number, c in enumerate(cls)]


def _children_first(graph: ChoiceGraph, kept: int) -> list[int] | None:
    """The first ``kept`` nodes, each after every node its edges lead to (edges to the other
    nodes left out), or None when the edges make a cycle."""
    nodes = graph.nodes
    mark = [0] * kept                         # 0: not seen, 1: on the path, 2: done
    out: list[int] = []
    for root in range(kept):
        if mark[root]:
            continue
        mark[root] = 1
        path = [(root, iter(nodes[root].after))]
        while path:
            number, edges = path[-1]
            for a in edges:
                if 0 <= a < kept:
                    if mark[a] == 1:
                        return None
                    if mark[a] == 0:
                        mark[a] = 1
                        path.append((a, iter(nodes[a].after)))
                        break
            else:
                mark[number] = 2
                out.append(number)
                path.pop()
    return out


def _classes_refined(graph: ChoiceGraph, kept: int) -> list[int]:
    """:func:`_classes` by refinement, from every node on its own, until nothing changes (what a
    node is apart from its edges, its kind, worked out once: only the edges' classes change
    from one round to the next)."""
    nodes = graph.nodes[:kept]
    static: dict[tuple[Any, ...], int] = {}
    kinds = [static.setdefault((n.prompt, tuple(n.actions), n.ahead, n.stop, tuple(sorted(n.at.items()))),
                               len(static)) for n in nodes]
    same = list(range(kept))
    while True:
        first: dict[tuple[int, tuple[int, ...]], int] = {}
        now = []
        for number, node in enumerate(nodes):
            after = tuple(same[a] if 0 <= a < kept else CUT if a >= kept else a for a in node.after)
            now.append(first.setdefault((kinds[number], after), number))
        if now == same:
            return same
        same = now


def _shape(graph: ChoiceGraph, out: list[int], k: int, found_from: int,
           sets: list[set[int]] | None = None) -> list[Any]:
    """``[base, removed, added, at]``: page node ``k`` (graph node ``out[k]``) has the actions of
    page node ``base`` (-1: none) without ``removed`` and with ``added``; ``at`` lists [piece,
    space] where the base differs.  The base is whichever of the page node that found it and the
    two before it is closest (``sets``: each page node's actions as a set, when made already)."""
    node = graph.nodes[out[k]]
    mine = sets[k] if sets is not None else set(node.actions)
    best, cost = -1, len(mine)
    for candidate in sorted({found_from, k - 1, k - 2}):
        if 0 <= candidate < k:
            theirs = sets[candidate] if sets is not None else set(graph.nodes[out[candidate]].actions)
            differ = len(theirs ^ mine)
            if differ < cost:
                best, cost = candidate, differ
    if best < 0:
        removed, added = [], sorted(mine)
    else:
        theirs = sets[best] if sets is not None else set(graph.nodes[out[best]].actions)
        removed, added = sorted(theirs - mine), sorted(mine - theirs)
    base_at = graph.nodes[out[best]].at if best >= 0 else {}
    at = [[p, c] for p, c in sorted(node.at.items()) if base_at.get(p, -2) != c]
    return [best, removed, added, at]


def _node_data(graph: ChoiceGraph, out: list[int], k: int, page: dict[int, int], found_from: int,
               sets: list[set[int]] | None = None) -> list[Any]:
    """Page node ``k`` as the page reads it: ``[base, removed, added, prompt, after, at, ahead,
    stop]`` (trailing defaults left off).  In the page's order (by action number), ``after``
    gives what follows each action (one number when the same for all); ``page`` maps each kept
    graph node to its page node."""
    node = graph.nodes[out[k]]
    base, removed, added, at = _shape(graph, out, k, found_from, sets)
    after_of = dict(zip(node.actions, node.after))
    after = [page.get(after_of[a], CUT) if after_of[a] >= 0 else after_of[a] for a in sorted(after_of)]
    data: list[Any] = [base, ranges(removed), ranges(added), node.prompt, after[0] if len(set(after)) == 1 else after, at,
                       node.ahead, node.stop]
    while len(data) > 5 and data[-1] in ([], -1, ""):
        data.pop()
    return data


#: a value in an action's move-file text: after ": ", "[" or ", ", up to "," "}" or "]"
_VALUE = re.compile(r"(?:(?<=: )|(?<=\[)|(?<=, ))([A-Za-z0-9_@.+-]+)(?=[,}\]])")
REF = "#"          # where a value goes in an action's shape


def ranges(numbers: list[int]) -> list[int]:
    """Sorted numbers, a run written as its first number and minus the count of the rest:
    ``[3, 4, 5, 6, 9]`` -> ``[3, -3, 9]`` (the page expands them back)."""
    out: list[int] = []
    run = 0
    for k, n in enumerate(numbers):
        if k and n == numbers[k - 1] + 1:
            run += 1
            continue
        if run:
            out.append(-run)
        out.append(n)
        run = 0
    if run:
        out.append(-run)
    return out


class _Names:
    """The names table of the page's data (pieces, spaces and every other value)."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.index = {n: k for k, n in enumerate(self.names)}

    def __call__(self, text: str) -> int:
        if text not in self.index:
            self.index[text] = len(self.names)
            self.names.append(text)
        return self.index[text]


def _text_shape(text: str) -> tuple[str, list[str]]:
    """An action's text with each value a REF, and the values (the text itself and none where
    that would not give the text back)."""
    values = _VALUE.findall(text) if REF not in text else []
    shape = _VALUE.sub(REF, text) if values else text
    if values and _fill(shape, values) != text:        # never: but a text must come back exactly
        shape, values = text, []
    return shape, values


def _action_numbers(shape: str, values: list[str], names: _Names, shapes: dict[str, int]) -> list[int]:
    """``[shape, value, ...]`` as numbers into ``shapes`` and ``names`` (each added when new)."""
    if shape not in shapes:
        shapes[shape] = len(shapes)
    return [shapes[shape], *(names(v) for v in values)]


def _parse(graph: ChoiceGraph, a: int) -> tuple[str, list[str], str | None]:
    """Action ``a``'s text shape and values (:func:`_text_shape`) and its words' shape
    (:func:`_word_shape`; None where the words are as written or have no shape), remembered
    in ``graph.parsed``."""
    found = graph.parsed.get(a)
    if found is None:
        shape, values = _text_shape(graph.texts[a])
        said = graph.words[a] if a < len(graph.words) else ""
        found = graph.parsed[a] = (shape, values, _word_shape(said, values) if said else None)
    return found


def _fill(shape: str, values: list[str]) -> str:
    parts = shape.split(REF)
    return "".join(p + (values[k] if k < len(values) else "") for k, p in enumerate(parts))


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_WORD_REF = re.compile(r"#(.)")
#: a run of the characters a value is made of (:data:`_VALUE`): a value stands in the words as a whole run
_RUN = re.compile(r"[A-Za-z0-9_@.+-]+")


def _word_shape(words: str, values: list[str]) -> str | None:
    """How an action reads with each of its values a ``#k`` (k its number among the values, a
    digit or letter; ``##`` a ``#``): "Place #0 on #1"; None where that does not give the words back.

    A value is made of :data:`_RUN`'s characters and counts only where it is a whole run of them (not
    a part of a longer word), so each run of the words that equals a value becomes its ``#k``: one
    compiled pattern for every action (a pattern per action's values thrashed the ``re`` cache)."""
    if not values or len(values) > len(_DIGITS):
        return None
    refs = {v: "#" + _DIGITS[values.index(v)] for v in values}
    shape = _RUN.sub(lambda m: refs.get(m.group(0), m.group(0)), words.replace("#", "#\0"))
    shape = shape.replace("#\0", "##")
    return shape if shape != words and _word_fill(shape, values) == words else None


def _word_fill(shape: str, values: list[str]) -> str:
    return _WORD_REF.sub(lambda m: "#" if m.group(1) == "#" else values[_DIGITS.index(m.group(1))], shape)


def _place_data(graph: ChoiceGraph, number: int, values: list[str], names: _Names) -> list[int] | int:
    """Where an action shows: 0 (a button) or [piece, to, tile], each -1 (none), the number of
    one of the action's values (0, 1, ...) or ``-2 - n`` for name n."""
    piece, to, tile = graph.places[number]
    if piece < 0 and tile < 0:
        return 0

    def ref(name: int) -> int:
        if name < 0:
            return -1
        word = graph.names[name]
        return values.index(word) if word in values else -2 - names(word)
    return [ref(piece), ref(to), ref(tile)]


def graph_data(graph: ChoiceGraph, kept: int | None = None) -> dict[str, Any]:
    """The graph as plain data for the page (its first ``kept`` nodes; edges to the others cut;
    nodes the page cannot tell apart given once: :func:`_classes`).

    ``names``: the values of the actions and the pieces and spaces of the board; ``shapes``:
    the actions' move-file texts with each value a ``#``; ``actions``: each action as
    ``[shape, value, ...]`` (values as numbers into ``names``), or ``[-1, difference, ...]``
    when it has the shape of the action before it (the differences of the values' numbers:
    ``{move: r1, to: F7}`` after ``{move: r1, to: F6}`` is [-1, 0, 1]); 0 for one no kept node
    offers;
    ``words``: how each reads where that differs from its text: the words, or a number into
    ``wshapes``, the words with each of the action's values a ``#k`` (:func:`_word_shape`); ``places``: per action 0 (a
    button) or [piece, to, tile] (:func:`_place_data`); ``prompts``; ``nodes``
    (:func:`_node_data`); the forms ``first`` and ``ahead``."""
    if kept is None and graph.made is not None:      # made by build_graph, nothing changed since
        data, graph.made = graph.made, None
        return data
    kept = len(graph.nodes) if kept is None else kept
    same = _classes(graph, kept)
    out = [n for n in range(kept) if same[n] == n]                # the page's nodes, node 0 first
    index = {n: k for k, n in enumerate(out)}
    page = {n: index[same[n]] for n in range(kept)}
    sets = [set(graph.nodes[n].actions) for n in out]
    used = set().union(*sets)
    found = [page.get(graph.nodes[n].found_from, -1) for n in out]
    names, shapes = _Names(graph.names), dict[str, int]()
    actions: list[Any] = []
    places: list[Any] = []
    words: list[Any] = []
    word_shapes: dict[str, int] = {}
    last: list[int] = []
    for a in range(len(graph.texts)):
        if a not in used:
            actions.append(0)
            places.append(0)
            words.append("")
            continue
        shape, values, word_shape = _parse(graph, a)
        encoded = _action_numbers(shape, values, names, shapes)
        said = graph.words[a] if a < len(graph.words) else ""
        words.append(word_shapes.setdefault(word_shape, len(word_shapes)) if word_shape is not None else said)
        if last and encoded[0] == last[0] and len(encoded) == len(last):     # the same shape as the one before:
            actions.append([-1, *(v - w for v, w in zip(encoded[1:], last[1:]))])   # its values' differences
        else:
            actions.append(encoded)
        last = encoded
        places.append(_place_data(graph, a, values, names))
    return {
        "names": names.names,
        "shapes": list(shapes),
        "actions": actions,
        "words": words if any(w != "" for w in words) else [],
        "wshapes": list(word_shapes),
        "places": places,
        "prompts": graph.prompts,
        "nodes": [_node_data(graph, out, k, page, found[k], sets) for k in range(len(out))],
        "first": [_form_data(f) for f in graph.first_forms],
        "ahead": [_form_data(f) for f in graph.ahead_forms],
    }


def packed_size(data: Mapping[str, Any]) -> int:
    """How many bytes the data adds to the gzipped page (about)."""
    return len(gzip.compress(json.dumps(data, separators=(",", ":")).encode(), 9, mtime=0))


def fit(graph: ChoiceGraph, limit: int) -> ChoiceGraph:
    """The graph cut to its first nodes so that its data fits in ``limit`` gzipped bytes (the
    nodes come in the order they were found, the most wanted first; the first node stays, with
    every first choice, whatever its size)."""
    graph.made = None
    _fit(graph, limit, None)
    return graph


def _fit(graph: ChoiceGraph, limit: int, measured: tuple[int, dict[str, Any]] | None) -> dict[str, Any]:
    """:func:`fit`; ``measured``: the packed size of the whole graph's data and the data, when
    known.  Returns the data of the graph as cut (what :func:`graph_data` makes of it)."""
    kept = len(graph.nodes)
    if measured is None:
        data = graph_data(graph, kept)
        size = packed_size(data)
    else:
        size, data = measured
    while size > limit and kept > 1:
        kept = max(1, min(kept - 1, int(kept * limit / size * 0.97)))
        data = graph_data(graph, kept)
        size = packed_size(data)
    for node in graph.nodes[:kept]:
        node.after = [a if a < kept else CUT for a in node.after]
    del graph.nodes[kept:]
    return data
