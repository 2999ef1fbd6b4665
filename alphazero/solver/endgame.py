"""Exact endgame search kernels: fail-soft negamax alpha-beta to the end of the game.

Scores are final disc differences for the side to move with the empty squares given to the winner
(the WTHOR/FFO count), so they are even numbers in [-64, 64]. A window (alpha, beta) returns the
exact score when it lies strictly inside, else a bound on the same side (fail-soft). The win/loss/
draw search is the window (-1, 1): its result has the sign of the exact score.

Layers, from the root down (the standard endgame techniques of Edax and earlier solvers):
- `search_deep` (more than SHALLOW_EMPTIES empties): transposition table probe, moves sorted
  fastest-first (opponent's mobility after the move, corners counted twice; the table's move
  first), principal-variation search (null windows after the first move).
- `search_shallow`: no table, no sorting: moves in odd-parity quadrants first (playing into a
  region with an odd number of empties tends to keep the last move there).
- `_last3`, `_last2`, `_last1`: the last empties passed as squares, no move generation; the last
  one only counts the flips of the one possible move for either side.

Move lists are kept per number of empties in `workspace` arrays (a node and its children never
share an empties count, and a passing node does not iterate its own list), so the recursion
allocates nothing. Node counts accumulate in `nodes[0]`. The deep search also takes the pattern
evaluation's `weights` (`patterns.shipped_weights()`, or `zero_weights()` when the ordering does
not use them: `solver.SearchOptions.weights` picks).

Every kernel of the solver's modules (this one, `patterns`, `stability`, `table`) is compiled with
numba's reference counting off (`_nrt=False`): none allocates, and with it on every call of a
kernel that takes arrays (the table, the workspace, `params`, `nodes`, the weights) paid an
atomic increment and decrement per array that numba's pruning cannot remove across the
recursion: 37% of the solver's time on FForum #20-#39 by `perf` (experiments/endgame-solver-67,
"Numba's reference counting, and the table prefetched"). A kernel that allocates does not
compile that way; tests/solver/test_kernel_flags.py checks that every kernel has the flag.
"""

import numpy as np
from numba import njit

from alphazero.othello.bitboard import PASS, flips, flips_inlined, legal_moves
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount
from alphazero.solver import table as tt
from alphazero.solver.patterns import pattern_eval
from alphazero.solver.stability import stable_count

SHALLOW_EMPTIES = 7
MAX_MOVES = 40  # at most 33 legal moves in any Othello position
INFINITY = 65  # beyond every score
MAX_SCORE = 64  # a wipe-out: no score is higher, so a window above it (or below -64) is already decided
CORNERS = np.uint64(0x8100000000000081)
QUADRANTS = np.array(
    [0x000000000F0F0F0F, 0x00000000F0F0F0F0, 0x0F0F0F0F00000000, 0xF0F0F0F000000000], dtype=np.uint64
)
_S8 = np.uint64(8)
NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)


def allocate_workspace():
    """(squares int64[61, MAX_MOVES], keys int64[61, MAX_MOVES], move_flips uint64[61, 64]): a
    node's move list by its empties (squares best first, their sort keys; before the sort, ETC
    keeps its children's table slots in the keys row), and the discs each of its moves flips by
    square, computed once where the moves are first examined (ETC or the sort) and read again by
    the sort and the search. A child has fewer empties than its node (a pass
    leaves no move list behind), so the rows of the nodes on one path never overlap."""
    return (np.zeros((61, MAX_MOVES), dtype=np.int64), np.zeros((61, MAX_MOVES), dtype=np.int64),
            np.zeros((61, 64), dtype=np.uint64))


@njit(cache=True, inline="always", _nrt=False)
def terminal_score(player, opponent):
    """Final disc difference when neither side can move; empties go to the winner."""
    mine = popcount(player)
    theirs = popcount(opponent)
    diff = mine - theirs
    if diff > 0:
        return diff + (64 - mine - theirs)
    if diff < 0:
        return diff - (64 - mine - theirs)
    return np.int64(0)


@njit(cache=True, inline="always", _nrt=False)
def _last1(player, opponent, square, nodes):
    """Score with one empty square: count the flips of the only move, for us or else for them."""
    nodes[0] += 1
    flipped = popcount(flips(player, opponent, square))
    if flipped:
        return 2 * (popcount(player) + flipped + 1) - 64
    flipped = popcount(flips(opponent, player, square))
    if flipped:
        return 64 - 2 * (popcount(opponent) + flipped + 1)
    diff = popcount(player) - popcount(opponent)  # 63 discs: never a draw
    return diff + 1 if diff > 0 else diff - 1


@njit(cache=True, _nrt=False)
def _last2_moves(player, opponent, beta, sq1, sq2, nodes):
    """Best score over the side to move's moves with two empties; -INFINITY if it has none."""
    best = -INFINITY
    flipped = flips(player, opponent, sq1)
    if flipped:
        best = -_last1(opponent ^ flipped, player | flipped | (ONE << np.uint64(sq1)), sq2, nodes)
        if best >= beta:
            return best
    flipped = flips(player, opponent, sq2)
    if flipped:
        score = -_last1(opponent ^ flipped, player | flipped | (ONE << np.uint64(sq2)), sq1, nodes)
        if score > best:
            best = score
    return best


@njit(cache=True, _nrt=False)
def _last2(player, opponent, alpha, beta, sq1, sq2, nodes):
    # Passes are handled without recursion: numba's cache cannot reload these recursive kernels
    # (numba issue #6061, the cached code calls an unresolved symbol).
    nodes[0] += 1
    best = _last2_moves(player, opponent, beta, sq1, sq2, nodes)
    if best != -INFINITY:
        return best
    nodes[0] += 1
    best = _last2_moves(opponent, player, -alpha, sq1, sq2, nodes)
    if best != -INFINITY:
        return -best
    return terminal_score(player, opponent)


@njit(cache=True, inline="always", _nrt=False)
def _quadrant(square):
    return ((square >> 5) << 1) | ((square & 7) >> 2)


@njit(cache=True, _nrt=False)
def _last3_moves(player, opponent, alpha, beta, sq1, sq2, sq3, nodes):
    """Best score over the side to move's moves with three empties (parity-ordered by the
    caller); -INFINITY if it has none."""
    best = -INFINITY
    for k in range(3):
        if k == 0:
            square, other1, other2 = sq1, sq2, sq3
        elif k == 1:
            square, other1, other2 = sq2, sq1, sq3
        else:
            square, other1, other2 = sq3, sq1, sq2
        flipped = flips(player, opponent, square)
        if flipped:
            low = alpha if alpha > best else best
            score = -_last2(
                opponent ^ flipped, player | flipped | (ONE << np.uint64(square)), -beta, -low, other1, other2, nodes
            )
            if score > best:
                best = score
                if best >= beta:
                    return best
    return best


@njit(cache=True, _nrt=False)
def _last3(player, opponent, alpha, beta, sq1, sq2, sq3, nodes):
    nodes[0] += 1
    # Parity: the square alone in its quadrant first.
    q1, q2, q3 = _quadrant(sq1), _quadrant(sq2), _quadrant(sq3)
    if q1 == q2 and q1 != q3:
        sq1, sq3 = sq3, sq1
    elif q1 == q3 and q1 != q2:
        sq1, sq2 = sq2, sq1
    best = _last3_moves(player, opponent, alpha, beta, sq1, sq2, sq3, nodes)
    if best != -INFINITY:
        return best
    nodes[0] += 1
    best = _last3_moves(opponent, player, -beta, -alpha, sq1, sq2, sq3, nodes)
    if best != -INFINITY:
        return -best
    return terminal_score(player, opponent)


@njit(cache=True, _nrt=False)
def _odd_quadrants(empty):
    odd = ZERO
    for q in range(4):
        if popcount(empty & QUADRANTS[q]) & 1:
            odd |= QUADRANTS[q]
    return odd


@njit(cache=True, _nrt=False)
def search_shallow(player, opponent, alpha, beta, nodes):
    """Exact search of a position with few empties (any count <= SHALLOW_EMPTIES)."""
    empty = ~(player | opponent)
    n_empty = popcount(empty)
    if n_empty == 3:
        sq1 = lowest_bit_index(empty)
        rest = empty & (empty - ONE)
        sq2 = lowest_bit_index(rest)
        rest &= rest - ONE
        return _last3(player, opponent, alpha, beta, sq1, sq2, lowest_bit_index(rest), nodes)
    if n_empty == 2:
        sq1 = lowest_bit_index(empty)
        return _last2(player, opponent, alpha, beta, sq1, lowest_bit_index(empty & (empty - ONE)), nodes)
    if n_empty == 1:
        return _last1(player, opponent, lowest_bit_index(empty), nodes)
    if alpha >= MAX_SCORE:  # nothing can exceed a wipe-out: fail low at once
        return MAX_SCORE
    if beta <= -MAX_SCORE:
        return -MAX_SCORE
    nodes[0] += 1
    if n_empty == 0:
        return terminal_score(player, opponent)
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return terminal_score(player, opponent)
        return -search_shallow(opponent, player, -beta, -alpha, nodes)
    odd = _odd_quadrants(empty)
    best = -INFINITY
    for phase in range(2):
        group = moves & odd if phase == 0 else moves & ~odd
        while group:
            square = lowest_bit_index(group)
            group &= group - ONE
            flipped = flips(player, opponent, square)
            low = alpha if alpha > best else best
            score = -search_shallow(opponent ^ flipped, player | flipped | (ONE << np.uint64(square)), -beta, -low, nodes)
            if score > best:
                best = score
                if best >= beta or best == MAX_SCORE:
                    return best
    return best


@njit(cache=True, inline="always", _nrt=False)
def _neighbours(bits):
    """Squares adjacent (8 directions) to any square of `bits`, without wrapping around the files."""
    west = (bits >> ONE) & NOT_FILE_H
    east = (bits << ONE) & NOT_FILE_A
    row = bits | west | east
    return (row | (row << _S8) | (row >> _S8)) & ~bits


@njit(cache=True, _nrt=False)
def _sort_moves(player, opponent, moves, hash_move, squares, keys, move_flips, row):
    """Fill squares[row, :n] with the moves, fastest-first, and move_flips[row] with their flips;
    returns n."""
    n = 0
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = flips(player, opponent, square)
        move_flips[row, square] = flipped
        mine = player | flipped | (ONE << np.uint64(square))
        reply = legal_moves(opponent ^ flipped, mine)
        # Fastest-first: the opponent's mobility (corners count twice), then its potential
        # mobility (empty squares next to our discs) to break ties.
        key = (popcount(reply) + popcount(reply & CORNERS)) * 64 + popcount(_neighbours(mine) & ~(mine | opponent))
        if square == hash_move:
            key = -1000
        # insertion sort, ascending key
        j = n
        while j > 0 and keys[row, j - 1] > key:
            keys[row, j] = keys[row, j - 1]
            squares[row, j] = squares[row, j - 1]
            j -= 1
        keys[row, j] = key
        squares[row, j] = square
        n += 1
    return n


# ----------------------------------------------------------------------------------------------
# Issue 36's techniques. Each is a switch in the int64 `params` array the kernels take (built by
# `solver.SearchOptions`); with every switch off the kernels above run exactly as before, node
# for node (tests/solver/test_switches.py checks this against the original code's counts).

P_SHALLOW = 0  # positions with at most this many empties go to the shallow search (before: 7)
P_FAST_SHALLOW = 1  # 1: shallow search over the empty squares (parity first), 4-empties kernel
P_SORT = 2  # 1: the deep search's move key of Edax (mobility, corner stability, potential mobility, square, parity)
P_ORDER_SEARCH = 3  # nodes with at least this many empties add a shallow mobility search to the key
P_ORDER_DEPTH = 4  # depth of that search below each child (0: the child's evaluation itself)
P_ETC = 5  # enhanced transposition cut-offs at nodes with at least this many empties
P_STABILITY = 6  # stability cut-offs at nodes with at least this many empties
P_ROOT_WINDOW = 7  # 1: the root's exact score by null windows stepped from a first guess (MTD(f))
P_NODE_LIMIT = 8  # the search gives up once nodes[0] exceeds this (NO_NODE_LIMIT: never); see `aborted`
P_ORDER_PATTERNS = 9  # nodes with at least this many empties order by the pattern evaluation, not mobility
P_WIPEOUT_NODES = 10  # > 0: an exact solve first tries the wipe-out windows, each given up after this many nodes
P_ORDER_DEEP = 11  # nodes with at least this many empties order by a 2-ply search (P_ORDER_DEPTH below)
P_ORDER_CUT = 12  # > 0: the pattern ordering search below a move stops once it is this many discs below alpha
P_PRESORTED = 13  # 1: the shallow search walks its empties from a list presorted by square value
P_DEEP_WEIGHT = 14  # 1: at P_ORDER_DEEP nodes the 2-ply ordering value weighs twice in the key (a disc: half a reply)
N_PARAMS = 15
# The pattern evaluation (in discs, side to move's view) from which a side is probed for a wipe-out:
# FForum #20-#38 evaluate within +-14 discs, FForum #39 (+64) at +55, the generated wipe-outs of
# experiments/endgame-solver-67 at +45 to +55.
WIPEOUT_EVAL = 32
NEVER = 99  # an empties threshold no position reaches: the technique is off
NO_NODE_LIMIT = np.int64(1) << np.int64(62)

# Edax's NWS_STABILITY_THRESHOLD: a node tries the stability bound only when its window's alpha is
# at least this high for its number of empties (below, the bound can rarely reach alpha).
STABILITY_THRESHOLD = np.array(
    [99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 48, 50, 50,
     52, 52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62, 64, 64, 64, 64, 64, 64, 64, 64]
    + [99] * 17,
    dtype=np.int64,
)
# JCW's square values (as in Edax's move ordering): a small tie-break, corners best.
SQUARE_VALUE = np.array(
    [18, 4, 16, 12, 12, 16, 4, 18,
     4, 2, 6, 8, 8, 6, 2, 4,
     16, 6, 14, 10, 10, 14, 6, 16,
     12, 8, 10, 0, 0, 10, 8, 12,
     12, 8, 10, 0, 0, 10, 8, 12,
     16, 6, 14, 10, 10, 14, 6, 16,
     4, 2, 6, 8, 8, 6, 2, 4,
     18, 4, 16, 12, 12, 16, 4, 18],
    dtype=np.int64,
)
# Move-ordering weights (Edax's move.c): opponent's mobility first, then corner stability, then
# the opponent's potential mobility, the square and parity as tie-breaks.
W_WIPEOUT = 1 << 30
W_HASH_MOVE = 1 << 29
W_MOBILITY = 1 << 15
W_CORNER_STABILITY = 1 << 11
W_POTENTIAL_MOBILITY = 1 << 5
W_EVAL = 1 << 15
PATTERN_DIVISOR = 16  # see _order_eval


def _neighbour_table():
    table = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        row, col = divmod(square, 8)
        bits = 0
        for d_row in (-1, 0, 1):
            for d_col in (-1, 0, 1):
                r, c = row + d_row, col + d_col
                if (d_row or d_col) and 0 <= r < 8 and 0 <= c < 8:
                    bits |= 1 << (r * 8 + c)
        table[square] = bits
    return table


NEIGHBOURS = _neighbour_table()  # squares adjacent to each square: a move needs an opponent disc there


def default_params():
    """Every technique off: the search as it was before issue 36."""
    params = np.zeros(N_PARAMS, dtype=np.int64)
    params[P_SHALLOW] = SHALLOW_EMPTIES
    params[P_ORDER_SEARCH] = NEVER
    params[P_ETC] = NEVER
    params[P_STABILITY] = NEVER
    params[P_ORDER_PATTERNS] = NEVER
    params[P_ORDER_DEEP] = NEVER
    params[P_NODE_LIMIT] = NO_NODE_LIMIT
    return params


@njit(cache=True, inline="always", _nrt=False)
def aborted(params, nodes):
    """True once the node count has passed the search's limit (P_NODE_LIMIT).

    A search over its limit unwinds at once: a deep node entered after that returns a meaningless
    0, and a deep node whose child's search ends over the limit returns at once without storing
    anything (the count only grows, so every ancestor sees it too). What the table holds stays
    true, and the caller discards the result: `solve_root`'s score means nothing when `aborted`
    holds at its end. The shallow layers (at most P_SHALLOW empties) always finish: they are
    small and store nothing."""
    return nodes[0] > params[P_NODE_LIMIT]


@njit(cache=True, inline="always", _nrt=False)
def _legal_flips(player, opponent, square):
    """flips() with a cheap pre-test: no opponent disc next to the square, no flip."""
    if NEIGHBOURS[square] & opponent:
        return flips_inlined(player, opponent, square)
    return ZERO


@njit(cache=True, inline="always", _nrt=False)
def _stability_bound(player, opponent, alpha, n_empty):
    """An upper bound on the score from the opponent's stable discs, or INFINITY where the window
    is too low for the bound to matter (not computed)."""
    if alpha >= STABILITY_THRESHOLD[n_empty]:
        return MAX_SCORE - 2 * stable_count(opponent, player)
    return np.int64(INFINITY)


def _last_flip_tables():
    """LAST_FLIP[x, line] (uint8[8, 256]): discs flipped along one line by a move at position x of
    the line when the mover's discs on it are the bits of `line` and every other square is the
    other side's (the position of a last empty square: the board is otherwise full). Positions off
    a short diagonal carry no bits, so a walk into them finds no own disc and flips nothing, as at
    the board's edge. DIAGONAL_9 / DIAGONAL_7 [square]: the two diagonals through each square."""
    last_flip = np.zeros((8, 256), dtype=np.uint8)
    for x in range(8):
        for line in range(256):
            if line >> x & 1:
                continue
            count = 0
            for step in (-1, 1):
                y, run = x + step, 0
                while 0 <= y < 8 and not line >> y & 1:
                    run, y = run + 1, y + step
                if 0 <= y < 8:
                    count += run
            last_flip[x, line] = count
    diagonal_9 = np.zeros(64, dtype=np.uint64)
    diagonal_7 = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        row, col = divmod(square, 8)
        diagonal_9[square] = sum(1 << (r * 8 + col - row + r) for r in range(8) if 0 <= col - row + r < 8)
        diagonal_7[square] = sum(1 << (r * 8 + col + row - r) for r in range(8) if 0 <= col + row - r < 8)
    return last_flip, diagonal_9, diagonal_7


LAST_FLIP, DIAGONAL_9, DIAGONAL_7 = _last_flip_tables()
_FILE_A = np.uint64(0x0101010101010101)
_PACK_FILE = np.uint64(0x0102040810204080)  # (bits of the a-file) * this >> 56: row r -> bit r
_S56 = np.uint64(56)
_BYTE = np.uint64(0xFF)


@njit(cache=True, inline="always", _nrt=False)
def _last_flip_count(player, square):
    """Discs that `player` flips by playing the last empty `square` (four line-table lookups, no ray
    walks: with one empty square the other side owns every square `player` does not)."""
    row = np.uint64(square >> 3)
    col = np.uint64(square & 7)
    count = np.int64(LAST_FLIP[col, (player >> (row << np.uint64(3))) & _BYTE])
    count += LAST_FLIP[row, (((player >> col) & _FILE_A) * _PACK_FILE) >> _S56]
    count += LAST_FLIP[col, ((player & DIAGONAL_9[square]) * _FILE_A) >> _S56]
    count += LAST_FLIP[col, ((player & DIAGONAL_7[square]) * _FILE_A) >> _S56]
    return count


@njit(cache=True, inline="always", _nrt=False)
def _fast_last1(player, opponent, square, nodes):
    """`_last1` by flip counts from the line tables."""
    nodes[0] += 1
    flipped = _last_flip_count(player, square)
    if flipped:
        return 2 * (popcount(player) + flipped + 1) - 64
    flipped = _last_flip_count(opponent, square)
    if flipped:
        return 64 - 2 * (popcount(opponent) + flipped + 1)
    diff = popcount(player) - popcount(opponent)  # 63 discs: never a draw
    return diff + 1 if diff > 0 else diff - 1


@njit(cache=True, inline="always", _nrt=False)
def _fast_last2(player, opponent, alpha, beta, sq1, sq2, nodes):
    """`_last2` with the neighbour pre-test and the table-driven last move, written as one body for
    both sides (the second pass is the pass) so that it inlines into `_fast_last3` once."""
    nodes[0] += 1
    for side in range(2):
        if side == 0:
            mover, other, bound = player, opponent, beta
        else:
            nodes[0] += 1
            mover, other, bound = opponent, player, -alpha
        best = -INFINITY
        flipped = _legal_flips(mover, other, sq1)
        if flipped:
            best = -_fast_last1(other ^ flipped, mover | flipped | (ONE << np.uint64(sq1)), sq2, nodes)
        if best < bound:
            flipped = _legal_flips(mover, other, sq2)
            if flipped:
                score = -_fast_last1(other ^ flipped, mover | flipped | (ONE << np.uint64(sq2)), sq1, nodes)
                if score > best:
                    best = score
        if best != -INFINITY:
            return best if side == 0 else -best
    return terminal_score(player, opponent)


@njit(cache=True, _nrt=False)
def _fast_last3(player, opponent, alpha, beta, sq1, sq2, sq3, nodes):
    """`_last3` with the neighbour pre-test and the table-driven last move, in one body for both
    sides, with the two-empties search inlined: no calls below it."""
    nodes[0] += 1
    q1, q2, q3 = _quadrant(sq1), _quadrant(sq2), _quadrant(sq3)
    if q1 == q2 and q1 != q3:
        sq1, sq3 = sq3, sq1
    elif q1 == q3 and q1 != q2:
        sq1, sq2 = sq2, sq1
    for side in range(2):
        if side == 0:
            mover, other, low_bound, bound = player, opponent, alpha, beta
        else:
            nodes[0] += 1
            mover, other, low_bound, bound = opponent, player, -beta, -alpha
        best = -INFINITY
        for k in range(3):
            if k == 0:
                square, other1, other2 = sq1, sq2, sq3
            elif k == 1:
                square, other1, other2 = sq2, sq1, sq3
            else:
                square, other1, other2 = sq3, sq1, sq2
            flipped = _legal_flips(mover, other, square)
            if flipped:
                low = low_bound if low_bound > best else best
                score = -_fast_last2(other ^ flipped, mover | flipped | (ONE << np.uint64(square)), -bound, -low,
                                     other1, other2, nodes)
                if score > best:
                    best = score
                    if best >= bound:
                        break
        if best != -INFINITY:
            return best if side == 0 else -best
    return terminal_score(player, opponent)


@njit(cache=True, _nrt=False)
def _last4(player, opponent, alpha, beta, sq1, sq2, sq3, sq4, nodes):
    """Exact search with the four empty squares given, passed on without move generation: squares
    alone or three in their quadrant (odd parity) first, in the order given within each parity
    (a stable sort)."""
    nodes[0] += 1
    q1, q2, q3, q4 = _quadrant(sq1), _quadrant(sq2), _quadrant(sq3), _quadrant(sq4)
    # 1 for a square in an even quadrant (it goes last), 0 in an odd one; a stable insertion sort.
    k1 = 1 - ((1 + (q1 == q2) + (q1 == q3) + (q1 == q4)) & 1)
    k2 = 1 - ((1 + (q2 == q1) + (q2 == q3) + (q2 == q4)) & 1)
    k3 = 1 - ((1 + (q3 == q1) + (q3 == q2) + (q3 == q4)) & 1)
    k4 = 1 - ((1 + (q4 == q1) + (q4 == q2) + (q4 == q3)) & 1)
    if k1 > k2:
        sq1, sq2, k1, k2 = sq2, sq1, k2, k1
    if k2 > k3:
        sq2, sq3, k2, k3 = sq3, sq2, k3, k2
        if k1 > k2:
            sq1, sq2, k1, k2 = sq2, sq1, k2, k1
    if k3 > k4:
        sq3, sq4, k3, k4 = sq4, sq3, k4, k3
        if k2 > k3:
            sq2, sq3, k2, k3 = sq3, sq2, k3, k2
            if k1 > k2:
                sq1, sq2, k1, k2 = sq2, sq1, k2, k1
    for side in range(2):
        if side == 0:
            mover, other, low_bound, bound = player, opponent, alpha, beta
        else:
            nodes[0] += 1
            mover, other, low_bound, bound = opponent, player, -beta, -alpha
        best = -INFINITY
        for k in range(4):
            if k == 0:
                square, a, b, c = sq1, sq2, sq3, sq4
            elif k == 1:
                square, a, b, c = sq2, sq1, sq3, sq4
            elif k == 2:
                square, a, b, c = sq3, sq1, sq2, sq4
            else:
                square, a, b, c = sq4, sq1, sq2, sq3
            flipped = _legal_flips(mover, other, square)
            if flipped:
                low = low_bound if low_bound > best else best
                score = -_fast_last3(other ^ flipped, mover | flipped | (ONE << np.uint64(square)), -bound, -low, a, b, c,
                                     nodes)
                if score > best:
                    best = score
                    if best >= bound:
                        break
        if best != -INFINITY:
            return best if side == 0 else -best
    return terminal_score(player, opponent)


def _value_classes():
    """The squares by SQUARE_VALUE, best first: one mask a value (corners, A-squares, ..., X-squares)."""
    values = sorted({int(v) for v in SQUARE_VALUE}, reverse=True)
    masks = np.zeros(len(values), dtype=np.uint64)
    for k, value in enumerate(values):
        for square in range(64):
            if int(SQUARE_VALUE[square]) == value:
                masks[k] |= np.uint64(1 << square)
    return masks


VALUE_CLASSES = _value_classes()  # P_PRESORTED: the best squares first
INDEX_CLASSES = np.array([0xFFFFFFFFFFFFFFFF], dtype=np.uint64)  # without it: square-index order
MAX_PRESORTED = 10  # squares a packed list holds (six bits each): the most empties the shallow search takes
_SIX = np.uint64(6)
_SQUARE_FIELD = np.uint64(63)


@njit(cache=True, _nrt=False)
def _packed_empties(empty, classes):
    """The empty squares class by class (`classes`: masks, the first walked first), by index
    within a class, packed six bits a square with the first in the lowest bits: the order the
    shallow search walks each parity group in. With VALUE_CLASSES, Edax's presorted empties. At
    most MAX_PRESORTED squares fit."""
    packed = ZERO
    shift = ZERO
    for k in range(classes.shape[0]):
        group = empty & classes[k]
        while group:
            packed |= np.uint64(lowest_bit_index(group)) << shift
            shift += _SIX
            group &= group - ONE
    return packed


@njit(cache=True, inline="always", _nrt=False)
def _without_entry(packed, i):
    """The packed list less its i-th square."""
    at = np.uint64(6 * i)
    return (packed & ((ONE << at) - ONE)) | ((packed >> (at + _SIX)) << at)


@njit(cache=True, _nrt=False)
def _shallow_listed(player, opponent, alpha, beta, order, n_empty, odd, params, nodes):
    """`search_shallow_fast` with the empties given as a presorted list (`_packed_empties`, n_empty
    of them; `odd` the quadrants with an odd number of them): each parity group is walked in that
    order, and the child gets the list less its move and the parity with its quadrant flipped."""
    if n_empty == 3:
        return _fast_last3(player, opponent, alpha, beta, np.int64(order & _SQUARE_FIELD),
                           np.int64((order >> _SIX) & _SQUARE_FIELD),
                           np.int64((order >> np.uint64(12)) & _SQUARE_FIELD), nodes)
    if n_empty <= 2:
        return search_shallow(player, opponent, alpha, beta, nodes)
    if alpha >= MAX_SCORE:
        return MAX_SCORE
    if beta <= -MAX_SCORE:
        return -MAX_SCORE
    if n_empty == 4:
        return _last4(player, opponent, alpha, beta, np.int64(order & _SQUARE_FIELD),
                              np.int64((order >> _SIX) & _SQUARE_FIELD),
                              np.int64((order >> np.uint64(12)) & _SQUARE_FIELD),
                              np.int64((order >> np.uint64(18)) & _SQUARE_FIELD), nodes)
    nodes[0] += 1
    if n_empty >= params[P_STABILITY]:
        bound = _stability_bound(player, opponent, alpha, n_empty)
        if bound <= alpha:
            return bound
    best = -INFINITY
    for phase in range(2):
        wanted = odd if phase == 0 else ~odd
        rest = order
        for i in range(n_empty):
            square = np.int64(rest & _SQUARE_FIELD)
            rest >>= _SIX
            bit = ONE << np.uint64(square)
            if bit & wanted:
                flipped = _legal_flips(player, opponent, square)
                if flipped:
                    low = alpha if alpha > best else best
                    score = -_shallow_listed(opponent ^ flipped, player | flipped | bit, -beta, -low,
                                             _without_entry(order, i), n_empty - 1, odd ^ QUADRANTS[_quadrant(square)],
                                             params, nodes)
                    if score > best:
                        best = score
                        if best >= beta or best == MAX_SCORE:
                            return best
    if best != -INFINITY:
        return best
    if legal_moves(opponent, player) == ZERO:
        return terminal_score(player, opponent)
    return -_shallow_listed(opponent, player, -beta, -alpha, order, n_empty, odd, params, nodes)


@njit(cache=True, _nrt=False)
def search_shallow_fast(player, opponent, alpha, beta, params, nodes):
    """`search_shallow` with the faster inner loop (`_shallow_listed`): the empty squares, packed
    into a list once here, are walked (odd quadrants first) and tried directly, with no move
    generation; four and three empties have their own kernels; and, when switched on, stability
    cut-offs. The list is in square-index order, or with P_PRESORTED by square value. At most
    MAX_PRESORTED empties (SearchOptions.shallow_empties is checked against it)."""
    empty = ~(player | opponent)
    n_empty = popcount(empty)
    if n_empty <= 2:
        return search_shallow(player, opponent, alpha, beta, nodes)
    order = _packed_empties(empty, VALUE_CLASSES if params[P_PRESORTED] else INDEX_CLASSES)
    return _shallow_listed(player, opponent, alpha, beta, order, n_empty, _odd_quadrants(empty), params, nodes)


@njit(cache=True, inline="always", _nrt=False)
def _corner_stability(bits):
    """Discs of `bits` on a corner or on an edge square next to an own corner (Edax's cheap count)."""
    stable = (
        ((bits & np.uint64(0x0100000000000001)) << ONE)
        | ((bits & np.uint64(0x8000000000000080)) >> ONE)
        | ((bits & np.uint64(0x0000000000000081)) << _S8)
        | ((bits & np.uint64(0x8100000000000000)) >> _S8)
        | CORNERS
    )
    return popcount(stable & bits)


@njit(cache=True, inline="always", _nrt=False)
def _weighted_mobility(moves):
    return popcount(moves) + popcount(moves & CORNERS)


@njit(cache=True, inline="always", _nrt=False)
def _mobility_eval(player, opponent):
    """A cheap evaluation for move ordering, side to move's view, about one unit per reply: the
    mobility difference (corners twice) and the corner-anchored discs."""
    mine = _weighted_mobility(legal_moves(player, opponent))
    theirs = _weighted_mobility(legal_moves(opponent, player))
    return (mine - theirs) * 4 + (_corner_stability(player) - _corner_stability(opponent)) * 8


@njit(cache=True, inline="always", _nrt=False)
def _order_eval(player, opponent, divisor, weights):
    """The ordering search's evaluation, side to move's view: `_mobility_eval` (divisor 0), or the
    pattern evaluation (`patterns.pattern_eval`, 1/16 of a disc) divided by `divisor`.
    PATTERN_DIVISOR = 16 weighs a disc a quarter of what `_mobility_eval` gives one reply: the
    key's own mobility term stays first, the evaluation breaks its ties and near-ties (measured
    against 4, 8, 12, 24, 32, 64: experiments/endgame-solver-36/README.md, "A pattern evaluation for
    the ordering")."""
    if divisor > 0:
        return pattern_eval(player, opponent, weights) // divisor
    return _mobility_eval(player, opponent)


@njit(cache=True, _nrt=False)
def _order_reply(player, opponent, beta, divisor, weights, nodes):
    """Best `_order_eval` over the side to move's moves one ply down (fail-soft against beta)."""
    nodes[0] += 1
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return terminal_score(player, opponent) * 16
        return -_order_eval(opponent, player, divisor, weights)
    best = np.int64(-(1 << 20))
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = flips(player, opponent, square)
        score = -_order_eval(opponent ^ flipped, player | flipped | (ONE << np.uint64(square)), divisor, weights)
        if score > best:
            best = score
            if best >= beta:
                break
    return best


@njit(cache=True, _nrt=False)
def _order_search(player, opponent, depth, beta, divisor, weights, nodes):
    """A `depth`-ply (0..2) alpha-beta value of `_order_eval`, side to move's view, fail-soft
    against `beta` from 1 ply (1 << 20: exact): for move ordering only. Written without
    recursion: numba's cache cannot reload a recursive kernel called through a non-recursive one
    from the recursive search (numba issues #6061, #6713)."""
    if depth == 0:
        nodes[0] += 1
        return _order_eval(player, opponent, divisor, weights)
    if depth == 1:
        return _order_reply(player, opponent, beta, divisor, weights, nodes)
    nodes[0] += 1
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return terminal_score(player, opponent) * 16
        return -_order_reply(opponent, player, np.int64(1 << 20), divisor, weights, nodes)
    best = np.int64(-(1 << 20))
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = flips(player, opponent, square)
        score = -_order_reply(opponent ^ flipped, player | flipped | (ONE << np.uint64(square)), -best, divisor, weights, nodes)
        if score > best:
            best = score
            if best >= beta:
                break
    return best


@njit(cache=True, _nrt=False)
def _sort_moves_weighted(player, opponent, moves, hash_move, alpha,
                         squares, keys, move_flips, row, params, weights, nodes,
                         flips_known):
    """Fill squares[row, :n] with the moves, best first by Edax's move key (and, at nodes with
    enough empties, a shallow search of `_order_eval` below each move); returns n. With
    P_ORDER_CUT, the pattern evaluation's search below a move stops where the opponent has found
    a reply that puts the move P_ORDER_CUT discs below `alpha` (Edax's sort window): such a move
    is searched late whatever its exact evaluation, and its other replies are not evaluated.
    Each move's flips are left in move_flips[row] for the search; `flips_known`: `_etc` has
    already put them there (every move's, since it did not cut off)."""
    n_empty = row
    odd = _odd_quadrants(~(player | opponent))
    if n_empty < 12:
        w_parity = 8
    elif n_empty < 21:
        w_parity = 4
    elif n_empty < 30:
        w_parity = 2
    else:
        w_parity = 0
    search_depth = params[P_ORDER_DEPTH] if n_empty >= params[P_ORDER_SEARCH] else -1
    eval_weight = W_EVAL // 4
    if n_empty >= params[P_ORDER_DEEP]:
        search_depth = 2
        if params[P_DEEP_WEIGHT] and -MAX_SCORE < alpha < MAX_SCORE - 1:
            # not in a wipe-out probe's windows (63, 65) and (-65, -63): a wipe-out is found by
            # the fewest replies, which the heavier evaluation would push back (a real 34-empty
            # wipe-out: 0.27 M nodes at the single weight, 7.2 M at the double)
            eval_weight = W_EVAL // 2
    divisor = PATTERN_DIVISOR if n_empty >= params[P_ORDER_PATTERNS] else 0
    # the opponent's ordering search below a move stops once the move is P_ORDER_CUT discs below
    # alpha (the pattern evaluation is in discs here: pattern_eval // PATTERN_DIVISOR)
    cut = params[P_ORDER_CUT] - alpha if divisor > 0 and params[P_ORDER_CUT] > 0 else np.int64(1 << 20)
    n = 0
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        if flips_known:
            flipped = move_flips[row, square]
        else:
            flipped = flips(player, opponent, square)
            move_flips[row, square] = flipped
        mine = player | flipped | (ONE << np.uint64(square))
        theirs = opponent ^ flipped
        if square == hash_move:
            value = W_HASH_MOVE
        elif theirs == ZERO:
            value = W_WIPEOUT
        else:
            reply = legal_moves(theirs, mine)
            value = (36 - _weighted_mobility(reply)) * W_MOBILITY
            value += _corner_stability(mine) * W_CORNER_STABILITY
            value += (36 - popcount(_neighbours(mine) & ~(mine | theirs))) * W_POTENTIAL_MOBILITY
            value += SQUARE_VALUE[square]
            if (ONE << np.uint64(square)) & odd:
                value += w_parity
            if search_depth >= 0:
                value -= _order_search(theirs, mine, search_depth, cut, divisor, weights, nodes) * eval_weight
        key = -value
        j = n
        while j > 0 and keys[row, j - 1] > key:
            keys[row, j] = keys[row, j - 1]
            squares[row, j] = squares[row, j - 1]
            j -= 1
        keys[row, j] = key
        squares[row, j] = square
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _etc(player, opponent, moves, beta, tt_keys, tt_values, move_flips, slots, row):
    """Enhanced transposition cut-off: a move whose child the table already bounds so that the move
    reaches beta; returns that lower bound on the score, else -INFINITY (search the node). Each
    move's flips go to move_flips[row] on the way (all of them when no move cuts off).

    The children's slots are all computed and prefetched before the first is read (slots[row]
    holds them meanwhile; the sort overwrites that row after), so that their cache misses overlap
    instead of each waiting on the one before: 0.95 of the solver's time on FForum #20-#39, the
    same nodes (experiments/endgame-solver-67, "Numba's reference counting, and the table
    prefetched")."""
    n = 0
    rest = moves
    while rest:
        square = lowest_bit_index(rest)
        rest &= rest - ONE
        flipped = flips(player, opponent, square)
        move_flips[row, square] = flipped
        index = tt.slot(tt_keys, opponent ^ flipped, player | flipped | (ONE << np.uint64(square)))
        tt.prefetch(tt_keys, index)
        slots[row, n] = index
        n += 1
    n = 0
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = move_flips[row, square]
        index = slots[row, n]
        n += 1
        if tt.matches(tt_keys, index, opponent ^ flipped, player | flipped | (ONE << np.uint64(square))):
            bound = -np.int64(tt_values[index, tt.UPPER])
            if bound >= beta:
                return bound
    return np.int64(-INFINITY)


@njit(cache=True, _nrt=False)
def search_deep(player, opponent, alpha, beta, tt_keys, tt_values, squares, keys, move_flips, params, weights, nodes):
    """Exact fail-soft search with the transposition table; dispatches small positions down."""
    empty = ~(player | opponent)
    n_empty = popcount(empty)
    if n_empty <= params[P_SHALLOW]:
        if params[P_FAST_SHALLOW]:
            return search_shallow_fast(player, opponent, alpha, beta, params, nodes)
        return search_shallow(player, opponent, alpha, beta, nodes)
    if alpha >= MAX_SCORE:  # nothing can exceed a wipe-out: fail low at once
        return MAX_SCORE
    if beta <= -MAX_SCORE:
        return -MAX_SCORE
    if aborted(params, nodes):
        return np.int64(0)
    nodes[0] += 1
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return terminal_score(player, opponent)
        return -search_deep(opponent, player, -beta, -alpha, tt_keys, tt_values,
                            squares, keys, move_flips, params, weights, nodes)
    if n_empty >= params[P_STABILITY]:
        bound = _stability_bound(player, opponent, alpha, n_empty)
        if bound <= alpha:
            return bound
    index = tt.slot(tt_keys, player, opponent)
    hash_move = -1
    if tt.matches(tt_keys, index, player, opponent):
        lower = np.int64(tt_values[index, tt.LOWER])
        upper = np.int64(tt_values[index, tt.UPPER])
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        hash_move = np.int64(tt_values[index, tt.MOVE])
    if n_empty >= params[P_ETC]:
        bound = _etc(player, opponent, moves, beta, tt_keys, tt_values, move_flips, keys, n_empty)
        if bound >= beta:
            return bound
    if params[P_SORT] or n_empty >= params[P_ORDER_SEARCH]:
        n = _sort_moves_weighted(player, opponent, moves, hash_move, alpha, squares, keys, move_flips, n_empty,
                                 params, weights, nodes, n_empty >= params[P_ETC])  # `_etc` stored them
    else:
        n = _sort_moves(player, opponent, moves, hash_move, squares, keys, move_flips, n_empty)
    best = -INFINITY
    best_move = -1
    low = alpha
    for i in range(n):
        square = squares[n_empty, i]
        flipped = move_flips[n_empty, square]  # the sort's (or ETC's): the rows below are the children's
        child_player = opponent ^ flipped
        child_opponent = player | flipped | (ONE << np.uint64(square))
        if i == 0:
            score = -search_deep(child_player, child_opponent, -beta, -low, tt_keys, tt_values,
                                 squares, keys, move_flips, params, weights, nodes)
        else:
            score = -search_deep(child_player, child_opponent, -low - 1, -low, tt_keys, tt_values,
                                 squares, keys, move_flips, params, weights, nodes)
            if low < score < beta:
                score = -search_deep(child_player, child_opponent, -beta, -score, tt_keys, tt_values,
                                     squares, keys, move_flips, params, weights, nodes)
        if aborted(params, nodes):  # the score is meaningless: store nothing, unwind
            return np.int64(0)
        if score > best:
            best = score
            best_move = square
            if score > low:
                low = score
                if low >= beta or low == MAX_SCORE:  # a wipe-out is the best there is
                    break
    if best >= beta:
        tt.store(tt_keys, tt_values, index, player, opponent, best, tt.SCORE_MAX, best_move)
    elif best <= alpha:
        tt.store(tt_keys, tt_values, index, player, opponent, tt.SCORE_MIN, best, best_move)
    else:
        tt.store(tt_keys, tt_values, index, player, opponent, best, best, best_move)
    return best


@njit(cache=True, _nrt=False)
def _root_search(player, opponent, alpha, beta, tt_keys, tt_values, squares, keys, move_flips, params, weights, nodes):
    """One principal-variation search of the root for the window (alpha, beta); see solve_root."""
    nodes[0] += 1
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return terminal_score(player, opponent), np.int64(-1)
        score = -search_deep(opponent, player, -beta, -alpha, tt_keys, tt_values,
                             squares, keys, move_flips, params, weights, nodes)
        return score, np.int64(PASS)
    n_empty = popcount(~(player | opponent))
    shallow = params[P_SHALLOW]
    hash_move = -1
    index = tt.slot(tt_keys, player, opponent)
    if tt.matches(tt_keys, index, player, opponent):
        hash_move = np.int64(tt_values[index, tt.MOVE])
    if params[P_SORT] or n_empty >= params[P_ORDER_SEARCH]:
        n = _sort_moves_weighted(player, opponent, moves, hash_move, alpha, squares, keys, move_flips, n_empty,
                                 params, weights, nodes, False)
    else:
        n = _sort_moves(player, opponent, moves, hash_move, squares, keys, move_flips, n_empty)
    best = -INFINITY
    best_move = np.int64(squares[n_empty, 0])
    low = alpha
    for i in range(n):
        square = squares[n_empty, i]
        flipped = move_flips[n_empty, square]  # the sort's (or ETC's): the rows below are the children's
        child_player = opponent ^ flipped
        child_opponent = player | flipped | (ONE << np.uint64(square))
        if n_empty - 1 <= shallow:
            if params[P_FAST_SHALLOW]:
                score = -search_shallow_fast(child_player, child_opponent, -beta, -low, params, nodes)
            else:
                score = -search_shallow(child_player, child_opponent, -beta, -low, nodes)
        elif i == 0:
            score = -search_deep(child_player, child_opponent, -beta, -low, tt_keys, tt_values,
                                 squares, keys, move_flips, params, weights, nodes)
        else:
            score = -search_deep(child_player, child_opponent, -low - 1, -low, tt_keys, tt_values,
                                 squares, keys, move_flips, params, weights, nodes)
            if low < score < beta:
                score = -search_deep(child_player, child_opponent, -beta, -score, tt_keys, tt_values,
                                     squares, keys, move_flips, params, weights, nodes)
        if aborted(params, nodes):  # the score is meaningless: store nothing, unwind
            return np.int64(0), np.int64(-1)
        if score > best:
            best = score
            best_move = np.int64(square)
            if score > low:
                low = score
                if low >= beta or low == MAX_SCORE:  # a wipe-out is the best there is
                    break
    if n_empty > shallow:
        if best >= beta:
            tt.store(tt_keys, tt_values, index, player, opponent, best, tt.SCORE_MAX, best_move)
        elif best <= alpha:
            tt.store(tt_keys, tt_values, index, player, opponent, tt.SCORE_MIN, best, best_move)
        else:
            tt.store(tt_keys, tt_values, index, player, opponent, best, best, best_move)
    return best, best_move


@njit(cache=True, _nrt=False)
def _wipeout_probe(player, opponent, tt_keys, tt_values, squares, keys, move_flips, params, weights, nodes):
    """(score, move, settled): before a full-window solve, the null windows that prove a wipe-out.

    A position whose answer is +-64 costs a search from any other window dearly: MTD(f) from 0
    climbs to 64 pass after pass, and a principal-variation search's full window proves every
    move's bound, while the window (63, 65) only asks "can the side to move take every disc?",
    whose proof tree is small (one move at the attacker's nodes; the victim's nodes fail at once
    where the victim owns a stable disc, by the stability cut-off). A side with a stable disc
    cannot be wiped out, so a side is probed only when it has none and the pattern evaluation
    gives the other side WIPEOUT_EVAL discs or more (a failed probe costs nodes, and nothing short
    of a crushing lead ends in a wipe-out); each probe gives up after P_WIPEOUT_NODES nodes (the
    table stays true, and what it proved serves the search after).
    settled: the score is exact (a wipe-out either way), or the caller's node limit was passed
    (`aborted`: the score means nothing)."""
    outer_limit = params[P_NODE_LIMIT]
    value = pattern_eval(player, opponent, weights) // 16
    for side in range(2):
        if side == 0:
            if value < WIPEOUT_EVAL or stable_count(opponent, player) > 0:
                continue
            alpha, beta = np.int64(MAX_SCORE - 1), np.int64(INFINITY)
        else:
            if value > -WIPEOUT_EVAL or stable_count(player, opponent) > 0:
                continue
            alpha, beta = np.int64(-INFINITY), np.int64(-MAX_SCORE + 1)
        limit = nodes[0] + params[P_WIPEOUT_NODES]
        if limit < outer_limit:
            params[P_NODE_LIMIT] = limit
        score, move = _root_search(player, opponent, alpha, beta, tt_keys, tt_values, squares, keys, move_flips,
                                   params, weights, nodes)
        params[P_NODE_LIMIT] = outer_limit
        if aborted(params, nodes):
            return np.int64(0), np.int64(-1), True
        if nodes[0] > limit:  # the probe gave up: leave the question to the search
            continue
        if side == 0 and score >= MAX_SCORE:
            return score, move, True
        if side == 1 and score <= -MAX_SCORE:
            return score, move, True
    return np.int64(0), np.int64(-1), False


@njit(cache=True, _nrt=False)
def solve_root(player, opponent, alpha, beta, tt_keys, tt_values, squares, keys, move_flips, params, weights, nodes):
    """(score, best move) of a position for the window (alpha, beta).

    The move is PASS when the side to move must pass and -1 when the game is over. Within the
    window the score is exact and the move reaches it; at a fail-low every move is as bad as the
    bound says, and the move is one of them.

    With P_ROOT_WINDOW the full window is searched as a sequence of null windows (g - 1, g + 1)
    (MTD(f)), starting at g = 0: scores are even, so each search either proves g exact or returns
    a bound past it, which becomes the next g; the table keeps what each pass learnt.

    With P_WIPEOUT_NODES a full window first tries to prove a wipe-out (`_wipeout_probe`).

    With a node limit (P_NODE_LIMIT) the search may give up: then `aborted(params, nodes)` holds on
    return and the score and move mean nothing (the table is still true).
    """
    if params[P_WIPEOUT_NODES] > 0 and alpha < -MAX_SCORE + 2 and beta > MAX_SCORE - 2:
        score, move, settled = _wipeout_probe(player, opponent, tt_keys, tt_values, squares, keys, move_flips,
                                              params, weights, nodes)
        if settled:
            return score, move
    if params[P_ROOT_WINDOW] == 0 or alpha > -MAX_SCORE or beta < MAX_SCORE:
        return _root_search(player, opponent, alpha, beta, tt_keys, tt_values,
                            squares, keys, move_flips, params, weights, nodes)
    guess = np.int64(0)
    for _ in range(MAX_SCORE + 2):  # each pass moves the guess one way by 2 or more: at most 65 passes
        score, move = _root_search(player, opponent, guess - 1, guess + 1, tt_keys, tt_values,
                                   squares, keys, move_flips, params, weights, nodes)
        if score == guess or move < 0 or aborted(params, nodes):
            return score, move
        guess = score
    return _root_search(player, opponent, alpha, beta, tt_keys, tt_values,
                        squares, keys, move_flips, params, weights, nodes)
