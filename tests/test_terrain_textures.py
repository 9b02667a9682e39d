"""Terrain told apart by texture as well as colour (README: "terrain told apart by texture as well
as colour"): on every game's SVG board, each kind of terrain has a pattern of its own drawn over its
fill (at most one plain kind: the sea, open space, deep space), the pattern is defined once in the picture,
and the key shows it too.  The PNG for mail is rendered from the same SVG."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pbem.core.rng import Rng
from pbem.rules.spaceswarm.data import swarm_data
from pbem.rules.spaceswarm.picture import PLAIN, TEXTURES as SWARM_TEXTURES, VISITED_TEXTURE, kind_name
from pbem.views.render.hexmap_svg import render_svg
from pbem.views.render.textures import TEXTURES, texture_id
from pbem.core.registry import load_game

NS = {"svg": "http://www.w3.org/2000/svg"}
KIND = re.compile(r"^\S+ \((.+)\)")


def kinds_and_textures(svg: str) -> dict[str, set[str]]:
    """Each terrain kind on the board -> the patterns drawn over its cells (``""``: none)."""
    root = ET.fromstring(svg)
    out: dict[str, set[str]] = {}
    for cell in root.findall(".//svg:g[@class='pbem-cell']", NS):
        title = cell.find("svg:title", NS)
        assert title is not None and title.text
        found = KIND.match(title.text)
        assert found, title.text
        tex = [u.get("fill", "") for u in cell.iter(f"{{{NS['svg']}}}use") if u.get("class") == "pbem-tex"]
        out.setdefault(found.group(1), set()).update(tex or [""])
    return out


@pytest.mark.parametrize("name, plain", [("space-swarm", 1), ("atlantis", 1), ("atlantis-1986", 1),
                                         ("space-attack", 1)])
def test_each_terrain_kind_has_its_own_pattern_on_the_svg_board(name: str, plain: int) -> None:
    game = load_game(name)
    players = ["red", "blue", "green"]
    state = game.setup(players, game.resolve_options({}, players), Rng(b"t" * 32, "setup"))
    board = game.board_picture(game.view(state, None))
    assert board is not None
    svg = render_svg(board)
    seen = kinds_and_textures(svg)
    assert len(seen) >= 3, seen
    assert all(len(t) == 1 for t in seen.values()), seen                   # one pattern per kind
    patterns = [next(iter(t)) for t in seen.values()]
    assert patterns.count("") <= plain, seen                               # only the plain kind has none
    drawn = [p for p in patterns if p]
    assert len(set(drawn)) == len(drawn), seen                             # no two kinds share one
    root = ET.fromstring(svg)
    defined = {p.get("id") for p in root.iter(f"{{{NS['svg']}}}pattern")}
    assert {p[len("url(#"):-1] for p in drawn} <= defined                  # each defined in the picture
    hexagon = [p for p in root.iter(f"{{{NS['svg']}}}polygon") if p.get("id") == "pbem-hexagon"]
    assert len(hexagon) == 1 and not hexagon[0].get("fill")                 # the texture's shape, its fill the use's
    key = root.find(".//svg:g[@class='pbem-key']", NS)
    assert key is not None and {r.get("fill") for r in key.iter(f"{{{NS['svg']}}}rect")} >= set(drawn)


def test_every_space_swarm_terrain_has_a_texture_of_its_own() -> None:
    """Every terrain of the d20 table but plain Deep Space (and visited ruins), not only those a map
    happens to roll."""
    names = [k for k in swarm_data().terrains if k != PLAIN]
    assert sorted(SWARM_TEXTURES) == sorted(names)
    chosen = [SWARM_TEXTURES[k] for k in names] + [VISITED_TEXTURE]
    assert len(set(chosen)) == len(chosen) and set(chosen) <= set(TEXTURES)
    game = load_game("space-swarm")
    players = ["red", "blue"]
    state = game.setup(players, game.resolve_options({}, players), Rng(b"u" * 32, "setup"))
    board = game.board_picture(game.view(state, None))
    assert board is not None
    assert {board.textures[kind_name(k)] for k in names} == {SWARM_TEXTURES[k] for k in names}
    svg = render_svg(board)
    assert PLAIN in swarm_data().terrains and kind_name(PLAIN) not in board.textures
    for kind, patterns in kinds_and_textures(svg).items():
        if kind == kind_name(PLAIN):
            assert patterns == {""}
            continue
        key = next(k for k in names if kind_name(k) == kind) if kind != "visited ruins" else None
        assert patterns == {f"url(#{texture_id(SWARM_TEXTURES[key] if key else VISITED_TEXTURE)})"}, kind
