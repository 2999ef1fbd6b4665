import sys, time
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
from alphazero.solver import endgame
tot = 0
for i, position in enumerate(read_obf("../shared/data/ffo/fforum-20-39.obf")):
    if not (int(sys.argv[1]) <= i + 20 <= int(sys.argv[2])): continue
    s = Solver(22)
    t = time.time()
    r = s.solve(position.state.player, position.state.opponent)
    assert r.score == position.best_score
    tot += r.nodes
    print(i + 20, f"{r.nodes:,}", f"{time.time()-t:.0f}s oracle calls {len(endgame._ORACLE)}", flush=True)
print("total", f"{tot:,}")
