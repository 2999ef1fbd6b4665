"""What perfect table moves are worth, by depth: each FForum position solved with a fresh table,
then every bound forgotten and the best moves kept only in entries with K or more empties, and
the position solved again (moves_only.py is K = 0)."""
import sys
import numpy as np
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
from alphazero.solver import table

ks = [int(k) for k in sys.argv[2].split(",")]
tot1 = 0
tot2 = {k: 0 for k in ks}
for position in read_obf(sys.argv[1]):
    p, o = position.state.player, position.state.opponent
    solver = Solver(22)
    first = solver.solve(p, o)
    tot1 += first.nodes
    keys, values = solver.tt_keys.copy(), solver.tt_values.copy()
    occupied = keys[:, 0] | keys[:, 1]
    empties = 64 - np.array([int(x).bit_count() for x in occupied])
    row = []
    for k in ks:
        solver.tt_keys[:] = keys
        solver.tt_values[:] = values
        solver.tt_values[:, table.LOWER] = table.SCORE_MIN
        solver.tt_values[:, table.UPPER] = table.SCORE_MAX
        solver.tt_values[empties < k, table.MOVE] = table.NO_MOVE
        second = solver.solve(p, o)
        assert first.score == second.score
        tot2[k] += second.nodes
        row.append(f"{second.nodes:12,d}")
    print(f"{first.score:+3d} {first.nodes:12,d}", " ".join(row), flush=True)
for k in ks:
    print(f"moves kept from {k} empties: {tot1:,} -> {tot2[k]:,} ({tot2[k] / tot1:.3f})")
