"""The click-to-move choice graph (pbem/views/choicegraph.py): the same page data, however it is made.

Issue 19 made the graph cheaper to build; the page data must stay byte for byte what it was.
``PINS`` holds the data's fingerprints at the decision points of graph_points.py (the golden
games at a few steps each, Space Swarm games), made by the builder as it was before issue 19
(``make bench`` compares with that builder too, from git).  Regenerate only when the page data
is meant to change: ``python graph_points.py`` prints them (last: issue 21, each choice's
words from ``Game.describe_action``, as shapes over the action's values).

What the builder takes from a game instead of working it out is checked against what it would
have worked out: ``Game.known_outcomes`` against the engine applying the action, at every
decision of every golden game; ``Game.view_key`` against the view's canonical JSON,
``Game.ahead_order_forms`` against ``Game.order_forms`` and ``Game.state_action_places`` against
``Game.action_places`` of the view at every node of the graphs at the points; the one-pass
classes of the page's nodes against the refinement.
"""
from __future__ import annotations

import json
import marshal
from pathlib import Path
from typing import Any

import pytest
import session_cache
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
    'game00/9': '588f3c20d9018de37121',
    'game00/41': '5de7c9cc3158cba1d95e',
    'game00/66': '57d8b6fcbbf3fb263919',
    'game00/97': '60b34178dca4bf5c8bbc',
    'game00/140': '0778a2a5b4c418093a5b',
    'game01/9': '532656f7631918963856',
    'game01/41': '555b5f8c2e918f71521f',
    'game01/66': 'e2e716a428aae83784f5',
    'game01/97': '230e4258dd34a84b9d97',
    'game01/140': '91472005f807822979e0',
    'game02/9': '89378b220aa631d3cae6',
    'game02/41': 'ae5bbbc38fcfede6cd4c',
    'game02/66': '5a90eb3a9ac5f85d337c',
    'game02/97': '5212ef869feb2c656e8f',
    'game02/140': 'd85691122a3224ed2307',
    'game03/9': 'c75490eae5d9bc21e3f0',
    'game03/41': '1cd844076ef85e46523a',
    'game03/66': '255aac560ac5525d77a6',
    'game03/97': 'afc6dfb40a5b34f3d38b',
    'game03/140': '45dca843aa7e2d56e33f',
    'game04/9': 'dc32f518a783bbdf9b63',
    'game04/41': '6be2dd5302064fef7be1',
    'game04/66': '3a62c9823a615bfc129b',
    'game04/97': 'ec0fe29b979aee0156a6',
    'game04/140': 'b79c0eda9ae41a9416aa',
    'game05/9': '59e4070a677388a0e4a0',
    'game05/41': 'fdc950727bc35932646f',
    'game05/66': '2bd2db208ce51b1b300c',
    'game05/97': 'fcde42a1b23550f9e20c',
    'game05/140': 'a805a1c8fccf9abb3c9a',
    'game06/9': 'a9100cbcdeeb4c1c4f87',
    'game06/41': '811fb8d4a8e58bd40200',
    'game06/66': 'd547f2a14b76fb15e8ac',
    'game06/97': 'e03b4e4fa3459fd3a8a3',
    'game06/140': '07a8c6aa5194e1f7b930',
    'game07/9': 'e134bae1cb491b8fdbae',
    'game07/41': '5de7c9cc3158cba1d95e',
    'game07/66': 'bc76bfb82981a605cc30',
    'game07/97': 'cd52ff86594f1c6e1cea',
    'game07/140': 'f72b9bd83c0ef1579143',
    'game08/9': '0ffaff26db1a15f482fb',
    'game08/41': '811fb8d4a8e58bd40200',
    'game08/66': '7965fc16f759e62cc54f',
    'game08/97': 'bcbca3ae09259b6ab4cd',
    'game08/140': '4fd5f66d287649d45432',
    'game09/9': 'b27573382734c7a467f2',
    'game09/41': '5de7c9cc3158cba1d95e',
    'game09/66': '51e8a07d548a75e264e6',
    'game09/97': '6cf6bbdf46827a87830d',
    'game09/140': 'f1fa7e3264b136725a27',
    'game10/9': 'ecbabaa643be806000c1',
    'game10/41': '0044d2d5248c32a6a1d2',
    'game10/66': 'afed765ba72fd282a6ec',
    'game10/97': 'a8c4ea846f2e1372f005',
    'game10/140': '45963f110dfbaf66c640',
    'game11/9': 'bf253e1e86778f889ea7',
    'game11/41': '50c514461de56d58e7d2',
    'game11/66': '453b6fb3b59261a8c10c',
    'game11/97': 'bf5b57867e67171f8e45',
    'game11/140': '6c86931cb92759582025',
    'game12/9': 'b784430cf55e25885e65',
    'game12/41': '3fc6e457df256f41acfd',
    'game12/66': 'ccb97606add4592ad94a',
    'game12/97': '90a15d012ced1413e962',
    'game12/140': '60ee31ace3a0a2db7ec3',
    'game13/9': 'c5c7849d8e1bedb3efc5',
    'game13/41': '5de7c9cc3158cba1d95e',
    'game13/66': 'd02f1382b6e496d14a65',
    'game13/97': 'ee02441c5f60a5ff5690',
    'game13/140': '913197c4c5e85697d66f',
    'game14/9': '2d4a6e53b87de657c6cd',
    'game14/41': '5de7c9cc3158cba1d95e',
    'game14/66': '9dee1607f275facbc062',
    'game14/97': 'ff666aafd6318aeb7b23',
    'game14/140': 'c66da5aec96d0336851a',
    'game15/9': '6eabf3da70b6f98117a2',
    'game15/41': '7961765a327767887842',
    'game15/66': '23c43a35f6a387bfc3f8',
    'game15/97': 'b44315012196fd806199',
    'game15/140': 'f7aaecaacd69a44b93a7',
    'game16/9': 'f91453aef2de43d49623',
    'game16/41': '0044d2d5248c32a6a1d2',
    'game16/66': '852517e686b15b693345',
    'game16/97': '71c2f30647d5d5be1661',
    'game16/140': 'dad7a81d5424049c7334',
    'game17/9': 'f2ca98ef691182895f6e',
    'game17/41': '7ebb9996fb911fb4a587',
    'game17/66': 'a1536a746c7c0ad9a14a',
    'game17/97': 'cd1c5134d395ded0ee52',
    'game17/140': 'd0847bb04b12d63b8d09',
    'game18/9': 'b7f04a6ea1399acde8ac',
    'game18/41': '85d11889e861989725e9',
    'game18/66': '3ec4294c640da7710b3a',
    'game18/97': '62bc042fa8f99dc13a37',
    'game18/140': '1d39a356d24f4459bc23',
    'game19/9': 'ed53fd066ee619828012',
    'game19/41': '0044d2d5248c32a6a1d2',
    'game19/66': 'bde5f48cf6b349bd359f',
    'game19/97': 'bf4094e52856f3bbc8d2',
    'game19/140': '4218e74a84713efc4d31',
    'game20/9': '74ff6ba52e155db23ffd',
    'game20/41': '917c8df2d10c927e8c23',
    'game20/66': '182f324795a895a2365b',
    'game20/97': '2292820cf137352e14d1',
    'game20/140': 'ecf88c9a92e9376f1fca',
    'game21/9': 'ab5c7b1bfbc93e367913',
    'game21/41': '1f964e826d49ec851cfd',
    'game21/66': '9b08a74f2926d7c9c528',
    'game21/97': 'e5b4706c0f2226f4f6c1',
    'game21/140': '0f833db237cbec1db520',
    'game22/9': 'bdebad4079fa4ae2e7f6',
    'game22/41': '2e74b25ca75a7f29d6a6',
    'game22/66': 'bdbc21fbd601adff8b47',
    'game22/97': '8b6c80e3a976b5fea2fb',
    'game22/140': '19cd01242e47a0197d2a',
    'game23/9': 'aa909d608be8dd665b67',
    'game23/41': '6df1868bcbbe61aaf3c2',
    'game23/66': 'bfa70a6e357e7d049e33',
    'game23/97': '458bdd76a3c564f047e2',
    'game23/140': 'd80a6c22d83cdcf1c7e6',
    'game24/9': '850b0aae537d692c214f',
    'game24/41': '5694b3b9572ee66c86e8',
    'game24/66': 'c47893ec31d2bb59446a',
    'game24/97': '30c943ef19306465b641',
    'game24/140': 'c245ed7495a9de7f9cb2',
    'game25/9': '2e48e3da429015afdc9b',
    'game25/41': '58b43fea17d2734eb8c1',
    'game25/66': '45515fd5647d61632367',
    'game25/97': '149f7fd7a9da3a82b3a7',
    'game25/140': 'a3a1eb0a7ceb8f58f3c9',
    'game26/9': 'ffe698bc565fb8534602',
    'game26/41': '1dac79ca0ebcf4309fcd',
    'game26/66': '1e0db5acb5f8f2ffc1b3',
    'game26/97': 'd8ff97a5ed381327043b',
    'game26/140': 'e41a84bedc690c447983',
    'game27/9': '15756a9cdf9ba793d7e5',
    'game27/41': '3760c608935f07c60d62',
    'game27/66': 'dfd30fc39d7f43bb49aa',
    'game27/97': 'a224487781c7befd02a6',
    'game27/140': '3ad33f8a6211a91229ef',
    'game28/9': '631bf4bfee953476cd63',
    'game28/41': 'bceef9da2100cb4c4d6a',
    'game28/66': '9d6db018f4cd892358b8',
    'game28/97': 'b1678a87e007e93f1b3a',
    'game28/140': 'acd40081d48ae7f83ba4',
    'game29/9': 'fda335c7b263b9105a3f',
    'game29/41': 'f336f92360d5e034412b',
    'game29/66': '0583a1fccd45b7b044a3',
    'game29/97': 'e45aab00207a20e38be2',
    'game29/140': 'd06a9086aa03af12cc3d',
    'game30/9': '449c52d2964198961eee',
    'game30/41': 'fd2efeafa2e5adacb6c9',
    'game30/66': '25d1dbaf758b7ace7ce2',
    'game30/97': '18f12e5c8da8f88df36a',
    'game30/140': '2e0592715ad59d18e538',
    'game31/9': '91df234032afa9b9ecd6',
    'game31/41': '76425501e2cc17d1b59e',
    'game31/66': 'dd6fd7c89f0f6a6fa293',
    'game31/97': '333ea9549a56728183e1',
    'game31/140': 'a0cd51ba750a4b1e8136',
    'swarm0/4': '36b9f810e4a7c0926c2c',
    'swarm0/17': '9077878fe8edbafa5191',
    'swarm0/33': '6025af045383777cccdc',
    'swarm0/58': '46e05aecd5fa305c0861',
    'swarm0/90': '7faef93555f545d1b2a5',
    'swarm0/131': 'a9390a07c4c135272112',
    'swarm1/4': 'ed8d478bab671635d760',
    'swarm1/17': '74253faf340261a25ec0',
    'swarm1/33': '8200d3996c87d1fcecac',
    'swarm1/58': '65698c156d820dbd74a5',
    'swarm1/90': '785f2fb209753b8c4e3e',
    'swarm1/131': '5cdffae33c2a1ec4694d',
    'swarm2/4': '3808cece5769012a5304',
    'swarm2/17': '19e1f27887829d927ab5',
    'swarm2/33': '2e98e06c2aa7644abe25',
    'swarm2/58': '5e46e2aebc70abbe016a',
    'swarm2/90': 'ab6f95d6dc2932b56c77',
    'swarm2/131': '53a43985074fb02c46c8',
}


class _KeysAgree:
    """Whether the keys a graph's states get are equal exactly when their views' canonical JSON
    is: every view is told apart from every view with another key, and is the same as every
    view with its own key (as the first of them is).

    A view's canonical JSON is told by the pair (the JSON of its fields but ``LATER``, the JSON of
    the ``LATER`` fields it has): equal views give equal pairs and unequal views unequal ones
    (canonical JSON is a dict's fields in sorted order).  The second half (a Survive view's
    tiles, options, players and history: about half of its JSON, which few moves change) is
    written only where the first cannot decide: for a key seen before, and for a view whose
    first half is another key's view's too (the whole check was about a third of building the graphs
    when every view was written whole).  The halves are kept as their JSON bytes, compared whole
    (a graph's views, kept anyway, are larger; a sha256 of each was a tenth of the check)."""

    LATER = ("tiles", "options", "players", "history")

    def __init__(self) -> None:
        self.views: dict[Any, Any] = {}              # key -> its first view
        self.first: dict[Any, bytes] = {}            # key -> its first view's first half (JSON)
        self.later: dict[Any, bytes] = {}            # key -> its first view's second half (JSON)
        self.keys_of: dict[bytes, list[Any]] = {}    # first half -> the keys whose views have it
        self.texts: dict[bytes, bytes] = {}          # a field's value as marshal writes it -> its canonical JSON
        self.names: dict[str, bytes] = {}            # a field's name -> its canonical JSON and the colon

    def canonical(self, fields: Any) -> bytes:
        """``canonical(fields)``, byte for byte; for a dict with text keys, put together from each
        field's canonical JSON (``{"name":value,...}``, the names in sorted order, as ``canonical``
        writes a dict), the field's JSON written once per value and looked up by the value's
        ``marshal`` bytes.  Those tell apart every type and every value (True, 1 and 1.0; a tuple
        and a list; a dict's order), so equal bytes are the same value and the same JSON; a value
        marshal cannot write (an instance of a subclass of str or int) is written each time.  Most
        of a graph's views share most fields (its views' explorers are one of the views before in
        seven calls of ten): about a sixth of the shared build was writing them again."""
        if not isinstance(fields, dict) or not all(isinstance(name, str) for name in fields):
            return canonical(fields)
        texts, names, parts = self.texts, self.names, []
        for name in sorted(fields):
            value = fields[name]
            try:
                written = marshal.dumps(value)
            except ValueError:
                text = canonical(value)
            else:
                text = texts.get(written)
                if text is None:
                    text = texts[written] = canonical(value)
            named = names.get(name)
            if named is None:
                named = names[name] = canonical(name) + b":"
            parts.append(named + text)
        return b"{" + b",".join(parts) + b"}"

    def _halves(self, view: Any) -> tuple[bytes, Any]:
        """The first half's JSON and the second half (the ``LATER`` fields the view has, by name)."""
        if not isinstance(view, dict):
            return self.canonical(view), None
        later = self.LATER
        return (self.canonical({k: v for k, v in view.items() if k not in later}),
                {k: view[k] for k in later if k in view})

    def _later_of(self, key: Any) -> bytes:
        if key not in self.later:
            self.later[key] = self.canonical(self._halves(self.views[key])[1])
        return self.later[key]

    def check(self, key: Any, view: Any) -> bool:
        first, rest = self._halves(view)
        if key in self.views:          # the same key: the same view, both halves
            return self.first[key] == first and self._later_of(key) == self.canonical(rest)
        self.views[key], self.first[key] = view, first
        others = self.keys_of.setdefault(first, [])
        if others:                     # another key's view has this first half: the second must differ
            mine = self._later_of(key)
            if any(self._later_of(other) == mine for other in others):
                return False
        others.append(key)
        return True


def _build_every_graph_once(folder: Path) -> None:
    """:func:`_build_every_graph` with Python's cyclic garbage collector paused over every point, not
    only while each graph is made (``build_graph`` pauses it so): the views the checks keep while a
    graph is made (one per key) are no longer walked by the collection that starts as the graph is
    done (about a tenth of the build).  They are trees, which reference counting frees at the next point."""
    with choicegraph._collector_paused():
        _build_every_graph(folder)


def _build_every_graph(folder: Path) -> None:
    """Every point's graph built once, with ``Game.view_key``, ``Game.ahead_order_forms`` and
    ``Game.state_action_places`` wrapped to check what they answer (the wrappers hand the real answers
    on, so the graph is the one the plain builder makes): what both tests below look at, written
    to ``folder / "checks.json"``.  A graph costs as much as a submit's page: one build per point
    serves the pins, the node classes and the view keys (session_cache: once per session)."""
    fingerprints: dict[str, str] = {}
    classes, classes_wrong, made_wrong = 0, [], []
    checked_keys, checked_forms, checked_places, key_problems, form_problems = 0, 0, 0, [], []
    for name, game, state, player, caps in points():
        views: dict[Any, Any] = {}        # key -> the view (one view per key: what the check below makes sure)
        keyed: dict[int, tuple[Any, str | None, Any]] = {}   # id of a state keyed -> (the state, the viewer, its view)
        agree = _KeysAgree()
        real_key, real_forms, real_places = game.view_key, game.ahead_order_forms, game.state_action_places

        def view_key(s: Any, viewer: str | None, real_key: Any = real_key, game: Any = game, name: str = name,
                     views: dict[Any, Any] = views, keyed: dict[int, Any] = keyed, agree: _KeysAgree = agree) -> Any:
            key = real_key(s, viewer)
            made = views[key] = game.view(s, viewer)
            keyed[id(s)] = (s, viewer, made)
            if not agree.check(key, made):
                key_problems.append(name)
            return key

        def view_of(s: Any, viewer: str, real_key: Any = real_key, game: Any = game,
                    views: dict[Any, Any] = views, keyed: dict[int, Any] = keyed) -> Any:
            """The view of ``s``: the one made when it was keyed last (the builder asks for a state's
            forms and places only while it is as it was keyed: a node's state is changed only by the
            last edge followed from it, after they are read, and keyed again where that edge leads to
            a decision), else the one made for its key, if one was."""
            last = keyed.get(id(s))
            if last is not None and last[0] is s and last[1] == viewer:
                return last[2]
            found = views.get(real_key(s, viewer))
            return found if found is not None else game.view(s, viewer)

        count = [0, 0]

        def ahead(s: Any, viewer: str, real_forms: Any = real_forms, view_of: Any = view_of, game: Any = game,
                  name: str = name, count: list[int] = count) -> Any:
            forms = real_forms(s, viewer)
            if forms != [f for f in game.order_forms(view_of(s, viewer), viewer) if f.when == "ahead"]:
                form_problems.append(f"{name}: ahead_order_forms is not order_forms' ahead forms")
            count[0] += bool(forms)
            return forms

        def places(s: Any, viewer: str, actions: Any, real_places: Any = real_places, game: Any = game,
                   view_of: Any = view_of, name: str = name, count: list[int] = count) -> Any:
            found = real_places(s, viewer, actions)
            if found != game.action_places(view_of(s, viewer), viewer, actions):
                form_problems.append(f"{name}: state_action_places is not action_places of the view")
            count[1] += len(actions)
            return found

        with pytest.MonkeyPatch.context() as m:
            m.setattr(game, "view_key", view_key)
            m.setattr(game, "ahead_order_forms", ahead)
            m.setattr(game, "state_action_places", places)
            graph = build_graph(game, state, player, caps)
        checked_keys += len(views)
        checked_forms += count[0]
        checked_places += count[1]
        assert graph is not None, name
        data = graph_data(graph)          # (the data build_graph measured last, when nothing changed since)
        if data != graph_data(graph):     # (made afresh)
            made_wrong.append(name)
        fingerprints[name] = fingerprint(data)
        for kept in sorted({1, len(graph.nodes) // 2, len(graph.nodes)}):
            if choicegraph._classes(graph, kept) != choicegraph._classes_refined(graph, kept):
                classes_wrong.append([name, kept])
            classes += 1
    (folder / "checks.json").write_text(json.dumps({
        "fingerprints": fingerprints, "classes": classes, "classes_wrong": classes_wrong, "made_wrong": made_wrong,
        "checked_keys": checked_keys, "checked_forms": checked_forms, "checked_places": checked_places,
        "key_problems": sorted(set(key_problems)), "form_problems": sorted(set(form_problems))}))


@pytest.fixture
def every_graph(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = session_cache.finished(request.config, tmp_path_factory, "choice-graphs", _build_every_graph_once)
    return json.loads((folder / "checks.json").read_text())


@pytest.mark.slow(seconds=30)
def test_the_page_data_is_what_it_was_and_its_nodes_the_same_whether_found_in_one_pass_or_refined(
        every_graph: dict[str, Any]) -> None:
    """At every point: the page data is the pinned one (the data ``build_graph`` measured last and
    hands on is the data made afresh); and the page's equivalent nodes found in
    one pass (children first) are the ones the refinement finds, for a page of one node, of half
    the graph and of all of it."""
    fingerprints = every_graph["fingerprints"]
    wrong = [name for name, pin in fingerprints.items() if pin != PINS.get(name)]
    assert len(fingerprints) == len(PINS) and not wrong, f"{len(wrong)} of {len(fingerprints)} differ: {wrong[:8]}"
    assert every_graph["classes_wrong"] == []
    assert every_graph["made_wrong"] == [], "the data build_graph hands on is not what graph_data makes"
    assert every_graph["classes"] > 300


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
            last = max((k for k, outcome in enumerate(outcomes) if outcome), default=-1)
            for k, (action, outcome) in enumerate(zip(legal, outcomes)):
                if not outcome:
                    continue
                assert outcome in known, f"step {number}: {action} -> {outcome!r}"
                known[outcome] += 1
                # each action on a fresh copy of the view's state; the last one on that state itself
                # (nothing reads it after), as the graph's builder gives a node's last edge its state
                tried = mine if k == last else game.copy_state(mine)
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


def test_view_keys_and_written_ahead_forms_agree_with_the_views_at_every_node(every_graph: dict[str, Any]) -> None:
    """``view_key`` is equal for two states of a graph exactly when their views' canonical JSON
    is; ``ahead_order_forms`` from a node's state is ``order_forms`` from its view, and
    ``state_action_places`` is ``action_places`` of its view.  (Not marked
    slow: the graphs are built by the test above, which starts first, and shared.)"""
    assert every_graph["key_problems"] == [], "view_key and the views' JSON disagree at these points"
    assert every_graph["form_problems"] == []
    assert every_graph["checked_keys"] > 5000 and every_graph["checked_forms"] > 100, every_graph
    assert every_graph["checked_places"] > 5000, every_graph


def test_the_key_check_finds_keys_that_join_or_split_views() -> None:
    """The check of ``view_key`` above (``_KeysAgree``) fails where two keys share a view or one key
    has two views, however little they differ (the tiles, which it reads last, too; a
    field's order and a tuple for a list are no difference: the JSON is the same)."""
    def view(tiles: Any = None, **fields: Any) -> dict[str, Any]:
        return {"turn": 1, **fields, **({} if tiles is None else {"tiles": tiles})}

    def agree(*calls: tuple[Any, Any]) -> bool:
        check = _KeysAgree()
        return all([check.check(key, made) for key, made in calls])

    a, b = view({"T1": "island"}, x=[1]), view({"T1": "used"}, x=[1])
    assert agree(("k1", a), ("k2", b), ("k1", view({"T1": "island"}, x=(1,))), ("k2", b))
    assert agree(("k1", {"x": 1, "turn": 1}), ("k1", {"turn": 1, "x": 1}), ("k2", {"turn": 2}))
    assert not agree(("k1", a), ("k2", view({"T1": "island"}, x=[1])))          # two keys, one view
    assert not agree(("k1", a), ("k1", b))                                      # one key, two views (tiles)
    assert not agree(("k1", a), ("k1", view({"T1": "island"}, x=[2])))          # (the rest)
    assert not agree(("k1", view(None, x=1)), ("k1", {**view(None, x=1), "tiles": None}))
    assert not agree(("k1", a), ("k2", b), ("k3", view({"T1": "used"}, x=[1])))
    assert agree(("k1", view(None, x=1)), ("k2", {**view(None, x=1), "tiles": None}))


def test_the_key_check_writes_each_view_as_canonical_does() -> None:
    """``_KeysAgree.canonical`` (a view put together from its fields' JSON, each written once per
    value) is ``canonical``'s bytes, also for values equal in Python but not in JSON (True, 1 and
    1.0), equal in JSON but not in Python (a tuple and a list; a dict's fields in another order),
    text marshal cannot write (a str subclass), non-ASCII text, nested dicts, and a field whose
    value was written before in another order or type."""
    class Name(str):
        pass

    check = _KeysAgree()
    views: list[Any] = [
        {"turn": 1, "x": True}, {"turn": 1, "x": 1}, {"turn": 1, "x": 1.0}, {"x": [1, 2], "turn": 1},
        {"turn": 1, "x": (1, 2)}, {"b": {"z": 1, "a": [None, "é"]}, "a": 0}, {"a": 0, "b": {"a": [None, "é"], "z": 1}},
        {"name": Name("red"), "n": -3}, {"name": "red", "n": -3}, {"ü": "\u2603", "": ""}, {}, [1, {"b": 1, "a": 2}],
        "text", None, {"x": {"1": 1}}, {"x": {"1": True}},
    ]
    for view in views + views:
        assert check.canonical(view) == canonical(view), view
    assert len({check.canonical(v) for v in views}) == len({canonical(v) for v in views}) == 13


def test_a_graph_with_a_cycle_is_refined() -> None:
    """Two decisions that lead to each other (no game's graph does that today; a move that
    spends nothing would): the one-pass order finds no first node and the refinement decides."""
    def node(after: list[int], actions: list[int]) -> Node:
        return Node(None, 0, actions, after, {})
    graph = ChoiceGraph("p", nodes=[node([1, 2], [0, 1]), node([2], [0]), node([1], [0]), node([CUT], [0])])
    assert choicegraph._children_first(graph, 4) is None
    assert choicegraph._classes(graph, 4) == choicegraph._classes_refined(graph, 4) == [0, 1, 2, 3]
    assert choicegraph._children_first(graph, 1) == [0]
