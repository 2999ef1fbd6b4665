"""Exact solver labels for WTHOR positions (2018 held out), resumable: a seeded random sample of
COUNT positions a count for each of MIN..MAX empties, solved in chunks of CHUNK, each chunk written
to OUT/chunk-NNNN.npz (positions uint64[n, 2], empties, labels int8: the side to move's exact
score) as it is finished; a chunk already on disk is skipped, so a killed run goes on where it was.

    PYTHONPATH=. taskset -c 0 python experiments/endgame-solver-67/exact_labels.py OUT MIN MAX COUNT [CHUNK [SHARD/SHARDS]]
"""
import os, sys, time
import numpy as np
from alphazero.pretrain.patterns import positions_with_margins
from alphazero.solver.solver import Solver

out, lo, hi, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
chunk = int(sys.argv[5]) if len(sys.argv) > 5 else 5000
shard, shards = (int(x) for x in (sys.argv[6] if len(sys.argv) > 6 else "0/1").split("/"))
positions, margins, years = positions_with_margins("../shared/data/wthor", lo, hi)
positions = positions[years != 2018]
empties = 64 - np.array([bin(int(a) | int(b)).count("1") for a, b in positions])
rng = np.random.default_rng(20261207)
picks = []
for n in range(lo, hi + 1):
    where = np.flatnonzero(empties == n)
    picks.append(rng.choice(where, size=min(count, len(where)), replace=False))
pick = np.concatenate(picks)
pick = pick[rng.permutation(len(pick))]  # every chunk a mix of all counts
solver = Solver(22)
os.makedirs(out, exist_ok=True)
start = time.time()
for c in range(0, len(pick), chunk):
    path = os.path.join(out, f"chunk-{c // chunk:04d}.npz")
    if os.path.exists(path) or (c // chunk) % shards != shard:
        continue
    part = pick[c:c + chunk]
    labels = np.array([solver.solve(int(positions[i, 0]), int(positions[i, 1])).score for i in part], dtype=np.int8)
    np.savez(path + ".tmp.npz", positions=positions[part], empties=empties[part].astype(np.int8), labels=labels)
    os.replace(path + ".tmp.npz", path)
    print(f"{path}: {c + len(part)} of {len(pick)}, {time.time() - start:.0f} s", flush=True)
print("done", len(pick), f"{time.time() - start:.0f} s")
