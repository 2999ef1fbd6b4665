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

REPO_ROOT = Path(__file__).resolve().parents[2]
WARMSTART = REPO_ROOT / "checkpoints" / "warmstart.pt"

register_configs()


def snapshot(root: Path) -> dict:
    """Every path under `root` (itself included) with its size and mtime."""
    entries = {}
    for path in [root, *sorted(root.rglob("*"))]:
        info = path.lstat()
        entries[str(path.relative_to(root))] = (info.st_size if path.is_file() else None, info.st_mtime_ns)
    return entries


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
