"""Self-play with a preset's search, counting simulations both ways on the same games.

    python experiments/simulations-counter/count.py --preset cpu --games 64 [--checkpoint PATH] [overrides...]

Builds the search and the runner as a self-play worker does (the preset's mcts and selfplay
settings, `--slots` games at a time) on a network of the preset's model with random weights
(torch seed 0, as `bench selfplay` uses) or on `--checkpoint`, plays `--games` games and prints
one JSON line:

  positions                  moves played, forced passes included (what positions/s counts)
  forced_passes              of which forced passes (not searched)
  simulations_searched       SearchResult.simulations summed: the counter since issue 34
  visits_counted             the root children's visits after each search summed: the counter
                             before (it includes the visits reused from the previous move's tree)
  inflation                  visits_counted / simulations_searched
  searched_per_position      simulations_searched / positions: the factor that turns a published
                             positions/s into simulations/s
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def main(argv):
    parser = argparse.ArgumentParser(prog="count.py")
    parser.add_argument("--preset", default="cpu")
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--slots", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checkpoint", default=None, help="a network checkpoint instead of random weights")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)

    import torch

    from alphazero.bench.selfplay import load_preset
    from alphazero.engine.factory import build_evaluator, build_search
    from alphazero.nn.checkpoint import build_network
    from alphazero.selfplay.games import SelfPlayRunner

    cfg = load_preset(args.preset, args.overrides)
    torch.manual_seed(0)
    network = args.checkpoint or build_network(cfg.model).eval()
    evaluator = build_evaluator(network, device="cpu", threads=1)
    search = build_search(cfg.mcts, evaluator, min(args.slots, args.games), seed=args.seed)
    counts = {"visits_counted": 0, "simulations_searched": 0}
    searching = search.search

    def counting_search(positions, ply, active=None, add_noise=True, simulations=None):
        result = searching(positions, ply, active, add_noise, simulations)
        counts["visits_counted"] += int(result.visits.sum())  # rows of inactive games are 0
        counts["simulations_searched"] += int(result.simulations.sum())
        return result

    search.search = counting_search
    runner = SelfPlayRunner(search, np.random.default_rng(args.seed), cfg.selfplay.random_opening_plies,
                            playout_cap_fraction=cfg.selfplay.playout_cap_fraction,
                            playout_cap_small=cfg.selfplay.playout_cap_small)
    start = time.perf_counter()
    records = runner.play(args.games)
    seconds = time.perf_counter() - start
    positions = sum(len(record) for record in records)
    forced_passes = sum(int((record.actions == 64).sum()) for record in records)
    assert counts["simulations_searched"] == runner.simulations_run
    return {
        "preset": args.preset,
        "overrides": args.overrides,
        "network": args.checkpoint or f"{cfg.model.blocks}x{cfg.model.channels} random weights",
        "games": len(records),
        "root_policy": cfg.mcts.root_policy,
        "simulations": cfg.mcts.simulations,
        "tree_reuse": cfg.mcts.tree_reuse,
        "positions": positions,
        "forced_passes": forced_passes,
        **counts,
        "inflation": round(counts["visits_counted"] / counts["simulations_searched"], 4),
        "searched_per_position": round(counts["simulations_searched"] / positions, 2),
        "seconds": round(seconds, 1),
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
