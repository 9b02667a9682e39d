"""The click-to-move part of a player's own HTML digest (``templates/click.html.j2``).

When the player has a decision, their digest page carries their choice graph
(:mod:`pbem.views.choicegraph`) as JSON and a small inline script that lets them compose the move on
the board: pick a piece and one of its highlighted destinations, take a tile, press a button
for the other choices, undo, set standing orders and orders written ahead; the page shows the
move file as it grows (exactly as :func:`pbem.store.movefile.render_move` writes it), saves it as
``move-N.yaml`` and copies it, and gives the ``ssh-keygen`` line that signs it.  No network, no
other file: it works from ``file://``.  The public digest never has it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from pbem.store.movefile import MoveFile, render_move
from pbem.views.choicegraph import Caps, ChoiceGraph, build_graph, fit, graph_data, packed_size

if TYPE_CHECKING:  # pragma: no cover
    from pbem.store.table import Table

__all__ = ["ClickPage", "MAIL_CAPS", "SHOW_CAPS", "click_page", "smaller", "move_file_name", "sign_command"]

#: the page mailed to a player (and written to the game folder): small, so that the digest
#: message stays under 100 KB (docs/email.md); the first choices are always all there
MAIL_CAPS = Caps(nodes=200, applies=350, gzip_bytes=4000)
#: ``pbem show --as PLAYER --format html`` on the player's own machine: a page can be bigger
SHOW_CAPS = Caps(nodes=800, applies=2500, gzip_bytes=30000)


@dataclass(frozen=True)
class ClickPage:
    """What the page part needs: the data for the script, the file to save, the line to sign it."""

    data: dict[str, Any]  # for the script: the template writes it with script_json (pbem.views.render.scriptdata)
    file_name: str
    sign_command: str
    cut: bool             # the caps left part of the choices out
    graph: ChoiceGraph = field(repr=False, compare=False)
    choices: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)   # graph_data(graph)

    @cached_property
    def size(self) -> int:
        """Gzipped bytes of the choices' data (about): measured when a smaller page is asked for."""
        return packed_size(self.choices)


def move_file_name(table: Table) -> str:
    """``move-N.yaml``: the move meant to become log entry N."""
    return f"move-{table.last['index'] + 1}.yaml"


def sign_command(file_name: str) -> str:
    return f"ssh-keygen -Y sign -n pbem-move -f ~/.ssh/id_ed25519 {file_name}"


def move_head(table: Table, player: str) -> str:
    """The move file down to ``actions:``, as render_move writes it."""
    skeleton = MoveFile(table.game_id, player, table.last["index"], table.last["hash"], [])
    return render_move(skeleton, f"written on the board of {player}'s digest").replace("actions: []\n", "")


def click_page(table: Table, player: str, caps: Caps | None = None) -> ClickPage | None:
    """The click-to-move part of ``player``'s page, or None when they have no decision now."""
    graph = build_graph(table.game, table.state, player, caps)
    if graph is None:
        return None
    return page_for(table, graph)


def page_for(table: Table, graph: ChoiceGraph) -> ClickPage:
    name = move_file_name(table)
    choices = graph_data(graph)
    data = {"head": move_head(table, graph.player), "file": name, "sign": sign_command(name), **choices}
    return ClickPage(data, name, sign_command(name), graph.cut, graph, choices)


def smaller(table: Table, page: ClickPage, by: int) -> ClickPage | None:
    """The page with about ``by`` fewer gzipped bytes of choices (fewer of the follow-up
    decisions), or None when it has only the first choices left (then the panel is left out)."""
    if len(page.graph.nodes) <= 1:
        return None
    return page_for(table, fit(page.graph, max(0, page.size - by)))
