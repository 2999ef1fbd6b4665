"""How many opened-node solves a node limit keeps, by empties (records in probe-rates.json).

    python experiments/endgame-solver-36/probe_rates.py mcts --evaluator small --games 64 --simulations 64 \
        --moves 64 --repeats 1 --threads 1 --endgame 16 --endgame-wld 14 --endgame-probe 16 --endgame-probe-nodes 5000
    python experiments/endgame-solver-36/probe_rates.py endgame_search --checkpoint checkpoints/warmstart.pt \
        --simulations 100 --games 4 --seed 0 --reach 0,18/17+20@20000

runs that bench with `Solver.outcome` wrapped to count, per number of empties, the solves that
finished (kept) and gave up, and the seconds of each; one JSON line. The counts include the
bench's warm-up; its own result is in "result".
"""
import collections
import json
import sys
import time

import torch
torch.set_num_threads(1)
from alphazero.solver import solver as solver_mod
counts = collections.defaultdict(lambda: [0, 0, 0.0, 0.0])  # empties -> [kept, given up, seconds kept, seconds given up]
orig = solver_mod.Solver.outcome
def outcome(self, player, opponent, node_limit=0):
    t = time.perf_counter()
    r = orig(self, player, opponent, node_limit)
    e = 64 - bin(player | opponent).count("1")
    c = counts[e]
    if r is None: c[1] += 1; c[3] += time.perf_counter() - t
    else: c[0] += 1; c[2] += time.perf_counter() - t
    return r
solver_mod.Solver.outcome = outcome
bench = sys.argv[1]
if bench == "mcts":
    from alphazero.bench import mcts as module
else:
    from alphazero.bench import endgame_search as module
result = module.main(sys.argv[2:])
print(json.dumps({"bench": bench, "args": sys.argv[2:], "result": result,
                  "solves_by_empties": {e: {"kept": c[0], "given_up": c[1], "seconds_kept": round(c[2], 2),
                                            "seconds_given_up": round(c[3], 2)} for e, c in sorted(counts.items())}}))
