"""Where FForum #20-#39's time goes, by doing one part of the work twice: with params[14] = 1 the
deep search calls the shallow search twice for each of its shallow children (the second result
discarded, its nodes not counted), with 2 it sorts every deep node's moves twice (3: only at nodes with the ordering search, 4: only below it); the extra CPU
seconds are that part's cost. Needs profile-instrumentation.patch (on top of
not-kept-last5.patch). Run: PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/profile_twice.py"""
import sys, time, numpy as np
from alphazero.solver.solver import Solver
from alphazero.solver.obf import read_obf
positions = read_obf("../shared/data/ffo/fforum-20-39.obf")
for twice in (0, 3, 4, 0, 3, 4):
    s = Solver(table_bits=22); s.warm_up()
    s.params[14] = twice
    t0 = time.process_time(); n = 0
    for p in positions:
        n += s.solve(p.state.player, p.state.opponent).nodes
    print(["normal", "shallow twice", "sort twice", "sort twice >= 14 empties", "sort twice < 14 empties"][twice], n, round(time.process_time() - t0, 2), flush=True)
