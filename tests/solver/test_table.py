"""The transposition table's arrays: one block of memory, each slot's key beside its bounds, and
the store/probe/clear rules the search relies on."""

import numpy as np
import pytest
from numba import njit

from alphazero.solver import table


def test_keys_and_values_of_a_slot_share_one_row_of_memory():
    keys, values = table.allocate(10)
    assert keys.shape == (1 << 10, 2) and values.shape == (1 << 10, 3)
    assert np.may_share_memory(keys, values)  # interleaved: the same block, no byte in common
    # a slot's values sit right after its key: bytes 16-18 of a 24-byte row
    offset = values.ctypes.data - keys.ctypes.data
    assert offset == 16 and keys.strides == (8 * table.SLOT_WORDS, 8) and values.strides == (8 * table.SLOT_WORDS, 1)
    assert (values[:, table.LOWER] == table.SCORE_MIN).all() and (values[:, table.UPPER] == table.SCORE_MAX).all()
    assert (values[:, table.MOVE] == table.NO_MOVE).all() and not keys.any()


def test_store_probe_and_clear_touch_only_their_own_slot():
    keys, values = table.allocate(8)
    player, opponent = np.uint64(0x0000001008000000), np.uint64(0x0000000810000000)
    index = table.slot(keys, player, opponent)
    neighbours = [(index - 1) % keys.shape[0], (index + 1) % keys.shape[0]]
    before = [(keys[i].copy(), values[i].copy()) for i in neighbours]
    table.store(keys, values, index, player, opponent, -10, 20, 19)
    table.store(keys, values, index, player, opponent, -4, 30, 26)  # the same position: bounds intersect
    assert table.matches(keys, index, player, opponent)
    assert list(values[index]) == [-4, 20, 26]
    for i, (k, v) in zip(neighbours, before):
        assert (keys[i] == k).all() and (values[i] == v).all()
    table.clear(keys, values)
    assert not table.matches(keys, index, player, opponent)
    assert list(values[index]) == [table.SCORE_MIN, table.SCORE_MAX, table.NO_MOVE]


@pytest.mark.parametrize("bits", [7, 29])
def test_sizes_outside_the_range_are_refused(bits):
    with pytest.raises(ValueError, match="8..28"):
        table.allocate(bits)


@njit
def _prefetch_then_probe(keys, player, opponent):
    index = table.slot(keys, player, opponent)
    table.prefetch(keys, index)
    return table.matches(keys, index, player, opponent)


def test_prefetch_compiles_to_a_prefetch_instruction_and_changes_nothing():
    keys, values = table.allocate(10)
    player, opponent = np.uint64(0x0000000810000000), np.uint64(0x0000001008000000)
    assert not _prefetch_then_probe(keys, player, opponent)
    table.store(keys, values, table.slot(keys, player, opponent), player, opponent, -4, 6, 19)
    assert _prefetch_then_probe(keys, player, opponent)
    assert "prefetch" in _prefetch_then_probe.inspect_asm(_prefetch_then_probe.signatures[0])
