"""Fixed-depth alpha-beta with a classic hand-written evaluation: the arena's strength-stable baseline.

Why it exists: a network's Elo only means something against opponents whose strength never changes.
This searcher has no randomness and no time control, so `depth=D` is the same opponent in every run.

- Search: fail-soft negamax with alpha-beta pruning. A pass does not consume depth (it is forced, so
  it is not a choice the horizon should cut); two passes in a row end the game.
- Scores are int64 from the side to move's view. A finished game scores its exact disc margin
  (empties to the winner) times `TERMINAL_UNIT`, larger than any heuristic score, so a proven win
  is always preferred to a heuristic advantage and a proven loss avoided.
- Endgame: when the root has at most `endgame_empties` empty squares the search runs to the end of
  the game, so the move and score are exact.
- Evaluation (`evaluate`): relative mobility, corners, X-squares (b2, g2, b7, g7) and C-squares
  (b1, a2, ...) next to an *empty* corner (they give the corner away), and global parity (with an
  odd number of empties the side to move expects the last move).
- Move ordering (nodes with >= 2 plies left and the root): a static square priority (corners
  first, X-squares last) minus the opponent's mobility after the move (Edax's "fastest first"
  flavour), ties by ascending square, so ordering and results are deterministic.
"""

import numpy as np
from numba import njit

from alphazero.othello.bitboard import PASS, final_margin, flips, legal_moves
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount

TERMINAL_UNIT = 1000  # score of a finished game = disc margin * TERMINAL_UNIT (a win is >= 2000)
INFINITY = 1_000_000_000
DEFAULT_ENDGAME_EMPTIES = 10

MOBILITY_WEIGHT = 60  # times (mine - theirs) / (mine + theirs + 2): at most +-60
CORNER_WEIGHT = 50
X_SQUARE_WEIGHT = 20
C_SQUARE_WEIGHT = 8
PARITY_WEIGHT = 4
# Largest possible |evaluate|: 60 + 4 * 50 + 4 * 20 + 8 * 8 + 4 = 408 < TERMINAL_UNIT * 2.

MAX_MOVES = 33  # no Othello position has more legal moves than this

CORNERS = np.uint64(0x8100000000000081)
# Per corner a1, h1, a8, h8: the corner bit, its X-square and its two C-squares.
CORNER_BITS = np.array([1 << 0, 1 << 7, 1 << 56, 1 << 63], dtype=np.uint64)
X_SQUARE_BITS = np.array([1 << 9, 1 << 14, 1 << 49, 1 << 54], dtype=np.uint64)
C_SQUARE_BITS = np.array(
    [(1 << 1) | (1 << 8), (1 << 6) | (1 << 15), (1 << 48) | (1 << 57), (1 << 55) | (1 << 62)], dtype=np.uint64
)


def _build_square_priority():
    """Static ordering bonus per square: corners first, then edges and the centre, X-squares last."""
    rows = [
        [9, 2, 6, 5, 5, 6, 2, 9],
        [2, 0, 3, 3, 3, 3, 0, 2],
        [6, 3, 4, 4, 4, 4, 3, 6],
        [5, 3, 4, 4, 4, 4, 3, 5],
    ]
    rows = rows + rows[::-1]
    return np.array([value * 4 for row in rows for value in row], dtype=np.int64)


SQUARE_PRIORITY = _build_square_priority()


@njit(cache=True)
def evaluate(player, opponent):
    """Heuristic score of a position for the side to move (bounded by +-408, see module doc)."""
    my_moves = popcount(legal_moves(player, opponent))
    their_moves = popcount(legal_moves(opponent, player))
    score = MOBILITY_WEIGHT * (my_moves - their_moves) // (my_moves + their_moves + 2)
    score += CORNER_WEIGHT * (popcount(player & CORNERS) - popcount(opponent & CORNERS))
    empty = ~(player | opponent)
    for k in range(4):
        if empty & CORNER_BITS[k]:
            x_bits = X_SQUARE_BITS[k]
            c_bits = C_SQUARE_BITS[k]
            score -= X_SQUARE_WEIGHT * (popcount(player & x_bits) - popcount(opponent & x_bits))
            score -= C_SQUARE_WEIGHT * (popcount(player & c_bits) - popcount(opponent & c_bits))
    if popcount(empty) & 1:
        score += PARITY_WEIGHT
    else:
        score -= PARITY_WEIGHT
    return score


@njit(cache=True)
def _ordered_moves(player, opponent, moves, out):
    """Write the squares of `moves` into `out` best-first (see module doc); return their count."""
    keys = np.empty(MAX_MOVES, dtype=np.int64)
    count = 0
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = flips(player, opponent, square)
        child_player = opponent ^ flipped
        child_opponent = player | flipped | (ONE << np.uint64(square))
        key = SQUARE_PRIORITY[square] - popcount(legal_moves(child_player, child_opponent))
        # Insertion sort, descending key; squares arrive ascending, so ties stay ascending.
        position = count
        while position > 0 and keys[position - 1] < key:
            keys[position] = keys[position - 1]
            out[position] = out[position - 1]
            position -= 1
        keys[position] = key
        out[position] = square
        count += 1
    return count


MAX_PLY = 128  # 60 moves and at most one pass before each: the deepest line a search can walk

# What a node on the search stack iterates over.
NODE_MOVES = 0  # its legal squares, in SQUARES[ply, :COUNT[ply]]
NODE_PASS = 1  # a forced pass: one child, the same position with the sides swapped


@njit(cache=True, inline="always")
def _enter(stack_player, stack_opponent, stack_depth, stack_alpha, stack_beta, stack_best, stack_kind,
           stack_squares, stack_count, stack_next, ply, player, opponent, depth, alpha, beta):
    """Open the node `player, opponent` at `ply`. Returns (value, is_leaf): a finished game or a
    depth-0 position is scored at once (is_leaf), anything else is pushed for its children."""
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return np.int64(final_margin(player, opponent) * TERMINAL_UNIT), True
        kind = NODE_PASS
        count = 1
    elif depth <= 0:
        return np.int64(evaluate(player, opponent)), True
    else:
        kind = NODE_MOVES
        if depth >= 2:
            count = _ordered_moves(player, opponent, moves, stack_squares[ply])
        else:
            count = 0
            while moves:
                stack_squares[ply, count] = lowest_bit_index(moves)
                moves &= moves - ONE
                count += 1
    stack_player[ply] = player
    stack_opponent[ply] = opponent
    stack_depth[ply] = depth
    stack_alpha[ply] = alpha
    stack_beta[ply] = beta
    stack_best[ply] = -INFINITY
    stack_kind[ply] = kind
    stack_count[ply] = count
    stack_next[ply] = 0
    return np.int64(0), False


@njit(cache=True)
def negamax(player, opponent, depth, alpha, beta):
    """Fail-soft alpha-beta value of the position for the side to move, `depth` plies deep.

    Iterative, over an explicit stack of MAX_PLY nodes: numba's on-disk cache cannot reload
    self-recursive functions (the reloaded code crashes), and the kernels must be cached.
    """
    stack_player = np.empty(MAX_PLY, dtype=np.uint64)
    stack_opponent = np.empty(MAX_PLY, dtype=np.uint64)
    stack_depth = np.empty(MAX_PLY, dtype=np.int64)
    stack_alpha = np.empty(MAX_PLY, dtype=np.int64)
    stack_beta = np.empty(MAX_PLY, dtype=np.int64)
    stack_best = np.empty(MAX_PLY, dtype=np.int64)
    stack_kind = np.empty(MAX_PLY, dtype=np.int64)
    stack_squares = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    stack_count = np.empty(MAX_PLY, dtype=np.int64)
    stack_next = np.empty(MAX_PLY, dtype=np.int64)
    value, is_leaf = _enter(stack_player, stack_opponent, stack_depth, stack_alpha, stack_beta, stack_best,
                            stack_kind, stack_squares, stack_count, stack_next, 0, player, opponent, depth, alpha, beta)
    if is_leaf:
        return value
    ply = 0
    while True:
        index = stack_next[ply]
        if index < stack_count[ply] and stack_alpha[ply] < stack_beta[ply]:
            stack_next[ply] = index + 1
            node_player = stack_player[ply]
            node_opponent = stack_opponent[ply]
            if stack_kind[ply] == NODE_PASS:
                child_player, child_opponent, child_depth = node_opponent, node_player, stack_depth[ply]
            else:
                square = stack_squares[ply, index]
                flipped = flips(node_player, node_opponent, square)
                child_player = node_opponent ^ flipped
                child_opponent = node_player | flipped | (ONE << np.uint64(square))
                child_depth = stack_depth[ply] - 1
            value, is_leaf = _enter(stack_player, stack_opponent, stack_depth, stack_alpha, stack_beta, stack_best,
                                    stack_kind, stack_squares, stack_count, stack_next, ply + 1, child_player,
                                    child_opponent, child_depth, -stack_beta[ply], -stack_alpha[ply])
            if not is_leaf:
                ply += 1
                continue
        else:
            value = stack_best[ply]
            if ply == 0:
                return value
            ply -= 1
        # A child of node `ply` is finished with `value` (from the child's side to move).
        score = -value
        if score > stack_best[ply]:
            stack_best[ply] = score
            if score > stack_alpha[ply]:
                stack_alpha[ply] = score


@njit(cache=True)
def best_move(player, opponent, depth, endgame_empties):
    """(action, score) for the side to move: PASS when forced (or the game is over, action -1).

    Searches `depth` plies, or to the end of the game when at most `endgame_empties` squares are
    empty. Among equal scores the first move in the ordering wins, so the result is deterministic.
    """
    moves = legal_moves(player, opponent)
    empties = 64 - popcount(player | opponent)
    if empties <= endgame_empties:
        depth = max(depth, empties)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return np.int64(-1), np.int64(final_margin(player, opponent) * TERMINAL_UNIT)
        return np.int64(PASS), -negamax(opponent, player, depth, -INFINITY, INFINITY)
    squares = np.empty(MAX_MOVES, dtype=np.int64)
    count = _ordered_moves(player, opponent, moves, squares)
    best_action = np.int64(squares[0])
    best = np.int64(-INFINITY)
    alpha = np.int64(-INFINITY)
    for i in range(count):
        square = squares[i]
        flipped = flips(player, opponent, square)
        score = -negamax(opponent ^ flipped, player | flipped | (ONE << np.uint64(square)), depth - 1, -INFINITY, -alpha)
        if score > best:
            best = score
            best_action = square
            if score > alpha:
                alpha = score
    return best_action, best


@njit(cache=True)
def best_moves_batch(positions, depth, endgame_empties):
    """`best_move` over uint64[B, 2] positions -> (actions int64[B], scores int64[B])."""
    count = positions.shape[0]
    actions = np.empty(count, dtype=np.int64)
    scores = np.empty(count, dtype=np.int64)
    for i in range(count):
        actions[i], scores[i] = best_move(positions[i, 0], positions[i, 1], depth, endgame_empties)
    return actions, scores
