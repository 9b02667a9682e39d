"""The board picture and the digest sections, drawn from a view (never the state).

The map: each space filled by its terrain (colours and one-character codes from
games/space-swarm/terrain.yaml, and a texture of its own from :data:`TEXTURES` but for plain
Deep Space, so that no two kinds differ by colour alone; an Alien Ruins already visited is shown as "visited ruins"), each race's stack as a fleet piece in the race's colour (from the
colour-blind-safe palette, :mod:`pbem.core.palette`) with its count written on it;
the text map writes a stack as ``r3`` (race code and fleets).
Sections: the races (attributes, technology in play, hand size), the turn order,
the deck and the discard pile, and in a player's own digest their hand.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from pbem.core.palette import fill_of, seat_colours
from pbem.game import BoardPicture, HexCell, Piece, Section
from pbem.rules.spaceswarm.attributes import current, permanent
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.state import BID, OVER, SwarmState
from pbem.rules.spaceswarm.terrain import ALIEN_RUINS
from pbem.core.sharedview import read_public
from pbem.rules.spaceswarm.view import read_position

VISITED_RUINS = "visited ruins"
VISITED_CODE = "x"
VISITED_COLOUR = "#e6dcc0"
#: each terrain's texture over its colour (pbem.views.render.textures), one per kind: told apart
#: by pattern as well as colour; Deep Space, the empty background (most of the map: every
#: mail's board carries it), is the one plain kind, as the sea is in Atlantis
TEXTURES = {"alien_ruins": "bricks", "star_cluster": "stars", "nebula": "waves", "super_nova": "rays",
            "black_hole": "swirl", "dark_matter": "crosshatch", "quasar": "stripes", "worm_hole": "rings",
            "asteroid_field": "rubble"}
PLAIN = "deep_space"
VISITED_TEXTURE = "grid"


def kind_name(key: str) -> str:
    return swarm_data().terrains[key].name.lower()


def race_codes(players: list[str]) -> dict[str, str]:
    """The shortest distinct lower-case prefix of each name (``red`` -> ``r``)."""
    names = [p.lower() for p in players]
    for k in range(1, max(len(n) for n in names) + 1):
        codes = [n[:k] for n in names]
        if len(set(codes)) == len(codes):
            return dict(zip(players, codes))
    return {p: p.lower() for p in players}


def race_colours(players: list[str]) -> dict[str, str]:
    """A player named after a colour gets it; the others the free colours in seat order
    (CSS colours of the colour-blind-safe palette)."""
    return {p: fill_of(name) for p, name in seat_colours(players).items()}


def stack_mark(code: str, fleets: int) -> str:
    return f"{code}-{fleets}" if code[-1].isdigit() else f"{code}{fleets}"


def stack_piece(player: str, code: str, colour: str, fleets: int, label: str) -> Piece:
    """A race's stack on one space: its handle is ``code@space`` (stacks have no handles of their own)."""
    return Piece(f"{code}@{label}", "fleet", colour, str(fleets), f"{player}: {fleets} fleet(s) at {label}")


@lru_cache(maxsize=1)
def _kinds() -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str]]:
    """Each terrain key's kind name; each kind's colour, symbol and texture (the picture's tables)."""
    data = swarm_data()
    names = {k: kind_name(k) for k in data.terrains}
    kind_colours = {names[k]: t.colour for k, t in data.terrains.items()}
    kind_colours[VISITED_RUINS] = VISITED_COLOUR
    symbols = {names[k]: t.code for k, t in data.terrains.items()}
    symbols[VISITED_RUINS] = VISITED_CODE
    textures = {names[k]: TEXTURES[k] for k in data.terrains if k != PLAIN}
    textures[VISITED_RUINS] = VISITED_TEXTURE
    return names, kind_colours, symbols, textures


def picture(view: Mapping[str, Any]) -> BoardPicture:
    """The map shows only what every reader sees (the spaces, the stacks, the homes, the ruins
    visited): drawn from the state of the entry's public view, read once for every reader
    (:func:`pbem.core.sharedview.read_public`; the same picture from every reader's view:
    tests/test_shared_view.py)."""
    state = read_public(view, "state", read_position)
    names, kind_colours, symbols, textures = _kinds()
    codes = race_codes(state.players)
    colours = race_colours(state.players)
    hexmap = state.hexmap
    labels = hexmap.labels
    axials = hexmap.axials
    races: dict[int, list[tuple[str, int]]] = {}       # cell -> (race, fleets), in seat order
    for p in state.players:
        for cell, n in state.fleets[p].items():
            if n > 0:
                races.setdefault(cell, []).append((p, n))
    visited = set(state.visited)
    cells = []
    for cell in hexmap.cells:
        key = hexmap.terrain[cell]
        kind = VISITED_RUINS if key == ALIEN_RUINS and cell in visited else names[key]
        q, r = axials[cell]
        label = labels[cell]
        here = races.get(cell)
        if here is None:
            cells.append(HexCell(q, r, label, kind, [], []))
            continue
        cells.append(HexCell(q, r, label, kind, [stack_mark(codes[p], n) for p, n in here], [colours[p] for p, _n in here],
                             pieces=[stack_piece(p, codes[p], colours[p], n, label) for p, n in here]))
    legend = {codes[p]: f"{p}'s fleets ({stack_mark(codes[p], 3)} = a stack of 3), home {hexmap.label(state.homes[p])}"
              for p in state.players}
    fleets_key = [(Piece(codes[p], "fleet", colours[p], "3"),
                   f"{p}'s fleets (3 = a stack of 3), home {hexmap.label(state.homes[p])}") for p in state.players]
    return BoardPicture(cells, legend, dict(kind_colours), dict(symbols), textures=dict(textures), key=fleets_key)


# --- sections -------------------------------------------------------------------------------
def attribute_text(state: SwarmState, player: str, attribute: str) -> str:
    now, base = current(state, player, attribute), permanent(state, player, attribute)
    return str(now) if now == base else f"{now} ({base}{now - base:+d})"


ABBREVIATIONS = {"initiative": "Ini", "attack": "Att", "defense": "Def", "movement": "Mov",
                 "production": "Pro", "strategy": "Str"}


def races_section(state: SwarmState) -> Section:
    data = swarm_data()
    columns = ["race", "home", "fleets", "spaces"] + [ABBREVIATIONS[a] for a in data.attributes] + ["hand"]
    rows = []
    for p in state.players:
        status = "" if state.in_game(p) else " (out)"
        rows.append([p + status, state.hexmap.label(state.homes[p]), str(state.total_fleets(p)),
                     str(state.spaces_occupied(p))] +
                    [attribute_text(state, p, a) for a in data.attributes] + [str(len(state.hands[p]))])
    colours = race_colours(state.players)
    names = ", ".join(f"{ABBREVIATIONS[a]} = {data.attribute_names[a]}" for a in data.attributes)
    note = f"{names}. A value written 3 (1+2) is 1, plus 2 from cards played as events that still last."
    return Section("Races", "table", columns, rows, colours=[colours[p] for p in state.players], note=note)


def technology_section(state: SwarmState) -> Section:
    """Technology in play per race, grouped by card: "C2, C14 Movement +1; C1 Attack +1"."""
    rows = []
    for p in state.players:
        groups: dict[str, list[str]] = {}
        for card in state.tech[p]:
            face = state.faces[card]
            groups.setdefault(face.name if face is not None else "?", []).append(card)
        rows.append([p, "; ".join(f"{', '.join(cards)} {name}" for name, cards in groups.items()) or "-"])
    colours = race_colours(state.players)
    return Section("Technology in play", "table", ["race", "cards"], rows, colours=[colours[p] for p in state.players])


def order_section(state: SwarmState) -> Section:
    colours = race_colours(state.players)
    if state.phase == BID and state.slots is not None:
        rows = [[who or "(free)", ""] for who in state.slots]
        return Section(f"Round Bid for round {state.round + 1}", "track", rows=rows,
                       colours=[colours[w] if w else "" for w in state.slots])
    rows = [[p, "" if state.in_game(p) else "(out)"] for p in state.order]
    current_index = state.turn_index if state.phase != OVER else None
    return Section(f"Turn order, round {state.round}", "track", rows=rows, current=current_index,
                   colours=[colours[p] for p in state.order])


def cards_section(state: SwarmState) -> Section:
    rows = [[c, f.name if (f := state.faces[c]) is not None else "?"] for c in state.discard]
    return Section("Discard pile (face up)", "cards", rows=rows,
                   note=f"Deck: {len(state.deck)} card(s) left of {len(state.faces)}.")


def hand_section(view: Mapping[str, Any], viewer: str) -> Section | None:
    """The viewer's hand, read off their view (the faces they see: ``cards``)."""
    cards = view["hands"][viewer]
    seen = [view["cards"][c] for c in cards]
    if any(name is None for name in seen):
        return None      # not this player's own view
    faces = swarm_data().faces
    rows = [[c, f"{name} ({faces[name].type})"] for c, name in zip(cards, seen)]
    return Section("Your hand", "cards", rows=rows, note="Only you see this.")


def sections(view: Mapping[str, Any]) -> list[Section]:
    """The races, technology, turn order and discard pile show only what every reader sees: made
    from the state of the entry's public view (:func:`pbem.core.sharedview.read_public`); a
    player's own view adds their hand, read off that view."""
    state = read_public(view, "state", read_position)
    out = [races_section(state), technology_section(state), order_section(state), cards_section(state)]
    own = [p["name"] for p in view["players"] if p.get("standing") is not None]
    if len(own) == 1 and view["hands"][own[0]]:
        hand = hand_section(view, own[0])
        if hand is not None:
            out.append(hand)
    return out
