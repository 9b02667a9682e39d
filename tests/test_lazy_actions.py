"""The core's lazy action sequences (pbem.core.choices) read as the lists they stand for: every
index, negative index and slice, and an index past the end refused as a list refuses it."""
from __future__ import annotations

import pytest

from pbem.core.choices import Chain, Pairs


class _Unasked(list):
    """A part whose length must not be asked (a part made only when read)."""

    def __len__(self) -> int:
        raise AssertionError("the length of a later part was asked")


def _chain() -> tuple[Chain, list]:
    parts = [[{"a": 1}, {"a": 2}], Pairs([1, 2], ["x", "y", "z"], lambda n, s: {"n": n, "s": s}), [], [{"done": True}]]
    return Chain(parts), [a for part in parts for a in part]


def test_a_chain_reads_as_its_list():
    chain, listed = _chain()
    assert len(chain) == len(listed) == 9 and list(chain) == listed
    for k in range(-len(listed), len(listed)):
        assert chain[k] == listed[k], k
    for s in (slice(None), slice(1, 7), slice(None, None, -2), slice(-3, None), slice(20, 30)):
        assert chain[s] == listed[s], s
    for k in (len(listed), -len(listed) - 1):
        with pytest.raises(IndexError):
            chain[k]


def test_an_index_in_an_early_part_asks_no_later_part_its_length():
    chain = Chain([[{"a": 1}, {"a": 2}], _Unasked([{"b": 1}])])
    assert chain[1] == {"a": 2}
