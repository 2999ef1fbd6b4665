"""How well a network predicts expert play: move accuracy and value error on given positions.

Shared by the pretraining loop (validation) and `python -m alphazero.bench accuracy`, so both
report the same numbers. Predictions use the masked policy (illegal moves never count) and the
network in eval mode, on positions as stored (no symmetry augmentation).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch

from alphazero.nn.auxiliary import bin_scores, expected_score
from alphazero.nn import int8_inference
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.model import fuse_for_inference, masked_log_softmax
from alphazero.othello.symmetry import ACTION_MAP, NUM_SYMMETRIES, transform_positions


@dataclass
class AccuracyReport:
    """positions:            how many positions were scored.
    top1 / top3:             fraction where the expert move is the network's best / among its 3
                             best legal moves (with fewer than 3 legal moves, top3 is a hit).
    policy_loss:             mean -log p(expert move) under the masked policy.
    value_mse:               mean (value - target)^2.
    value_sign_accuracy:     among positions whose target is not 0 (drawn games), the fraction
                             where the predicted value has the target's sign.
    top1_symmetric:          as top1, but the best move also counts when one of the position's own
                             symmetries maps it onto the expert move. A board that a symmetry
                             leaves unchanged (the start position, the positions right after it)
                             has moves that are the same move; which one a record shows is a
                             convention (WTHOR writes every game from f5), and a network trained
                             on all 8 symmetries ranks them by noise. On WTHOR 2018 such twins
                             exist for 2.3% of the positions, so top1 can move by up to ~2 points
                             between two nearly identical networks; top1_symmetric does not.
    score_loss:              with a score head: mean cross-entropy of the predicted final score
                             distribution against the target's (`pretraining_auxiliary_losses`).
    score_error:             with a score head: mean |predicted mean score - target mean score|,
                             in discs.
    ownership_loss:          with an ownership head: mean per-square binary cross-entropy over
                             the positions whose game's end is known.
    The three are NaN without their head and left out of `as_dict` then.
    """

    positions: int
    top1: float
    top3: float
    policy_loss: float
    value_mse: float
    value_sign_accuracy: float
    top1_symmetric: float = float("nan")
    score_loss: float = float("nan")
    score_error: float = float("nan")
    ownership_loss: float = float("nan")

    def as_dict(self, digits: int = 4) -> dict:
        """Rounded floats; NaN (no decided game to score the value sign on) becomes None, so the
        dict stays valid JSON; the auxiliary measures are left out when not measured."""
        return {
            k: (None if v != v else round(v, digits)) if isinstance(v, float) else v
            for k, v in asdict(self).items()
            if not (k in AUXILIARY_MEASURES and v != v)
        }


AUXILIARY_MEASURES = ("score_loss", "score_error", "ownership_loss")


@dataclass
class _Sums:
    top1: float = 0.0
    top3: float = 0.0
    nll: float = 0.0
    squared_error: float = 0.0
    sign_hits: float = 0.0
    decided: int = 0
    top1_symmetric: float = 0.0
    score: float = 0.0
    score_error: float = 0.0
    ownership: float = 0.0  # summed over rows with a known end
    ownership_known: float = 0.0


def pretraining_auxiliary_losses(score_logits, ownership_logits, score_targets, ownership, ownership_known) -> dict:
    """The auxiliary loss terms (0-d tensors) of the heads a network has, against the supervised
    dataset's targets (alphazero.data.dataset.AuxiliaryTargets):

    - "score": cross-entropy of the score logits against the target distribution (one-hot for a
      row of one game, so then exactly alphazero.nn.auxiliary.score_loss); "score_error": the mean
      absolute difference of the predicted and the target mean score, in discs (not trained on);
    - "ownership": alphazero.nn.auxiliary's per-square binary cross-entropy against
      (1 + ownership) / 2, averaged over the rows whose game's end is known (a batch without any
      gives 0, and no gradient).
    """
    terms = {}
    if score_logits is not None:
        terms["score"] = torch.nn.functional.cross_entropy(score_logits.float(), score_targets)
        with torch.no_grad():
            scores = bin_scores().to(score_logits.device)
            terms["score_error"] = (expected_score(score_logits) - score_targets @ scores).abs().mean()
    if ownership_logits is not None:
        per_row = torch.nn.functional.binary_cross_entropy_with_logits(
            ownership_logits.float(), (1.0 + ownership.float()) * 0.5, reduction="none"
        ).mean(dim=1)
        known = ownership_known.float()
        terms["ownership"] = (per_row * known).sum() / known.sum().clamp(min=1.0)
    return terms


def symmetric_hits(positions: np.ndarray, predicted: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """bool[N]: predicted[i] is moves[i] or the image of moves[i] under a symmetry that leaves
    positions[i] unchanged (the same move on that board)."""
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    predicted, moves = np.asarray(predicted, dtype=np.int64), np.asarray(moves, dtype=np.int64)
    hits = predicted == moves
    for symmetry in range(1, NUM_SYMMETRIES):
        fixed = (transform_positions(positions, np.full(len(moves), symmetry, dtype=np.int64)) == positions).all(axis=1)
        hits |= fixed & (ACTION_MAP[symmetry, moves] == predicted)
    return hits


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


def inference_forward(net: torch.nn.Module, precision: str, device, auxiliary: bool = False):
    """forward(planes float32, history or None) -> (logits, values) of `net` (in eval mode) in
    `precision`: "fp32" the network itself; "bf16" on a CPU a batch-norm-folded copy with bf16
    weights fed bf16 planes (the arithmetic of NetworkEvaluator's bf16 path), on CUDA (and for
    networks that read the game's history) bf16 autocast; "int8" (a CPU, a board-only
    AlphaZeroNet, policy and value only) NetworkEvaluator's int8 forward. With `auxiliary` (a
    network with auxiliary heads, which reads no history) -> (logits, values, score_logits,
    ownership_logits)."""
    device = torch.device(device)
    if precision == "fp32":
        if auxiliary:
            return lambda planes, history=None: net(planes, auxiliary=True)
        return lambda planes, history=None: net(planes) if history is None else net(planes, history)
    if precision == "int8":
        if device.type != "cpu" or net.cfg.needs_history or auxiliary:
            raise ValueError("int8 scores a board-only network's policy and value on a CPU (no history, no auxiliary heads)")
        model = int8_inference.build(fuse_for_inference(net).to(memory_format=torch.channels_last))
        return lambda planes, history=None: model(planes)
    if precision != "bf16":
        raise ValueError(f"accuracy precision must be fp32, bf16 or int8, got {precision!r}")
    if device.type == "cpu" and not net.cfg.needs_history:
        model = fuse_for_inference(net).to(dtype=torch.bfloat16, memory_format=torch.channels_last)
        extra = {"auxiliary": True} if auxiliary else {}
        return lambda planes, history=None: model(planes.to(torch.bfloat16).contiguous(memory_format=torch.channels_last), **extra)

    def forward(planes, history=None):
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            if auxiliary:
                return net(planes, auxiliary=True)
            return net(planes) if history is None else net(planes, history)

    return forward


@torch.no_grad()
def evaluate_accuracy(
    net: torch.nn.Module, positions: np.ndarray, moves: np.ndarray, targets: np.ndarray, batch_size: int = 2048, device="cpu", history: np.ndarray | None = None,
    precision: str = "fp32", auxiliary: tuple | None = None,
) -> AccuracyReport:
    """Score `net` on positions uint64[N, 2] with expert moves int[N] and value targets float[N];
    `history` int[N, K] (the previous actions of each position's game) is passed to networks that
    read it (model=seed_cnn_rnn) and must then be given. `precision`: fp32 or bf16 (see
    `inference_forward`); the statistics are computed in float32 either way. `auxiliary`: the
    targets (score float[N, 65], ownership float[N, 64], ownership_known bool[N]) of a network with
    auxiliary heads, whose losses the report then carries (`pretraining_auxiliary_losses`).

    The network is put in eval mode for the call and restored to its previous mode after.
    """
    if not (len(positions) == len(moves) == len(targets)):
        raise ValueError(f"positions, moves and targets differ in length: {len(positions)}, {len(moves)}, {len(targets)}")
    if len(moves) == 0:
        raise ValueError("no positions to evaluate")
    was_training = net.training
    net.eval()
    forward = inference_forward(net, precision, device, auxiliary=auxiliary is not None)
    score_logits = ownership_logits = None
    sums = _Sums()
    try:
        for start in range(0, len(moves), batch_size):
            stop = start + batch_size
            planes, legal = encode_positions_and_mask(np.ascontiguousarray(positions[start:stop], dtype=np.uint64))
            if history is not None:
                window = torch.from_numpy(np.asarray(history[start:stop], dtype=np.int64)).to(device)
                logits, values = forward(torch.from_numpy(planes).to(device), window)
            elif auxiliary is not None:
                logits, values, score_logits, ownership_logits = forward(torch.from_numpy(planes).to(device))
                _add_auxiliary(sums, score_logits, ownership_logits, [a[start:stop] for a in auxiliary])
            else:
                logits, values = forward(torch.from_numpy(planes).to(device))
            stats = batch_statistics(
                logits.float().cpu(),
                values.float().cpu(),
                torch.from_numpy(legal),
                torch.from_numpy(np.array(moves[start:stop], dtype=np.int64)),
                torch.from_numpy(np.array(targets[start:stop], dtype=np.float32)),
            )
            for key, value in stats.items():
                setattr(sums, key, getattr(sums, key) + value.item())
            predicted = masked_log_softmax(logits.float().cpu(), torch.from_numpy(legal)).argmax(dim=1).numpy()
            sums.top1_symmetric += float(symmetric_hits(positions[start:stop], predicted, moves[start:stop]).sum())
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
        top1_symmetric=sums.top1_symmetric / n,
        score_loss=sums.score / n if score_logits is not None else float("nan"),
        score_error=sums.score_error / n if score_logits is not None else float("nan"),
        ownership_loss=sums.ownership / max(sums.ownership_known, 1.0) if ownership_logits is not None else float("nan"),
    )


def _add_auxiliary(sums: _Sums, score_logits, ownership_logits, targets) -> None:
    """Add one evaluation batch's auxiliary loss sums (means times the rows they average over)."""
    score, ownership, known = (torch.from_numpy(np.asarray(a)) for a in targets)
    terms = pretraining_auxiliary_losses(
        None if score_logits is None else score_logits.float().cpu(), None if ownership_logits is None else ownership_logits.float().cpu(),
        score, ownership, known,
    )
    if "score" in terms:
        sums.score += terms["score"].item() * len(score)
        sums.score_error += terms["score_error"].item() * len(score)
    if "ownership" in terms:
        rows = float(known.sum())
        sums.ownership += terms["ownership"].item() * rows
        sums.ownership_known += rows
