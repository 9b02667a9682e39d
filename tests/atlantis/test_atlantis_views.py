"""Positions, views, secrets, hidden information, pictures and texts."""
import copy
import json

import pytest
import yaml
from atlantis_helpers import GAME, Pos, act, die_rng

from pbem.core.rng import Rng
from pbem.game import IllegalAction, NeedsSecret

try:
    from yaml import CSafeDumper as Dumper
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover
    from yaml import SafeDumper as Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as Loader


def new(players=("red", "blue", "green"), **options):
    return GAME.setup(list(players), options, Rng(b"views", "setup"))


def values(view, prefix):
    return {h: e["value"] for h, e in view["explorers"].items() if h.startswith(prefix)}


def finish_setup(st):
    while st.phase in ("setup-place", "setup-boat"):
        p = GAME.pending(st)[0].player
        act(st, p, GAME.legal_actions(st, p)[0])


def test_memory_strict_values_only_during_setup():
    st = new()
    assert all(v is not None for v in values(GAME.view(st, "red"), "r").values())
    assert all(v is None for v in values(GAME.view(st, "red"), "b").values())
    assert all(e["value"] is None for e in GAME.view(st, None)["explorers"].values())
    assert GAME.secrets(st, "red")["explorer_values"] == {f"r{i}": st.explorers[f"r{i}"].value for i in range(1, 11)}
    finish_setup(st)
    assert st.phase == "play"
    assert all(v is None for v in values(GAME.view(st, "red"), "r").values())
    assert "explorer_values" not in GAME.secrets(st, "red")


def test_memory_open_values_always_visible_to_their_owner():
    st = new(memory="open")
    finish_setup(st)
    assert all(v is not None for v in values(GAME.view(st, "red"), "r").values())
    assert all(v is None for v in values(GAME.view(st, "blue"), "r").values())
    assert all(e["value"] is None for e in GAME.view(st, None)["explorers"].values())
    assert len(GAME.secrets(st, "blue")["explorer_values"]) == 10


def test_public_view_hides_tile_backs():
    st = new()
    view = GAME.view(st, None)
    assert all(t["back"] is None for t in view["tiles"].values())
    assert all(t["back"] is not None for t in GAME.to_position(st)["tiles"].values())
    assert set(view) == set(GAME.to_position(st))


def test_secrets_hold_only_the_players_knowledge():
    p = Pos().island("F3")
    tile = p.hand("blue", "wind")
    st = p.state()
    assert GAME.secrets(st, "blue") == {"hand": {tile: {"back": "wind", "obtained": 1}},
                                        "standing": {"shark_defense": "auto", "whale_defense": "auto"}}
    assert GAME.secrets(st, "red")["hand"] == {}


def test_position_round_trip_through_yaml_and_json():
    st = new()
    r = Rng(b"views", "bot")
    for i in range(120):
        pos = GAME.to_position(st)
        text = yaml.dump(pos, Dumper=Dumper) if i % 10 == 0 else json.dumps(pos)
        again = GAME.from_position(yaml.load(text, Loader=Loader) if i % 10 == 0 else json.loads(text))
        assert GAME.to_position(again) == pos
        d = GAME.pending(st)[0]
        assert GAME.legal_actions(again, d.player) == GAME.legal_actions(st, d.player)
        act(st, d.player, r.choice(GAME.legal_actions(st, d.player)), Rng(b"views", f"a{i}"))


def test_from_position_is_rng_independent():
    st = new()
    a = GAME.from_position(GAME.to_position(st))
    assert GAME.to_position(a) == GAME.to_position(st)


def test_bad_position_is_a_value_error():
    pos = GAME.to_position(new())
    del pos["tiles"]
    with pytest.raises(ValueError):
        GAME.from_position(pos)
    pos = GAME.to_position(new())
    pos["explorers"]["r1"]["at"] = "Z99"
    pos["explorers"]["r1"]["where"] = "land"
    with pytest.raises(ValueError):
        GAME.from_position(pos)


def test_public_view_state_plays_until_a_secret_is_needed():
    p = Pos().island("F3", "F4").tile("F3", "beach").tile("F4", "beach").land("r1", "F3").boat("B1", "F2")
    st = p.state()
    pub = GAME.from_position(GAME.view(st, None))
    assert GAME.legal_actions(pub, "red") == GAME.legal_actions(st, "red")
    act(pub, "red", {"move": "r1", "to": "F2"})
    act(pub, "red", {"done": "move"})
    assert GAME.legal_actions(pub, "red") == [{"remove": "F3"}, {"remove": "F4"}]
    before = GAME.to_position(pub)
    with pytest.raises(NeedsSecret):
        act(pub, "red", {"remove": "F3"}, Rng.unavailable())
    assert GAME.to_position(pub) == before
    with pytest.raises(IllegalAction):
        act(pub, "red", {"remove": "A3"}, Rng.unavailable())     # still checked first


def test_die_roll_from_a_view_needs_the_secret():
    p = Pos().island("F3", "F4").tile("F3", "beach", "boat").tile("F4", "beach")
    for h in ("r1", "r2", "b1", "b2"):
        p.land(h, "F3")
    st = p.turn(step="remove-tile").state()
    act(st, "red", {"remove": "F3"}, die_rng("shark"))          # the moderator resolves the reveal
    pub = GAME.from_position(GAME.view(st, "red"))
    before = GAME.to_position(pub)
    with pytest.raises(NeedsSecret):
        act(pub, "red", {"board": ["r1", "r2", "b1"]}, Rng.unavailable())
    assert GAME.to_position(pub) == before


def test_hidden_hand_needs_the_secret_to_list_tile_plays():
    p = Pos().island("F3")
    p.hand("red", "dolphin")
    st = p.turn(step="play-tile").state()
    with pytest.raises(NeedsSecret):
        GAME.legal_actions(GAME.from_position(GAME.view(st, None)), "red")
    own = GAME.from_position(GAME.view(st, "red"))
    assert GAME.legal_actions(own, "red") == GAME.legal_actions(st, "red")


def test_defense_decision_from_a_view_needs_the_secret():
    p = Pos().island("F3").turn(step="creature", die="shark").creature("K1", "A3").swim("b1", "A4")
    p.hand("blue", "dolphin")
    st = p.state()
    pub = GAME.from_position(GAME.view(st, "red"))
    before = GAME.to_position(pub)
    with pytest.raises(NeedsSecret):
        act(pub, "red", {"creature": "K1", "to": "A4"}, Rng.unavailable())
    assert GAME.to_position(pub) == before
    act(pub, "red", {"creature": "K1", "to": "B4"}, Rng.unavailable())   # no attack: fine


def test_board_picture():
    p = Pos().island("F3", "F4").tile("F3", "beach").tile("F4", "forest")
    p.land("r1", "F3").boat("B1", "F2", "r2", "b1").creature("K1", "F2").swim("g1", "E2").saved("b2", "B1")
    st = p.state()
    pic = GAME.board_picture(GAME.view(st, None))
    cells = {c.label: c for c in pic.cells}
    assert len(cells) == 137
    assert cells["F3"].kind == "beach" and cells["F4"].kind == "forest" and cells["G6"].kind == "sea"
    assert cells["B1"].kind == "isle" and cells["B1"].marks == ["b2"]
    assert cells["F2"].marks == ["K1", "B1:b1,r2"]
    assert cells["E2"].marks == ["g1"] and cells["F3"].marks == ["r1"]
    assert (cells["G6"].q, cells["G6"].r) == (0, 0)
    assert any("ship" in v for v in pic.legend.values()) and pic.colours["sea"]


def test_summary_and_templates():
    st = new()
    for d_kind in ("setup-place",):
        assert GAME.pending(st)[0].kind == d_kind
    lines = GAME.summary(GAME.view(st, None))
    assert lines[0].startswith("In play:") and lines[0].endswith("players, the standard rules.")
    assert any("Tiles left: beach 16, forest 16, mountain 8" in line for line in lines)
    text = GAME.move_template(GAME.view(st, "red"), "red")
    assert yaml.safe_load(text)["actions"][0]["place"].startswith("r")
    assert "waiting for red" in GAME.move_template(GAME.view(st, "blue"), "blue")
    p = Pos().island("F3", "F4").land("r1", "F3")
    st = p.state()
    text = GAME.move_template(GAME.view(st, "red"), "red")
    acts = yaml.safe_load(text)["actions"]
    assert acts[0] == {"done": "move"} and acts[1] == {"remove": "F3"}
    assert acts[2] == {"creature": {"serpent": "none", "shark": "none", "whale": "none"}}
    assert any("Turn 5: red" in line for line in GAME.summary(GAME.view(st, None)))


@pytest.mark.parametrize("step", ["play-tile", "remove-tile", "creature", "defense", "choose-boarders"])
def test_templates_parse_for_every_step(step):
    p = Pos().island("F3", "F4").land("r1", "F3").creature("K1", "A3").swim("b1", "A4")
    p.hand("red", "dolphin")
    p.turn(step=step, die="shark")
    if step == "defense":
        p.p["reaction"] = {"kind": "shark_defense", "creature": "K1", "at": "A4", "queue": ["blue"]}
        p.hand("blue", "shark_defense", tile="T39")
    if step == "choose-boarders":
        for h in ("r2", "r3", "b2", "b3"):
            p.swim(h, "F2")
        p.boat("B1", "F2")
        p.p["boarding"] = {"tile": "T1", "boat": "B1", "at": "F2"}
    st = p.state()
    who = GAME.pending(st)[0].player
    parsed = yaml.safe_load(GAME.move_template(GAME.view(st, who), who))
    assert isinstance(parsed["actions"], list) and parsed["actions"]
    first = parsed["actions"][0]
    legal = GAME.legal_actions(st, who)
    assert first in legal or step == "choose-boarders" and sorted(first["board"]) in [sorted(a["board"]) for a in legal]


def test_describe_events_of_a_whole_game():
    st = new()
    r = Rng(b"views", "describe")
    seen = set()
    i = 0
    while GAME.pending(st):
        d = GAME.pending(st)[0]
        for e in act(st, d.player, r.choice(GAME.legal_actions(st, d.player)), Rng(b"views", f"d{i}")):
            line = GAME.describe_event(e.public)
            if e.public:
                seen.add(e.public["event"])
                assert "=" not in line, line
            for priv in e.private.values():
                GAME.describe_event(priv)
        i += 1
    assert {"place", "boat", "turn", "remove", "roll", "game-over"} <= seen


def test_illegal_actions_leave_the_state_untouched():
    st = Pos().island("F3").land("r1", "F3").state()
    before = copy.deepcopy(GAME.to_position(st))
    for bad in ({}, {"jump": 1}, "move", {"move": "r1", "to": "F2", "fly": True}, {"remove": "F3"},
                {"creature": "K1", "to": "A4"}, {"defend": "none"}, {"board": ["r1"]}, {"place": "r1", "on": "F3"},
                {"play": "T1"}, {"done": "moving"}):
        with pytest.raises(IllegalAction):
            act(st, "red", bad)
        assert GAME.to_position(st) == before
    with pytest.raises(IllegalAction):
        act(st, "blue", {"done": "move"})


def test_the_digest_says_which_variants_are_in_play():
    st = GAME.setup(["red", "blue", "green"], GAME.full_options({"end": "submerged", "squid": "yes"}), Rng(b"v" * 32, "setup"))
    assert GAME.summary(GAME.view(st, None))[0] == "In play: 3 players, end=submerged, squid=yes."


def test_prompts_show_the_deciding_players_own_pieces_and_strict_memory_is_announced():
    from pbem.core.draws import setup_rng
    from pbem.core.registry import load_game
    game = load_game("atlantis")
    state = game.setup(["red", "blue", "green"], game.full_options({}), setup_rng(b"p" * 32, "prompt"))
    for _ in range(4):                                   # red, blue, green, red place
        [decision] = game.pending(state)
        prefix = {"red": "r", "blue": "b", "green": "g"}[decision.player]
        assert f"{{place: {prefix}" in decision.prompt, decision.prompt
        game.apply(state, decision.player, game.legal_actions(state, decision.player)[0], setup_rng(b"x", "a"))
    view = game.view(state, None)
    assert not any("memory=strict" in line for line in game.summary(view))        # set-up: values are shown
    for memory, shown in (("open", False), ("strict", True)):
        after = game.setup(["red", "blue"], game.full_options({"memory": memory}), setup_rng(b"p" * 32, memory))
        while game.pending(after)[0].kind.startswith("setup"):
            d = game.pending(after)[0]
            game.apply(after, d.player, game.legal_actions(after, d.player)[0], setup_rng(b"x", memory))
        said = any("memory=strict: your explorers' values are no longer shown" in line
                   for line in game.summary(game.view(after, "red")))
        assert said == shown, memory
