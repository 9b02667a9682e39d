"""The e-mail policy pbem reads and writes mail with: the standard library's ``email.policy.default``,
whose header registry makes each header's class once instead of at every header read or write.

``HeaderRegistry.__getitem__`` builds a new class (``type(...)``) every time a header is read
(``msg["Subject"]``) or folded for sending: about 40 microseconds, most of a header read, and
tens of thousands of them in a fetch of a few hundred messages.  The classes it builds for one
header kind are all alike, so one made per kind does the same (a bounded set: the registry's
classes, never one per header name a stranger writes); what is parsed and written is byte for
byte the same.
"""
from __future__ import annotations

from email.headerregistry import BaseHeader, HeaderRegistry
from email.policy import default

__all__ = ["MAIL_POLICY"]


class _HeaderClassesOnce(HeaderRegistry):
    """A :class:`HeaderRegistry` that keeps the class it makes for each header kind."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[type, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        kind = self.registry.get(name.lower(), self.default_class)
        made = self._made.get(kind)
        if made is None:     # as HeaderRegistry.__getitem__ makes it
            made = self._made[kind] = type("_" + kind.__name__, (kind, self.base_class), {})
        return made

    def __reduce__(self) -> tuple[type[_HeaderClassesOnce], tuple[()]]:
        """Pickled (a message sent to a worker process) as a new registry: the classes it made are
        not importable by name, so they are made again there."""
        return _HeaderClassesOnce, ()


MAIL_POLICY = default.clone(header_factory=_HeaderClassesOnce())
