"""Where FForum #20-#39's nodes are: the share searched by the shallow layers (at most
`shallow_empties` empties), by the ordering search, and by the deep search. Needs
profile-instrumentation.patch (on top of not-kept-last5.patch), which counts them in spare `params`
slots. Run: PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/profile_layers.py"""
import time, numpy as np
from alphazero.solver.solver import Solver, SearchOptions
from alphazero.solver.obf import read_obf
from alphazero.solver import endgame
positions = read_obf("../shared/data/ffo/fforum-20-39.obf")
s = Solver(table_bits=22); s.warm_up()
tot = np.zeros(4); t0 = time.process_time()
for p in positions:
    s.params[11] = s.params[12] = s.params[13] = 0
    sol = s.solve(p.state.player, p.state.opponent)
    tot += [sol.nodes, s.params[11], s.params[12], s.params[13]]
dt = time.process_time() - t0
n, order, shallow, calls = tot
print(f"nodes {n:.0f} cpu {dt:.2f} s; order-search nodes {order/n:.3f}, shallow-search nodes {shallow/n:.3f} ({calls:.0f} shallow calls, {shallow/calls:.1f} nodes each), deep nodes {(n-order-shallow)/n:.3f}")
