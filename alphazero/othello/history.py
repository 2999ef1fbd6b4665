"""The game history a history-reading network takes: the previous K actions before each position.

A history window is int[K] of actions (0..63 squares, 64 = pass), oldest first, the action just
played last; plies before the game's first move are `HISTORY_PAD`. Passes count as actions (they
are part of the sequence a player sees), so a window always ends with the opponent's last action.
"""

import numpy as np
from numba import njit

from alphazero.othello.bitboard import NUM_ACTIONS

HISTORY_PAD = NUM_ACTIONS  # 65: "no action yet"; one more than the last real action
HISTORY_TOKENS = NUM_ACTIONS + 1


@njit(cache=True)
def history_windows(game_actions, game, ply, length):
    """uint8[N, length]: for row i, the `length` actions of game `game[i]` before ply `ply[i]`.

    Args:
      game_actions: uint8[G, T] every game's actions with explicit passes (255 after its end).
      game:         int32[N] game of each row.
      ply:          uint8[N] index of the row's decision in its game's actions.
      length:       K, the window length.
    """
    n = game.shape[0]
    out = np.empty((n, length), dtype=np.uint8)
    for i in range(n):
        for j in range(length):
            t = np.int64(ply[i]) - length + j
            out[i, j] = game_actions[game[i], t] if t >= 0 else HISTORY_PAD
    return out


def history_window(actions, length: int) -> np.ndarray:
    """uint8[length]: the window ending after `actions` (a game's actions so far, passes explicit)."""
    out = np.full(length, HISTORY_PAD, dtype=np.uint8)
    recent = list(actions)[-length:] if length else []
    if recent:
        out[length - len(recent) :] = recent
    return out
