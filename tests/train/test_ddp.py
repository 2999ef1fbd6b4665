"""Training on several processes (alphazero.train.distributed), on the CPU with gloo: two processes
train to the weights of one process on the same global batches; the cross-process batch norm is
batch norm over the whole batch; torchrun runs, stops, checkpoints and resumes a run."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from alphazero.replay.buffer import ReplayBuffer
from tests.train import ddp_worker

from .helpers import latest_state, scalars

REPO_ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(**extra) -> dict:
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update({key: str(value) for key, value in extra.items()})
    return env


def _stop(proc: subprocess.Popen) -> None:
    """End a process this test started, and its children (it leads its own session)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)


def run_ranks(scenario: str, out_dir: Path, *options: str, world_size: int = 2, timeout: float = 120) -> list[dict]:
    """Start `world_size` ddp_worker processes as torchrun would and return each rank's result."""
    port = _free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.train.ddp_worker", scenario, str(out_dir), *options],
            env=_env(RANK=rank, LOCAL_RANK=rank, WORLD_SIZE=world_size, MASTER_ADDR="127.0.0.1", MASTER_PORT=port),
            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        for rank in range(world_size)
    ]
    try:
        outputs = [proc.communicate(timeout=timeout)[0] for proc in procs]
    finally:
        for proc in procs:
            _stop(proc)
    for rank, (proc, output) in enumerate(zip(procs, outputs)):
        assert proc.returncode == 0, f"rank {rank} exited {proc.returncode}:\n{output[-4000:]}"
    return [torch.load(out_dir / f"rank{rank}.pt", weights_only=False) for rank in range(world_size)]


def test_cross_process_batch_norm_is_batch_norm_over_the_whole_batch(tmp_path):
    ranks = run_ranks("batch_norm", tmp_path)
    x, weight, bias, upstream = ddp_worker.batch_norm_inputs()
    reference = torch.nn.BatchNorm2d(x.shape[1])
    with torch.no_grad():
        reference.weight.copy_(weight)
        reference.bias.copy_(bias)
    x = x.clone().requires_grad_(True)
    for _ in range(2):
        out = reference(x)
        (out * upstream).sum().backward()
    close = dict(rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(torch.cat([r["out"] for r in ranks]), out.detach(), **close)
    torch.testing.assert_close(torch.cat([r["x_grad"] for r in ranks]), x.grad, **close)
    for r in ranks:
        torch.testing.assert_close(r["weight_grad"], reference.weight.grad, **close)
        torch.testing.assert_close(r["bias_grad"], reference.bias.grad, **close)
        torch.testing.assert_close(r["running_mean"], reference.running_mean, **close)
        torch.testing.assert_close(r["running_var"], reference.running_var, **close)


@pytest.mark.parametrize("masked", [False, True], ids=["every-policy", "policy-mask"])
def test_two_processes_train_to_the_weights_of_one_process(tmp_path, masked):
    """Same initial weights, same global batches (no augmentation): after the steps, the weights of
    both ranks, batch-norm statistics included, are those of a single process, and so are the losses.
    With a policy mask (playout cap randomisation) whose policy rows split unevenly between the
    processes, the masked policy loss is still the single process's average over the whole batch."""
    single = ddp_worker.single_process_run(masked=masked)
    leader, follower = run_ranks("train", tmp_path, "cpu", "false", str(masked).lower())
    assert leader["steps"] == follower["steps"] == ddp_worker.STEPS
    initial = ddp_worker.initial_network(ddp_worker.training_config()).state_dict()
    for name, expected in single["state"].items():
        torch.testing.assert_close(leader["state"][name], expected, rtol=1e-4, atol=1e-5, msg=lambda m: f"{name}: {m}")
        torch.testing.assert_close(follower["state"][name], leader["state"][name], rtol=0, atol=0, msg=lambda m: f"{name}: {m}")
    moved = [name for name, value in single["state"].items() if value.is_floating_point() and not torch.equal(value, initial[name])]
    assert len(moved) > len(single["state"]) // 2, "training barely changed the weights: the comparison would prove little"
    for got, expected in zip(leader["losses"], single["losses"]):
        for key in ("policy", "value", "total", "grad_norm", "lr"):
            assert got[key] == pytest.approx(expected[key], rel=1e-4, abs=1e-6), key


def test_two_processes_train_the_auxiliary_heads_as_one_process(tmp_path):
    """With the score and ownership heads and an auxiliary mask whose rows split unevenly between
    the processes: the weights and every loss term (the auxiliary ones averaged over the rows with
    a target in the whole batch) are those of a single process."""
    single = ddp_worker.single_process_run(aux=True)
    leader, follower = run_ranks("train", tmp_path, "cpu", "false", "false", "true")
    assert leader["steps"] == follower["steps"] == ddp_worker.STEPS
    assert any(name.startswith("score_fc") for name in single["state"])
    for name, expected in single["state"].items():
        # atol 5e-5: the heads' extra gradient sums leave float32 rounding of ~2e-5 on a
        # zero-initialised batch-norm scale; a wrong row count would move the losses below.
        torch.testing.assert_close(leader["state"][name], expected, rtol=1e-4, atol=5e-5, msg=lambda m: f"{name}: {m}")
        torch.testing.assert_close(follower["state"][name], leader["state"][name], rtol=0, atol=0, msg=lambda m: f"{name}: {m}")
    for got, expected in zip(leader["losses"], single["losses"]):
        for key in ("policy", "value", "score", "score_error", "ownership", "total", "grad_norm"):
            assert got[key] == pytest.approx(expected[key], rel=1e-4, abs=1e-6), key


def test_a_learning_rate_in_run_time_is_rank_0s_on_every_process(tmp_path):
    """train.lr_schedule_horizon=minutes: the cosine follows the run's clock, which only rank 0 has
    (the others never see the run directory); every process trains each step with rank 0's
    learning rate, so the weights are those of a single process with the same clock."""
    single = ddp_worker.single_process_run(timed=True)
    leader, follower = run_ranks("train", tmp_path, "cpu", "false", "false", "false", "true")
    rates = [losses["lr"] for losses in single["losses"]]
    assert len(set(rates)) == len(rates) and rates[-1] < 0.6 * rates[0], rates  # the clock moved the rate
    for name, expected in single["state"].items():
        torch.testing.assert_close(leader["state"][name], expected, rtol=1e-4, atol=1e-5, msg=lambda m: f"{name}: {m}")
        torch.testing.assert_close(follower["state"][name], leader["state"][name], rtol=0, atol=0, msg=lambda m: f"{name}: {m}")
    for got, expected in zip(leader["losses"], single["losses"]):
        assert got["lr"] == pytest.approx(expected["lr"], rel=1e-12)


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs (NCCL, torch.nn.SyncBatchNorm)")
@pytest.mark.parametrize("mixed_precision", [False, True])
def test_two_gpus_train_to_the_weights_of_one_gpu(tmp_path, mixed_precision):
    """The CUDA path: NCCL, cuda:LOCAL_RANK, torch's SyncBatchNorm, and bf16 autocast. GPU kernels
    pick algorithms by batch size, so the tolerance is looser than on the CPU (bf16: much looser)."""
    single = ddp_worker.single_process_run("cuda", mixed_precision)
    leader, follower = run_ranks("train", tmp_path, "cuda", str(mixed_precision).lower())
    assert leader["steps"] == follower["steps"] == ddp_worker.STEPS
    tolerance = dict(rtol=5e-2, atol=5e-3) if mixed_precision else dict(rtol=1e-3, atol=1e-4)
    for name, expected in single["state"].items():
        torch.testing.assert_close(leader["state"][name], expected, **tolerance, msg=lambda m: f"{name}: {m}")
        torch.testing.assert_close(follower["state"][name], leader["state"][name], rtol=0, atol=0, msg=lambda m: f"{name}: {m}")


def _torchrun(run_dir, *overrides):
    return [
        sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--master_port", str(_free_port()),
        "-m", "alphazero.train", "experiment=smoke", f"run.dir={run_dir}", "train.threads=1", "eval.every_steps=0", *overrides,
    ]


def _run(command, timeout=150) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(command, env=_env(), cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output = proc.communicate(timeout=timeout)[0]
    finally:
        _stop(proc)
    return subprocess.CompletedProcess(command, proc.returncode, output, "")


@pytest.mark.slow  # about 40 s of two cores: run by name in .ci/run ("long integration tests")
def test_torchrun_two_processes_train_checkpoint_and_resume(tmp_path):
    run_dir = tmp_path / "run"
    first = _run(_torchrun(run_dir, "run.max_iterations=2"))
    assert first.returncode == 0, first.stdout[-6000:]
    state = latest_state(run_dir)
    assert state["iteration"] == 2 and state["step"] > 0
    log_text = (run_dir / "log.txt").read_text()
    assert "training on 2 processes" in log_text
    # one run, one writer: a single session's lines, rank 1 trained every step rank 0 counted
    assert log_text.count("stopped at iteration 2") == 1
    assert f"training process 1 of 2: stopped after {state['step']} steps" in first.stdout
    assert sorted(p.name for p in (run_dir / "checkpoints").glob("latest.pt*")) == ["latest.pt"]
    assert scalars(run_dir, "loss/total")

    resumed = _run(_torchrun(run_dir, "run.resume=true", "run.max_iterations=3"))
    assert resumed.returncode == 0, resumed.stdout[-6000:]
    after = latest_state(run_dir)
    assert after["iteration"] == 3 and after["step"] > state["step"]
    assert f"training process 1 of 2: stopped after {after['step'] - state['step']} steps" in resumed.stdout
    assert "resumed" in (run_dir / "log.txt").read_text()
    assert ReplayBuffer(run_dir / "replay", window_positions=10_000).total_games >= 3 * 8


@pytest.mark.slow  # about 25 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_sigterm_to_rank_0_stops_every_process_after_a_save(tmp_path):
    """SIGTERM (or Ctrl-C) to the run's process, the pid in run.lock: it finishes its unit of work,
    saves, and stops the other rank; torchrun then ends with status 0."""
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(_torchrun(run_dir, "run.max_iterations=0"), env=_env(), cwd=REPO_ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        log = run_dir / "log.txt"
        while time.monotonic() < deadline and not (log.exists() and "iter 1 " in log.read_text()):
            assert proc.poll() is None, proc.stdout.read()[-6000:]
            time.sleep(0.5)
        assert "iter 1 " in log.read_text(), "the run did not finish an iteration in time"
        rank0 = int((run_dir / "run.lock").read_text().split()[1])
        os.kill(rank0, signal.SIGTERM)
        output = proc.communicate(timeout=90)[0]
    finally:
        _stop(proc)
    assert proc.returncode == 0, output[-6000:]
    state = latest_state(run_dir)
    assert state["iteration"] >= 1
    assert "stop requested (SIGTERM)" in log.read_text()
    assert f"training process 1 of 2: stopped after {state['step']} steps" in output


def test_a_batch_that_does_not_split_over_the_processes_is_refused_before_anything_is_written(tmp_path):
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={run_dir}", "train.batch_size=33"]
    proc = subprocess.run(command, env=_env(WORLD_SIZE=2, RANK=0, LOCAL_RANK=0), cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: train.batch_size=33 does not split evenly over the 2 training processes (WORLD_SIZE); use a multiple of 2"
    ]
    assert not run_dir.exists()
