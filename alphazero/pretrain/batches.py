"""Training batches from the memory-mapped supervised dataset.

An epoch visits every training row once, in an order that depends only on (seed, epoch), so a
resumed run recomputes the same order and continues from the batch it stopped at. A batch is a
fancy-indexed read of the memory maps (rows sorted first, so the reads walk forward through the
files), then each sample gets its own board symmetry: the bitboards through
`alphazero.othello.symmetry.transform_positions`, the expert move through `ACTION_MAP`. The value
target is symmetry-invariant. Encoding to planes happens in the loop (`encode_positions_and_mask`).

For a history-reading network (model=seed_cnn_rnn) a batch also carries the previous K actions
of each row's game (`SupervisedSplit.history`), mapped through the same symmetry as the position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.data.dataset import SupervisedSplit
from alphazero.nn.augment import random_symmetries
from alphazero.othello.history import HISTORY_PAD
from alphazero.othello.symmetry import ACTION_MAP, NUM_SYMMETRIES, transform_positions

# ACTION_MAP with one more column: the history's padding token maps to itself.
HISTORY_MAP = np.concatenate([ACTION_MAP, np.full((NUM_SYMMETRIES, 1), HISTORY_PAD, dtype=ACTION_MAP.dtype)], axis=1)


@dataclass
class Batch:
    """positions uint64[B, 2] (side to move first), moves int64[B] (0..63), values float32[B],
    history int64[B, K] the previous actions (None unless asked for)."""

    positions: np.ndarray
    moves: np.ndarray
    values: np.ndarray
    history: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.moves)


def value_targets(split: SupervisedSplit, value_target: str) -> np.ndarray:
    """The per-row value target array (memory-mapped): outcomes or scaled disc margins."""
    if value_target == "outcome":
        return split.values
    if value_target == "margin":
        return split.margins
    raise ValueError(f"value_target must be 'outcome' or 'margin', got {value_target!r}")


def epoch_order(num_rows: int, seed: int, epoch: int) -> np.ndarray:
    """int64[num_rows]: the row order of `epoch`, a pure function of (seed, epoch)."""
    return np.random.default_rng([seed, epoch]).permutation(num_rows)


def steps_per_epoch(num_rows: int, batch_size: int) -> int:
    """Batches per epoch; the last one may be smaller than `batch_size`."""
    return -(-num_rows // batch_size)


def read_batch(split: SupervisedSplit, targets: np.ndarray, rows: np.ndarray, history: int = 0) -> Batch:
    """Rows `rows` of the split, untransformed (rows are sorted for forward reads), with the
    previous `history` actions of each row when history > 0."""
    rows = np.sort(rows)
    return Batch(
        positions=np.ascontiguousarray(split.positions[rows]),
        moves=split.moves[rows].astype(np.int64),
        values=np.asarray(targets[rows], dtype=np.float32),
        history=split.history(rows, history).astype(np.int64) if history else None,
    )


FIXED_BOARD_MOVES = ("recorded", "mapped")


def augment(batch: Batch, symmetries: np.ndarray, fixed_board_moves: str = "recorded") -> Batch:
    """The batch with symmetries[i] applied to sample i (position, move and history; value unchanged).

    A symmetry that leaves a sample's board unchanged (the start position under its 4, a few
    opening positions under one) can still move the expert's move onto a twin: f5 at the start
    becomes d3, c4 or e6, first moves that no game in WTHOR records, since WTHOR writes every game
    from f5. fixed_board_moves="recorded" (the default) leaves such a sample exactly as recorded,
    so the network learns the record's own convention there; "mapped" maps the move like any
    other, teaching the twins equal probability, so which one is the argmax is a coin flip that
    moves plain top-1 on WTHOR by ~1.7 points from one checkpoint to the next. Either way the
    move is the same move of the game: play does not change, only which twin is named.
    """
    if fixed_board_moves not in FIXED_BOARD_MOVES:
        raise ValueError(f"fixed_board_moves must be one of {', '.join(FIXED_BOARD_MOVES)}, got {fixed_board_moves!r}")
    positions = transform_positions(batch.positions, symmetries)
    if fixed_board_moves == "recorded":
        fixed = (positions == batch.positions).all(axis=1)
        symmetries = np.where(fixed, 0, symmetries)
    return Batch(
        positions=positions,
        moves=ACTION_MAP[symmetries, batch.moves],
        values=batch.values,
        history=None if batch.history is None else HISTORY_MAP[symmetries[:, None], batch.history].astype(np.int64),
    )


def training_batch(
    split, targets, order, batch_index: int, batch_size: int, rng: np.random.Generator | None, history: int = 0, fixed_board_moves: str = "recorded"
) -> Batch:
    """Batch `batch_index` of an epoch with row order `order`; random symmetries when `rng` is given
    (see `augment` for `fixed_board_moves`)."""
    rows = order[batch_index * batch_size : (batch_index + 1) * batch_size]
    batch = read_batch(split, targets, rows, history)
    if rng is None:
        return batch
    return augment(batch, random_symmetries(len(batch), rng), fixed_board_moves)
