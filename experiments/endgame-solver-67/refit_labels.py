"""Exact solver labels for a random sample of WTHOR positions (2018 held out) at MIN-MAX empties."""
import sys, time
import numpy as np
from alphazero.pretrain.patterns import positions_with_margins
from alphazero.solver.solver import Solver

shard, shards, count, lo, hi, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
positions, margins, years = positions_with_margins("../shared/data/wthor", lo, hi)
keep = years != 2018
positions = positions[keep]
rng = np.random.default_rng(12345)
pick = rng.choice(len(positions), size=count, replace=False)[shard::shards]
solver = Solver(20)
labels = np.empty(len(pick), dtype=np.int8)
start = time.time()
for j, i in enumerate(pick):
    labels[j] = solver.solve(int(positions[i, 0]), int(positions[i, 1])).score
    if j % 2000 == 0:
        print(shard, j, f"{time.time() - start:.0f} s", flush=True)
np.savez(out, positions=positions[pick], labels=labels)
print("done", shard, len(pick), f"{time.time() - start:.0f} s")
