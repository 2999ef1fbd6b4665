"""`python -m alphazero.bench endgame`: the exact solver on the FForum endgame test positions.

Solves every position of each .obf file (default: ../shared/data/ffo/fforum-1-19.obf and
fforum-20-39.obf) on one core, checks each result against the file (best score; move among those
with it) and reports, per file and in total: positions solved, whether all were exact, nodes,
seconds (wall), CPU seconds, nodes/s and the slowest position's seconds. The JIT warm-up (or
cache load) happens before the timing. `--max-positions N` solves the first N positions of each
file (the later FForum positions take seconds each).

`--wthor FILE --empties 14,16,18 --count 40` solves positions from real games instead: the
position with exactly N empties (the side to move's turn, passes inferred) of the first COUNT
games of the WTHOR file that reach it, for each N, and reports the mean seconds and nodes of a
solve at each N (no scores to check: `exact` is always true). This is what the search's endgame
solver meets in play; `--wld` gives the cost of the search's win/loss/draw solves of leaves.

`--options` takes one or more of the solver's switch sets (`SearchOptions.parse`: `default`, `off`
= the search before issue 36, `off+etc`, `default-mtd`, ...), comma-separated. Each set has its
own solver (and table); every position is solved by each set in turn, the set going first
rotating from position to position, so that load from other jobs falls on all of them alike.
With several sets the JSON holds one entry per set (`runs`) and each set's nodes, seconds and CPU
seconds relative to the first set's (`vs_first`): `--options off,default` is the before/after
comparison in one run.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from alphazero.argtypes import in_range, positive_int
from alphazero.solver.obf import ObfError, ObfPosition, check_result, read_obf
from alphazero.solver.solver import SearchOptions, Solver

DEFAULT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ffo"
DEFAULT_FILES = [DEFAULT_DIR / "fforum-1-19.obf", DEFAULT_DIR / "fforum-20-39.obf"]


def _summary(records: list[dict]) -> dict:
    nodes = sum(r["nodes"] for r in records)
    seconds = sum(r["seconds"] for r in records)
    count = max(len(records), 1)
    return {
        "positions": len(records),
        "exact": all(r["problem"] is None for r in records),
        "nodes": nodes,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(sum(r["cpu_seconds"] for r in records), 3),
        "nodes_per_second": round(nodes / seconds) if seconds > 0 else 0,
        "max_position_seconds": round(max((r["seconds"] for r in records), default=0.0), 3),
        "mean_ms": round(1000 * seconds / count, 4),
        "mean_cpu_ms": round(1000 * sum(r["cpu_seconds"] for r in records) / count, 4),
        "mean_nodes": round(nodes / count),
    }


def wthor_positions(path, empties: int, count: int) -> list[ObfPosition]:
    """The positions with exactly `empties` empty squares of the first `count` games of a WTHOR
    file that reach one (as ObfPositions without scores; `line` is the game's index)."""
    from alphazero.data.wthor import read_wtb
    from alphazero.othello.bitboard import PASS
    from alphazero.othello.game import GameState

    positions = []
    for game in read_wtb(path):
        state = GameState.start()
        for square in game.squares:
            if state.must_pass():
                state = state.play(PASS)
            if state.empties() == empties:
                if not state.is_over():
                    positions.append(ObfPosition(game.index, "", state, {}))
                break
            if not state.is_legal(square):
                break  # a corrupt record: skip the game
            state = state.play(square)
        if len(positions) == count:
            break
    return positions


def run(files: list[str], specs: list[str], table_bits: int, max_positions: int | None, wld: bool,
        verbose: bool, sources: dict | None = None) -> dict:
    load_before = os.getloadavg()
    solvers = {}
    for spec in specs:
        solvers[spec] = Solver(table_bits, SearchOptions.parse(spec))
        solvers[spec].warm_up()  # compile or load the kernels outside the timing
    records = {spec: {path: [] for path in files} for spec in specs}
    turn = 0
    sources = sources or {path: read_obf(path)[:max_positions] for path in files}
    for path in files:
        for position in sources[path]:
            state = position.state
            order = specs[turn % len(specs):] + specs[:turn % len(specs)]
            turn += 1
            line = f"{Path(str(path)).name}:{position.line} empties {state.empties()}"
            for spec in order:
                cpu = time.process_time()
                solution = solvers[spec].solve(state.player, state.opponent, wld=wld)
                cpu = time.process_time() - cpu
                problem = check_result(position, solution.best_move, solution.score, wld)
                records[spec][path].append({"nodes": solution.nodes, "seconds": solution.seconds,
                                            "cpu_seconds": cpu, "problem": problem})
            if verbose:
                for spec in specs:
                    r = records[spec][path][-1]
                    line += f" | {spec}: nodes {r['nodes']} seconds {r['seconds']:.3f}"
                    line += f" MISMATCH {r['problem']}" if r["problem"] else ""
                print(line, flush=True)
    runs = []
    for spec in specs:
        every = [r for path in files for r in records[spec][path]]
        result = {"options": spec, **_summary(every),
                  "files": [{"file": Path(str(path)).name, **_summary(records[spec][path])} for path in files]}
        runs.append(result)
    load = [round(x, 2) for x in (load_before[0], os.getloadavg()[0])]
    return {"mode": "wld" if wld else "exact", "table_bits": table_bits, "load_average_1min": load, "runs": runs}


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench endgame")
    parser.add_argument("--obf", nargs="+", default=[str(p) for p in DEFAULT_FILES], help="the .obf files")
    parser.add_argument("--max-positions", type=positive_int, default=None, help="solve only the first N of each file")
    parser.add_argument("--wld", action="store_true", help="win/loss/draw searches instead of exact scores")
    parser.add_argument("--table-bits", type=in_range(8, 28), default=22, help="transposition table of 2**BITS entries")
    parser.add_argument("--options", default="default",
                        help="comma-separated solver switch sets, e.g. off,default or off,off+etc (default: default)")
    parser.add_argument("--verbose", action="store_true", help="a line per position (stdout, before the JSON)")
    parser.add_argument("--wthor", default=None, metavar="FILE",
                        help="solve positions from the games of this WTHOR .wtb file instead of .obf files")
    parser.add_argument("--empties", default="14,16,18", help="with --wthor: the empties counts (comma-separated)")
    parser.add_argument("--count", type=positive_int, default=40, help="with --wthor: positions per empties count")
    args = parser.parse_args(argv)
    specs = [spec.strip() for spec in args.options.split(",") if spec.strip()]
    if not specs or len(set(specs)) != len(specs):
        parser.error(f"--options must name one or more distinct switch sets, got {args.options!r}")
    try:
        for spec in specs:
            SearchOptions.parse(spec)
    except ValueError as err:
        parser.error(f"--options: {err}")
    sources = None
    if args.wthor:
        from alphazero.data.wthor import DataFormatError

        try:
            empties = [int(text) for text in args.empties.split(",")]
        except ValueError:
            parser.error(f"--empties must be comma-separated integers, got {args.empties!r}")
        if not all(1 <= n <= 40 for n in empties):
            parser.error(f"--empties must be in 1..40, got {args.empties!r}")
        try:
            sources = {f"{Path(args.wthor).name}@{n}": wthor_positions(args.wthor, n, args.count) for n in empties}
        except (OSError, DataFormatError) as err:
            parser.error(f"--wthor: {err}")
        files = list(sources)
    else:
        try:
            for path in args.obf:
                read_obf(path)
        except ObfError as err:
            parser.error(str(err))
        files = args.obf
    result = run(files, specs, args.table_bits, args.max_positions, args.wld, args.verbose, sources)
    if len(specs) == 1:  # one set: its figures at the top level, as before
        return {key: value for key, value in result.items() if key != "runs"} | result["runs"][0]
    first = result["runs"][0]
    for entry in result["runs"]:
        entry["vs_first"] = {key: round(entry[key] / first[key], 3) if first[key] else None
                             for key in ("nodes", "mean_ms", "mean_cpu_ms")}
    return result
