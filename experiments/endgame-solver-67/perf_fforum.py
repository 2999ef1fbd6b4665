"""perf: solve FForum #20-#39 (or the .obf given) after a warm-up, checking every score; at exit
`perfmap` writes /tmp/perf-PID.map naming numba's functions for `perf report` (run with a fresh
NUMBA_CACHE_DIR, see perfmap.py).

    rm -rf /tmp/nbc && NUMBA_CACHE_DIR=/tmp/nbc PYTHONPATH=.:experiments/endgame-solver-67 taskset -c 1 \
        perf record -e cpu-clock -F 2000 -o perf.data -- python experiments/endgame-solver-67/perf_fforum.py
"""
import sys
import time

import perfmap  # noqa: F401  (registers the map writer)
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver

positions = read_obf(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/ffo/fforum-20-39.obf")
solver = Solver(22)
solver.warm_up()
start = time.time()
nodes = 0
for position in positions:
    solution = solver.solve(position.state.player, position.state.opponent)
    assert solution.score == position.best_score, position.line
    nodes += solution.nodes
print(f"nodes {nodes:,} wall {time.time() - start:.2f}", file=sys.stderr)
