"""The files `pbem git sync` keeps between syncs in the moderator's private folder (derived data:
:mod:`~pbem.transport.git.history`, :mod:`~pbem.transport.git.hashcache`).

A kept file is the SHA-256 of its body (hex), a newline, and the body (JSON).  It is written whole
or not at all (:func:`write_atomic`, no fsync: losing it costs time only); one that is missing,
too big, damaged or altered without its digest reads as None, and the caller starts afresh.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pbem.base.fsutil import write_atomic


def read_kept(path: Path, max_bytes: int) -> Any:
    """The body of a kept file, or None."""
    try:
        if path.stat().st_size > max_bytes:
            return None
        head, _, body = path.read_bytes().partition(b"\n")
        if head.decode("ascii") != hashlib.sha256(body).hexdigest():
            return None
        return json.loads(body)
    except (OSError, ValueError):
        return None


def write_kept(path: Path, body: Any) -> bool:
    """Keep ``body``; False if it could not be written (nothing else changes)."""
    data = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    try:
        write_atomic(path, hashlib.sha256(data).hexdigest().encode() + b"\n" + data, durable=False)
    except OSError:
        return False
    return True
