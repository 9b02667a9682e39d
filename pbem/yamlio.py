"""Strict YAML in, deterministic YAML out.

Reading rejects duplicate keys (PyYAML silently keeps the last one) and
reports the line of a syntax error.  Writing is deterministic: block style,
keys in insertion order, no aliases, unicode kept.
"""
from __future__ import annotations

import re
from typing import Any

import yaml

try:
    from yaml import CSafeDumper as _BaseDumper
    from yaml import CSafeLoader as _FastLoader
except ImportError:  # pragma: no cover
    from yaml import SafeDumper as _BaseDumper  # type: ignore[assignment]
    from yaml import SafeLoader as _FastLoader  # type: ignore[assignment]


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """Safe dumper that writes multi-line strings (signatures) as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


class YamlError(ValueError):
    """One-line description of a YAML problem, with the line number."""


class _StrictLoader(yaml.SafeLoader):
    """YAML as people type it: only true/false are booleans and integers are decimal.

    YAML 1.1 (PyYAML's default) reads `on`, `no`, `yes` and `off` as booleans and
    `010` as 8; in a move file `{place: r7, on: G5}` would lose its key.  This
    loader follows YAML 1.2's core schema for those two types instead.
    """


_BOOL, _INT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int"
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _INT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_StrictLoader.add_implicit_resolver(_INT, re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
_StrictLoader.add_constructor(_INT, lambda loader, node: int(loader.construct_scalar(node), 10))


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise YamlError(
                f"duplicate key {key!r} at line {key_node.start_mark.line + 1} "
                f"(first at line {seen[key]}); write each key once")
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_strict(text: str | bytes, what: str = "file") -> Any:
    """Parse untrusted YAML (a move file, a position file)."""
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except YamlError as exc:
        raise YamlError(f"malformed YAML in {what}: {exc}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        context = ""
        if exc.context and exc.context_mark and exc.context_mark is not mark:
            context = f" ({exc.context} started at line {exc.context_mark.line + 1})"
        raise YamlError(f"malformed YAML in {what}{line}: {exc.problem or exc.context}{context}") from None
    except yaml.YAMLError as exc:
        raise YamlError(f"malformed YAML in {what}: {exc}") from None


def load_trusted(text: str | bytes) -> Any:
    """Parse YAML we wrote ourselves (fast C loader)."""
    return yaml.load(text, Loader=_FastLoader)


def dump(obj: Any) -> str:
    """Deterministic block-style YAML."""
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def dump_flow(obj: Any) -> str:
    """One-line flow-style YAML for an action or event, e.g. ``{move: r7, to: G5}``."""
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=True, width=10**6).strip()
