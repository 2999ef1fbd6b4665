"""`python -m alphazero.bench accuracy --checkpoint PATH [--years 2018 | --split random5] [--data DIR]`:
how well a checkpoint predicts expert play on WTHOR games.

`--split year` (default): every decision of the chosen years' usable games (forced passes
skipped: there is no choice to predict). `--split random5`: the held-out 5% of the de-duplicated
database (Liskowski et al. 2018's protocol; `pretrain.split=random5` trains on the other 95%), one
row per distinct (position, move), its value target the mean outcome over the row's occurrences;
the dataset is built (seconds) or reused in the same cache as pretraining's. Positions in their
recorded orientation (no augmentation), scored by
`alphazero.pretrain.accuracy.evaluate_accuracy`: top-1 / top-3 move accuracy of the masked policy,
mean -log p(expert move), value MSE against the target and the value's sign accuracy on decided
games. The value target defaults to the one the checkpoint was pretrained on (recorded in it),
else the game outcome. A network that reads the game's history (model=seed_cnn_rnn) gets the
previous actions of each position's game.
"""

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from alphazero.data.dataset import MARGIN_SCALE, decision_plies, ensure_dataset, expand_positions, game_action_table
from alphazero.data.wthor import read_wthor_directory, replay_database
from alphazero.nn.model import count_parameters
from alphazero.othello.history import history_windows
from alphazero.nn.checkpoint import build_network, load_checkpoint, load_weights
from alphazero.nn.inference import resolve_device
from alphazero.pretrain.accuracy import evaluate_accuracy
from alphazero.pretrain.config import DEFAULT_WTHOR_DIR, VALUE_TARGETS, PretrainConfig


def expert_positions(data: Path, years: list[int], history: int = 0):
    """(positions uint64[N, 2], moves int64[N], outcomes float32[N], margins float32[N], games,
    history uint8[N, history] or None)."""
    replay = replay_database(read_wthor_directory(data, years))
    positions, moves, margins, games = expand_positions(replay.actions, replay.num_plies, replay.black_margin, replay.usable)
    windows = None
    if history:
        plies = decision_plies(replay.actions, replay.num_plies, replay.usable)
        windows = history_windows(game_action_table(replay.actions), games, plies, history)
    margins = margins.astype(np.float32)
    return positions, moves.astype(np.int64), np.sign(margins), margins / MARGIN_SCALE, int(replay.usable.sum()), windows


def random5_positions(data: Path, dataset_dir: str, seed: int, history: int = 0):
    """The same tuple for the validation split of the random5 dataset (games: distinct games
    its rows come from)."""
    settings = PretrainConfig(wthor_dir=str(data), dataset_dir=dataset_dir, split="random5", split_seed=seed)
    dataset = ensure_dataset(settings.resolved_wthor_dir(), settings.resolved_dataset_dir(), settings.dataset_options(), progress=False)
    split = dataset.validation
    windows = split.history(np.arange(len(split)), history) if history else None
    return split.positions, np.asarray(split.moves, dtype=np.int64), split.values, split.margins, len(np.unique(split.game)), windows


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench accuracy", description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True, help="checkpoint file (alphazero.nn.checkpoint format)")
    parser.add_argument("--years", type=int, nargs="+", default=[2018], help="WTHOR years to score with --split year (default: 2018, the validation year)")
    parser.add_argument("--split", choices=("year", "random5"), default="year", help="year: all positions of --years; random5: the held-out 5%% of the de-duplicated database")
    parser.add_argument("--split-seed", type=int, default=0, help="seed of the random5 hold-out (pretrain.split_seed; default 0)")
    parser.add_argument("--dataset-dir", default="", help="random5 dataset directory (default: pretraining's cache for these options)")
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

    history = checkpoint.model_config.history
    if args.split == "year":
        positions, moves, outcomes, margins, games, windows = expert_positions(args.data, args.years, history)
    else:
        positions, moves, outcomes, margins, games, windows = random5_positions(args.data, args.dataset_dir, args.split_seed, history)
    start = time.perf_counter()
    report = evaluate_accuracy(
        net, positions, moves, outcomes if value_target == "outcome" else margins, batch_size=args.batch_size, device=device, history=windows
    )
    seconds = time.perf_counter() - start
    return {
        "checkpoint": str(args.checkpoint),
        "split": args.split,
        **({"years": args.years} if args.split == "year" else {"split_seed": args.split_seed}),
        "games": games,
        **report.as_dict(),
        "value_target": value_target,
        "model": checkpoint.model_config.to_dict(),
        "parameters": count_parameters(net),
        "seconds": round(seconds, 2),
        "positions_per_second": round(report.positions / seconds),
    }
