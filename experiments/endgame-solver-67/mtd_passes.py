"""How MTD(f) from 0 spends its nodes at the root: per FForum position, the passes (null windows
around the guess), the nodes of each, and the share of the last (the proof)."""
import sys
import numpy as np
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver, SearchOptions
from alphazero.solver import endgame

total = {"nodes": 0, "last": 0, "passes": 0}
for position in read_obf(sys.argv[1]):
    solver = Solver(22)
    solver.warm_up()
    p, o = np.uint64(position.state.player), np.uint64(position.state.opponent)
    guess, passes = 0, []
    while True:
        before = int(solver.nodes[0])
        score, move = solver._search(p, o, guess - 1, guess + 1, 0)
        passes.append(int(solver.nodes[0]) - before)
        if score == guess or move < 0:
            break
        guess = score
    n = sum(passes)
    total["nodes"] += n; total["last"] += passes[-1]; total["passes"] += len(passes)
    print(f"score {score:+3d} passes {len(passes):2d} nodes {n:11,d} last {passes[-1] / n:.2f} {[f'{x:,}' for x in passes]}")
print(total, f"last share {total['last'] / total['nodes']:.3f}")
