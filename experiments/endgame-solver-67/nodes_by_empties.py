import numpy as np
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
tot = np.zeros(80, dtype=np.int64)
for path in ["../shared/data/ffo/fforum-20-39.obf"]:
    for position in read_obf(path):
        s = Solver(22)
        r = s.solve(position.state.player, position.state.opponent)
        assert r.score == position.best_score
        tot += s.nodes
print("total", tot[0])
for e in range(0, 30):
    if tot[2+e]: print(e, f"{tot[2+e]:,}", f"{tot[2+e]/tot[0]:.3f}")
