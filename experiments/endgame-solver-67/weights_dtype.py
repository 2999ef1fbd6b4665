"""The pattern weights' integer width side by side (issue 67): the ordering search from 14
empties reads one weight per pattern instance per evaluated board from a 167,265-entry table;
int32 (today: 669 KB) against int16 (334 KB: the shipped weights lie within +-277, so the sums,
the order and the nodes are the same). Default options, a 2^22 table, the widths taking turns
position by position.

    PYTHONPATH=. python experiments/endgame-solver-67/weights_dtype.py int32 int16 \
        --obf ../shared/data/ffo/fforum-20-39.obf
"""

import argparse

import numpy as np
from param_sweep import side_by_side

from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--obf", nargs="+", required=True)
    parser.add_argument("--table-bits", type=int, default=22)
    parser.add_argument("widths", nargs="+", choices=["int32", "int16"])
    args = parser.parse_args()
    solvers = {}
    for width in args.widths:
        solver = Solver(args.table_bits)
        assert np.abs(solver.weights).max() < 2 ** 15
        solver.weights = solver.weights.astype(width)
        solvers[width] = solver
    side_by_side(solvers, [read_obf(path) for path in args.obf], label="weights")

if __name__ == "__main__":
    main()
