"""Solver option sets side by side, position by position: total nodes and CPU seconds, each set
with its own table cleared before every position (so no set inherits another's work).

    python experiments/endgame-solver-36/pattern_tune.py 18 "{}" "dict(order_pattern_empties=14)"
    python experiments/endgame-solver-36/pattern_tune.py ff "{}" "dict(order_pattern_empties=14)"

The first argument is an empties count (the first 60 WTH_2018 games reaching it, win/loss/draw
solves: 2018 is the year the pattern fit holds out) or `ff` (FForum #20-#39, exact). The others
are SearchOptions fields as Python dict literals; ratios are against the first set. Used to choose
the pattern evaluation's weight in the ordering key and its threshold (experiments/endgame-solver-36/README.md,
"A pattern evaluation for the ordering"); the divisor sweep ran with `endgame.PATTERN_DIVISOR` as a
parameter, before it became a constant.
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.bench.endgame import wthor_positions
from alphazero.solver import table
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import SearchOptions, Solver

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"

which = sys.argv[1]
sets = [eval(text) for text in sys.argv[2:]]  # noqa: S307 (a scratch tool's own arguments)
if which == "ff":
    positions = [(p.state.player, p.state.opponent) for p in read_obf(SHARED / "ffo" / "fforum-20-39.obf")]
    wld = False
else:
    positions = [(p.state.player, p.state.opponent)
                 for p in wthor_positions(SHARED / "wthor" / "WTH_2018.wtb", int(which), 60)]
    wld = True
solvers = [Solver(22, SearchOptions(**s)) for s in sets]
for solver in solvers:
    solver.warm_up()
totals = np.zeros((len(sets), 2))
for player, opponent in positions:
    for k, solver in enumerate(solvers):
        table.clear(solver.tt_keys, solver.tt_values)
        start = time.process_time()
        result = solver.solve(player, opponent, wld=wld)
        totals[k] += (result.nodes, time.process_time() - start)
for k, s in enumerate(sets):
    print(json.dumps({"set": s, "nodes": int(totals[k, 0]), "cpu": round(totals[k, 1], 3),
                      "vs0_nodes": round(totals[k, 0] / totals[0, 0], 3), "vs0_cpu": round(totals[k, 1] / totals[0, 1], 3)}))
