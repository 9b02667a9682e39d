"""The click-to-move part of a player's own HTML digest (``templates/click.html.j2``).

When the player has a decision, their digest page carries a *turn model* and a small inline
script that lets them compose their whole turn on the board: pick a piece and one of its marked
destinations, take a tile, press a button for the other choices (each in the game's words),
undo, set standing orders and orders written ahead.  The board follows the clicks (the pieces
are drawn again where they now stand), the page shows the move file as it grows (exactly what
:func:`pbem.store.movefile.render_move` writes), saves it as ``move-N.yaml`` and copies it, and
gives the ``ssh-keygen`` line that signs it.  No network, no other file: it works from ``file://``.
The public digest never has it.

The page knows only the model API (docs/turn-model.md): a game whose rules have a JS model
(``Game.turn_model``) gets that model and its data (``{family, data, view}``: the player's own
view), and the page works out every follow-up step itself; any other game gets the generic
model over the choices pbem works out on the moderator's machine (the choice graph,
:mod:`pbem.views.choicegraph`; ``templates/turnmodel/graph.js``).  In a set-up round of
placements the page also carries the player's whole set-up (:mod:`pbem.views.setupplan`), to
send as one preference list.

Whether the page holds the whole turn is its ``choices``: ``complete`` (every path ends where the
player's part is over), ``stop`` (some end at a real stop: a roll or a hidden value the moderator
must reveal) or ``cut`` (the page's choices end before that somewhere).  The generic model's is
known here; a family model's the page works out when it opens (``data-choices`` on the panel).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pbem.base.data import templates_dir
from pbem.core.palette import PLAYER_COLOURS, fill_of, ink_on, seat_colours
from pbem.core.picture import BoardPicture, Piece
from pbem.store.movefile import MoveFile, render_move
from pbem.views.choicegraph import CUT, STOP, Caps, ChoiceGraph, build_graph, fit, graph_data, packed_size
from pbem.views.prompts import page_prompt
from pbem.views.setupplan import SetupPlan, is_placement_round, setup_plan

if TYPE_CHECKING:  # pragma: no cover
    from pbem.core.game import Game
    from pbem.store.table import Table

__all__ = ["ClickPage", "MAIL_CAPS", "SHOW_CAPS", "click_page", "smaller", "move_file_name", "sign_command",
           "model_code", "graph_choices", "graph_model", "plan_data", "page_script", "COMPLETE", "STOPS",
           "CUTS", "GRAPH"]

#: the page mailed to a player (and written to the game folder): small, so that the digest
#: message stays under 100 KB (docs/email.md); the first choices are always all there
MAIL_CAPS = Caps(nodes=200, applies=350, gzip_bytes=4000)
#: ``pbem show --as PLAYER --format html`` on the player's own machine: a page can be bigger
SHOW_CAPS = Caps(nodes=800, applies=2500, gzip_bytes=30000)

COMPLETE, STOPS, CUTS = "complete", "stop", "cut"     # a page's data-choices
GRAPH = "graph"                                       # the generic model's family
_FAMILY = re.compile(r"[a-z][a-z0-9-]{0,30}")


@lru_cache(maxsize=None)
def model_code(family: str) -> str:
    """The JS of a model family (``templates/turnmodel/<family>.js``)."""
    if not _FAMILY.fullmatch(family):
        raise ValueError(f"a turn model family is a short lower-case name, not {family!r}")
    return _compact((templates_dir() / "turnmodel" / f"{family}.js").read_text(encoding="utf-8"))


def _compact(code: str) -> str:
    """The JS as the page carries it: minified (rjsmin: no comments, no space the code does not
    need; deterministic), for every byte of the mail counts (the files keep their comments)."""
    import rjsmin
    return str(rjsmin.jsmin(code)).strip()


SECTIONS = ("family", "setup")     # the parts of templates/click.js only some pages need


@lru_cache(maxsize=None)
def page_script(keep: tuple[str, ...] = SECTIONS) -> str:
    """The page's script (``templates/click.js``) with only the sections ``keep`` names of those
    marked ``// <name>`` ... ``// </name>`` in it: a family model's page needs its own move-file
    writer and works out its data-choices; a set-up page has the set-up plan."""
    out, skipping = [], ""
    for line in (templates_dir() / "click.js").read_text(encoding="utf-8").splitlines():
        mark = _SECTION.match(line)
        if mark is not None:
            skipping = "" if mark.group(1) else ("" if mark.group(2) in keep else mark.group(2))
            continue
        if not skipping:
            out.append(line)
    return _compact("\n".join(out))


_SECTION = re.compile(r"\s*// <(/?)([a-z]+)>")


@dataclass(frozen=True)
class ClickPage:
    """What the page part needs: the data for the script, the model's JS, the file to save, the
    line to sign it, and whether it holds the whole turn (``choices``; "" where the page works it
    out when it opens)."""

    data: dict[str, Any]  # for the script: the template writes it with script_json (pbem.views.render.scriptdata)
    file_name: str
    sign_command: str
    family: str
    choices: str
    graph: ChoiceGraph | None = field(default=None, repr=False, compare=False)
    model: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)   # the model's data

    @property
    def code(self) -> str:
        """The model's JS (the page embeds it: the family file only in its game's pages)."""
        return model_code(self.family)

    @property
    def script(self) -> str:
        """The page's own JS over the model API (``templates/click.js``): its sections this page needs."""
        keep = (("family",) if self.graph is None else ()) + (("setup",) if "setup" in self.data else ())
        return page_script(keep)

    @property
    def cut(self) -> bool:
        return self.choices == CUTS

    @cached_property
    def size(self) -> int:
        """Gzipped bytes of the choices' data (about): measured when a smaller page is asked for."""
        return packed_size({k: v for k, v in self.model.items() if k != "pieces"})


def move_file_name(table: Table) -> str:
    """``move-N.yaml``: the move meant to become log entry N."""
    return f"move-{table.last['index'] + 1}.yaml"


def sign_command(file_name: str) -> str:
    return f"ssh-keygen -Y sign -n pbem-move -f ~/.ssh/id_ed25519 {file_name}"


def move_head(table: Table, player: str) -> str:
    """The move file down to ``actions:``, as render_move writes it."""
    skeleton = MoveFile(table.game_id, player, table.last["index"], table.last["hash"], [])
    return render_move(skeleton, f"written on the board of {player}'s digest").replace("actions: []\n", "")


def click_page(table: Table, player: str, caps: Caps | None = None,
               view: Mapping[str, Any] | None = None) -> ClickPage | None:
    """The click-to-move part of ``player``'s page, or None when they have no decision now.
    ``view``: the player's view of the table's state when already made (the digest's own)."""
    game, state = table.game, table.state
    if player not in {d.player for d in game.pending(state)}:
        return None
    if view is None:
        view = game.view(state, player)
    model = game.turn_model(view, player)
    if model is not None:
        return _page(table, player, view, model.family, {"model": model.data, "view": view}, "", None)
    graph = build_graph(game, state, player, caps)
    if graph is None:
        return None
    return graph_page(table, view, graph)


def graph_page(table: Table, view: Mapping[str, Any], graph: ChoiceGraph) -> ClickPage:
    """The page with the generic model over ``graph``."""
    model = graph_model(table.game, view, graph)
    return _page(table, graph.player, view, GRAPH, {"model": model}, graph_choices(graph), graph)


def graph_model(game: Game[Any], view: Mapping[str, Any], graph: ChoiceGraph) -> dict[str, Any]:
    """The generic model's data: the graph (:func:`pbem.views.choicegraph.graph_data`) and the
    pieces on the player's board (``templates/turnmodel/graph.js``)."""
    picture = game.board_picture(view)
    data = graph_data(graph)
    return {**data, "prompts": [page_prompt(p) for p in data["prompts"]],
            "pieces": [_piece_data(p, c.label, "") for c in (picture.cells if picture is not None else [])
                       for p in c.pieces]}


def _page(table: Table, player: str, view: Mapping[str, Any], family: str, parts: dict[str, Any], choices: str,
          graph: ChoiceGraph | None) -> ClickPage:
    name = move_file_name(table)
    data: dict[str, Any] = {"head": move_head(table, player), "file": name, "sign": sign_command(name),
                            "family": family, "player": player, "choices": choices, **parts}
    plan = plan_data(table.game, view, player)
    data["look"] = {"colours": _colours(table.players, _owners(data.get("model", {}).get("pieces", []), plan))}
    if plan is not None:
        data["setup"] = plan
    return ClickPage(data, name, sign_command(name), family, choices, graph, data.get("model", {}))


def graph_choices(graph: ChoiceGraph) -> str:
    """complete, stop or cut: does the graph hold the whole turn, to its real stops?"""
    afters = [a for n in graph.nodes for a in n.after]
    if CUT in afters:
        return CUTS
    if STOP in afters or any(n.stop for n in graph.nodes):
        return STOPS
    return COMPLETE


# --- how pieces look -------------------------------------------------------------------------

def _colours(players: Sequence[str], owners: set[str]) -> dict[str, list[str]]:
    """Owner (a colour name, a player's name) -> [fill, ink]: how the page draws a piece's owner
    (the owners of the pieces it may draw, and the players)."""
    out = {name: [fill, ink_on(fill)] for name, fill in PLAYER_COLOURS.items() if name in owners}
    for player, colour in seat_colours(players).items():
        out.setdefault(player, [fill_of(colour), ink_on(fill_of(colour))])
    return out


def _piece_data(p: Piece, cell: str, aboard: str) -> dict[str, Any]:
    """A piece as the models' ``pieces`` give it (docs/turn-model.md), passengers after it."""
    out = {"handle": p.handle, "shape": p.shape, "owner": p.colour, "cell": cell, "label": p.text,
           "aboard": aboard, "value": p.value, "title": p.title or p.handle}
    return out if not p.passengers else {**out, "passengers": [_piece_data(x, cell, p.handle) for x in p.passengers]}


def _owners(pieces: list[dict[str, Any]], plan: dict[str, Any] | None) -> set[str]:
    owners = set()
    stack = list(pieces) + [look for g in (plan or {}).get("groups", []) for look in g["looks"].values()]
    while stack:
        p = stack.pop()
        owners.add(p["owner"])
        stack.extend(p.get("passengers", []))
    return owners


# --- the set-up in one message ----------------------------------------------------------------

def plan_data(game: Game[Any], view: Mapping[str, Any], player: str) -> dict[str, Any] | None:
    """The player's set-up placements to come, as the page's data carries them (its ``setup``;
    None outside a placement round)."""
    legal = game.legal_choices(game.read_view(view), player)     # (only the first is read)
    if not legal or not is_placement_round(game.action_places(view, player, [legal[0]])):
        return None
    plan = setup_plan(game, view, player)
    return _encode_plan(plan) if plan is not None else None


def _encode_plan(plan: SetupPlan) -> dict[str, Any]:
    """Each group: its prompt (as the page shows it: :func:`page_prompt`), pieces, spaces, and its
    actions as [piece, space, text, words] numbers into the group's lists and a text and a words
    template (``#p`` the piece, ``#s`` the space) where every action fits one, else the texts
    themselves."""
    groups = []
    for g in plan.groups:
        pieces, spots = g.pieces, g.spots
        piece_no, spot_no = _positions(pieces), _positions(spots)
        pairs: list[list[int]] | None = [[piece_no[p], spot_no[s]] for p, s, _t, _w in g.actions]
        if pairs == [[p, s] for p in range(len(pieces)) for s in range(len(spots))]:
            pairs = None          # every piece on every space, in that order
        text, words = _template(g.actions, 2), _template(g.actions, 3)
        entry: dict[str, Any] = {"kind": g.kind, "prompt": page_prompt(g.prompt), "pieces": pieces, "spots": spots,
                                 "pairs": pairs, "looks": {p.handle: _piece_data(p, "", "") for p in g.looks}}
        entry["text"] = text if text is not None else [a[2] for a in g.actions]
        entry["words"] = words if words is not None else [a[3] for a in g.actions]
        groups.append(entry)
    return {"groups": groups}


def _positions(items: Sequence[str]) -> dict[str, int]:
    """Each item's first place in ``items`` (``items.index``, for every item at once)."""
    out: dict[str, int] = {}
    for n, x in enumerate(items):
        out.setdefault(x, n)
    return out


def _template(actions: list[tuple[str, str, str, str]], k: int) -> str | None:
    """The one template every action's text (k=2) or words (k=3) fits, or None."""
    if not actions:
        return None
    piece, spot, *rest = actions[0]
    sample = rest[k - 2]
    if sample.count(piece) != 1 or sample.count(spot) != 1:
        return None
    template = sample.replace(piece, "\0p").replace(spot, "\0s").replace("#", "##").replace("\0p", "#p").replace("\0s", "#s")
    fill = _template_format(template).format
    for a in actions:
        if fill(a[0], a[1]) != a[k]:
            return None
    return template


def _template_format(template: str) -> str:
    """A template (as the page's script reads it, templates/click.js: ``#p`` the piece, ``#s``
    the space, ``##`` one ``#``) as a :meth:`str.format` string of the piece ({0}) and space ({1})."""
    out: list[str] = []
    k = 0
    while k < len(template):
        two = template[k:k + 2]
        if two in ("#p", "#s", "##"):
            out.append("{0}" if two == "#p" else "{1}" if two == "#s" else "#")
            k += 2
        else:
            out.append(template[k].replace("{", "{{").replace("}", "}}"))
            k += 1
    return "".join(out)


def _fill(template: str, piece: str, spot: str) -> str:
    """``template`` with ``piece`` and ``spot`` in its holes (:func:`_template_format`)."""
    return _template_format(template).format(piece, spot)


# --- a smaller page for the mail ----------------------------------------------------------------

def smaller(table: Table, page: ClickPage, by: int) -> ClickPage | None:
    """The page with about ``by`` fewer gzipped bytes of choices (fewer of the follow-up
    decisions), or None when it cannot be made smaller (only the first choices left): then the
    panel is left out.  A family model's page cannot shrink (its size is its script and data): the
    generic model's page over the capped choice graph takes its place, to be made smaller in turn."""
    if page.graph is None:
        return None if page.family == GRAPH else _generic_page(table, str(page.data["player"]))
    if len(page.graph.nodes) <= 1:
        return None
    graph = fit(page.graph, max(0, page.size - by))
    model = {**graph_data(graph), "pieces": page.model["pieces"]}
    return replace(page, data={**page.data, "model": model, "choices": graph_choices(graph)},
                   choices=graph_choices(graph), graph=graph, model=model)


def _generic_page(table: Table, player: str) -> ClickPage | None:
    """``player``'s page with the generic model (as for a game without a model), within the mail's caps."""
    graph = build_graph(table.game, table.state, player, MAIL_CAPS)
    return None if graph is None else graph_page(table, table.game.view(table.state, player), graph)


def boards_of(picture: BoardPicture) -> list[dict[str, Any]]:
    """Every piece of a board picture as the page's data writes it (for the tests)."""
    return [_piece_data(p, c.label, "") for c in picture.cells for p in c.pieces]
