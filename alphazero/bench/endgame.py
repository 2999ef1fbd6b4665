"""`python -m alphazero.bench endgame`: the exact solver on the FForum endgame test positions.

Solves every position of each .obf file (default: ../shared/data/ffo/fforum-1-19.obf and
fforum-20-39.obf) with one `Solver` on one core, checks each result against the file (best score;
move among those with it) and reports, per file and in total: positions solved, whether all were
exact, nodes, seconds, nodes/s and the slowest position's seconds. The JIT warm-up (or cache load)
happens before the timing. `--max-positions N` solves the first N positions of each file (the
later FForum positions take minutes each in numba).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from alphazero.solver.obf import ObfError, check_result, read_obf
from alphazero.solver.solver import Solver

DEFAULT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ffo"
DEFAULT_FILES = [DEFAULT_DIR / "fforum-1-19.obf", DEFAULT_DIR / "fforum-20-39.obf"]


def run_file(solver: Solver, path, max_positions: int | None, wld: bool, verbose: bool) -> dict:
    positions = read_obf(path)[:max_positions]
    nodes = 0
    seconds = 0.0
    slowest = 0.0
    exact = True
    for position in positions:
        state = position.state
        solution = solver.solve(state.player, state.opponent, wld=wld)
        problem = check_result(position, solution.best_move, solution.score, wld)
        exact &= problem is None
        nodes += solution.nodes
        seconds += solution.seconds
        slowest = max(slowest, solution.seconds)
        if verbose:
            print(
                f"{Path(path).name}:{position.line} empties {state.empties()} score {solution.score:+d} "
                f"nodes {solution.nodes} seconds {solution.seconds:.3f}" + (f" MISMATCH {problem}" if problem else ""),
                flush=True,
            )
    return {
        "file": Path(path).name,
        "positions": len(positions),
        "exact": exact,
        "nodes": nodes,
        "seconds": round(seconds, 3),
        "nodes_per_second": round(nodes / seconds) if seconds > 0 else 0,
        "max_position_seconds": round(slowest, 3),
    }


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench endgame")
    parser.add_argument("--obf", nargs="+", default=[str(p) for p in DEFAULT_FILES], help="the .obf files")
    parser.add_argument("--max-positions", type=int, default=None, help="solve only the first N of each file")
    parser.add_argument("--wld", action="store_true", help="win/loss/draw searches instead of exact scores")
    parser.add_argument("--table-bits", type=int, default=22, help="transposition table of 2**BITS entries")
    parser.add_argument("--verbose", action="store_true", help="a line per position (stdout, before the JSON)")
    args = parser.parse_args(argv)
    if args.max_positions is not None and args.max_positions < 1:
        parser.error(f"--max-positions must be >= 1, got {args.max_positions}")
    try:
        for path in args.obf:
            read_obf(path)
    except ObfError as err:
        parser.error(str(err))
    solver = Solver(args.table_bits)
    solver.warm_up()  # compile or load the kernels outside the timing
    files = [run_file(solver, path, args.max_positions, args.wld, args.verbose) for path in args.obf]
    nodes = sum(f["nodes"] for f in files)
    seconds = sum(f["seconds"] for f in files)
    return {
        "mode": "wld" if args.wld else "exact",
        "positions": sum(f["positions"] for f in files),
        "exact": all(f["exact"] for f in files),
        "nodes": nodes,
        "seconds": round(seconds, 3),
        "nodes_per_second": round(nodes / seconds) if seconds > 0 else 0,
        "max_position_seconds": max(f["max_position_seconds"] for f in files),
        "files": files,
    }
