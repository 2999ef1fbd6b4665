"""The solver against WTHOR's theoretical scores: each WTHOR record holds black's disc count with
perfect play from the position with `depth` empties (the file header's byte 14; 24 in every file
here), computed when the file was made by another program. Solves that position of games of a
WTHOR file and compares (a check on positions this project's tests do not hold), with the time of
each solve: issue 67's "every position of up to 26 empties in <= 30 s".

    PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/wthor_theoretical.py \
        ../shared/data/wthor/WTH_2018.wtb --count 20 [--every 7]
"""

import argparse
import json
import os
import time

import numpy as np

from alphazero.data.wthor import HEADER_DTYPE, read_wtb
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.solver.solver import Solver


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wtb")
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--every", type=int, default=1, help="take every n-th game")
    parser.add_argument("--table-bits", type=int, default=22)
    args = parser.parse_args()
    depth = int(np.fromfile(args.wtb, dtype=HEADER_DTYPE, count=1)[0][9])
    solver = Solver(args.table_bits)
    solver.warm_up()
    load = [os.getloadavg()[0]]
    rows, taken = [], 0
    for game in read_wtb(args.wtb)[::args.every]:
        state, black = GameState.start(), True
        for square in game.squares:
            if state.must_pass():
                state, black = state.play(PASS), not black
            if state.empties() == depth or not state.is_legal(square):
                break
            state, black = state.play(square), not black
        if state.empties() != depth or state.is_over():
            continue
        theoretical = 2 * game.theoretical_score - 64  # black's disc difference, empties to the winner
        expected = theoretical if black else -theoretical
        solver = Solver(args.table_bits)
        cpu, wall = time.process_time(), time.perf_counter()
        result = solver.solve(state.player, state.opponent)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rows.append({"game": game.index, "empties": depth, "theoretical": expected, "solver": result.score,
                     "agree": result.score == expected, "nodes": result.nodes, "cpu_seconds": round(cpu, 3),
                     "wall_seconds": round(wall, 3)})
        print(json.dumps(rows[-1]), flush=True)
        taken += 1
        if taken == args.count:
            break
    load.append(os.getloadavg()[0])
    agree = sum(r["agree"] for r in rows)
    print(json.dumps({"file": os.path.basename(args.wtb), "depth": depth, "positions": len(rows), "agree": agree,
                      "nodes": sum(r["nodes"] for r in rows), "cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 2),
                      "max_cpu_seconds": max(r["cpu_seconds"] for r in rows), "load_average_1min": load}))


if __name__ == "__main__":
    main()
