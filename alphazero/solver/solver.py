"""`Solver`: the exact endgame search for Python callers, owning its table and workspace.

One solver per search object (or per CLI run): the transposition table is allocated once and its
entries stay true across positions (they are bounds on exact scores), so it is never cleared.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from alphazero.solver import endgame, table

WLD_ALPHA = -1  # the null window around 0: the result has the sign of the exact score
WLD_BETA = 1
# FForum #1 (Edax fforum-1-19.obf, line 1): black to move scores +18 with g8.
WARM_UP_BOARD = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"


@dataclass(frozen=True)
class Solution:
    """best_move: 0..63, 64 = forced pass, -1 = game over. score: exact disc difference for the side to
    move (in WLD mode only its sign is exact: +-2 or more means a win/loss by at least that much, 0 a
    draw). nodes: positions visited. seconds: wall time of the search."""

    best_move: int
    score: int
    nodes: int
    seconds: float
    wld: bool = False

    @property
    def outcome(self) -> int:
        """+1 win, 0 draw, -1 loss for the side to move."""
        return (self.score > 0) - (self.score < 0)


class Solver:
    def __init__(self, table_bits: int = 20):
        self.tt_keys, self.tt_values = table.allocate(table_bits)
        self.squares, self.keys = endgame.allocate_workspace()
        self.nodes = np.zeros(1, dtype=np.int64)

    def solve(self, player: int, opponent: int, wld: bool = False) -> Solution:
        """Exact score (or win/loss/draw with `wld`) and a best move of (player, opponent)."""
        player, opponent = np.uint64(player), np.uint64(opponent)
        alpha, beta = (WLD_ALPHA, WLD_BETA) if wld else (-endgame.INFINITY, endgame.INFINITY)
        self.nodes[0] = 0
        start = time.perf_counter()
        score, move = endgame.solve_root(
            player, opponent, alpha, beta, self.tt_keys, self.tt_values, self.squares, self.keys, self.nodes
        )
        seconds = time.perf_counter() - start
        return Solution(int(move), int(score), int(self.nodes[0]), seconds, wld)

    def outcome(self, player: int, opponent: int) -> int:
        """+1 / 0 / -1: win, draw or loss for the side to move (the WLD search, nothing else; its
        nodes add to `self.nodes[0]`, which `solve` resets)."""
        score, _ = endgame.solve_root(
            np.uint64(player), np.uint64(opponent), WLD_ALPHA, WLD_BETA,
            self.tt_keys, self.tt_values, self.squares, self.keys, self.nodes,
        )
        return (score > 0) - (score < 0)

    def warm_up(self) -> None:
        """Compile (or load from the cache) every kernel, outside any timing; leaves the table empty."""
        from alphazero.othello.notation import parse_board_text

        state = parse_board_text(WARM_UP_BOARD)  # 14 empties: reaches every layer, in milliseconds
        self.solve(state.player, state.opponent)
        self.solve(state.player, state.opponent, wld=True)
        table.clear(self.tt_keys, self.tt_values)
