import sys
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
tot = 0
for f in sys.argv[1:] or ["../shared/data/ffo/fforum-20-39.obf"]:
    for position in read_obf(f):
        s = Solver(22)
        r = s.solve(position.state.player, position.state.opponent)
        assert r.score == position.best_score
        tot += r.nodes
print(f"{tot:,}")
