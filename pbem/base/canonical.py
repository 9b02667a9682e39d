"""Canonical bytes and hashes of plain data (what the log chains and what audit re-checks).

canonical(obj) = UTF-8 of json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""
from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def data_hash(obj: Any) -> str:
    """Hex SHA-256 of the canonical bytes of ``obj``."""
    return sha256_hex(canonical(obj))


def keyed_hash(key: bytes, obj: Any) -> str:
    """Hex HMAC-SHA256 of the canonical bytes: a hash nobody can brute-force without the key."""
    return hmac.new(key, canonical(obj), hashlib.sha256).hexdigest()
