"""Othello rules on two uint64 bitboards: (player = side to move, opponent).

Square index a1 = 0 .. h1 = 7, a2 = 8 .. h8 = 63 (row-major, row 1 on top). Bit i is square i.
Action 64 is a pass. All kernels are pure numba functions of uint64 values; batch variants take
`uint64[B, 2]` arrays of (player, opponent).

Move generation uses directional shift-fills (as in Edax's generic `get_moves`): for each of the 8 directions, flood the opponent's discs adjacent to ours along that
direction, then one more shift lands on the empty squares that would flank them. Wrap-around
across the a/h files is prevented by masking the opponent's discs to the inner six files for the
horizontal and diagonal directions: a chain can never pass through a masked edge square, so no
shifted bit can cross from h to a (or back).
"""

import numpy as np
from numba import njit

from alphazero.othello.bits import ONE, ZERO, highest_bit_index, lowest_bit_index, popcount

PASS = 64
NUM_ACTIONS = 65

# Files without the edge columns: used to stop horizontal/diagonal fills at the board border.
INNER_FILES = np.uint64(0x7E7E7E7E7E7E7E7E)
NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)

# Start: white d4 (27) and e5 (36), black d5 (35) and e4 (28); black to move.
START_BLACK = np.uint64((1 << 35) | (1 << 28))
START_WHITE = np.uint64((1 << 27) | (1 << 36))

_S1 = np.uint64(1)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)
_S2 = np.uint64(2)
_S14 = np.uint64(14)
_S16 = np.uint64(16)
_S18 = np.uint64(18)


@njit(cache=True, inline="always")
def _moves_towards_low(player, mask, empty, shift, shift2):
    """Moves reached by fills in a direction that decreases the square index (>> shift).

    Uses the doubling ("Kogge-Stone" light) variant: 2 + 2 + 1 steps cover the 6-disc maximum chain.
    """
    flood = mask & (player >> shift)
    flood |= mask & (flood >> shift)
    pair = mask & (mask >> shift)
    flood |= pair & (flood >> shift2)
    flood |= pair & (flood >> shift2)
    return empty & (flood >> shift)


@njit(cache=True, inline="always")
def _moves_towards_high(player, mask, empty, shift, shift2):
    flood = mask & (player << shift)
    flood |= mask & (flood << shift)
    pair = mask & (mask << shift)
    flood |= pair & (flood << shift2)
    flood |= pair & (flood << shift2)
    return empty & (flood << shift)


@njit(cache=True)
def legal_moves(player, opponent):
    """Bitboard of the squares where the side to move may play (0 if it must pass)."""
    empty = ~(player | opponent)
    inner = opponent & INNER_FILES
    moves = _moves_towards_high(player, inner, empty, _S1, _S2)
    moves |= _moves_towards_low(player, inner, empty, _S1, _S2)
    moves |= _moves_towards_high(player, opponent, empty, _S8, _S16)
    moves |= _moves_towards_low(player, opponent, empty, _S8, _S16)
    moves |= _moves_towards_high(player, inner, empty, _S7, _S14)
    moves |= _moves_towards_low(player, inner, empty, _S7, _S14)
    moves |= _moves_towards_high(player, inner, empty, _S9, _S18)
    moves |= _moves_towards_low(player, inner, empty, _S9, _S18)
    return moves


def _build_rays():
    """RAYS[square, direction]: the squares from `square` (exclusive) to the board edge.

    Directions 0-3 (east, south, south-west, south-east) raise the square index, 4-7 (west,
    north, north-east, north-west) lower it, so the nearest square on a ray is its lowest set
    bit for 0-3 and its highest for 4-7.
    """
    steps = [(0, 1), (1, 0), (1, -1), (1, 1), (0, -1), (-1, 0), (-1, 1), (-1, -1)]
    rays = np.zeros((64, 8), dtype=np.uint64)
    for square in range(64):
        row, col = divmod(square, 8)
        for direction, (d_row, d_col) in enumerate(steps):
            r, c, bits = row + d_row, col + d_col, 0
            while 0 <= r < 8 and 0 <= c < 8:
                bits |= 1 << (r * 8 + c)
                r, c = r + d_row, c + d_col
            rays[square, direction] = bits
    return rays


RAYS = _build_rays()
# LINES[square]: every square on the 8 rays from `square`, the only squares its move can flip.
LINES = np.bitwise_or.reduce(RAYS, axis=1)
# No move turns over more than 19 discs: at most (ray length - 1) per direction, 19 in all from
# the four central squares and fewer from any other.
MAX_FLIPS = int(max(sum(bin(int(ray)).count("1") - 1 for ray in rays if ray) for rays in RAYS))


@njit(cache=True, inline="always")
def _flips_on_rising_ray(ray, player, opponent):
    """Along a ray of rising indices the nearest non-opponent square is the lowest set bit of
    `ray & ~opponent`; if it holds our disc, every ray square below it is flipped."""
    blockers = ray & ~opponent
    nearest = blockers & (ZERO - blockers)
    if nearest & player:
        return ray & (nearest - ONE)
    return ZERO


@njit(cache=True, inline="always")
def _flips_on_falling_ray(ray, player, opponent):
    """Mirror image: the nearest blocker is the highest set bit; flip the ray squares above it."""
    blockers = ray & ~opponent
    if blockers:
        nearest = ONE << np.uint64(highest_bit_index(blockers))
        if nearest & player:
            return ray & ~(nearest | (nearest - ONE))
    return ZERO


@njit(cache=True, inline="always")
def flips_inlined(player, opponent, square):
    """Bitboard of the opponent discs that a move on `square` turns over (0 if none: illegal).

    Ray + bit-scan technique (Edax's `flip_bitscan`): per direction one table lookup and one
    bit scan find the first square that is not the opponent's; measured faster here than eight
    shift-fills, which must run the longest possible chain in every direction. Inlined into
    its caller (the endgame solver's last-move kernels use it so); `flips` is the called version.
    """
    rays = RAYS[square]
    flipped = _flips_on_rising_ray(rays[0], player, opponent)
    flipped |= _flips_on_rising_ray(rays[1], player, opponent)
    flipped |= _flips_on_rising_ray(rays[2], player, opponent)
    flipped |= _flips_on_rising_ray(rays[3], player, opponent)
    flipped |= _flips_on_falling_ray(rays[4], player, opponent)
    flipped |= _flips_on_falling_ray(rays[5], player, opponent)
    flipped |= _flips_on_falling_ray(rays[6], player, opponent)
    flipped |= _flips_on_falling_ray(rays[7], player, opponent)
    return flipped


@njit(cache=True)
def flips(player, opponent, square):
    """`flips_inlined` as an ordinary call (see there)."""
    return flips_inlined(player, opponent, square)


@njit(cache=True)
def make_move(player, opponent, square):
    """Play `square` (0..63) or PASS (64); returns the next (player, opponent), sides swapped.

    The caller guarantees legality (see `is_legal`): a square move that flips nothing is not
    checked here, to keep the hot path branch-free.
    """
    if square == PASS:
        return opponent, player
    flipped = flips(player, opponent, square)
    new_player = player | flipped | (ONE << np.uint64(square))
    return opponent ^ flipped, new_player


@njit(cache=True)
def wipeout_move(player, opponent, moves):
    """A square of `moves` (the mover's legal squares) whose move turns over every opponent disc,
    ending the game with the opponent wiped out (+64); -1 when none does (the lowest such square
    when several do).

    The search checks this when it expands a node: a network's prior can put almost nothing on a
    wipe-out reply (self-play games rarely contain one), so without the check a search may never
    try it and walk into a one-move loss. Cheap where it is called millions of times: nothing
    when the opponent has more discs than a move can flip, and a move's flips are computed only
    when every opponent disc lies on one of its lines.
    """
    if popcount(opponent) > MAX_FLIPS:
        return -1
    while moves:
        square = lowest_bit_index(moves)
        if opponent & ~LINES[square] == ZERO and flips(player, opponent, square) == opponent:
            return square
        moves &= moves - ONE
    return -1


@njit(cache=True)
def is_legal(player, opponent, action):
    """True if `action` (0..64) is legal: a pass is legal only when no square move is."""
    moves = legal_moves(player, opponent)
    if action == PASS:
        return moves == ZERO
    if action < 0 or action > PASS:
        return False
    return (moves >> np.uint64(action)) & ONE != ZERO


@njit(cache=True)
def is_game_over(player, opponent):
    """The game is over when neither side has a legal move."""
    return legal_moves(player, opponent) == ZERO and legal_moves(opponent, player) == ZERO


@njit(cache=True)
def final_margin(player, opponent):
    """Disc difference for the side to move at the end, empties going to the winner (WTHOR rule)."""
    mine = popcount(player)
    theirs = popcount(opponent)
    empties = 64 - mine - theirs
    if mine > theirs:
        mine += empties
    elif theirs > mine:
        theirs += empties
    return mine - theirs


@njit(cache=True)
def game_result(player, opponent):
    """+1 / 0 / -1 for the side to move at the end of a finished game."""
    margin = final_margin(player, opponent)
    if margin > 0:
        return 1.0
    if margin < 0:
        return -1.0
    return 0.0


@njit(cache=True)
def nth_set_bit(bits, n):
    """Index of the n-th (0-based) set bit, counting from the least significant."""
    for _ in range(n):
        bits &= bits - ONE
    return lowest_bit_index(bits)


# ----------------------------------------------------------------------------------------------
# Batch kernels over uint64[B, 2] arrays of (player, opponent).


@njit(cache=True)
def legal_moves_batch(positions):
    out = np.empty(positions.shape[0], dtype=np.uint64)
    for i in range(positions.shape[0]):
        out[i] = legal_moves(positions[i, 0], positions[i, 1])
    return out


@njit(cache=True)
def legal_action_mask_batch(positions):
    """bool[B, 65]: legal actions per position (PASS legal only when no square is)."""
    n = positions.shape[0]
    mask = np.zeros((n, 65), dtype=np.bool_)
    for i in range(n):
        moves = legal_moves(positions[i, 0], positions[i, 1])
        if moves == ZERO:
            mask[i, PASS] = True
        while moves:
            mask[i, lowest_bit_index(moves)] = True
            moves &= moves - ONE
    return mask


@njit(cache=True)
def make_move_batch(positions, actions):
    out = np.empty_like(positions)
    for i in range(positions.shape[0]):
        p, o = make_move(positions[i, 0], positions[i, 1], actions[i])
        out[i, 0] = p
        out[i, 1] = o
    return out


@njit(cache=True)
def is_game_over_batch(positions):
    out = np.empty(positions.shape[0], dtype=np.bool_)
    for i in range(positions.shape[0]):
        out[i] = is_game_over(positions[i, 0], positions[i, 1])
    return out


@njit(cache=True)
def bits_to_mask(bits):
    """bool[64] of a bitboard."""
    out = np.zeros(64, dtype=np.bool_)
    while bits:
        out[lowest_bit_index(bits)] = True
        bits &= bits - ONE
    return out


def squares_of(bits):
    """Python list of the set squares of a bitboard, ascending (for non-hot code)."""
    bits = int(bits)
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out
