"""The `smoke` preset end to end: games fill the buffer, the loss falls, checkpoints are written,
the arena runs, and `run.resume=true` continues the counters."""

import subprocess

import pytest

from alphazero.nn.checkpoint import load_checkpoint, load_network
from alphazero.replay.buffer import ReplayBuffer
from alphazero.train.provenance import code_version, read_sessions
from alphazero.train.ship import main as ship_main

from .helpers import latest_state, run_training, scalars, train_command


@pytest.mark.slow  # about 40 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_smoke_run_trains_gates_checkpoints_and_resumes(tmp_path):
    run_dir = tmp_path / "run"
    run_training(run_dir)

    replay = ReplayBuffer(run_dir / "replay", window_positions=10_000)
    # 3 iterations x games_per_iteration; a task's last shard also holds the games that ended in
    # the same search step as its last one (the worker keeps no finished game back)
    assert 3 * 8 <= replay.total_games <= 3 * (8 + 8)
    state = latest_state(run_dir)
    assert state["iteration"] == 3
    assert state["step"] > 0
    assert state["gates"] >= 1
    for name in ("latest.pt", "best.pt", "best.json", "net-000000.pt"):
        assert (run_dir / "checkpoints" / name).exists(), name
    load_network(run_dir / "checkpoints" / "best.pt")
    assert (run_dir / "config.yaml").exists() and (run_dir / "log.txt").exists()
    log_text = (run_dir / "log.txt").read_text()
    assert "iter 3" in log_text and "arena:" in log_text

    losses = [value for _, value in scalars(run_dir, "loss/total")]
    assert len(losses) >= 3
    assert min(losses[-2:]) < losses[0], f"total loss did not fall: {losses}"
    assert scalars(run_dir, "arena/score")
    assert scalars(run_dir, "selfplay/positions_per_second")
    waiting = [value for _, value in scalars(run_dir, "selfplay/worker_waiting")]
    assert waiting and all(0 < value <= 1.5 for value in waiting), waiting  # share of the workers' time in network calls

    refused = subprocess.run(train_command(run_dir), capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "run.resume=true" in refused.stderr

    run_training(run_dir, "run.resume=true", "run.max_iterations=4")
    resumed = latest_state(run_dir)
    assert resumed["iteration"] == 4
    assert resumed["step"] > state["step"]
    assert ReplayBuffer(run_dir / "replay", window_positions=10_000).total_games >= 4 * 8
    assert "resumed" in (run_dir / "log.txt").read_text()

    # Each session recorded the code it ran; shipping the run carries them with the weights.
    sessions = read_sessions(run_dir)
    assert [(s["iteration"], s["step"]) for s in sessions] == [(0, 0), (3, state["step"])]
    assert all(s["commit"] == code_version()["commit"] for s in sessions)
    shipped = tmp_path / "shipped.pt"
    assert ship_main([str(run_dir), str(shipped)]) == 0
    extra = load_checkpoint(shipped).extra
    assert extra["kind"] == "selfplay" and extra["sessions"] == sessions
    assert extra["run"]["iteration"] == 4 and extra["config"] == (run_dir / "config.yaml").read_text()

    # A resume whose budget counts earlier sessions and is already spent says so and changes nothing.
    latest_bytes = (run_dir / "checkpoints" / "latest.pt").read_bytes()
    spent = run_training(run_dir, "run.resume=true", "run.max_iterations=4")
    said = spent.stdout + spent.stderr
    assert "nothing to do: run.max_iterations=4 is reached (iteration 4, every session counted)" in said, said[-2000:]
    assert "starting" not in said and (run_dir / "checkpoints" / "latest.pt").read_bytes() == latest_bytes
    assert len(read_sessions(run_dir)) == 2



def test_without_gating_every_candidate_becomes_best_and_still_gets_an_elo_step(tmp_path):
    run_dir = tmp_path / "run"
    run_training(run_dir, "arena.gating=false", "run.max_iterations=2", "eval.every_steps=0")
    state = latest_state(run_dir)
    assert state["gates"] >= 1
    assert state["best_id"] == state["promotions"] == state["gates"]
    assert "published (no gating)" in (run_dir / "log.txt").read_text()
    elo_steps = [value for _, value in scalars(run_dir, "arena/elo_diff")]
    assert len(elo_steps) == state["gates"]
    # the ladder adds each measured step, losses included (a gate would never add a negative one)
    assert abs(state["best_elo"] - sum(min(max(v, -400.0), 400.0) for v in elo_steps)) < 1e-3


def test_smoke_run_with_the_inference_server_end_to_end(tmp_path):
    run_dir = tmp_path / "run"
    run_training(run_dir, "selfplay.inference_server=true", "selfplay.workers=2", "run.max_iterations=1", "eval.every_steps=0")
    assert ReplayBuffer(run_dir / "replay", window_positions=10_000).total_games >= 8
    assert latest_state(run_dir)["iteration"] == 1
    assert "iter 1" in (run_dir / "log.txt").read_text()
