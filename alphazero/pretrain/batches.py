"""Training batches from the memory-mapped supervised dataset.

An epoch visits every training row once, in an order that depends only on (seed, epoch), so a
resumed run recomputes the same order and continues from the batch it stopped at. A batch is a
fancy-indexed read of the memory maps (rows sorted first, so the reads walk forward through the
files), then each sample gets its own board symmetry: the bitboards through
`alphazero.othello.symmetry.transform_positions`, the expert move through `ACTION_MAP`. The value
target is symmetry-invariant. Encoding to planes happens in the loop (`encode_positions_and_mask`).

For a history-reading network (model=seed_cnn_rnn) a batch also carries the previous K actions
of each row's game (`SupervisedSplit.history`), mapped through the same symmetry as the position.

For a network with auxiliary heads (model.score_head / model.ownership_head) a batch also carries
KataGo's targets (`auxiliary_targets`, from `SupervisedSplit.final_boards`): the final score's
distribution (symmetry invariant) and the per-square ownership with its mask, whose squares move
with the same symmetry as the position (`transform_ownership`). The batch carries the ownership itself rather than the
final board because a row merged by dedup has a mean ownership, which no single board gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.data.dataset import OccurrenceFinals, SupervisedSplit
from alphazero.nn.augment import random_symmetries
from alphazero.nn.auxiliary import SCORE_BINS, auxiliary_targets as occurrence_targets
from alphazero.othello.history import HISTORY_PAD
from alphazero.othello.symmetry import ACTION_MAP, NUM_SYMMETRIES, transform_positions
from alphazero.pretrain.config import FIXED_BOARD_MOVES

# ACTION_MAP with one more column: the history's padding token maps to itself.
HISTORY_MAP = np.concatenate([ACTION_MAP, np.full((NUM_SYMMETRIES, 1), HISTORY_PAD, dtype=ACTION_MAP.dtype)], axis=1)


@dataclass
class Batch:
    """positions uint64[B, 2] (side to move first), moves int64[B] (0..63), values float32[B],
    history int64[B, K] the previous actions (None unless asked for); score, ownership and
    ownership_known the auxiliary targets (None unless asked for) as `AuxiliaryTargets` describes
    them, the ownership under the sample's symmetry."""

    positions: np.ndarray
    moves: np.ndarray
    values: np.ndarray
    history: np.ndarray | None = None
    score: np.ndarray | None = None  # float32[B, 65] the final score's distribution (auxiliary heads)
    ownership: np.ndarray | None = None  # float32[B, 64] in [-1, 1], the side to move's view
    ownership_known: np.ndarray | None = None  # bool[B]: False where the game's end is unknown

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


@dataclass
class AuxiliaryTargets:
    """KataGo's auxiliary targets of a set of rows, from the side to move's view.

    score:           float32[n, 65] the distribution of the final disc difference over the score
                     classes (alphazero.nn.auxiliary.score_bins): one-hot for a row of one game,
                     the occurrences' histogram for a row merged by dedup.
    ownership:       float32[n, 64] in [-1, 1]: +1 the side to move owns the square at the end,
                     -1 the opponent, 0 empty; a merged row's mean over its finished occurrences.
    ownership_known: bool[n] False where no occurrence reached the game's end (an unfinished
                     WTHOR game): ownership is then 0 and must be masked out of the loss.

    Why a merged row's targets are means: the score's cross-entropy and the ownership's binary
    cross-entropy are linear in the target, so the mean target gives the mean of the losses its
    occurrences would give as separate rows.
    """

    score: np.ndarray
    ownership: np.ndarray
    ownership_known: np.ndarray


def auxiliary_targets(split: SupervisedSplit, rows: np.ndarray) -> AuxiliaryTargets:
    """The score and ownership targets of `rows` of the split, from their occurrences' final
    boards (`SupervisedSplit.final_boards`)."""
    return targets_of_final_boards(split.final_boards(rows), len(rows))


def targets_of_final_boards(finals: OccurrenceFinals, count: int) -> AuxiliaryTargets:
    """The targets of `count` rows from their occurrences' final boards (`auxiliary_targets`)."""
    # An unfinished game's recorded score is this count of the board where its record stops
    # (alphazero.data.wthor checks it), so its score target is its recorded result; the count
    # gives the empties to the side ahead, so the difference is even.
    # Each occurrence's targets as self-play rows get theirs (nn.auxiliary), then averaged per row.
    bins, ownership = occurrence_targets(finals.boards)
    histogram = np.bincount(finals.row * SCORE_BINS + bins, minlength=count * SCORE_BINS).reshape(count, SCORE_BINS).astype(np.float32)
    starts = np.flatnonzero(np.r_[True, finals.row[1:] != finals.row[:-1]]) if len(finals.row) else np.zeros(0, dtype=np.int64)
    if len(starts) != count:
        raise ValueError(f"{count} rows but final boards for {len(starts)}: every row needs at least one")
    ownership = ownership * finals.finished[:, None].astype(np.int8)
    sums = np.add.reduceat(ownership.astype(np.float32), starts, axis=0) if count else np.zeros((0, 64), dtype=np.float32)
    known = np.add.reduceat(finals.finished.astype(np.float32), starts) if count else np.zeros(0, dtype=np.float32)
    return AuxiliaryTargets(
        score=histogram / histogram.sum(axis=1, keepdims=True),
        ownership=(sums / np.maximum(known, 1.0)[:, None]).astype(np.float32),
        ownership_known=known > 0,
    )


def read_batch(split: SupervisedSplit, targets: np.ndarray, rows: np.ndarray, history: int = 0, auxiliary: bool = False) -> Batch:
    """Rows `rows` of the split, untransformed (rows are sorted for forward reads), with the
    previous `history` actions of each row when history > 0 and the auxiliary targets when
    `auxiliary`."""
    rows = np.sort(rows)
    aux = auxiliary_targets(split, rows) if auxiliary else None
    return Batch(
        positions=np.ascontiguousarray(split.positions[rows]),
        moves=split.moves[rows].astype(np.int64),
        values=np.asarray(targets[rows], dtype=np.float32),
        history=split.history(rows, history).astype(np.int64) if history else None,
        score=None if aux is None else aux.score,
        ownership=None if aux is None else aux.ownership,
        ownership_known=None if aux is None else aux.ownership_known,
    )


def transform_ownership(ownership: np.ndarray, symmetries: np.ndarray) -> np.ndarray:
    """ownership[i] (per square, bit order) with symmetries[i] applied: the value of square q
    moves to ACTION_MAP[s, q], as the disc on q does under `transform_positions`. So for a final
    board f, ownership_targets(transform(f)) == transform_ownership(ownership_targets(f))."""
    ownership = np.asarray(ownership)
    out = np.empty_like(ownership)
    out[np.arange(len(ownership))[:, None], ACTION_MAP[np.asarray(symmetries)][:, :64]] = ownership
    return out


def augment(batch: Batch, symmetries: np.ndarray, fixed_board_moves: str = "recorded") -> Batch:
    """The batch with symmetries[i] applied to sample i (position, move, history and ownership;
    value and score unchanged).

    A symmetry that leaves a sample's board unchanged (the start position under its 4, a few
    opening positions under one) can still move the expert's move onto a twin: f5 at the start
    becomes d3, c4 or e6, first moves that no game in WTHOR records, since WTHOR writes every game
    from f5. fixed_board_moves="recorded" (the default) leaves such a sample exactly as recorded,
    so the network learns the record's own convention there; "mapped" maps the move like any
    other, teaching the twins equal probability, so which one is the argmax is a coin flip that
    moves plain top-1 on WTHOR by ~1.7 points from one checkpoint to the next. Either way the
    move is the same move of the game: play does not change, only which twin is named. The
    ownership target takes the symmetry the move takes, so a sample left as recorded keeps its
    recorded ownership too.
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
        score=batch.score,
        ownership=None if batch.ownership is None else transform_ownership(batch.ownership, symmetries),
        ownership_known=batch.ownership_known,
    )


def training_batch(
    split, targets, order, batch_index: int, batch_size: int, rng: np.random.Generator | None, history: int = 0, fixed_board_moves: str = "recorded",
    auxiliary: bool = False,
) -> Batch:
    """Batch `batch_index` of an epoch with row order `order`; random symmetries when `rng` is given
    (see `augment` for `fixed_board_moves`); the auxiliary targets when `auxiliary`."""
    rows = order[batch_index * batch_size : (batch_index + 1) * batch_size]
    batch = read_batch(split, targets, rows, history, auxiliary)
    if rng is None:
        return batch
    return augment(batch, random_symmetries(len(batch), rng), fixed_board_moves)
