"""`python -m alphazero.solve`: exact endgame results of positions, checked against .obf files.

    python -m alphazero.solve --obf ../shared/data/ffo/fforum-1-19.obf       # solve and check every line
    python -m alphazero.solve --board "<64 squares> X"                       # one position
    python -m alphazero.solve --obf FILE --wld                               # win/loss/draw only

One line per position: the best move, the exact score for the side to move (empties to the winner),
nodes, seconds and nodes/s. With --obf each result is checked against the file (the score must be
the file's best score, the move one of the moves the file gives that score): exit status 1 on any
mismatch, 2 on bad input (named by file and line).
"""

from __future__ import annotations

import argparse
import sys

from alphazero.othello.notation import NotationError, action_name, parse_board_text
from alphazero.solver.obf import ObfError, ObfPosition, check_result, read_obf
from alphazero.solver.solver import Solver

EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2


def _move_text(move: int) -> str:
    return "none (game over)" if move < 0 else action_name(move)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.solve",
        description="Solve Othello endgames exactly (best move, score, nodes).",
        epilog="examples:\n" + __doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--obf", metavar="FILE", help="Edax .obf file: solve every line and check its scores")
    source.add_argument("--board", help='64 squares a1..h8 (X or * black, O white, - empty) and the side to move')
    parser.add_argument("--wld", action="store_true", help="win/loss/draw only (a null window around 0; faster)")
    parser.add_argument("--table-bits", type=int, default=20, help="transposition table of 2**BITS entries (default 20)")
    args = parser.parse_args(argv)
    try:
        if args.obf:
            positions = read_obf(args.obf)
        else:
            state = parse_board_text(args.board)
            positions = [ObfPosition(1, args.board, state, {})]
    except (ObfError, NotationError) as err:
        where = "" if args.obf else "--board: "
        print(f"error: {where}{err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not 8 <= args.table_bits <= 28:
        print(f"error: --table-bits must be in 8..28, got {args.table_bits}", file=sys.stderr)
        return EXIT_BAD_INPUT

    solver = Solver(args.table_bits)
    solver.warm_up()
    mismatches = 0
    total_nodes = 0
    total_seconds = 0.0
    for position in positions:
        state = position.state
        solution = solver.solve(state.player, state.opponent, wld=args.wld)
        total_nodes += solution.nodes
        total_seconds += solution.seconds
        rate = solution.nodes / solution.seconds if solution.seconds > 0 else 0.0
        label = f"line {position.line}" if args.obf else "board"
        if args.wld:  # the search's value is only a bound beyond the sign: print the outcome
            result = "outcome " + ("win" if solution.score > 0 else "loss" if solution.score < 0 else "draw")
        else:
            result = f"score {solution.score:+d}"
        text = (
            f"{label}: best {_move_text(solution.best_move)} {result} "
            f"nodes {solution.nodes} seconds {solution.seconds:.3f} nodes/s {rate:,.0f}"
        )
        problem = check_result(position, solution.best_move, solution.score, args.wld) if args.obf else None
        if problem:
            mismatches += 1
            text += f"  MISMATCH: {problem}"
        print(text, flush=True)
    if args.obf:
        rate = total_nodes / total_seconds if total_seconds > 0 else 0.0
        print(
            f"{len(positions)} positions, {mismatches} mismatches, nodes {total_nodes}, "
            f"seconds {total_seconds:.3f}, nodes/s {rate:,.0f}"
        )
    return EXIT_MISMATCH if mismatches else 0
