"""One human line per event (public or private), for digests and receipts."""
from __future__ import annotations

from typing import Any, Callable, Mapping

Describer = Callable[[Mapping[str, Any]], str]


def _cards(cards: Any) -> str:
    if isinstance(cards, Mapping):
        return ", ".join(f"{c} {name}" for c, name in cards.items())
    return ", ".join(map(str, cards))


def _turn(e: Mapping[str, Any]) -> str:
    return f"round {e['round']}, turn {e['turn']}: {e['player']}'s turn begins"


def _develop(e: Mapping[str, Any]) -> str:
    if e.get("card") is None:
        return f"{e['player']} places no Technology card"
    return f"{e['player']} places {e['card']} {e['name']} in play ({e['attribute']} now {e['now']})"


def _discard(e: Mapping[str, Any]) -> str:
    return f"{e['player']} discards down to the hand limit: {_cards(e['cards'])}"


def _produce(e: Mapping[str, Any]) -> str:
    placed = ", ".join(f"{n} at {at}" for at, n in e["placed"].items())
    clusters = f" (+{len(e['clusters'])} for Star Clusters {', '.join(e['clusters'])})" if e.get("clusters") else ""
    return f"{e['player']} produces {e['fleets']} fleet(s){clusters}: {placed}"


def _move(e: Mapping[str, Any]) -> str:
    extra = ""
    if e.get("pick"):
        extra += ", picking up " + ", ".join(f"{n} at {at}" for at, n in e["pick"].items())
    if e.get("drop"):
        extra += ", dropping " + ", ".join(f"{n} at {at}" for at, n in e["drop"].items())
    return (f"{e['player']} moves {e['fleets']} fleet(s) from {e['from']} via {' '.join(e['path'])}{extra}; "
            f"{e['arrive']} arrive at {e['path'][-1]}")


def _moved(e: Mapping[str, Any]) -> str:
    return f"{e['player']} ends the Move Phase ({e['stacks']} stack(s) moved)"


def _draw(e: Mapping[str, Any]) -> str:
    return f"{e['player']} draws {_cards(e['cards'])} ({e['why']}); {e['deck']} card(s) left in the deck"


def _drew(e: Mapping[str, Any]) -> str:
    return f"you drew {_cards(e['cards'])}"


def _play(e: Mapping[str, Any]) -> str:
    return f"{e['player']} plays {e['card']} {e['name']} as an event, {e['lasts']}"


def _window(e: Mapping[str, Any]) -> str:
    what = "the Round Bid" if e["window"] == "bid" else "the battles"
    who = ", ".join(e["players"]) or "nobody"
    return f"before {what}, cards may be played by: {who}"


def _no_reaction(e: Mapping[str, Any]) -> str:
    reason = f" ({e['reason']})" if e.get("reason") else ""
    return f"{e['player']} plays no card{reason}"


def _battle(e: Mapping[str, Any]) -> str:
    parts = []
    for ex in e["exchanges"]:
        strikes = "; ".join(f"{s['by']} ({s['fleets']}) hits {s['target']} for {s['damage']}" for s in ex["strikes"])
        losses = ", ".join(f"{p} loses {n}" for p, n in ex["losses"].items())
        parts.append(f"initiative {ex['initiative']}: {strikes} -> {losses or 'no losses'}")
    left = ", ".join(f"{p} {n}" for p, n in e["left"].items())
    return f"battle at {e['at']}: " + " | ".join(parts) + f"; left: {left}"


def _quasar(e: Mapping[str, Any]) -> str:
    return f"the Quasar at {e['at']} destroys one of {e['player']}'s fleets ({e['left']} left)"


def _eliminated(e: Mapping[str, Any]) -> str:
    return f"{e['player']}'s race has no fleets left and is out of the game"


def _round_end(e: Mapping[str, Any]) -> str:
    return f"round {e['round']} is over: the Round Bid"


def _bid(e: Mapping[str, Any]) -> str:
    return f"{e['player']} takes place {e['place']} in the turn order"


def _round(e: Mapping[str, Any]) -> str:
    return f"round {e['round']} turn order: {', '.join(e['order'])}"


def _standing(e: Mapping[str, Any]) -> str:
    if "orders" in e:
        return "your standing orders are now " + ", ".join(f"{k}: {v}" for k, v in e["orders"].items())
    return f"{e['player']} changed their standing orders"


def _game_over(e: Mapping[str, Any]) -> str:
    how = {"control": "controls every Star Cluster", "deck": "the deck ran out: most spaces wins",
           "last-race": "only one race is left"}.get(e["victory"], e["victory"])
    spaces = ", ".join(f"{p} {n}" for p, n in e["spaces"].items())
    return f"game over ({how}); winner(s): {', '.join(e['winners'])}; spaces: {spaces}"


DESCRIBERS: dict[str, Describer] = {
    "turn": _turn, "develop": _develop, "discard": _discard, "produce": _produce, "move": _move,
    "moved": _moved, "draw": _draw, "drew": _drew, "play": _play, "window": _window,
    "no-reaction": _no_reaction, "battle": _battle, "quasar": _quasar, "eliminated": _eliminated,
    "round-end": _round_end, "bid": _bid, "round": _round, "standing": _standing, "game-over": _game_over,
}


def describe(event: Mapping[str, Any]) -> str:
    describer = DESCRIBERS.get(str(event.get("event")))
    if describer is None:
        return ", ".join(f"{k}={v}" for k, v in event.items())
    return describer(event)
