"""`python -m alphazero.bench accuracy --checkpoint PATH [--years 2018] [--data DIR]`: how well a
checkpoint predicts expert play on WTHOR games.

Every decision of the chosen years' usable games (forced passes skipped: there is no choice to
predict), in their recorded orientation (no augmentation), scored by
`alphazero.pretrain.accuracy.evaluate_accuracy`: top-1 / top-3 move accuracy of the masked policy,
mean -log p(expert move), value MSE against the target and the value's sign accuracy on decided
games. The value target defaults to the one the checkpoint was pretrained on (recorded in it),
else the game outcome.
"""

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from alphazero.data.dataset import MARGIN_SCALE, expand_positions
from alphazero.data.wthor import read_wthor_directory, replay_database
from alphazero.nn.checkpoint import build_network, load_checkpoint, load_weights
from alphazero.nn.inference import resolve_device
from alphazero.pretrain.accuracy import evaluate_accuracy
from alphazero.pretrain.config import DEFAULT_WTHOR_DIR, VALUE_TARGETS


def expert_positions(data: Path, years: list[int]):
    """(positions uint64[N, 2], moves int64[N], outcomes float32[N], margins float32[N], games)."""
    replay = replay_database(read_wthor_directory(data, years))
    positions, moves, margins, games = expand_positions(replay.actions, replay.num_plies, replay.black_margin, replay.usable)
    margins = margins.astype(np.float32)
    return positions, moves.astype(np.int64), np.sign(margins), margins / MARGIN_SCALE, int(replay.usable.sum())


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench accuracy", description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True, help="checkpoint file (alphazero.nn.checkpoint format)")
    parser.add_argument("--years", type=int, nargs="+", default=[2018], help="WTHOR years to score (default: 2018, the validation year)")
    parser.add_argument("--data", type=Path, default=DEFAULT_WTHOR_DIR, help=f"directory with WTH_*.wtb files (default: {DEFAULT_WTHOR_DIR})")
    parser.add_argument("--value-target", choices=VALUE_TARGETS, default=None, help="outcome or margin (default: the checkpoint's, else outcome)")
    parser.add_argument("--batch-size", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, auto, ...")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)

    checkpoint = load_checkpoint(args.checkpoint)
    net = build_network(checkpoint.model_config)
    load_weights(net, checkpoint.state_dict, source=str(args.checkpoint))
    net = net.to(device).eval()
    value_target = args.value_target or checkpoint.extra.get("value_target", "outcome")

    positions, moves, outcomes, margins, games = expert_positions(args.data, args.years)
    start = time.perf_counter()
    report = evaluate_accuracy(net, positions, moves, outcomes if value_target == "outcome" else margins, batch_size=args.batch_size, device=device)
    seconds = time.perf_counter() - start
    return {
        "checkpoint": str(args.checkpoint),
        "years": args.years,
        "games": games,
        **report.as_dict(),
        "value_target": value_target,
        "model": checkpoint.model_config.to_dict(),
        "seconds": round(seconds, 2),
        "positions_per_second": round(report.positions / seconds),
    }
