"""Which network becomes best.pt: the validation measure `pretrain.best_metric` names (lowest
policy loss, or highest top-1 / top-1 up to symmetry / top-3), also across a resume whose best.pt
was chosen by another measure (or by plain top-1, before the setting existed)."""

import math
import os
import signal

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from alphazero.nn.checkpoint import CheckpointError, load_checkpoint, load_network
from alphazero.pretrain.accuracy import evaluate_accuracy
from alphazero.pretrain.config import PretrainConfig
from alphazero.pretrain.loop import PretrainRun
from alphazero.validation import ConfigValueError

from .helpers import tiny_config, workspace_with_two_years


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return workspace_with_two_years(tmp_path_factory, "best-metric")


def _validation_curve(run_dir, metric):
    events = EventAccumulator(str(run_dir / "tb"))
    events.Reload()
    return {e.step: e.value for e in events.Scalars(f"validation/{metric}")}


def _score_of_best(run: PretrainRun, run_dir, metric):
    """best.pt's `metric` on the run's validation positions, measured afresh."""
    net = load_network(run_dir / "checkpoints" / "best.pt")
    v = run.validation_batch
    return getattr(evaluate_accuracy(net, v.positions, v.moves, v.values), metric)


@pytest.mark.parametrize("metric, best", [("policy_loss", min), ("top3", max)])
def test_best_pt_is_the_validation_point_the_metric_prefers(workspace, metric, best):
    run_dir = workspace / f"by-{metric}"
    run = PretrainRun(tiny_config(workspace, run_dir, epochs=3, eval_every_steps=4, best_metric=metric, lr=0.03), run_dir)
    state = run.run()
    curve = _validation_curve(run_dir, metric)
    assert len(curve) >= 9
    wanted = best(curve.values())
    assert state.best_metric == metric
    assert state.best_score == pytest.approx(wanted, abs=1e-4)
    assert curve[state.best_step] == pytest.approx(wanted, abs=1e-4)
    assert _score_of_best(run, run_dir, metric) == pytest.approx(state.best_score, abs=1e-5)
    assert load_checkpoint(run_dir / "checkpoints" / "best.pt").extra["state"]["best_step"] == state.best_step


def test_a_resume_rescores_a_best_pt_chosen_by_plain_top1(workspace):
    """A run written before best_metric existed (its state holds best_top1) resumes under the
    default measure: best.pt is scored by top-1 up to symmetry before any validation compares
    against it, so it is neither replaced for free nor kept by an incomparable number."""
    run_dir = workspace / "old-state"
    cfg = tiny_config(workspace, run_dir, epochs=4, best_metric="top1")
    cfg.run.max_steps = 24
    first = PretrainRun(cfg, run_dir).run()
    assert first.best_metric == "top1" and first.best_step > 0

    latest = run_dir / "checkpoints" / "latest.pt"
    payload = torch.load(latest, weights_only=True)
    state = payload["extra"]["state"]
    state["best_top1"] = state.pop("best_score")
    del state["best_metric"]
    torch.save(payload, latest)

    cfg = tiny_config(workspace, run_dir, epochs=4)
    cfg.run.max_steps = 24  # the budget is spent: the resume validates nothing new
    cfg.run.resume = True
    run = PretrainRun(cfg, run_dir)
    resumed = run.run()
    assert resumed.best_step == first.best_step
    assert resumed.best_metric == "top1_symmetric"
    assert resumed.best_score == pytest.approx(_score_of_best(run, run_dir, "top1_symmetric"), abs=1e-6)
    assert math.isfinite(resumed.best_score)


@pytest.mark.parametrize("resumed_metric", ["policy_loss", "top1"])
def test_a_missing_best_pt_is_rewritten_by_the_next_validation(workspace, resumed_metric):
    run_dir = workspace / f"lost-best-{resumed_metric}"
    cfg = tiny_config(workspace, run_dir, epochs=2, best_metric="top1")
    cfg.run.max_steps = 12
    PretrainRun(cfg, run_dir).run()
    (run_dir / "checkpoints" / "best.pt").unlink()
    cfg = tiny_config(workspace, run_dir, epochs=2, best_metric=resumed_metric)
    cfg.run.resume = True
    state = PretrainRun(cfg, run_dir).run()
    assert state.best_metric == resumed_metric and state.best_step == 24
    assert (run_dir / "checkpoints" / "best.pt").is_file()


def test_an_unknown_metric_names_the_key_and_the_choices():
    with pytest.raises(ConfigValueError, match="pretrain.best_metric must be one of top1_symmetric, top1, top3, policy_loss; got 'nll'"):
        PretrainConfig(best_metric="nll")


def test_a_damaged_best_pt_stops_the_resume_in_one_line_and_changes_nothing(workspace):
    run_dir = workspace / "damaged-best"
    cfg = tiny_config(workspace, run_dir, epochs=2, best_metric="top1")
    cfg.run.max_steps = 12
    PretrainRun(cfg, run_dir).run()
    best = run_dir / "checkpoints" / "best.pt"
    best.write_bytes(best.read_bytes()[:200])
    latest_before = (run_dir / "checkpoints" / "latest.pt").read_bytes()
    config_before = (run_dir / "config.yaml").read_text()
    cfg = tiny_config(workspace, run_dir, epochs=2)
    cfg.run.resume = True
    with pytest.raises(CheckpointError, match=r"best\.pt.*delete it to let the next validation write a new one") as error:
        PretrainRun(cfg, run_dir).run()
    assert str(best) in str(error.value) and "\n" not in str(error.value)
    assert (run_dir / "checkpoints" / "latest.pt").read_bytes() == latest_before
    assert (run_dir / "config.yaml").read_text() == config_before  # still the first session's best_metric=top1
    assert best.stat().st_size == 200


def test_a_stop_before_the_first_validation_says_there_is_no_best_pt_yet(workspace, monkeypatch):
    """Ctrl-C before any validation: the stop line says there is no best.pt, not 'nan at step -1'."""
    run_dir = workspace / "stopped-early"
    run = PretrainRun(tiny_config(workspace, run_dir, epochs=4), run_dir)
    train_step = run.train_step

    def interrupted_after_two(batch):
        losses = train_step(batch)
        if run.state.step == 1:  # the second step is the last: SIGINT asks for a clean stop
            os.kill(os.getpid(), signal.SIGINT)
        return losses

    monkeypatch.setattr(run, "train_step", interrupted_after_two)
    state = run.run()
    assert state.step == 2
    assert state.best_step == -1 and not (run_dir / "checkpoints" / "best.pt").exists()
    stop_line = [line for line in (run_dir / "log.txt").read_text().splitlines() if "stopped at" in line][-1]
    assert "no validation yet, so no best.pt" in stop_line and "nan" not in stop_line, stop_line
