"""The solver's thresholds side by side on FForum positions (issue 67): nodes (exact, load-free)
and CPU seconds of each variant of `SearchOptions()`, the variants taking turns position by
position as `bench endgame --options` does. Variants are `field=value[;field=value]` texts.

    PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/param_sweep.py \
        "" "shallow_empties=6" "order_search_depth=2" --obf ../shared/data/ffo/fforum-20-39.obf
    PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/param_sweep.py \
        "" "order_deeper_empties=22" --wthor ../shared/data/wthor/WTH_2018.wtb --empties 22,24 --count 10

With --wthor (positions from real games, no known scores) a score is "exact" when it equals the
first variant's.
"""

import argparse
import dataclasses
import json
import os
import time

from alphazero.bench.endgame import wthor_positions
from alphazero.solver.obf import check_result, read_obf
from alphazero.solver.solver import SearchOptions, Solver


def options_of(text):
    fields = {}
    for part in filter(None, text.split(";")):
        name, value = part.split("=")
        fields[name.strip()] = type(getattr(SearchOptions(), name.strip()))(int(value))
    return dataclasses.replace(SearchOptions(), **fields)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--obf", nargs="+", default=[])
    parser.add_argument("--wthor", default=None, help="a WTHOR file: solve its games' positions instead")
    parser.add_argument("--empties", default="22", help="with --wthor: empties counts, comma-separated")
    parser.add_argument("--count", type=int, default=10, help="with --wthor: positions per empties count")
    parser.add_argument("--table-bits", type=int, default=22)
    parser.add_argument("--wld", action="store_true", help="win/loss/draw solves instead of exact scores")
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    sources = [read_obf(path) for path in args.obf]
    if args.wthor:
        sources += [wthor_positions(args.wthor, int(n), args.count) for n in args.empties.split(",")]
    side_by_side({v: Solver(args.table_bits, options_of(v)) for v in args.variants}, sources, wld=args.wld)


def side_by_side(solvers, sources, label="variant", wld=False):
    """Warm every solver up, then solve each position with each in turn (the first to go
    rotating), and print one JSON line per solver (nodes, CPU seconds, both as ratios to the
    first, exact: every score equals the file's and the first solver's) and the load. Also used
    by table_layout.py and weights_dtype.py, whose solvers differ in their arrays."""
    load = os.getloadavg()[0]
    names = list(solvers)
    for solver in solvers.values():
        solver.warm_up()
    totals = {v: {"nodes": 0, "cpu_seconds": 0.0, "exact": True} for v in names}
    turn = 0
    for positions in sources:
        for position in positions:
            order = names[turn % len(names):] + names[:turn % len(names)]
            turn += 1
            scores = {}
            for v in order:
                cpu = time.process_time()
                s = solvers[v].solve(position.state.player, position.state.opponent, wld=wld)
                totals[v]["cpu_seconds"] += time.process_time() - cpu
                totals[v]["nodes"] += s.nodes
                scores[v] = s.score
                if position.move_scores:
                    totals[v]["exact"] &= check_result(position, s.best_move, s.score, wld) is None
            for v in names:
                if wld:  # fail-soft bounds differ between trees; the outcome may not
                    totals[v]["exact"] &= (scores[v] > 0) - (scores[v] < 0) == (scores[names[0]] > 0) - (scores[names[0]] < 0)
                else:
                    totals[v]["exact"] &= scores[v] == scores[names[0]]
    base = totals[names[0]]
    for v in names:
        t = totals[v]
        t["cpu_seconds"] = round(t["cpu_seconds"], 3)
        t["nodes_vs_first"] = round(t["nodes"] / base["nodes"], 3)
        t["cpu_vs_first"] = round(t["cpu_seconds"] / base["cpu_seconds"], 3)
        print(json.dumps({label: v or "default", **t}))
    print(json.dumps({"load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)]}))

if __name__ == "__main__":
    main()
