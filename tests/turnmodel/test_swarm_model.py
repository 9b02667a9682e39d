"""Space Swarm's turn model (templates/turnmodel/swarm.js) proven against the engine
(swarm_walks.py has the walks and the checks): random walks through players' turns at states of
bot games of 2-6 players over the options, every successor at a sample of them, the number
pickers; and the model's data holds nothing a player may not see."""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest
from harness import ModelError, ModelProcess, digest, model_files
from swarm_walks import CASES, GAME, FAMILY, Mismatch, Tally, Walker, bot_states, plain, run


@pytest.fixture(scope="module")
def node() -> Iterator[ModelProcess]:
    """One node process for the module's walks (each test drops the states it made)."""
    with ModelProcess(model_files([FAMILY])) as process:
        yield process


@pytest.mark.slow(seconds=5)           # 2-16 s each: started early, so that none is the run's tail
@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{n}p-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'defaults'}"
                                                         for n, o in CASES])
def test_walks_successors_and_pickers_agree_with_the_engine(case: int, node: ModelProcess) -> None:
    n, options = CASES[case]
    tally = Tally()
    run([(n, options, f"make-test/{case}")], every=6, walks_per_state=2, exhaustive_every=3, tally=tally, node=node)
    # the game was played through and every kind of decision it met was walked
    assert tally.walks >= 10 and tally.cuts == 0, tally.line()
    assert tally.done + tally.stops == tally.walks, tally.line()
    assert {"produce", "move", "attack"} <= set(tally.kinds), tally.line()
    assert tally.successors and tally.counts, tally.line()
    assert 0 < tally.written_taken < tally.written, tally.line()      # written actions taken and refused
    # cards played as events at every sampled decision: with event_phase=any all are taken; by default
    # the Event cards held where Technology is placed are refused
    if options.get("event_phase") == "any":
        assert 0 < tally.played_taken == tally.played, tally.line()
    else:
        assert 0 < tally.played_taken < tally.played, tally.line()


def test_the_model_refuses_what_the_engine_refuses(node: ModelProcess) -> None:
    """Actions a page could send that the engine refuses, at a move decision: the model throws."""
    state = next(s for s in bot_states(3, {}, "refuse", 1) if GAME.pending(s)[0].kind == "move"
                 and sum(len(m) for m in s.moved.values()) == 0 and s.turns > 3)
    player = GAME.pending(state)[0].player
    view = plain(GAME.view(state, player))
    mine = sorted(view["stacks"][player])
    others = [c for p in view["stacks"] if p != player for c in view["stacks"][p]]
    bad = [{"move": mine[0], "path": []}, {"move": mine[0], "path": [mine[0]]}, {"move": others[0], "path": [mine[0]]},
           {"move": mine[0], "path": ["Z99"]}, {"move": mine[0], "fleets": 0, "path": ["A1"]},
           {"produce": mine[0]}, {"develop": "none"}, {"done": "attack"}, {"slot": 1}, {"react": "none"},
           {"event": "C999"}, {"standing": {"combat": "sometimes"}}, {"nonsense": 1}, {}]
    walker = Walker(node, Tally())
    s = walker.start(view, player)
    for action in bad:
        assert walker.step(s, GAME.from_position(view), player, action, view, []) is None, action
    with pytest.raises(ModelError, match="not a space"):
        node.apply(s, {"move": mine[0], "path": ["Z99"]})
    node.drop([s])


class Misdrawn(Walker):
    """A walker whose engine pieces are wrong on purpose: a stack's count one more."""

    def drawn(self, text: str, player: str) -> tuple[list[Any], str, list[Any], str]:
        pieces, _, forms, forms_digest = super().drawn(text, player)
        wrong = [dict(p) for p in pieces]
        wrong[0]["label"] += "1"
        return wrong, digest(json.dumps(wrong, separators=(",", ":"))), forms, forms_digest


def test_a_wrong_expectation_fails_showing_what_differs(node: ModelProcess) -> None:
    """The model's answers are compared by digest in node; where they differ (here the engine's pieces
    altered on purpose) the model's answer comes back and the failure shows the pieces that differ."""
    state = next(bot_states(2, {}, "misdrawn", 1))
    player = GAME.pending(state)[0].player
    walker = Misdrawn(node, Tally())
    with pytest.raises(Mismatch, match=r"pieces differ: #0 model .*\"label\": \"(\w*)\".* engine .*\"label\": \"\1(1)\""):
        walker.root(state, player)


def test_the_model_data_is_the_same_for_every_player_and_names_no_card() -> None:
    """``turn_model`` is made from the player's own view, and what it adds to the view is public:
    the map's links, the rule numbers, the printed card list (faces, not which card is which)."""
    state = next(s for k, s in enumerate(bot_states(4, {}, "data", 10)) if k == 3)
    datas = [GAME.turn_model(GAME.view(state, p), p) for p in state.players]
    assert all(d is not None and d.family == FAMILY for d in datas)
    texts = {json.dumps(d.data, sort_keys=True) for d in datas if d is not None}
    assert len(texts) == 1
    text = texts.pop()
    assert not re.search(r'"C[0-9]+"', text)
    assert json.loads(text) == plain(datas[0].data if datas[0] else None)   # plain JSON



def splits(total: int, keys: list[str]) -> list[dict[str, int]]:
    """Every way to share ``total`` among ``keys`` (each 0..total)."""
    if len(keys) == 1:
        return [{keys[0]: total}]
    return [{keys[0]: k, **rest} for k in range(total + 1) for rest in splits(total - k, keys[1:])]


def test_every_count_a_picker_allows_is_an_action_the_engine_takes(node: ModelProcess) -> None:
    """The number pickers as the page uses them (templates/click.js: a field per picker, min..max,
    the action taken is ``counted``'s): at production and move decisions of bot games, every number
    within a move picker's bounds and every split of the production the pickers allow gives an
    action the engine takes, with the model's next state the engine's; one past either bound of a
    move, a stack given more than the production, and splits that do not add up are refused by
    the engine and give no action (the bounds are the engine's)."""
    tally = Tally()
    seen = {"produce": 0, "move": 0, "split": 0, "refused": 0}
    walker = Walker(node, tally)
    for n, seed in ((2, "pickers-a"), (3, "pickers-b")):
        looked = {"produce": 0, "move": 0}        # decisions looked at in this game
        for state in bot_states(n, {}, seed, 3, limit=300):
            pending = GAME.pending(state)[0]
            if pending.kind not in ("produce", "move") or looked[pending.kind] >= 2:
                continue
            looked[pending.kind] += 1
            player = pending.player
            start = plain(GAME.view(state, player))
            engine = GAME.from_position(start)
            s = walker.start(start, player)
            legal = walker.compare(s, engine, player, start, []) or []
            for action in [a for a in legal if "produce" in a][:3] + [a for a in legal if "move" in a][::7][:4]:
                pickers = node.method(s, "counts", action)
                assert pickers, action
                tries: list[tuple[dict[str, int], bool]] = []
                if "move" in action:
                    k = pickers[0]
                    assert (k["key"], k["min"]) == ("fleets", 1)
                    tries = [({"fleets": v}, k["min"] <= v <= k["max"]) for v in range(k["min"] - 1, k["max"] + 2)]
                    seen["move"] += 1
                else:
                    total = pickers[0]["max"]
                    assert all((k["min"], k["max"]) == (0, total) for k in pickers)
                    keys = [k["key"] for k in pickers]
                    every = splits(total, keys)
                    tries = [(v, True) for v in every[:200]]
                    tries += [({**{key: 0 for key in keys}, key: total + 1}, False) for key in keys]
                    tries += [({**{key: 0 for key in keys}, keys[0]: total - 1}, False)] if total > 1 else []
                    seen["produce"] += 1
                # the picker's actions for every try in one exchange, the actions written for them
                # taken in a second, the picker's actions the engine takes (compared unless they
                # stopped) in a third; checked try by try
                mades = node.batch([{"op": "method", "s": s, "name": "counted", "args": [action, values]}
                                    for values, _ in tries])
                writtens = [Walker.written(action, values) for values, _ in tries]
                outs = walker.steps_compared(s, engine, player, [(w, [values], None)
                                                                 for w, (values, _) in zip(writtens, tries)], start)
                node.drop([out[0] for out in outs if out is not None])
                for (values, allowed), made, out in zip(tries, mades, outs):
                    assert (made is not None) == allowed == (out is not None), (action, values, made, out is not None)
                taken = [(values, made, out) for (values, _), made, out in zip(tries, mades, outs) if out is not None]
                agains = walker.steps_compared(s, engine, player, [(made, [made], [made]) for _, made, _ in taken], start)
                node.drop([again[0] for again in agains if again is not None])
                seen["refused"] += len(tries) - len(taken)
                for (values, made, out), again in zip(taken, agains):
                    assert out is not None and again is not None
                    _, after, stop, _ = again
                    assert plain(GAME.view(after, player)) == plain(GAME.view(out[1], player))
                    seen["split"] += "produce" in action and len([v for v in values.values() if v]) > 1
            node.drop([s])
    assert seen["produce"] and seen["move"] and seen["split"] and seen["refused"], seen
