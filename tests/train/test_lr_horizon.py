"""train.lr_schedule_horizon=minutes: the cosine follows the run's time budget (run.max_minutes)
instead of a step count, resumes on the same curve (the run's clock is in latest.pt), and a run
without a time budget falls back to the steps and says so."""

import logging
import math
import time

import pytest
import torch

from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import ModelConfig, model_preset
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.train.config import RunConfig, TrainConfig
from alphazero.train.loop import TrainingRun
from alphazero.train.schema import Config
from alphazero.train.startup import compose_typed
from alphazero.train.__main__ import CONF_DIR
from alphazero.train.trainer import Trainer, lr_factor
from alphazero.validation import ConfigValueError

TINY = ModelConfig(blocks=1, channels=8)
TIMED = dict(lr_schedule="cosine", lr_schedule_horizon="minutes", lr_warmup_steps=10, lr_total_steps=1000, lr_min_factor=0.05)


def test_the_cosine_in_run_time_follows_the_share_of_the_budget_spent_not_the_steps():
    cfg = TrainConfig(**TIMED)
    assert lr_factor(5, cfg, 0.9) == pytest.approx(0.6)  # the warm-up still counts steps
    assert lr_factor(10, cfg, 0.0) == 1.0
    assert lr_factor(10, cfg, 0.5) == pytest.approx(0.05 + 0.95 * 0.5)
    assert lr_factor(10, cfg, 1.0) == pytest.approx(0.05)
    assert lr_factor(999_999, cfg, 0.25) == pytest.approx(0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi / 4)))  # steps do not matter
    assert lr_factor(10, cfg, 1.3) == pytest.approx(0.05)  # a sync run ends up to an iteration past its budget: the floor
    assert lr_factor(500, cfg) == pytest.approx(lr_factor(10, cfg, 490 / 990))  # without a clock: the steps, as before


def test_a_horizon_other_than_steps_or_minutes_is_refused_naming_the_key():
    with pytest.raises(ConfigValueError, match=r"train\.lr_schedule_horizon must be one of steps, minutes, auto; got 'positions'"):
        TrainConfig(lr_schedule_horizon="positions")


@pytest.mark.parametrize("schedule", ["constant", "step"])
def test_a_time_horizon_on_a_schedule_without_one_is_refused_rather_than_ignored(schedule):
    with pytest.raises(ConfigValueError, match=rf"train\.lr_schedule_horizon must be steps with train\.lr_schedule={schedule}"):
        TrainConfig(lr_schedule=schedule, lr_schedule_horizon="minutes")


def test_the_cpu_preset_follows_the_run_time_when_there_is_a_budget_and_the_others_keep_steps():
    assert compose_typed(["experiment=cpu"], CONF_DIR).train.lr_schedule_horizon == "auto"
    assert compose_typed(["experiment=gpu"], CONF_DIR).train.lr_schedule_horizon == "steps"
    cfg = compose_typed(["experiment=cpu", "train.lr_schedule_horizon=steps", "run.max_minutes=60"], CONF_DIR)
    assert cfg.train.lr_schedule_horizon == "steps" and cfg.run.max_minutes == 60


@pytest.mark.parametrize("max_minutes, follows_time", [(60, True), (0, False)])
def test_auto_follows_the_budget_when_the_run_has_one_and_counts_steps_quietly_when_not(tmp_path, caplog, max_minutes, follows_time):
    caplog.set_level(logging.INFO, logger="alphazero.train")
    cfg = _config(tmp_path / "run", max_minutes=max_minutes)
    cfg.train.lr_schedule_horizon = "auto"
    run = _set_up(cfg, tmp_path / "run")
    assert (run.trainer.time_progress is not None) == follows_time
    assert ("over run.max_minutes=60 of run time" in caplog.text) == follows_time
    assert "lr_schedule_horizon=minutes but" not in caplog.text  # no warning: auto asks for no budget


def test_a_trainer_restored_at_the_same_clock_continues_with_the_same_learning_rate():
    """Interrupted after 30 steps at 40% of the budget, resumed, then both go on to the same
    clock readings: the learning rates are the uninterrupted run's, step by step."""
    cfg = TrainConfig(**TIMED)
    clock = [0.0]

    def trainer():
        torch.manual_seed(0)
        return Trainer(build_network(TINY), cfg, torch.device("cpu"), time_progress=lambda: clock[0])

    through, saved = trainer(), trainer()
    for step in range(30):
        clock[0] = 0.4 * step / 29
        for run in (through, saved):
            run.optimizer.step()
            run.scheduler.step()
    resumed = trainer()
    resumed.load_state(saved.optimizer.state_dict(), saved.scheduler.state_dict())
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(through.optimizer.param_groups[0]["lr"], rel=1e-12)
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(cfg.lr * lr_factor(30, cfg, 0.4))
    for reading in (0.45, 0.7, 0.95):
        clock[0] = reading
        for run in (through, resumed):
            run.optimizer.step()
            run.scheduler.step()
        assert [g["lr"] for g in resumed.optimizer.param_groups] == pytest.approx([g["lr"] for g in through.optimizer.param_groups], rel=1e-12)
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(cfg.lr * lr_factor(33, cfg, 0.95))


def _config(run_dir, max_minutes: float, resume: bool = False) -> Config:
    return Config(
        model=model_preset("tiny"),
        train=TrainConfig(device="cpu", precision="fp32", **TIMED),
        selfplay=SelfPlayConfig(device="cpu", precision="fp32"),
        run=RunConfig(dir=str(run_dir), max_minutes=max_minutes, resume=resume),
        precision="fp32",
    )


def _set_up(cfg: Config, run_dir) -> TrainingRun:
    run = TrainingRun(cfg, run_dir)
    run._setup()
    run.metrics.close()
    return run


def test_a_resumed_run_continues_the_cosine_from_the_run_time_in_latest_pt(tmp_path, caplog):
    """The run's clock (RunState.seconds, which run.max_minutes counts) is restored before the
    trainer, so the resumed learning rate is the one at the saved share of the budget: 30 of 60
    minutes, half way down the cosine, not the start of the curve nor the step count's value."""
    caplog.set_level(logging.INFO, logger="alphazero.train")
    run_dir = tmp_path / "run"
    first = _set_up(_config(run_dir, max_minutes=60), run_dir)
    assert "cosine from 0.02 to 0.001 over run.max_minutes=60 of run time" in caplog.text
    for _ in range(40):
        first.trainer.optimizer.step()
        first.trainer.scheduler.step()
    first.state.step = 40
    first.seconds_at_start, first.started = 30 * 60.0, time.monotonic()
    first.save()
    resumed = _set_up(_config(run_dir, max_minutes=60, resume=True), run_dir)
    assert resumed.state.seconds == pytest.approx(1800, abs=5)
    lr = resumed.trainer.optimizer.param_groups[0]["lr"]
    cfg = resumed.cfg.train
    # The clock runs on while the resumed run is built (seconds on a loaded machine), and the
    # cosine falls about 0.04% a second there: the rate lies between the saved time's and a few
    # seconds later's.
    assert cfg.lr * lr_factor(40, cfg, 1805 / 3600) <= lr <= cfg.lr * lr_factor(40, cfg, 0.5)
    assert lr != pytest.approx(cfg.lr * lr_factor(40, cfg), rel=1e-2)  # the steps' value: near the top


def test_a_run_resumed_with_a_longer_budget_climbs_back_up_the_cosine_and_says_so(tmp_path, caplog):
    run_dir = tmp_path / "run"
    first = _set_up(_config(run_dir, max_minutes=60), run_dir)
    for _ in range(40):
        first.trainer.optimizer.step()
        first.trainer.scheduler.step()
    first.state.step = 40
    first.seconds_at_start, first.started = 54 * 60.0, time.monotonic()
    first.trainer.optimizer.step()
    first.trainer.scheduler.step()  # the rate at 54 of 60 minutes: near the floor
    first.save()
    caplog.set_level(logging.INFO, logger="alphazero.train")
    resumed = _set_up(_config(run_dir, max_minutes=120, resume=True), run_dir)
    cfg = resumed.cfg.train
    assert resumed.trainer.optimizer.param_groups[0]["lr"] == pytest.approx(cfg.lr * lr_factor(41, cfg, 54 / 120), rel=1e-3)
    assert "resume: the learning rate continues at 0.012, not the checkpoint's 0.00146: the schedule's settings changed" in caplog.text


def test_a_run_without_a_time_budget_counts_steps_and_says_so(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="alphazero.train")
    run_dir = tmp_path / "run"
    run = _set_up(_config(run_dir, max_minutes=0), run_dir)
    assert run.trainer.time_progress is None
    assert "train.lr_schedule_horizon=minutes but run.max_minutes=0" in caplog.text
    assert "counts train.lr_total_steps=1000 steps instead" in caplog.text


def test_run_max_minutes_counts_the_run_time_of_every_session(tmp_path):
    """What the cosine's clock and the learning benchmark's resume rely on: a run resumed after
    30 minutes of run time has 30 minutes behind it, so a 20-minute budget is already spent."""
    run_dir = tmp_path / "run"
    first = _set_up(_config(run_dir, max_minutes=60), run_dir)
    first.seconds_at_start, first.started = 30 * 60.0, time.monotonic()
    first.save()
    assert _set_up(_config(run_dir, max_minutes=60, resume=True), run_dir).spent_at_start is None
    spent = _set_up(_config(run_dir, max_minutes=20, resume=True), run_dir).spent_at_start
    assert spent.startswith("run.max_minutes=20 is spent (30m0")  # 30 minutes and the seconds of this start
