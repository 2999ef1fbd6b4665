"""A plain full-width minimax to the end of the game, in Python, on the engine's rules.

No pruning, no ordering, no special cases: every legal move of every position is played (a
dictionary only remembers positions already valued, which changes no value). Slow; fine for
positions with up to ten empties.
"""

import random

import numpy as np

from alphazero.othello import bitboard as bb


def minimax(player: int, opponent: int, memo: dict | None = None) -> int:
    """Exact final disc difference for the side to move, empties to the winner."""
    memo = {} if memo is None else memo
    key = (player, opponent)
    if key in memo:
        return memo[key]
    p, o = np.uint64(player), np.uint64(opponent)
    moves = bb.squares_of(bb.legal_moves(p, o))
    if not moves:
        if bb.legal_moves(o, p) == 0:
            value = int(bb.final_margin(p, o))
        else:
            value = -minimax(opponent, player, memo)
    else:
        value = max(-minimax(*child(player, opponent, square), memo) for square in moves)
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
