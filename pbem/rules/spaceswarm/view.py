"""Positions and views: THE one function that decides what a viewer sees.

Hidden: the faces of cards in the deck (and its order, which the handles do not
tell) and in other players' hands, and other players' standing orders.
Public: the map, stacks, technology in play, the discard pile, hand sizes,
turn order and everything else.  ``view(state, None)`` has ``None`` for every
hidden value; ``from_position`` reads it back into a state on which a player's
own actions can be checked until a step needs a hidden value (NeedsSecret).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from pbem.base.canonical import canonical
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.events import STANDING_KEYS, standing_order
from pbem.rules.spaceswarm.hexmap import HexMap
from pbem.rules.spaceswarm.state import Boost, SwarmState, Window

FORMAT = "space-swarm/1"


def sees_face(state: SwarmState, viewer: str | None, card: str) -> bool:
    """Cards in play and discarded are face up; a hand card only to its holder."""
    holder = state.holder_of(card)
    if holder is not None:
        return holder == viewer
    return card not in state.deck


def map_rows(hexmap: HexMap) -> list[str]:
    return list(_map_rows(hexmap))


@lru_cache(maxsize=32)
def _map_rows(hexmap: HexMap) -> tuple[str, ...]:
    """The map's rows of terrain codes (a map is a frozen record: written once)."""
    data = swarm_data()
    return tuple(" ".join(data.terrains[hexmap.terrain[r * hexmap.width + c]].code for c in range(hexmap.width))
                 for r in range(hexmap.height))


def faces_seen(state: SwarmState, viewer: str | None, omniscient: bool) -> dict[str, str | None]:
    """Each card's face as ``viewer`` sees it (:func:`sees_face`), None where hidden; every
    card's hand and the deck looked up once."""
    out: dict[str, str | None] = dict.fromkeys(state.faces)
    known = [(card, f) for card, f in state.faces.items() if f is not None]
    if omniscient:
        out.update((card, f.name) for card, f in known)
        return out
    holders: dict[str, str] = {}
    for p in state.players:
        for card in state.hands[p]:
            holders.setdefault(card, p)
    deck = set(state.deck)
    for card, f in known:
        holder = holders.get(card)
        seen = holder == viewer if holder is not None else card not in deck
        if seen:
            out[card] = f.name
    return out


def make_position(state: SwarmState, viewer: str | None, omniscient: bool) -> dict[str, Any]:
    lab = state.hexmap.labels

    def cells(d: Mapping[int, Any]) -> dict[str, Any]:
        return {lab[c]: (list(v) if isinstance(v, list) else v) for c, v in sorted(d.items())}

    return {
        "format": FORMAT,
        "options": {k: state.options[k] for k in sorted(state.options)},
        "map": {"width": state.hexmap.width, "height": state.hexmap.height, "rows": map_rows(state.hexmap)},
        "players": [{"name": p, "home": lab[state.homes[p]], "standing": _standing(state, p, viewer, omniscient)}
                    for p in state.players],
        "phase": state.phase,
        "step": state.step,
        "round": state.round,
        "order": list(state.order),
        "turn_index": state.turn_index,
        "turns": state.turns,
        "stack_moves": state.stack_moves,
        "stacks": {p: cells(state.fleets[p]) for p in state.players},
        "moved": {p: cells(state.moved[p]) for p in state.players if state.moved[p]},
        "cards": faces_seen(state, viewer, omniscient),
        "deck": list(state.deck),
        "hands": {p: list(state.hands[p]) for p in state.players},
        "tech": {p: list(state.tech[p]) for p in state.players},
        "discard": list(state.discard),
        "boosts": [{"player": b.player, "attribute": b.attribute, "amount": b.amount, "card": b.card,
                    "until": b.until} for b in state.boosts],
        "visited": [lab[c] for c in state.visited],
        "window": None if state.window is None else {"kind": state.window.kind, "queue": list(state.window.queue)},
        "slots": None if state.slots is None else list(state.slots),
        "targets": {lab[c]: dict(t) for c, t in sorted(state.targets.items())},
        "produced": {p: state.produced.get(p, 0) for p in state.players},
        "destroyed": {p: state.destroyed.get(p, 0) for p in state.players},
        "eliminated": list(state.eliminated),
        "victory": state.victory,
        "winners": list(state.winners),
    }


def view_key(state: SwarmState, viewer: str | None) -> tuple[Any, ...]:
    """:func:`make_position` (not omniscient) as tuples, field for field: equal for two states
    exactly when their views are (:meth:`pbem.game.Game.view_key`), and quicker to make than the
    view and its JSON.  A space is its cell number; standing orders are their canonical JSON.
    (Kept in step with :func:`make_position` by tests/golden/test_choice_graphs.py.)"""
    players = state.players
    window, slots = state.window, state.slots
    return (
        FORMAT,
        tuple(sorted(state.options.items())),
        (state.hexmap.width, state.hexmap.height, state.hexmap.terrain),
        tuple((p, state.homes[p], _standing_key(_standing(state, p, viewer, False))) for p in players),
        state.phase, state.step, state.round, tuple(state.order), state.turn_index, state.turns, state.stack_moves,
        tuple(tuple(sorted(state.fleets[p].items())) for p in players),
        tuple((p, tuple((c, tuple(v)) for c, v in sorted(state.moved[p].items()))) for p in players
              if state.moved[p]),
        tuple(faces_seen(state, viewer, False).items()),
        tuple(state.deck),
        tuple(tuple(state.hands[p]) for p in players),
        tuple(tuple(state.tech[p]) for p in players),
        tuple(state.discard),
        tuple((b.player, b.attribute, b.amount, b.card, b.until) for b in state.boosts),
        tuple(state.visited),
        None if window is None else (window.kind, tuple(window.queue)),
        None if slots is None else tuple(slots),
        tuple((c, tuple(sorted(t.items()))) for c, t in sorted(state.targets.items())),
        tuple(state.produced.get(p, 0) for p in players),
        tuple(state.destroyed.get(p, 0) for p in players),
        tuple(state.eliminated), state.victory, tuple(state.winners),
    )


def _standing_key(orders: dict[str, Any] | None) -> bytes | None:
    return None if orders is None else canonical(orders)


def read_position(pos: Mapping[str, Any]) -> SwarmState:
    try:
        return _read(pos)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise ValueError(f"not a valid space-swarm position: {type(exc).__name__} {exc}") from None


@lru_cache(maxsize=32)
def _hexmap(width: int, height: int, rows: tuple[str, ...]) -> HexMap:
    """The map of a position's rows of terrain codes (a frozen record: read once, its labels
    and their index made once, for every position of the game)."""
    by_code = swarm_data().terrain_by_code()
    return HexMap(width, height, tuple(by_code[code] for row in rows for code in row.split()))


def _read(pos: Mapping[str, Any]) -> SwarmState:
    if pos.get("format") != FORMAT:
        raise ValueError(f"format {pos.get('format')!r}, expected {FORMAT}")
    data = swarm_data()
    m = pos["map"]
    hexmap = _hexmap(int(m["width"]), int(m["height"]), tuple(str(row) for row in m["rows"]))
    idx = hexmap.index
    players = [str(p["name"]) for p in pos["players"]]

    def cells(d: Mapping[str, Any] | None) -> dict[int, Any]:
        return {idx(k): (list(v) if isinstance(v, list) else v) for k, v in (d or {}).items()}

    faces = {str(c): (None if name is None else data.faces[name]) for c, name in pos["cards"].items()}
    w = pos.get("window")
    return SwarmState(
        players=players, options={str(k): str(v) for k, v in pos["options"].items()}, hexmap=hexmap,
        homes={str(p["name"]): idx(p["home"]) for p in pos["players"]},
        phase=str(pos["phase"]), step=str(pos["step"]), round=int(pos["round"]), order=list(pos["order"]),
        turn_index=int(pos["turn_index"]), turns=int(pos["turns"]), stack_moves=int(pos["stack_moves"]),
        fleets={p: {c: int(n) for c, n in cells(pos["stacks"].get(p)).items()} for p in players},
        moved={p: {c: [int(u) for u in v] for c, v in cells((pos.get("moved") or {}).get(p)).items()}
               for p in players},
        faces=faces, deck=[str(c) for c in pos["deck"]],
        hands={p: [str(c) for c in pos["hands"][p]] for p in players},
        tech={p: [str(c) for c in pos["tech"][p]] for p in players},
        discard=[str(c) for c in pos["discard"]],
        boosts=[Boost(str(b["player"]), str(b["attribute"]), int(b["amount"]), str(b["card"]), str(b["until"]))
                for b in pos.get("boosts") or []],
        visited=[idx(v) for v in pos.get("visited") or []],
        standing={str(p["name"]): (dict(p["standing"]) if p.get("standing") is not None else None)
                  for p in pos["players"]},
        window=None if w is None else Window(str(w["kind"]), [str(q) for q in w["queue"]]),
        slots=None if pos.get("slots") is None else [None if s is None else str(s) for s in pos["slots"]],
        targets={c: {str(k): str(v) for k, v in t.items()} for c, t in cells(pos.get("targets")).items()},
        produced={p: int((pos.get("produced") or {}).get(p, 0)) for p in players},
        destroyed={p: int((pos.get("destroyed") or {}).get(p, 0)) for p in players},
        eliminated=[str(p) for p in pos.get("eliminated") or []],
        victory=str(pos.get("victory") or ""), winners=[str(p) for p in pos.get("winners") or []])


def secrets_of(state: SwarmState, player: str) -> dict[str, Any]:
    """What ``player`` knows that the public does not: their hand and standing orders."""
    hand = {c: (f"{f.name} ({f.type})" if (f := state.faces[c]) is not None else "?") for c in state.hands[player]}
    out: dict[str, Any] = {"hand": hand}
    if state.standing.get(player) is not None:
        out["standing"] = {k: standing_order(state, player, k) for k in STANDING_KEYS}
    return out


def _standing(state: SwarmState, player: str, viewer: str | None, omniscient: bool) -> dict[str, Any] | None:
    """A player's standing orders: their own and the moderator's to see (sealed ones are secrets)."""
    orders = state.standing[player]
    return dict(orders) if orders is not None and (omniscient or viewer == player) else None
