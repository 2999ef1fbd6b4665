"""train.precision: bf16 autocast over float32 master weights on a CPU, chosen by the probe or
forced; a step in bf16 computes what a step in fp32 computes within a stated tolerance, and a
checkpoint does not depend on the precision that wrote it (a bf16 run resumes in fp32 and back)."""

import copy
import json

import numpy as np
import pytest
import torch

from alphazero.nn import precision as precisions
from alphazero.nn.checkpoint import build_network, load_weights
from alphazero.nn.config import model_preset
from alphazero.othello.playout import random_positions
from alphazero.train import checkpoints
from alphazero.train.config import TrainConfig
from alphazero.train.trainer import Trainer

from .helpers import latest_state, run_training

CPU = torch.device("cpu")


def _batch(size, seed):
    rng = np.random.default_rng(seed)
    positions = random_positions(size, seed)
    policies = rng.random((size, 65), dtype=np.float32)
    policies /= policies.sum(axis=1, keepdims=True)
    values = rng.choice([-1.0, 0.0, 1.0], size).astype(np.float32)
    return positions, policies, values


def _trainer(net, precision, **settings):
    return Trainer(net, TrainConfig(device="cpu", precision=precision, lr_warmup_steps=0, **settings), CPU)


def _float32_state(trainer):
    """True when the weights, gradients and optimizer state are all float32 (master weights)."""
    tensors = list(trainer.net.state_dict().values())
    tensors += [p.grad for p in trainer.net.parameters() if p.grad is not None]
    for state in trainer.optimizer.state.values():
        tensors += [v for v in state.values() if torch.is_tensor(v)]
    return all(t.dtype == torch.float32 for t in tensors if t.is_floating_point())


# Stated tolerance of one bf16-autocast training step against fp32 from the same weights: the
# loss within 2% (relative), every weight within 2e-3 after the step (lr 0.02, momentum 0.9).
LOSS_TOLERANCE = 2e-2
WEIGHT_TOLERANCE = 2e-3


@pytest.mark.parametrize("preset", ["tiny", "small"])
def test_a_bf16_step_computes_what_an_fp32_step_computes_within_the_stated_tolerance(preset):
    torch.manual_seed(0)
    net = build_network(model_preset(preset))
    trainers = {p: _trainer(copy.deepcopy(net), p) for p in ("fp32", "bf16")}
    assert trainers["bf16"].use_autocast and not trainers["fp32"].use_autocast
    batch = _batch(64, seed=3)
    losses = {p: trainer.step(*batch) for p, trainer in trainers.items()}
    for term in ("policy", "value", "total"):
        assert losses["bf16"][term] == pytest.approx(losses["fp32"][term], rel=LOSS_TOLERANCE), term
    for name, weight in trainers["fp32"].net.state_dict().items():
        torch.testing.assert_close(trainers["bf16"].net.state_dict()[name], weight, atol=WEIGHT_TOLERANCE, rtol=0, msg=name)
    assert all(_float32_state(trainer) for trainer in trainers.values())


@pytest.mark.parametrize("saved, resumed", [("bf16", "fp32"), ("fp32", "bf16")])
def test_a_checkpoint_written_in_one_precision_resumes_in_the_other(tmp_path, saved, resumed):
    torch.manual_seed(0)
    first = _trainer(build_network(model_preset("tiny")), saved)
    for step in range(3):
        first.step(*_batch(32, seed=step))
    checkpoints.save_latest(tmp_path, first.net, first, {"step": 3}, numbered=False)

    latest = checkpoints.load_latest(tmp_path)
    assert all(t.dtype == torch.float32 for t in latest.state_dict.values() if t.is_floating_point())
    net = build_network(latest.model_config)
    load_weights(net, latest.state_dict)
    second = _trainer(net, resumed)
    second.optimizer.load_state_dict(latest.optimizer_state)
    second.scheduler.load_state_dict(latest.scheduler_state)
    assert _float32_state(second)
    # Going on in the other precision gives (within tolerance) the step the writer would have taken.
    batch = _batch(32, seed=10)
    ours, theirs = second.step(*batch), first.step(*batch)
    assert ours["total"] == pytest.approx(theirs["total"], rel=LOSS_TOLERANCE)
    for name, weight in first.net.state_dict().items():
        torch.testing.assert_close(second.net.state_dict()[name], weight, atol=WEIGHT_TOLERANCE, rtol=0, msg=name)
    assert _float32_state(second) and second.scheduler.last_epoch == 4


@pytest.mark.parametrize("verdict", ["fp32", "bf16"])
def test_auto_trains_in_the_cached_verdict(tmp_path, verdict):
    net = build_network(model_preset("tiny"))
    cfg = TrainConfig(device="cpu", precision="auto")
    key = precisions.cache_key("training", precisions.network_signature(net), min(cfg.batch_size, precisions.TRAINING_PROBE_BATCH_CAP),
                               torch.get_num_threads())
    cache = tmp_path / "precision.json"
    cache.write_text(json.dumps({"verdicts": {key: {"precision": verdict}}}))
    trainer = Trainer(net, cfg, CPU, precision_cache=cache)
    assert (trainer.precision, trainer.precision_choice.how, trainer.use_autocast) == (verdict, "cached", verdict == "bf16")


def test_auto_measures_a_training_step_and_leaves_the_network_untouched(tmp_path):
    torch.manual_seed(0)
    net = build_network(model_preset("tiny"))
    before = copy.deepcopy(net.state_dict())
    trainer = Trainer(net, TrainConfig(device="cpu"), CPU, precision_cache=tmp_path / "precision.json")
    assert trainer.precision_choice.how == "measured" and trainer.precision in ("fp32", "bf16")
    for name, tensor in net.state_dict().items():
        assert torch.equal(tensor, before[name]), name  # the probe trained a copy
    assert trainer.optimizer.state == {}


def test_fp16_training_is_refused():
    with pytest.raises(ValueError, match="train.precision=fp16 is not supported for training"):
        _trainer(build_network(model_preset("tiny")), "fp16")


@pytest.mark.slow
@pytest.mark.parametrize("first, then", [("bf16", "fp32"), ("fp32", "bf16")])
def test_a_run_resumes_in_the_other_precision_and_records_both(tmp_path, first, then):
    """The whole run: precision=X for an iteration, then resumed with precision=Y; the run's
    precision.json, its log and TensorBoard text say what each session used."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = tmp_path / "run"
    run_training(run_dir, f"precision={first}", "run.max_iterations=1", "eval.every_steps=0")
    step = latest_state(run_dir)["step"]
    run_training(run_dir, f"precision={then}", "run.resume=true", "run.max_iterations=2", "eval.every_steps=0")
    assert latest_state(run_dir)["step"] > step
    events = EventAccumulator(str(run_dir / "tb"), size_guidance={"tensors": 0})
    events.Reload()
    texts = [event.tensor_proto.string_val[0].decode() for event in events.Tensors("precision/text_summary")]
    assert any(f"trainer: {first} (precision={first}, forced)" in text for text in texts)
    assert any(f"trainer: {then} (precision={then}, forced)" in text for text in texts)
