"""The transposition table's memory layout side by side (issue 67): two arrays (keys
uint64[size, 2], values int8[size, 3], so a probe touches two cache lines far apart; the table
before this measurement) against one
array whose rows hold both (the keys and values arrays are strided views into it, so the kernels
run unchanged): 24 bytes a slot (a quarter of the slots straddle two lines) or 32 (one line,
a larger table). Same slots, same replacement: the same nodes; only the time can differ.
Default options, a 2^22 table, the layouts taking turns position by position.

    PYTHONPATH=. python experiments/endgame-solver-67/table_layout.py separate packed24 packed32 \
        --obf ../shared/data/ffo/fforum-20-39.obf
"""

import argparse

import numpy as np
from param_sweep import side_by_side

from alphazero.solver import table
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver


def packed(bits, words):
    """(keys, values) as strided views into one uint64[size, words] array, initialised as
    `table.allocate` does."""
    size = 1 << bits
    rows = np.zeros((size, words), dtype=np.uint64)
    keys = rows[:, :2]
    values = rows.view(np.int8).reshape(size, 8 * words)[:, 16:19]
    values[:, table.LOWER] = table.SCORE_MIN
    values[:, table.UPPER] = table.SCORE_MAX
    values[:, table.MOVE] = table.NO_MOVE
    return keys, values


def separate(bits):
    """(keys, values) as two arrays: `table.allocate` before this measurement."""
    size = 1 << bits
    keys = np.zeros((size, 2), dtype=np.uint64)
    values = np.zeros((size, 3), dtype=np.int8)
    values[:, table.LOWER] = table.SCORE_MIN
    values[:, table.UPPER] = table.SCORE_MAX
    values[:, table.MOVE] = table.NO_MOVE
    return keys, values


def solver_for(layout, bits):
    solver = Solver(bits)
    if layout == "separate":
        solver.tt_keys, solver.tt_values = separate(bits)
    else:
        solver.tt_keys, solver.tt_values = packed(bits, {"packed24": 3, "packed32": 4}[layout])
    return solver


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--obf", nargs="+", required=True)
    parser.add_argument("--table-bits", type=int, default=22)
    parser.add_argument("layouts", nargs="+", choices=["separate", "packed24", "packed32"])
    args = parser.parse_args()
    solvers = {name: solver_for(name, args.table_bits) for name in args.layouts}
    side_by_side(solvers, [read_obf(path) for path in args.obf], label="layout")

if __name__ == "__main__":
    main()
