"""A pattern evaluation for the solver's move ordering (issue 36).

The exact search visits far fewer nodes when it tries the best move first. Below 14 empties the
ordering key is cheap (mobility, corner stability, parity); above, the best engines (Edax,
Egaroucid) order by a shallow search of an evaluation learned from games. This is that
evaluation: the linear pattern model of Edax's generation (Buro's Logistello before it). Every
line, diagonal, edge and corner region of the board is a *pattern instance*; the colours on its
squares (empty, side to move, opponent) are read as a base-3 number, and the evaluation is the
sum of one learned weight per instance. Instances that the board's 8 symmetries map onto each
other share one table, with their squares listed in the mapped order. A shape that a symmetry
maps onto itself (a corner square under the diagonal reflection, an edge under the mirror) is
read in one order only, so a position and its mirror images can differ a little: the fit shows
every position under all 8 symmetries, which keeps them within half a disc on real positions.

The weights are fitted by `python -m alphazero.pretrain.patterns` to the final disc difference
of WTHOR games (side to move's view), in units of 1/`WEIGHT_SCALE` of a disc, and shipped as
`pattern_weights.npz` beside this module with the layout's fingerprint: a file fitted for another
layout is refused by name instead of read wrongly.

The kernels take the weights as an argument (an int32 array): a table numba froze into the
compiled code as a global would survive in numba's cache after the file changed.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
from pathlib import Path

import numpy as np
from numba import njit

from alphazero.atomic import write_bytes_atomic
from alphazero.othello.bits import ONE
from alphazero.othello.symmetry import ACTION_MAP, INVERSE, NUM_SYMMETRIES, flip_vertical, mirror_horizontal, transpose

WEIGHT_SCALE = 16  # weights are in 1/16 of a disc
WEIGHTS_FILE = Path(__file__).with_name("pattern_weights.npz")

# The base shapes as (row, column) squares from the a1 corner, in the order their base-3 digits
# take (the first square is the least significant digit). Edax's pattern set.
SHAPES: dict[str, list[tuple[int, int]]] = {
    "corner3x3": [(r, c) for r in range(3) for c in range(3)],
    "corner2x5": [(r, c) for r in range(2) for c in range(5)],
    "edge2x": [(0, c) for c in range(8)] + [(1, 1), (1, 6)],
    "line2": [(1, c) for c in range(8)],
    "line3": [(2, c) for c in range(8)],
    "line4": [(3, c) for c in range(8)],
    "diag8": [(i, i) for i in range(8)],
    "diag7": [(i, i + 1) for i in range(7)],
    "diag6": [(i, i + 2) for i in range(6)],
    "diag5": [(i, i + 3) for i in range(5)],
    "diag4": [(i, i + 4) for i in range(4)],
}
MAX_LENGTH = max(len(squares) for squares in SHAPES.values())


def _instances():
    """Every symmetric image of every shape, one per distinct set of squares: (shape index,
    symmetry, squares in digit order)."""
    instances = []
    for shape, (name, cells) in enumerate(SHAPES.items()):
        base = [r * 8 + c for r, c in cells]
        seen = set()
        for symmetry in range(NUM_SYMMETRIES):
            squares = [int(ACTION_MAP[symmetry][square]) for square in base]
            if frozenset(squares) not in seen:
                seen.add(frozenset(squares))
                instances.append((shape, symmetry, squares))
    return instances


def _layout():
    instances = _instances()
    sizes = [3 ** len(cells) for cells in SHAPES.values()]
    shape_offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    squares = np.full((len(instances), MAX_LENGTH), -1, dtype=np.int64)
    lengths = np.zeros(len(instances), dtype=np.int64)
    offsets = np.zeros(len(instances), dtype=np.int64)
    # by_board[shape, k]: the offset of the shape's table when one of its instances reads the
    # board turned by symmetry k in the shape's base squares (k = INVERSE of the instance's
    # symmetry); -1 when none does. `pattern_eval` walks this instead of the squares.
    by_board = np.full((len(SHAPES), NUM_SYMMETRIES), -1, dtype=np.int64)
    for i, (shape, symmetry, cells) in enumerate(instances):
        squares[i, :len(cells)] = cells
        lengths[i] = len(cells)
        offsets[i] = shape_offset[shape]
        by_board[shape, INVERSE[symmetry]] = shape_offset[shape]
    return squares, lengths, offsets, by_board, int(sum(sizes))


INSTANCE_SQUARES, INSTANCE_LENGTHS, INSTANCE_OFFSETS, SHAPE_BY_BOARD, N_WEIGHTS = _layout()
N_INSTANCES = len(INSTANCE_LENGTHS)
LAYOUT_FINGERPRINT = hashlib.sha256(
    INSTANCE_SQUARES.tobytes() + INSTANCE_OFFSETS.tobytes() + str(WEIGHT_SCALE).encode()
).hexdigest()[:16]


@njit(cache=True, _nrt=False)
def pattern_indices(player, opponent, out):
    """Fill out[N_INSTANCES] with each instance's row in the weight vector (its shape's offset
    plus its base-3 colour number: 0 empty, 1 side to move, 2 opponent)."""
    for i in range(INSTANCE_SQUARES.shape[0]):
        index = 0
        for k in range(INSTANCE_LENGTHS[i] - 1, -1, -1):
            square = np.uint64(INSTANCE_SQUARES[i, k])
            index = index * 3 + np.int64((player >> square) & ONE) + 2 * np.int64((opponent >> square) & ONE)
        out[i] = INSTANCE_OFFSETS[i] + index


def _ternary_table():
    """TERNARY[bits]: the base-3 number whose digit k is bit k of `bits` (10 bits at most)."""
    return np.array([sum(3 ** k for k in range(10) if bits >> k & 1) for bits in range(1 << 10)], dtype=np.int64)


TERNARY = _ternary_table()
DIAGONAL = np.uint64(0x8040201008040201)  # a1, b2, ..., h8
FILE_A_REPLICATOR = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always", _nrt=False)
def _gather(shape, bits):
    """The bits of `bits` on a shape's base squares, packed in digit order (bit k = digit k).

    Rows are bytes; the corner regions are shifted pieces of the first rows; a diagonal
    (i, i + d) collects into the top byte of its product with the a-file replicator (each bit
    lands on a different place, so nothing carries), square (i, i + d) on bit i + d."""
    if shape == 0:  # corner3x3: a1 b1 c1 / a2 b2 c2 / a3 b3 c3
        return (bits & np.uint64(0x7)) | ((bits >> np.uint64(5)) & np.uint64(0x38)) | ((bits >> np.uint64(10)) & np.uint64(0x1C0))
    if shape == 1:  # corner2x5: a1..e1 / a2..e2
        return (bits & np.uint64(0x1F)) | ((bits >> np.uint64(3)) & np.uint64(0x3E0))
    if shape == 2:  # edge2x: a1..h1, b2, g2
        return (bits & np.uint64(0xFF)) | ((bits >> np.uint64(1)) & np.uint64(0x100)) | ((bits >> np.uint64(5)) & np.uint64(0x200))
    if shape <= 5:  # line2, line3, line4: rows 2-4
        return (bits >> np.uint64(8 * (shape - 2))) & np.uint64(0xFF)
    d = np.uint64(shape - 6)  # diag8 .. diag4: the diagonal (i, i + d)
    return (((bits & (DIAGONAL >> (d * np.uint64(8)))) * FILE_A_REPLICATOR) >> (np.uint64(56) + d))


@njit(cache=True, inline="always", _nrt=False)
def _board_sum(player, opponent, board, weights):
    """Weights of the instances that read the board turned by symmetry `board`."""
    total = np.int64(0)
    for shape in range(SHAPE_BY_BOARD.shape[0]):
        offset = SHAPE_BY_BOARD[shape, board]
        if offset >= 0:
            total += weights[offset + TERNARY[_gather(shape, player)] + 2 * TERNARY[_gather(shape, opponent)]]
    return total


@njit(cache=True, _nrt=False)
def pattern_eval(player, opponent, weights):
    """The side to move's predicted final disc difference, in 1/WEIGHT_SCALE of a disc: the sum
    over the instances of `pattern_indices`, computed from the board's 8 turned copies (each
    instance is a shape's base squares on one of them) instead of square by square."""
    total = np.int64(0)
    for turned in range(2):
        p = transpose(player) if turned else player
        o = transpose(opponent) if turned else opponent
        k = 4 * turned
        total += _board_sum(p, o, k, weights)
        total += _board_sum(mirror_horizontal(p), mirror_horizontal(o), k + 1, weights)
        p, o = flip_vertical(p), flip_vertical(o)
        total += _board_sum(p, o, k + 2, weights)
        total += _board_sum(mirror_horizontal(p), mirror_horizontal(o), k + 3, weights)
    return total


@njit(cache=True)  # allocates its index array: numba's reference counting stays on
def pattern_eval_by_squares(player, opponent, weights):
    """`pattern_eval` square by square (the weights at `pattern_indices`): the slow reference it
    is tested against."""
    indices = np.empty(INSTANCE_SQUARES.shape[0], dtype=np.int64)
    pattern_indices(player, opponent, indices)
    total = np.int64(0)
    for index in indices:
        total += weights[index]
    return total


class PatternWeightsError(ValueError):
    """A weights file that is missing, damaged or fitted for another layout."""


def save_weights(path: str | os.PathLike, weights: np.ndarray, **metadata) -> None:
    """Write `weights` (int32[N_WEIGHTS]) with the layout fingerprint, atomically."""

    weights = np.asarray(weights)
    if weights.shape != (N_WEIGHTS,):
        raise PatternWeightsError(f"pattern weights must have shape ({N_WEIGHTS},), got {weights.shape}")
    buffer = io.BytesIO()
    np.savez_compressed(buffer, weights=weights.astype(np.int32), fingerprint=np.array(LAYOUT_FINGERPRINT),
                        **{key: np.array(value) for key, value in metadata.items()})
    write_bytes_atomic(path, buffer.getvalue())


def load_weights(path: str | os.PathLike | None = None) -> np.ndarray:
    """int32[N_WEIGHTS] from a weights file (the shipped one by default); a clear error names the
    file and what is wrong with it."""
    path = Path(path) if path is not None else WEIGHTS_FILE
    try:
        with np.load(path) as data:
            fingerprint = str(data["fingerprint"])
            weights = data["weights"]
    except FileNotFoundError:
        raise PatternWeightsError(
            f"{path}: no pattern weights file (fit one with python -m alphazero.pretrain.patterns)"
        ) from None
    except Exception as error:  # zip, pickle or key errors: a damaged or foreign file
        raise PatternWeightsError(f"{path}: not a pattern weights file ({type(error).__name__}: {error})") from None
    if fingerprint != LAYOUT_FINGERPRINT:
        raise PatternWeightsError(
            f"{path}: fitted for pattern layout {fingerprint}, this code's layout is {LAYOUT_FINGERPRINT}; refit it"
        )
    if weights.shape != (N_WEIGHTS,) or weights.dtype != np.int32:
        raise PatternWeightsError(f"{path}: weights have shape {weights.shape} {weights.dtype}, "
                                  f"expected ({N_WEIGHTS},) int32")
    return weights


@functools.lru_cache(maxsize=1)
def shipped_weights() -> np.ndarray:
    """The shipped weights, read once per process and shared by every solver (read-only)."""
    weights = load_weights(WEIGHTS_FILE)
    weights.flags.writeable = False
    return weights


def zero_weights() -> np.ndarray:
    """Weights for a solver that does not order by patterns (the kernels still take an array;
    read-only like `shipped_weights`, so that both are one numba type and compile once)."""
    weights = np.zeros(N_WEIGHTS, dtype=np.int32)
    weights.flags.writeable = False
    return weights
