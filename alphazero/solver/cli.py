"""`python -m alphazero.solve`: exact endgame results of positions, checked against .obf files.

    python -m alphazero.solve --obf ../shared/data/ffo/fforum-1-19.obf       # solve and check every line
    python -m alphazero.solve --board "<64 squares> X"                       # one position
    python -m alphazero.solve --obf FILE --wld                               # win/loss/draw only

One line per position: the best move, the exact score for the side to move (empties to the winner),
nodes, seconds and nodes/s. With --obf each result is checked against the file (the score must be
the file's best score, the move one of the moves the file gives that score): exit status 1 on any
mismatch, 2 on bad input (named by file and line); Ctrl-C ends it at once (the positions solved
so far are printed; a search in compiled code would not see Python's interrupt). A position with
LONG_SOLVE_EMPTIES or more empty squares is announced on stderr before it is searched: an exact
solve's cost grows several-fold with each empty square, and the command says nothing until a
position is solved.
"""

from __future__ import annotations

import argparse
import signal
import sys

from alphazero.argtypes import in_range
from alphazero.othello.notation import NotationError, action_name, parse_board_text
from alphazero.solver.obf import ObfError, ObfPosition, check_result, read_obf
from alphazero.solver.solver import Solver

EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2
# FForum's positions with 20-26 empties take up to about 15 s each on a 2-core laptop CPU
# (experiments/endgame-solver-36/README.md); from here on a solve may take far longer.
LONG_SOLVE_EMPTIES = 28


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
    parser.add_argument("--table-bits", type=in_range(8, 28), default=20, help="transposition table of 2**BITS entries (default 20)")
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

    # Python's Ctrl-C handler only sets a flag that compiled (numba) code never looks at, so a long
    # solve would run on regardless; the default action ends the process at once. Every position
    # solved so far has been printed (flushed) by then. A SIGINT the process was started ignoring
    # (a background job of a shell script, nohup-like wrappers) stays ignored.
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        solver = Solver(args.table_bits)
        solver.warm_up()  # compiles the kernels on a cold numba cache: also ended at once by Ctrl-C
        mismatches, nodes, seconds = _solve_all(solver, positions, args)
    finally:
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)
    if args.obf:
        rate = nodes / seconds if seconds > 0 else 0.0
        print(f"{len(positions)} positions, {mismatches} mismatches, nodes {nodes}, seconds {seconds:.3f}, nodes/s {rate:,.0f}")
    return EXIT_MISMATCH if mismatches else 0


def _solve_all(solver: Solver, positions: list[ObfPosition], args) -> tuple[int, int, float]:
    """Solve and print each position in turn: (mismatches, total nodes, total seconds)."""
    mismatches, nodes, seconds = 0, 0, 0.0
    for position in positions:
        state = position.state
        label = f"line {position.line}" if args.obf else "board"
        if state.empties() >= LONG_SOLVE_EMPTIES:
            print(f"{label}: {state.empties()} empty squares: an exact solve this far from the end can take hours, or never end in practice "
                  f"(each empty square costs several times the last; 20-26 take seconds); Ctrl-C stops it",
                  file=sys.stderr, flush=True)
        solution = solver.solve(state.player, state.opponent, wld=args.wld)
        rate = solution.nodes / solution.seconds if solution.seconds > 0 else 0.0
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
        nodes += solution.nodes
        seconds += solution.seconds
    return mismatches, nodes, seconds
