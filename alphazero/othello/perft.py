"""Perft: count the leaves of the game tree to a fixed depth.

Convention (as in ../shared/data/perft.json): a forced pass is a ply, and a finished game is a
leaf at every depth from its last ply on. One ply above the leaves we count each child's legal
moves with one popcount instead of playing them ("bulk counting", as Edax does); a child that
must pass, or whose game is over, is one leaf either way.
"""

import numpy as np
from numba import njit

from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount
from alphazero.othello.bitboard import flips, legal_moves


@njit(cache=True)
def perft(player, opponent, depth):
    """Number of leaves `depth` plies below (player, opponent), with bulk counting."""
    if depth <= 0:
        return np.int64(1)
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if depth == 1 or legal_moves(opponent, player) == ZERO:
            return np.int64(1)
        return perft(opponent, player, depth - 1)
    if depth == 1:
        return popcount(moves)
    total = np.int64(0)
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = flips(player, opponent, square)
        child_player = opponent ^ flipped
        child_opponent = player | flipped | (ONE << np.uint64(square))
        if depth == 2:
            child_moves = legal_moves(child_player, child_opponent)
            total += popcount(child_moves) if child_moves != ZERO else 1
        else:
            total += perft(child_player, child_opponent, depth - 1)
    return total


@njit(cache=True)
def perft_reference(player, opponent, depth):
    """Plain perft without bulk counting: the slow twin the fast one is tested against."""
    if depth == 0:
        return np.int64(1)
    moves = legal_moves(player, opponent)
    if moves == ZERO:
        if legal_moves(opponent, player) == ZERO:
            return np.int64(1)
        return perft_reference(opponent, player, depth - 1)
    total = np.int64(0)
    while moves:
        square = lowest_bit_index(moves)
        moves &= moves - ONE
        flipped = flips(player, opponent, square)
        total += perft_reference(opponent ^ flipped, player | flipped | (ONE << np.uint64(square)), depth - 1)
    return total
