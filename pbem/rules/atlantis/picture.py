"""The Atlantis board picture, drawn from a view (the position-shaped dict of ``Game.view``) only.

Used by Survive: Escape from Atlantis! with its mini-expansions and by the 1986 edition
(same view format ``atlantis/1``); the board geometry comes from the game's
``board.yaml``, the names of its pieces from :data:`WORDS`.

What the picture shows:

* every space filled by what is there: sea, a terrain tile (beach, forest, mountain,
  each with its own texture as well as its colour) or a safe isle;
* explorers in their colour, as a person standing on land or on a safe isle, or as a
  head above the waves when swimming; each with its handle written on it;
* ships drawn across the space with the explorers aboard (and the owner's stripe during
  the game's set-up and control), creatures as distinct icons: sea serpent, shark, whale,
  dolphin, giant squid (1986: shark, octopus, sea monster, dolphin);
* the text map writes the same pieces as codes: ``B3:r7,b2`` (a ship and who is aboard),
  ``P1:r3`` (a dolphin protecting a swimmer), ``r7=5`` (a value the reader may see);
* an explorer's value where the view shows it (the reader's own private board while the
  rules let them look, everybody's saved explorers once the game is over).  Values are
  left off when every token has the same value (the 1986 edition), since they tell nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from pbem.base.data import game_data
from pbem.core.picture import piece_code
from pbem.game import BoardPicture, BoardPlaces, HexCell, Piece

__all__ = ["atlantis_picture", "atlantis_piece", "atlantis_places", "Words", "WORDS"]

CELL_COLOURS = {"sea": "#4a90d9", "beach": "#f1e2a0", "forest": "#5b9a47", "mountain": "#8d7d72", "isle": "#e9c46a"}
TEXTURES = {"beach": "dots", "forest": "trees", "mountain": "peaks", "isle": "stars"}
CREATURE_SHAPES = {"serpent": "serpent", "shark": "shark", "whale": "whale", "dolphin": "dolphin", "squid": "squid",
                   "octopus": "octopus", "monster": "monster"}
WHERE = {"land": "on land", "sea": "swimming", "isle": "saved on a safe isle", "boat": "aboard"}
_HANDLE = re.compile(r"([A-Za-z]+)(\d+)$")


@dataclass(frozen=True)
class Words:
    """What a game calls its pieces."""

    person: str
    ship: str
    isle: str
    creatures: Mapping[str, str]


WORDS = {
    "atlantis": Words("explorer", "ship", "safe isle",
                      {"serpent": "sea serpent", "shark": "shark", "whale": "whale", "dolphin": "dolphin",
                       "squid": "giant squid"}),
    "atlantis-1986": Words("villager", "boat", "coral island",
                           {"shark": "shark", "octopus": "octopus (giant squid)", "monster": "sea monster",
                            "dolphin": "dolphin"}),
}


def handle_key(handle: str) -> tuple[str, int]:
    """``r2`` before ``r10``."""
    m = _HANDLE.match(handle)
    return (m.group(1), int(m.group(2))) if m else (handle, 0)


@dataclass(frozen=True)
class Geometry:
    """Every space of the board: label -> axial (q, r), and which are safe isles."""

    axial: Mapping[str, tuple[int, int]]
    isles: frozenset[str]
    equal_values: bool            # every explorer token has the same value: values tell nothing

    @property
    def spaces(self) -> list[tuple[str, int, int, bool]]:
        """(label, q, r, a safe isle?) of every space, in the picture's order."""
        return [(label, q, r, label in self.isles) for label, (q, r) in self.axial.items()]


@lru_cache(maxsize=None)
def geometry(data_game: str) -> Geometry:
    """From ``games/<data_game>/board.yaml``: offset labels (row letter, column number;
    "even-r": axial q = col - (row + (row & 1)) // 2 - 2, r = row - 6, as that file says)."""
    board = game_data(data_game, "board.yaml")
    rows = board["label_rows"]
    labels = [lab for row in rows for lab in board["playable"].get(row, [])]
    isles = [board["safe_isles"][name]["cell"] for name in sorted(board["safe_isles"])]
    axial = {}
    for label in labels + isles:
        row, col = rows.index(label[0]), int(label[1:]) - 1
        axial[label] = (col - (row + (row & 1)) // 2 - 2, row - 6)
    values = game_data(data_game, "components.yaml").get("explorer_values") or [0]
    return Geometry(axial, frozenset(isles), len(set(values)) == 1)


@lru_cache(maxsize=None)
def _spaces(data_game: str) -> tuple[tuple[str, int, int, bool], ...]:
    return tuple(geometry(data_game).spaces)


def _owner_of(view: Mapping[str, Any]) -> dict[str, str]:
    return {c: p["name"] for p in view["players"] for c in p["colours"]}


def _explorer(view: Mapping[str, Any], h: str, e: Mapping[str, Any], words: Words, geo: Geometry,
              owners: dict[str, str]) -> Piece:
    where = e["where"]
    shape = "swimmer" if where == "sea" else "explorer"
    value = None if geo.equal_values or e.get("value") is None else str(e["value"])
    place = WHERE.get(where, where) + (f" {e['at']}" if where == "boat" else "")
    title = f"{h}: {e['colour']} {words.person} ({owners.get(e['colour'], '?')}), {place}"
    return Piece(h, shape, e["colour"], h, title, value=value)


@lru_cache(maxsize=256)
def _by_handle(handles: tuple[str, ...]) -> tuple[str, ...]:
    """``handles`` in :func:`handle_key` order (a view's handles are the same from entry to entry)."""
    return tuple(sorted(handles, key=handle_key))


@dataclass(frozen=True)
class _Drawing:
    """What every piece of one view is drawn with."""

    view: Mapping[str, Any]
    words: Words
    geo: Geometry
    owners: dict[str, str]
    first_colour: dict[str, str]
    protects: Mapping[str, str]


def _drawing(view: Mapping[str, Any], data_game: str) -> _Drawing:
    return _Drawing(view, WORDS.get(data_game, WORDS["atlantis"]), geometry(data_game), _owner_of(view),
                    {p["name"]: p["colours"][0] for p in view["players"] if p["colours"]},
                    (view.get("dolphins") or {}).get("protects") or {})


def _creature_piece(d: _Drawing, h: str) -> Piece | None:
    """Creature ``h`` as drawn on its space (None: not on the board)."""
    c = d.view["creatures"][h]
    if c["where"] != "sea" or c.get("at") is None:
        return None
    name = d.words.creatures.get(c["kind"], c["kind"])
    title = f"{h}: {name}" + (f", protecting {d.protects[h]}" if h in d.protects else "")
    return Piece(h, CREATURE_SHAPES.get(c["kind"], "disc"), "", h, title)


def _ship_piece(d: _Drawing, h: str, crew_handles: list[str]) -> Piece | None:
    """Ship ``h`` with ``crew_handles`` aboard, as drawn on its space (None: not on the board)."""
    b = d.view["boats"][h]
    if b["where"] != "sea" or b.get("at") is None:
        return None
    explorers = d.view["explorers"]
    crew = [_explorer(d.view, x, explorers[x], d.words, d.geo, d.owners) for x in crew_handles]
    owner = b.get("owner")
    title = f"{h}: {d.words.ship}" + (f" ({owner}'s)" if owner else "") + \
        (f", {len(crew)} aboard" if crew else ", empty")
    return Piece(h, "ship", d.first_colour.get(owner, "") if owner else "", h, title, passengers=crew)


def _standing_piece(d: _Drawing, h: str) -> Piece | None:
    """Explorer ``h`` as drawn on its own space (None: aboard a ship, or not on the board)."""
    e = d.view["explorers"][h]
    if e["where"] in ("land", "sea", "isle") and e.get("at") is not None:
        return _explorer(d.view, h, e, d.words, d.geo, d.owners)
    return None


def atlantis_picture(view: Mapping[str, Any], data_game: str = "atlantis") -> BoardPicture:
    """The board of an Atlantis view (any viewer's; a full position works too)."""
    d = _drawing(view, data_game)
    words, protects = d.words, d.protects
    pieces: dict[str, list[Piece]] = {}
    creatures, explorers, boats = view["creatures"], view["explorers"], view["boats"]

    for h in _by_handle(tuple(creatures)):
        piece = _creature_piece(d, h)
        if piece is not None:
            pieces.setdefault(creatures[h]["at"], []).append(piece)
    explorer_order = _by_handle(tuple(explorers))
    aboard: dict[str, list[str]] = {}
    for h in explorer_order:
        e = explorers[h]
        if e["where"] == "boat":
            aboard.setdefault(e["at"], []).append(h)
    for h in _by_handle(tuple(boats)):
        piece = _ship_piece(d, h, aboard.get(h, []))
        if piece is not None:
            pieces.setdefault(boats[h]["at"], []).append(piece)
    for h in explorer_order:
        piece = _standing_piece(d, h)
        if piece is not None:
            pieces.setdefault(explorers[h]["at"], []).append(piece)

    tile_at = {t["at"]: t["terrain"] for t in view["tiles"].values() if t.get("where") == "island"}
    cells = []
    for label, q, r, isle in _spaces(data_game):
        kind = "isle" if isle else tile_at.get(label, "sea")
        here = pieces.get(label)
        if here is None:
            cells.append(HexCell(q, r, label, kind))
            continue
        marks = [piece_code(x) + (f":{protects[x.handle]}" if x.handle in protects else "") for x in here]
        cells.append(HexCell(q, r, label, kind, marks=marks, pieces=here))
    by_colour, kinds = _colour_handles(view), _kind_handles(view)
    return BoardPicture(cells, legend=_legend(view, words, by_colour, kinds), colours=dict(CELL_COLOURS),
                        textures=dict(TEXTURES), key=_key(view, words, by_colour, kinds))


def atlantis_piece(view: Mapping[str, Any], handle: str, data_game: str = "atlantis") -> Piece | None:
    """The piece ``handle`` as :func:`atlantis_picture` draws it on a space (not a ship's
    passenger; None when it is not on the board), without drawing the rest of the board."""
    d = _drawing(view, data_game)
    if handle in view["creatures"]:
        return _creature_piece(d, handle)
    if handle in view["boats"]:
        explorers = view["explorers"]
        crew = [h for h in _by_handle(tuple(explorers))
                if explorers[h]["where"] == "boat" and explorers[h]["at"] == handle]
        return _ship_piece(d, handle, crew)
    if handle in view["explorers"]:
        return _standing_piece(d, handle)
    return None


def atlantis_places(view: Mapping[str, Any], data_game: str = "atlantis") -> BoardPlaces:
    """The :class:`BoardPlaces` of :func:`atlantis_picture` (where each piece is drawn, what each
    space is), without drawing the board."""
    geo = geometry(data_game)
    pieces: dict[str, str] = {}
    for h, c in view["creatures"].items():
        if c["where"] == "sea" and c.get("at") in geo.axial:
            pieces[h] = c["at"]
    for h, b in view["boats"].items():
        if b["where"] == "sea" and b.get("at") in geo.axial:
            pieces[h] = b["at"]
    boats = dict(pieces)
    for h, e in view["explorers"].items():
        where = e["where"]
        if where in ("land", "sea", "isle") and e.get("at") in geo.axial:
            pieces[h] = e["at"]
        elif where == "boat" and e["at"] in view["boats"] and e["at"] in boats:
            pieces[h] = boats[e["at"]]
    tile_at = {t["at"]: t["terrain"] for t in view["tiles"].values() if t.get("where") == "island"}
    return BoardPlaces(pieces, {label: "isle" if isle else tile_at.get(label, "sea")
                                for label, _q, _r, isle in _spaces(data_game)})


def _colour_handles(view: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each colour's explorers, in :func:`handle_key` order."""
    explorers = view["explorers"]
    out: dict[str, list[str]] = {}
    for h in _by_handle(tuple(explorers)):
        out.setdefault(explorers[h]["colour"], []).append(h)
    return out


def _kind_handles(view: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each creature kind's handles, in :func:`handle_key` order (the kinds in view order)."""
    kinds: dict[str, list[str]] = {}
    for h, c in view["creatures"].items():
        kinds.setdefault(c["kind"], []).append(h)
    return {kind: list(_by_handle(tuple(handles))) for kind, handles in kinds.items()}


def _legend(view: Mapping[str, Any], words: Words, by_colour: dict[str, list[str]],
            kinds: dict[str, list[str]]) -> dict[str, str]:
    """The handles' codes, for the text map (``by_colour``: :func:`_colour_handles`, ``kinds``:
    :func:`_kind_handles` of the view)."""
    legend: dict[str, str] = {}
    for kind in sorted(kinds):
        of_kind = kinds[kind]
        legend[f"{of_kind[0]}..{of_kind[-1]}"] = words.creatures.get(kind, kind)
    ships = _by_handle(tuple(view["boats"]))
    if ships:
        legend[f"{ships[0]}..{ships[-1]}"] = f"{words.ship}; B3:r7,b2 = {words.ship} B3 carrying r7 and b2"
    for p in view["players"]:
        for colour in p["colours"]:
            handles = by_colour.get(colour)
            if handles:
                legend[f"{handles[0]}..{handles[-1]}"] = (f"{colour} {words.person} ({p['name']}): on land, "
                                                          f"swimming, or saved on a {words.isle}")
    legend["r7=5"] = f"{words.person} r7 with its value, where you may see it"
    return legend


def _key(view: Mapping[str, Any], words: Words, by_colour: dict[str, list[str]],
         kinds: dict[str, list[str]]) -> list[tuple[Piece, str]]:
    """A sample of each piece in play, with its handles (``by_colour``, ``kinds``: as :func:`_legend`'s)."""
    key: list[tuple[Piece, str]] = []
    for p in view["players"]:
        for colour in p["colours"]:
            handles = by_colour.get(colour)
            if handles:
                key.append((Piece(handles[0], "explorer", colour, handles[0][:-1] or handles[0]),
                            f"{colour} {words.person}s, {p['name']}'s ({handles[0]}..{handles[-1]})"))
    key.append((Piece("r", "swimmer", "", ""), f"swimming {words.person}"))
    ships = _by_handle(tuple(view["boats"]))
    if ships:
        key.append((Piece("B", "ship", "", "B"), f"{words.ship} {ships[0]}..{ships[-1]}, with who is aboard"))
    for kind in sorted(kinds):
        of_kind = kinds[kind]
        key.append((Piece(kind, CREATURE_SHAPES.get(kind, "disc"), "", ""),
                    f"{words.creatures.get(kind, kind)} {of_kind[0]}..{of_kind[-1]}"))
    return key
