"""How well a network predicts expert play: move accuracy and value error on given positions.

Shared by the pretraining loop (validation) and `python -m alphazero.bench accuracy`, so both
report the same numbers. Predictions use the masked policy (illegal moves never count) and the
network in eval mode, on positions as stored (no symmetry augmentation).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch

from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.model import masked_log_softmax


@dataclass
class AccuracyReport:
    """positions:            how many positions were scored.
    top1 / top3:             fraction where the expert move is the network's best / among its 3
                             best legal moves (with fewer than 3 legal moves, top3 is a hit).
    policy_loss:             mean -log p(expert move) under the masked policy.
    value_mse:               mean (value - target)^2.
    value_sign_accuracy:     among positions whose target is not 0 (drawn games), the fraction
                             where the predicted value has the target's sign.
    """

    positions: int
    top1: float
    top3: float
    policy_loss: float
    value_mse: float
    value_sign_accuracy: float

    def as_dict(self, digits: int = 4) -> dict:
        """Rounded floats; NaN (no decided game to score the value sign on) becomes None, so the
        dict stays valid JSON."""
        return {k: (None if v != v else round(v, digits)) if isinstance(v, float) else v for k, v in asdict(self).items()}


@dataclass
class _Sums:
    top1: float = 0.0
    top3: float = 0.0
    nll: float = 0.0
    squared_error: float = 0.0
    sign_hits: float = 0.0
    decided: int = 0


def batch_statistics(logits: torch.Tensor, values: torch.Tensor, legal: torch.Tensor, moves: torch.Tensor, targets: torch.Tensor) -> dict:
    """Per-batch sums (float tensors) of the quantities behind AccuracyReport; also used for the
    running training accuracy."""
    log_probs = masked_log_softmax(logits, legal)
    expert = moves.unsqueeze(1)
    top3 = log_probs.topk(3, dim=1).indices
    decided = targets != 0
    return {
        "top1": (log_probs.argmax(dim=1) == moves).float().sum(),
        "top3": (top3 == expert).any(dim=1).float().sum(),
        "nll": -log_probs.gather(1, expert).sum(),
        "squared_error": ((values.float() - targets) ** 2).sum(),
        "sign_hits": (torch.sign(values.float()) == torch.sign(targets))[decided].float().sum(),
        "decided": decided.sum(),
    }


@torch.no_grad()
def evaluate_accuracy(
    net: torch.nn.Module, positions: np.ndarray, moves: np.ndarray, targets: np.ndarray, batch_size: int = 2048, device="cpu", history: np.ndarray | None = None
) -> AccuracyReport:
    """Score `net` on positions uint64[N, 2] with expert moves int[N] and value targets float[N];
    `history` int[N, K] (the previous actions of each position's game) is passed to networks that
    read it (model=seed_cnn_rnn) and must then be given.

    The network is put in eval mode for the call and restored to its previous mode after.
    """
    if not (len(positions) == len(moves) == len(targets)):
        raise ValueError(f"positions, moves and targets differ in length: {len(positions)}, {len(moves)}, {len(targets)}")
    if len(moves) == 0:
        raise ValueError("no positions to evaluate")
    was_training = net.training
    net.eval()
    sums = _Sums()
    try:
        for start in range(0, len(moves), batch_size):
            stop = start + batch_size
            planes, legal = encode_positions_and_mask(np.ascontiguousarray(positions[start:stop], dtype=np.uint64))
            if history is not None:
                window = torch.from_numpy(np.asarray(history[start:stop], dtype=np.int64)).to(device)
                logits, values = net(torch.from_numpy(planes).to(device), window)
            else:
                logits, values = net(torch.from_numpy(planes).to(device))
            stats = batch_statistics(
                logits.float().cpu(),
                values.float().cpu(),
                torch.from_numpy(legal),
                torch.from_numpy(np.array(moves[start:stop], dtype=np.int64)),
                torch.from_numpy(np.array(targets[start:stop], dtype=np.float32)),
            )
            for key, value in stats.items():
                setattr(sums, key, getattr(sums, key) + value.item())
    finally:
        net.train(was_training)
    n = len(moves)
    return AccuracyReport(
        positions=n,
        top1=sums.top1 / n,
        top3=sums.top3 / n,
        policy_loss=sums.nll / n,
        value_mse=sums.squared_error / n,
        value_sign_accuracy=sums.sign_hits / sums.decided if sums.decided else float("nan"),
    )
