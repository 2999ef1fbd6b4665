"""FForum nodes with phased pattern weights (an .npy of int32[phases, N_WEIGHTS]) against the shipped ones.

Run with phased-weights-prototype.patch applied (the kernels read int32[phases, N_WEIGHTS]).
"""
import sys
import numpy as np
from alphazero.solver import patterns
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver

def nodes(w, files):
    total, per = 0, []
    for path in files:
        for position in read_obf(path):
            s = Solver(22); s.weights = w
            r = s.solve(position.state.player, position.state.opponent)
            assert r.score == position.best_score, (r.score, position.best_score)
            total += r.nodes; per.append(r.nodes)
    return total, per

files = ["../shared/data/ffo/fforum-1-19.obf", "../shared/data/ffo/fforum-20-39.obf"]
base, bper = nodes(patterns.shipped_weights(), files)
for f in sys.argv[1:]:
    w = np.load(f); w.flags.writeable = False
    n, per = nodes(w, files)
    print(f"{f}: FForum #1-#39 nodes shipped {base:,}, phased {n:,} ({n / base:.3f}); #20-#39 {sum(bper[19:]):,} -> {sum(per[19:]):,} ({sum(per[19:]) / sum(bper[19:]):.3f})", flush=True)
