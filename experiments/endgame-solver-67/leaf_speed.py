"""The shallow search's speed alone (nodes per CPU second, no table, no sorting above it) on random
positions of N empties, windows (-1, 1), (-3, -1), (1, 3), with the last5 kernel (1) or without (0).
Needs not-kept-last5.patch (SearchOptions.last5_kernel).
Run: PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/leaf_speed.py 10 0"""
import sys, time
import numpy as np
from alphazero.solver import endgame
from alphazero.solver.solver import SearchOptions
from tests.solver.reference import random_position
n = int(sys.argv[1]); last5 = int(sys.argv[2])
pos = []
seed = 0
while len(pos) < 300:
    p, o = random_position(seed, n); seed += 1
    if 64 - bin(p | o).count("1") == n:
        pos.append((np.uint64(p), np.uint64(o)))
params = SearchOptions(last5_kernel=bool(last5)).params()
nodes = np.zeros(1, dtype=np.int64)
endgame.search_shallow_fast(pos[0][0], pos[0][1], -1, 1, params, nodes)
for rep in range(3):
    nodes[0] = 0
    t = time.process_time()
    for p, o in pos:
        for a in (-1, -3, 1):
            endgame.search_shallow_fast(p, o, a, a + 2, params, nodes)
    dt = time.process_time() - t
    print(n, last5, nodes[0], round(dt, 3), round(nodes[0] / dt / 1e6, 2), "M nodes/s")
