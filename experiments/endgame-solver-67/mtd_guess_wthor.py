"""MTD(f) on WTHOR positions with 24 empties (their theoretical scores known): nodes and passes from
the first guess 0 (the solver's), from the pattern evaluation's static value rounded to even, and
from the exact score (an oracle), each on a fresh table. The null windows are driven from Python
as `solve_root` drives them (no wipe-out probe: no position here is a wipe-out but game 500).

    PYTHONPATH=. taskset -c 0 python experiments/endgame-solver-67/mtd_guess_wthor.py \
        ../shared/data/wthor/WTH_2018.wtb 150,300,400,750
"""
import sys

import numpy as np

from alphazero.data.wthor import read_wtb
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.solver.patterns import pattern_eval
from alphazero.solver.solver import SearchOptions, Solver


def position_at(game, empties):
    state = GameState.start()
    for square in game.squares:
        if state.must_pass():
            state = state.play(PASS)
        if state.empties() == empties:
            return state
        state = state.play(square)
    return None


def mtd(p, o, guess):
    solver = Solver(22)
    passes = 0
    while True:
        passes += 1
        score, move = solver._search(np.uint64(p), np.uint64(o), int(guess) - 1, int(guess) + 1, 0)
        if score == guess or move < 0:
            return score, int(solver.nodes[0]), passes
        guess = score


games = read_wtb(sys.argv[1])
weights = SearchOptions().weights()
for index in [int(i) for i in sys.argv[2].split(",")]:
    state = position_at(games[index], 24)
    p, o = state.player, state.opponent
    static = int(pattern_eval(np.uint64(p), np.uint64(o), weights))
    guess_eval = max(-64, min(64, 2 * round(static / 32)))
    exact, nodes0, passes0 = mtd(p, o, 0)
    row = [f"game {index}: exact {exact:+d}, eval {static / 16:+.1f}", f"from 0: {nodes0:,} nodes, {passes0} passes"]
    for name, guess in (("eval", guess_eval), ("exact", exact)):
        score, nodes, passes = mtd(p, o, guess)
        assert score == exact
        row.append(f"from {name} {guess:+d}: {nodes:,} ({nodes / nodes0:.3f}), {passes} passes")
    print("; ".join(row), flush=True)
