"""Total nodes (and the scores' checksum) of the first COUNT WTHOR 2018 positions at each empties
count, a fresh Solver(22) each, with the code as it is (settings read from the environment by a
patch, NUMBA_CACHE_DIR fresh a setting).
    PYTHONPATH=. python experiments/endgame-solver-67/nodes_wthor.py 20,22 40"""
import sys
from alphazero.bench.endgame import wthor_positions
from alphazero.solver.solver import Solver

positions = []
for n in (int(x) for x in sys.argv[1].split(",")):
    positions += wthor_positions("../shared/data/wthor/WTH_2018.wtb", n, int(sys.argv[2]))
total, scores = 0, []
for position in positions:
    r = Solver(22).solve(position.state.player, position.state.opponent)
    total += r.nodes
    scores.append(r.score)
print(f"{len(positions)} positions at {sys.argv[1]} empties: {total:,} nodes, scores {hash(tuple(scores)) & 0xffff:04x}")
