"""A pretraining resume whose run directory is damaged or does not fit the command line is refused
by the start check in one line naming the file (or key) and the way out, before Hydra rewrites
.hydra/ and the run its config.yaml and log: every file as it was (size and modification time)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from alphazero.nn.checkpoint import load_checkpoint
from alphazero.pretrain.__main__ import CONF_DIR, _check_start
from alphazero.pretrain.config import PretrainRootConfig, to_typed
from alphazero.pretrain.loop import PretrainRun, unusable_latest_hint
from alphazero.train.run_dir import RunDirectoryError
from alphazero.train.startup import Program, StartRefused, check_command_line

from .helpers import VALIDATION_YEAR, tiny_config, workspace_with_two_years
from tests.disk import snapshot

PRETRAIN = Program("pretrain", PretrainRootConfig, to_typed, _check_start)
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return workspace_with_two_years(tmp_path_factory, "pretrain-resume")


@pytest.fixture(scope="module")
def stopped(workspace):
    """A run stopped 2 batches into its second epoch: latest.pt (optimizer, schedule, counters,
    generators), best.pt and epoch-001.pt."""
    run_dir = workspace / "stopped"
    cfg = tiny_config(workspace, run_dir)
    cfg.run.max_steps = 14
    PretrainRun(cfg, run_dir).run()
    return run_dir


@pytest.fixture
def run(stopped, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(stopped, copy)
    return copy


def overrides(workspace, run_dir, *extra):
    """The command line of `tiny_config` (the run's own settings), resuming `run_dir`."""
    return ["model=tiny", f"pretrain.wthor_dir={workspace / 'wthor'}", f"pretrain.dataset_dir={workspace / 'dataset'}",
            f"pretrain.validation_years=[{VALIDATION_YEAR}]", "pretrain.epochs=4", "pretrain.batch_size=64", "pretrain.lr=0.01",
            "pretrain.lr_warmup_steps=5", "pretrain.precision=fp32", f"run.dir={run_dir}", "run.resume=true", *extra]


def refusal(workspace, run_dir, *extra) -> str:
    """The start check's message; asserts that nothing under the run directory changed."""
    before = snapshot(run_dir)
    with pytest.raises(StartRefused) as refused:
        check_command_line(overrides(workspace, run_dir, *extra), CONF_DIR, PRETRAIN)
    assert snapshot(run_dir) == before
    message = str(refused.value)
    assert "\n" not in message
    return message


def damage(path, change) -> None:
    """Rewrite a checkpoint's payload with `change` applied: a whole file with damaged contents."""
    payload = torch.load(path, weights_only=True)
    change(payload)
    torch.save(payload, path)


def _first_moment(payload):
    return next(iter(payload["optimizer_state"]["state"].values()))["exp_avg"]


def test_a_whole_run_passes_the_check_and_resumes(workspace, run):
    check_command_line(overrides(workspace, run), CONF_DIR, PRETRAIN)
    cfg = tiny_config(workspace, run)
    cfg.run.resume, cfg.run.max_steps = True, 16
    assert PretrainRun(cfg, run).run().step == 16


@pytest.mark.parametrize("part, change", [
    ("optimizer or LR schedule state", lambda p: p.update(optimizer_state=None)),
    ("optimizer or LR schedule state", lambda p: p.update(scheduler_state={"last_epoch": 3})),
    ("optimizer state", lambda p: _first_moment(p).fill_(float("nan"))),
    ("run state", lambda p: p["extra"]["state"].update(step="abc")),
    ("run state", lambda p: p["extra"]["state"].update(finished=1)),
    ("run state", lambda p: p["extra"].pop("state")),
    ("random generator state", lambda p: p["extra"].update(rng={"numpy_generator": 1})),
])
def test_a_damaged_latest_pt_is_refused_naming_the_part_and_the_newest_epoch_network(workspace, run, part, change):
    """Each of these failed as a traceback from inside torch or TensorBoard (the counters) after
    .hydra/ was rewritten and the log appended to; a latest.pt without its state began again at
    step 0 over the run's curves."""
    latest = run / "checkpoints" / "latest.pt"
    damage(latest, change)
    message = refusal(workspace, run)
    assert message.startswith(f"checkpoint {latest} has an unusable {part} (")
    assert f"pretrain.init_from={run / 'checkpoints' / 'epoch-001.pt'} run.dir=NEW_DIR" in message


def test_a_truncated_latest_pt_is_refused(workspace, run):
    latest = run / "checkpoints" / "latest.pt"
    latest.write_bytes(latest.read_bytes()[:3000])
    assert "truncated" in refusal(workspace, run)


def test_a_lost_latest_pt_beside_the_runs_networks_is_refused_for_a_resume_and_a_new_run(workspace, run):
    """A new run there used to write its best.pt and epoch files over the old run's."""
    (run / "checkpoints" / "latest.pt").unlink()
    for extra in [(), ("run.resume=false",)]:
        message = refusal(workspace, run, *extra)
        assert "latest.pt is missing but the run's epoch-001.pt, best.pt are beside it" in message
        assert "pretrain.init_from=" in message
    cfg = tiny_config(workspace, run)
    with pytest.raises(RunDirectoryError, match="neither be resumed nor started over"):
        PretrainRun(cfg, run).run()


def test_a_damaged_best_pt_is_refused_with_the_way_out(workspace, run):
    best = run / "checkpoints" / "best.pt"
    best.write_bytes(best.read_bytes()[:3000])
    message = refusal(workspace, run)
    assert message.startswith(f"checkpoint {best} (3000 bytes) is truncated") and "delete it to let the next validation" in message


@pytest.mark.parametrize("extra, words", [
    (["model.channels=24"], ["model.channels: saved 16 vs config 24"]),
    (["pretrain.optimizer=sgd"], ["pretrain.optimizer=sgd but the checkpoint was trained with adamw"]),
    (["pretrain.batch_size=32"], ["pretrain.batch_size=32 but", "stopped 2 batches of 64 into epoch 2", "resume with pretrain.batch_size=64"]),
])
def test_a_resume_that_does_not_fit_the_run_is_refused_naming_the_key(workspace, run, extra, words):
    message = refusal(workspace, run, *extra)
    for word in words:
        assert word in message


def test_the_program_refuses_in_one_line_and_leaves_the_directory_as_it_was(workspace, run):
    damage(run / "checkpoints" / "latest.pt", lambda p: p.update(optimizer_state=None))
    before = snapshot(run)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "alphazero.pretrain", *overrides(workspace, run)], cwd=run.parent, capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"error: checkpoint {run / 'checkpoints' / 'latest.pt'} has an unusable optimizer or LR "
                                                f"schedule state (TypeError: 'NoneType' object is not subscriptable); "
                                                f"{unusable_latest_hint(run)}"]
    assert snapshot(run) == before


def test_a_resume_removes_the_temp_files_of_interrupted_writes(workspace, run):
    (run / "checkpoints" / ".latest.pt.x1y2.tmp").write_bytes(b"half a checkpoint")
    cfg = tiny_config(workspace, run)
    cfg.run.resume, cfg.run.max_steps = True, 14
    PretrainRun(cfg, run).run()
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["best.pt", "epoch-001.pt", "latest.pt"]
    assert load_checkpoint(run / "checkpoints" / "latest.pt").extra["state"]["step"] == 14


def test_the_first_best_pt_is_never_written_before_a_latest_pt(workspace, tmp_path, monkeypatch):
    """A run whose first validation comes before its first checkpoint wrote best.pt alone; killed
    then, it could be neither resumed nor started over ('latest.pt is missing'), though nothing
    was lost. latest.pt now comes first, so best.pt without it always means a lost latest.pt."""
    run_dir = tmp_path / "run"
    cfg = tiny_config(workspace, run_dir, eval_every_steps=2, checkpoint_every_steps=1000)
    cfg.run.max_steps = 3
    real = PretrainRun._save_weights
    seen = []

    def saving(self, path):
        if path.name == "best.pt":
            seen.append((path.parent / "latest.pt").exists())
        return real(self, path)

    monkeypatch.setattr(PretrainRun, "_save_weights", saving)
    PretrainRun(cfg, run_dir).run()
    assert seen and all(seen), "best.pt was written with no latest.pt beside it"
