"""Training on several processes (one GPU each) with DistributedDataParallel.

    torchrun --nproc_per_node=4 -m alphazero.train experiment=gpu run.dir=runs/big

torchrun starts N copies of the entry point with RANK, WORLD_SIZE and LOCAL_RANK set (WORLD_SIZE=1,
or none of them, is the ordinary single process: nothing here runs). Rank 0 is the run: the
self-play workers, the run directory and its lock, the replay buffer, checkpoints, TensorBoard,
gating and evaluation all live there, exactly as in a single process. The other ranks only train:
they never open the run directory.

Each training step rank 0 samples the global batch (`train.batch_size` rows) from its replay
window, as a single process does, and broadcasts it; rank r trains on rows [r*b, (r+1)*b) with
b = batch_size / N, DDP averages the gradients, and every rank applies the same update. Sending the
batch rather than letting every rank sample the shards itself:
  - N processes draw the very batches one process draws with the same seed;
  - the other ranks need neither the replay directory (no shared file system) nor its timing: no
    window that differs by a shard written between two ranks' scans, no shard pruned under a
    reader, no second copy of a window of millions of positions in memory per rank;
  - it is cheap: 304 bytes a row (position, policy, value, policy mask, final board and its mask
    for the auxiliary targets), 78 KB a step at batch 256, over local
    sockets, against a forward/backward of milliseconds. Each rank encodes its own rows (planes,
    legal masks), which is the CPU-heavy part.

Batch norm. Under plain DDP each rank would normalise its rows with its own share's statistics,
which is not what one process does on the whole batch. The batch-norm layers are therefore
synchronised: torch.nn.SyncBatchNorm on CUDA, and on CPU (which torch's SyncBatchNorm refuses)
`CrossProcessBatchNorm`, the same computation with differentiable all-reduces. Both keep the
parameter and buffer names, so checkpoints are those of a single process. The running statistics
come out identical on every rank, so DDP need not broadcast buffers.

The control messages go over a gloo group of their own with a long timeout: rank 0 may spend an
hour in self-play, gating or evaluation while the others wait for the next step.
  start  one pickled object {config, network state, optimizer + scheduler state} (None: no run)
  step   one uint8 message: header (int64 op, int64 rows, float64 learning rate of the step:
         rank 0's schedule decides it, so a schedule in run time, which only rank 0's clock
         knows, is every rank's), positions (uint64 [rows, 2]),
         policies (float32 [rows, 65]), values (float32 [rows]), policy mask (float32 [rows]: 0
         where the policy is no target, playout cap randomisation's small searches), final
         boards (uint64 [rows, 2]: the auxiliary targets, zeros without them), auxiliary mask
         (float32 [rows]: 0 where the final board is no target)
  stop   the same message with op STOP, sent by rank 0 after its final save
"""

from __future__ import annotations

import dataclasses
import datetime
import gc
import os
import signal
import sys
from dataclasses import dataclass

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from alphazero.nn.checkpoint import build_network
from alphazero.nn.inference import resolve_device
from alphazero.othello.bitboard import NUM_ACTIONS
from alphazero.train.config import TrainConfig
from alphazero.train.trainer import Trainer

CONTROL_TIMEOUT = datetime.timedelta(days=7)  # gloo keeps it in int32 milliseconds: < 24.8 days
_STEP, _STOP = 1, 2
_HEADER_BYTES = 24  # int64 op, int64 rows, float64 learning rate
_ROW_BYTES = 2 * 8 + NUM_ACTIONS * 4 + 4 + 4 + 2 * 8 + 4  # positions, policy, value, policy mask, final boards, aux mask


@dataclass(frozen=True)
class Ranks:
    """Where this process stands among the training processes (torchrun's environment)."""

    rank: int
    world_size: int
    local_rank: int

    @classmethod
    def from_environment(cls, environ=None) -> Ranks | None:
        """The ranks torchrun set, or None for a single process (no WORLD_SIZE, or 1)."""
        environ = os.environ if environ is None else environ
        world_size = int(environ.get("WORLD_SIZE") or 1)
        if world_size <= 1:
            return None
        if "RANK" not in environ:
            raise ValueError(f"WORLD_SIZE={world_size} but RANK is not set: start the processes with torchrun")
        rank = int(environ["RANK"])
        return cls(rank=rank, world_size=world_size, local_rank=int(environ.get("LOCAL_RANK", rank)))


def check_batch_size(batch_size: int, world_size: int) -> None:
    if batch_size % world_size:
        raise ValueError(
            f"train.batch_size={batch_size} does not split evenly over the {world_size} training processes; "
            f"use a multiple of {world_size}"
        )


def training_device(name: str, local_rank: int) -> torch.device:
    """The device of one training process: `train.device` resolved as for a single process, with
    CUDA pinned to GPU number LOCAL_RANK (each process its own GPU)."""
    device = resolve_device(name)
    if device.type != "cuda":
        return device
    count = torch.cuda.device_count()
    if local_rank >= count:
        raise ValueError(
            f"training process with LOCAL_RANK={local_rank} has no GPU of its own ({count} visible); "
            f"start at most {count} processes per machine (--nproc_per_node)"
        )
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    return device


# ----------------------------------------------------------------------------------------------
# Batch norm across processes


class CrossProcessBatchNorm(nn.modules.batchnorm._BatchNorm):
    """Batch norm whose training statistics are those of the rows of every process together.

    The per-channel sum and row count, then the sum of squared deviations from the global mean,
    are all-reduced with autograd-aware collectives, so the backward pass carries every process's
    loss into every process's inputs, as one batch norm over the whole batch would. The running
    statistics are updated as `nn.BatchNorm*` does (momentum, unbiased running variance). Outside
    a process group of two or more processes, and in eval mode, it is plain batch norm. It works
    on any device and backend; `synchronise_batch_norm` uses it where torch.nn.SyncBatchNorm does
    not run (CPU).
    """

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1):
            return super().forward(x)
        self._check_input_dim(x)
        dims = [0, *range(2, x.dim())]
        shape = [1, -1] + [1] * (x.dim() - 2)
        data = x.float()
        rows = x.numel() // x.shape[1]
        totals = _AllReduceSum.apply(torch.cat([data.sum(dims), data.new_tensor([float(rows)])]))
        count = totals[-1]
        mean = totals[:-1] / count
        centered = data - mean.view(shape)
        var = _AllReduceSum.apply((centered * centered).sum(dims)) / count
        out = centered * torch.rsqrt(var + self.eps).view(shape)
        if self.affine:
            out = out * self.weight.view(shape) + self.bias.view(shape)
        if self.track_running_stats:
            with torch.no_grad():
                self.num_batches_tracked.add_(1)
                factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
                self.running_mean.mul_(1 - factor).add_(factor * mean.detach())
                self.running_var.mul_(1 - factor).add_(factor * var.detach() * count / (count - 1))
        return out.to(x.dtype)


class _AllReduceSum(torch.autograd.Function):
    """Sum over the processes, differentiable: the gradient of each process's input is the sum of
    every process's gradient of the output (each one's loss depends on every input)."""

    @staticmethod
    def forward(ctx, tensor):
        total = tensor.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total)
        return total

    @staticmethod
    def backward(ctx, grad):
        total = grad.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total)
        return total


def synchronise_batch_norm(net: nn.Module, device: torch.device) -> nn.Module:
    """Replace every batch-norm layer of `net` (in place, keeping its parameters and buffers) by
    one that normalises over all processes: torch.nn.SyncBatchNorm on CUDA, CrossProcessBatchNorm
    elsewhere."""
    if isinstance(net, nn.modules.batchnorm._BatchNorm):
        raise TypeError("synchronise_batch_norm replaces the layers inside a network, not a bare batch-norm layer")
    if device.type == "cuda":
        return nn.SyncBatchNorm.convert_sync_batchnorm(net)
    for name, child in net.named_children():
        if isinstance(child, nn.modules.batchnorm._BatchNorm):
            if not isinstance(child, (CrossProcessBatchNorm, nn.SyncBatchNorm)):
                setattr(net, name, _cross_process_copy(child))
        else:
            synchronise_batch_norm(child, device)
    return net


def _cross_process_copy(layer: nn.modules.batchnorm._BatchNorm) -> CrossProcessBatchNorm:
    copy = CrossProcessBatchNorm(layer.num_features, layer.eps, layer.momentum, layer.affine, layer.track_running_stats)
    if layer.affine:
        copy.weight, copy.bias = layer.weight, layer.bias  # the same Parameter objects
    if layer.track_running_stats:
        copy.running_mean, copy.running_var, copy.num_batches_tracked = layer.running_mean, layer.running_var, layer.num_batches_tracked
    copy.train(layer.training)
    return copy


# ----------------------------------------------------------------------------------------------
# The trainer of one process


class DistributedTrainer(Trainer):
    """The trainer of one of N processes: a Trainer whose network runs under DDP with synchronised
    batch norm. Rank 0 calls `step` with the global batch (it sends it to the others and trains on
    its share); the other ranks call `serve`, which trains on their share of each batch rank 0
    sends until it sends stop. The losses returned are those of the global batch (the mean over
    the processes of their shares' losses), so every rank sees the same figures."""

    def __init__(self, net: nn.Module, cfg: TrainConfig, device: torch.device, group: Group, time_progress=None):
        check_batch_size(cfg.batch_size, group.ranks.world_size)
        if synchronise_batch_norm(net, device) is not net:
            raise TypeError("the network itself is a batch-norm layer")
        super().__init__(net, cfg, device, time_progress=time_progress)
        # The buffers (batch-norm running statistics) are synchronised once, when DDP starts, and
        # stay equal since: every rank updates them from the same global statistics.
        self.model = DistributedDataParallel(
            self.net, device_ids=[device.index] if device.type == "cuda" else None, forward_sync_buffers=False
        )
        self.group = group
        self.rank, self.world_size = group.ranks.rank, group.ranks.world_size
        self.message = torch.empty(_HEADER_BYTES + _ROW_BYTES * cfg.batch_size, dtype=torch.uint8)
        self.steps = 0
        self.stopped = False
        self._global_policy_rows = None
        self._global_auxiliary_rows = None

    @staticmethod
    def _memory_format(cfg: TrainConfig, device: torch.device) -> torch.memory_format:
        """NCHW whatever train.memory_format says: DDP lays its gradient buckets out contiguously,
        and channels-last gradients would be copied in and out of them on every step."""
        return torch.contiguous_format

    def step(self, positions: np.ndarray, target_policies: np.ndarray, target_values: np.ndarray,
             policy_mask: np.ndarray | None = None, final_boards: np.ndarray | None = None,
             aux_mask: np.ndarray | None = None) -> dict:
        """Rank 0: one step on the global batch (sent to every process first)."""
        if self.rank != 0:
            raise RuntimeError("only rank 0 hands out batches; the other ranks call serve()")
        if self.auxiliary and final_boards is None:
            raise ValueError("the network has auxiliary heads (model.score_head / model.ownership_head) but the batch "
                             "has no final boards to train them on")
        mask = np.ones(len(positions), np.float32) if policy_mask is None else np.asarray(policy_mask, np.float32)
        finals = np.zeros((len(positions), 2), np.uint64) if final_boards is None else np.asarray(final_boards, np.uint64)
        aux = np.ones(len(positions), np.float32) if aux_mask is None else np.asarray(aux_mask, np.float32)
        self._send(_STEP, positions, target_policies, target_values, mask, finals, aux)
        return self._step_share(positions, target_policies, target_values, mask, finals, aux)

    def serve(self) -> int:
        """Ranks 1..N-1: train on each batch rank 0 sends until it sends stop; returns the steps."""
        while True:
            op, lr, batch = self._receive()
            if op == _STOP:
                self.stopped = True
                return self.steps
            for group in self.optimizer.param_groups:
                group["lr"] = lr
            try:
                self._step_share(*batch)
            except FloatingPointError:
                pass  # rank 0 saw the same (global) loss: it stops the run, saves and sends stop

    def stop(self) -> None:
        """Rank 0: tell the other processes that training is over (idempotent)."""
        if not self.stopped:
            self.stopped = True
            self._send(_STOP)

    def _step_share(self, positions, policies, values, mask, final_boards, aux_mask) -> dict:
        rows = len(positions)
        check_batch_size(rows, self.world_size)
        share = rows // self.world_size
        mine = slice(self.rank * share, (self.rank + 1) * share)
        finals, aux = (final_boards[mine], aux_mask[mine] > 0) if self.auxiliary else (None, None)
        # A share's masked losses are averaged over the rows with a target in the whole batch
        # (per process), so the mean over the processes is the loss of one process.
        self._global_auxiliary_rows = max(float(aux_mask.sum()), 1.0) / self.world_size
        if mask.all():
            self._global_policy_rows = None
            out = super().step(positions[mine], policies[mine], values[mine], None, finals, aux)
        else:
            self._global_policy_rows = max(float(mask.sum()), 1.0) / self.world_size
            out = super().step(positions[mine], policies[mine], values[mine], mask[mine] > 0, finals, aux)
        self.steps += 1
        return out

    def _policy_rows(self, weight: torch.Tensor) -> torch.Tensor:
        if self._global_policy_rows is None:
            return super()._policy_rows(weight)
        return weight.new_tensor(self._global_policy_rows)

    def _auxiliary_rows(self, weight: torch.Tensor) -> torch.Tensor:
        if self._global_auxiliary_rows is None:
            return super()._auxiliary_rows(weight)
        return weight.new_tensor(self._global_auxiliary_rows)

    def _report_terms(self, terms: dict) -> dict:
        names = list(terms)
        values = torch.stack([terms[name].detach().float() for name in names])
        dist.all_reduce(values)  # the default group: NCCL for CUDA tensors, gloo for CPU ones
        return dict(zip(names, (values / self.world_size).tolist()))

    # The control messages -------------------------------------------------------------------

    def _send(self, op: int, positions=None, policies=None, values=None, mask=None, final_boards=None, aux_mask=None) -> None:
        buffer = self.message.numpy()
        rows = 0 if positions is None else len(positions)
        if rows * _ROW_BYTES + _HEADER_BYTES > len(buffer):
            raise ValueError(f"a batch of {rows} rows exceeds train.batch_size={self.cfg.batch_size}")
        buffer[:16].view(np.int64)[:] = (op, rows)
        buffer[16:_HEADER_BYTES].view(np.float64)[0] = self.optimizer.param_groups[0]["lr"]
        if rows:
            for view, array in zip(self._views(buffer, rows), (positions, policies, values, mask, final_boards, aux_mask)):
                view[...] = array
        dist.broadcast(self.message, src=0, group=self.group.control)

    def _receive(self):
        dist.broadcast(self.message, src=0, group=self.group.control)
        buffer = self.message.numpy()
        op, rows = (int(v) for v in buffer[:16].view(np.int64))
        lr = float(buffer[16:_HEADER_BYTES].view(np.float64)[0])
        return op, lr, tuple(view.copy() for view in self._views(buffer, rows))

    @staticmethod
    def _views(buffer: np.ndarray, rows: int):
        """positions uint64 [rows, 2], policies float32 [rows, 65], values float32 [rows], policy
        mask float32 [rows], final boards uint64 [rows, 2], auxiliary mask float32 [rows] in `buffer`."""
        layout = ((np.uint64, (rows, 2)), (np.float32, (rows, NUM_ACTIONS)), (np.float32, (rows,)),
                  (np.float32, (rows,)), (np.uint64, (rows, 2)), (np.float32, (rows,)))
        offset, views = _HEADER_BYTES, []
        for dtype, shape in layout:
            size = int(np.prod(shape)) * np.dtype(dtype).itemsize
            views.append(buffer[offset : offset + size].view(dtype).reshape(shape))
            offset += size
        return views


# ----------------------------------------------------------------------------------------------
# The group of processes


class Group:
    """This process's place among the training processes: the default process group (gloo for CPU
    tensors, NCCL for CUDA ones: DDP's gradients, batch-norm statistics, loss figures) and the
    control group (gloo, long timeout: rank 0's start, step and stop messages)."""

    def __init__(self, ranks: Ranks, control):
        self.ranks = ranks
        self.control = control
        self.trainer: DistributedTrainer | None = None
        self.released = False  # rank 0: the others have been told there is no run
        # Rank 0 sent (or the others received) the start message, so every rank closes together.
        self.started = False

    @classmethod
    def connect(cls, ranks: Ranks) -> Group:
        """Join the others (torchrun's MASTER_ADDR / MASTER_PORT)."""
        backend = "cpu:gloo,cuda:nccl" if torch.cuda.is_available() else "gloo"
        dist.init_process_group(backend, rank=ranks.rank, world_size=ranks.world_size)
        control = dist.new_group(backend="gloo", timeout=CONTROL_TIMEOUT)
        return cls(ranks, control)

    def device(self, name: str) -> torch.device:
        return training_device(name, self.ranks.local_rank)

    def start(self, cfg, net: nn.Module, trainer: Trainer) -> DistributedTrainer:
        """Rank 0: send the run's config and the network, optimizer and scheduler state to the other
        processes, and return the trainer that trains with them (it replaces `trainer`)."""
        check_batch_size(cfg.train.batch_size, self.ranks.world_size)
        # Every process trains in the precision rank 0 chose (a CPU probe in each could differ).
        cfg = dataclasses.replace(cfg, train=dataclasses.replace(cfg.train, precision=trainer.precision))
        payload = {"config": cfg, "network": _to_cpu(net.state_dict()), "trainer": _to_cpu(trainer.state_dict())}
        dist.broadcast_object_list([payload], src=0, group=self.control)
        self.started = True
        distributed = DistributedTrainer(net, cfg.train, trainer.device, self, time_progress=trainer.time_progress)
        distributed.load_state_dict(trainer.state_dict())
        self.trainer = distributed
        return distributed

    def follow(self) -> DistributedTrainer | None:
        """Ranks 1..N-1: wait for rank 0's start, then train until it stops; returns the trainer
        (None when rank 0 ended without a run: a refused start, --help)."""
        box = [None]
        dist.broadcast_object_list(box, src=0, group=self.control)
        self.started = True
        payload = box[0]
        if payload is None:
            return None
        # From here rank 0 decides when training ends: a SIGTERM that torchrun forwards to every
        # rank must not end this one before rank 0 has finished its step and saved.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        cfg = payload["config"]
        torch.set_num_threads(cfg.train.threads)
        device = self.device(cfg.train.device)
        net = build_network(cfg.model)
        net.load_state_dict(payload["network"])
        self.trainer = DistributedTrainer(net, cfg.train, device, self)
        self.trainer.load_state_dict(payload["trainer"])
        self.trainer.serve()
        return self.trainer

    def release(self) -> None:
        """Rank 0, at the end whatever happened: stop the others (or tell them there is no run)."""
        if self.ranks.rank != 0:
            return
        if self.trainer is not None:
            self.trainer.stop()
        elif not self.released:
            self.released = True
            dist.broadcast_object_list([None], src=0, group=self.control)
            self.started = True

    def close(self) -> None:
        """Leave the group: stop the others (rank 0), then take the group down together.

        Every rank first waits for the others at a barrier and drops its DDP wrapper, so no rank
        tears down its communication threads while another still talks to it: a rank that
        destroyed its process group with DDP's reducer still alive, or before its peer was done,
        could die at exit in C++ ("terminate called without an active exception", SIGABRT),
        which torchrun reports as a failed run after a clean stop."""
        try:
            self.release()
            if self.started:
                dist.barrier(group=self.control)
        except RuntimeError as error:  # a rank that died already: torchrun reports it; end this one
            print(f"warning: could not tell the other training processes to stop: {error}", file=sys.stderr, flush=True)
        if self.trainer is not None:
            self.trainer.model = self.trainer.net
        gc.collect()
        dist.destroy_process_group()


def _to_cpu(state):
    """A state dict with every tensor on the CPU (another rank unpickles it on its own device)."""
    if isinstance(state, torch.Tensor):
        return state.detach().cpu()
    if isinstance(state, dict):
        return {key: _to_cpu(value) for key, value in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(_to_cpu(value) for value in state)
    return state


def follower_main(ranks: Ranks) -> int:
    """The whole life of ranks 1..N-1 (`python -m alphazero.train` under torchrun with RANK > 0):
    no Hydra, no run directory; the config comes from rank 0."""
    # Ctrl-C reaches every rank (torchrun forwards it): rank 0 alone decides, and sends stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    group = Group.connect(ranks)
    trainer = group.follow()
    group.close()
    if trainer is not None:
        print(f"training process {ranks.rank} of {ranks.world_size}: stopped after {trainer.steps} steps", flush=True)
    # This process owns no files and has nothing left to flush: leave without the interpreter's
    # teardown, whose C++ destructors (gloo's threads) can abort an exit that is already clean
    # (seen once in CI as SIGABRT, "terminate called without an active exception").
    sys.stderr.flush()
    os._exit(0)
