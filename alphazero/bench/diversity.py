"""`python -m alphazero.bench diversity`: how many different openings self-play plays.

A self-play run learns only from the games it plays; if nearly every game opens the same way, the
replay buffer holds a few lines many times over and the network fits them (issue 16: from the warm
start, the Gumbel root without `mcts.gumbel_sample_plies` played 7 distinct 4-ply openings in
1,280 games). This plays `--games` self-play games from a network with a preset's search settings
(the self-play search itself, as a worker builds it: root noise, temperature, Gumbel draws) and
reports, for each opening length k, how many distinct k-ply move sequences the games have and how
many games share the most common one.

    python -m alphazero.bench diversity --checkpoint checkpoints/warmstart.pt mcts.simulations=128
    python -m alphazero.bench diversity --checkpoint checkpoints/warmstart.pt mcts.root_policy=puct
    python -m alphazero.bench diversity --run RUN_DIR --shards 40    # a run's latest games instead

One JSON line: games, distinct openings per length (`distinct_<k>`), the number of games that
share the most common opening per length (`most_common_<k>`), distinct whole games, seconds, and
the search settings (with --run: the run directory and the shards read).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

from alphazero.argtypes import positive_int
from alphazero.bench.selfplay import PRESETS, load_preset

OPENING_LENGTHS = (4, 8, 10, 12, 16, 20)


def opening_counts(games: list[tuple[int, ...]], lengths=OPENING_LENGTHS) -> dict:
    """distinct_<k> and most_common_<k> for each opening length k (a game shorter than k counts
    as its whole move list)."""
    result = {}
    for k in lengths:
        counts = Counter(game[:k] for game in games)
        result[f"distinct_{k}"] = len(counts)
        result[f"most_common_{k}"] = counts.most_common(1)[0][1] if counts else 0
    result["distinct_games"] = len(set(games))
    return result


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench diversity", description=__doc__.split("\n\n")[1])
    parser.add_argument("--checkpoint", default="checkpoints/warmstart.pt", help="the network that plays (default: the warm start)")
    parser.add_argument("--preset", choices=PRESETS, default="cpu", help="whose self-play settings (default cpu)")
    parser.add_argument("--games", type=positive_int, default=128)
    parser.add_argument("--slots", type=positive_int, default=64, help="games played at once (one batched search)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    parser.add_argument("--run", default=None, help="count the games of this run directory's latest shards instead of playing")
    parser.add_argument("--shards", type=positive_int, default=40, help="with --run: how many of the latest shards (default 40)")
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. mcts.simulations=128 mcts.gumbel_sample_plies=20")
    args = parser.parse_args(argv)
    if args.run is not None:
        if args.overrides:
            parser.error("--run counts a run's games as they were played: config overrides do not apply")
        return _run_openings(Path(args.run), args.shards, parser)
    if not Path(args.checkpoint).is_file():
        parser.error(f"--checkpoint {args.checkpoint}: no such file")

    import torch

    from alphazero.engine.factory import build_evaluator, build_search
    from alphazero.selfplay.games import SelfPlayRunner

    cfg = load_preset(args.preset, args.overrides)
    torch.set_num_threads(args.threads)
    evaluator = build_evaluator(args.checkpoint, device="cpu")
    search = build_search(cfg.mcts, evaluator, min(args.slots, args.games), seed=args.seed)
    runner = SelfPlayRunner(search, np.random.default_rng(args.seed), cfg.selfplay.random_opening_plies,
                            playout_cap_fraction=cfg.selfplay.playout_cap_fraction,
                            playout_cap_small=cfg.selfplay.playout_cap_small)
    start = time.perf_counter()
    records = runner.play(args.games)
    seconds = time.perf_counter() - start
    games = [tuple(int(action) for action in record.actions) for record in records]
    mcts = cfg.mcts
    return {
        "benchmark": "diversity",
        "checkpoint": args.checkpoint,
        "preset": args.preset,
        "games": len(games),
        **opening_counts(games),
        "seconds": round(seconds, 1),
        "root_policy": mcts.root_policy,
        "simulations": mcts.simulations,
        "temperature": mcts.temperature,
        "temperature_plies": mcts.temperature_plies,
        "gumbel_sample_plies": mcts.gumbel_sample_plies,
        "random_opening_plies": cfg.selfplay.random_opening_plies,
        "overrides": args.overrides,
    }


def _run_openings(run_dir: Path, shards: int, parser) -> dict:
    """The opening counts of the games in a run's `shards` latest replay shards (shard names hold
    their writer's clock, so the last names are the newest)."""
    from alphazero.replay.buffer import list_shards
    from alphazero.replay.shard import ShardError, read_shard

    replay = run_dir / "replay"
    names = list_shards(replay)[-shards:]
    if not names:
        parser.error(f"--run {run_dir}: no replay shards in {replay}")
    start = time.perf_counter()
    games = []
    for name in names:
        try:
            data = read_shard(replay / name, verify_positions=False)
        except ShardError as error:
            parser.error(f"--run {run_dir}: {error}")
        for g in range(data.num_games):
            games.append(tuple(int(a) for a in data.actions[data.action_offsets[g]:data.action_offsets[g + 1]]))
    return {
        "benchmark": "diversity",
        "run": str(run_dir),
        "shards": len(names),
        "first_shard": names[0],
        "last_shard": names[-1],
        "games": len(games),
        **opening_counts(games),
        "seconds": round(time.perf_counter() - start, 1),
    }
