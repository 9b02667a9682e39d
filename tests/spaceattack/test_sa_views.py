"""What each viewer sees, and the digests' words and look: picture, sections, summary, template, log lines."""
from spaceattack_helpers import GAME, Pos, act, die_rng

from pbem.core.rng import Rng
from pbem.views.render.hexmap_svg import render_svg
from pbem.views.render.hexmap_text import render_text


def playing():
    p = Pos().station("F6", "F7", "D5", "H6").land("r1", "F6").land("b1", "F7").boat("P1", "E3", "r2", "b2").boat("X1", "B3", "g1")
    p.creature("Q1", "G6").creature("S1", "A4").drift("g2", "C3").saved("r3", "B1").captured("blue", "W1")
    red_tile = p.hand("red", "teleport_creature")
    blue_tile = p.hand("blue", "steal_creature", tile="T1")
    return p, red_tile, blue_tile


def test_the_public_sees_no_value_no_hand_back_no_standing_order():
    p, red_tile, blue_tile = playing()
    st = p.state()
    public = GAME.view(st, None)
    assert all(e["value"] is None for e in public["explorers"].values())
    assert public["tiles"][red_tile]["back"] is None and public["tiles"][blue_tile]["back"] is None
    assert all(pl["standing"] is None for pl in public["players"])
    assert all(t["back"] is None for t in public["tiles"].values() if t["where"] == "island")
    assert public["captured"]["blue"] == ["W1"]


def test_a_player_sees_their_hand_and_orders_and_their_values_only_with_memory_open():
    p, red_tile, blue_tile = playing()
    st = p.state()
    mine = GAME.view(st, "red")
    assert mine["tiles"][red_tile]["back"] == "teleport_creature" and mine["tiles"][blue_tile]["back"] is None
    secrets = GAME.secrets(st, "red")
    assert secrets["hand"] == {red_tile: {"back": "teleport_creature", "obtained": 1}}
    assert set(secrets["standing"]) == {"queen_defense", "spawn_defense", "warrior_defense", "steal"}
    assert "crew_values" not in secrets
    p.p["options"]["memory"] = "open"
    st = p.state()
    assert set(GAME.secrets(st, "red")["crew_values"]) == {f"r{i}" for i in range(1, 11)}


def test_the_board_picture_in_the_games_own_words():
    p, _, _ = playing()
    st = p.state()
    picture = GAME.board_picture(GAME.view(st, None))
    kinds = {c.label: c.kind for c in picture.cells}
    assert kinds["B1"] == kinds["L12"] == "jump point" and kinds["G6"] == "open space"
    assert kinds["B2"] == kinds["C1"] == "stargate"
    assert {kinds["F6"], kinds["F7"]} <= {"cargo bay", "habitat", "bridge", "reactor"}
    marks = {c.label: c.marks for c in picture.cells}
    assert marks["E3"] == ["P1:b2,r2"] and marks["B3"] == ["X1:g1"] and marks["B1"] == ["r3"]
    pieces = {c.label: c.pieces for c in picture.cells}
    assert [(x.shape, x.colour) for x in pieces["F6"]] == [("explorer", "red")]
    assert [(x.shape, x.colour) for x in pieces["G6"]] == [("queen", "")]
    [pod] = pieces["E3"]
    assert pod.shape == "pod" and [(x.handle, x.colour) for x in pod.passengers] == [("b2", "blue"), ("r2", "red")]
    [fighter] = pieces["B3"]
    assert fighter.shape == "fighter" and [x.handle for x in fighter.passengers] == ["g1"]
    assert all(x.value is None for ps in pieces.values() for x in ps)          # the public board: no values
    for viewer in ("red", "blue"):                   # a value shows exactly where the viewer's view holds it
        view = GAME.view(st, viewer)
        shown = {x.handle: x.value for c in GAME.board_picture(view).cells for x in c.pieces}
        assert shown["r1"] == (None if view["explorers"]["r1"].get("value") is None
                               else str(view["explorers"]["r1"]["value"]))
    assert {shape for piece, _ in picture.key for shape in [piece.shape]} >= {"explorer", "drifter", "pod",
                                                                              "fighter", "queen", "spawn", "warrior"}
    assert "P1..P12" in picture.legend and "X1..X5" in picture.legend and "Q1..Q6" in picture.legend
    text = render_text(picture)
    assert "jump point" in text and "open space" in text
    svg = render_svg(picture, "Survive: Space Attack!")
    assert "#ffe27a" in svg and "#pbem-s-queen" in svg and "X1: fighter" in svg


def test_sections_crew_captured_creatures_hands_and_the_viewers_own_tiles():
    p, red_tile, _ = playing()
    st = p.state()
    sections = {s.title: s for s in GAME.sections(GAME.view(st, None))}
    crew = sections["Crew"]
    assert crew.columns == ["colour", "station", "aboard", "drifting", "saved", "lost"]
    assert crew.rows[0][0] == "red (red)" and crew.rows[0][4] == "1" and "stargates B2, C1" in crew.note
    captured = next(s for t, s in sections.items() if t.startswith("Captured"))
    assert ["blue", "W1 (warrior)"] in captured.rows
    assert "Your tiles" not in sections
    own = {s.title: s for s in GAME.sections(GAME.view(st, "red"))}
    assert own["Your tiles"].rows[0][0] == red_tile and "Teleport" in own["Your tiles"].rows[0][1]


def test_summary_and_log_lines_speak_space_attack():
    p, _, _ = playing()
    st = p.turn(step="remove-tile").state()
    lines = GAME.summary(GAME.view(st, None))
    assert "Space Station Atlantis" in lines[0] and any(line.startswith("Station tiles left") for line in lines)
    assert any("Captured creatures: blue W1" in line for line in lines)
    events = act(st, "red", GAME.legal_actions(st, "red")[0], die_rng("queen"))
    assert any("removes" in GAME.describe_event(e.public) and " tile T" in GAME.describe_event(e.public)
               for e in events)
    assert GAME.describe_event({"event": "remove", "player": "red", "tile": "T3", "at": "F6",
                                "terrain": "cargo_bay", "swimmers": ["r1"]}) == \
        "red removes cargo bay tile T3 at F6; r1 now drifting"
    assert GAME.describe_event({"event": "fly", "player": "red", "ship": "X1", "from": "B3", "to": "B7"}) == \
        "red flies fighter X1 B3 -> B7"


def test_the_move_template_writes_the_turn_ahead_and_seals_the_standing_orders():
    st = GAME.setup(["red", "blue"], {}, Rng(b"t", "1"))
    template = GAME.move_template(GAME.view(st, "red"), "red")
    assert "{place:" in template
    p, _, _ = playing()
    st = p.state()
    template = GAME.move_template(GAME.view(st, "red"), "red")
    assert "{done: move}" in template and "{remove:" in template
    assert "queen: none" in template and "spawn: none" in template and "warrior: none" in template
    assert "pbem seal GAME" in template and "steal: auto" in template and "SEALED" in template
    other = GAME.move_template(GAME.view(st, "blue"), "blue")
    assert other.startswith("actions: []") and "pbem seal" in other
