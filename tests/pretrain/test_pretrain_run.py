"""End to end on the 1977 fixture: the loss falls, the checkpoints load where checkpoints are
used (arena player, train.init_from), a resume continues exactly, budgets stop cleanly."""

import dataclasses
import logging
import json

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from alphazero.arena.match import play_match
from alphazero.arena.players import RandomPlayer, make_player
from alphazero.train.schema import Config
from alphazero.nn.checkpoint import load_checkpoint
from alphazero.nn.config import model_preset
from alphazero.pretrain.loop import PretrainRun
from alphazero.train.loop import TrainingRun
from alphazero.train.run_dir import RunDirectoryError

from .helpers import tiny_config, workspace_with_two_years


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return workspace_with_two_years(tmp_path_factory, "pretrain")


@pytest.fixture(scope="module")
def finished_run(workspace):
    """4 epochs of the tiny net over the 12 fixture games (12 steps per epoch)."""
    run_dir = workspace / "full"
    state = PretrainRun(tiny_config(workspace, run_dir), run_dir).run()
    return run_dir, state


def _scalars(run_dir, tag):
    events = EventAccumulator(str(run_dir / "tb"))
    events.Reload()
    return [(e.step, e.value) for e in events.Scalars(tag)]


def test_training_loss_and_validation_loss_fall(finished_run):
    run_dir, state = finished_run
    losses = [value for _, value in _scalars(run_dir, "loss/total")]
    assert len(losses) >= 10
    assert np.mean(losses[-3:]) < np.mean(losses[:3]) - 0.1
    validation = _scalars(run_dir, "epoch/validation_policy_loss")
    assert [step for step, _ in validation] == [1, 2, 3, 4]
    assert validation[-1][1] < validation[0][1]
    for tag in ("validation/top1", "validation/top3", "validation/value_mse", "train/lr", "speed/samples_per_second"):
        assert _scalars(run_dir, tag), tag


def test_finished_run_records_its_counters_and_files(finished_run):
    run_dir, state = finished_run
    assert state.finished and state.epoch == 4 and state.step == 4 * 12
    assert state.best_metric == "top1_symmetric" and 0 <= state.best_score <= 1 and state.best_step > 0
    for name in ("latest.pt", "best.pt", "epoch-001.pt", "epoch-004.pt"):
        assert (run_dir / "checkpoints" / name).is_file(), name
    assert (run_dir / "config.yaml").read_text().count("value_target: outcome") == 1
    latest = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    assert latest.optimizer_state is not None and latest.extra["state"]["step"] == state.step
    best = load_checkpoint(run_dir / "checkpoints" / "best.pt")
    assert best.optimizer_state is None and best.extra["kind"] == "pretrain" and best.extra["value_target"] == "outcome"


def test_checkpoint_plays_in_the_arena(finished_run):
    run_dir, _ = finished_run
    player = make_player(f"mcts:checkpoint={run_dir / 'checkpoints' / 'best.pt'},simulations=0")
    result = play_match(player, RandomPlayer(seed=1), num_pairs=1, opening_plies=2, seed=0)
    assert result.wins + result.draws + result.losses == 2


def test_checkpoint_initialises_a_self_play_run(finished_run, tmp_path):
    run_dir, _ = finished_run
    source = run_dir / "checkpoints" / "best.pt"
    cfg = Config(model=model_preset("tiny"))
    cfg.train.init_from = str(source)
    cfg.train.device = "cpu"
    training = TrainingRun(cfg, tmp_path / "selfplay")
    training._setup()
    expected = load_checkpoint(source).state_dict
    for name, tensor in training.net.state_dict().items():
        assert torch.equal(tensor.cpu(), expected[name]), name
    training.metrics.close()


def test_resume_mid_epoch_continues_exactly(workspace, finished_run):
    """Stopped at step 17 (5 into epoch 2) and resumed to the end: same weights as the
    uninterrupted run (same row order, restored symmetry RNG, optimizer and schedule)."""
    full_dir, full_state = finished_run
    run_dir = workspace / "resumed"
    cfg = tiny_config(workspace, run_dir)
    cfg.run.max_steps = 17
    first = PretrainRun(cfg, run_dir).run()
    assert (first.step, first.epoch, first.batch_in_epoch, first.finished) == (17, 1, 5, False)
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt").extra["state"]["step"] == 17

    cfg = tiny_config(workspace, run_dir)
    cfg.run.resume = True
    second = PretrainRun(cfg, run_dir).run()
    assert second.step == full_state.step and second.finished
    resumed = load_checkpoint(run_dir / "checkpoints" / "latest.pt").state_dict
    uninterrupted = load_checkpoint(full_dir / "checkpoints" / "latest.pt").state_dict
    for name, tensor in uninterrupted.items():
        torch.testing.assert_close(resumed[name], tensor, msg=name)


def test_time_budget_stops_cleanly_with_a_validated_checkpoint(workspace):
    run_dir = workspace / "budget"
    cfg = tiny_config(workspace, run_dir, epochs=50)
    cfg.run.max_minutes = 0.02
    state = PretrainRun(cfg, run_dir).run()
    assert not state.finished and 0 < state.step < 50 * 12
    assert state.validation["step"] == state.step
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt").extra["state"]["step"] == state.step
    assert (run_dir / "checkpoints" / "best.pt").is_file()


def test_new_run_refuses_a_directory_holding_one_and_resume_needs_one(workspace, finished_run):
    run_dir, _ = finished_run
    with pytest.raises(RunDirectoryError, match="run.resume=true"):
        PretrainRun(tiny_config(workspace, run_dir), run_dir).run()
    empty = workspace / "empty"
    cfg = tiny_config(workspace, empty)
    cfg.run.resume = True
    with pytest.raises(RunDirectoryError, match="holds no pretraining run"):
        PretrainRun(cfg, empty).run()


def test_resume_with_another_model_is_refused(workspace, finished_run):
    run_dir, _ = finished_run
    cfg = tiny_config(workspace, run_dir)
    cfg.run.resume = True
    cfg.model = dataclasses.replace(cfg.model, channels=24)
    with pytest.raises(ValueError, match="same model preset"):
        PretrainRun(cfg, run_dir).run()


def test_margin_value_target_trains_on_scaled_margins(workspace):
    run_dir = workspace / "margin"
    cfg = tiny_config(workspace, run_dir, epochs=1, value_target="margin")
    run = PretrainRun(cfg, run_dir)
    state = run.run()
    assert state.finished
    targets = run.validation_batch.values
    assert np.all(np.abs(targets) <= 1) and len(np.unique(targets)) > 3  # margins, not +-1/0
    assert load_checkpoint(run_dir / "checkpoints" / "best.pt").extra["value_target"] == "margin"


def test_init_from_continues_a_network_with_a_fresh_schedule(workspace, finished_run):
    run_dir, state = finished_run
    source = load_checkpoint(run_dir / "checkpoints" / "best.pt")
    continued = workspace / "continued"
    cfg = tiny_config(workspace, continued, epochs=1, init_from=str(run_dir / "checkpoints" / "best.pt"))
    run = PretrainRun(cfg, continued)
    run._setup()
    for name, tensor in run.net.state_dict().items():
        assert torch.equal(tensor, source.state_dict[name]), f"{name} not taken from init_from"
    assert run.state.step == 0 and run.scheduler.last_epoch == 0, "counters and schedule start fresh"
    before = run.validate().top1
    run.writer.close()
    fresh = PretrainRun(tiny_config(workspace, workspace / "fresh-compare", epochs=1), workspace / "fresh-compare")
    fresh._setup()
    assert before > fresh.validate().top1, "the initialised network already knows what the source learned"
    fresh.writer.close()


def test_init_from_may_add_the_auxiliary_heads(workspace, finished_run, caplog):
    """A network pretrained without heads (warmstart-medium.pt, say) continues with them: every
    shared weight is taken, the heads start fresh, and the log says so."""
    run_dir, _ = finished_run
    source = load_checkpoint(run_dir / "checkpoints" / "best.pt")
    target = workspace / "with-heads"
    model = dataclasses.replace(source.model_config, score_head=True, ownership_head=True)
    cfg = tiny_config(workspace, target, model=model, epochs=1, init_from=str(run_dir / "checkpoints" / "best.pt"),
                      score_weight=0.1, ownership_weight=0.5)
    run = PretrainRun(cfg, target)
    with caplog.at_level(logging.INFO):
        run._setup()
    own = run.net.state_dict()
    for name, tensor in source.state_dict.items():
        assert torch.equal(own[name], tensor), f"{name} not taken from init_from"
    assert any(name.startswith("score_fc.") for name in own) and any(name.startswith("ownership_conv.") for name in own)
    assert "head(s) start untrained" in caplog.text
    run.writer.close()


def test_init_from_another_model_names_both(workspace, finished_run):
    run_dir, _ = finished_run
    cfg = tiny_config(workspace, workspace / "wrong-model", epochs=1, init_from=str(run_dir / "checkpoints" / "best.pt"))
    cfg.model = dataclasses.replace(cfg.model, channels=24)
    with pytest.raises(ValueError, match="pretrain.init_from=.*pick the model preset"):
        PretrainRun(cfg, workspace / "wrong-model").run()


def test_a_step_budget_on_a_validation_step_validates_once(workspace):
    run_dir = workspace / "step-budget"
    cfg = tiny_config(workspace, run_dir, epochs=3, eval_every_steps=4)
    cfg.run.max_steps = 8
    state = PretrainRun(cfg, run_dir).run()
    assert state.step == 8 and state.validation["step"] == 8
    log = (run_dir / "log.txt").read_text()
    assert log.count("validation at step 4 ") == 1 and log.count("validation at step 8 ") == 1


def _weights_after_steps(workspace, name, steps, **pretrain):
    run_dir = workspace / name
    cfg = tiny_config(workspace, run_dir, epochs=1, **pretrain)
    cfg.run.max_steps = steps
    PretrainRun(cfg, run_dir).run()
    return load_checkpoint(run_dir / "checkpoints" / "latest.pt").state_dict


def test_mixed_precision_leaves_cpu_training_in_float32(workspace):
    """pretrain.mixed_precision is a CUDA setting: on CPU pretrain.precision decides (fp32 here),
    and the run must train exactly as without it."""
    with_flag = _weights_after_steps(workspace, "mixed-cpu-on", 3, mixed_precision=True, device="cpu")
    without = _weights_after_steps(workspace, "mixed-cpu-off", 3, mixed_precision=False, device="cpu")
    for name, tensor in without.items():
        assert torch.equal(with_flag[name], tensor), name


def test_bf16_on_cpu_trains_float32_weights_close_to_an_fp32_run(workspace):
    """pretrain.precision=bf16 autocasts the forward pass only: the checkpoint holds float32
    weights, within the stated tolerance of the fp32 run's after 3 SGD steps."""
    bf16 = _weights_after_steps(workspace, "bf16-cpu", 3, precision="bf16", device="cpu", optimizer="sgd")
    fp32 = _weights_after_steps(workspace, "fp32-cpu", 3, precision="fp32", device="cpu", optimizer="sgd")
    for name, tensor in fp32.items():
        assert bf16[name].dtype == tensor.dtype, name
        torch.testing.assert_close(bf16[name].float(), tensor.float(), rtol=0, atol=2e-3, msg=lambda m: f"{name}: {m}")


def test_auto_records_its_verdict_in_the_run_directory(workspace):
    _weights_after_steps(workspace, "auto-cpu", 1, precision="auto", device="cpu")
    verdicts = json.loads((workspace / "auto-cpu" / "precision.json").read_text())["verdicts"]
    assert [key.split(" | ")[2] for key in verdicts] == ["training"]
    assert next(iter(verdicts.values()))["precision"] in ("fp32", "bf16")


def test_memory_format_changes_the_layout_not_the_training(workspace):
    """pretrain.memory_format is speed only: channels-last and NCHW runs reach the same weights.
    SGD, not the default AdamW: Adam divides each gradient by its own running size, so a weight
    whose gradient is ~0 moves by a full step on rounding noise, which differs between layouts."""
    channels_last = _weights_after_steps(workspace, "layout-cl", 3, memory_format="channels_last", device="cpu", optimizer="sgd")
    nchw = _weights_after_steps(workspace, "layout-nchw", 3, memory_format="contiguous", device="cpu", optimizer="sgd")
    assert not channels_last["stem.conv.weight"].is_contiguous() and nchw["stem.conv.weight"].is_contiguous()
    for name, tensor in nchw.items():
        torch.testing.assert_close(channels_last[name].float(), tensor.float(), rtol=1e-4, atol=1e-5, msg=lambda m: f"{name}: {m}")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: pretrain.mixed_precision applies there")
def test_mixed_precision_on_cuda_trains_close_to_float32_and_lowers_the_loss(workspace):
    run_dir = workspace / "mixed-cuda"
    cfg = tiny_config(workspace, run_dir, epochs=2, device="cuda", mixed_precision=True, precision="auto")
    state = PretrainRun(cfg, run_dir).run()
    assert state.finished
    losses = [value for _, value in _scalars(run_dir, "loss/total")]
    assert np.mean(losses[-3:]) < np.mean(losses[:3])
    bf16 = _weights_after_steps(workspace, "mixed-cuda-3", 3, device="cuda", mixed_precision=True, precision="auto")
    fp32 = _weights_after_steps(workspace, "fp32-cuda-3", 3, device="cuda", mixed_precision=False, precision="auto")
    differs = False
    for name, tensor in fp32.items():
        if tensor.is_floating_point():
            torch.testing.assert_close(bf16[name], tensor, rtol=5e-2, atol=5e-3, msg=name)
            differs |= not torch.equal(bf16[name], tensor)
    assert differs, "bf16 autocast changed nothing: it is not in effect"


def test_a_diverged_loss_stops_the_run_and_keeps_the_last_finite_checkpoint(workspace, monkeypatch):
    """The train step no longer reads its loss back each step (the GPU runs ahead); the loop checks
    the sums at each log and before each save. A loss that turns NaN at step 7 must stop the run
    at the next check (step 8, logs every 4), naming the steps, and leave latest.pt at step 5's
    finite weights instead of saving the diverged network."""
    import alphazero.pretrain.loop as loop_module

    calls = {"n": 0}
    real = loop_module.masked_log_softmax

    def poisoned(logits, legal):
        calls["n"] += 1
        out = real(logits, legal)
        return out * float("nan") if calls["n"] >= 7 else out

    monkeypatch.setattr(loop_module, "masked_log_softmax", poisoned)
    run_dir = workspace / "diverged"
    with pytest.raises(FloatingPointError, match="between steps 5 and 8"):
        PretrainRun(tiny_config(workspace, run_dir), run_dir).run()
    latest = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    assert latest.extra["state"]["step"] == 5
    assert all(torch.isfinite(t).all() for t in latest.state_dict.values() if t.is_floating_point())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: the checkpoint is loaded onto the GPU only there")
def test_resume_on_cuda_restores_the_generators(workspace):
    """latest.pt is loaded with map_location=cuda on a GPU run, which moved the saved torch RNG
    state onto the GPU; torch.set_rng_state then refused it and no CUDA run could resume (seen
    on the H200, 2026-11-26)."""
    run_dir = workspace / "resume-cuda"
    cfg = tiny_config(workspace, run_dir, epochs=1, device="cuda")
    cfg.run.max_steps = 5
    PretrainRun(cfg, run_dir).run()
    cfg = tiny_config(workspace, run_dir, epochs=1, device="cuda")
    cfg.run.resume = True
    assert PretrainRun(cfg, run_dir).run().finished
