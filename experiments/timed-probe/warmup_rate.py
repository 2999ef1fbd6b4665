"""How well does the solver's warm-up speed (`Solver.nodes_per_second` right after `warm_up`)
predict the speed of a search by time's first root probe (a win/loss/draw solve of 19-24 empties
with a node limit, from an empty table)?

For each WTHOR 2018 position at E empties: a fresh solver is warmed up, its speed read, and the
position probed as `alphazero.engine.timed.probe_root` would (wld, node limit NODES); the line
gives the warm-up's speed, the probe's own speed (its nodes over its seconds) and their ratio.
A ratio above 1 means the probe's node limit, set from the warm-up's speed, runs longer than the
share of the move it was given.

    python experiments/timed-probe/warmup_rate.py --empties 20 22 24 --count 8 --nodes 2000000

Run it on two trees side by side (PYTHONPATH=<a git archive of the other commit>) to compare two
warm-ups.
"""

import argparse
import json
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--empties", type=int, nargs="+", default=[20, 22, 24])
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--nodes", type=int, default=2_000_000, help="the probe's node limit")
    parser.add_argument("--table-bits", type=int, default=None, help="default: the search's (MCTSConfig)")
    parser.add_argument("--wtb", default=str(ROOT.parent / "shared" / "data" / "wthor" / "WTH_2018.wtb"))
    args = parser.parse_args()

    from alphazero.bench.endgame import wthor_positions
    from alphazero.nn.precision import cpu_model
    from alphazero.mcts.config import MCTSConfig
    from alphazero.solver.solver import Solver

    bits = args.table_bits or MCTSConfig().endgame_table_bits

    print(json.dumps({"cpu": cpu_model(), "load_before": os.getloadavg(), "nodes": args.nodes, "table_bits": bits,
                      "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}), flush=True)
    ratios = []
    for empties in args.empties:
        states = [p.state for p in wthor_positions(args.wtb, empties, 4 * args.count)][:args.count]
        for index, state in enumerate(states):
            solver = Solver(bits)
            solver.warm_up()
            warm = solver.nodes_per_second()
            started = time.perf_counter()
            solution = solver.solve(state.player, state.opponent, wld=True, node_limit=args.nodes)
            seconds = time.perf_counter() - started
            nodes = int(solver.nodes[0])
            probe = nodes / seconds
            ratios.append(warm / probe)
            print(json.dumps({"empties": empties, "position": index, "warm_up_nps": round(warm), "probe_nps": round(probe),
                              "probe_nodes": nodes, "proved": solution is not None,
                              "warm_over_probe": round(warm / probe, 2)}), flush=True)
    print(json.dumps({"summary": True, "median_warm_over_probe": round(statistics.median(ratios), 2),
                      "min": round(min(ratios), 2), "max": round(max(ratios), 2), "load_after": os.getloadavg()}),
          flush=True)


if __name__ == "__main__":
    main()
