"""Stable discs: discs that no sequence of moves can flip, for the solver's stability cut-offs.

A lower bound on the opponent's stable discs bounds the side to move's final score from above:
it can end with at most 64 - s discs, so its score is at most 64 - 2 s (the empties go to the
winner, so the two sides' counts still add up to 64). The search uses this to cut a node whose
window lies above that bound without searching it (Edax's stability cut-off).

The count is a safe under-estimate (Edax's `get_stability`):
- the edges, exactly as an 8-square line: a disc on an edge can only be flipped along that edge,
  so a table over every (own, other) edge pattern gives the discs that no sequence of placements
  on the edge's empty squares (by either side, legal or not) can flip;
- a disc on a full row, column and both diagonals (nothing left to place on them);
- repeatedly, a disc that in each of the 4 directions either lies on a full line or touches a disc
  already known stable of its own colour (a flip along that line would have to flip the neighbour).
"""

import numpy as np
from numba import njit

from alphazero.othello.bits import ZERO, popcount

_FILE_A = 0x0101010101010101
_PACK_FILE = 0x0102040810204080  # (x & file a) * this >> 56: the a-file's 8 bits in one byte
CENTRAL = np.uint64(0x007E7E7E7E7E7E00)
_ROW_STARTS = np.uint64(_FILE_A)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)
_S16 = np.uint64(16)
_S32 = np.uint64(32)
_S56 = np.uint64(56)
_U_FILE_A = np.uint64(_FILE_A)
_U_PACK = np.uint64(_PACK_FILE)
_U_FF = np.uint64(0xFF)


def _edge_line_stability() -> np.ndarray:
    """uint8[256, 256]: for an 8-square line with own discs `p` and other discs `o` (disjoint),
    the own discs that stay own whatever is placed on the empty squares, in any order."""
    memo: dict[tuple[int, int], int] = {}

    def place(mover: int, other: int, x: int) -> tuple[int, int]:
        """`mover` places on x and flips the brackets along the line; returns (mover, other)."""
        bit = 1 << x
        mover |= bit
        for step in (-1, 1):
            y = x + step
            run = 0
            while 0 <= y < 8 and other >> y & 1:
                run |= 1 << y
                y += step
            if run and 0 <= y < 8 and mover >> y & 1:
                mover |= run
                other &= ~run
        return mover, other

    def stable(p: int, o: int) -> int:
        key = (p, o)
        if key in memo:
            return memo[key]
        result = p
        empty = ~(p | o) & 0xFF
        for x in range(8):
            if not result:
                break
            if empty >> x & 1:
                new_p, new_o = place(p, o, x)
                result &= stable(new_p, new_o)
                new_o, new_p = place(o, p, x)
                result &= stable(new_p, new_o)
        memo[key] = result
        return result

    table = np.zeros((256, 256), dtype=np.uint8)
    for p in range(256):
        for o in range(256):
            if p & o == 0:
                table[p, o] = stable(p, o)
    return table


def _file_unpack_table() -> np.ndarray:
    """uint64[256]: the a-file squares of a byte packed by `_pack_file_a` (its inverse)."""
    table = np.zeros(256, dtype=np.uint64)
    for packed in range(256):
        bits = 0
        for row in range(8):
            square = 8 * row
            if ((1 << square) * _PACK_FILE & (1 << 64) - 1) >> 56 & packed:
                bits |= 1 << square
        table[packed] = bits
    return table


def _diagonal_masks() -> tuple[np.ndarray, np.ndarray]:
    """The diagonals (a1-h8 direction) and anti-diagonals that hold a central square."""
    down, up = [], []
    for start in range(-5, 6):  # col - row = start: lengths 3..8 hold a central square
        down.append(sum(1 << (r * 8 + r + start) for r in range(8) if 0 <= r + start < 8))
    for total in range(2, 13):  # col + row = total
        up.append(sum(1 << (r * 8 + total - r) for r in range(8) if 0 <= total - r < 8))
    return np.array(down, dtype=np.uint64), np.array(up, dtype=np.uint64)


EDGE_STABLE = _edge_line_stability()
FILE_UNPACK = _file_unpack_table()
DIAGONALS_9, DIAGONALS_7 = _diagonal_masks()


@njit(cache=True, inline="always", _nrt=False)
def _pack_file_a(bits):
    return ((bits & _U_FILE_A) * _U_PACK) >> _S56


@njit(cache=True, _nrt=False)
def stable_edges(player, opponent):
    """Own discs on the four edges that no move can flip (from the line table)."""
    stable = np.uint64(EDGE_STABLE[player & _U_FF, opponent & _U_FF])
    stable |= np.uint64(EDGE_STABLE[player >> _S56, opponent >> _S56]) << _S56
    stable |= FILE_UNPACK[EDGE_STABLE[_pack_file_a(player), _pack_file_a(opponent)]]
    stable |= FILE_UNPACK[EDGE_STABLE[_pack_file_a(player >> _S7), _pack_file_a(opponent >> _S7)]] << _S7
    return stable


@njit(cache=True, inline="always", _nrt=False)
def _full_rows(filled):
    rows = filled & (filled >> _S4)
    rows &= rows >> _S2
    rows &= rows >> _S1
    return (rows & _ROW_STARTS) * _U_FF


@njit(cache=True, inline="always", _nrt=False)
def _full_columns(filled):
    cols = filled & (filled >> _S8)
    cols &= cols >> _S16
    cols &= cols >> _S32
    return (cols & _U_FF) * _U_FILE_A


@njit(cache=True, inline="always", _nrt=False)
def _full_diagonals(filled, masks):
    full = ZERO
    for i in range(masks.shape[0]):
        if filled & masks[i] == masks[i]:
            full |= masks[i]
    return full


@njit(cache=True, _nrt=False)
def stable_discs(player, opponent):
    """A subset of `player`'s discs that can never be flipped (see the module doc)."""
    filled = player | opponent
    central = player & CENTRAL
    full_h = _full_rows(filled)
    full_v = _full_columns(filled)
    full_d9 = _full_diagonals(filled, DIAGONALS_9)
    full_d7 = _full_diagonals(filled, DIAGONALS_7)
    stable = stable_edges(player, opponent) | (full_h & full_v & full_d7 & full_d9 & central)
    if stable == ZERO:
        return stable
    while True:
        old = stable
        along_h = (stable >> _S1) | (stable << _S1) | full_h
        along_v = (stable >> _S8) | (stable << _S8) | full_v
        along_d7 = (stable >> _S7) | (stable << _S7) | full_d7
        along_d9 = (stable >> _S9) | (stable << _S9) | full_d9
        stable |= along_h & along_v & along_d7 & along_d9 & central
        if stable == old:
            return stable


@njit(cache=True, _nrt=False)
def stable_count(player, opponent):
    return popcount(stable_discs(player, opponent))
