"""The click-to-move choice graph (pbem/views/choicegraph.py): the same page data, however it is made.

Issue 19 made the graph cheaper to build; the page data must stay byte for byte what it was.
``PINS`` holds the data's fingerprints at the decision points of graph_points.py (the golden
games at a few steps each, Space Swarm games), made by the builder as it was before issue 19
(``make bench`` compares with that builder too, from git).  Regenerate only when the page data
is meant to change: ``python graph_points.py`` prints them.

What the builder takes from a game instead of working it out is checked against what it would
have worked out: ``Game.known_outcomes`` against the engine applying the action, at every
decision of every golden game; ``Game.view_key`` against the view's canonical JSON and
``Game.ahead_order_forms`` against ``Game.order_forms`` at every node of the graphs at the
points; the one-pass classes of the page's nodes against the refinement.
"""
from __future__ import annotations

import hashlib
from typing import Any

import pytest
from golden_games import CONFIGS, Config, replay
from graph_points import fingerprint, points

import pbem.views.choicegraph as choicegraph
from pbem.base.canonical import canonical
from pbem.core.draws import preview_draws
from pbem.core.engine import Rejected, apply_actions
from pbem.core.game import pending_players
from pbem.game import HANDS_OVER, NEEDS_CHANCE, NeedsSecret
from pbem.views.choicegraph import CUT, ChoiceGraph, Node, build_graph, graph_data

PINS = {
    'game00/9': '646802068b77d7a4da32',
    'game00/41': '0b29d44f4508de59637a',
    'game00/66': 'b2e068777601c036e154',
    'game00/97': '10936fd1f8e2fba7fffd',
    'game00/140': '721ab3a4cd6d260c740a',
    'game01/9': '815abdb1b9d8256ab9ce',
    'game01/41': 'c953fc6893b4d92cd1b7',
    'game01/66': '7fc6543387d4d9b58e88',
    'game01/97': '40dab521421f7c0fddb1',
    'game01/140': '8dbf1d9f85bd20110af1',
    'game02/9': 'e8dfe1cf9b87ad2abd3f',
    'game02/41': 'e787ae76a4a7f82e83a4',
    'game02/66': 'a8b778d4cdbbbe0d5190',
    'game02/97': '8fab6808911a7b3f2dcc',
    'game02/140': '30b25dca3f24c784829e',
    'game03/9': '1392a698ed7eae0ae0e7',
    'game03/41': '243b68ee06c984078f60',
    'game03/66': 'c3258bf86656a3dbd28a',
    'game03/97': '1c7c38c6127a1bae1093',
    'game03/140': '7818b6879048e3cfef3d',
    'game04/9': 'e65f64f3ca289b1dc8c7',
    'game04/41': '1802793229a16dc8ae26',
    'game04/66': 'd629bc095dc3fa86fd48',
    'game04/97': '1bbf5ebbb77f349fefbd',
    'game04/140': 'e7e41cefa00025cc2386',
    'game05/9': 'fd93010007a8ac866500',
    'game05/41': '2d72ae1f9e388d2fd878',
    'game05/66': 'dcb28318a21a1f6b6144',
    'game05/97': '230c9d72c834156345a4',
    'game05/140': '71b667cee87bb4d1830a',
    'game06/9': '90618ff1cad87be75af2',
    'game06/41': '52871a413d044dec190a',
    'game06/66': 'e1bf0d375e45d800d152',
    'game06/97': '6bebd3bf1122bccc6cf6',
    'game06/140': 'c0332da3665b2fe87219',
    'game07/9': '4090aa77a3f90b7c357e',
    'game07/41': '0b29d44f4508de59637a',
    'game07/66': '11e069f434769b8e9f3f',
    'game07/97': '0c8cf779b314b453d851',
    'game07/140': '7bd50cf4466d0c65e1cd',
    'game08/9': '590e66246f2c4dbae10c',
    'game08/41': '52871a413d044dec190a',
    'game08/66': '8c1bb0799fc6195817ee',
    'game08/97': '342d35e6ddb0a020a1e4',
    'game08/140': '3b931af228d3bc668c78',
    'game09/9': 'e424b7265429a78fb437',
    'game09/41': '0b29d44f4508de59637a',
    'game09/66': '4eab194d6bf8a3e9b9df',
    'game09/97': '0d17d9f8becab8600c43',
    'game09/140': 'c3e873ffc41ed36a0df7',
    'game10/9': 'fdafa0329255950b2ce0',
    'game10/41': '0d75195629b4fdec7c6c',
    'game10/66': 'a23f5917525a5cbd18dd',
    'game10/97': 'c4a970a920d73d4aa9b8',
    'game10/140': 'a6bbc33c0ea9b93e3a66',
    'game11/9': '83d86fe6e0268c81a19f',
    'game11/41': 'fe5918711f67fd206110',
    'game11/66': '290a7e14b95aeffaffa5',
    'game11/97': '9a18604c519375b1cb1a',
    'game11/140': 'a9ffd59af6bdcef63f77',
    'game12/9': '70a84f752d932461e694',
    'game12/41': '3b3a4b4484fb51f2e1c5',
    'game12/66': 'ef4baf920df223efec7e',
    'game12/97': 'dfa2134aeea84f4ad2cb',
    'game12/140': '0bd09fbcd5f478ef63dc',
    'game13/9': 'd8832c4ebd69e2ebbb5c',
    'game13/41': '0b29d44f4508de59637a',
    'game13/66': 'c4fcb2d7a7a8c5ddf32a',
    'game13/97': '6a06be591c581c2331dd',
    'game13/140': '2dce277ab26a705c90a2',
    'game14/9': '63f9439e42acf510b003',
    'game14/41': '0b29d44f4508de59637a',
    'game14/66': '5905df19c4b0d2b9cb43',
    'game14/97': 'ed7b00b079cef9f27e16',
    'game14/140': '68f9b0e84016bbaeb70d',
    'game15/9': 'cae5d27dbc9e5d74e548',
    'game15/41': 'f5babe37f0557c4421ff',
    'game15/66': '47b3bd75faba81e5a556',
    'game15/97': 'ca0855ccabea21cdf23f',
    'game15/140': 'fac3a5260c5ee9817864',
    'game16/9': '634baf76b396908386c2',
    'game16/41': '0d75195629b4fdec7c6c',
    'game16/66': 'decc2f6de10a888770f9',
    'game16/97': 'e2bd3cd4031ac0ae3a3e',
    'game16/140': '15b7bce6a9abfa88e90d',
    'game17/9': '585506dad18d82fbf3b9',
    'game17/41': 'de0e8d11c14e0d67efd5',
    'game17/66': '136024b74e7f6cb6f460',
    'game17/97': 'da0242c24ac50f639ecf',
    'game17/140': '40f046e130351691d96e',
    'game18/9': '1795b41b26ff4052f1ae',
    'game18/41': 'ffc51d92de829e0a451c',
    'game18/66': '4d20e5763d073dc5e235',
    'game18/97': '86a9afd8f2f21ca8d2c0',
    'game18/140': '47026e8c88288b7abc15',
    'game19/9': 'cb48f8581827f98ffa89',
    'game19/41': '0d75195629b4fdec7c6c',
    'game19/66': 'fa8242981df97f3af6c4',
    'game19/97': '9c1335f69845f784fa6a',
    'game19/140': 'dfa6fc21a5a8bbaa6976',
    'game20/9': 'cb7dd104f3848875d526',
    'game20/41': '7d60f3bbb3b2e9bf0755',
    'game20/66': '289f6f57090344c81ce7',
    'game20/97': 'bb6704f543b2df628b0b',
    'game20/140': '6a141d93d041f910ad21',
    'game21/9': '8b355924973c3f942a59',
    'game21/41': 'c804cab8c7a9093d14ae',
    'game21/66': 'fe159c13b86e46de2de4',
    'game21/97': 'b30f43f5fb3dbfe0d982',
    'game21/140': '564c8dc404fe0d3784f9',
    'game22/9': '624c7b304cb196d37f5c',
    'game22/41': '018469d93ded11039359',
    'game22/66': '8dc250b67b169872acca',
    'game22/97': 'd310da587cf500980839',
    'game22/140': '8f440d911737b95e658e',
    'game23/9': 'b78046597fa372480fbc',
    'game23/41': '254cfb1a9ad26e9e3d57',
    'game23/66': '4de4a19f57cab6cbad68',
    'game23/97': '6e1398d8175a32c866f5',
    'game23/140': 'e3e50365622e61d0ec98',
    'game24/9': 'd13bcaef8bf525dd9955',
    'game24/41': '7eda3a11e04f25194b10',
    'game24/66': 'be568ea0ebcfa71d906d',
    'game24/97': '1cc8495dae97d9e0cde7',
    'game24/140': 'da0a3fc806c4f4f5ab58',
    'game25/9': 'e791ffe10056af2c25f5',
    'game25/41': '140511c06726538ac8d8',
    'game25/66': '18091a6a35e9533ba435',
    'game25/97': 'b48c877f8103a451ae84',
    'game25/140': 'ba357e1bed141fc6d12f',
    'game26/9': 'a7fb85eacc8e2f8f36d6',
    'game26/41': 'db3fa3808a30ccc2f616',
    'game26/66': '41900318b865ccf19e00',
    'game26/97': '9a9d1d90af7072bc4ae8',
    'game26/140': '943e88413618581ef0e8',
    'game27/9': '7da822530db9ba958272',
    'game27/41': 'f5e40a4c2976f36689bc',
    'game27/66': '24b2adb89802bf2542d0',
    'game27/97': 'e944512f339619bf6ade',
    'game27/140': '4ee04961d487589090ea',
    'game28/9': 'ad092ec56b7c3790052f',
    'game28/41': '6dfb960f480be610faf1',
    'game28/66': 'e9a3ea571c1ec0eae02e',
    'game28/97': '53c155bdf72af89677e5',
    'game28/140': 'a4572e35f6887d078856',
    'game29/9': 'e61f1932ac153d5d8e63',
    'game29/41': '5706041769b9064f0aae',
    'game29/66': '3676663ae09f2b94b311',
    'game29/97': '5caf5d5527c1617e4c56',
    'game29/140': '58d8f18174c303b514be',
    'game30/9': '223ba9ed298cf3bef77f',
    'game30/41': '5e2a6a5fbf31d016360b',
    'game30/66': '6346babc08fb9f68c9d9',
    'game30/97': '9b03ee132425b8829fed',
    'game30/140': '89fb2878f42439baae5f',
    'game31/9': 'fad90388487e96a3b48d',
    'game31/41': 'c571de3c76b1483c7feb',
    'game31/66': 'f283a5bba6a07f7a6e8e',
    'game31/97': '00487769f9412d1b0629',
    'game31/140': '4430a797229d0efa1a58',
    'swarm0/4': 'ab76e25f2c4c7678246b',
    'swarm0/17': 'af0b4bbaeb2dce7fc6ae',
    'swarm0/33': '9700291b1b1844617e7e',
    'swarm0/58': 'afa44cf7845102c0df22',
    'swarm0/90': 'd1945181b81ac04f2520',
    'swarm0/131': '74a44a77a0393200adfd',
    'swarm1/4': 'ae430581c409b147c8e1',
    'swarm1/17': '64ae458daad7b96c2278',
    'swarm1/33': 'c239844c55dff676671f',
    'swarm1/58': 'fd47dc881a4d3c17e1fd',
    'swarm1/90': 'd1b9f88aa92d43545609',
    'swarm1/131': '7e341b27e2a899c09dbb',
    'swarm2/4': '63a5f127e4b0221388c4',
    'swarm2/17': 'b98e0ca0a98a7851c8cd',
    'swarm2/33': '4073fd78358a66fcceb7',
    'swarm2/58': '119ba324965d28a78609',
    'swarm2/90': '9674bce664e2ab477a13',
    'swarm2/131': '0bf85cb612abb11d737f',
}


@pytest.mark.slow(seconds=20)
def test_the_page_data_is_what_it_was_and_its_nodes_the_same_whether_found_in_one_pass_or_refined() -> None:
    """At every point: the page data is the pinned one; and the page's equivalent nodes found in
    one pass (children first) are the ones the refinement finds, for a page of one node, of half
    the graph and of all of it.  (One graph per point serves both checks.)"""
    seen, wrong, classes = 0, [], 0
    for name, game, state, player, caps in points():
        graph = build_graph(game, state, player, caps)
        assert graph is not None, name
        seen += 1
        if fingerprint(graph_data(graph)) != PINS.get(name):
            wrong.append(name)
        for kept in sorted({1, len(graph.nodes) // 2, len(graph.nodes)}):
            assert choicegraph._classes(graph, kept) == choicegraph._classes_refined(graph, kept), (name, kept)
            classes += 1
    assert seen == len(PINS) and not wrong, f"{len(wrong)} of {seen} differ: {wrong[:8]}"
    assert classes > 300


@pytest.mark.slow(seconds=3)
@pytest.mark.parametrize("config", CONFIGS, ids=[f"game{c.game_no:02d}-{c.game}" for c in CONFIGS])
def test_what_the_game_knows_of_an_action_is_what_the_engine_does(config: Config) -> None:
    """At every decision of the golden game, on the deciding player's own view (what the graph
    works on), each action ``known_outcomes`` answers for is applied: NEEDS_CHANCE must stop
    for a secret or a roll, HANDS_OVER must take effect with nothing hidden or random and pass
    the decision to another player; and none of them may be refused.  (The graph offers every
    legal action either way: an answer only says where it leads.)"""
    known = {NEEDS_CHANCE: 0, HANDS_OVER: 0}
    for game, state, number, _step in replay(config):
        for player in pending_players(game, state):
            mine = game.from_position(game.view(state, player))
            try:
                legal = game.legal_actions(mine, player)
            except NeedsSecret:
                continue
            outcomes = game.known_outcomes(mine, player, legal)
            assert len(outcomes) == len(legal), f"step {number}"
            for action, outcome in zip(legal, outcomes):
                if not outcome:
                    continue
                assert outcome in known, f"step {number}: {action} -> {outcome!r}"
                known[outcome] += 1
                tried = game.copy_state(mine)
                try:
                    applied = apply_actions(game, tried, player, [action], preview_draws())
                except Rejected as exc:
                    pytest.fail(f"{config.describe()}: step {number}: {action} is known ({outcome}) but refused: {exc}")
                chance = applied.needs_secret or any(e.chance for e in applied.events)
                if outcome == NEEDS_CHANCE:
                    assert chance, f"{config.describe()}: step {number}: {action} does not stop"
                else:
                    assert not chance and player not in pending_players(game, tried), \
                        f"{config.describe()}: step {number}: {action} does not hand over"
    assert known[NEEDS_CHANCE] and known[HANDS_OVER], known


@pytest.mark.slow(seconds=20)
def test_view_keys_and_written_ahead_forms_agree_with_the_views_at_every_node(monkeypatch) -> None:
    """``view_key`` is equal for two states of a graph exactly when their views' canonical JSON
    is; ``ahead_order_forms`` from a node's state is ``order_forms`` from its view."""
    checked_keys, checked_forms = 0, 0
    for name, game, state, player, caps in points():
        by_key: dict[Any, bytes] = {}
        by_view: dict[bytes, Any] = {}
        real_key, real_forms = game.view_key, game.ahead_order_forms

        def view_key(s: Any, viewer: str | None, real_key: Any = real_key, game: Any = game,
                     by_key: dict[Any, bytes] = by_key, by_view: dict[bytes, Any] = by_view) -> Any:
            key = real_key(s, viewer)
            view = hashlib.sha256(canonical(game.view(s, viewer))).digest()
            assert by_key.setdefault(key, view) == view and by_view.setdefault(view, key) == key, name
            return key

        def ahead(s: Any, view: Any, viewer: str, real_forms: Any = real_forms, game: Any = game) -> Any:
            forms = real_forms(s, view, viewer)
            assert forms == [f for f in game.order_forms(view, viewer) if f.when == "ahead"], name
            assert game.view(s, viewer) == view, name
            return forms

        monkeypatch.setattr(game, "view_key", view_key)
        monkeypatch.setattr(game, "ahead_order_forms", ahead)
        with monkeypatch.context() as m:
            count = [0]
            real_ahead_form = choicegraph._Builder.ahead_form

            def ahead_form(self: Any, node: Node, count: list[int] = count) -> int:
                count[0] += node.state is not None
                return real_ahead_form(self, node)
            m.setattr(choicegraph._Builder, "ahead_form", ahead_form)
            build_graph(game, state, player, caps)
        monkeypatch.undo()
        checked_keys += len(by_key)
        checked_forms += count[0]
    assert checked_keys > 5000 and checked_forms > 100, (checked_keys, checked_forms)


def test_a_graph_with_a_cycle_is_refined() -> None:
    """Two decisions that lead to each other (no game's graph does that today; a move that
    spends nothing would): the one-pass order finds no first node and the refinement decides."""
    def node(after: list[int], actions: list[int]) -> Node:
        return Node(None, 0, actions, after, {})
    graph = ChoiceGraph("p", nodes=[node([1, 2], [0, 1]), node([2], [0]), node([1], [0]), node([CUT], [0])])
    assert choicegraph._children_first(graph, 4) is None
    assert choicegraph._classes(graph, 4) == choicegraph._classes_refined(graph, 4) == [0, 1, 2, 3]
    assert choicegraph._children_first(graph, 1) == [0]
