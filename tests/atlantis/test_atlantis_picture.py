"""The Atlantis board picture: pieces drawn from the view, in player colours and shapes."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from atlantis_helpers import GAME, Pos

from pbem.core.palette import PLAYER_COLOURS
from pbem.views.boardmoves import mark_moves
from pbem.views.render.hexmap_svg import render_svg
from pbem.views.render.hexmap_text import render_text

NS = {"svg": "http://www.w3.org/2000/svg"}
HREF = "href"


def position() -> Pos:
    p = Pos(options={"memory": "open"}).island("F3", "F4", "G4").tile("F3", "beach").tile("F4", "forest")
    p.land("r1", "F3").boat("B1", "F2", "r2", "b1").creature("K1", "F2").swim("g1", "E2").saved("b2", "B1")
    p.creature("S1", "G6").creature("W1", "A5")
    return p


def cells(pic):
    return {c.label: c for c in pic.cells}


def test_pieces_have_the_shape_colour_and_handle_of_what_is_there():
    pic = GAME.board_picture(GAME.view(position().state(), None))
    c = cells(pic)
    [r1] = c["F3"].pieces
    assert (r1.handle, r1.shape, r1.colour, r1.text) == ("r1", "explorer", "red", "r1")
    [g1] = c["E2"].pieces
    assert g1.shape == "swimmer" and g1.colour == "green"
    [b2] = c["B1"].pieces
    assert b2.shape == "explorer" and "saved" in b2.title and c["B1"].kind == "isle"
    shark, ship = c["F2"].pieces
    assert (shark.shape, shark.colour) == ("shark", "")
    assert ship.shape == "ship" and [(x.handle, x.colour) for x in ship.passengers] == [("b1", "blue"), ("r2", "red")]
    assert [x.shape for x in c["G6"].pieces + c["A5"].pieces] == ["serpent", "whale"]
    assert c["F3"].kind == "beach" and c["F4"].kind == "forest" and c["G4"].kind != "sea"
    assert pic.textures["beach"] != pic.textures["forest"]
    assert c["F2"].marks == ["K1", "B1:b1,r2"]                      # the text map's codes


def test_values_only_on_the_readers_own_board():
    st = position().state()
    public = GAME.board_picture(GAME.view(st, None))
    red = GAME.board_picture(GAME.view(st, "red"))
    assert all(p.value is None for c in public.cells for p in c.pieces + [x for q in c.pieces for x in q.passengers])
    [r1] = cells(red)["F3"].pieces
    assert r1.value == str(st.explorers["r1"].value)
    ship = cells(red)["F2"].pieces[1]
    assert [x.value is None for x in ship.passengers] == [True, False]        # b1 is blue's, r2 red's
    assert f"r1={r1.value}" in render_text(red) and "r1=" not in render_text(public)
    svg = render_svg(red)
    assert svg.count('fill="#ffe14d"') >= 2 and 'fill="#ffe14d"' not in render_svg(public).split("pbem-key")[0]


def test_svg_draws_player_colours_and_distinct_shapes():
    svg = render_svg(GAME.board_picture(GAME.view(position().state(), None)), GAME.title)
    root = ET.fromstring(svg)
    symbols = {s.get("id") for s in root.iter("{http://www.w3.org/2000/svg}symbol")}
    assert {"pbem-s-explorer", "pbem-s-swimmer", "pbem-s-shark", "pbem-s-serpent", "pbem-s-whale"} <= symbols
    uses = [(u.get(HREF), u.get("fill")) for u in root.iter("{http://www.w3.org/2000/svg}use")]
    assert ("#pbem-s-explorer", PLAYER_COLOURS["red"]) in uses           # r1, and red's key sample
    assert ("#pbem-s-swimmer", PLAYER_COLOURS["green"]) in uses
    vessel = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "pbem-piece pbem-vessel"
                  and "B1" in g.find("svg:title", NS).text)
    aboard = [u.get("fill") for u in vessel.iter("{http://www.w3.org/2000/svg}use")]
    assert aboard == [PLAYER_COLOURS["blue"], PLAYER_COLOURS["red"]]     # the passengers inside the ship's group
    texts = ["".join(t.itertext()) for t in vessel.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["B1", "b1", "r2"]
    patterns = {p.get("id") for p in root.iter("{http://www.w3.org/2000/svg}pattern")}
    assert {"pbem-t-dots", "pbem-t-trees"} <= patterns


def test_what_moved_since_the_last_turn_is_marked_with_rings_arrows_and_changed_spaces():
    before = position()
    after = position()
    after.swim("g1", "E3").tile("G4", None)
    after.p["tiles"][after.tile_at("G4")]["where"] = "used"
    after.creature("K2", "H5")
    old = GAME.board_picture(GAME.view(before.state(), None))
    new = mark_moves(GAME.board_picture(GAME.view(after.state(), None)), old)
    c = cells(new)
    [g1] = c["E3"].pieces
    assert g1.moved and g1.moved_from == "E2"
    [k2] = c["H5"].pieces
    assert k2.moved and k2.moved_from == ""
    assert not any(p.moved for p in c["F2"].pieces) and c["G4"].changed and c["G4"].kind == "sea"
    root = ET.fromstring(render_svg(new))
    arrows = root.find(".//svg:g[@class='pbem-arrows']", NS)
    assert len(arrows.findall("svg:line[@class='pbem-arrow']", NS)) == 1            # E2 -> E3; K2 is new
    assert len(arrows.findall("svg:g[@class='pbem-moved']", NS)) == 2              # rings around g1 and K2
    assert len(arrows.findall("svg:polygon[@class='pbem-changed']", NS)) == 1      # G4 sank
    assert "g1 E2->E3" in render_text(new) and "K2 (new) H5" in render_text(new)
