"""Nodes of FForum lines 3-6 (19-20 empties) with the ordering leaves (>= ORACLE_MIN empties) valued by
the exact score plus Gaussian noise of sigma discs (fixed per position and seed)."""
import sys, time
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
from alphazero.solver import endgame
positions = [p for i, p in enumerate(read_obf("../shared/data/ffo/fforum-20-39.obf")) if 22 <= i + 20 <= 25]
for spec in sys.argv[1:]:
    sigma, seed = (float(x) for x in spec.split(":"))
    endgame.NOISE[0], endgame.NOISE[1] = sigma, int(seed)
    tot = 0
    per = []
    t = time.time()
    for position in positions:
        s = Solver(22)
        r = s.solve(position.state.player, position.state.opponent)
        assert r.score == position.best_score
        tot += r.nodes
        per.append(r.nodes)
    print(f"sigma {sigma} seed {int(seed)}: {tot:,} nodes {per} ({time.time()-t:.0f}s, oracle cache {len(endgame._ORACLE)})", flush=True)
