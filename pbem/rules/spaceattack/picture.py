"""The Space Attack board picture and digest sections, drawn from a view (never the state).

Kept apart from the rules.  What the picture shows (:class:`pbem.game.BoardPicture` with
:class:`pbem.game.Piece` records, drawn by the generic renderers):

* every space filled by what it is: open space, a stargate (an open space next to a Jump
  Point), the four station kinds (each with its own texture as well as its colour; a Reactor
  carries its laser turret) and the Jump Points;
* crew in their player's colour, standing on a station tile or saved on a Jump Point, or as a
  helmet on a tether ring when drifting in open space; each with its handle and, on the
  reader's private board, its value;
* escape pods (capsules) and fighters (darts) across the space with who is aboard, and the
  creatures as icons: Queen (a crown), Spawn (eggs), Warrior (claws);
* the text map writes the same pieces as codes: ``P3:r1,b2`` (pod P3 carrying r1 and b2),
  ``X1:g4`` (fighter X1 piloted by g4), ``r7=5`` (a value the reader may see).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Sequence

from pbem.core.picture import piece_code
from pbem.game import BoardPicture, BoardPlaces, HexCell, Piece, Section
from pbem.rules.survive.state import (
    BOAT,
    HAND,
    ISLAND,
    ISLE,
    LAND,
    LOST,
    SEA,
    sort_handles,
)
from pbem.rules.spaceattack.turn import TurnRules   # the chain the picture reads (words.py adds the text)

OPEN, STARGATE, JUMP_POINT = "open space", "stargate", "jump point"
KIND_COLOURS = {OPEN: "#c9d1de", STARGATE: "#f3eec2", "cargo bay": "#e9dcb5", "habitat": "#bfe3c9",
                "bridge": "#d9c8f2", "reactor": "#f2b0a6", JUMP_POINT: "#ffe27a"}
KIND_SYMBOLS = {OPEN: ".", STARGATE: "+", "cargo bay": "c", "habitat": "h", "bridge": "b", "reactor": "R",
                JUMP_POINT: "J"}
TEXTURES = {"cargo bay": "grid", "habitat": "dots", "bridge": "peaks", "reactor": "waves", JUMP_POINT: "stars",
            STARGATE: "rings"}   # open space is the one plain kind
CREW_COLOURS = {"red": "#c62828", "blue": "#1565c0", "green": "#2e7d32", "yellow": "#9a7400",
                "orange": "#d84315", "white": "#6d6d6d"}
CREATURE_SHAPES = {"queen": "queen", "spawn": "spawn", "warrior": "warrior"}
WHERE = {LAND: "on the station", SEA: "drifting", ISLE: "saved on a Jump Point", "boat": "aboard"}


def kind_words(kind: str) -> str:
    """A station kind as the rule book writes it: ``cargo_bay`` -> ``cargo bay``."""
    return kind.replace("_", " ")


@lru_cache(maxsize=256)
def _by_handle(handles: tuple[str, ...]) -> tuple[str, ...]:
    """``handles`` in handle order (``r2`` before ``r10``; a view's handles are the same from entry to entry)."""
    return tuple(sort_handles(handles))


def _crew_piece(handle: str, colour: str, where: str, boat: str | None, value: int | None,
                owners: Mapping[str, str]) -> Piece:
    place = WHERE.get(where, where) + (f" {boat}" if where == BOAT and boat else "")
    title = f"{handle}: {colour} crew ({owners.get(colour, '?')}), {place}"
    shown = None if value is None else str(value)
    return Piece(handle, "drifter" if where == SEA else "explorer", colour, handle, title, value=shown)


def _view_crew(view: Mapping[str, Any], h: str, owners: Mapping[str, str]) -> Piece:
    """Crew ``h`` of the view (as :func:`crew_piece` draws it once the view is read back)."""
    e = view["explorers"][h]
    where = e["where"]
    return _crew_piece(h, e["colour"], where, e.get("at") if where == BOAT else None, e.get("value"), owners)


@dataclass(frozen=True)
class _Drawing:
    """What every piece of one view is drawn with."""

    view: Mapping[str, Any]
    owners: dict[str, str]
    first_colour: dict[str, str]
    fighter_prefix: str


def _drawing(rules: TurnRules, view: Mapping[str, Any]) -> _Drawing:
    return _Drawing(view, {c: p["name"] for p in view["players"] for c in p["colours"]},
                    {p["name"]: p["colours"][0] for p in view["players"] if p["colours"]},
                    rules.comp["fighters"]["prefix"])


def _creature_piece(d: _Drawing, h: str) -> Piece | None:
    c = d.view["creatures"][h]
    if c["where"] != SEA:
        return None
    return Piece(h, CREATURE_SHAPES.get(c["kind"], "disc"), "", h, f"{h}: {c['kind'].capitalize()}")


def _ship_piece(d: _Drawing, h: str, crew_handles: Sequence[str]) -> Piece | None:
    b = d.view["boats"][h]
    if b["where"] != SEA:
        return None
    crew = [_view_crew(d.view, x, d.owners) for x in crew_handles]
    fighter = h.startswith(d.fighter_prefix)
    what = "fighter" if fighter else "escape pod"
    owner = b.get("owner")
    title = f"{h}: {what}" + (f" ({owner}'s)" if owner else "") + (f", {len(crew)} aboard" if crew else ", empty")
    colour = d.first_colour.get(owner, "") if owner else ""
    return Piece(h, "fighter" if fighter else "pod", colour, h, title, passengers=crew)


def _standing_piece(d: _Drawing, h: str) -> Piece | None:
    if d.view["explorers"][h]["where"] in (LAND, SEA, ISLE):
        return _view_crew(d.view, h, d.owners)
    return None


def _place(view: Mapping[str, Any], kind: str, h: str) -> str:
    """The space a piece on the board is on (as reading the view back would find it)."""
    label = view[kind][h].get("at")
    if label is None:
        raise RuntimeError("the piece is not on the board")
    return str(label)


@lru_cache(maxsize=64)
def _spaces(rules: TurnRules) -> tuple[tuple[int, int, str, str], ...]:
    """Each space's (q, r, label, kind without a tile): a Jump Point, a stargate or open space."""
    board = rules.board
    return tuple((*board.axial[cell], label,
                  JUMP_POINT if board.is_isle(cell) else STARGATE if board.isles_next_to[cell] else OPEN)
                 for cell, label in enumerate(board.labels))


def picture(rules: TurnRules, view: Mapping[str, Any]) -> BoardPicture:
    """The board of a view (read from the view: the pieces as reading it back would place them)."""
    d = _drawing(rules, view)
    creatures, boats, explorers, tiles = view["creatures"], view["boats"], view["explorers"], view["tiles"]
    pieces: dict[str, list[Piece]] = {}
    for h in _by_handle(tuple(creatures)):
        piece = _creature_piece(d, h)
        if piece is not None:
            pieces.setdefault(_place(view, "creatures", h), []).append(piece)
    explorer_order = _by_handle(tuple(explorers))
    aboard: dict[str, list[str]] = {}
    for h in explorer_order:
        if explorers[h]["where"] == BOAT:
            aboard.setdefault(explorers[h]["at"], []).append(h)
    for h in _by_handle(tuple(boats)):
        piece = _ship_piece(d, h, aboard.get(h, ()))
        if piece is not None:
            pieces.setdefault(_place(view, "boats", h), []).append(piece)
    for h in explorer_order:
        piece = _standing_piece(d, h)
        if piece is not None:
            pieces.setdefault(_place(view, "explorers", h), []).append(piece)
    tile_at: dict[str, str] = {}
    for h in _by_handle(tuple(tiles)):
        if tiles[h]["where"] == ISLAND:
            tile_at[tiles[h]["at"]] = tiles[h]["terrain"]
    cells = []
    for q, r, label, ground in _spaces(rules):
        kind = ground if ground == JUMP_POINT or label not in tile_at else kind_words(tile_at[label])
        here = pieces.get(label)
        if here is None:
            cells.append(HexCell(q, r, label, kind))
        else:
            cells.append(HexCell(q, r, label, kind, marks=[piece_code(p) for p in here], pieces=here))
    return BoardPicture(cells=cells, legend=legend(rules, view), colours=dict(KIND_COLOURS),
                        symbols=dict(KIND_SYMBOLS), textures=dict(TEXTURES), key=key(rules, view, d.owners))


def piece(rules: TurnRules, view: Mapping[str, Any], handle: str) -> Piece | None:
    """The piece ``handle`` as :func:`picture` draws it on a space (not a passenger; None when
    it is not on the board), without drawing the rest of the board."""
    d = _drawing(rules, view)
    if handle in view["creatures"]:
        return _creature_piece(d, handle)
    if handle in view["boats"]:
        explorers = view["explorers"]
        return _ship_piece(d, handle, [h for h in _by_handle(tuple(explorers))
                                       if explorers[h]["where"] == BOAT and explorers[h]["at"] == handle])
    if handle in view["explorers"]:
        return _standing_piece(d, handle)
    return None


def places(rules: TurnRules, view: Mapping[str, Any]) -> BoardPlaces:
    """The :class:`BoardPlaces` of :func:`picture` (where each piece is drawn, what each space
    is), without drawing the board."""
    spaces = _spaces(rules)
    labels = {label for _q, _r, label, _g in spaces}
    pieces: dict[str, str] = {}
    for h, c in view["creatures"].items():
        if c["where"] == SEA and c.get("at") in labels:
            pieces[h] = c["at"]
    for h, b in view["boats"].items():
        if b["where"] == SEA and b.get("at") in labels:
            pieces[h] = b["at"]
    boats = dict(pieces)
    for h, e in view["explorers"].items():
        where = e["where"]
        if where in (LAND, SEA, ISLE) and e.get("at") in labels:
            pieces[h] = e["at"]
        elif where == BOAT and e["at"] in view["boats"] and e["at"] in boats:
            pieces[h] = boats[e["at"]]
    tiles = view["tiles"]
    tile_at = {tiles[h]["at"]: tiles[h]["terrain"] for h in _by_handle(tuple(tiles)) if tiles[h]["where"] == ISLAND}
    return BoardPlaces(pieces, {label: ground if ground == JUMP_POINT or label not in tile_at
                                else kind_words(tile_at[label]) for _q, _r, label, ground in spaces})


def legend(rules: TurnRules, view: Mapping[str, Any]) -> dict[str, str]:
    out = {}
    for kind, spec in rules.comp["creatures"].items():
        out[f"{spec['prefix']}1..{spec['prefix']}{spec['count']}"] = kind.capitalize()
    pods, fighters = rules.comp["boats"], rules.comp["fighters"]
    out[f"{pods['prefix']}1..{pods['prefix']}{pods['count']}"] = "escape pod; P3:r7,b2 = pod P3 carrying r7 and b2"
    out[f"{fighters['prefix']}1..{fighters['prefix']}{fighters['count']}"] = "fighter; X1:g4 = fighter X1 piloted by g4"
    in_play = {c for p in view["players"] for c in p["colours"]}
    for colour, prefix in rules.colour_prefixes(len(view["players"])).items():
        if colour in in_play:
            n = sum(1 for e in view["explorers"].values() if e["colour"] == colour)
            out[f"{prefix}1..{prefix}{n}"] = f"{colour} crew: on a station tile, drifting in open space, or saved"
    out["r7=5"] = "crew r7 with its value, where you may see it"
    out["reactor"] = "a Reactor tile with its laser turret"
    return out


def key(rules: TurnRules, view: Mapping[str, Any], owners: Mapping[str, str]) -> list[tuple[Piece, str]]:
    """A sample of each piece in play, with its handles."""
    out: list[tuple[Piece, str]] = []
    for p in view["players"]:
        for colour in p["colours"]:
            handles = sort_handles([h for h, e in view["explorers"].items() if e["colour"] == colour])
            if handles:
                prefix = handles[0].rstrip("0123456789")
                out.append((Piece(handles[0], "explorer", colour, prefix),
                            f"{colour} crew, {p['name']}'s ({handles[0]}..{handles[-1]})"))
    out.append((Piece("r", "drifter", "", ""), "crew drifting in open space"))
    pods, fighters = rules.comp["boats"], rules.comp["fighters"]
    out.append((Piece(pods["prefix"], "pod", "", pods["prefix"]),
                f"escape pod {pods['prefix']}1..{pods['prefix']}{pods['count']}, with who is aboard"))
    out.append((Piece(fighters["prefix"], "fighter", "", fighters["prefix"]),
                f"fighter {fighters['prefix']}1..{fighters['prefix']}{fighters['count']}, with its pilot"))
    for kind, spec in rules.comp["creatures"].items():
        out.append((Piece(kind, CREATURE_SHAPES.get(kind, "disc"), "", ""),
                    f"{kind.capitalize()} {spec['prefix']}1..{spec['prefix']}{spec['count']}"))
    return out


# --- sections -------------------------------------------------------------------------------
def crew_section(rules: TurnRules, view: Mapping[str, Any]) -> Section:
    rows, colours = [], []
    places = (("station", (LAND,)), ("aboard", ("boat",)), ("drifting", (SEA,)), ("saved", (ISLE,)), ("lost", (LOST,)))
    for p in view["players"]:
        for colour in p["colours"]:
            crew = [e for e in view["explorers"].values() if e["colour"] == colour]
            rows.append([f"{colour} ({p['name']})"] + [str(sum(1 for e in crew if e["where"] in w)) for _, w in places])
            colours.append(CREW_COLOURS.get(colour, ""))
    note = "Jump Points: " + ", ".join(
        f"{name} {rules.label(cell)} (stargates {', '.join(rules.label(s) for s in rules.board.neighbours[cell])})"
        for cell, name in sorted(rules.sa.jump_points.items()))
    return Section("Crew", "table", ["colour", *[name for name, _ in places]], rows, colours=colours, note=note)


def captured_section(view: Mapping[str, Any]) -> Section:
    captured = view.get("captured") or {}
    rows = []
    for p in view["players"]:
        held = captured.get(p["name"]) or []
        kinds = [f"{h} ({view['creatures'][h]['kind']})" for h in held]
        rows.append([p["name"], ", ".join(kinds) or "-"])
    return Section("Captured creatures (in front of each player, played back in step 1)", "table",
                   ["player", "creatures"], rows)


def hands_section(view: Mapping[str, Any]) -> Section:
    rows = []
    for p in view["players"]:
        held = [h for h, t in view["tiles"].items() if t["where"] == HAND and t["holder"] == p["name"]]
        rows.append([p["name"], str(len(held)), ", ".join(held) or "-"])
    return Section("Station tiles in hand (face down)", "table", ["player", "tiles", "handles"], rows)


def own_hand_section(rules: TurnRules, view: Mapping[str, Any], viewer: str) -> Section | None:
    rows = []
    for h, t in view["tiles"].items():
        if t["where"] == HAND and t["holder"] == viewer:
            back = t["back"]
            if back is None:
                return None
            spec = rules.tile_backs[back]
            rows.append([h, f"{back} ({spec['colour']}, {when(spec['colour'])}): {spec['text']}"])
    if not rows:
        return None
    return Section("Your tiles", "cards", rows=rows, note="Only you see this.")


def when(colour: str) -> str:
    return {"green": "at once", "red": "in your step 2, from your next turn on", "blue": "after your roll",
            "yellow": "in another player's turn"}.get(colour, "")


def sections(rules: TurnRules, view: Mapping[str, Any]) -> list[Section]:
    out = [crew_section(rules, view), captured_section(view), hands_section(view)]
    own = [p["name"] for p in view["players"] if p.get("standing") is not None]
    if len(own) == 1:
        mine = own_hand_section(rules, view, own[0])
        if mine is not None:
            out.append(mine)
    return out
