"""What one gate round costs on this machine: the gate's own players (the preset's search settings,
noise and temperature off, `arena.simulations`, `arena.threads`, `arena.precision`) playing rounds
of `arena.pairs` paired games on the gate's own openings, candidate against best, timed round by
round. One JSON line per round, then a summary line.

    python experiments/gate-power/gate_cost.py --preset warmstart --rounds 3 \
        --candidate checkpoints/selfplay.pt --best checkpoints/warmstart.pt [OVERRIDE ...]

games/s and CPU seconds per game (the process's CPU time: a gate runs in the trainer's process)
turn a gate's expected games (simulate.py) into minutes. --log keeps every game (an arena games log).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from alphazero.arena.game_log import GameLog
from alphazero.arena.match import play_match
from alphazero.arena.openings import random_openings
from alphazero.arena.players import build_player
from alphazero.nn.checkpoint import load_network
from alphazero.train.evaluation import torch_threads
from alphazero.train.schema import register_configs
from alphazero.train.startup import compose_typed

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="warmstart")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--candidate", default="checkpoints/selfplay.pt")
    parser.add_argument("--best", default="checkpoints/warmstart.pt")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", default=None, help="arena games log (JSON lines) to keep the games in")
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. arena.simulations=50")
    args = parser.parse_args()
    register_configs()
    cfg = compose_typed([f"experiment={args.preset}", "run.dir=/tmp/unused", *args.overrides], str(CONF_DIR))
    arena = cfg.arena
    openings = random_openings(args.rounds * arena.pairs, arena.opening_plies, args.seed)
    log = GameLog(args.log) if args.log else None
    header = {"preset": args.preset, "overrides": args.overrides, "candidate": args.candidate, "best": args.best,
              "pairs_per_round": arena.pairs, "simulations": arena.simulations, "threads": arena.threads,
              "precision": arena.precision, "opening_plies": arena.opening_plies, "cpu": cpu_model(),
              "load_before": os.getloadavg(), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    print(json.dumps(header), flush=True)
    totals = {"games": 0, "seconds": 0.0, "cpu_seconds": 0.0, "pairs": [0] * 5, "wins": 0, "draws": 0, "losses": 0}
    with torch_threads(arena.threads):
        options = dict(device="cpu", threads=arena.threads, precision=arena.precision)
        candidate = build_player(load_network(args.candidate), cfg.mcts, arena.simulations, name="candidate", **options)
        best = build_player(load_network(args.best), cfg.mcts, arena.simulations, name="best", **options)
        # Warm-up outside the measure: numba's kernels load, the precision verdict is read or timed.
        play_match(candidate, best, num_pairs=None, openings=random_openings(1, arena.opening_plies, args.seed + 1), seed=args.seed)
        for index in range(args.rounds):
            wall, cpu = time.perf_counter(), time.process_time()
            result = play_match(candidate, best, num_pairs=None, openings=openings[index * arena.pairs:(index + 1) * arena.pairs],
                                seed=args.seed, game_log=log)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            pairs = result.pentanomial()
            row = {"round": index, "games": result.num_games, "wins": result.wins, "draws": result.draws, "losses": result.losses,
                   "pairs": pairs, "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
                   "games_per_second": round(result.num_games / wall, 3), "load": os.getloadavg()}
            print(json.dumps(row), flush=True)
            totals["games"] += result.num_games
            totals["seconds"] += wall
            totals["cpu_seconds"] += cpu
            totals["pairs"] = [a + b for a, b in zip(totals["pairs"], pairs)]
            for key in ("wins", "draws", "losses"):
                totals[key] += getattr(result, key)
    totals.update(games_per_second=round(totals["games"] / totals["seconds"], 3),
                  cpu_seconds_per_game=round(totals["cpu_seconds"] / totals["games"], 3),
                  seconds=round(totals["seconds"], 1), cpu_seconds=round(totals["cpu_seconds"], 1),
                  load_after=os.getloadavg(), summary=True)
    print(json.dumps(totals), flush=True)


if __name__ == "__main__":
    main()
