"""Space Swarm on the click-to-move page: where an action shows on the board, and the
standing orders as a form (``Game.action_places``, ``Game.order_forms``).

Card handles (``C17``) look like map spaces, so nothing here guesses from the values: an
action's kind (its first key) says what the board shows.  A stack has no handle of its own;
it is named as the board picture names it, ``code@space`` (``r@C4``)."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from pbem.game import ActionPlaces, OrderField, OrderForm
from pbem.rules.spaceswarm.events import STANDING_KEYS
from pbem.rules.spaceswarm.options import ORDERS, SLOT_ORDERS, Settings
from pbem.rules.spaceswarm.picture import race_codes

Placer = Callable[[Mapping[str, Any], str], ActionPlaces]


def move_places(action: Mapping[str, Any], code: str) -> ActionPlaces:
    """``{move: C4, path: [D4, E5]}``: the stack on C4 goes to E5."""
    start, path = action.get("move"), action.get("path")
    if not isinstance(start, str) or not isinstance(path, list) or not path or not isinstance(path[-1], str):
        return ActionPlaces()
    return ActionPlaces(f"{code}@{start}", start, path[-1])


def produce_places(action: Mapping[str, Any], code: str) -> ActionPlaces:
    """``{produce: C4}``: the new fleets go on the stack at C4 (a split ``{produce: {...}}`` is a button)."""
    where = action.get("produce")
    return ActionPlaces(tile=where) if isinstance(where, str) else ActionPlaces()


#: action kind -> where it shows; every other kind (cards, attack, slot, done) is a button
PLACERS: dict[str, Placer] = {"move": move_places, "produce": produce_places}


def action_places(view: Mapping[str, Any], player: str, actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
    return places_of([p["name"] for p in view["players"]], player, actions)


def places_of(players: Sequence[str], player: str, actions: Sequence[Mapping[str, Any]]) -> list[ActionPlaces]:
    """:func:`action_places` from the players' names (all it reads of the view)."""
    code = race_codes(list(players)).get(player, player)
    out = []
    for action in actions:
        placer = PLACERS.get(next(iter(action), ""))
        out.append(placer(action, code) if placer is not None else ActionPlaces())
    return out


STANDING_TITLE = "Standing orders: your Event cards and your place in other players' turns"
ORDER_WORDS = {"auto": "auto: play my cards for it", "never": "never", "ask": "ask me",
               "first": "the first free place", "last": "the last free place"}
FIELDS = {"combat": ("before battles you are in", ORDERS), "bid": ("before the Round Bid", ORDERS),
          "slot": ("your place in the Round Bid", SLOT_ORDERS)}


def order_forms(view: Mapping[str, Any], player: str) -> list[OrderForm]:
    """The player's standing orders (``{standing: {combat: auto, bid: never, slot: first}}``);
    lists of cards are kept as they are unless changed (the page offers the simple values)."""
    mine = next((p for p in view["players"] if p["name"] == player), None)
    if mine is None or mine.get("standing") is None:
        return []
    settings = Settings.of(view["options"])
    defaults = {"combat": settings.react_combat, "bid": settings.react_bid, "slot": settings.slot}
    fields = []
    for key in STANDING_KEYS:
        label, values = FIELDS[key]
        current = mine["standing"].get(key, defaults[key])
        shown = current if isinstance(current, str) else "[" + ", ".join(map(str, current)) + "]"
        fields.append(OrderField(key, label, values, tuple(ORDER_WORDS[v] for v in values), shown))
    return [OrderForm("standing", STANDING_TITLE, tuple(fields), "first")]
