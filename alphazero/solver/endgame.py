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
allocates nothing. Node counts accumulate in `nodes[0]`.
"""

import numpy as np
from numba import njit

from alphazero.othello.bitboard import PASS, flips, legal_moves
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount
from alphazero.solver import table as tt

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
    """(squares int64[61, MAX_MOVES], keys int64[61, MAX_MOVES]): move lists by empties."""
    return np.zeros((61, MAX_MOVES), dtype=np.int64), np.zeros((61, MAX_MOVES), dtype=np.int64)


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True, inline="always")
def _quadrant(square):
    return ((square >> 5) << 1) | ((square & 7) >> 2)


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _odd_quadrants(empty):
    odd = ZERO
    for q in range(4):
        if popcount(empty & QUADRANTS[q]) & 1:
            odd |= QUADRANTS[q]
    return odd


@njit(cache=True)
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


@njit(cache=True, inline="always")
def _neighbours(bits):
    """Squares adjacent (8 directions) to any square of `bits`, without wrapping around the files."""
    west = (bits >> ONE) & NOT_FILE_H
    east = (bits << ONE) & NOT_FILE_A
    row = bits | west | east
    return (row | (row << _S8) | (row >> _S8)) & ~bits


@njit(cache=True)
def _sort_moves(player, opponent, moves, hash_move, squares, keys, row):
    """Fill squares[row, :n] with the moves, fastest-first; returns n."""
    n = 0
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = flips(player, opponent, square)
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


@njit(cache=True)
def search_deep(player, opponent, alpha, beta, tt_keys, tt_values, squares, keys, nodes):
    """Exact fail-soft search with the transposition table; dispatches small positions down."""
    empty = ~(player | opponent)
    n_empty = popcount(empty)
    if n_empty <= SHALLOW_EMPTIES:
        return search_shallow(player, opponent, alpha, beta, nodes)
    if alpha >= MAX_SCORE:  # nothing can exceed a wipe-out: fail low at once
        return MAX_SCORE
    if beta <= -MAX_SCORE:
        return -MAX_SCORE
    nodes[0] += 1
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return terminal_score(player, opponent)
        return -search_deep(opponent, player, -beta, -alpha, tt_keys, tt_values, squares, keys, nodes)
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
    n = _sort_moves(player, opponent, moves, hash_move, squares, keys, n_empty)
    best = -INFINITY
    best_move = -1
    low = alpha
    for i in range(n):
        square = squares[n_empty, i]
        flipped = flips(player, opponent, square)
        child_player = opponent ^ flipped
        child_opponent = player | flipped | (ONE << np.uint64(square))
        if i == 0:
            score = -search_deep(child_player, child_opponent, -beta, -low, tt_keys, tt_values, squares, keys, nodes)
        else:
            score = -search_deep(child_player, child_opponent, -low - 1, -low, tt_keys, tt_values, squares, keys, nodes)
            if low < score < beta:
                score = -search_deep(child_player, child_opponent, -beta, -score, tt_keys, tt_values, squares, keys, nodes)
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


@njit(cache=True)
def solve_root(player, opponent, alpha, beta, tt_keys, tt_values, squares, keys, nodes):
    """(score, best move) of a position for the window (alpha, beta).

    The move is PASS when the side to move must pass and -1 when the game is over. Within the
    window the score is exact and the move reaches it; at a fail-low every move is as bad as the
    bound says, and the move is one of them.
    """
    nodes[0] += 1
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return terminal_score(player, opponent), np.int64(-1)
        score = -search_deep(opponent, player, -beta, -alpha, tt_keys, tt_values, squares, keys, nodes)
        return score, np.int64(PASS)
    n_empty = popcount(~(player | opponent))
    hash_move = -1
    index = tt.slot(tt_keys, player, opponent)
    if tt.matches(tt_keys, index, player, opponent):
        hash_move = np.int64(tt_values[index, tt.MOVE])
    n = _sort_moves(player, opponent, moves, hash_move, squares, keys, n_empty)
    best = -INFINITY
    best_move = np.int64(squares[n_empty, 0])
    low = alpha
    for i in range(n):
        square = squares[n_empty, i]
        flipped = flips(player, opponent, square)
        child_player = opponent ^ flipped
        child_opponent = player | flipped | (ONE << np.uint64(square))
        if n_empty - 1 <= SHALLOW_EMPTIES:
            score = -search_shallow(child_player, child_opponent, -beta, -low, nodes)
        elif i == 0:
            score = -search_deep(child_player, child_opponent, -beta, -low, tt_keys, tt_values, squares, keys, nodes)
        else:
            score = -search_deep(child_player, child_opponent, -low - 1, -low, tt_keys, tt_values, squares, keys, nodes)
            if low < score < beta:
                score = -search_deep(child_player, child_opponent, -beta, -score, tt_keys, tt_values, squares, keys, nodes)
        if score > best:
            best = score
            best_move = np.int64(square)
            if score > low:
                low = score
                if low >= beta or low == MAX_SCORE:  # a wipe-out is the best there is
                    break
    if n_empty > SHALLOW_EMPTIES:
        if best >= beta:
            tt.store(tt_keys, tt_values, index, player, opponent, best, tt.SCORE_MAX, best_move)
        elif best <= alpha:
            tt.store(tt_keys, tt_values, index, player, opponent, tt.SCORE_MIN, best, best_move)
        else:
            tt.store(tt_keys, tt_values, index, player, opponent, best, best, best_move)
    return best, best_move
