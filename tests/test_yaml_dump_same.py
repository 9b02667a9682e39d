"""pbem's YAML dumper builds the nodes of text, integers, booleans, null, dicts and lists itself and
remembers short scalars' implicit tags (pbem.base.yamlio._Dumper): what it writes is byte for byte
what PyYAML's own safe representer and resolver write, for every kind of value and for both
`dump` and `dump_flow`, and what it refuses it still refuses."""
from __future__ import annotations

import random
from typing import Any

import pytest
import yaml

from pbem.base import yamlio


class _Plain(yamlio._BaseDumper):       # type: ignore[misc,valid-type]
    """The dumper as it was: PyYAML's safe representer and resolver, text as literal blocks."""


def _literal_blocks(dumper: Any, value: str) -> yaml.ScalarNode:
    """The text representer pbem's dumper had: a text with a line break as a literal block."""
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Plain.add_representer(str, _literal_blocks)


def plain_dump(obj: Any, flow: bool) -> str:
    if flow:
        return yaml.dump(obj, Dumper=_Plain, sort_keys=False, allow_unicode=True, default_flow_style=True,
                         width=10**6).strip()
    return yaml.dump(obj, Dumper=_Plain, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=100)


SCALARS = ["", "a", "yes", "No", "on", "null", "~", "true", "False", "1", "-7", "0x1f", "017", "1_000", "1.5", ".inf",
           "1:20", "2024-01-01", "=", "<<", "a b", " lead", "trail ", "#x", "a: b", "- x", "[x]", "{x}", "'q'", '"q"',
           "multi\nline", "multi\nline\n", "tab\there", "é", "😀", "\x7f", "x" * 300, "1" * 300, "\n", "*a", "&a",
           0, 1, -1, 2**70, True, False, None, 0.0, -0.0, 1.5, 1e300, 1e-7, float("inf"), float("-inf"), 3.0]


def random_value(rng: random.Random, shared: list[Any], depth: int = 0) -> Any:
    pick = rng.random()
    if depth > 4 or pick < 0.4:
        return rng.choice(SCALARS)
    if pick < 0.45 and shared:
        return rng.choice(shared)             # the same object again: an anchor and an alias
    if pick < 0.7:
        value: Any = {str(rng.choice(SCALARS)): random_value(rng, shared, depth + 1) for _ in range(rng.randrange(4))}
    elif pick < 0.9:
        value = [random_value(rng, shared, depth + 1) for _ in range(rng.randrange(4))]
    else:
        value = tuple(random_value(rng, shared, depth + 1) for _ in range(rng.randrange(3)))
    shared.append(value)
    return value


def outcome(dump: Any, obj: Any) -> str:
    try:
        return dump(obj)
    except yaml.representer.RepresenterError as exc:
        return f"refused: {exc}"


@pytest.mark.parametrize("flow", [False, True], ids=["block", "flow"])
def test_the_dumper_writes_what_the_safe_representer_writes(flow: bool) -> None:
    dump = yamlio.dump_flow if flow else yamlio.dump
    for scalar in SCALARS:
        assert dump(scalar) == plain_dump(scalar, flow), scalar
        assert dump({"k": scalar, "l": [scalar]}) == plain_dump({"k": scalar, "l": [scalar]}, flow), scalar
    rng = random.Random(31)
    for _ in range(3000):
        obj = random_value(rng, [])
        assert dump(obj) == plain_dump(obj, flow), obj


def test_the_dumper_has_no_path_resolvers() -> None:
    """The tags the dumper remembers and the default tag it gives a non-implicit scalar are the
    resolver's answers only while no path resolver is added (PyYAML's path resolvers depend on where
    a node is)."""
    assert not yamlio._Dumper.yaml_path_resolvers


class Text(str):
    pass


class Number(int):
    pass


@pytest.mark.parametrize("odd", [Text("x"), Number(3), {"a": Text("x")}, [Number(1)], {1: "a"}, {"a": {1, 2}}],
                         ids=["str-subclass", "int-subclass", "nested-str-subclass", "nested-int-subclass",
                              "int-key", "set"])
def test_what_the_safe_representer_refuses_or_writes_is_unchanged(odd: Any) -> None:
    for flow in (False, True):
        dump = yamlio.dump_flow if flow else yamlio.dump
        assert outcome(dump, odd) == outcome(lambda o: plain_dump(o, flow), odd)
