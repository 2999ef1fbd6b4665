"""One training process of the DDP tests: `python -m tests.train.ddp_worker SCENARIO OUT_DIR`, with
RANK / WORLD_SIZE / LOCAL_RANK / MASTER_ADDR / MASTER_PORT set as torchrun sets them. Each rank
writes what the test compares to OUT_DIR/rank{R}.pt."""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

from alphazero.train.schema import Config
from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import model_preset
from alphazero.othello.bitboard import legal_action_mask_batch
from alphazero.train.config import TrainConfig
from alphazero.train.distributed import CrossProcessBatchNorm, Group, Ranks
from alphazero.train.trainer import Trainer
from tests.nn.helpers import random_positions

STEPS = 4
GLOBAL_BATCH = 16


def training_config(aux: bool = False, **train) -> Config:
    """`aux`: the network has both auxiliary heads, trained with weights 0.1 and 0.5."""
    settings = dict(
        device="cpu", threads=1, batch_size=GLOBAL_BATCH, augment=False, lr=0.05, lr_schedule="constant",
        lr_warmup_steps=0, window_positions=GLOBAL_BATCH, min_positions=1,
    )
    settings.update(train)
    # float32 on a CPU (the comparisons are tight; auto's probe could pick bf16 there); on CUDA
    # auto leaves the choice to mixed_precision, which the tests set.
    settings.setdefault("precision", "fp32" if settings["device"] == "cpu" else "auto")
    model = model_preset("tiny")
    if aux:
        model = dataclasses.replace(model, score_head=True, ownership_head=True)
        settings.update(score_weight=0.1, ownership_weight=0.5)
    return Config(model=model, train=TrainConfig(**settings))


def samples(count: int, seed: int = 7):
    """Fixed training rows: legal positions, a random policy over each one's legal actions, a value."""
    rng = np.random.default_rng(seed)
    positions = random_positions(count, seed=seed, max_plies=50)
    legal = legal_action_mask_batch(positions)
    policies = rng.random(legal.shape).astype(np.float32) * legal
    policies /= policies.sum(axis=1, keepdims=True)
    values = rng.choice(np.array([-1.0, 0.0, 1.0], dtype=np.float32), size=count)
    return positions, policies, values


def initial_network(cfg: Config):
    torch.manual_seed(1234)
    return build_network(cfg.model)


def batches(masked: bool = False, aux: bool = False):
    """The global batches; `masked` adds a policy mask (playout cap randomisation's rows without a
    policy target) that leaves the two halves of each batch different numbers of policy rows;
    `aux` adds final boards (the auxiliary targets) with a mask as uneven."""
    positions, policies, values = samples(STEPS * GLOBAL_BATCH)
    finals = random_positions(STEPS * GLOBAL_BATCH, seed=11, max_plies=60)  # any disjoint pair of boards is a target
    for step in range(STEPS):
        rows = slice(step * GLOBAL_BATCH, (step + 1) * GLOBAL_BATCH)
        if aux:
            aux_mask = np.ones(GLOBAL_BATCH, dtype=bool)
            aux_mask[[1, 2, 4, 6, 12]] = False  # first half: 4 of 8 rows with a target; second half: 7 of 8
            yield positions[rows], policies[rows], values[rows], None, finals[rows], np.roll(aux_mask, step)
            continue
        if not masked:
            yield positions[rows], policies[rows], values[rows]
            continue
        mask = np.ones(GLOBAL_BATCH, dtype=bool)
        mask[[0, 3, 5, 9]] = False  # first half: 5 of 8 policy rows; second half: 7 of 8
        yield positions[rows], policies[rows], values[rows], np.roll(mask, step)


def _exact_float32() -> None:
    """No TF32 in convolutions and matmuls on a GPU: the comparison is of float32 arithmetic."""
    torch.set_num_threads(1)
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False


# A cosine in run time (train.lr_schedule_horizon=minutes): the run's clock is rank 0's alone, and
# the progress it reads before step i is TIMED_PROGRESS[i] (uneven, as a real clock's would be).
TIMED_TRAIN = dict(lr_schedule="cosine", lr_schedule_horizon="minutes", lr_total_steps=20000)
TIMED_PROGRESS = (0.1, 0.35, 0.6, 0.9)


def _timed_steps(trainer: Trainer, clock: list, batch_list) -> list:
    """Train the batches, setting the clock before each step."""
    losses = []
    for progress, batch in zip(TIMED_PROGRESS, batch_list):
        clock[0] = progress
        losses.append(trainer.step(*batch))
    return losses


def single_process_run(device: str = "cpu", mixed_precision: bool = False, masked: bool = False, aux: bool = False,
                       timed: bool = False) -> dict:
    """The reference: one process, the same initial weights and global batches."""
    _exact_float32()
    cfg = training_config(aux, device=device, mixed_precision=mixed_precision, **(TIMED_TRAIN if timed else {}))
    net = initial_network(cfg)
    clock = [0.0]
    trainer = Trainer(net, cfg.train, torch.device(device), time_progress=(lambda: clock[0]) if timed else None)
    losses = _timed_steps(trainer, clock, batches(masked, aux))
    return {"state": {k: v.cpu() for k, v in net.state_dict().items()}, "losses": losses}


def train(ranks: Ranks, device: str = "cpu", mixed_precision: str = "false", masked: str = "false", aux: str = "false",
          timed: str = "false") -> dict:
    """Rank 0 trains the fixed batches as the run would (config from here, the device of its rank:
    cuda:LOCAL_RANK for "cuda"); the other ranks follow. `timed`: the cosine follows rank 0's clock."""
    _exact_float32()
    group = Group.connect(ranks)
    if ranks.rank == 0:
        timed = timed == "true"
        cfg = training_config(aux == "true", device=device, mixed_precision=mixed_precision == "true", **(TIMED_TRAIN if timed else {}))
        net = initial_network(cfg)
        clock = [0.0]
        trainer = Trainer(net, cfg.train, group.device(cfg.train.device), time_progress=(lambda: clock[0]) if timed else None)
        trainer = group.start(cfg, net, trainer)
        losses = _timed_steps(trainer, clock, batches(masked == "true", aux == "true"))
        group.close()
        return {"state": {k: v.cpu() for k, v in net.state_dict().items()}, "losses": losses, "steps": trainer.steps}
    trainer = group.follow()
    group.close()
    return {"state": {k: v.cpu() for k, v in trainer.net.state_dict().items()}, "steps": trainer.steps}


def batch_norm(ranks: Ranks) -> dict:
    """A CrossProcessBatchNorm over this rank's rows of a fixed batch: forward, backward of a fixed
    linear loss over the whole batch, then the layer's gradients summed over the ranks."""
    group = Group.connect(ranks)
    x, weight, bias, upstream = batch_norm_inputs()
    share = len(x) // ranks.world_size
    mine = slice(ranks.rank * share, (ranks.rank + 1) * share)
    layer = CrossProcessBatchNorm(x.shape[1])
    with torch.no_grad():
        layer.weight.copy_(weight)
        layer.bias.copy_(bias)
    local_x = x[mine].clone().requires_grad_(True)
    outputs = []
    for _ in range(2):  # twice: the running statistics accumulate
        out = layer(local_x)
        (out * upstream[mine]).sum().backward()
        outputs.append(out.detach())
    for parameter in (layer.weight, layer.bias):
        torch.distributed.all_reduce(parameter.grad)
    result = {
        "out": outputs[-1], "x_grad": local_x.grad, "weight_grad": layer.weight.grad, "bias_grad": layer.bias.grad,
        "running_mean": layer.running_mean, "running_var": layer.running_var,
    }
    group.close()
    return result


def batch_norm_inputs():
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(8, 3, 4, 4, generator=generator) * 2 + 1
    weight = torch.rand(3, generator=generator) + 0.5
    bias = torch.rand(3, generator=generator) - 0.5
    upstream = torch.randn(8, 3, 4, 4, generator=generator)
    return x, weight, bias, upstream


def main() -> None:
    scenario, out_dir, options = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    ranks = Ranks.from_environment()
    result = {"train": train, "batch_norm": batch_norm}[scenario](ranks, *options)
    torch.save(result, out_dir / f"rank{ranks.rank}.pt")


if __name__ == "__main__":
    main()
