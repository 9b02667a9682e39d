"""`pbem replay GAME_DIR --html FILE`: one self-contained HTML page that steps through a game.

The page holds every frame of the game (the board after each log entry, what that entry
did, the summary), with a slider and the keyboard (left/right, home/end) to step through
them.  It needs nothing but itself: no network, no other file; one inline script.

Small by construction: each frame's board is drawn in parts (per cell: its ground and
its pieces; the arrows; the key, :func:`pbem.views.render.hexmap_svg.board_layers`), every
distinct part is stored once in the page (as a hidden SVG group), and a frame is the list
of parts that changed since the frame before.  The same game always gives the same bytes.

Hidden values: the public frames show what the public saw.  Once the seed is revealed (or
on the moderator's copy with ``with_hidden``) a second set of frames is made from the full
position, and a check box shows every hidden value (explorers' numbers, tile backs...).
A page made with hidden values before the reveal must not be shared.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from pbem.base.data import templates_dir
from pbem.base.errors import PbemError
from pbem.base.plain import readable_line
from pbem.core.picture import BoardPicture, Section
from pbem.core.results import result_lines
from pbem.store.gamedir import GameDir
from pbem.store.table import replay, revealed_at
from pbem.views.boardmoves import mark_moves
from pbem.views.render.digest import _env
from pbem.views.render.boardmemo import BoardMemo
from pbem.views.render.hexmap_svg import BoardLayers, board_layers, defs, svg_open, title_svg

__all__ = ["ReplayError", "Frame", "build_replay", "render_replay"]

TEMPLATE = "replay.html.j2"
LAYERS = ("ground", "pieces", "arrows", "key")


class ReplayError(PbemError):
    """The game cannot be replayed here (one line)."""


@dataclass
class Frame:
    """One step of the replay: the entry, what it did, the summary after it."""

    title: str
    events: list[str]
    summary: list[str]


@dataclass
class PartStore:
    """Every distinct part of every frame's board, once; a part belongs to one slot."""

    parts: list[tuple[str, str]] = field(default_factory=list)     # (layer, svg)
    index: dict[tuple[int, str], int] = field(default_factory=dict)

    def add(self, slot: int, layer: str, svg: str) -> int:
        """The part's number (-1: nothing to draw)."""
        if not svg:
            return -1
        key = (slot, svg)
        if key not in self.index:
            self.index[key] = len(self.parts)
            self.parts.append((layer, svg))
        return self.index[key]


@dataclass
class Replay:
    """Everything the page shows."""

    title: str
    game_id: str
    players: list[str]
    frames: list[Frame]
    width: float
    height: float
    svg_head: str
    store: PartStore
    public: list[list[list[int]]]            # per frame: [slot, part] changes from the frame before
    hidden: list[list[list[int]]] | None     # the same with every hidden value shown
    result: list[str]
    result_sections: list[Section]
    hidden_note: str


def _slots(layers: BoardLayers) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for ground, pieces in layers.cells:
        out += [("ground", ground), ("pieces", pieces)]
    return out + [("arrows", layers.arrows), ("key", layers.key)]


def _deltas(store: PartStore, frames: list[BoardLayers]) -> list[list[list[int]]]:
    out: list[list[list[int]]] = []
    before: list[int] = []
    for layers in frames:
        now = [store.add(slot, layer, svg) for slot, (layer, svg) in enumerate(_slots(layers))]
        out.append([[slot, part] for slot, part in enumerate(now) if slot >= len(before) or before[slot] != part])
        before = now
    return out


def _entry_title(entry: dict[str, Any], n: int) -> str:
    if entry["index"] == 0:
        return f"Entry 0 of {n}: the game begins"
    who = entry.get("player", "moderator")
    what = entry.get("action", entry.get("kind", ""))
    return f"Entry {entry['index']} of {n}: {entry.get('kind', '')} by {who}" + \
        (f" ({what})" if entry.get("kind") == "moderator" else "")


def build_replay(gd: GameDir, with_hidden: bool = False) -> Replay:
    """Replay the whole log once and draw every frame."""
    from pbem.core.engine import game_for
    entries = gd.entries()
    seed = gd.seed(entries)
    if seed is None:
        raise ReplayError("a replay needs the seed to re-derive every roll: run it on the moderator's copy, "
                          "or after `pbem reveal` on any copy")
    revealed = revealed_at(entries) is not None
    show_hidden = revealed or with_hidden
    game = game_for(entries[0])
    n = len(entries) - 1
    public: list[BoardLayers] = []
    full: list[BoardLayers] = []
    frames: list[Frame] = []
    before: dict[str, BoardPicture | None] = {"public": None, "full": None}
    table = None
    memo = BoardMemo()          # the frames' boards share most of their rows: each drawn once
    for table, entry, _applied in replay(gd, game, entries, seed):
        view = game.view(table.state, None)
        # (a game without a board, Game.board_picture None, gets an empty drawing: its frames'
        # events and summaries carry the game)
        pictures = {"public": game.board_picture(view) or BoardPicture(cells=[])}
        if show_hidden:
            pictures["full"] = game.board_picture(game.to_position(table.state)) or BoardPicture(cells=[])
        for name, pic in pictures.items():
            marked = mark_moves(pic, before[name])
            assert marked is not None           # (a picture marked is a picture)
            layers = board_layers(marked, game.title, every_note=True, memo=memo)   # moved in this entry
            before[name] = pic
            (public if name == "public" else full).append(layers)
        events = []
        for ev in entry.get("events", []):
            shown = {k: v for k, v in ev.items() if k != "auto"}
            events.append(readable_line(game.describe_event(shown), shown) +
                          (f" [auto: {ev['auto']}]" if "auto" in ev else ""))
        if entry.get("kind") == "moderator" and entry.get("reason"):
            events.append(f"moderator: {entry.get('action', '')} - {entry['reason']}")
        frames.append(Frame(_entry_title(entry, n), events, game.summary(view)))
    assert table is not None
    store = PartStore()
    used = set().union(*(layers.used for layers in public + full))
    width = max(layers.width for layers in public)
    height = max(layers.height for layers in public + full)
    head = svg_open(width, height, f"{game.title}: replay of {entries[0]['id']}", len(public[0].cells))
    head += "\n" + defs(used) + f'\n<rect x="0.00" y="0.00" width="{width:.2f}" height="{height:.2f}" fill="#ffffff"/>'
    head += "\n" + title_svg(game.title)
    result = game.result(table.state)
    final_view = game.view(table.state, None)
    note = ("every hidden value is public since the seed was revealed" if revealed else
            "made on the moderator's copy before the reveal: it shows every hidden value, do not share it")
    return Replay(
        title=game.title, game_id=entries[0]["id"], players=[p["name"] for p in entries[0]["players"]],
        frames=frames, width=width, height=height, svg_head=head, store=store,
        public=_deltas(store, public), hidden=_deltas(store, full) if show_hidden else None,
        result=result_lines(result) if result is not None else [],
        result_sections=game.result_sections(final_view, result) if result is not None else [],
        hidden_note=note if show_hidden else "")


def render_replay(rp: Replay) -> str:
    """The page (deterministic)."""
    env = _env("html", str(templates_dir()))
    groups: dict[str, list[Markup]] = {layer: [] for layer in LAYERS}
    for i, (layer, svg) in enumerate(rp.store.parts):
        groups[layer].append(Markup(f'<g id="pbem-p{i}" display="none">{svg}</g>'))
    data = {"frames": [[f.title, f.events, f.summary] for f in rp.frames], "public": rp.public,
            "hidden": rp.hidden}
    return env.get_template(TEMPLATE).render(rp=rp, svg_head=Markup(rp.svg_head), groups=groups,
                                             data=data, last=len(rp.frames) - 1)
