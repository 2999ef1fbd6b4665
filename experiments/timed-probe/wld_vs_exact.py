"""What a win/loss/draw proof costs against an exact solve, by empties: why a search by time's
probe proves the outcome, not the score (experiments/timed-probe/README.md, "A search by time proves
wins from further out"). The first COUNT WTHOR 2018 positions with each number of empties, a fresh solver
(2^18 table entries, the search's) per empties and mode.

    python experiments/timed-probe/wld_vs_exact.py [COUNT]
"""
import os
import sys
import time
from pathlib import Path

from alphazero.bench.endgame import wthor_positions
from alphazero.solver.solver import Solver

WTB = str(Path(__file__).resolve().parents[3] / "shared" / "data" / "wthor" / "WTH_2018.wtb")
count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load", os.getloadavg(), flush=True)
for empties in (19, 20, 22):
    states = [p.state for p in wthor_positions(WTB, empties, count)]
    for wld in (True, False):
        solver = Solver(18)
        solver.warm_up()
        nodes, seconds = [], 0.0
        for state in states:
            solution = solver.solve(state.player, state.opponent, wld=wld)
            nodes.append(solution.nodes)
            seconds += solution.seconds
        nodes.sort()
        print(f"{empties} empties {'wld  ' if wld else 'exact'}: median {nodes[len(nodes) // 2]:>10,d} nodes, "
              f"max {nodes[-1]:>12,d}, mean {sum(nodes) / len(nodes):>12,.0f}, {seconds:7.2f} s for {len(nodes)}", flush=True)
print("load", os.getloadavg())
