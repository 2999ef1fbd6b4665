"""Transposition table of the endgame solver: fixed-size numpy arrays, passed into the kernels.

An entry holds bounds on the exact final disc difference of a position (side to move's view),
so it stays true forever: any window, WLD or exact, may use it, and a table can be kept across
searches and positions. Slots are direct-mapped by a multiplicative hash of both bitboards and
always replaced (the newest search is the one most likely to revisit its own positions).

Arrays (`size` a power of two), both strided views into one uint64[size, SLOT_WORDS] array, so
that a slot's key and bounds lie side by side in memory (one cache miss a probe, where two
separate arrays cost two: 2.6% less CPU on FForum #20-#39 with a 2^22 table, 4.6% with 2^18,
experiments/endgame-solver-67 "The table in one array"):
    keys:   uint64[size, 2]   (player, opponent) of the stored position; (0, 0) = empty slot
    values: int8[size, 3]     lower bound, upper bound, best move (NO_MOVE if none known), bytes
                              16-18 of the slot
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from alphazero.othello.bits import ZERO

LOWER = 0
UPPER = 1
MOVE = 2
NO_MOVE = -1
# Scores lie in [-64, 64], so +-64 are bounds that say nothing.
SCORE_MIN = -64
SCORE_MAX = 64

_K1 = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio: Fibonacci hashing
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
_S31 = np.uint64(31)


SLOT_WORDS = 3  # 24 bytes a slot: the 16-byte key, 3 bytes of values, padding


def allocate(bits: int = 20):
    """(keys, values) of an empty table with 2**bits slots (2**20 slots = 24 MiB)."""
    if not 8 <= bits <= 28:
        raise ValueError(f"transposition table bits must be in 8..28, got {bits}")
    size = 1 << bits
    slots = np.zeros((size, SLOT_WORDS), dtype=np.uint64)
    keys = slots[:, :2]
    values = slots.view(np.int8).reshape(size, 8 * SLOT_WORDS)[:, 16:19]
    values[:, LOWER] = SCORE_MIN
    values[:, UPPER] = SCORE_MAX
    values[:, MOVE] = NO_MOVE
    return keys, values


def clear(keys, values):
    keys[:] = 0
    values[:, LOWER] = SCORE_MIN
    values[:, UPPER] = SCORE_MAX
    values[:, MOVE] = NO_MOVE


@njit(cache=True, inline="always", _nrt=False)
def slot(keys, player, opponent):
    """Index of the slot of (player, opponent): both boards multiplied by odd constants, mixed."""
    h = player * _K1 ^ opponent * _K2
    h ^= h >> _S31
    return np.int64(h & np.uint64(keys.shape[0] - 1))


@njit(cache=True, inline="always", _nrt=False)
def matches(keys, index, player, opponent):
    return keys[index, 0] == player and keys[index, 1] == opponent and (player | opponent) != ZERO


@njit(cache=True, inline="always", _nrt=False)
def store(keys, values, index, player, opponent, lower, upper, move):
    """Write bounds for (player, opponent); bounds already known for the same position are kept
    where tighter (both are true bounds, so their intersection is too)."""
    if keys[index, 0] == player and keys[index, 1] == opponent:
        if values[index, LOWER] > lower:
            lower = values[index, LOWER]
        if values[index, UPPER] < upper:
            upper = values[index, UPPER]
    else:
        keys[index, 0] = player
        keys[index, 1] = opponent
    values[index, LOWER] = lower
    values[index, UPPER] = upper
    values[index, MOVE] = move


@intrinsic
def prefetch(typingctx, keys, index):
    """Start loading slot `index`'s cache line (LLVM's prefetch: a read, kept in every cache
    level) and go on: a probe made soon after finds it there. A hint only: it changes no value,
    and numba offers no such call of its own."""
    signature = types.void(keys, types.int64)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, array,
                                           [args[1], context.get_constant(types.intp, 0)])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        llvm_prefetch = cgutils.get_or_insert_function(
            # the unmangled name: LLVM's reader upgrades it to its pointer type's (p0i8 or p0)
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch")
        builder.call(llvm_prefetch, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return signature, codegen
