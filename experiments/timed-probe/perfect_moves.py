"""Does a search by time keep won and drawn endgames better when it first tries to prove its
root (MCTSConfig.endgame_timed_probe_share; alphazero.engine.timed.probe_root)?

For WTHOR 2018 positions with E empties (beyond the search's own solving reach of 18), the
default network's arena player by time (`mcts:...,seconds=S`, each position on a fresh tree, one
torch thread) chooses a move with the probe (the default share) and without it (share 0), in
turns position by position (the first arm alternates) so both see the same load; the solver then
proves (win/loss/draw) the position and both moves. A move "gives away" the result when its
outcome is worse than the position's (a won position to a draw or loss, a drawn one to a loss).

    python experiments/timed-probe/perfect_moves.py --seconds 1 --empties 20 22 24 --count 20 > OUT.jsonl

One JSON line per position and arm, then a summary line per empties and arm.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--empties", type=int, nargs="+", default=[20, 22])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "selfplay-medium.pt"))
    parser.add_argument("--wtb", default=str(ROOT.parent / "shared" / "data" / "wthor" / "WTH_2018.wtb"))
    args = parser.parse_args()

    import dataclasses

    from alphazero.arena.players import MCTSPlayer
    from alphazero.bench.endgame import wthor_positions
    from alphazero.engine.factory import build_evaluator
    from alphazero.mcts.config import MCTSConfig
    from alphazero.nn.checkpoint import load_network
    from alphazero.nn.precision import cpu_model
    from alphazero.solver.solver import Solver

    evaluator = build_evaluator(load_network(args.checkpoint), device="cpu", threads=1)
    arms = {
        "probe": MCTSPlayer(evaluator, simulations=None, seconds=args.seconds, config=MCTSConfig(), name="probe"),
        "no-probe": MCTSPlayer(evaluator, simulations=None, seconds=args.seconds,
                               config=dataclasses.replace(MCTSConfig(), endgame_timed_probe_share=0.0), name="no-probe"),
    }
    judge = Solver(24)
    print(json.dumps({"seconds": args.seconds, "checkpoint": os.path.basename(args.checkpoint), "cpu": cpu_model(),
                      "load_before": os.getloadavg(), "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}),
          flush=True)
    for empties in args.empties:
        states = [p.state for p in wthor_positions(args.wtb, empties, 4 * args.count)]
        states = [s for s in states if not s.must_pass() and len(s.legal_actions()) >= 2][:args.count]
        totals = {name: [0, 0, 0.0] for name in arms}  # results given away, proven (no simulation), seconds
        for index, state in enumerate(states):
            best = judge.solve(state.player, state.opponent, wld=True).outcome
            order = list(arms) if index % 2 == 0 else list(arms)[::-1]
            for name in order:
                started = time.perf_counter()
                move = arms[name].select_moves([state])[0]
                seconds = time.perf_counter() - started
                child = state.play(move)
                outcome = -outcome_of(judge, child)
                totals[name][0] += outcome < best
                totals[name][2] += seconds
                print(json.dumps({"empties": empties, "position": index, "arm": name, "move": move, "best": best,
                                  "outcome": outcome, "seconds": round(seconds, 3)}), flush=True)
        for name, (given_away, _, seconds) in totals.items():
            n = len(states)
            print(json.dumps({"summary": name, "empties": empties, "positions": n,
                              "won_or_drawn": sum(1 for s in states if judge.solve(s.player, s.opponent, wld=True).outcome >= 0),
                              "given_away": given_away, "mean_seconds": round(seconds / n, 3),
                              "load_after": os.getloadavg()}), flush=True)


def outcome_of(judge, state):
    """+1 / 0 / -1 for the side to move of `state` under perfect play (a finished game: its result)."""
    if state.is_over():
        margin = int(state.player).bit_count() - int(state.opponent).bit_count()
        return (margin > 0) - (margin < 0)
    return judge.solve(state.player, state.opponent, wld=True).outcome


if __name__ == "__main__":
    sys.exit(main())
