"""What perfect table moves are worth: each FForum position solved with a fresh table, then its
table's bounds forgotten (every entry keeps its best move only) and the position solved again."""
import sys
import numpy as np
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
from alphazero.solver import table

tot1 = tot2 = 0
for position in read_obf(sys.argv[1]):
    solver = Solver(22)
    p, o = position.state.player, position.state.opponent
    first = solver.solve(p, o)
    solver.tt_values[:, table.LOWER] = table.SCORE_MIN
    solver.tt_values[:, table.UPPER] = table.SCORE_MAX
    second = solver.solve(p, o)
    assert first.score == second.score
    tot1 += first.nodes; tot2 += second.nodes
    print(f"{first.score:+3d} {first.nodes:12,d} {second.nodes:12,d} {second.nodes / max(first.nodes, 1):.2f}", flush=True)
print(f"total {tot1:,} -> {tot2:,} ({tot2 / tot1:.3f})")
