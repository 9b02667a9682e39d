"""pbem's own YAML limits fire before any parser's (pbem/base/yamlscan.py), whichever PyYAML is installed.

libyaml (PyYAML 6.0.4) stops at 1000 nested collections with a message of its own, and reads
that far ahead before it hands over one event; so pbem counts depth, nodes and anchors on the
raw text first.  Checked here with both parsers, at exactly the limit (accepted) and one over
(refused with pbem's line and its line number), in flow and block style; and the pre-scan's
depth and node count against the parser's events on hand-made and generated documents.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.base import yamlio, yamlscan

PARSERS = pytest.mark.parametrize("pure", [False, True], ids=["libyaml", "pure-python"])
CORPUS = Path(__file__).parent / "hostile" / "corpus"
DEPTH = yamlio.MOVE_LIMITS.max_depth
NODES = yamlio.MOVE_LIMITS.max_nodes


def events(text: str) -> tuple[int, int]:
    """The parser's own depth and node count (libyaml's events, no limits of pbem's)."""
    depth = deepest = nodes = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            nodes += 1
            deepest = max(deepest, depth)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
    return deepest, nodes


def line_too_deep(text: str, limit: int) -> int:
    """The line (1-based) where the parser opens its first collection deeper than ``limit``."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > limit:
                return event.start_mark.line + 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    raise AssertionError("never deeper than the limit")


# --- documents n levels deep, in each style ----------------------------------------------------

def flow_lists(n: int) -> str:
    return "[" * n + "x" + "]" * n + "\n"


def flow_maps(n: int) -> str:
    return "{a: " * n + "x" + "}" * n + "\n"


def block_maps(n: int) -> str:
    return "".join("  " * i + f"k{i}:\n" for i in range(n - 1)) + "  " * (n - 1) + "last: x\n"


def block_lists(n: int) -> str:
    return "".join("  " * i + "-\n" for i in range(n - 1)) + "  " * (n - 1) + "- x\n"


def compact_lists(n: int) -> str:
    return "- " * n + "x\n"


def move_like(n: int) -> str:
    """A move file whose action is nested n levels deep in all (mapping, actions, action, lists)."""
    return ("format: pbem-move/1\ngame: g\nplayer: red\nafter: 0\nactions:\n  - {draw: "
            + "[" * (n - 3) + "x" + "]" * (n - 3) + "}\n")


def indentless(n: int) -> str:
    """Mappings whose lists sit at their key's column (as PyYAML writes them): n levels."""
    lines, indent = [], 0
    for level in range(0, n - 1, 2):
        lines.append(" " * indent + f"k{level}:")
        if level + 2 <= n - 1:
            lines.append(" " * indent + "- m: 1")
            indent += 2
        else:
            lines.append(" " * indent + "- x")
            break
    else:
        lines.append(" " * indent + "last: x")
    return "\n".join(lines) + "\n"


STYLES = {"flow lists": flow_lists, "flow mappings": flow_maps, "block mappings": block_maps,
          "block lists": block_lists, "compact lists": compact_lists, "move file": move_like,
          "lists at their key's column": indentless}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_the_styles_are_as_deep_as_they_say(style: str) -> None:
    for n in (DEPTH, DEPTH + 1, 30):
        text = STYLES[style](n)
        assert events(text)[0] == n, (style, n, text)
        assert yamlscan.measure(text).depth == n, (style, n, text)


@PARSERS
@pytest.mark.parametrize("style", sorted(STYLES))
def test_exactly_at_the_depth_limit_is_read_and_one_over_is_refused_by_the_pre_scan(style: str, pure: bool) -> None:
    at, over = STYLES[style](DEPTH), STYLES[style](DEPTH + 1)
    assert yamlio.load_strict(at, "move file", pure=pure) == yaml.safe_load(at)
    with pytest.raises(yamlscan.Refusal) as pre:
        yamlscan.prescan(over, DEPTH, NODES)          # pbem's own scan refuses it, before any parser
    with pytest.raises(yamlio.YamlError) as caught:
        yamlio.load_strict(over, "move file", pure=pure)
    assert pre.value.line == line_too_deep(over, DEPTH)
    assert str(caught.value) == f"move file at line {pre.value.line}: nested more than {DEPTH} levels deep"


@PARSERS
@pytest.mark.parametrize("style", sorted(STYLES))
def test_the_event_scan_behind_it_still_refuses_one_level_too_deep(style: str, pure: bool,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlio, "prescan", lambda *_args: None)     # the second line of defence alone
    with pytest.raises(yamlio.YamlError, match=f"nested more than {DEPTH} levels deep"):
        yamlio.load_strict(STYLES[style](DEPTH + 1), "move file", pure=pure)


@PARSERS
@pytest.mark.parametrize(("text", "line"), [
    ("[" * 5000, 1),
    ("{a: " * 3000 + "x" + "}" * 3000, 1),
    ("[{a: " * 1000 + "x" + "}]" * 1000, 1),
    ("- " * 1500 + "x\n", 1),
    ("".join(" " * i + f"k{i}:\n" for i in range(300)) + "x\n", DEPTH + 1),
    ("format: pbem-move/1\n# [[[ a comment is not nesting\nactions: " + "[" * 1200 + "\n", 3),
    ("# a comment ended by a YAML line break\u2028" + "[" * 1200, 2),
    ("a: 1\r\nb: " + "[" * 1200, 2),
], ids=["brackets", "braces", "mixed", "compact lists", "block mappings", "after a comment", "u2028", "crlf"])
def test_thousands_deep_get_pbems_line_not_the_parsers(text: str, line: int, pure: bool) -> None:
    with pytest.raises(yamlio.YamlError) as caught:
        yamlio.load_strict(text, "move file", pure=pure)
    assert str(caught.value) == f"move file at line {line}: nested more than {DEPTH} levels deep"


@PARSERS
def test_a_log_entry_indented_past_libyamls_own_limit_gets_pbems_line(pure: bool) -> None:
    deep = yamlio.LOG_ENTRY_LIMITS.max_depth
    text = "".join(" " * i + f"k{i}:\n" for i in range(1100)) + "x\n"     # 600 KB, 1100 levels
    with pytest.raises(yamlio.YamlError) as caught:
        yamlio.load_log_entry(text, pure=pure)
    assert str(caught.value) == f"log entry at line {deep + 1}: nested more than {deep} levels deep"


@PARSERS
def test_log_entries_have_their_own_depth_limit(pure: bool) -> None:
    deep = yamlio.LOG_ENTRY_LIMITS.max_depth
    assert yamlio.load_log_entry(flow_maps(deep), pure=pure) == yaml.safe_load(flow_maps(deep))
    with pytest.raises(yamlio.YamlError, match=f"nested more than {deep} levels deep"):
        yamlio.load_log_entry(block_maps(deep + 1), pure=pure)


# --- node counts --------------------------------------------------------------------------------

def many_flow(values: int) -> str:
    return "x: [" + ", ".join(["1"] * values) + "]\n"        # mapping, key, list: 3 nodes more


def many_block(values: int) -> str:
    return "x:\n" + "- 1\n" * values


@PARSERS
@pytest.mark.parametrize("make", [many_flow, many_block], ids=["flow", "block"])
def test_exactly_at_the_node_limit_is_read_and_one_over_is_refused(make: Any, pure: bool) -> None:
    at, over = make(NODES - 3), make(NODES - 2)
    assert events(at)[1] == NODES and events(over)[1] == NODES + 1
    assert yamlio.load_strict(at, pure=pure) == {"x": [1] * (NODES - 3)}
    with pytest.raises(yamlscan.Refusal, match=f"more than {NODES} values"):
        yamlscan.prescan(over, DEPTH, NODES)
    with pytest.raises(yamlio.YamlError, match=f"more than {NODES} values"):
        yamlio.load_strict(over, pure=pure)


# --- anchors and aliases ---------------------------------------------------------------------------

@PARSERS
@pytest.mark.parametrize("text", ["a: &x 1\nb: *x\n", "- &x [1]\n", "a: [1, *x]\n", "? &k a\n: b\n",
                                  "a: {b: &c d}\n", "a: !t &x 1\n", "- - *x\n"])
def test_anchor_and_alias_tokens_are_refused_by_the_pre_scan(text: str, pure: bool) -> None:
    with pytest.raises(yamlscan.Refusal, match="anchors and aliases"):
        yamlscan.prescan(text, DEPTH, NODES)
    with pytest.raises(yamlio.YamlError, match="anchors and aliases"):
        yamlio.load_strict(text, pure=pure)


@PARSERS
@pytest.mark.parametrize("text", ["a: x&y\n", "a: 2*3\n", "a: [b*c, d&e]\n", "a: fish & chips\n",
                                  "a: '&x'\n", "a: \"*x\"\n", "a: |\n  &x *y\n", "a: 1 # &x *y\n"])
def test_ampersands_and_stars_inside_values_are_text(text: str, pure: bool) -> None:
    assert yamlio.load_strict(text, pure=pure) == yaml.safe_load(text)


# --- the pre-scan against the parser --------------------------------------------------------------

TRICKY = [
    "a: |\n  - - - [[[ {{{ &x *y\n  more: text\nb: 1\n",          # a block scalar's lines are text
    "a: >-\n    folded [ text\n\n    more\nb: [1]\n",
    "a: plain text that\n  goes on - like [ this\n  and # not a comment\nb: 2\n",
    "a: 'quoted [ over\n  two lines'\nb: \"and [ {\\\" here\"\n",
    "a: [1, [2,\n  3], {b: c,\n  d: [e]}]\n",
    "a:\n- b\n- c:\n  - d\n  - e\nf: g\n",
    "- a: 1\n  b:\n  - c\n  - - d\n    - e\n- f\n",
    "? a\n: b\n? [c]\n: d\n",
    "---\na: [1]\n...\n--- [[2]]\n",
    "a:   # a comment [ with { brackets\n  b: c  # and here ]\n",
    "'a b': {c: d}\n\"e\": [f]\n",
    "a: [b, c]  # trailing\nd: -x\n",
    "url: http://example.org/a#b\nratio: 1:2\nlist: [a:b, c]\n",
    "a:\n  -\n    - x\n  -\n    y: z\n",
    "key with spaces: value, with? no colon\n",
    "a: [\t1,\t2 ]\n",
    "- [a, b]: c\n",
    "\ufeffa: [1]\n",
    "a: 1\r\nb:\r\n  - [2]\r\n",
    "",
    "# only a comment\n",
    "just text\n",
    "[]\n",
    "{a: [], b: {}}\n",
]


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_the_pre_scan_is_as_deep_as_the_parser_and_counts_no_more_nodes(text: str) -> None:
    try:
        depth, nodes = events(text)
    except yaml.YAMLError:
        pytest.fail(f"not YAML: {text!r}")
    shape = yamlscan.measure(text)
    assert shape.depth == depth, text
    assert shape.nodes <= nodes, text
    if yamlscan.surely_within(yamlscan._normalised(text), depth, nodes):
        assert shape.depth <= depth and shape.nodes <= nodes


SCALARS = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab -:#[]{},&*!|>'\"?%@`\t\n\\\u00e9\u2028.0123")), max_size=12),
    st.integers(-10**6, 10**6), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False))
KEYS = st.text(alphabet=st.sampled_from(list("abc -:#[]{}&*'\"?.0")), min_size=0, max_size=6)
DATA = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
                    max_leaves=25)


DUMPERS = {
    "block": lambda data: yaml.safe_dump(data, default_flow_style=False, allow_unicode=True, width=30),
    "flow": lambda data: yaml.safe_dump(data, default_flow_style=True, allow_unicode=True, width=30),
    "mixed, indent 4": lambda data: yaml.safe_dump(data, default_flow_style=None, indent=4, width=30),
    "canonical": lambda data: yaml.safe_dump(data, canonical=True),
    "pbem's dump": yamlio.dump,
    "pbem's dump_flow": yamlio.dump_flow,
}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=DATA, dumper=st.sampled_from(sorted(DUMPERS)))
def test_on_generated_documents_the_pre_scan_counts_what_the_parser_does(data: Any, dumper: str) -> None:
    text = DUMPERS[dumper](data)
    depth, nodes = events(text)
    shape = yamlscan.measure(text)
    assert (shape.depth, shape.nodes) == (depth, nodes), text
    for limit_depth, limit_nodes in ((depth, nodes), (depth - 1, nodes), (depth, nodes - 1)):
        if yamlscan.surely_within(yamlscan._normalised(text), limit_depth, limit_nodes):
            assert depth <= limit_depth and nodes <= limit_nodes, (limit_depth, limit_nodes, text)


def mutants(count: int) -> Iterator[str]:
    """Hand-made and corpus documents with a few characters inserted, dropped or repeated (seeded)."""
    rng = random.Random(20261126)
    seeds = TRICKY + [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.glob("*.yaml"))]
    alphabet = list(" \n-:?[]{},#&*!|>'\"\t.ab0")
    for _ in range(count):
        text = rng.choice(seeds)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(text) + 1)
            roll = rng.random()
            if roll < 0.4:
                text = text[:i] + rng.choice(alphabet) + text[i:]
            elif roll < 0.7:
                text = text[:i] + text[i + 1:]
            else:
                j = rng.randrange(len(text) + 1)
                text = text[:i] + text[min(i, j):max(i, j)] + text[i:]
        if len(text) <= 3000 and "\ufeff" not in text:
            yield text


def test_on_mutated_documents_the_pre_scan_is_never_deeper_and_the_quick_bound_holds() -> None:
    """Of some 20,000 mutants, the few thousand the parser reads: the pre-scan's depth is the
    parser's (less only where a collection is a key, which pbem refuses anyway) and its node
    count no more; and the quick bound never calls a document within limits it is not within."""
    read = 0
    for text in mutants(20_000):
        try:
            depth, nodes = events(text)
        except yaml.YAMLError:
            continue
        read += 1
        try:
            shape = yamlscan.measure(text)
        except yamlscan.Refusal as refusal:
            assert "anchors" in refusal.why, text
            continue
        assert shape.depth <= depth and shape.nodes <= nodes, (text, shape, depth, nodes)
        if shape.depth < depth:
            assert "]:" in text or "}:" in text, (text, shape, depth)
        for limit_depth, limit_nodes in ((depth - 1, nodes + 10), (depth + 10, nodes - 1)):
            assert not yamlscan.surely_within(yamlscan._normalised(text), limit_depth, limit_nodes), text
    assert read > 2000


@settings(max_examples=100, deadline=None)
@given(data=DATA)
def test_documents_with_a_shared_value_are_refused_for_their_anchor(data: Any) -> None:
    shared = [data, "x"]
    text = yaml.safe_dump({"a": shared, "b": shared}, default_flow_style=None)
    assert "&" in text
    with pytest.raises(yamlscan.Refusal, match="anchors"):
        yamlscan.measure(text)
    assert not yamlscan.surely_within(text, 100, 10**6)
