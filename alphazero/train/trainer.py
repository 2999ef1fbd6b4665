"""One optimisation step of the policy/value network on a replay batch.

loss = cross-entropy(visit distribution, masked policy) + w * MSE(outcome, value)
       [+ score_weight * score CE + ownership_weight * ownership BCE, with the auxiliary heads]

Rows whose policy is no training target (`policy_mask` False: playout cap randomisation's small
searches) add nothing to the policy loss, which is then the mean over the other rows.

A network with KataGo's auxiliary heads (`ModelConfig.score_head` / `ownership_head`) is run
with `auxiliary=True` and also trained on the game's final board (alphazero.nn.auxiliary): the
score and ownership terms are means over the rows whose final board is the true end of the game
(`aux_mask`), and the score's mean absolute error in discs is reported (`score_error`).

The policy is masked to legal actions before the log-softmax, so illegal actions neither get
probability nor gradient, and a zero target on a masked action never produces 0 * -inf = NaN.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from alphazero.nn import precision as precisions
from alphazero.nn.auxiliary import auxiliary_row_losses, auxiliary_targets
from alphazero.nn.encoding import encode_positions
from alphazero.nn.config import check_auxiliary_weights
from alphazero.nn.model import masked_log_softmax, training_memory_format
from alphazero.othello.bitboard import legal_action_mask_batch
from alphazero.train.config import TrainConfig


def build_optimizer(net: torch.nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    # No weight decay on biases and batch-norm parameters (1-D tensors), as is usual for ResNets.
    decay = [p for p in net.parameters() if p.ndim > 1]
    no_decay = [p for p in net.parameters() if p.ndim <= 1]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    if cfg.optimizer == "sgd":
        return torch.optim.SGD(groups, lr=cfg.lr, momentum=cfg.momentum, nesterov=True)
    return torch.optim.AdamW(groups, lr=cfg.lr)


# The share of a run's time budget spent, in [0, 1]: the cosine's progress under
# train.lr_schedule_horizon=minutes (alphazero.train.loop builds it from the run's clock).
TimeProgress = Callable[[], float]


def lr_factor(step: int, cfg: TrainConfig, time_progress: float | None = None) -> float:
    """Multiplier of cfg.lr at `step`: linear warm-up, then constant, cosine or step decay.

    time_progress: the share of the run's time budget spent (train.lr_schedule_horizon=minutes);
    the cosine then follows it instead of the steps after the warm-up. None: counted in steps."""
    if cfg.lr_warmup_steps and step < cfg.lr_warmup_steps:
        return (step + 1) / cfg.lr_warmup_steps
    if cfg.lr_schedule == "constant":
        return 1.0
    if cfg.lr_schedule == "step":
        # Counted from the end of the warm-up, as the cosine's progress is: a step boundary every
        # lr_step_every steps of the schedule proper.
        return cfg.lr_step_gamma ** ((step - cfg.lr_warmup_steps) // cfg.lr_step_every)
    if time_progress is None:
        progress = min(1.0, (step - cfg.lr_warmup_steps) / max(1, cfg.lr_total_steps - cfg.lr_warmup_steps))
    else:
        progress = min(1.0, max(0.0, time_progress))
    return cfg.lr_min_factor + (1 - cfg.lr_min_factor) * 0.5 * (1 + math.cos(math.pi * progress))


def build_scheduler(optimizer: torch.optim.Optimizer, cfg: TrainConfig,
                    time_progress: TimeProgress | None = None) -> torch.optim.lr_scheduler.LambdaLR:
    """The LR schedule as torch's LambdaLR: its state is the step count; with `time_progress`
    (a horizon in run time) each step's factor also reads the run's clock, which the run's own
    checkpoint carries (RunState.seconds), so a resume continues the same curve."""
    if time_progress is None:
        return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: lr_factor(step, cfg))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: lr_factor(step, cfg, time_progress()))


class OptimizerMismatch(ValueError):
    """A checkpoint's optimizer state is of another kind than train.optimizer (the message names
    both); kept apart from a damaged state, which is the checkpoint's fault, not the config's."""


def restore_optimizer(optimizer, scheduler, optimizer_state: dict, scheduler_state: dict, cfg: TrainConfig,
                      prefix: str = "train", time_progress: TimeProgress | None = None) -> list[str]:
    """Continue a run's optimizer and LR schedule from a checkpoint, under `cfg`'s hyperparameters.

    torch's state dicts carry the old run's lr (the scheduler's base_lrs), momentum and weight
    decay; loading them alone would silently ignore a changed `train.lr`. So the config's values
    are put back afterwards and the schedule continues at the saved step with them. Returns each
    change as one line for the log (`prefix` names the config group). An optimizer of another kind
    cannot continue from this state: OptimizerMismatch naming both. `time_progress`: the
    schedule's clock when its horizon is run time (as given to `build_scheduler`)."""
    saved_kind = "adamw" if "betas" in optimizer_state["param_groups"][0] else "sgd"
    if saved_kind != cfg.optimizer:
        raise OptimizerMismatch(f"{prefix}.optimizer={cfg.optimizer} but the checkpoint was trained with {saved_kind}; "
                                f"resume with {prefix}.optimizer={saved_kind} (its state cannot continue another optimizer)")
    wanted = [{key: group[key] for key in ("momentum", "weight_decay") if key in group} for group in optimizer.param_groups]
    optimizer.load_state_dict(optimizer_state)
    scheduler.load_state_dict(scheduler_state)
    changes = []
    old_lr = scheduler.base_lrs[0]
    if old_lr != cfg.lr:
        changes.append(f"{prefix}.lr changed from {old_lr:g} to {cfg.lr:g}: applied from step {scheduler.last_epoch}")
    scheduler.base_lrs = [cfg.lr] * len(optimizer.param_groups)
    factor = lr_factor(scheduler.last_epoch, cfg, None if time_progress is None else time_progress())
    saved_rate = optimizer_state["param_groups"][0].get("lr")
    if old_lr == cfg.lr and isinstance(saved_rate, float) and abs(cfg.lr * factor - saved_rate) > 0.02 * saved_rate:
        # Same base rate, another point on the curve: the schedule's settings changed (its kind,
        # its horizon, or the time budget a run-time horizon follows). Applied, and said.
        changes.append(f"the learning rate continues at {cfg.lr * factor:.3g}, not the checkpoint's {saved_rate:.3g}: "
                       f"the schedule's settings changed ({prefix}.lr_schedule, its horizon or the time budget it follows)")
    for index, (group, values) in enumerate(zip(optimizer.param_groups, wanted)):
        group["initial_lr"] = cfg.lr
        group["lr"] = cfg.lr * factor
        for key, value in values.items():
            if group[key] != value:
                changes.append(f"{prefix}.{key} changed from {group[key]:g} to {value:g} (parameter group {index}): applied")
                group[key] = value
    scheduler._last_lr = [group["lr"] for group in optimizer.param_groups]
    return changes


class Trainer:
    """Owns the optimizer and scheduler of one network; `step` trains on one batch.

    Precision (`train.precision`): auto on CUDA is bf16 autocast with `train.mixed_precision` (as
    before), auto on a CPU a short probe of a training step (`nn.precision.choose_training`, its
    verdict cached in `precision_cache`, None = the user's cache); fp32 and bf16 force one. bf16 is autocast of the
    forward pass only: the weights, gradients and optimizer state stay float32 (master weights),
    and so do the loss and everything saved, so a checkpoint does not depend on the precision.
    """

    def __init__(self, net: torch.nn.Module, cfg: TrainConfig, device: torch.device, precision_cache=None,
                 time_progress: TimeProgress | None = None):
        self.memory_format = self._memory_format(cfg, device)
        self.net = net.to(device).to(memory_format=self.memory_format)
        # What the forward pass calls: the network itself, or its DistributedDataParallel wrapper
        # (alphazero.train.distributed), which averages the gradients over the processes.
        self.model = self.net
        self.cfg = cfg
        self.device = device
        self.optimizer = build_optimizer(self.net, cfg)
        # The cosine's clock when its horizon is the run's time (train.lr_schedule_horizon=minutes).
        self.time_progress = time_progress
        self.scheduler = build_scheduler(self.optimizer, cfg, time_progress)
        if cfg.precision == "fp16":
            raise ValueError("train.precision=fp16 is not supported for training (it would need a gradient scaler); use bf16 or fp32")
        if device.type == "cuda" and cfg.precision == "auto":  # as before this setting existed
            chosen = "bf16" if cfg.mixed_precision else "fp32"
            self.precision_choice = precisions.Choice(chosen, "auto", f"train.mixed_precision={cfg.mixed_precision} on CUDA")
        else:
            self.precision_choice = precisions.choose_training(cfg.precision, self.net, device, cfg.batch_size, precision_cache, self.memory_format)
            if self.precision_choice.how != "forced":
                precisions.log_choice("trainer", self.precision_choice.describe())
        self.precision = self.precision_choice.precision
        self.autocast_dtype = precisions.training_autocast_dtype(self.precision)
        self.use_autocast = self.autocast_dtype is not None
        model_cfg = getattr(self.net, "cfg", None)
        self.score_head = bool(getattr(model_cfg, "score_head", False))
        self.ownership_head = bool(getattr(model_cfg, "ownership_head", False))
        self.auxiliary = self.score_head or self.ownership_head
        check_auxiliary_weights(self.score_head, self.ownership_head, cfg.score_weight, cfg.ownership_weight)

    def load_state(self, optimizer_state: dict, scheduler_state: dict) -> list[str]:
        """Continue from a checkpoint's optimizer and LR schedule under this config (see
        `restore_optimizer`); returns the changed hyperparameters, one line each."""
        return restore_optimizer(self.optimizer, self.scheduler, optimizer_state, scheduler_state, self.cfg,
                                 time_progress=self.time_progress)

    @staticmethod
    def _memory_format(cfg: TrainConfig, device: torch.device) -> torch.memory_format:
        return training_memory_format(cfg.memory_format, device)

    def losses(self, positions: np.ndarray, target_policies: np.ndarray, target_values: np.ndarray,
               policy_mask: np.ndarray | None = None, final_boards: np.ndarray | None = None,
               aux_mask: np.ndarray | None = None) -> dict:
        """Loss terms (tensors) for a batch; used by `step` and by evaluation without gradients.
        policy_mask: bool[n] or None; rows with False count in the value loss only.
        final_boards: uint64[n, 2], each row's final board from its side to move's view under the
        row's symmetry (needed when the network has auxiliary heads, ignored otherwise);
        aux_mask: bool[n] or None, False where that board is no target (not the game's end)."""
        planes = torch.from_numpy(encode_positions(positions)).to(self.device, non_blocking=True)
        planes = planes.contiguous(memory_format=self.memory_format)
        legal = torch.from_numpy(legal_action_mask_batch(positions)).to(self.device)
        target_pi = torch.from_numpy(np.asarray(target_policies, dtype=np.float32)).to(self.device)
        target_v = torch.from_numpy(np.asarray(target_values, dtype=np.float32)).to(self.device)
        with precisions.autocast(self.device, self.autocast_dtype):
            if self.auxiliary:
                logits, value, score_logits, ownership_logits = self.model(planes, auxiliary=True)
            else:
                logits, value = self.model(planes)
        log_pi = masked_log_softmax(logits.float(), legal)
        safe_log_pi = torch.where(legal, log_pi, torch.zeros_like(log_pi))
        value_loss = torch.nn.functional.mse_loss(value.float(), target_v)
        entropy = -(log_pi.exp() * safe_log_pi).sum(dim=1).mean()
        cross_entropy = -(target_pi * safe_log_pi).sum(dim=1)
        # Cross-entropy minus the target's own entropy: 0 when the policy matches the target exactly.
        own_entropy = -(target_pi * torch.log(target_pi.clamp_min(1e-12))).sum(dim=1)
        if policy_mask is None:
            policy_loss = cross_entropy.mean()
            target_entropy = own_entropy.mean()
        else:
            weight = torch.from_numpy(np.asarray(policy_mask, dtype=np.float32)).to(self.device)
            rows = self._policy_rows(weight)
            policy_loss = (cross_entropy * weight).sum() / rows
            target_entropy = (own_entropy * weight).sum() / rows
        terms = {
            "policy": policy_loss,
            "value": value_loss,
            "total": policy_loss + self.cfg.value_loss_weight * value_loss,
            "entropy": entropy,
            "policy_kl": policy_loss - target_entropy,
        }
        if self.auxiliary:
            terms.update(self._auxiliary_terms(score_logits, ownership_logits, final_boards, aux_mask))
            terms["total"] = terms["total"] + self.cfg.score_weight * terms.get("score", 0.0) \
                + self.cfg.ownership_weight * terms.get("ownership", 0.0)
        return terms

    def _auxiliary_terms(self, score_logits, ownership_logits, final_boards, aux_mask) -> dict:
        """The score and ownership losses (and the score's mean absolute error), averaged over
        the rows with a target. Computed on every row and weighted, never indexed: every rank of
        the distributed trainer then runs the same graph, whatever its share's mask."""
        if final_boards is None:
            raise ValueError("the network has auxiliary heads (model.score_head / model.ownership_head) but the batch "
                             "has no final boards to train them on")
        target_bins, target_ownership = auxiliary_targets(final_boards)
        rows = auxiliary_row_losses(
            score_logits, ownership_logits, torch.from_numpy(target_bins).to(self.device),
            torch.from_numpy(target_ownership).to(self.device),
        )
        weight = torch.ones(len(final_boards), device=self.device) if aux_mask is None else \
            torch.from_numpy(np.asarray(aux_mask, dtype=np.float32)).to(self.device)
        count = self._auxiliary_rows(weight)
        return {name: (row_losses * weight).sum() / count for name, row_losses in rows.items()}

    def _auxiliary_rows(self, weight: torch.Tensor) -> torch.Tensor:
        """The rows the auxiliary losses are averaged over (the distributed trainer counts those
        of the whole batch, as for the policy)."""
        return weight.sum().clamp_min(1.0)

    def _policy_rows(self, weight: torch.Tensor) -> torch.Tensor:
        """The rows the masked policy loss is averaged over (the distributed trainer counts those
        of the whole batch, so that its processes' shares average to the loss of one process)."""
        return weight.sum().clamp_min(1.0)

    def step(self, positions: np.ndarray, target_policies: np.ndarray, target_values: np.ndarray,
             policy_mask: np.ndarray | None = None, final_boards: np.ndarray | None = None,
             aux_mask: np.ndarray | None = None) -> dict:
        """One SGD/AdamW step; returns plain floats for logging (with auxiliary heads also
        score, score_error and ownership)."""
        self.net.train()
        terms = self.losses(positions, target_policies, target_values, policy_mask, final_boards, aux_mask)
        self.optimizer.zero_grad(set_to_none=True)
        terms["total"].backward()
        if self.cfg.grad_clip > 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.grad_clip)
        else:
            grad_norm = torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in self.net.parameters() if p.grad is not None))
        lr = self.optimizer.param_groups[0]["lr"]
        self.optimizer.step()
        self.scheduler.step()
        out = self._report_terms(terms)
        out["grad_norm"] = float(grad_norm)
        out["lr"] = lr
        if not math.isfinite(out["total"]):
            raise FloatingPointError(
                f"training loss became {out['total']} (policy {out['policy']}, value {out['value']}); "
                "lower train.lr or check the replay data"
            )
        return out

    def _report_terms(self, terms: dict) -> dict:
        """The loss terms as plain floats (the distributed trainer averages them over its processes)."""
        return {name: float(value.detach()) for name, value in terms.items()}

    def state_dict(self) -> dict:
        return {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
