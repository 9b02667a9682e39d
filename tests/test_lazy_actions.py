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


class _Counted(list):
    """A part that counts how often its length is asked."""

    asked = 0

    def __len__(self) -> int:
        _Counted.asked += 1
        return super().__len__()


class _MadeWhenRead(Chain):
    """A chain whose parts are made when first read (as Space Attack's hand tiles' plays)."""

    def __init__(self) -> None:
        super().__init__(())
        self.made = False

    @property
    def parts(self) -> list:
        if not self.made:
            self._parts, self.made = [[{"t": 1}], Pairs([1], ["x", "y"], lambda n, s: {"n": n, "s": s})], True
        return self._parts


def test_a_chain_asks_each_part_its_length_once_and_reads_parts_made_when_read():
    """Every index read in any order: the same actions, each part's length asked once (a chain
    remembers them); a chain whose parts are made when read gives them by index before its length
    was asked, and inside another chain."""
    _Counted.asked = 0
    parts = [_Counted([{"a": k} for k in range(3)]), _Counted(), _Counted([{"b": 1}]), _Counted([{"c": 1}, {"c": 2}])]
    chain, listed = Chain(parts), [a for part in parts for a in part]
    for k in (4, 0, 5, 3, 1, 2):
        assert chain[k] == listed[k]
    assert _Counted.asked == len(parts) and len(chain) == 6 and _Counted.asked == len(parts)
    with pytest.raises(IndexError):
        chain[6]
    assert _MadeWhenRead()[2] == {"n": 1, "s": "y"}
    outer = Chain([[{"done": True}], _MadeWhenRead()])
    assert outer[1] == {"t": 1} and outer[3] == {"n": 1, "s": "y"} and len(outer) == 4
