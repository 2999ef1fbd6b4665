"""A selective first pass (the exact search with a crude probcut on the pattern evaluation, in a
table of its own) whose best moves seed the exact search's table: nodes of both passes against
the exact search alone, on FForum #20-#39."""
import dataclasses
import sys
import time
import numpy as np
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver, SearchOptions
from alphazero.solver import table

margins = [int(m) for m in sys.argv[2].split(",")]
pc_empties = int(sys.argv[3])
positions = read_obf(sys.argv[1])
totals = {"exact": [0, 0.0]}
for m in margins:
    totals[m] = [0, 0, 0.0]
for position in positions:
    p, o = position.state.player, position.state.opponent
    plain = Solver(22)
    t = time.process_time(); r = plain.solve(p, o); totals["exact"][0] += r.nodes; totals["exact"][1] += time.process_time() - t
    row = [f"{r.score:+3d} exact {r.nodes:11,d}"]
    for m in margins:
        sel = Solver(22, dataclasses.replace(SearchOptions(), probcut=m, probcut_empties=pc_empties))
        t = time.process_time()
        s1 = sel.solve(p, o)
        main = Solver(22)
        used = (sel.tt_keys[:, 0] | sel.tt_keys[:, 1]) != 0
        main.tt_keys[used] = sel.tt_keys[used]
        main.tt_values[used, table.MOVE] = sel.tt_values[used, table.MOVE]
        s2 = main.solve(p, o)
        dt = time.process_time() - t
        assert s2.score == r.score
        totals[m][0] += s1.nodes; totals[m][1] += s2.nodes; totals[m][2] += dt
        row.append(f"m{m}: {s1.nodes:,d}+{s2.nodes:,d}")
    print(" | ".join(row), flush=True)
print(totals)
