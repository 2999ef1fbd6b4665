"""The one place where positions become network input planes.

A batch of positions `uint64[N, 2]` (player = side to move, opponent) becomes
`float32[N, NUM_PLANES, 8, 8]`; plane cell (row, col) is square `row * 8 + col` (a1 = (0, 0), h1 =
(0, 7), row 1 on top), the same square order as the policy's 64 square logits. The planes, from the
side to move's view (colour is deliberately absent: Othello's rules and values are colour-blind):

  0 PLANE_PLAYER    1 where the side to move has a disc
  1 PLANE_OPPONENT  1 where the opponent has a disc
  2 PLANE_LEGAL     1 where the side to move may play (all 0 when it must pass: the net then sees
                    the pass situation directly instead of inferring it from the disc patterns)
  3 PLANE_ONES      constant 1: with zero padding, it lets 3x3 convolutions tell the board edge
                    from an empty square

Empty squares are 1 - player - opponent, a linear function of planes 0, 1 and 3, so they get no
plane of their own. Changing this list changes `NUM_PLANES`, and checkpoints record the plane count
they were trained with (see alphazero.nn.checkpoint), so old weights fail loudly, not silently.

The unpacking runs on every leaf batch of the search, so it is a numba kernel that also returns the
legal-action mask (computed from the same legal-move bitboard) for the masked softmax. The plane
constants live in alphazero.nn.planes, which needs no torch, and are this module's names too.
"""

import numpy as np
import torch
from numba import njit

from alphazero.nn.planes import (  # noqa: F401, re-exported
    NUM_PLANES,
    PLANE_LEGAL,
    PLANE_NAMES,
    PLANE_ONES,
    PLANE_OPPONENT,
    PLANE_PLAYER,
)
from alphazero.othello.bitboard import NUM_ACTIONS, PASS, legal_moves
from alphazero.othello.bits import ONE, ZERO


def _check_positions(positions):
    positions = np.ascontiguousarray(positions)
    if positions.dtype != np.uint64 or positions.ndim != 2 or positions.shape[1] != 2:
        raise ValueError(
            f"positions must be uint64[N, 2] (player, opponent); got {positions.dtype}{list(positions.shape)}"
        )
    return positions


@njit(cache=True)
def _encode_kernel(positions, planes, legal_mask):
    """Fill planes[N, 4, 8, 8] (viewed as [N, 4, 64]) and legal_mask[N, 65] in one pass."""
    n = positions.shape[0]
    flat = planes.reshape(n, NUM_PLANES, 64)
    for i in range(n):
        player = positions[i, 0]
        opponent = positions[i, 1]
        moves = legal_moves(player, opponent)
        for square in range(64):
            bit = ONE << np.uint64(square)
            flat[i, PLANE_PLAYER, square] = np.float32(1.0) if player & bit else np.float32(0.0)
            flat[i, PLANE_OPPONENT, square] = np.float32(1.0) if opponent & bit else np.float32(0.0)
            is_legal = (moves & bit) != ZERO
            flat[i, PLANE_LEGAL, square] = np.float32(1.0) if is_legal else np.float32(0.0)
            flat[i, PLANE_ONES, square] = np.float32(1.0)
            legal_mask[i, square] = is_legal
        legal_mask[i, PASS] = moves == ZERO


def encode_positions_and_mask(positions):
    """(planes float32[N, NUM_PLANES, 8, 8], legal_mask bool[N, 65]) for positions uint64[N, 2].

    The mask marks the legal actions (PASS only when no square is legal), ready for
    `alphazero.nn.model.masked_softmax`.
    """
    positions = _check_positions(positions)
    n = positions.shape[0]
    planes = np.empty((n, NUM_PLANES, 8, 8), dtype=np.float32)
    legal_mask = np.empty((n, NUM_ACTIONS), dtype=np.bool_)
    _encode_kernel(positions, planes, legal_mask)
    return planes, legal_mask


def encode_positions(positions):
    """float32[N, NUM_PLANES, 8, 8] input planes for positions uint64[N, 2] (see the module doc)."""
    return encode_positions_and_mask(positions)[0]


# ------------------------------------------------------------------------------------------------
# Device-side unpacking: an accelerator receives 3 bitboards (24 bytes) per position instead of
# 1 KiB of float planes, and unpacks them itself.

_BIT_INDEX = torch.arange(64, dtype=torch.int64)
_BIT_INDEX_ON: dict = {}  # device -> _BIT_INDEX there (one small host-to-device copy per device, not per call)


def _bit_index(device: torch.device) -> torch.Tensor:
    index = _BIT_INDEX_ON.get(device)
    if index is None:
        index = _BIT_INDEX_ON[device] = _BIT_INDEX.to(device)
    return index


@njit(cache=True)
def _packed_kernel(positions, packed, legal_mask):
    for i in range(positions.shape[0]):
        moves = legal_moves(positions[i, 0], positions[i, 1])
        packed[i, 0] = positions[i, 0]
        packed[i, 1] = positions[i, 1]
        packed[i, 2] = moves
        for square in range(64):
            legal_mask[i, square] = (moves >> np.uint64(square)) & ONE != ZERO
        legal_mask[i, PASS] = moves == ZERO


def pack_positions_and_mask(positions):
    """(packed uint64[N, 3] = player, opponent, legal moves; legal_mask bool[N, 65]).

    The packed form is what `planes_from_packed` unpacks on a device.
    """
    positions = _check_positions(positions)
    n = positions.shape[0]
    packed = np.empty((n, 3), dtype=np.uint64)
    legal_mask = np.empty((n, NUM_ACTIONS), dtype=np.bool_)
    _packed_kernel(positions, packed, legal_mask)
    return packed, legal_mask


def planes_from_packed(packed: torch.Tensor, dtype=torch.float32) -> torch.Tensor:
    """Unpack int64[N, 3] bitboards (a uint64 array viewed as int64) into [N, NUM_PLANES, 8, 8].

    Same planes as `encode_positions`, computed with tensor ops on the tensor's own device. The
    arithmetic right shift of a negative int64 copies the sign bit into the high bits, but `& 1`
    keeps only bit `square`, so the int64 view reads every bit exactly as the uint64 would.
    """
    n = packed.shape[0]
    bits = (packed.unsqueeze(-1) >> _bit_index(packed.device)) & 1  # [N, 3, 64]
    planes = torch.ones((n, NUM_PLANES, 64), dtype=dtype, device=packed.device)
    planes[:, :PLANE_ONES] = bits.to(dtype)
    return planes.view(n, NUM_PLANES, 8, 8)


def legal_mask_from_packed(packed: torch.Tensor) -> torch.Tensor:
    """bool[N, 65] legal-action mask of int64[N, 3] packed positions, on the tensor's own device:
    the legal-move bitboard's bits, and PASS exactly when there is no legal move."""
    legal = packed[:, 2]
    squares = ((legal.unsqueeze(-1) >> _bit_index(packed.device)) & 1).bool()  # [N, 64]
    return torch.cat([squares, (legal == 0).unsqueeze(-1)], dim=1)
