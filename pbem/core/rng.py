"""Seeded randomness: every random draw is derived from the secret game seed.

Derivation (docs/randomness.md has the normative text):

    block(label, i) = HMAC-SHA256(key=seed, msg=b"pbem-rng/v1" || 0x00 || utf8(label) || 0x00 || u64be(i))

An :class:`Rng` for a label reads blocks i = 0, 1, 2, ... as one byte stream.
``randbelow(n)`` takes the next 8 bytes as a big-endian unsigned integer x and
rejects it while x >= floor(2**64 / n) * n, then returns x mod n (unbiased).
``shuffle`` is Fisher-Yates from the last index down: for i = len-1 .. 1,
j = randbelow(i + 1), swap items i and j.

The engine gives each log entry its own label ``"<game-id>/<entry-index>"``,
so a draw depends only on the seed and the place in the log.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import MutableSequence, Sequence, TypeVar

T = TypeVar("T")

DOMAIN = b"pbem-rng/v1"
COMMIT_DOMAIN = b"pbem-seed-commitment/v1"


class NeedsSecret(Exception):
    """The step needs a hidden value or a die roll that only the moderator has."""


def seed_commitment(seed: bytes) -> str:
    """Public commitment to the seed: hex SHA-256 of the domain string and the seed."""
    return hashlib.sha256(COMMIT_DOMAIN + b"\x00" + seed).hexdigest()


def derive_key(seed: bytes, purpose: str) -> bytes:
    """A 32-byte key for a purpose other than draws (e.g. salting state hashes)."""
    return hmac.new(seed, b"pbem-key/v1\x00" + purpose.encode(), hashlib.sha256).digest()


class Rng:
    """A deterministic, unbiased random source for one label."""

    def __init__(self, seed: bytes | None, label: str) -> None:
        self._seed = seed
        self.label = label
        self._message = b""     # DOMAIN 0 label 0, the block number follows (made at the first draw)
        self._block = 0
        self._buf = b""         # the stream read so far (the part from _pos on not used yet)
        self._pos = 0
        self.draws: list[tuple[str, int, int]] = []   # (what, n, result), for audit traces

    @classmethod
    def unavailable(cls, why: str = "this step needs the moderator's secret seed") -> "Rng":
        rng = cls(None, "unavailable")
        rng._why = why  # type: ignore[attr-defined]
        return rng

    def _bytes(self, count: int) -> bytes:
        if self._seed is None:
            raise NeedsSecret(getattr(self, "_why", "no seed"))
        if not self._message:
            self._message = DOMAIN + b"\x00" + self.label.encode() + b"\x00"
        while len(self._buf) - self._pos < count:
            block = hmac.digest(self._seed, self._message + self._block.to_bytes(8, "big"), "sha256")
            self._buf, self._pos = self._buf[self._pos:] + block, 0      # (hmac.digest: one C call)
            self._block += 1
        out = self._buf[self._pos:self._pos + count]
        self._pos += count
        return out

    def randbelow(self, n: int, what: str = "") -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("randbelow needs n >= 1")
        limit = (2**64 // n) * n
        while True:
            pos = self._pos
            if len(self._buf) - pos >= 8:      # (the next 8 bytes are in the block read: :meth:`_bytes` at once)
                self._pos = pos + 8
                x = int.from_bytes(self._buf[pos:pos + 8], "big")
            else:
                x = int.from_bytes(self._bytes(8), "big")
            if x < limit:
                result = x % n
                self.draws.append((what, n, result))
                return result

    def choice(self, items: Sequence[T], what: str = "") -> T:
        return items[self.randbelow(len(items), what)]

    def shuffle(self, items: MutableSequence[T], what: str = "") -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1, what)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T], what: str = "") -> list[T]:
        out = list(items)
        self.shuffle(out, what)
        return out
