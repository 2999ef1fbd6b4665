"""WTHOR 2018 nodes (the first COUNT positions at each empties count) with phased pattern weights
(.npy int32[phases, N_WEIGHTS]) against the shipped ones.
    PYTHONPATH=. python experiments/endgame-solver-67/phased_nodes_wthor.py 20,22 30 W.npy ...

Run with phased-weights-prototype.patch applied (the kernels read int32[phases, N_WEIGHTS]).
"""
import sys
import numpy as np
from alphazero.bench.endgame import wthor_positions
from alphazero.solver import patterns
from alphazero.solver.solver import Solver

positions = []
for n in (int(x) for x in sys.argv[1].split(",")):
    positions += wthor_positions("../shared/data/wthor/WTH_2018.wtb", n, int(sys.argv[2]))

def nodes(w):
    total, scores = 0, []
    for position in positions:
        s = Solver(22); s.weights = w
        r = s.solve(position.state.player, position.state.opponent)
        total += r.nodes; scores.append(r.score)
    return total, scores

base, base_scores = nodes(patterns.shipped_weights())
for f in sys.argv[3:]:
    w = np.load(f); w.flags.writeable = False
    n, scores = nodes(w)
    assert scores == base_scores
    print(f"{f}: {len(positions)} WTHOR 2018 positions at {sys.argv[1]} empties: shipped {base:,}, phased {n:,} ({n / base:.3f})", flush=True)
