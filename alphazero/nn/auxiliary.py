"""KataGo's auxiliary training targets for Othello: the final score and the final ownership.

Both are read off the game's final board, from the point of view of the side to move in the
position being trained on (the same view as the value target):

- **score**: the final disc difference (own minus opponent's), with the WTHOR/FFO counting
  convention: empty squares go to the winner. Every square is then counted once, so the
  difference is even, in -64..64: 65 classes, `score_bin(d) = (d + 64) / 2`. The network predicts a
  distribution over them (`score_logits` [N, 65]) trained with cross-entropy. Why a distribution
  and not a mean with a squared error: near the end a position's outcome is often one of a few
  separated scores (who gets the last region), where a mean is a value no game ends with and a
  squared error is dominated by the rare large margins; cross-entropy is a proper scoring rule
  for the whole distribution and its scale does not depend on the margin. Its mean (`expected_score`)
  is reported as the score error.
- **ownership**: for each of the 64 squares, +1 if the side to move's colour holds it at the end,
  -1 if the opponent's does, 0 if it is empty (a game that ends before the board is full). The
  network predicts one logit per square; the loss is the binary cross-entropy of sigmoid(logit)
  against (1 + target) / 2, as KataGo does (an empty square's target is 1/2).

Square order is the bitboards' (a1 = bit 0, row-major), so the ownership target of a symmetric
position is the target of the symmetric final board: transform the final board with the same
symmetry as the position (alphazero.othello.symmetry.transform_positions) before calling
`ownership_targets`.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

SCORE_BINS = 65
MAX_SCORE = 64

def _disc_counts(bitboards: np.ndarray) -> np.ndarray:
    """Number of set bits of each uint64, as int64."""
    bits = np.unpackbits(np.ascontiguousarray(bitboards, dtype=np.uint64).view(np.uint8).reshape(-1, 8), axis=1)
    return bits.sum(axis=1, dtype=np.int64).reshape(np.shape(bitboards))


def final_margins(final_player: np.ndarray, final_opponent: np.ndarray) -> np.ndarray:
    """The final disc difference from `final_player`'s view, empties to the winner (int64[n]).

    A draw on discs stays 0 whatever the empties (neither side wins them)."""
    player = _disc_counts(final_player)
    opponent = _disc_counts(final_opponent)
    if np.any((np.asarray(final_player, dtype=np.uint64) & np.asarray(final_opponent, dtype=np.uint64)) != 0):
        raise ValueError("final boards overlap: a square held by both sides")
    empties = 64 - player - opponent
    difference = player - opponent
    return difference + np.sign(difference) * empties


def score_bins(margins: np.ndarray) -> np.ndarray:
    """Class index (int64) of each final disc difference in -64..64 (even: empties to the winner)."""
    margins = np.asarray(margins, dtype=np.int64)
    if np.any(np.abs(margins) > MAX_SCORE) or np.any(margins % 2):
        bad = margins[(np.abs(margins) > MAX_SCORE) | (margins % 2 != 0)][0]
        raise ValueError(f"a final disc difference must be even and within -64..64 (empties to the winner); got {bad}")
    return (margins + MAX_SCORE) // 2


def bin_scores() -> torch.Tensor:
    """The disc difference each score class stands for: -64, -62, ..., 64 (float32[65])."""
    return torch.arange(-MAX_SCORE, MAX_SCORE + 1, 2, dtype=torch.float32)


def ownership_targets(final_player: np.ndarray, final_opponent: np.ndarray) -> np.ndarray:
    """int8[n, 64]: +1 where `final_player` holds the square at the end, -1 where the opponent
    does, 0 where it is empty; squares in bit order (a1 = 0)."""
    def squares(bitboards):
        flat = np.ascontiguousarray(bitboards, dtype=np.uint64).reshape(-1)
        return np.unpackbits(flat.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little").astype(np.int8)
    return squares(final_player) - squares(final_opponent)


def score_loss(score_logits: torch.Tensor, target_bins: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the score distribution against the final score's class."""
    return F.cross_entropy(score_logits.float(), target_bins)


def expected_score(score_logits: torch.Tensor) -> torch.Tensor:
    """The mean of the predicted score distribution, in discs (float32[n])."""
    return score_logits.float().softmax(dim=-1) @ bin_scores().to(score_logits.device)


def ownership_loss(ownership_logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over squares and rows of the binary cross-entropy against (1 + target) / 2."""
    return F.binary_cross_entropy_with_logits(ownership_logits.float(), (1.0 + target.float()) * 0.5)


def auxiliary_losses(score_logits, ownership_logits, target_bins, target_ownership) -> dict:
    """The auxiliary loss terms a network has heads for, plus the score's mean absolute error in
    discs (reported, not trained on). Heads that are None contribute no entry."""
    terms = {}
    if score_logits is not None:
        terms["score"] = score_loss(score_logits, target_bins)
        with torch.no_grad():
            terms["score_error"] = (expected_score(score_logits) - bin_scores().to(score_logits.device)[target_bins]).abs().mean()
    if ownership_logits is not None:
        terms["ownership"] = ownership_loss(ownership_logits, target_ownership)
    return terms


def auxiliary_targets(final_boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(score class int64[n], ownership int8[n, 64]) of final boards uint64[n, 2] given from the
    side to move's view (its discs, then the opponent's), already under the position's symmetry."""
    final_boards = np.asarray(final_boards, dtype=np.uint64)
    player, opponent = final_boards[:, 0], final_boards[:, 1]
    return score_bins(final_margins(player, opponent)), ownership_targets(player, opponent)


def auxiliary_row_losses(score_logits, ownership_logits, target_bins, target_ownership) -> dict:
    """Per-row terms of `auxiliary_losses` (float32[n] each: score cross-entropy, score absolute
    error in discs, ownership cross-entropy averaged over the squares), for a caller that masks
    rows (a row whose final board is not the end of its game has no target). Heads that are None
    contribute no entry."""
    terms = {}
    if score_logits is not None:
        terms["score"] = F.cross_entropy(score_logits.float(), target_bins, reduction="none")
        with torch.no_grad():
            terms["score_error"] = (expected_score(score_logits) - bin_scores().to(score_logits.device)[target_bins]).abs()
    if ownership_logits is not None:
        target = (1.0 + target_ownership.float()) * 0.5
        terms["ownership"] = F.binary_cross_entropy_with_logits(ownership_logits.float(), target, reduction="none").mean(dim=1)
    return terms
