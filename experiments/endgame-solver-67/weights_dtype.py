"""The pattern weights' integer width side by side (issue 67): the ordering search from 14
empties reads one weight per pattern instance per evaluated board from a 167,265-entry table;
int32 (today: 669 KB) against int16 (334 KB: the shipped weights lie within +-277, so the sums,
the order and the nodes are the same). Default options, a 2^22 table, the widths taking turns
position by position.

    PYTHONPATH=. python experiments/endgame-solver-67/weights_dtype.py int32 int16 \
        --obf ../shared/data/ffo/fforum-20-39.obf
"""

import argparse
import json
import os
import time

import numpy as np

from alphazero.solver.obf import check_result, read_obf
from alphazero.solver.solver import Solver


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--obf", nargs="+", required=True)
    parser.add_argument("--table-bits", type=int, default=22)
    parser.add_argument("widths", nargs="+", choices=["int32", "int16"])
    args = parser.parse_args()
    load = os.getloadavg()[0]
    solvers = {}
    for width in args.widths:
        solver = Solver(args.table_bits)
        assert np.abs(solver.weights).max() < 2 ** 15
        solver.weights = solver.weights.astype(width)
        solver.warm_up()
        solvers[width] = solver
    totals = {width: {"nodes": 0, "cpu_seconds": 0.0, "exact": True} for width in args.widths}
    turn = 0
    for path in args.obf:
        for position in read_obf(path):
            order = args.widths[turn % len(args.widths):] + args.widths[:turn % len(args.widths)]
            turn += 1
            for width in order:
                cpu = time.process_time()
                s = solvers[width].solve(position.state.player, position.state.opponent)
                totals[width]["cpu_seconds"] += time.process_time() - cpu
                totals[width]["nodes"] += s.nodes
                if position.move_scores:
                    totals[width]["exact"] &= check_result(position, s.best_move, s.score, False) is None
    base = totals[args.widths[0]]
    for width in args.widths:
        t = totals[width]
        t["cpu_seconds"] = round(t["cpu_seconds"], 3)
        t["nodes_vs_first"] = round(t["nodes"] / base["nodes"], 3)
        t["cpu_vs_first"] = round(t["cpu_seconds"] / base["cpu_seconds"], 3)
        print(json.dumps({"weights": width, **t}))
    print(json.dumps({"load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)]}))


if __name__ == "__main__":
    main()
