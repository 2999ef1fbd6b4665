"""How much of its time a search by time uses, and how many simulations it gets from it: the
default network's chooser (`play --seconds S`, one torch thread) on midgame positions (WTHOR 2018,
40 empties: beyond the solver and its probe), each position on a fresh tree. Run it once per
checkout to compare (PYTHONPATH=CHECKOUT), taking turns, under the same load.

    PYTHONPATH=CHECKOUT python experiments/timed-chunks/fill.py --seconds 0.5 --count 20 --tag NAME
"""

import argparse
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--empties", type=int, default=40)
    parser.add_argument("--tag", default="")
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "selfplay-medium.pt"))
    parser.add_argument("--wtb", default=str(ROOT.parent / "shared" / "data" / "wthor" / "WTH_2018.wtb"))
    args = parser.parse_args()

    import alphazero
    from alphazero.bench.endgame import wthor_positions
    from alphazero.engine.factory import build_evaluator
    from alphazero.nn.checkpoint import load_network
    from alphazero.play.choosers import SearchChooser

    evaluator = build_evaluator(load_network(args.checkpoint), device="cpu", threads=1)
    chooser = SearchChooser(evaluator, simulations=None, seconds=args.seconds)
    chooser.warm_up()
    states = [p.state for p in wthor_positions(args.wtb, args.empties, 2 * args.count)]
    states = [s for s in states if not s.must_pass()][:args.count]
    chooser.choose(states[-1])  # the first call's one-off costs, outside the measurement
    load_before = os.getloadavg()
    simulations, seconds, longest = [], [], 0.0
    for state in states:
        started = time.perf_counter()
        chooser.choose(state)
        elapsed = time.perf_counter() - started
        simulations.append(chooser.last_simulations)
        seconds.append(elapsed)
        longest = max(longest, elapsed)
    n = len(states)
    print(json.dumps({"tag": args.tag, "code": str(Path(alphazero.__file__).parent.parent), "seconds_a_move": args.seconds,
                      "positions": n, "mean_simulations": round(sum(simulations) / n, 1),
                      "mean_seconds": round(sum(seconds) / n, 3), "used": round(sum(seconds) / n / args.seconds, 3),
                      "longest": round(longest, 3), "load_before": load_before, "load_after": os.getloadavg(),
                      "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}), flush=True)


if __name__ == "__main__":
    main()
