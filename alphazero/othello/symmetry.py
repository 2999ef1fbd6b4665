"""The 8 symmetries of the board (the dihedral group D4) on bitboards and on actions.

Symmetry `s` in 0..7 is built from three involutions applied in this order: transpose
((row, col) -> (col, row)) if s & 4, then flip vertically (row -> 7 - row) if s & 2, then mirror
horizontally (col -> 7 - col) if s & 1. Symmetry 0 is the identity. The pass action (64) is fixed
by every symmetry. `INVERSE[s]` undoes `s`; `COMPOSE[a, b]` is "b after a".
"""

import numpy as np
from numba import njit

NUM_SYMMETRIES = 8
PASS = 64


# Bit tricks from the Chess Programming Wiki, on our row-major layout (a1 = bit 0, row 1 = byte 0):
# flipping rows is a byte swap; mirroring columns swaps bits within each byte; the transpose is
# the classic three-step delta swap along the a1-h8 diagonal.
@njit(cache=True, inline="always")
def flip_vertical(bits):
    bits = ((bits >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((bits & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    bits = ((bits >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((bits & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    return (bits >> np.uint64(32)) | (bits << np.uint64(32))


@njit(cache=True, inline="always")
def mirror_horizontal(bits):
    bits = ((bits >> np.uint64(1)) & np.uint64(0x5555555555555555)) | ((bits & np.uint64(0x5555555555555555)) << np.uint64(1))
    bits = ((bits >> np.uint64(2)) & np.uint64(0x3333333333333333)) | ((bits & np.uint64(0x3333333333333333)) << np.uint64(2))
    return ((bits >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | ((bits & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))


@njit(cache=True, inline="always")
def transpose(bits):
    t = np.uint64(0x0F0F0F0F00000000) & (bits ^ (bits << np.uint64(28)))
    bits ^= t ^ (t >> np.uint64(28))
    t = np.uint64(0x3333000033330000) & (bits ^ (bits << np.uint64(14)))
    bits ^= t ^ (t >> np.uint64(14))
    t = np.uint64(0x5500550055005500) & (bits ^ (bits << np.uint64(7)))
    bits ^= t ^ (t >> np.uint64(7))
    return bits


@njit(cache=True)
def transform_bitboard(bits, symmetry):
    if symmetry & 4:
        bits = transpose(bits)
    if symmetry & 2:
        bits = flip_vertical(bits)
    if symmetry & 1:
        bits = mirror_horizontal(bits)
    return bits


def _square_map(symmetry):
    out = np.empty(65, dtype=np.int64)
    for square in range(64):
        row, col = divmod(square, 8)
        if symmetry & 4:
            row, col = col, row
        if symmetry & 2:
            row = 7 - row
        if symmetry & 1:
            col = 7 - col
        out[square] = row * 8 + col
    out[PASS] = PASS
    return out


# ACTION_MAP[s, a]: the image of action a under symmetry s.
ACTION_MAP = np.stack([_square_map(s) for s in range(NUM_SYMMETRIES)])
INVERSE = np.array(
    [next(t for t in range(8) if (ACTION_MAP[t][ACTION_MAP[s]] == np.arange(65)).all()) for s in range(8)],
    dtype=np.int64,
)
COMPOSE = np.array(
    [[next(c for c in range(8) if (ACTION_MAP[c] == ACTION_MAP[b][ACTION_MAP[a]]).all()) for b in range(8)] for a in range(8)],
    dtype=np.int64,
)


@njit(cache=True)
def transform_action(action, symmetry):
    return ACTION_MAP[symmetry, action]


@njit(cache=True)
def transform_positions(positions, symmetries):
    """Apply symmetries[i] to both bitboards of positions[i] (uint64[B, 2])."""
    out = np.empty_like(positions)
    for i in range(positions.shape[0]):
        out[i, 0] = transform_bitboard(positions[i, 0], symmetries[i])
        out[i, 1] = transform_bitboard(positions[i, 1], symmetries[i])
    return out


def transform_policy(policy, symmetry):
    """Move a [..., 65] array of per-action values along with the board: out[..., s(a)] = in[..., a]."""
    out = np.empty_like(policy)
    out[..., ACTION_MAP[symmetry]] = policy
    return out
