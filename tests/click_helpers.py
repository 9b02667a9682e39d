"""Reading the click-to-move page's data as the page's script reads it, and checking it against
the engine (tests/test_click.py, tests/test_browser.py)."""
from __future__ import annotations

import copy
import itertools
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from pbem.base.yamlio import dump_flow
from pbem.core.draws import Draws, preview_draws
from pbem.core.engine import Rejected, apply_actions
from pbem.core.game import pending_players
from pbem.core.rng import Rng
from pbem.game import Game
from pbem.store.movefile import parse_move

STOP, DONE, CUT = -1, -2, -3


@dataclass
class PageNode:
    acts: list[int]
    after: dict[int, int]
    ahead: int = -1
    stop: str = ""
    at: dict[str, str] = field(default_factory=dict)


def page_data(html: str) -> dict[str, Any]:
    """The JSON the page carries (``<script type="application/json" id="pbem-click-data">``)."""
    found = re.search(r'<script type="application/json" id="pbem-click-data">(.*?)</script>', html, re.DOTALL)
    assert found is not None, "the page has no click-to-move data"
    data = dict(json.loads(found.group(1)))
    if data.get("family") == "graph":      # the generic model's data (the choice graph) read as before
        data = {**data, **data["model"]}
    if data.get("words"):                  # each action's words, as the page puts them together
        data["words"] = page_words(data)
    return data


def page_words(data: dict[str, Any]) -> list[str]:
    """How each action reads: its words, or a shape in ``wshapes`` with its values put in."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = []
    for w, a in zip(data["words"], page_actions(data)):
        if isinstance(w, int):
            values = [data["names"][v] for v in a[1:]] if isinstance(a, list) else []
            w = re.sub(r"#(.)", lambda m: "#" if m.group(1) == "#" else values[digits.index(m.group(1))],
                       data["wshapes"][w])
        out.append(w)
    return out


def expand(numbers: list[int]) -> list[int]:
    """``[3, -3, 9]`` -> ``[3, 4, 5, 6, 9]``."""
    out: list[int] = []
    for v in numbers:
        out.extend([v] if v >= 0 else range(out[-1] + 1, out[-1] + 1 - v))
    return out


def page_actions(data: dict[str, Any]) -> list[list[int] | int]:
    """Each action as [shape, value, ...], the differences from the action before added back."""
    out: list[list[int] | int] = []
    last: list[int] = []
    for a in data["actions"]:
        if a:
            last = [last[0], *(w + d for w, d in zip(last[1:], a[1:]))] if a[0] < 0 else a
        out.append(last if a else 0)
    return out


def page_texts(data: dict[str, Any]) -> list[str]:
    """Each action's move-file text, as the script writes it from its shape and values."""
    out = []
    for a in page_actions(data):
        if not a:
            out.append("")
            continue
        parts = data["shapes"][a[0]].split("#") if len(a) > 1 else [data["shapes"][a[0]]]
        assert len(parts) == len(a)
        out.append("".join(p + (data["names"][a[1 + k]] if k + 1 < len(a) else "") for k, p in enumerate(parts)))
    return out


def page_places(data: dict[str, Any]) -> list[tuple[str, str, str] | None]:
    """Each action's (piece, to, tile) as the script reads them ("" for none); None for a button."""
    def ref(action: list[int], v: int) -> str:
        return "" if v == -1 else data["names"][action[1 + v]] if v >= 0 else data["names"][-2 - v]
    return [(ref(a, p[0]), ref(a, p[1]), ref(a, p[2])) if p else None
            for a, p in zip(page_actions(data), data["places"])]


def page_nodes(data: dict[str, Any]) -> list[PageNode]:
    """The nodes as the script rebuilds them: each from a base node, less and more some actions."""
    names = data["names"]
    nodes: list[PageNode] = []
    for n in data["nodes"]:
        base = nodes[n[0]] if n[0] >= 0 else None
        removed = set(expand(n[1]))
        acts = sorted(([a for a in base.acts if a not in removed] if base else []) + expand(n[2]))
        after = {a: (n[4][k] if isinstance(n[4], list) else n[4]) for k, a in enumerate(acts)}
        at = dict(base.at) if base else {}
        at.update({names[p]: (names[c] if c >= 0 else "") for p, c in (n[5] if len(n) > 5 else [])})
        nodes.append(PageNode(acts, after, n[6] if len(n) > 6 else -1, n[7] if len(n) > 7 else "", at))
    return nodes


def move_text(data: dict[str, Any], actions: list[str]) -> str:
    """The move file as the page writes it."""
    return data["head"] + ("actions:\n" + "".join(f"  - {a}\n" for a in actions) if actions else "actions: []\n")


def form_action(form: dict[str, Any], values: dict[str, str]) -> str:
    """A form's action as the page writes it (every field given)."""
    parts = [f"{f['k']}: {values[f['name']]}" for f in form["fields"] if values.get(f["name"], "") != ""]
    return "{" + form["k"] + ": {" + ", ".join(parts) + "}}" if parts else ""


@dataclass
class Checked:
    nodes: int = 0
    edges: int = 0
    stops: int = 0
    dones: int = 0
    cuts: int = 0
    aheads: int = 0


#: what the engine says of a written-ahead order it cannot read (as opposed to one that no longer fits)
MALFORMED = ("keyed by", "no order for", "go inside", "unknown key", "must be none or")


def check_page_against_engine(game: Game[Any], state: Any, player: str, data: dict[str, Any], seed: bytes,
                              rng: random.Random, cut_sample: int = 40) -> Checked:
    """Every node of the page: its actions are exactly the engine's legal actions after the path that
    reaches it (on the full state); every edge the page offers is accepted by the engine (applied
    with a seed, as the moderator would), and leads where the page says (a node, a stop for a roll or
    a hidden value, the end of the player's part); orders written ahead after a stop are accepted."""
    nodes = page_nodes(data)
    texts = page_texts(data)
    out = Checked()
    written = _written_once()
    read = _read_once(data)
    seen: list[Any] = []       # what the player can compute: their view read back, made once per page
    paths: dict[int, list[str]] = {0: []}
    queue = [0]
    cut: list[list[str]] = []
    while queue:
        number = queue.pop(0)
        node, path = nodes[number], paths[number]
        out.nodes += 1
        here = _applied(game, state, player, path, seed, read)
        if not node.stop:
            legal = {written(a) for a in game.legal_actions(here, player)}
            assert legal == {texts[a] for a in node.acts}, (number, path, legal ^ {texts[a] for a in node.acts})
        for a in node.acts:
            after, chosen = node.after[a], path + [texts[a]]
            out.edges += 1
            if after >= 0:
                assert after < len(nodes)
                if after not in paths:
                    paths[after] = chosen
                    queue.append(after)
            elif after == CUT:
                cut.append(chosen)
            else:
                full = game.copy_state(state)
                _apply(game, full, player, chosen, seed, read)
                if after == DONE:
                    out.dones += 1
                    assert player not in pending_players(game, full), chosen
                else:
                    assert after == STOP
                    out.stops += 1
                    seen = seen or [game.from_position(game.view(state, player))]
                    preview = apply_actions(game, game.copy_state(seen[0]), player, read(chosen), preview_draws())
                    assert preview.needs_secret or any(e.chance for e in preview.events), chosen
                    if node.ahead >= 0:
                        out.aheads += 1
                        form = data["ahead"][node.ahead]
                        values = {f["name"]: rng.choice(f["values"]) for f in form["fields"]}
                        applied = _apply(game, game.copy_state(state), player,
                                         chosen + [form_action(form, values)], seed, read)
                        assert not any(word in applied.dropped_reason for word in MALFORMED), applied.dropped_reason
    out.cuts = len(cut)
    for chosen in rng.sample(cut, min(len(cut), cut_sample)):   # where the page stops computing: still legal
        _apply(game, game.copy_state(state), player, chosen, seed, read)
    for form in data["first"]:
        values = {f["name"]: rng.choice(f["values"]) for f in form["fields"]}
        _apply(game, game.copy_state(state), player, [form_action(form, values)], seed, read)
    return out


def _written_once() -> Callable[[Any], str]:
    """``dump_flow``, each action written once: the nodes of a page list the same legal actions
    again and again.  An action's ``repr`` tells its whole value apart (types, nesting, the keys'
    order: what ``dump_flow`` writes from), so the same ``repr`` is the same text."""
    texts: dict[str, str] = {}

    def written(action: Any) -> str:
        key = repr(action)
        if key not in texts:
            texts[key] = dump_flow(action)
        return texts[key]
    return written


Reader = Callable[[list[str]], list[dict[str, Any]]]


def _read_once(data: dict[str, Any]) -> Reader:
    """The actions of the page's move file with these actions, read back as pbem reads a move file;
    each file read once (a stop's file is applied to the full state, then previewed on the
    player's view): each caller gets its own copy of the actions."""
    actions: dict[str, list[dict[str, Any]]] = {}

    def read(texts: list[str]) -> list[dict[str, Any]]:
        text = move_text(data, texts)
        if text not in actions:
            actions[text] = parse_move(text.encode()).actions
        return copy.deepcopy(actions[text])
    return read


def _apply(game: Game[Any], state: Any, player: str, texts: list[str], seed: bytes, read: Reader) -> Any:
    try:
        return apply_actions(game, state, player, read(texts), Draws(seed, "click"))
    except Rejected as exc:
        raise AssertionError(f"the engine refuses what the page offers: {texts}: {exc}") from None


def _applied(game: Game[Any], state: Any, player: str, texts: list[str], seed: bytes, read: Reader) -> Any:
    full = game.copy_state(state)
    if texts:
        applied = _apply(game, full, player, texts, seed, read)
        assert not any(e.chance for e in applied.events), texts
    return full


def random_point(game: Game[Any], players: list[str], options: dict[str, str], seed: bytes, steps: int,
                 rng: random.Random) -> tuple[Any, str] | None:
    """A game played by random legal actions for ``steps`` decisions: the state and whose decision it is
    (None if the game ended first).  Each action is ``rng.choice`` of the legal actions, taken from
    ``Game.legal_choices``: the legal actions in their order, each made only when read (the same
    length and order as ``legal_actions``: golden/test_golden_bots.py checks it at every step of a
    third of the golden games, spaceswarm/test_swarm_fast_forms.py at every step of random Space
    Swarm games), so the same action as from the whole list."""
    state = game.setup(players, game.resolve_options(options, players), Rng(seed, "setup"))
    for n in range(steps + 1):
        pending = pending_players(game, state)
        if not pending:
            return None
        player = pending[0]
        if n == steps:
            return state, player
        action = rng.choice(game.legal_choices(state, player))
        apply_actions(game, state, player, [action], Draws(seed, f"random/{n}"))
    return None


def random_game(game: Game[Any], players: list[str], options: dict[str, str], seed: bytes,
                rng: random.Random) -> Iterator[tuple[int, Any, str]]:
    """One game played by random legal actions: after each number of decisions ``steps`` (0, 1, ...),
    ``(steps, state, player)`` with a copy of the state and whose decision it is, until the game ends.
    Each is what :func:`random_point` gives for that ``steps`` with ``rng`` as it is now (a new
    ``random.Random`` of the same seed each time): the same choices (from ``legal_choices``, as
    there), the game played once."""
    state = game.setup(players, game.resolve_options(options, players), Rng(seed, "setup"))
    for n in itertools.count():
        pending = pending_players(game, state)
        if not pending:
            return
        player = pending[0]
        yield n, game.copy_state(state), player
        action = rng.choice(game.legal_choices(state, player))
        apply_actions(game, state, player, [action], Draws(seed, f"random/{n}"))
