"""What a game shows besides its rules: the board picture (cells and pieces), the digest sections,
and where an action shows on the click-to-move page's board and which orders its forms set.

Games make these from a view only (``Game.board_picture``, ``Game.sections``,
``Game.action_places``, ``Game.order_forms``); the renderers (:mod:`pbem.views.render`) know no
game.  Part of the public game API (:mod:`pbem.game` re-exports them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Container, Mapping

__all__ = ["Piece", "HexCell", "BoardPicture", "BoardPlaces", "places_of", "Section", "ActionPlaces", "OrderField", "OrderForm",
           "default_places", "piece_code"]


@dataclass
class Piece:
    """One piece drawn on a board picture: the game decides what it is, the renderer how it looks.

    ``shape`` names a drawing the renderers know (``pbem.views.render.shapes.SHAPES``): people
    (``explorer``, ``swimmer``), vessels that carry ``passengers`` (``ship``, ``pod``),
    creatures (``serpent``, ``shark``, ``whale``, ``dolphin``, ``squid``, ``monster``,
    ``octopus``), stacks (``fleet``) and a plain ``disc``; an unknown shape is drawn as a disc.
    ``colour`` is the owner's colour: a name the palette knows (``red``, ``blue``... drawn in
    a colour-blind-safe palette) or a CSS ``#rrggbb``; "" for a piece nobody owns (a creature).
    ``text`` is the short letter or count written on it.  ``value`` is a hidden value the
    reader may see (their own token's number): games put it only in pictures made from a view
    that shows it, so it appears on the reader's private board and never on the public one.
    ``moved``/``moved_from`` are filled by the engine (:func:`pbem.views.boardmoves.mark_moves`):
    the piece is not where it was at the reader's last turn (``moved_from`` is that space's
    label, "" when it was not on the board)."""

    handle: str                  # the piece's public handle, e.g. "r7", "B3", "K1"
    shape: str = "disc"
    colour: str = ""
    text: str = ""
    title: str = ""              # hover text, e.g. "r7: red explorer (alice), swimming"
    passengers: list["Piece"] = field(default_factory=list)
    value: str | None = None
    moved: bool = False
    moved_from: str = ""


@dataclass
class HexCell:
    """One cell of a hex board picture, for the generic renderers.

    A game gives either ``pieces`` (drawn as shapes in player colours) or the older ``marks``
    (short codes drawn as text); the text map shows pieces by their handles."""

    q: int                     # axial column (pointy-top hexes)
    r: int                     # axial row, grows southward
    label: str                 # the coordinate players type, e.g. "F6"
    kind: str                  # terrain/fill key, e.g. "sea", "beach", "forest", "mountain", "isle"
    marks: list[str] = field(default_factory=list)  # short piece codes drawn in the cell, e.g. ["S", "B3", "r7"]
    mark_colours: list[str] = field(default_factory=list)   # optional CSS colour per mark (SVG), "" = default
    pieces: list[Piece] = field(default_factory=list)
    #: the cell's kind is not what it was at the reader's last turn (a tile removed, a ruin visited);
    #: filled by the engine like ``Piece.moved``
    changed: bool = False
    was: str = ""              # the kind it had then, when ``changed``


@dataclass
class BoardPicture:
    """Everything a renderer needs to draw a hex board.  ``legend`` explains mark codes.

    ``colours`` gives each kind its SVG fill and ``symbols`` its one character on
    the text map (kinds without one get a letter of their name).  ``key`` explains the
    pieces: a sample piece and what it stands for, drawn under the board.  Renderers know
    no game's terrain names: everything about a kind comes from these tables."""

    cells: list[HexCell]
    legend: dict[str, str] = field(default_factory=dict)
    colours: dict[str, str] = field(default_factory=dict)   # kind -> CSS colour for SVG
    symbols: dict[str, str] = field(default_factory=dict)   # kind -> one ASCII character for the text map
    key: list[tuple[Piece, str]] = field(default_factory=list)
    #: kind -> a texture drawn over its fill (``pbem.views.render.textures.TEXTURES``: "dots", "trees",
    #: "peaks", "stars", "grid"...), so that kinds differ by more than their colour
    textures: dict[str, str] = field(default_factory=dict)


@dataclass
class BoardPlaces:
    """Where the pieces of a board picture are and what each space is: what a later picture of
    the game is compared with to mark what moved (:func:`pbem.views.boardmoves.mark_moves`)."""

    pieces: dict[str, str]       # handle -> the label of its space (a passenger: its vessel's)
    kinds: dict[str, str]        # label -> the space's kind


def places_of(board: BoardPicture) -> BoardPlaces:
    """The :class:`BoardPlaces` of a board picture."""
    pieces: dict[str, str] = {}

    def visit(p: Piece, label: str) -> None:
        pieces.setdefault(p.handle, label)
        for x in p.passengers:
            visit(x, label)

    for c in board.cells:
        for p in c.pieces:
            visit(p, c.label)
    return BoardPlaces(pieces, {c.label: c.kind for c in board.cells})


@dataclass
class Section:
    """A part of a view that is not the hex map, for the digests.

    * ``kind="table"``: ``columns`` are headings, ``rows`` the cells (strings);
    * ``kind="cards"``: a row of cards, each row ``[label, detail]`` (detail may be "");
    * ``kind="track"``: an ordered track (turn order, a score track), each row
      ``[label, detail]``; ``current`` is the index of the highlighted item.

    ``colours`` optionally gives a CSS colour per row (e.g. a player's colour).
    Made from a view only (``Game.sections``), never from the full state.
    """

    title: str
    kind: str = "table"
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    current: int | None = None
    colours: list[str] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class ActionPlaces:
    """Where an action shows on the board of the click-to-move page (``Game.action_places``).

    ``piece``: the handle of the piece the action moves or puts on the board (picked first);
    ``from_cell``: the space it is on now ("" when it is not on the board: the supply, a hand);
    ``to_cell``: the space it goes to; ``tile``: a space the action takes by itself, clicked
    once (remove the tile at G5).  All "" for an action the board cannot show (play a tile
    from the hand, a bid, "done"): the page offers it as a button.  ``piece``, ``to_cell``
    and ``tile`` depend on the action alone; ``from_cell`` on the view too."""

    piece: str = ""
    from_cell: str = ""
    to_cell: str = ""
    tile: str = ""


@dataclass(frozen=True)
class OrderField:
    """One control of an :class:`OrderForm`: a name and the values it may take, each in
    move-file syntax (``auto``, ``none``, ``{creature: K1, to: F4}``) with how it reads."""

    name: str
    label: str
    values: tuple[str, ...]
    texts: tuple[str, ...] = ()    # how each value reads ("" or missing: as written)
    current: str = ""              # the value in force now (a standing order), "" = none


@dataclass(frozen=True)
class OrderForm:
    """Orders a player sets in a form on the click-to-move page: one action
    ``{key: {field: value, ...}}``.

    ``when="first"``: orders the player may send any time (standing orders); the move starts
    with the fields that differ from ``current``.  ``when="ahead"``: orders written ahead for
    the step that follows a roll or a hidden tile (a creature order for each die face); the
    page adds them, every field, after an action that stops the move there."""

    key: str
    title: str
    fields: tuple[OrderField, ...]
    when: str = "first"
    note: str = ""

    def as_data(self) -> dict[str, Any]:
        """``dataclasses.asdict(self)``, the same dict (each field in order, the fields as dicts in
        a tuple, tuples kept), written out: asdict's generic walk deep-copies every string (the
        turn model's data carries each standing-orders form: a page, and each proof step, made it
        that way)."""
        return {"key": self.key, "title": self.title,
                "fields": tuple({"name": f.name, "label": f.label, "values": f.values, "texts": f.texts,
                                 "current": f.current} for f in self.fields),
                "when": self.when, "note": self.note}


def piece_code(p: Piece) -> str:
    """A piece as text: its handle, ``=value`` when the reader may see it, ``:passengers`` aboard
    (``B3:r7=5,b2``)."""
    code = p.handle + (f"={p.value}" if p.value is not None else "")
    if p.passengers:
        code += ":" + ",".join(piece_code(x) for x in p.passengers)
    return code


def default_places(action: Mapping[str, Any], labels: Container[str], where: Mapping[str, str]) -> ActionPlaces:
    """:meth:`Game.action_places` for one action: ``labels`` are the board's spaces, ``where``
    maps the handle of each piece to its space ("" off the board)."""
    piece, first, spaces = "", None, list[str]()
    for n, value in enumerate(action.values()):
        if n == 0:
            first = value
        if isinstance(value, list):
            spaces.extend(v for v in value if isinstance(v, str) and v in labels)
        elif isinstance(value, str):
            if not piece and value in where:
                piece = value
            elif value in labels:
                spaces.append(value)
    if piece:
        return ActionPlaces(piece, where[piece], spaces[-1] if spaces else "")
    if isinstance(first, str) and first in labels and len(spaces) == 1:
        return ActionPlaces(tile=first)
    if isinstance(first, str) and first and first.lower() != "none" and spaces:
        return ActionPlaces(first, "", spaces[-1])
    return ActionPlaces()
