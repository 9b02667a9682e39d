"""The e-mail policy pbem reads and writes mail with: the standard library's ``email.policy.default``,
whose header registry makes each header's class once, parses each header value once, and folds
each parsed header once per line length and line ending, instead of at every header read or write.

* ``HeaderRegistry.__getitem__`` builds a new class (``type(...)``) every time a header is read
  (``msg["Subject"]``) or folded for sending: about 40 microseconds, most of a header read, and
  tens of thousands of them in a fetch of a few hundred messages.  The classes it builds for one
  header kind are all alike, so one made per kind does the same (a bounded set: the registry's
  classes, never one per header name a stranger writes).
* The ``email`` package keeps a parsed message's headers as the text it read and parses a value
  again at every read: ``get_content_type()``, ``get_param()``, ``get_filename()``, ``walk()``
  and ``is_attachment()`` each parse the part's Content-Type or Content-Disposition anew, and
  composing a message sets and reads the same few values over and over.  The registry keeps the
  header objects it made last from plain strings (:class:`ParsedHeaders`), by (name, value):
  the same name and text always parse to the same header, and a header object is never changed
  once made (``email`` replaces a header, it never edits one), so the kept one serves every
  later read.  What is kept is bounded by its text, :data:`KEPT_CHARS` characters in all, the
  least recently read going first; a value longer than :data:`LONGEST_KEPT` is parsed every
  time, as before.  A parse tree takes up to about 2.4 KB a character (an address list of
  one-letter addresses), so a stranger's message can make the registry hold about 10 MB at most.
* A header object folds (for writing) to the same text every time for the same line length,
  ``utf8`` setting and line ending: the three settings of a policy folding reads.  Each header
  keeps its folds by those three; the message's bytes are the same.

One thing in a parse tree does change after parsing: reading a MIME header's parameters
(``MimeParameters.params``, at parse and at each fold) notes a duplicated parameter's defect in
that parameter's token again at each reading.  Nothing pbem or ``email`` writes or reports depends
on those notes (the header's own ``defects`` are taken before the first reading; folding looks
only for undecodable bytes among a token's defects), and with the folds kept a kept header's
parameters are read at most once per fold setting (tests/test_mail_policy.py compares values,
defects, folds and message bytes with ``email.policy.default``'s).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from email.headerregistry import BaseHeader, HeaderRegistry
from email.policy import default
from typing import Any

__all__ = ["KEPT_CHARS", "LONGEST_KEPT", "MAIL_POLICY", "ParsedHeaders"]

#: the parsed header values the registry keeps, counted in characters of their text (each at least
#: :data:`SHORTEST_COUNTED`)
KEPT_CHARS = 4096
#: the longest header value (characters, unfolded) the registry keeps parsed
LONGEST_KEPT = 256
#: what the shortest value counts for (so at most KEPT_CHARS / SHORTEST_COUNTED values are kept)
SHORTEST_COUNTED = 16


class FoldedOnceHeader(BaseHeader):
    """The headers' base class: each header folds once per (line length, utf8, line ending)."""

    def fold(self, *, policy: Any) -> str:
        key = (policy.max_line_length, policy.utf8, policy.linesep)
        folds: dict[tuple[Any, ...], str] | None = self.__dict__.get("_folds")
        if folds is None:
            folds = self.__dict__["_folds"] = {}
        folded = folds.get(key)
        if folded is None:
            folded = folds[key] = super().fold(policy=policy)
        return folded


class ParsedHeaders:
    """The header objects made last, by (name, value), least recently read first; at most
    ``limit`` characters of values in all (each value counting at least :data:`SHORTEST_COUNTED`)."""

    def __init__(self, limit: int = KEPT_CHARS) -> None:
        self.limit = limit
        self.chars = 0
        self._kept: OrderedDict[tuple[str, str], BaseHeader] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: tuple[str, str]) -> BaseHeader | None:
        with self._lock:
            header = self._kept.get(key)
            if header is not None:
                self._kept.move_to_end(key)
            return header

    def put(self, key: tuple[str, str], header: BaseHeader) -> None:
        with self._lock:
            if key in self._kept:
                return
            self._kept[key] = header
            self.chars += max(SHORTEST_COUNTED, len(key[1]))
            while self.chars > self.limit:
                (_name, value), _header = self._kept.popitem(last=False)
                self.chars -= max(SHORTEST_COUNTED, len(value))


class _HeaderClassesOnce(HeaderRegistry):
    """A :class:`HeaderRegistry` that keeps the class it makes for each header kind, and the
    header objects it made last."""

    def __init__(self) -> None:
        super().__init__(base_class=FoldedOnceHeader)
        self._made: dict[type, type[BaseHeader]] = {}
        self.parsed = ParsedHeaders()

    def __getitem__(self, name: str) -> type[BaseHeader]:
        kind = self.registry.get(name.lower(), self.default_class)
        made = self._made.get(kind)
        if made is None:     # as HeaderRegistry.__getitem__ makes it
            made = self._made[kind] = type("_" + kind.__name__, (kind, self.base_class), {})
        return made

    def __call__(self, name: str, value: Any) -> BaseHeader:
        """The header ``name`` with ``value``, as :meth:`HeaderRegistry.__call__` makes it; a
        plain string value of at most :data:`LONGEST_KEPT` characters is parsed once."""
        if type(value) is not str or type(name) is not str or len(value) > LONGEST_KEPT:
            return self[name](name, value)
        key = (name, value)
        header = self.parsed.get(key)
        if header is None:     # (one the parser refuses raises here each time, as before)
            header = self[name](name, value)
            self.parsed.put(key, header)
        return header

    def __reduce__(self) -> tuple[type[_HeaderClassesOnce], tuple[()]]:
        """Pickled (a message sent to a worker process) as a new registry: the classes it made are
        not importable by name, so they are made again there."""
        return _HeaderClassesOnce, ()


MAIL_POLICY = default.clone(header_factory=_HeaderClassesOnce())
