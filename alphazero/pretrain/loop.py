"""The supervised pretraining run, top to bottom:

    dataset (WTHOR -> memory maps) -> per epoch: batches (+ symmetries) -> train step -> log
                                   -> validate -> checkpoint

Run directory layout (shared with the self-play run's conventions):

    <run>/config.yaml              the resolved config
    <run>/log.txt                  the plain-text log
    <run>/tb/                      TensorBoard: loss/, train/, speed/, validation/, epoch/
    <run>/checkpoints/latest.pt    network + optimizer + scheduler + counters + RNG: the resume point
    <run>/checkpoints/best.pt      the network with the best validation `pretrain.best_metric` so far
                                   (top-1 up to symmetry by default; weights only)
    <run>/checkpoints/epoch-NNN.pt the network at the end of each epoch (weights only)

Every checkpoint is an `alphazero.nn.checkpoint` file, so `train.init_from=...`, the arena
(`mcts:checkpoint=PATH`) and play load any of them. The epoch's row order is a function of
(seed, epoch) and the symmetry RNG is saved, so a resume continues mid-epoch exactly where
`latest.pt` was written. Ctrl-C / SIGTERM saves `latest.pt` and exits; the `run.max_minutes` and
`run.max_steps` budgets (counted over all sessions) and the last epoch end with a validation of
the final network, then save.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter

from alphazero.data.dataset import ensure_dataset, is_current, read_manifest
from alphazero.data.wthor import read_wthor_directory
from alphazero.nn.checkpoint import (
    CheckpointError,
    build_network,
    initialise_from,
    load_checkpoint,
    load_weights,
    save_checkpoint,
    without_auxiliary_heads,
)
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.inference import resolve_device
from alphazero.nn import precision as precisions
from alphazero.nn.model import masked_log_softmax, masked_softmax, policy_cross_entropy, training_memory_format
from alphazero.pretrain import batches
from alphazero.pretrain.accuracy import AccuracyReport, batch_statistics, evaluate_accuracy, pretraining_auxiliary_losses
from alphazero.pretrain.config import BEST_METRICS, PretrainRootConfig, to_yaml
from alphazero.train.checkpoints import remove_temp_files
from alphazero.train.loop import ResumeCounters, StopRequest, check_resume_point, restore_rng, rng_state, seed_everything
from alphazero.train.run_dir import RunDirectoryError, RunLock, lock_holder, setup_logging
from alphazero.train.startup import check_same_model
from alphazero.train.trainer import build_optimizer, build_scheduler, restore_optimizer

log = logging.getLogger("alphazero.pretrain")

CHECKPOINT_KIND = "pretrain"


@dataclass
class PretrainState:
    """Counters that `latest.pt` carries across restarts."""

    epoch: int = 0  # the epoch in progress (0-based)
    batch_in_epoch: int = 0  # batches of `epoch` already trained
    step: int = 0
    samples_trained: int = 0
    seconds: float = 0.0  # wall time over all sessions
    best_metric: str = ""  # the validation measure best.pt was chosen by ("" = no best.pt yet)
    best_score: float = float("nan")  # best.pt's value of it
    best_step: int = -1
    validation: dict = field(default_factory=dict)  # the latest validation report
    finished: bool = False  # all epochs done


def _validation_rows(num_rows: int, wanted: int, seed: int) -> np.ndarray:
    """Sorted rows of the fixed validation subset (all rows when `wanted` is 0 or too large)."""
    if wanted == 0 or wanted >= num_rows:
        return np.arange(num_rows)
    return np.sort(np.random.default_rng([seed, 2**31 - 1]).choice(num_rows, size=wanted, replace=False))


class PretrainRun:
    """One run directory's pretraining, from a fresh start or a resume to a clean stop."""

    def __init__(self, cfg: PretrainRootConfig, run_dir: str | Path):
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.state = PretrainState()
        self.rng = np.random.default_rng(cfg.run.seed)
        self.started = time.monotonic()
        self.seconds_at_start = 0.0

    # ------------------------------------------------------------------------------------------
    # Set-up

    @property
    def checkpoint_dir(self) -> Path:
        return self.run_dir / "checkpoints"

    def _prepare_directory(self) -> None:
        for sub in ("checkpoints", "tb"):
            (self.run_dir / sub).mkdir(parents=True, exist_ok=True)

    def _setup(self) -> None:
        cfg, pre = self.cfg, self.cfg.pretrain
        self._prepare_directory()
        seed_everything(cfg.run.seed)
        torch.set_num_threads(pre.threads)
        self.device = resolve_device(pre.device)

        wthor_dir, dataset_dir = pre.resolved_wthor_dir(), pre.resolved_dataset_dir()
        log.info("dataset: %s from %s", dataset_dir, wthor_dir)
        self.dataset = ensure_dataset(wthor_dir, dataset_dir, pre.dataset_options(), progress=pre.progress)
        self.train_split = self.dataset.train
        if len(self.train_split) == 0 or len(self.dataset.validation) == 0:
            raise ValueError(
                f"the dataset in {dataset_dir} has {len(self.train_split)} training and {len(self.dataset.validation)} validation rows; "
                f"both must be non-empty (pretrain.years={pre.years}, pretrain.validation_years={pre.validation_years})"
            )
        self.train_targets = batches.value_targets(self.train_split, pre.value_target)
        self.history = cfg.model.history  # previous actions per sample (history-reading networks only)
        self.auxiliary = cfg.model.auxiliary_heads  # KataGo's score / ownership targets per sample
        self.steps_per_epoch = batches.steps_per_epoch(len(self.train_split), pre.batch_size)
        rows = _validation_rows(len(self.dataset.validation), pre.validation_positions, cfg.run.seed)
        validation = batches.read_batch(
            self.dataset.validation, batches.value_targets(self.dataset.validation, pre.value_target), rows, self.history, self.auxiliary
        )
        self.validation_batch = validation

        settings = pre.optimizer_settings(self.steps_per_epoch)
        self.memory_format = training_memory_format(pre.memory_format, self.device)
        self.net = build_network(cfg.model).to(self.device).to(memory_format=self.memory_format)
        self.autocast_dtype = self._training_precision()
        self.settings = settings
        self.optimizer = build_optimizer(self.net, settings)
        self.scheduler = build_scheduler(self.optimizer, settings)

        self.teacher = self._load_teacher(Path(pre.teacher)) if pre.teacher else None
        if cfg.run.resume:
            self._restore(load_checkpoint(self.checkpoint_dir / "latest.pt", map_location=self.device))
        elif pre.init_from:
            self._initialise_from(Path(pre.init_from))
        self.seconds_at_start = self.state.seconds
        (self.run_dir / "config.yaml").write_text(to_yaml(cfg))  # only once the resume or start has succeeded
        self.order = batches.epoch_order(len(self.train_split), cfg.run.seed, self.state.epoch)
        self.writer = SummaryWriter(str(self.run_dir / "tb"), purge_step=self.state.step if cfg.run.resume else None)
        if self.auxiliary:
            log.info("auxiliary heads: score weight %g, ownership weight %g", pre.score_weight, pre.ownership_weight)
        log.info(
            "run directory %s | model %s %dx%d%s | %d training rows (%d steps/epoch of %d), %d validation rows (years %s) | "
            "value target %s | device %s, %d thread(s)",
            self.run_dir, cfg.model.arch, cfg.model.blocks, cfg.model.channels, " +gpool" if cfg.model.global_pooling else "",
            len(self.train_split), self.steps_per_epoch, pre.batch_size, len(validation), pre.validation_years,
            pre.value_target, self.device, pre.threads,
        )

    def _initialise_from(self, path: Path) -> None:
        """Start from another run's weights (a fresh optimizer and schedule: only the network
        carries over)."""
        checkpoint = load_checkpoint(path, map_location=self.device)
        # The auxiliary heads may differ (a run may add them to a network trained without them,
        # e.g. warmstart-medium.pt, or leave them out); everything else must match.
        if without_auxiliary_heads(checkpoint.model_config) != without_auxiliary_heads(self.cfg.model):
            raise ValueError(
                f"pretrain.init_from={path} holds a {checkpoint.model_config} network, but the config asks for "
                f"{self.cfg.model}; pick the model preset it was trained with"
            )
        note = initialise_from(self.net, checkpoint, label=f"pretrain.init_from={path}")
        log.info("network initialised from %s%s", path, note)

    def _load_teacher(self, path: Path) -> torch.nn.Module:
        """The network to distil from (`pretrain.teacher`), frozen in eval mode on the training device."""
        checkpoint = check_teacher(path)
        teacher = build_network(checkpoint.model_config).to(self.device).to(memory_format=self.memory_format)
        load_weights(teacher, checkpoint.state_dict, source=str(path))
        teacher.eval().requires_grad_(False)
        model = checkpoint.model_config
        log.info(
            "distilling from %s (%s %dx%d), weight %.2f, temperature %.2f",
            path, model.arch, model.blocks, model.channels, self.cfg.pretrain.distill_weight, self.cfg.pretrain.distill_temperature,
        )
        return teacher

    def _restore(self, checkpoint) -> None:
        path = self.checkpoint_dir / "latest.pt"
        if checkpoint.model_config != self.cfg.model:
            raise ValueError(f"the network in {path} is {checkpoint.model_config}, but the config asks for {self.cfg.model}; use the same model preset/overrides")
        load_weights(self.net, checkpoint.state_dict, source=str(path))
        for change in restore_optimizer(self.optimizer, self.scheduler, checkpoint.optimizer_state, checkpoint.scheduler_state,
                                        self.settings, prefix="pretrain"):
            log.info("resume: %s", change)
        saved = dict(checkpoint.extra.get("state", {}))
        known = {f.name for f in dataclasses.fields(PretrainState)}
        if "best_top1" in saved and "best_metric" not in saved and saved.get("best_step", -1) >= 0:
            saved.update(best_metric="top1", best_score=saved["best_top1"])  # written before best_metric existed
        self.state = PretrainState(**{k: v for k, v in saved.items() if k in known})
        if "rng" in checkpoint.extra:
            restore_rng(self.rng, checkpoint.extra["rng"])
        log.info("resumed %s at epoch %d, batch %d, step %d", self.run_dir, self.state.epoch + 1, self.state.batch_in_epoch, self.state.step)
        self._rescore_best()

    def _rescore_best(self) -> None:
        """Make the resumed best.pt comparable with what validation measures now: a best.pt chosen
        by another `pretrain.best_metric` (or by plain top-1, before that setting existed) is
        scored again on the validation positions, so a worse network never replaces it just
        because the yardstick changed. A best.pt that has gone missing is forgotten, so that the
        next validation writes one, whatever it scores."""
        metric, path = self.cfg.pretrain.best_metric, self.checkpoint_dir / "best.pt"
        if self.state.best_step < 0:
            return
        if not path.is_file():
            log.warning("%s is missing; the next validation writes a new one", path)
            self.state.best_metric, self.state.best_score, self.state.best_step = "", float("nan"), -1
            return
        if self.state.best_metric == metric:
            return
        previous = self.state.best_metric
        best = build_network(self.cfg.model).to(self.device)
        try:
            load_weights(best, load_checkpoint(path, map_location=self.device).state_dict, source=str(path))
        except CheckpointError as error:
            raise CheckpointError(
                f"{error}; best.pt must be scored by pretrain.best_metric={metric} before the run goes on: "
                f"restore it, or delete it to let the next validation write a new one"
            ) from None
        v = self.validation_batch
        report = evaluate_accuracy(best, v.positions, v.moves, v.values, batch_size=self.cfg.pretrain.eval_batch_size, device=self.device, history=v.history)
        self.state.best_metric, self.state.best_score = metric, getattr(report, metric)
        log.info("best.pt (step %d) was chosen by %s; by %s it scores %.4f", self.state.best_step, previous, metric, self.state.best_score)

    def _improves_best(self, score: float) -> bool:
        """Whether `score` (of pretrain.best_metric) beats best.pt's; `_rescore_best` has made the
        two comparable."""
        if self.state.best_step < 0 or not math.isfinite(self.state.best_score):
            return True
        return score > self.state.best_score if BEST_METRICS[self.cfg.pretrain.best_metric] else score < self.state.best_score

    # ------------------------------------------------------------------------------------------
    # The stages

    def _elapsed(self) -> float:
        return self.seconds_at_start + time.monotonic() - self.started

    def _budget_spent(self) -> bool:
        run = self.cfg.run
        return bool((run.max_minutes and self._elapsed() >= run.max_minutes * 60) or (run.max_steps and self.state.step >= run.max_steps))

    def train_step(self, batch: batches.Batch) -> dict:
        """One optimisation step; returns the batch's loss terms, gradient norm and top-1 share as
        0-d tensors on the training device, and the learning rate as a float.

        Nothing here reads a value back to the host: on CUDA the step's kernels are queued and the
        loop goes on to read, augment and encode the next batch while they run. The loop reads the
        sums back once per `log_every_steps` (and before every save), where `_check_finite` stops a
        run whose loss diverged."""
        pre = self.cfg.pretrain
        self.net.train()
        planes, legal = encode_positions_and_mask(batch.positions)
        planes = torch.from_numpy(planes).to(self.device, non_blocking=True).contiguous(memory_format=self.memory_format)
        legal = torch.from_numpy(legal).to(self.device)
        moves = torch.from_numpy(batch.moves).to(self.device)
        targets = torch.from_numpy(batch.values).to(self.device)
        score_logits = ownership_logits = None
        with self._autocast():
            if batch.history is not None:
                logits, values = self.net(planes, torch.from_numpy(batch.history).to(self.device))
            elif self.auxiliary:
                logits, values, score_logits, ownership_logits = self.net(planes, auxiliary=True)
            else:
                logits, values = self.net(planes)
        logits = logits.float()
        policy_loss = -masked_log_softmax(logits, legal).gather(1, moves.unsqueeze(1)).mean()
        value_loss = torch.nn.functional.mse_loss(values.float(), targets)
        terms = {}
        if self.teacher is None:
            total = policy_loss + pre.value_loss_weight * value_loss
        else:
            distill, teacher_value_loss = self._distillation_losses(planes, legal, logits, values)
            weight = pre.distill_weight
            total = (1 - weight) * policy_loss + weight * distill + pre.value_loss_weight * (
                (1 - weight) * value_loss + weight * teacher_value_loss
            )
            terms = {"distill": distill.detach(), "teacher_value": teacher_value_loss.detach()}
        if self.auxiliary:
            auxiliary = pretraining_auxiliary_losses(score_logits, ownership_logits, *self._auxiliary_targets(batch))
            if "score" in auxiliary:
                total = total + pre.score_weight * auxiliary["score"]
            if "ownership" in auxiliary:
                total = total + pre.ownership_weight * auxiliary["ownership"]
            terms.update({key: value.detach() for key, value in auxiliary.items()})
        self.optimizer.zero_grad(set_to_none=True)
        total.backward()
        if pre.grad_clip > 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), pre.grad_clip)
        else:
            grad_norm = torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in self.net.parameters() if p.grad is not None))
        lr = self.optimizer.param_groups[0]["lr"]
        self.optimizer.step()
        self.scheduler.step()
        with torch.no_grad():
            stats = batch_statistics(logits.detach(), values.detach(), legal, moves, targets)
        return {
            "policy": policy_loss.detach(), "value": value_loss.detach(), "total": total.detach(),
            "grad_norm": grad_norm.detach(), "lr": lr, "top1": stats["top1"] / len(batch), **terms,
        }

    def _auxiliary_targets(self, batch: batches.Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The batch's score distributions, ownership and ownership mask on the training device."""
        return tuple(torch.from_numpy(np.asarray(a)).to(self.device, non_blocking=True) for a in (batch.score, batch.ownership, batch.ownership_known))

    def _distillation_losses(self, planes, legal, logits, values) -> tuple[torch.Tensor, torch.Tensor]:
        """(cross-entropy from the teacher's policy to the student's, both softened by the
        temperature and scaled by its square; mean squared distance to the teacher's value)."""
        temperature = self.cfg.pretrain.distill_temperature
        with torch.no_grad(), self._autocast():
            teacher_logits, teacher_values = self.teacher(planes)
        soft_targets = masked_softmax(teacher_logits.float() / temperature, legal)
        distill = policy_cross_entropy(logits / temperature, soft_targets, legal) * temperature**2
        return distill, torch.nn.functional.mse_loss(values.float(), teacher_values.float())

    def _check_finite(self, sums: dict, first_step: int) -> dict:
        """The running sums as floats (one read-back from the device); raises if the loss is no
        longer finite, naming the steps, so that a diverged network is never saved as progress."""
        values = {key: float(value) for key, value in sums.items()}
        if "total" in values and not math.isfinite(values["total"]):
            raise FloatingPointError(
                f"pretraining loss became {values['total']} between steps {first_step} and {self.state.step} "
                f"(policy {values['policy']}, value {values['value']}); lower pretrain.lr"
            )
        return values

    def _training_precision(self) -> torch.dtype | None:
        """The autocast dtype of the training forward pass (None: float32): with precision=auto,
        bf16 on CUDA with `pretrain.mixed_precision` (as before) and on a CPU where a short probe
        measures it faster (verdict cached in the run directory); fp32 and bf16 force one. The
        weights, optimizer, loss and validation stay float32 either way."""
        pre = self.cfg.pretrain
        if self.device.type == "cuda" and pre.precision == "auto":
            return torch.bfloat16 if pre.mixed_precision else None
        choice = precisions.choose_training(pre.precision, self.net, self.device, pre.batch_size, precisions.run_cache_file(self.run_dir),
                                            self.memory_format)
        precisions.log_choice("pretraining", choice.describe())
        return precisions.training_autocast_dtype(choice.precision)

    def _autocast(self):
        return precisions.autocast(self.device, self.autocast_dtype)

    def validate(self) -> AccuracyReport:
        start = time.perf_counter()
        v = self.validation_batch
        auxiliary = (v.score, v.ownership, v.ownership_known) if self.auxiliary else None
        report = evaluate_accuracy(
            self.net, v.positions, v.moves, v.values, batch_size=self.cfg.pretrain.eval_batch_size, device=self.device, history=v.history,
            auxiliary=auxiliary,
        )
        for key, value in report.as_dict().items():
            if key != "positions" and value is not None:
                self.writer.add_scalar(f"validation/{key}", value, self.state.step)
        self.state.validation = {**report.as_dict(), "step": self.state.step, "epoch": self.state.epoch + self.state.batch_in_epoch / self.steps_per_epoch}
        log.info(
            "validation at step %d (epoch %.2f): top1 %.4f (up to symmetry %.4f) top3 %.4f | policy loss %.4f | value mse %.4f sign acc %.4f | %d positions in %.0fs",
            self.state.step, self.state.validation["epoch"], report.top1, report.top1_symmetric, report.top3, report.policy_loss, report.value_mse,
            report.value_sign_accuracy, report.positions, time.perf_counter() - start,
        )
        if self.auxiliary:
            log.info(
                "validation at step %d: score loss %.4f, score error %.2f discs | ownership loss %.4f",
                self.state.step, report.score_loss, report.score_error, report.ownership_loss,
            )
        metric = self.cfg.pretrain.best_metric
        score = getattr(report, metric)
        if self._improves_best(score):
            self.state.best_metric, self.state.best_score, self.state.best_step = metric, score, self.state.step
            if not (self.checkpoint_dir / "latest.pt").exists():
                # best.pt never stands alone (a first validation before the first checkpoint), so a
                # best.pt without latest.pt always means a lost one, which `check_directory` refuses.
                self.save_latest()
            self._save_weights(self.checkpoint_dir / "best.pt")
        self.writer.flush()
        return report

    def _validate_final(self) -> None:
        """Validate the network a budget stops at, unless the periodic validation just did."""
        if self.state.validation.get("step") != self.state.step:
            self.validate()

    def _metadata(self) -> dict:
        pre = self.cfg.pretrain
        self.state.seconds = self._elapsed()
        return {
            "kind": CHECKPOINT_KIND,
            "value_target": pre.value_target,
            "state": dataclasses.asdict(self.state),
            "dataset": {
                "train_rows": len(self.train_split),
                "validation_rows": len(self.dataset.validation),
                "validation_years": list(pre.validation_years),
                "split": pre.split,
                "split_seed": pre.split_seed,
            },
            "config": to_yaml(self.cfg),
        }

    def _save_weights(self, path: Path) -> None:
        save_checkpoint(path, self.net, extra=self._metadata())

    def save_latest(self) -> None:
        extra = {**self._metadata(), "rng": rng_state(self.rng)}
        save_checkpoint(self.checkpoint_dir / "latest.pt", self.net, extra=extra, optimizer=self.optimizer, scheduler=self.scheduler)

    def _log_running(self, means: dict, samples_per_second: float) -> None:
        step, w = self.state.step, self.writer
        for key in ("policy", "value", "total", "distill", "teacher_value", "score", "ownership"):
            if key in means:
                w.add_scalar(f"loss/{key}", means[key], step)
        if "score_error" in means:
            w.add_scalar("train/score_error", means["score_error"], step)
        w.add_scalar("train/lr", means["lr"], step)
        w.add_scalar("train/grad_norm", means["grad_norm"], step)
        w.add_scalar("train/top1", means["top1"], step)
        w.add_scalar("train/epoch", self.state.epoch + self.state.batch_in_epoch / self.steps_per_epoch, step)
        w.add_scalar("speed/samples_per_second", samples_per_second, step)
        extra = f" teacher pi {means['distill']:.4f} v {means['teacher_value']:.4f}" if "distill" in means else ""
        if "score" in means:
            extra += f" score {means['score']:.4f} ({means['score_error']:.1f} discs)"
        if "ownership" in means:
            extra += f" own {means['ownership']:.4f}"
        log.info(
            "epoch %d step %d (%d/%d) | loss %.4f (pi %.4f v %.4f%s) | train top1 %.3f | lr %.2e | %.0f samples/s | %s",
            self.state.epoch + 1, step, self.state.batch_in_epoch, self.steps_per_epoch, means["total"], means["policy"],
            means["value"], extra, means["top1"], means["lr"], samples_per_second, _duration(self._elapsed()),
        )

    def _end_epoch(self, epoch_sums: dict, epoch_count: int) -> None:
        """Per-epoch curves (x = epoch number), the epoch checkpoint, and the next epoch's order."""
        epoch = self.state.epoch + 1
        report = self.validate()
        if epoch_count:
            for key in ("policy", "value", "top1", "score", "score_error", "ownership"):
                if key in epoch_sums:
                    self.writer.add_scalar(f"epoch/train_{key}", epoch_sums[key] / epoch_count, epoch)
        for key, value in report.as_dict().items():
            if key != "positions" and value is not None:
                self.writer.add_scalar(f"epoch/validation_{key}", value, epoch)
        self.state.epoch += 1
        self.state.batch_in_epoch = 0
        self.state.finished = self.state.epoch >= self.cfg.pretrain.epochs
        self._save_weights(self.checkpoint_dir / f"epoch-{epoch:03d}.pt")
        self.save_latest()
        if not self.state.finished:
            self.order = batches.epoch_order(len(self.train_split), self.cfg.run.seed, self.state.epoch)

    # ------------------------------------------------------------------------------------------
    # The loop

    def run(self) -> PretrainState:
        # A refused start changes nothing on disk: judge the directory before the lock file or the
        # log file is created.
        check_directory(self.run_dir, self.cfg.run.resume)
        if self.cfg.run.resume:
            check_resume(self.cfg, self.run_dir)
        if self.cfg.pretrain.teacher:
            check_teacher(Path(self.cfg.pretrain.teacher))
        lock = RunLock(self.run_dir)
        lock.acquire()
        try:
            setup_logging(self.run_dir)
            if self.cfg.run.resume:
                remove_temp_files(self.checkpoint_dir)  # of writes a kill interrupted; the lock says no writer is live
            self._setup()
            diverged = False
            try:
                with StopRequest() as stop:
                    self._loop(stop)
            except FloatingPointError:
                diverged = True  # latest.pt keeps the last network whose loss was finite
                raise
            finally:
                if not diverged:
                    self.save_latest()
                self.writer.close()
            state = self.state
            best = (f"best validation {state.best_metric} {state.best_score:.4f} at step {state.best_step} ({self.checkpoint_dir / 'best.pt'})"
                    if state.best_step >= 0 else "no validation yet, so no best.pt")
            log.info(
                "stopped at epoch %d, step %d; %s; %s",
                state.epoch + (0 if state.finished else 1), state.step, best,
                "all epochs done" if state.finished else f"resume with run.dir={self.run_dir} run.resume=true",
            )
            return self.state
        finally:
            lock.release()

    def _loop(self, stop: StopRequest) -> None:
        from tqdm import tqdm

        pre = self.cfg.pretrain
        augment_rng = self.rng if pre.augment else None
        while not self.state.finished and not stop.requested:
            if self._budget_spent():
                self._validate_final()
                return
            sums, count, window_start, window_first_step = {}, 0, time.perf_counter(), self.state.step + 1
            epoch_sums, epoch_count = {}, 0
            bar = tqdm(
                total=self.steps_per_epoch, initial=self.state.batch_in_epoch, desc=f"epoch {self.state.epoch + 1}/{pre.epochs}",
                unit="batch", disable=not pre.progress, mininterval=1.0 if sys.stderr.isatty() else 30.0, file=sys.stderr,
            )
            while self.state.batch_in_epoch < self.steps_per_epoch:
                if stop.requested:
                    bar.close()
                    self._check_finite(sums, window_first_step)
                    return
                if self._budget_spent():
                    bar.close()
                    self._check_finite(sums, window_first_step)
                    self._validate_final()
                    return
                batch = batches.training_batch(
                    self.train_split, self.train_targets, self.order, self.state.batch_in_epoch, pre.batch_size, augment_rng, self.history,
                    pre.fixed_board_moves, self.auxiliary,
                )
                losses = self.train_step(batch)
                self.state.step += 1
                self.state.batch_in_epoch += 1
                self.state.samples_trained += len(batch)
                for key, value in losses.items():
                    sums[key] = sums.get(key, 0.0) + value
                    epoch_sums[key] = epoch_sums.get(key, 0.0) + value
                count += 1
                epoch_count += 1
                bar.update()
                if self.state.step % pre.log_every_steps == 0:
                    means = {key: value / count for key, value in self._check_finite(sums, window_first_step).items()}
                    self._log_running(means, count * pre.batch_size / (time.perf_counter() - window_start))
                    bar.set_postfix(loss=f"{means['total']:.3f}", top1=f"{means['top1']:.3f}")
                    sums, count, window_start, window_first_step = {}, 0, time.perf_counter(), self.state.step + 1
                if pre.eval_every_steps and self.state.step % pre.eval_every_steps == 0 and self.state.batch_in_epoch < self.steps_per_epoch:
                    self.validate()
                if self.state.step % pre.checkpoint_every_steps == 0:
                    self._check_finite(sums, window_first_step)
                    self.save_latest()
            bar.close()
            self._check_finite(sums, window_first_step)
            self._end_epoch({key: float(value) for key, value in epoch_sums.items()}, epoch_count)


def check_directory(run_dir: Path, resume: bool) -> None:
    """Refuse, touching nothing, a start that does not fit `run_dir`: resume needs a pretraining
    run there (its latest.pt), a new run needs none, and nobody may be using the directory."""
    latest = Path(run_dir) / "checkpoints" / "latest.pt"
    _refuse_a_lost_latest(Path(run_dir))
    if resume and not latest.exists():
        raise RunDirectoryError(f"run.resume=true but {run_dir} holds no pretraining run (no checkpoints/latest.pt); drop run.resume or fix run.dir")
    if not resume and latest.exists():
        raise RunDirectoryError(f"{run_dir} already holds a run; add run.resume=true to continue it, or choose another run.dir")
    owner = lock_holder(Path(run_dir))
    if owner is not None:
        raise RunDirectoryError(f"run directory {run_dir} is in use by another process ({owner}); stop it or choose another run.dir")


def _refuse_a_lost_latest(run_dir: Path) -> None:
    """latest.pt missing beside the run's best.pt or epoch-NNN.pt: lost, since it is written before
    either (the first best.pt of a run whose first validation comes before its first checkpoint
    writes latest.pt first). A resume cannot go on without it, and a new run there would write its
    own best.pt and epoch files over these, so both are refused, with the way out."""
    directory = run_dir / "checkpoints"
    if (directory / "latest.pt").exists():
        return
    kept = sorted(directory.glob("epoch-*.pt")) + ([directory / "best.pt"] if (directory / "best.pt").exists() else [])
    if kept:
        raise RunDirectoryError(
            f"checkpoint {directory / 'latest.pt'} is missing but the run's {', '.join(p.name for p in kept)} are beside it, "
            f"so {run_dir} can neither be resumed nor started over; {unusable_latest_hint(run_dir)}"
        )


def unusable_latest_hint(run_dir: Path) -> str:
    """What to do when a pretraining run's latest.pt is lost or unusable: its other checkpoints
    hold weights only (no optimizer, schedule or position in the epoch), so the way on is a new
    run from the newest of them that loads."""
    directory = Path(run_dir) / "checkpoints"
    for candidate in [*sorted(directory.glob("epoch-*.pt"), reverse=True), directory / "best.pt"]:
        try:
            load_checkpoint(candidate)
        except CheckpointError:
            continue
        return (
            f"its epoch-*.pt and best.pt hold weights only (no optimizer, schedule or place in the epoch): to go on from "
            f"{candidate.name}, the newest that loads, start a new run from it: pretrain.init_from={candidate} run.dir=NEW_DIR"
        )
    return f"no readable epoch-*.pt or best.pt beside it: start the run again in a new run.dir (or delete {directory})"


def check_resume(cfg: PretrainRootConfig, run_dir: Path) -> None:
    """A resume of the pretraining run in `run_dir` can go on from its latest.pt with `cfg`, else
    CheckpointError or ValueError, in one line naming the file and the part (reads only: the
    start check calls this before Hydra rewrites .hydra/ and the run its config.yaml and log):
    the file loads, holds a network of `cfg.model`, an optimizer and LR schedule that
    `pretrain.optimizer` can continue and whose tensors fit and are finite, PretrainState
    counters and generators (alphazero.train.loop.check_resume_point, the training run's check);
    its position in the epoch counts batches of `pretrain.batch_size`; and best.pt, which the run
    goes on improving on, loads."""
    path = Path(run_dir) / "checkpoints" / "latest.pt"
    def way_out() -> str:  # only when something is wrong: it loads the run's other checkpoints
        return unusable_latest_hint(run_dir)

    try:
        latest = load_checkpoint(path)
    except CheckpointError as error:
        raise CheckpointError(f"{error}; {way_out()}") from None
    check_same_model(latest.model_config, cfg.model, str(path))
    counters = ResumeCounters(PretrainState, lambda extra: extra.get("state"), way_out)
    check_resume_point(latest, cfg.pretrain.optimizer_settings(steps_per_epoch=1), path, counters, prefix="pretrain")
    _check_batch_size(latest.extra, cfg.pretrain.batch_size, path)
    _check_best(Path(run_dir) / "checkpoints" / "best.pt", latest.model_config)


def _check_batch_size(extra: dict, batch_size: int, path: Path) -> None:
    """latest.pt's place in the epoch is a count of batches of the size it was trained with: under
    another size the resume would start from another row and skip (or repeat) part of the epoch.
    A new size may take over at an epoch boundary."""
    state = extra["state"]
    try:
        saved = yaml.safe_load(extra.get("config", ""))["pretrain"]["batch_size"]
    except Exception:  # noqa: BLE001 - a checkpoint without a readable config: nothing to compare
        return
    if state.get("batch_in_epoch", 0) and saved != batch_size:
        raise ValueError(
            f"pretrain.batch_size={batch_size} but {path} stopped {state['batch_in_epoch']} batches of {saved} into epoch "
            f"{state.get('epoch', 0) + 1}; resume with pretrain.batch_size={saved} (a new batch size can take over once the epoch is done)"
        )


def _check_best(path: Path, model) -> None:
    """best.pt, the run's best network so far, loads and is of the run's model: the resume goes on
    comparing validations with it and replaces it only by a better one, so a damaged one would
    otherwise be kept (and reported as the result) whenever no later network beats its score."""
    if not path.exists():
        return  # lost: the resume forgets it and the next validation writes a new one (_rescore_best)
    try:
        best = load_checkpoint(path)
    except CheckpointError as error:
        raise CheckpointError(f"{error}; it is the run's best network so far: restore it, or delete it to let the next validation write a new one") from None
    if best.model_config != model:
        raise ValueError(f"{path} holds a {best.model_config} network, not the run's {model}: restore the run's best.pt, or delete it "
                         "to let the next validation write a new one")


def check_wthor_inputs(pre) -> None:
    """The expert games a new dataset would be built from are there, readable and hold the
    validation years, else ValueError naming the key to fix. A start check (reads only, a fraction
    of a second for all of WTHOR): the build itself refuses such inputs only after the run
    directory exists, and a missing validation year only after minutes of work and hundreds of MB
    written to the dataset cache. Nothing is read when the cached dataset is current."""
    wthor_dir, options = pre.resolved_wthor_dir(), pre.dataset_options()
    if is_current(read_manifest(pre.resolved_dataset_dir()), wthor_dir, options):
        return
    try:
        database = read_wthor_directory(wthor_dir, options.years)
    except FileNotFoundError as error:
        raise ValueError(f"{'pretrain.years' if options.years else 'pretrain.wthor_dir'}: {error}") from None
    if options.split != "year":
        return
    present = sorted({int(year) for year in np.unique(database.year)})
    held_out = set(options.validation_years)
    missing = sorted(held_out - set(present))
    span = f"{len(present)} years, {present[0]}-{present[-1]}"
    if missing:
        raise ValueError(
            f"pretrain.validation_years={list(options.validation_years)}: no games of {missing} in {wthor_dir} ({span}); "
            "choose years that are there"
        )
    if set(present) <= held_out:
        raise ValueError(
            f"pretrain.validation_years={list(options.validation_years)} holds out every game of {wthor_dir} ({span}): "
            "nothing is left to train on"
        )


def check_teacher(path: Path):
    """The checkpoint behind `pretrain.teacher`, refused (a damaged or missing file by
    `load_checkpoint`, a history-reading network here) before the run touches its directory."""
    checkpoint = load_checkpoint(path)
    if checkpoint.model_config.history:
        raise ValueError(
            f"pretrain.teacher={path} is a {checkpoint.model_config.arch} network that reads the last "
            f"{checkpoint.model_config.history} moves; distil from a network that reads the board only"
        )
    return checkpoint


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"
