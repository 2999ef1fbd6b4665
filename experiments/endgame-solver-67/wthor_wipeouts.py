"""Wipe-outs from real games (issue 67): the positions with 30-34 empties of the WTHOR games that
ended 64-0 that the pattern evaluation gives one side 32+ discs (where the probe runs), solved with the wipe-out probe (`default`) within a node limit; those proved +-64 are
printed with their nodes, and with `--before` also the nodes of the solver before the probe
(`default-wipeout`) on the same position, within the same limit (None: not solved within it).

    PYTHONPATH=. python experiments/endgame-solver-67/wthor_wipeouts.py --years 1990-2018 --before
"""

import argparse
import time

import numpy as np

from alphazero.data.wthor import read_wtb
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import format_board_text
from alphazero.solver import endgame, patterns
from alphazero.solver.solver import SearchOptions, Solver


def positions(path, empties):
    for game in read_wtb(path):
        if game.black_discs not in (0, 64):
            continue
        state = GameState.start()
        for square in game.squares:
            if state.must_pass():
                state = state.play(PASS)
            if state.empties() in empties and not state.is_over():
                yield game, state
            if not state.is_legal(square):
                break
            state = state.play(square)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--years", default="1990-2018")
    parser.add_argument("--empties", default="30,31,32,33,34")
    parser.add_argument("--limit", type=int, default=50_000_000)
    parser.add_argument("--before", action="store_true")
    args = parser.parse_args()
    first, last = (int(x) for x in args.years.split("-"))
    empties = {int(x) for x in args.empties.split(",")}
    weights = patterns.shipped_weights()
    for year in range(first, last + 1):
        path = f"../shared/data/wthor/WTH_{year}.wtb"
        for game, state in positions(path, empties):
            value = patterns.pattern_eval(np.uint64(state.player), np.uint64(state.opponent), weights) / 16
            if abs(value) < endgame.WIPEOUT_EVAL:  # where the probe does not run
                continue
            solver = Solver(22, SearchOptions())
            cpu = time.process_time()
            solution = solver.solve(state.player, state.opponent, node_limit=args.limit)
            cpu = time.process_time() - cpu
            if solution is None or abs(solution.score) != 64:
                continue
            line = (f"{format_board_text(state)} year {year} game {game.index} empties {state.empties()} "
                    f"answer {solution.score} nodes {solution.nodes} cpu_s {cpu:.3f}")
            if args.before:
                before = Solver(22, SearchOptions.parse("default-wipeout"))
                cpu = time.process_time()
                old = before.solve(state.player, state.opponent, node_limit=args.limit)
                cpu = time.process_time() - cpu
                line += f" | before: nodes {old.nodes if old else None} cpu_s {cpu:.3f}"
                assert old is None or old.score == solution.score
            print(line, flush=True)


if __name__ == "__main__":
    main()
