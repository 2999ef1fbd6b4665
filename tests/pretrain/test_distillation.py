"""Distillation (`pretrain.teacher`): the student is pulled to the teacher's policy and value, the
softened loss is at its minimum where student and teacher agree, a zero weight trains exactly as
no teacher, and teachers the loop cannot feed are refused with the key named."""

from pathlib import Path

import numpy as np
import pytest
import torch

from alphazero.nn.checkpoint import build_network, load_checkpoint, load_weights
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.model import masked_log_softmax, masked_softmax
from alphazero.pretrain.loop import PretrainRun
from alphazero.validation import ConfigValueError

from .helpers import tiny_config, workspace_with_two_years

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return workspace_with_two_years(tmp_path_factory, "distill")


@pytest.fixture(scope="module")
def teacher(workspace) -> Path:
    """A tiny network trained 3 epochs on the fixture games, with another seed than the students."""
    run_dir = workspace / "teacher"
    cfg = tiny_config(workspace, run_dir, epochs=3)
    cfg.run.seed = 11
    PretrainRun(cfg, run_dir).run()
    return run_dir / "checkpoints" / "latest.pt"


def _network(path: Path) -> torch.nn.Module:
    checkpoint = load_checkpoint(path)
    net = build_network(checkpoint.model_config)
    load_weights(net, checkpoint.state_dict)
    return net.eval()


def _divergence(student: torch.nn.Module, teacher: torch.nn.Module, run: PretrainRun) -> float:
    """Mean KL(teacher || student) of the policies on the validation positions."""
    planes, legal = encode_positions_and_mask(run.validation_batch.positions)
    planes, legal = torch.from_numpy(planes), torch.from_numpy(legal)
    with torch.no_grad():
        p = masked_softmax(teacher(planes)[0], legal)
        log_p = torch.where(legal, masked_log_softmax(teacher(planes)[0], legal), torch.zeros(()))
        log_q = torch.where(legal, masked_log_softmax(student(planes)[0], legal), torch.zeros(()))
    return float((p * (log_p - log_q)).sum(dim=1).mean())


def test_a_student_trained_on_the_teacher_alone_comes_close_to_it(workspace, teacher):
    run_dir = workspace / "student"
    cfg = tiny_config(workspace, run_dir, epochs=3, teacher=str(teacher), distill_weight=1.0)
    run = PretrainRun(cfg, run_dir)
    run._setup()
    before = _divergence(run.net.eval(), run.teacher, run)
    run.writer.close()
    state = PretrainRun(cfg, run_dir).run()
    assert state.finished
    after = _divergence(_network(run_dir / "checkpoints" / "latest.pt"), _network(teacher), run)
    assert after < 0.5 * before, f"KL to the teacher {before:.3f} -> {after:.3f}"
    log = (run_dir / "log.txt").read_text()
    assert f"distilling from {teacher}" in log and "teacher pi" in log


def test_the_softened_loss_is_flat_where_the_student_is_the_teacher(workspace, teacher):
    """Student = teacher: the distillation term's gradient vanishes at any temperature (both sides
    softened alike) and the value term is zero. A temperature applied to one side only, or a
    target taken from the wrong network, leaves a gradient."""
    for temperature in (1.0, 3.0):
        cfg = tiny_config(workspace, workspace / f"same-{temperature}", teacher=str(teacher), init_from=str(teacher), distill_temperature=temperature)
        run = PretrainRun(cfg, workspace / f"same-{temperature}")
        run._setup()
        run.writer.close()
        run.net.eval()
        planes, legal = encode_positions_and_mask(run.validation_batch.positions)
        planes, legal = torch.from_numpy(planes), torch.from_numpy(legal)
        logits, values = run.net(planes)
        logits = logits.detach().requires_grad_(True)
        distill, value_loss = run._distillation_losses(planes, legal, logits, values.detach())
        (gradient,) = torch.autograd.grad(distill, logits)
        assert gradient.abs().max() < 1e-6, temperature
        assert float(value_loss) < 1e-10
        shifted = logits.detach().clone()
        shifted[:, 0] += 5.0  # the student moves away from the teacher: the term grows
        assert float(run._distillation_losses(planes, legal, shifted, values.detach())[0]) > float(distill.detach())


def test_a_zero_weight_trains_exactly_as_no_teacher(workspace, teacher):
    def weights(name, **pretrain):
        cfg = tiny_config(workspace, workspace / name, epochs=1, **pretrain)
        cfg.run.max_steps = 3
        PretrainRun(cfg, workspace / name).run()
        return load_checkpoint(workspace / name / "checkpoints" / "latest.pt").state_dict

    with_teacher = weights("zero-weight", teacher=str(teacher), distill_weight=0.0)
    without = weights("no-teacher")
    for name, tensor in without.items():
        assert torch.equal(with_teacher[name], tensor), name
    changed = weights("half-weight", teacher=str(teacher), distill_weight=0.5)
    assert any(not torch.equal(changed[name], tensor) for name, tensor in without.items() if tensor.is_floating_point())


def test_a_teacher_that_reads_move_history_is_refused_before_anything_is_written(workspace):
    teacher = REPO / "checkpoints" / "zoo" / "year" / "seed_cnn_rnn.pt"
    run_dir = workspace / "history-teacher"
    cfg = tiny_config(workspace, run_dir, teacher=str(teacher))
    with pytest.raises(ValueError, match="pretrain.teacher=.*reads the last .* moves"):
        PretrainRun(cfg, run_dir).run()
    assert not run_dir.exists()


def test_a_missing_teacher_is_named_before_anything_is_written(workspace):
    run_dir = workspace / "missing-teacher"
    with pytest.raises(Exception, match="no-such-teacher.pt"):
        PretrainRun(tiny_config(workspace, run_dir, teacher=str(workspace / "no-such-teacher.pt")), run_dir).run()
    assert not run_dir.exists()


@pytest.mark.parametrize("key, value", [("distill_weight", 1.5), ("distill_weight", -0.1), ("distill_temperature", 0.0)])
def test_distillation_settings_out_of_range_name_the_key(workspace, key, value):
    with pytest.raises(ConfigValueError, match=f"pretrain.{key} must be"):
        tiny_config(workspace, workspace / "bad", **{key: value})


def test_the_student_keeps_learning_the_expert_moves_with_a_mixed_target(workspace, teacher):
    """Half expert, half teacher: the expert-move loss still falls (the logged `loss/policy` is
    always the one against the expert, so runs with and without a teacher compare)."""
    run_dir = workspace / "mixed"
    cfg = tiny_config(workspace, run_dir, epochs=3, teacher=str(teacher), distill_weight=0.5)
    PretrainRun(cfg, run_dir).run()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir / "tb"))
    events.Reload()
    policy = [e.value for e in events.Scalars("loss/policy")]
    distill = [e.value for e in events.Scalars("loss/distill")]
    assert np.mean(policy[-2:]) < np.mean(policy[:2]) and np.mean(distill[-2:]) < np.mean(distill[:2])
