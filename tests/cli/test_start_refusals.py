"""Bad input to the command-line programs: one line that names the problem, a non-zero exit, and
the file system exactly as it was (every path's size and modification time, before and after)."""

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from alphazero.train.schema import register_configs
from alphazero.train.__main__ import CONF_DIR
from alphazero.train.startup import StartRefused, check_command_line, valid_keys
from tests.disk import snapshot

REPO_ROOT = Path(__file__).resolve().parents[2]
WARMSTART = REPO_ROOT / "checkpoints" / "warmstart.pt"

register_configs()


def run_module(module: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env, stdin=subprocess.DEVNULL)


def assert_one_line_refusal(proc: subprocess.CompletedProcess, *words: str) -> str:
    """Exit status 2, nothing on stdout, exactly one line on stderr, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def fake_run(run_dir: Path, blocks: int = 2, channels: int = 16) -> None:
    """What a stopped run leaves behind, as far as the start checks look at it."""
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "best.json").write_text('{"id": 0, "elo": 0.0, "path": "net-000000.pt"}')
    (run_dir / "config.yaml").write_text(f"model:\n  blocks: {blocks}\n  channels: {channels}\n  global_pooling: false\n"
                                         "  policy_channels: 2\n  value_channels: 1\n  value_hidden: 32\n")
    (run_dir / "log.txt").write_text("2026-01-01 00:00:00 INFO iter 1 | ...\n")
    (run_dir / ".hydra").mkdir()
    (run_dir / ".hydra" / "overrides.yaml").write_text("- experiment=smoke\n")


# --- the checks themselves, in process ---------------------------------------------------------


@pytest.mark.parametrize("override", ["+mcts.simulatons=10", "++mcts.simulatons=10", "mcts.simulatons=10"])
def test_an_unknown_key_is_refused_however_it_is_spelled_naming_the_nearest_key(override, tmp_path):
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'r'}", override], CONF_DIR)
    assert "'mcts.simulatons'" in str(refused.value) and "did you mean 'mcts.simulations'" in str(refused.value)


def test_an_unknown_key_in_a_sweep_is_refused_before_any_job(tmp_path):
    with pytest.raises(StartRefused, match="train.learning_rate"):
        check_command_line(["-m", f"run.dir={tmp_path}", "train.learning_rate=0.1,0.2"], CONF_DIR)


def test_every_job_of_a_sweep_is_checked(tmp_path):
    with pytest.raises(StartRefused, match="mcts.simulations must be an integer >= 1, got -5"):
        check_command_line(["-m", "experiment=smoke", f"run.dir={tmp_path}", "mcts.simulations=10,-5"], CONF_DIR)


def test_a_sweep_value_without_multirun_says_to_add_it(tmp_path):
    with pytest.raises(StartRefused, match="add -m"):
        check_command_line([f"run.dir={tmp_path}", "mcts.simulations=10,20"], CONF_DIR)


def test_an_unknown_preset_lists_the_available_ones(tmp_path):
    with pytest.raises(StartRefused, match=r"model/huge.*available in 'model': large, medium, seed_cnn, seed_cnn_rnn, seed_mlp, small, tiny"):
        check_command_line([f"run.dir={tmp_path}", "model=huge"], CONF_DIR)


def test_a_good_command_line_passes_and_writes_nothing(tmp_path):
    before = snapshot(tmp_path)
    check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'new'}", "mcts.simulations=20", "+hydra.job.name=x"], CONF_DIR)
    check_command_line(["--help"], CONF_DIR)
    assert snapshot(tmp_path) == before


def test_every_schema_key_is_accepted():
    keys = valid_keys()
    assert {"mcts", "mcts.simulations", "model.blocks", "train.init_from", "run.resume"} <= set(keys)


def test_resume_with_another_model_is_refused_naming_the_differences(tmp_path):
    fake_run(tmp_path / "run", blocks=2, channels=16)
    with pytest.raises(StartRefused, match=r"model.blocks: saved 2 vs config 4"):
        check_command_line([f"run.dir={tmp_path / 'run'}", "run.resume=true", "model=small"], CONF_DIR)


def test_a_resume_without_a_run_directory_is_refused_saying_to_give_one(tmp_path):
    with pytest.raises(StartRefused, match=r"run.resume=true without run.dir: give the directory of the run to continue, run.dir=DIR"):
        check_command_line(["experiment=smoke", "run.resume=true"], CONF_DIR)


def test_an_unreadable_latest_pt_is_refused_naming_the_newest_readable_numbered_copy(tmp_path):
    from alphazero.nn.checkpoint import build_network, save_checkpoint
    from alphazero.nn.config import model_preset

    run = tmp_path / "run"
    fake_run(run)
    checkpoints = run / "checkpoints"
    net = build_network(model_preset("tiny"))
    save_checkpoint(checkpoints / "step-0000500.pt", net, extra={"step": 500})
    save_checkpoint(checkpoints / "step-0001000.pt", net, extra={"step": 1000})
    (checkpoints / "step-0001500.pt").write_bytes(b"torn")  # the newest copy is damaged too
    (checkpoints / "latest.pt").write_bytes((checkpoints / "step-0001000.pt").read_bytes()[:2000])
    before = snapshot(tmp_path)
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={run}", "run.resume=true"], CONF_DIR)
    message = str(refused.value)
    assert "latest.pt" in message and "truncated" in message and "\n" not in message
    assert f"(step 1000), copy it over latest.pt: cp {checkpoints / 'step-0001000.pt'} {checkpoints / 'latest.pt'}" in message
    assert snapshot(tmp_path) == before
    for path in checkpoints.glob("step-*.pt"):
        path.unlink()
    with pytest.raises(StartRefused, match=r"no readable step-\*.pt beside it .* train.init_from=.*best.pt run.dir=NEW_DIR"):
        check_command_line(["experiment=smoke", f"run.dir={run}", "run.resume=true"], CONF_DIR)


# --- a damaged resume point: refused before .hydra/ and config.yaml are rewritten ------------------


def stopped_run(run_dir: Path) -> Path:
    """What a stopped smoke run leaves in checkpoints/: latest.pt after a training step (momentum
    buffers, a schedule, counters and generators), a numbered copy of it, and best network #0."""
    import dataclasses

    import numpy as np
    import torch

    from alphazero.nn.checkpoint import build_network, save_checkpoint
    from alphazero.nn.config import model_preset
    from alphazero.train.checkpoints import publish_best
    from alphazero.train.config import TrainConfig
    from alphazero.train.loop import RunState, rng_state
    from alphazero.train.trainer import build_optimizer, build_scheduler

    fake_run(run_dir)
    (run_dir / "checkpoints" / "best.json").unlink()
    net = build_network(model_preset("tiny"))
    publish_best(run_dir, net, 0, 0.0, 0)
    optimizer = build_optimizer(net, TrainConfig())
    scheduler = build_scheduler(optimizer, TrainConfig())
    for param in net.parameters():
        param.grad = torch.ones_like(param)
    optimizer.step()
    scheduler.step()
    extra = dict(dataclasses.asdict(RunState(step=10, iteration=1)), rng=rng_state(np.random.default_rng(0)))
    for name in ("latest.pt", "step-0000010.pt"):
        save_checkpoint(run_dir / "checkpoints" / name, net, extra=extra, optimizer=optimizer, scheduler=scheduler)
    return run_dir / "checkpoints" / "latest.pt"


def damage(path: Path, change) -> None:
    """Rewrite a checkpoint's payload with `change` applied: a whole file with damaged contents."""
    import torch

    payload = torch.load(path, weights_only=True)
    change(payload)
    torch.save(payload, path)


def _first_momentum(payload):
    return next(iter(payload["optimizer_state"]["state"].values()))["momentum_buffer"]


def _momentum_of_another_shape(payload):
    import torch

    next(iter(payload["optimizer_state"]["state"].values()))["momentum_buffer"] = torch.zeros(3)


@pytest.mark.parametrize("part, change", [
    ("optimizer or LR schedule state", lambda p: p.update(optimizer_state=None)),
    ("optimizer or LR schedule state", lambda p: p["optimizer_state"].pop("param_groups")),
    ("optimizer or LR schedule state", lambda p: p["optimizer_state"].pop("state")),
    ("optimizer or LR schedule state", lambda p: p.update(scheduler_state={"last_epoch": 3})),
    ("optimizer state", _momentum_of_another_shape),
    ("optimizer state", lambda p: _first_momentum(p).fill_(float("nan"))),
    ("run state", lambda p: p["extra"].update(step="abc")),
    ("run state", lambda p: p.update(extra=[1, 2])),
    ("random generator state", lambda p: p["extra"].update(rng={"numpy_generator": 1})),
])
def test_a_damaged_resume_state_in_latest_pt_is_refused_naming_the_part_and_the_numbered_copy(part, change, tmp_path):
    """Each of these used to pass the start check and fail as a traceback from inside torch (after
    .hydra/ and config.yaml were rewritten), or later: a momentum buffer of the wrong shape at the
    first training step, NaN momentum as a loss that became NaN."""
    latest = stopped_run(tmp_path / "run")
    damage(latest, change)
    before = snapshot(tmp_path)
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "run.resume=true"], CONF_DIR)
    message = str(refused.value)
    assert f"checkpoint {latest} has an unusable {part} (" in message and "\n" not in message
    assert f"cp {latest.parent / 'step-0000010.pt'} {latest}" in message
    assert snapshot(tmp_path) == before


def test_a_whole_resume_point_passes_and_the_global_generators_are_left_as_they_were(tmp_path):
    import random

    import torch

    stopped_run(tmp_path / "run")
    before = snapshot(tmp_path)
    torch_state, python_state = torch.get_rng_state(), random.getstate()
    check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "run.resume=true"], CONF_DIR)
    assert torch.equal(torch.get_rng_state(), torch_state) and random.getstate() == python_state
    assert snapshot(tmp_path) == before


def test_a_resume_point_of_another_model_is_refused_when_config_yaml_is_gone(tmp_path):
    """The model check read config.yaml only: without it, setup refused after rewriting .hydra/ and
    writing a config.yaml of the wrong model."""
    latest = stopped_run(tmp_path / "run")
    (tmp_path / "run" / "config.yaml").unlink()
    with pytest.raises(StartRefused, match=rf"the network in {latest} does not match the model config \(model.blocks: saved 2 vs config 4"):
        check_command_line([f"run.dir={tmp_path / 'run'}", "run.resume=true", "model=small"], CONF_DIR)


def test_a_missing_latest_pt_beside_numbered_copies_is_refused_not_restarted_at_step_0(tmp_path):
    """A resume without latest.pt trained from the best network at step 0 and overwrote the
    numbered copies (step-0000010.pt, ...) of the steps it had lost."""
    latest = stopped_run(tmp_path / "run")
    latest.unlink()
    before = snapshot(tmp_path)
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "run.resume=true"], CONF_DIR)
    assert str(refused.value) == (f"checkpoint {latest} is missing but numbered copies of it are beside it; to resume from the newest "
                                  f"readable numbered copy beside it (step 10), copy it over latest.pt: "
                                  f"cp {latest.parent / 'step-0000010.pt'} {latest}")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("pointer, words", [
    ('{"id": 0, "fi', ["best.json is not valid JSON"]),
    ("[1, 2]", ["best.json does not name a network", "[1, 2]"]),
    ('{"id": 3, "file": "net-000003.pt", "elo": 0.0, "step": 0}', ["net-000003.pt does not exist", "it is the run's best network",
                                                                    "point best.json at another of its networks"]),
])
def test_a_damaged_best_pointer_is_refused_before_anything_is_written(pointer, words, tmp_path):
    stopped_run(tmp_path / "run")
    (tmp_path / "run" / "checkpoints" / "best.json").write_text(pointer)
    before = snapshot(tmp_path)
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "run.resume=true"], CONF_DIR)
    for word in words:
        assert word in str(refused.value)
    assert snapshot(tmp_path) == before


def test_an_unreadable_best_network_is_refused_naming_its_copy_in_best_pt(tmp_path):
    """It used to start, and every self-play worker died loading it until the run stopped."""
    stopped_run(tmp_path / "run")
    checkpoints = tmp_path / "run" / "checkpoints"
    (checkpoints / "net-000000.pt").write_bytes((checkpoints / "net-000000.pt").read_bytes()[:3000])
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "run.resume=true"], CONF_DIR)
    assert "net-000000.pt (3000 bytes) is truncated" in str(refused.value)
    assert f"best.pt holds a copy of it: cp {checkpoints / 'best.pt'} {checkpoints / 'net-000000.pt'}" in str(refused.value)


def test_a_missing_best_pointer_beside_its_networks_is_refused_with_the_pointer_latest_pt_records(tmp_path):
    """A resume without best.json published the latest weights as a new network #0 over
    net-000000.pt, and the run forgot which network was best."""
    stopped_run(tmp_path / "run")
    checkpoints = tmp_path / "run" / "checkpoints"
    (checkpoints / "best.json").unlink()
    before = snapshot(tmp_path)
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "run.resume=true"], CONF_DIR)
    assert str(refused.value).startswith(f"{checkpoints / 'best.json'} is missing, yet the run has networks (net-000000.pt the newest)")
    assert str(refused.value).endswith(f"""echo '{{"id": 0, "file": "net-000000.pt", "elo": 0.0, "step": 0}}' > {checkpoints / 'best.json'}""")
    assert snapshot(tmp_path) == before


def test_a_damaged_prune_ledger_is_refused_before_anything_is_written(tmp_path):
    """The replay buffer refuses it too, but only after the setup has rewritten config.yaml."""
    stopped_run(tmp_path / "run")
    ledger = tmp_path / "run" / "replay" / "pruned.json"
    ledger.parent.mkdir(exist_ok=True)
    ledger.write_text('{"games": 4, "positions": 240, "shards": 1, "last_pruned": ["../outside.txt"]}')
    before = snapshot(tmp_path)
    with pytest.raises(StartRefused, match=r"pruned\.json: not a prune ledger \(last_pruned .* is not a list of shard file names\)"):
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "run.resume=true"], CONF_DIR)
    assert snapshot(tmp_path) == before


def test_a_damaged_optimizer_state_is_refused_in_one_line_by_the_program(tmp_path):
    latest = stopped_run(tmp_path / "run")
    damage(latest, lambda p: p.update(optimizer_state=None))
    before = snapshot(tmp_path)
    proc = run_module("alphazero.train", ["experiment=smoke", "run.dir=run", "run.resume=true"], cwd=tmp_path)
    assert_one_line_refusal(proc, "latest.pt has an unusable optimizer or LR schedule state", "cp ")
    assert snapshot(tmp_path) == before  # .hydra/ and config.yaml as they were


def test_a_run_dir_that_is_a_file_is_refused_naming_it(tmp_path):
    (tmp_path / "notes.txt").write_text("not a run")
    with pytest.raises(StartRefused, match=r"run.dir .*notes.txt is a file, not a directory"):
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'notes.txt'}"], CONF_DIR)


def test_a_literal_hydra_run_dir_is_checked_like_run_dir(tmp_path):
    with pytest.raises(StartRefused, match=r"run.resume=true but .*elsewhere holds no run"):
        check_command_line(["experiment=smoke", f"hydra.run.dir={tmp_path / 'elsewhere'}", "run.resume=true"], CONF_DIR)
    check_command_line(["experiment=smoke", f"hydra.run.dir={tmp_path / 'elsewhere'}"], CONF_DIR)  # a new run there: fine
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not WARMSTART.is_file(), reason="checkpoints/warmstart.pt not in this checkout")
def test_init_from_a_network_of_another_model_is_refused(tmp_path):
    with pytest.raises(StartRefused, match=r"warmstart.pt does not match the model config"):
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'r'}", f"train.init_from={WARMSTART}"], CONF_DIR)


# --- the programs, as a user runs them ----------------------------------------------------------


@pytest.mark.parametrize(
    "overrides, words",
    [
        (["+mcts.simulatons=10"], ["mcts.simulatons", "mcts.simulations"]),
        (["mcts.simulations=-5"], ["mcts.simulations", "-5"]),
        (["run.resume=true", "run.dir=missing"], ["run.resume=true", "missing"]),
        (["run.resume=true"], ["run.resume=true without run.dir", "run.dir=DIR"]),
        (["run.resume=true", "hydra.run.dir=moved"], ["run.resume=true", "moved", "holds no run"]),
    ],
)
def test_a_refused_training_start_creates_nothing(overrides, words, tmp_path):
    before = snapshot(tmp_path)
    proc = run_module("alphazero.train", ["experiment=smoke", *overrides], cwd=tmp_path)
    assert_one_line_refusal(proc, *words)
    assert snapshot(tmp_path) == before  # no runs/<date>_<time>/.hydra, no missing/ with log.txt and run.lock


def test_a_start_over_an_existing_run_leaves_that_run_untouched(tmp_path):
    fake_run(tmp_path / "run")
    before = snapshot(tmp_path)
    proc = run_module("alphazero.train", ["experiment=smoke", "run.dir=run"], cwd=tmp_path)
    assert_one_line_refusal(proc, "already holds a run", "run.resume=true")
    assert snapshot(tmp_path) == before  # no ERROR line in its log.txt, its .hydra/ as it was


def test_a_start_in_a_directory_in_use_is_refused_and_leaves_it_untouched(tmp_path):
    fake_run(tmp_path / "run")
    lock_path = tmp_path / "run" / "run.lock"
    lock_path.write_text("pid 12345\n")
    before = snapshot(tmp_path)
    with open(lock_path) as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        proc = run_module("alphazero.train", ["experiment=smoke", "run.dir=run", "run.resume=true"], cwd=tmp_path)
    assert_one_line_refusal(proc, "in use by another training process", "pid 12345")
    assert snapshot(tmp_path) == before


@pytest.mark.skipif(not WARMSTART.is_file(), reason="checkpoints/warmstart.pt not in this checkout")
@pytest.mark.parametrize("module", ["alphazero.play", "alphazero.gtp"])
def test_a_truncated_checkpoint_is_refused_in_one_line(module, tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(WARMSTART.read_bytes()[:1000])
    before = snapshot(tmp_path)
    proc = run_module(module, ["--checkpoint", str(bad)], cwd=tmp_path)
    assert_one_line_refusal(proc, str(bad), "truncated")
    assert snapshot(tmp_path) == before


def test_the_ci_script_runs_the_readme_test_command_in_a_new_virtual_environment():
    script = (REPO_ROOT / ".ci" / "run").read_text()
    assert "python3 -m venv" in script and 'source "$venv/bin/activate"' in script and 'eval "$test_command"' in script
    awk_program = "/^Test \\(/ {found=1} found && /^```bash/ {inside=1; next} inside && /^```/ {exit} inside {print}"
    assert awk_program in script  # the extraction below is the script's own
    extracted = subprocess.run(["awk", awk_program, "README.md"], cwd=REPO_ROOT, capture_output=True, text=True,
                               check=True).stdout.strip()
    assert extracted.startswith("pip install torch==2.13.0 && ")  # the CPU build first, from the local cache
    assert 'pip install -e ".[test]"' in extracted and extracted.endswith("python -m pytest")


@pytest.mark.parametrize(
    "overrides, words",
    [
        (["+pretrain.lrr=1"], ["pretrain.lrr", "did you mean 'pretrain.lr'"]),
        (["pretrain.lr=-1"], ["pretrain.lr must be > 0"]),
        (["run.resume=true", "run.dir=missing"], ["run.resume=true", "missing"]),
    ],
)
def test_a_refused_pretraining_start_creates_nothing(overrides, words, tmp_path):
    before = snapshot(tmp_path)
    proc = run_module("alphazero.pretrain", overrides, cwd=tmp_path)
    assert_one_line_refusal(proc, *words)
    assert snapshot(tmp_path) == before


# What the refusal below must not load: torch alone takes 1.5-2 s to import on the 2-core CI machine,
# most of a refused start's time before configuration stopped importing it (3.9 s -> 1.2 s).
_REFUSE_AND_REPORT_IMPORTS = """
import runpy, sys
module, args = sys.argv[1], sys.argv[2:]
sys.argv = [module, *args]
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
except SystemExit as exit_:
    print(exit_.code, "torch" in sys.modules)
"""


@pytest.mark.parametrize("module, override", [("alphazero.train", "train.lr=-1"),
                                              ("alphazero.pretrain", "pretrain.lr=-1"),
                                              ("alphazero.train", "selfplay.wokers=3")])
def test_a_refused_command_line_answers_without_importing_torch(tmp_path, module, override):
    """Configuration (the dataclasses, their checks, the names they choose from) needs no torch, so a
    typo is answered in about a second, not after the deep-learning stack has loaded."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _REFUSE_AND_REPORT_IMPORTS, module, f"run.dir={tmp_path / 'run'}", override],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert proc.stdout.split() == ["2", "False"], (proc.stdout, proc.stderr)
    assert override.split("=")[0].split(".")[-1] in proc.stderr
    assert not (tmp_path / "run").exists()


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


_NO_CUDA = pytest.mark.skipif(_cuda_available(), reason="needs a machine without CUDA (a device the machine lacks)")


@_NO_CUDA
def test_a_device_the_machine_lacks_is_refused_naming_every_key_before_the_run_directory_exists(tmp_path):
    """experiment=gpu on a CPU machine wrote a new run (best network, config.yaml, log.txt) before
    the setup found no CUDA, and the same command again was refused as a start over that run."""
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=gpu", f"run.dir={tmp_path / 'run'}"], CONF_DIR)
    assert str(refused.value).startswith("train.device=cuda, selfplay.device=cuda: device 'cuda' requested but CUDA is not available")
    assert str(refused.value).endswith("on this machine use train.device=auto selfplay.device=auto")
    with pytest.raises(StartRefused, match=r"^train\.device=tpu: unknown device 'tpu'"):
        check_command_line(["experiment=smoke", "train.device=tpu", f"run.dir={tmp_path / 'run'}"], CONF_DIR)
    assert not (tmp_path / "run").exists()


@_NO_CUDA
def test_pretraining_on_a_device_the_machine_lacks_is_refused_by_the_program_leaving_no_directory(tmp_path):
    proc = run_module("alphazero.pretrain", ["pretrain.device=cuda", "run.dir=run"], cwd=tmp_path)
    assert_one_line_refusal(proc, "pretrain.device=cuda: device 'cuda' requested but CUDA is not available", "pretrain.device=auto")
    assert not (tmp_path / "run").exists()
