"""Strict, bounded YAML in; deterministic YAML out.

Reading anything a stranger may have written (a move file, a position, a
sealed action, a settings file, even a log copied from somewhere) goes through
:func:`load_strict` or :func:`load_log_entry`.  Hard limits (:class:`Limits`)
are checked three times before any Python object is built: its size on the
raw bytes; then its nesting depth, node count and any anchor or alias (the
"billion laughs") by pbem's own lexical pre-scan of the text
(:mod:`pbem.base.yamlscan`), before any parser reads it, so that pbem's one line
comes first whatever limits the installed PyYAML or libyaml has of its own;
then, as a second line of defence, the parser's events are scanned for the
same limits, the length of each scalar and explicit tags (``!!python/...``,
``!!binary``, ``!!set``).  Then it is built with a loader
that refuses duplicate keys (PyYAML silently keeps the last one) and keys that
are not text.  Every failure is one :class:`YamlError` line with the line
number; no attacker text is echoed beyond a short escaped excerpt.

Two schemas:

* **move** (:func:`load_strict`): YAML as people type it.  Only ``true``/
  ``false`` are booleans, integers are decimal, ``null``/``~``/empty are null,
  and everything else is text (``on``, ``no``, ``010``, ``1.5`` and
  ``2024-01-01`` stay text).  The values are text, integers, booleans, null,
  lists and mappings with text keys.
* **log** (:func:`load_log_entry`): the YAML our own dumper writes (PyYAML's
  YAML 1.1 safe schema, so that a float such as ``hours: 48.0`` reads back).

A text read once is remembered (bounded: :data:`MEMO_TEXTS` texts of at most
:data:`MEMO_CHARS` characters) as the compact JSON of what it gave, and a caller that gives the
same text again gets new objects equal to the first; a refused text, or data JSON would not give
back equal, is never remembered (a refused text is read afresh, so that its message names what the
caller reads).

The C parser (libyaml) is used where PyYAML has it; the pure-Python parser
gives the same results (a test compares them) and is the fallback.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

import yaml

from pbem.base.errors import PbemError, excerpt
from pbem.base.yamlscan import ANCHORS, Refusal, prescan

try:
    from yaml.cyaml import CParser as _Parser  # type: ignore[attr-defined]
    from yaml.cyaml import CSafeDumper as _BaseDumper
    HAVE_LIBYAML = True
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeDumper as _BaseDumper  # type: ignore[assignment]
    from yaml.parser import Parser as _Parser  # type: ignore[assignment]
    HAVE_LIBYAML = False


class YamlError(PbemError):
    """One-line description of a YAML problem, with the line number."""


@dataclass(frozen=True)
class Limits:
    """Hard caps on an untrusted YAML document, checked before any object is built."""

    max_bytes: int = 64 * 1024
    max_depth: int = 12          # nested collections
    max_nodes: int = 4096        # scalars + collections
    max_scalar: int = 16 * 1024  # characters in one scalar (a sealed action's armour fits)


MOVE_LIMITS = Limits()
POSITION_LIMITS = Limits(max_bytes=1024 * 1024, max_depth=16, max_nodes=200_000, max_scalar=64 * 1024)
LOG_ENTRY_LIMITS = Limits(max_bytes=8 * 1024 * 1024, max_depth=24, max_nodes=2_000_000, max_scalar=1024 * 1024)
SETTINGS_LIMITS = Limits(max_bytes=256 * 1024, max_depth=8, max_nodes=20_000, max_scalar=16 * 1024)
#: digits in one integer of the move schema (Python refuses to read more than 4300 anyway)
MAX_DIGITS = 100


# --- writing ---------------------------------------------------------------------

_BOOL, _INT, _NULL, _STR = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                            "tag:yaml.org,2002:null", "tag:yaml.org,2002:str")
_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
#: the longest scalar whose implicit tag is remembered (:func:`_scalar_tag`)
RESOLVED_CHARS = 256


class _Dumper(_BaseDumper):
    """Safe dumper that writes multi-line strings (signatures) as literal blocks.

    Text, integers, booleans and null (most of what pbem writes) become their nodes directly:
    what the safe representer makes of them (the same tag, value and style: never an alias), without
    its per-value look-ups.  The implicit tag of a short scalar is remembered
    (:func:`_scalar_tag`): the emitter asks it of every scalar, twice."""

    def represent_data(self, data: Any) -> yaml.Node:
        kind = type(data)
        if kind is str:
            return yaml.ScalarNode(_STR, data, style="|" if "\n" in data else None)
        if kind is int:
            return yaml.ScalarNode(_INT, str(data))
        if kind is bool:
            return yaml.ScalarNode(_BOOL, "true" if data else "false")
        if data is None:
            return yaml.ScalarNode(_NULL, "null")
        if (kind is dict or kind is list) and not self.sort_keys and self.default_flow_style is not None:
            return self._collection(data)
        return super().represent_data(data)

    def _collection(self, data: dict[Any, Any] | list[Any]) -> yaml.Node:
        """What the safe representer makes of a dict or a list: an object met again is the same
        node (an alias in the text), its items' nodes in order, the dumper's flow style."""
        ident = id(data)
        if ident in self.represented_objects:
            return self.represented_objects[ident]
        self.object_keeper.append(data)
        node: yaml.Node
        if type(data) is dict:
            pairs: list[tuple[yaml.Node, yaml.Node]] = []
            node = yaml.MappingNode(_MAP, pairs, flow_style=self.default_flow_style)
            self.represented_objects[ident] = node
            for key, value in data.items():
                pairs.append((self.represent_data(key), self.represent_data(value)))
        else:
            items: list[yaml.Node] = []
            node = yaml.SequenceNode(_SEQ, items, flow_style=self.default_flow_style)
            self.represented_objects[ident] = node
            for item in data:
                items.append(self.represent_data(item))
        return node

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and type(implicit) is tuple:
            if not implicit[0]:
                return self.DEFAULT_SCALAR_TAG      # what the resolver gives (it has no path resolvers)
            if len(value) <= RESOLVED_CHARS:
                return _scalar_tag(value, implicit)
        return super().resolve(kind, value, implicit)


@lru_cache(maxsize=4096)
def _scalar_tag(value: str, implicit: tuple[bool, bool]) -> str:
    """The tag the safe dumper's resolver gives a scalar (a pure function of the value and
    ``implicit``: its tables are fixed when this module is read; no path resolvers)."""
    return cast(str, yaml.resolver.Resolver.resolve(_RESOLVER, yaml.ScalarNode, value, implicit))


_RESOLVER = yaml.resolver.Resolver()


def dump(obj: Any) -> str:
    """Deterministic block-style YAML."""
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def dump_flow(obj: Any) -> str:
    """One-line flow-style YAML for an action or event, e.g. ``{move: r7, to: G5}``."""
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=True, width=10**6).strip()


# --- the two schemas ----------------------------------------------------------------

class _MoveResolver(yaml.resolver.BaseResolver):
    """YAML 1.2 core-schema booleans and decimal integers, null; everything else is text."""


_MoveResolver.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_MoveResolver.add_implicit_resolver(_INT, re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
_MoveResolver.add_implicit_resolver(_NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])


class _Constructor(yaml.constructor.SafeConstructor):
    """Safe construction; mappings refuse duplicate keys and keys that are not text."""

    def construct_strict_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        if not isinstance(node, yaml.MappingNode):  # pragma: no cover - the composer guarantees it
            raise YamlError("expected a mapping")
        out: dict[str, Any] = {}
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR:
                raise YamlError(f"line {line}: a key must be plain text, not a list, mapping, number or null")
            key = self.construct_scalar(key_node)
            if key in seen:
                raise YamlError(f"duplicate key {excerpt(key)} at line {line} (first at line {seen[key]}); "
                                "write each key once")
            seen[key] = line
            out[key] = self.construct_object(value_node, deep=True)
        return out

    def construct_decimal_int(self, node: yaml.ScalarNode) -> int:
        text = self.construct_scalar(node)
        if len(text.lstrip("+-")) > MAX_DIGITS:
            raise YamlError(f"line {node.start_mark.line + 1}: a number with more than {MAX_DIGITS} digits; "
                            "no value in a move is that big")
        return int(text, 10)


class _MoveConstructor(_Constructor):
    pass


_MoveConstructor.yaml_constructors = {
    _STR: yaml.constructor.SafeConstructor.construct_yaml_str,
    _INT: _Constructor.construct_decimal_int,
    _BOOL: yaml.constructor.SafeConstructor.construct_yaml_bool,
    _NULL: yaml.constructor.SafeConstructor.construct_yaml_null,
    _SEQ: yaml.constructor.SafeConstructor.construct_yaml_seq,
    _MAP: _Constructor.construct_strict_mapping,
    None: yaml.constructor.SafeConstructor.construct_undefined,
}


class _LogConstructor(_Constructor):
    pass


_LogConstructor.yaml_constructors = {
    **_MoveConstructor.yaml_constructors,
    _INT: yaml.constructor.SafeConstructor.construct_yaml_int,
    "tag:yaml.org,2002:float": yaml.constructor.SafeConstructor.construct_yaml_float,
}


def _c_loader(constructor: Any, resolver: Any) -> type:
    """A loader on libyaml's parser and composer with our constructor and resolver."""
    def __init__(self: Any, stream: str) -> None:
        _Parser.__init__(self, stream)
        constructor.__init__(self)
        resolver.__init__(self)
    return type(f"C{constructor.__name__}", (_Parser, constructor, resolver), {"__init__": __init__})


def _pure_loader(constructor: Any, resolver: Any) -> type:
    """The same loader on PyYAML's pure-Python reader, scanner, parser and composer."""
    def __init__(self: Any, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        constructor.__init__(self)
        resolver.__init__(self)
    bases = (yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
             constructor, resolver)
    return type(f"Pure{constructor.__name__}", bases, {"__init__": __init__})


_SCHEMAS = {"move": (_MoveConstructor, _MoveResolver), "log": (_LogConstructor, yaml.resolver.Resolver)}
_LOADERS: dict[tuple[str, bool], type] = {}
for _schema, (_constructor, _resolver) in _SCHEMAS.items():
    _LOADERS[(_schema, True)] = _pure_loader(_constructor, _resolver)
    if HAVE_LIBYAML:
        _LOADERS[(_schema, False)] = _c_loader(_constructor, _resolver)


# --- the bounded scan ---------------------------------------------------------------

_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _scan(text: str, limits: Limits, pure: bool) -> None:
    """Walk the parser's events and refuse what the limits forbid (no objects are built)."""
    loader = _LOADERS[("move", pure)](text)
    depth = nodes = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise Refusal(_line(event), ANCHORS)
            tag = getattr(event, "tag", None)
            if tag is not None and not isinstance(event, yaml.DocumentStartEvent):
                short = tag.replace("tag:yaml.org,2002:", "!!")
                raise Refusal(_line(event), f"tags such as {excerpt(short, 30)} are not allowed")
            if isinstance(event, _OPEN):
                depth += 1
                nodes += 1
                if depth > limits.max_depth:
                    raise Refusal(_line(event), f"nested more than {limits.max_depth} levels deep")
            elif isinstance(event, _CLOSE):
                depth -= 1
            elif isinstance(event, yaml.ScalarEvent):
                nodes += 1
                if len(event.value) > limits.max_scalar:
                    raise Refusal(_line(event), f"a value longer than {limits.max_scalar} characters")
            if nodes > limits.max_nodes:
                raise Refusal(_line(event), f"more than {limits.max_nodes} values")
    finally:
        loader.dispose()


def _line(event: yaml.Event) -> int:
    return event.start_mark.line + 1 if event.start_mark else 0


#: the longest text whose reading is remembered (a log entry or a move file is 1-2 KB), and how
#: many texts are (at most about 2,048 x 8 KiB of text and as much JSON: some 32 MB)
MEMO_CHARS = 8 * 1024
MEMO_TEXTS = 2048


def _load(text: str | bytes, what: str, limits: Limits, schema: str, pure: bool) -> Any:
    """What :func:`_read` gives, a text read before given again as new objects (:func:`_read_json`);
    a text that is refused is read afresh (its message names ``what``)."""
    if len(text) > MEMO_CHARS:
        return _read(text, what, limits, schema, pure)
    try:
        return json.loads(_read_json(text, limits, schema, pure))
    except _NotKept as fresh:
        return fresh.data
    except YamlError:
        return _read(text, what, limits, schema, pure)


class _NotKept(Exception):
    """What a text gave, when JSON would not give it back equal: handed to the caller, not remembered
    (``lru_cache`` keeps no exception), so that it is not read twice."""

    def __init__(self, data: Any) -> None:
        super().__init__("not kept")
        self.data = data


@lru_cache(maxsize=MEMO_TEXTS)
def _read_json(text: str | bytes, limits: Limits, schema: str, pure: bool) -> str:
    """What :func:`_read` gives for ``text`` as compact JSON (:class:`_NotKept` when JSON would not
    give the data back equal; :class:`YamlError` when it refuses the text).  A pure function of its
    arguments, remembered: a process that reads a text again (the audit of a game this process
    played, a move file read when it is taken and again by the audit) gets it without parsing it twice."""
    data = _read(text, "text", limits, schema, pure)
    try:
        kept = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        raise _NotKept(data) from None
    if json.loads(kept) != data:
        raise _NotKept(data)
    return kept


def _read(text: str | bytes, what: str, limits: Limits, schema: str, pure: bool) -> Any:
    size = len(text.encode("utf-8")) if isinstance(text, str) else len(text)
    if size > limits.max_bytes:
        raise YamlError(f"{what} is {size} bytes; the limit is {limits.max_bytes}")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise YamlError(f"{what} is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if "\u00a0" in text:
        for number, line in enumerate(text.splitlines()[:10_000], 1):
            indent = line[: len(line) - len(line.lstrip(" \t\u00a0"))]
            if "\u00a0" in indent:
                raise YamlError(f"{what} at line {number} is indented with non-breaking spaces (a mail program "
                                "does this); use ordinary spaces, or send the file as an attachment")
    try:
        prescan(text, limits.max_depth, limits.max_nodes)   # pbem's limits first, on the text itself
        _scan(text, limits, pure)                           # and again on the parser's events
        loader = _LOADERS[(schema, pure)](text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except Refusal as exc:
        raise YamlError(f"{what} at line {exc.line}: {exc.why}") from None
    except YamlError as exc:
        raise YamlError(f"malformed YAML in {what}: {exc}") from None
    except yaml.reader.ReaderError as exc:
        raise YamlError(f"{what} holds a character YAML does not allow (code {exc.character:#x}) at "
                        f"character {exc.position}; remove it") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        context = ""
        if exc.context and exc.context_mark and exc.context_mark is not mark:
            context = f" ({exc.context} started at line {exc.context_mark.line + 1})"
        problem = str(exc.problem or exc.context or "cannot be read")
        raise YamlError(f"malformed YAML in {what}{line}: {problem}{context}") from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        raise YamlError(f"malformed YAML in {what}: {exc.__class__.__name__}") from None


def load_strict(text: str | bytes, what: str = "file", limits: Limits = MOVE_LIMITS,
                pure: bool = not HAVE_LIBYAML) -> Any:
    """Parse untrusted YAML in the move schema (a move file, a position, a sealed action)."""
    return _load(text, what, limits, "move", pure)


def load_log_entry(text: str | bytes, what: str = "log entry", limits: Limits = LOG_ENTRY_LIMITS,
                   pure: bool = not HAVE_LIBYAML) -> Any:
    """Parse one log entry (the schema our dumper writes), with the same limits and refusals."""
    return _load(text, what, limits, "log", pure)
