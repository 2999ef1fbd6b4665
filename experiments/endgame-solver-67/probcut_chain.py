"""Selective passes chained (each seeding the next table with its moves), then the exact pass."""
import dataclasses
import sys
import numpy as np
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver, SearchOptions
from alphazero.solver import table

chains = [[int(m) for m in c.split("-")] for c in sys.argv[2].split(",")]
pc_empties = int(sys.argv[3])
totals = {"exact": 0}
for position in read_obf(sys.argv[1]):
    p, o = position.state.player, position.state.opponent
    exact = Solver(22).solve(p, o)
    totals["exact"] += exact.nodes
    for chain in chains:
        seed = None
        passes = []
        for m in chain + [0]:
            solver = Solver(22, dataclasses.replace(SearchOptions(), probcut=m, probcut_empties=pc_empties))
            if seed is not None:
                used = (seed.tt_keys[:, 0] | seed.tt_keys[:, 1]) != 0
                solver.tt_keys[used] = seed.tt_keys[used]
                solver.tt_values[used, table.MOVE] = seed.tt_values[used, table.MOVE]
            r = solver.solve(p, o)
            passes.append(r.nodes)
            seed = solver
        assert r.score == exact.score
        key = "-".join(map(str, chain))
        totals[key] = totals.get(key, 0) + sum(passes)
    print(position.state.player, {k: f"{v:,}" for k, v in totals.items()}, flush=True)
print({k: f"{v:,} ({v / totals['exact']:.3f})" for k, v in totals.items()})
