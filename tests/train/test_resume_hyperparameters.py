"""A resumed run trains under the hyperparameters it was resumed with: a changed `train.lr`,
momentum or weight decay is applied (and said), a changed optimizer is refused in one line, and
the learning-rate schedules count their steps as documented."""

import pytest
import torch

from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import ModelConfig
from alphazero.train.config import TrainConfig
from alphazero.train.trainer import Trainer, lr_factor

TINY = ModelConfig(blocks=1, channels=8)


def trained_trainer(cfg: TrainConfig, steps: int) -> Trainer:
    torch.manual_seed(0)
    trainer = Trainer(build_network(TINY), cfg, torch.device("cpu"))
    for _ in range(steps):  # the schedule's steps (the optimizer step itself is not needed here)
        trainer.optimizer.step()
        trainer.scheduler.step()
    return trainer


def test_a_changed_lr_on_resume_is_applied_at_the_saved_step_and_said():
    old = TrainConfig(lr=0.02, lr_warmup_steps=10, lr_total_steps=1000)
    saved = trained_trainer(old, steps=40)
    new_cfg = TrainConfig(lr=0.005, lr_warmup_steps=10, lr_total_steps=1000)
    resumed = Trainer(build_network(TINY), new_cfg, torch.device("cpu"))
    changes = resumed.load_state(saved.optimizer.state_dict(), saved.scheduler.state_dict())
    assert any("train.lr changed from 0.02 to 0.005" in line for line in changes)
    expected = 0.005 * lr_factor(40, new_cfg)
    assert all(group["lr"] == pytest.approx(expected) for group in resumed.optimizer.param_groups)
    resumed.optimizer.step()
    resumed.scheduler.step()  # and the schedule goes on from the new base
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(0.005 * lr_factor(41, new_cfg))


def test_momentum_and_weight_decay_changed_on_resume_are_applied():
    saved = trained_trainer(TrainConfig(momentum=0.9, weight_decay=1e-4), steps=3)
    resumed = Trainer(build_network(TINY), TrainConfig(momentum=0.8, weight_decay=5e-4), torch.device("cpu"))
    changes = resumed.load_state(saved.optimizer.state_dict(), saved.scheduler.state_dict())
    decay_group, no_decay_group = resumed.optimizer.param_groups
    assert decay_group["momentum"] == 0.8 and decay_group["weight_decay"] == 5e-4 and no_decay_group["weight_decay"] == 0.0
    assert any("train.momentum" in line for line in changes) and any("train.weight_decay" in line for line in changes)


def test_an_unchanged_resume_reports_nothing_and_keeps_the_schedule():
    cfg = TrainConfig(lr=0.02)
    saved = trained_trainer(cfg, steps=7)
    resumed = Trainer(build_network(TINY), cfg, torch.device("cpu"))
    assert resumed.load_state(saved.optimizer.state_dict(), saved.scheduler.state_dict()) == []
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(saved.optimizer.param_groups[0]["lr"])


def test_another_optimizer_cannot_continue_the_saved_state():
    saved = trained_trainer(TrainConfig(optimizer="sgd"), steps=1)
    resumed = Trainer(build_network(TINY), TrainConfig(optimizer="adamw", lr=1e-3), torch.device("cpu"))
    with pytest.raises(ValueError, match="train.optimizer=adamw but the checkpoint was trained with sgd"):
        resumed.load_state(saved.optimizer.state_dict(), saved.scheduler.state_dict())


def test_step_schedule_counts_its_boundaries_from_the_end_of_the_warm_up():
    cfg = TrainConfig(lr_schedule="step", lr_warmup_steps=100, lr_step_every=1000, lr_step_gamma=0.5)
    assert lr_factor(99, cfg) == 1.0  # the warm-up's last step
    assert lr_factor(1099, cfg) == 1.0
    assert lr_factor(1100, cfg) == 0.5
    assert lr_factor(2100, cfg) == 0.25


def test_a_minimum_above_the_replay_window_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"train\.min_positions"):
        TrainConfig(min_positions=300_000, window_positions=200_000)


def test_a_warm_up_as_long_as_the_cosine_is_refused_naming_the_key():
    from alphazero.train.schema import Config

    with pytest.raises(ValueError, match=r"train\.lr_warmup_steps"):
        Config(train=TrainConfig(lr_warmup_steps=500, lr_total_steps=500))


def test_a_changed_optimizer_refuses_the_resume_before_anything_starts(tmp_path):
    from omegaconf import OmegaConf

    from alphazero.train.schema import Config, to_typed
    from alphazero.train.startup import StartRefused, check_run_start

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "best.json").write_text('{"id": 0, "elo": 0.0, "path": "net-000000.pt", "step": 0}')
    saved = OmegaConf.structured(Config)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(saved))
    cfg = to_typed(OmegaConf.merge(saved, {"train": {"optimizer": "adamw"}, "run": {"resume": True, "dir": str(run_dir)}}))
    before = sorted(p.name for p in run_dir.rglob("*"))
    with pytest.raises(StartRefused, match="train.optimizer=adamw but the run .* trains with sgd"):
        check_run_start(cfg, run_dir)
    assert sorted(p.name for p in run_dir.rglob("*")) == before
