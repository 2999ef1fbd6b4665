"""`python -m alphazero.pretrain.patterns`: fit the solver's pattern evaluation to WTHOR games.

The endgame solver orders moves at its top plies by a shallow search of
`alphazero.solver.patterns.pattern_eval` (issue 36). This fits that evaluation's weights: a
linear model of the final disc difference (side to move's view, WTHOR's count: empties to the
winner) on every position of the usable WTHOR games with `--empties` empty squares, one
stochastic-gradient pass per epoch over the positions in a seeded random order, each position
under all 8 board symmetries (the pattern tables are shared by symmetric instances, so a
position and its mirror images teach the same weights). Each weight's step shrinks with the
number of times it has been seen (a per-weight 1/sqrt(count) rate, as AdaGrad does for sparse
features), and a small L2 pull keeps the weights of rare configurations near zero.

One year (`--validation-year`, 2018 by default) is held out and reported: the mean absolute and
squared error in discs and how often the sign of the prediction matches the game's, against the
always-zero prediction. The result goes to `alphazero/solver/pattern_weights.npz` unless `--out`
says otherwise, written atomically with the fit's settings and figures.

    python -m alphazero.pretrain.patterns                       # the shipped weights
    python -m alphazero.pretrain.patterns --wthor ../shared/data/wthor --epochs 3 --out /tmp/w.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from alphazero.data.dataset import expand_positions
from alphazero.data.wthor import read_wthor_directory, replay_database
from alphazero.othello.bits import popcount
from alphazero.othello.symmetry import NUM_SYMMETRIES, transform_bitboard
from alphazero.solver import patterns

DEFAULT_WTHOR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "wthor"


def positions_with_margins(wthor_dir, min_empties: int, max_empties: int, years=None):
    """(positions uint64[N, 2], margins int8[N], years uint16[N]): every decision of the usable
    WTHOR games with min..max empties, the final disc difference from its side to move's view."""
    database = read_wthor_directory(wthor_dir, years)
    replay = replay_database(database)
    positions, _, margins, games = expand_positions(replay.actions, replay.num_plies, replay.black_margin,
                                                    replay.usable)
    empties = 64 - _disc_counts(positions)
    keep = (empties >= min_empties) & (empties <= max_empties)
    return positions[keep], margins[keep], database.year[games[keep]]


@njit(cache=True)
def _disc_counts(positions):
    out = np.empty(positions.shape[0], dtype=np.int64)
    for i in range(positions.shape[0]):
        out[i] = popcount(positions[i, 0] | positions[i, 1])
    return out


@njit(cache=True)
def _sgd_epoch(positions, targets, order, weights, counts, rate, l2):
    """One pass over positions[order] under all 8 symmetries; returns the mean squared error seen
    (before each step)."""
    indices = np.empty(patterns.N_INSTANCES, dtype=np.int64)
    total = 0.0
    for i in order:
        for symmetry in range(NUM_SYMMETRIES):
            player = transform_bitboard(positions[i, 0], symmetry)
            opponent = transform_bitboard(positions[i, 1], symmetry)
            patterns.pattern_indices(player, opponent, indices)
            prediction = 0.0
            for index in indices:
                prediction += weights[index]
            error = targets[i] - prediction
            total += error * error
            for index in indices:
                counts[index] += 1.0
                weights[index] += rate / np.sqrt(counts[index]) * (error - l2 * weights[index])
    return total / max(1, order.shape[0] * NUM_SYMMETRIES)


@njit(cache=True)
def predict(positions, weights):
    """float64[N]: the evaluation (in discs) of each position with float weights."""
    indices = np.empty(patterns.N_INSTANCES, dtype=np.int64)
    out = np.empty(positions.shape[0])
    for i in range(positions.shape[0]):
        patterns.pattern_indices(positions[i, 0], positions[i, 1], indices)
        total = 0.0
        for index in indices:
            total += weights[index]
        out[i] = total
    return out


def error_figures(predictions: np.ndarray, margins: np.ndarray) -> dict:
    margins = margins.astype(np.float64)
    error = predictions - margins
    decided = margins != 0
    return {
        "mae": float(np.abs(error).mean()),
        "mse": float((error ** 2).mean()),
        "sign_agreement": float((np.sign(predictions[decided]) == np.sign(margins[decided])).mean()),
        "zero_mae": float(np.abs(margins).mean()),
    }


def fit(positions, margins, epochs: int, rate: float, l2: float, seed: int, log=print) -> np.ndarray:
    """float64[N_WEIGHTS] fitted to the margins (discs)."""
    weights = np.zeros(patterns.N_WEIGHTS)
    counts = np.zeros(patterns.N_WEIGHTS)
    targets = margins.astype(np.float64)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        start = time.perf_counter()
        order = rng.permutation(len(targets)).astype(np.int64)
        mse = _sgd_epoch(positions, targets, order, weights, counts, rate, l2)
        log(f"epoch {epoch + 1}/{epochs}: training mse {mse:.2f} (running), {time.perf_counter() - start:.0f} s")
    return weights


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m alphazero.pretrain.patterns", description=__doc__.split("\n\n")[0])
    parser.add_argument("--wthor", default=str(DEFAULT_WTHOR), help="WTHOR directory (default: %(default)s)")
    parser.add_argument("--out", default=str(patterns.WEIGHTS_FILE), help="weights file (default: the shipped one)")
    parser.add_argument("--empties", default="10-30", help="empty squares of the positions fitted, MIN-MAX")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--rate", type=float, default=0.02, help="step size before the 1/sqrt(count) decay")
    parser.add_argument("--l2", type=float, default=0.002, help="pull of each step towards zero")
    parser.add_argument("--validation-year", type=int, default=2018)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        low, high = (int(part) for part in args.empties.split("-"))
        if not 0 <= low <= high <= 60:
            raise ValueError
    except ValueError:
        parser.error(f"--empties must be MIN-MAX with 0 <= MIN <= MAX <= 60, got {args.empties!r}")
    if args.epochs < 1 or args.rate <= 0 or args.l2 < 0:
        parser.error("--epochs must be >= 1, --rate > 0 and --l2 >= 0")
    if not Path(args.wthor).is_dir():
        parser.error(f"--wthor {args.wthor}: not a directory (the WTHOR .wtb files are in ../shared/data/wthor)")

    positions, margins, years = positions_with_margins(args.wthor, low, high)
    held_out = years == args.validation_year
    print(f"{len(margins):,} positions with {low}-{high} empties; {held_out.sum():,} of {args.validation_year} held out")
    if held_out.all() or not held_out.any():
        print(f"error: --validation-year {args.validation_year} must hold some but not all positions", file=sys.stderr)
        return 2
    weights = fit(positions[~held_out], margins[~held_out], args.epochs, args.rate, args.l2, args.seed)
    quantized = np.clip(np.rint(weights * patterns.WEIGHT_SCALE), -(1 << 20), 1 << 20).astype(np.int32)
    figures = error_figures(predict(positions[held_out], quantized / patterns.WEIGHT_SCALE), margins[held_out])
    print(f"validation {args.validation_year}: mae {figures['mae']:.2f} discs (zero: {figures['zero_mae']:.2f}), "
          f"mse {figures['mse']:.1f}, sign agreement {figures['sign_agreement']:.3f}")
    patterns.save_weights(args.out, quantized, empties=args.empties, epochs=args.epochs, rate=args.rate, l2=args.l2,
                          seed=args.seed, validation_year=args.validation_year, training_positions=int((~held_out).sum()),
                          **{f"validation_{key}": value for key, value in figures.items()})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
