"""Malformed or random actions: always a one-line IllegalAction, never a crash, state untouched."""
from atlantis_helpers import GAME, Pos, act
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.game import IllegalAction

KEYS = ["place", "on", "boat", "at", "play", "swimmer", "creature", "to", "path", "move", "swim", "done",
        "remove", "board", "defend", "standing", "jump"]
SCALARS = st.one_of(st.sampled_from(["r1", "r9", "y1", "b1", "B1", "B9", "K1", "S1", "W1", "T1", "T40", "F2", "F3",
                                     "G6", "A3", "B12", "none", "move", "auto", "ask", "shark", "whale", "serpent",
                                     "Z9", ""]),
                    st.integers(-3, 50), st.booleans(), st.none())
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.sampled_from(KEYS + ["shark_defense",
                                                                                               "whale_defense"]),
                                                                       inner, max_size=3)),
                      max_leaves=6)
ACTIONS = st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=0, max_size=4)


def positions():
    base = Pos().island("F3", "F4", "G3").land("r1", "F3").boat("B1", "F2", "r2").swim("r3", "E2")
    base.creature("K1", "A3").creature("S1", "G6").creature("W1", "A5").swim("b1", "A4")
    base.hand("red", "dolphin", tile="T40")
    base.hand("blue", "shark_defense", tile="T39")
    return [base.copy().turn(step=step, die="shark") for step in ("play-tile", "move", "remove-tile", "creature")]


POSITIONS = positions()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(POSITIONS) - 1), player=st.sampled_from(["red", "blue", "green", "nobody"]),
       action=st.one_of(ACTIONS, VALUES))
def test_random_actions_are_rejected_cleanly_or_applied(which, player, action):
    state = POSITIONS[which].state()
    before = GAME.to_position(state)
    try:
        act(state, player, action)
    except IllegalAction as exc:
        message = str(exc)
        assert message and "\n" not in message
        assert GAME.to_position(state) == before
    else:
        GAME.to_position(state)   # still a consistent state
