"""Uniformly random complete games, the engine's throughput benchmark and a test-data source."""

import numpy as np
from numba import njit

from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount
from alphazero.othello.bitboard import START_BLACK, START_WHITE, flips, legal_moves, make_move, squares_of

_XS_A = np.uint64(13)
_XS_B = np.uint64(7)
_XS_C = np.uint64(17)


@njit(cache=True, inline="always")
def xorshift64(state):
    """Marsaglia's xorshift64 step: cheap enough that random choice never dominates a playout."""
    state ^= state << _XS_A
    state ^= state >> _XS_B
    state ^= state << _XS_C
    return state


@njit(cache=True)
def random_game(player, opponent, rng_state):
    """Play uniformly random legal moves to the end.

    Returns (final player, final opponent, plies played including passes, rng_state); `plies`
    parity tells which colour is to move at the end.
    """
    plies = 0
    while True:
        moves = legal_moves(player, opponent)
        if moves == ZERO:
            if legal_moves(opponent, player) == ZERO:
                break
            player, opponent = opponent, player
            plies += 1
            continue
        rng_state = xorshift64(rng_state)
        # Multiply-shift maps the random word onto 0..count-1 without a division.
        count = np.uint64(popcount(moves))
        pick = np.int64(((rng_state >> np.uint64(32)) * count) >> np.uint64(32))
        for _ in range(pick):
            moves &= moves - ONE
        square = lowest_bit_index(moves)
        flipped = flips(player, opponent, square)
        player, opponent = opponent ^ flipped, player | flipped | (ONE << np.uint64(square))
        plies += 1
    return player, opponent, plies, rng_state


@njit(cache=True)
def random_games(count, seed):
    """Play `count` random games from the start; returns (total plies, black wins, white wins)."""
    rng_state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | ONE
    total_plies = 0
    black_wins = 0
    white_wins = 0
    for _ in range(count):
        player, opponent, plies, rng_state = random_game(START_BLACK, START_WHITE, rng_state)
        total_plies += plies
        diff = popcount(player) - popcount(opponent)
        if plies % 2 == 1:
            diff = -diff  # white is to move at the end: flip to black's view
        if diff > 0:
            black_wins += 1
        elif diff < 0:
            white_wins += 1
    return total_plies, black_wins, white_wins


def random_positions(count: int, seed: int, max_plies: int = 50) -> np.ndarray:
    """uint64[count, 2] positions reached by 0..max_plies random legal moves from the start."""
    rng = np.random.default_rng(seed)
    out = np.empty((count, 2), dtype=np.uint64)
    for i in range(count):
        player, opponent = START_BLACK, START_WHITE
        for _ in range(rng.integers(0, max_plies + 1)):
            moves = squares_of(legal_moves(player, opponent))
            if not moves:
                if legal_moves(opponent, player) == 0:
                    break
                player, opponent = opponent, player
                continue
            # numba returns Python ints: re-wrap, or the next call types them int64, not uint64.
            player, opponent = (np.uint64(b) for b in make_move(player, opponent, moves[rng.integers(len(moves))]))
        out[i] = (player, opponent)
    return out
