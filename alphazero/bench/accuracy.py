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
previous actions of each position's game. A network with KataGo's auxiliary heads is also scored
on them: `score_loss`, `score_error` (mean |predicted - final| score in discs) and
`ownership_loss` (alphazero.pretrain.accuracy.pretraining_auxiliary_losses).

`--precision bf16` (or int8, a CPU only, policy and value only) scores the network in that
arithmetic (`pretrain.accuracy.inference_forward`), fp32 by default. `--against fp32` (with
`--precision bf16`, or another pair) also evaluates every position through `NetworkEvaluator`
(the path self-play, the arena and play use) in both precisions and reports their agreement:
the share of positions whose top-1 move is the same (also up to the symmetries that leave the
board unchanged: the start position's four moves are one, and a near-tie between them flips
with any rounding), and the mean and largest |value difference| (issue 39's bf16 quality check:
>= 98% and <= 0.02).
`--positions N` scores a random sample of N positions (seeded by `--sample-seed`) instead of all.
"""

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from alphazero.argtypes import non_negative_int, positive_int
from alphazero.data.dataset import MARGIN_SCALE, GameFinals, OccurrenceFinals, decision_plies, ensure_dataset, expand_positions, game_action_table
from alphazero.data.wthor import read_wthor_directory, replay_database
from alphazero.nn.model import count_parameters
from alphazero.othello.history import history_windows
from alphazero.nn.checkpoint import build_network, load_checkpoint, load_weights
from alphazero.nn.inference import NetworkEvaluator, resolve_device
from alphazero.pretrain.accuracy import evaluate_accuracy, symmetric_hits
from alphazero.pretrain.batches import auxiliary_targets, targets_of_final_boards
from alphazero.pretrain.config import DEFAULT_WTHOR_DIR, VALUE_TARGETS, PretrainConfig


ACCURACY_PRECISIONS = ("fp32", "bf16", "int8")


def expert_positions(data: Path, years: list[int], history: int = 0, auxiliary: bool = False):
    """(positions uint64[N, 2], moves int64[N], outcomes float32[N], margins float32[N], games,
    history uint8[N, history] or None, auxiliary targets (score, ownership, ownership_known) or
    None)."""
    replay = replay_database(read_wthor_directory(data, years))
    positions, moves, margins, games = expand_positions(replay.actions, replay.num_plies, replay.black_margin, replay.usable)
    windows = targets = None
    if history or auxiliary:
        plies = decision_plies(replay.actions, replay.num_plies, replay.usable)
        table = game_action_table(replay.actions)
        if history:
            windows = history_windows(table, games, plies, history)
        if auxiliary:
            boards, finished = GameFinals.of(table).from_side_to_move(games, plies)
            targets = _as_tuple(targets_of_final_boards(OccurrenceFinals(boards, finished, np.arange(len(moves))), len(moves)))
    margins = margins.astype(np.float32)
    return positions, moves.astype(np.int64), np.sign(margins), margins / MARGIN_SCALE, int(replay.usable.sum()), windows, targets


def _as_tuple(targets) -> tuple:
    return targets.score, targets.ownership, targets.ownership_known


def random5_positions(data: Path, dataset_dir: str, seed: int, history: int = 0, auxiliary: bool = False):
    """The same tuple for the validation split of the random5 dataset (games: distinct games
    its rows come from)."""
    settings = PretrainConfig(wthor_dir=str(data), dataset_dir=dataset_dir, split="random5", split_seed=seed)
    dataset = ensure_dataset(settings.resolved_wthor_dir(), settings.resolved_dataset_dir(), settings.dataset_options(), progress=False)
    split = dataset.validation
    windows = split.history(np.arange(len(split)), history) if history else None
    targets = _as_tuple(auxiliary_targets(split, np.arange(len(split)))) if auxiliary else None
    return split.positions, np.asarray(split.moves, dtype=np.int64), split.values, split.margins, len(np.unique(split.game)), windows, targets


def precision_agreement(net, positions: np.ndarray, precision: str, against: str, device, batch_size: int) -> dict:
    """How far `precision` strays from `against` through NetworkEvaluator on `positions`: the
    share with the same top-1 move (legal moves only; ties broken by the lower action in both),
    mean / 99th percentile / largest |value difference|, and the largest |prior difference|."""
    if net.cfg.needs_history:
        raise ValueError("--against needs a board-only network (NetworkEvaluator cannot feed a history)")
    evaluators = {p: NetworkEvaluator(net, device=device, precision=p) for p in (precision, against)}
    top1 = {p: [] for p in evaluators}
    values = {p: [] for p in evaluators}
    largest_prior_difference = 0.0
    for start in range(0, len(positions), batch_size):
        chunk = np.ascontiguousarray(positions[start : start + batch_size], dtype=np.uint64)
        priors = {}
        for p, evaluator in evaluators.items():
            priors[p], value = evaluator(chunk)
            top1[p].append(priors[p].argmax(axis=1))
            values[p].append(value)
        largest_prior_difference = max(largest_prior_difference, float(np.abs(priors[precision] - priors[against]).max()))
    predicted, reference = np.concatenate(top1[precision]), np.concatenate(top1[against])
    same = predicted == reference
    difference = np.abs(np.concatenate(values[precision]).astype(np.float64) - np.concatenate(values[against]))
    return {
        "precision": precision,
        "against": against,
        "positions": int(len(same)),
        "top1_same": round(float(same.mean()), 5),
        "top1_same_up_to_symmetry": round(float(symmetric_hits(positions, predicted, reference).mean()), 5),
        "mean_abs_value_difference": round(float(difference.mean()), 5),
        "p99_abs_value_difference": round(float(np.quantile(difference, 0.99)), 5),
        "max_abs_value_difference": round(float(difference.max()), 5),
        "max_abs_prior_difference": round(largest_prior_difference, 5),
    }


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench accuracy", description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True, help="checkpoint file (alphazero.nn.checkpoint format)")
    parser.add_argument("--years", type=int, nargs="+", default=[2018], help="WTHOR years to score with --split year (default: 2018, the validation year)")
    parser.add_argument("--split", choices=("year", "random5"), default="year", help="year: all positions of --years; random5: the held-out 5%% of the de-duplicated database")
    parser.add_argument("--split-seed", type=int, default=0, help="seed of the random5 hold-out (pretrain.split_seed; default 0)")
    parser.add_argument("--dataset-dir", default="", help="random5 dataset directory (default: pretraining's cache for these options)")
    parser.add_argument("--data", type=Path, default=DEFAULT_WTHOR_DIR, help=f"directory with WTH_*.wtb files (default: {DEFAULT_WTHOR_DIR})")
    parser.add_argument("--value-target", choices=VALUE_TARGETS, default=None, help="outcome or margin (default: the checkpoint's, else outcome)")
    parser.add_argument("--batch-size", type=positive_int, default=2048)
    parser.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, auto, ...")
    parser.add_argument("--precision", choices=ACCURACY_PRECISIONS, default="fp32", help="the network's arithmetic (default fp32; int8: a CPU, policy and value only)")
    parser.add_argument("--against", choices=ACCURACY_PRECISIONS, help="also report the agreement with this precision (see above)")
    parser.add_argument("--positions", type=non_negative_int, default=0, help="score a random sample of this many positions (default 0: all)")
    parser.add_argument("--sample-seed", type=int, default=0, help="seed of --positions' sample (default 0)")
    args = parser.parse_args(argv)
    if args.against == args.precision:
        parser.error(f"--against {args.against} is the precision being scored; pick the other one")
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)

    checkpoint = load_checkpoint(args.checkpoint)
    net = build_network(checkpoint.model_config)
    load_weights(net, checkpoint.state_dict, source=str(args.checkpoint))
    net = net.to(device).eval()
    value_target = args.value_target or checkpoint.extra.get("value_target", "outcome")

    history, heads = checkpoint.model_config.history, checkpoint.model_config.auxiliary_heads
    if "int8" in (args.precision, args.against) and (history or device.type != "cpu"):
        parser.error("int8 runs a board-only network on a CPU (--device cpu, no history)")
    heads = heads and args.precision != "int8"  # int8 runs the policy and value heads only
    if args.split == "year":
        positions, moves, outcomes, margins, games, windows, targets = expert_positions(args.data, args.years, history, heads)
    else:
        positions, moves, outcomes, margins, games, windows, targets = random5_positions(args.data, args.dataset_dir, args.split_seed, history, heads)
    available = len(moves)
    if args.positions and args.positions < available:
        rows = np.sort(np.random.default_rng(args.sample_seed).choice(available, args.positions, replace=False))
        positions, moves, outcomes, margins = positions[rows], moves[rows], outcomes[rows], margins[rows]
        windows = None if windows is None else windows[rows]
        targets = None if targets is None else tuple(t[rows] for t in targets)
    start = time.perf_counter()
    report = evaluate_accuracy(
        net, positions, moves, outcomes if value_target == "outcome" else margins, batch_size=args.batch_size, device=device, history=windows,
        precision=args.precision, auxiliary=targets,
    )
    seconds = time.perf_counter() - start
    agreement = precision_agreement(net, positions, args.precision, args.against, device, args.batch_size) if args.against else None
    return {
        "checkpoint": str(args.checkpoint),
        "split": args.split,
        **({"years": args.years} if args.split == "year" else {"split_seed": args.split_seed}),
        "games": games,
        "precision": args.precision,
        **({"sample": {"positions": len(moves), "of": available, "seed": args.sample_seed}} if len(moves) < available else {}),
        **report.as_dict(),
        **({"agreement": agreement} if agreement else {}),
        "value_target": value_target,
        "model": checkpoint.model_config.to_dict(),
        "parameters": count_parameters(net),
        "seconds": round(seconds, 2),
        "positions_per_second": round(report.positions / seconds),
    }
