"""A plain full-width minimax to the end of the game, on the engine's rules.

No pruning, no ordering, no table, no special cases: every legal move of every position is played.
The recursion is compiled with numba (on the engine's own `legal_moves`, `make_move` and
`final_margin`, as the interpreted version it replaced did), which makes a 10-empty position
about 30x cheaper than in Python (1 s there) and lets the property tests try as many positions in
a fraction of the time. Still a slow reference: fine for positions with up to ten or eleven
empties. `minimax`'s optional `memo` dictionary only remembers positions already valued between
calls, which changes no value.
"""

import random

import numpy as np
from numba import njit

from alphazero.othello import bitboard as bb
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index


@njit(cache=False)  # recursive: numba's cache cannot reload it (numba issue #6061); compiles in ~1 s
def _minimax(player, opponent):
    moves = bb.legal_moves(player, opponent)
    if moves == ZERO:
        if bb.legal_moves(opponent, player) == ZERO:
            return np.int64(bb.final_margin(player, opponent))
        return -_minimax(opponent, player)
    best = np.int64(-65)
    while moves != ZERO:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        child_player, child_opponent = bb.make_move(player, opponent, square)
        value = -_minimax(child_player, child_opponent)
        if value > best:
            best = value
    return best


def minimax(player: int, opponent: int, memo: dict | None = None) -> int:
    """Exact final disc difference for the side to move, empties to the winner."""
    key = (player, opponent)
    if memo is not None and key in memo:
        return memo[key]
    value = int(_minimax(np.uint64(player), np.uint64(opponent)))
    if memo is not None:
        memo[key] = value
    return value


def child(player: int, opponent: int, action: int) -> tuple[int, int]:
    p, o = bb.make_move(np.uint64(player), np.uint64(opponent), np.int64(action))
    return int(p), int(o)


def random_position(seed: int, empties: int) -> tuple[int, int]:
    """(player, opponent) reached from the start by uniformly random moves, stopped at `empties`
    empty squares or at the end of the game, whichever comes first."""
    rng = random.Random(seed)
    player, opponent = int(bb.START_BLACK), int(bb.START_WHITE)
    while 64 - bin(player | opponent).count("1") > empties:
        p, o = np.uint64(player), np.uint64(opponent)
        moves = bb.squares_of(bb.legal_moves(p, o))
        if not moves:
            if bb.legal_moves(o, p) == 0:
                break
            player, opponent = opponent, player
            continue
        player, opponent = child(player, opponent, rng.choice(moves))
    return player, opponent
