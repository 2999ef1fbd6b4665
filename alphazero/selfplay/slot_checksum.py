"""A checksum that tells a complete shared-memory slot from one caught half-written.

The inference server and its workers share slots without locks (see `inference_server`): a writer
fills a slot, then bumps a sequence number that the reader polls. On x86 a store is never seen
before an earlier one, so "sequence number new" implied "data new". A weakly ordered CPU (aarch64,
say a Grace-Hopper node serving the GPU) makes no such promise: the reader can see the new number
with old or half-new data, and numpy gives us no memory fence to forbid it. So the writer also
stores a checksum of the data *and* the sequence number and size it belongs to, and the reader
accepts a slot only when the checksum of what it copied matches: stale or torn data, a checksum
of an older request, or a number seen before its data all fail the comparison, and the reader
simply looks again on its next pass.

The sum is a Fletcher-like pair over 32-bit words (a = sum of words, b = sum of i * word, both
mod 2**64; reductions that LLVM vectorises, so checking an answer costs a few microseconds per
hundred positions), finished with a multiply-xorshift mix that folds in the sequence number and
the size. It guards against reordering and tearing, not against an adversary.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def _sums(words):
    """(sum of w_i, sum of (i + 1) * w_i) over uint32 words, each mod 2**64."""
    a = np.uint64(0)
    b = np.uint64(0)
    for i in range(words.size):
        w = np.uint64(words[i])
        a += w
        b += np.uint64(i + 1) * w
    return a, b


@njit(cache=True)
def _mix(h):
    """splitmix64's finaliser: every input bit moves about half the output bits."""
    h ^= h >> np.uint64(30)
    h *= _MIX_1
    h ^= h >> np.uint64(27)
    h *= _MIX_2
    h ^= h >> np.uint64(31)
    return h


@njit(cache=True)
def _checksum(first, second, sequence, size):
    a1, b1 = _sums(first)
    a2, b2 = _sums(second)
    h = _mix(np.uint64(sequence) ^ _MIX_1)
    for part in (np.uint64(size), a1, b1, a2, b2):
        h = _mix(h ^ part)
    return h


def _words(array: np.ndarray) -> np.ndarray:
    """A C-contiguous array's bytes as uint32 words (every slot array is 4 or 8 bytes wide)."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint32)


def slot_checksum(sequence: int, size: int, first: np.ndarray, second: np.ndarray | None = None) -> int:
    """The checksum of one slot's content: `first` (and `second`) as the reader copies them, for
    request or answer number `sequence` of `size` positions; an int64 for a header word."""
    other = _words(second) if second is not None else np.zeros(0, dtype=np.uint32)
    return int(np.uint64(_checksum(_words(first), other, np.int64(sequence), np.int64(size))).view(np.int64))
