"""A process in a crash loop stops the run with its last error instead of being restarted forever,
whether it dies on start-up, mid-game after reporting progress, or on the inference server's Nth
batch, and however slow the loop; one that delivers work between deaths (a shard written) never
spends its budget (alphazero.selfplay.restarts)."""

import os
import re
import time

import pytest

from alphazero.mcts.config import MCTSConfig
from alphazero.nn.config import model_preset
from alphazero.nn.model import AlphaZeroNet
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.pool import WorkerPool
from alphazero.selfplay.reports import ErrorReport, ProgressReport, ShardReport
from alphazero.selfplay.restarts import ProcessKeepsDying, RestartBudget
from alphazero.train import checkpoints

DEADLINE_S = 240  # a process start (torch import) takes seconds on two busy cores


def test_deaths_without_work_in_between_spend_the_budget_and_name_the_last_error():
    budget = RestartBudget("self-play worker 1", max_restarts=2)
    budget.died(-9)
    budget.error('Traceback (most recent call last):\n  File "x.py", line 1\nFileNotFoundError: checkpoint net.pt does not exist\n')
    budget.died(1)
    with pytest.raises(ProcessKeepsDying, match=r"^self-play worker 1 died 3 times without delivering work in between .* "
                                                r"Its last error: FileNotFoundError: checkpoint net.pt does not exist$"):
        budget.died(1)


def test_a_slow_crash_loop_spends_the_budget_however_far_apart_its_deaths(monkeypatch):
    # A death an hour: the old 600 s window forgot each one before the next came, for ever.
    clock = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    budget = RestartBudget("the inference server", max_restarts=2)
    for _ in range(2):
        budget.died(1)
        clock[0] += 3600.0
    with pytest.raises(ProcessKeepsDying, match="the inference server died 3 times .* exit code 1, no error reported"):
        budget.died(1)


def test_work_between_deaths_resets_the_count_and_the_last_error():
    budget = RestartBudget("the inference server", max_restarts=1)
    for _ in range(50):  # killed again and again, but working in between: the fault campaign
        budget.error("RuntimeError: old")
        budget.died(-9)
        budget.delivered()
    budget.died(-9)
    with pytest.raises(ProcessKeepsDying, match="the inference server died 2 times .* exit code -9, no error reported"):
        budget.died(-9)


# ---------------------------------------------------------------- through the pool

def _publish_tiny_best(run_dir) -> None:
    checkpoints.publish_best(run_dir, AlphaZeroNet(model_preset("tiny")), 0, 0.0, 0)


def _poll_until_stopped(pool, seconds=DEADLINE_S) -> tuple[list, ProcessKeepsDying]:
    """The reports of a pool polled as the sync loop does, until it raises ProcessKeepsDying."""
    reports, deadline = [], time.monotonic() + seconds
    while True:
        assert time.monotonic() < deadline, f"the pool kept restarting a process in a crash loop ({pool.restarts} restarts)"
        try:
            reports.extend(pool.poll(timeout=0.5))
        except ProcessKeepsDying as failure:
            return reports, failure


def _progress_then_crash(*args, **kwargs):
    """A worker's entry point (spawned) whose play reports its progress and then raises mid-game,
    every time, before any game is finished: a bug at some ply, or a poisoned position."""
    from alphazero.selfplay import worker

    def report_progress_then_raise(w, worker_id, task_id, cutter, emit, task_complete):
        emit(w.progress(worker_id, task_id))
        raise RuntimeError("bug at some ply")

    worker.write_shards = report_progress_then_raise
    worker.worker_main(*args, **kwargs)


def _shard_then_crash(*args, **kwargs):
    """A worker's entry point (spawned) that writes a shard and then raises, every time: killed
    now and then, but delivering games in between."""
    from alphazero.selfplay import worker

    write_shards = worker.write_shards

    def write_then_raise(*write_args, **write_kwargs):
        written = write_shards(*write_args, **write_kwargs)
        if written:
            raise RuntimeError("dies after each shard")
        return written

    worker.write_shards = write_then_raise
    worker.worker_main(*args, **kwargs)


def test_a_worker_that_reports_progress_then_crashes_mid_game_stops_the_pool(tmp_path, monkeypatch):
    _publish_tiny_best(tmp_path)
    monkeypatch.setattr("alphazero.selfplay.pool.worker_main", _progress_then_crash)
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=2, games_per_shard=1, device="cpu", max_restarts=2)
    pool = WorkerPool(str(tmp_path), selfplay_cfg, MCTSConfig(simulations=2), seed=0)
    try:
        pool.assign(0, 4)
        reports, failure = _poll_until_stopped(pool)
    finally:
        pool.close()
    assert str(failure).startswith("self-play worker 0 died 3 times without delivering work in between")
    assert str(failure).endswith("Its last error: RuntimeError: bug at some ply")
    assert "\n" not in str(failure)
    assert pool.restarts == 2
    # Each life reported progress first (the old budget took that for work, and restarted it for ever).
    assert sum(isinstance(r, ProgressReport) for r in reports) >= 3
    assert not any(isinstance(r, ShardReport) for r in reports)


@pytest.mark.slow  # four restarts (about 70 s on two busy cores); run by name in CI
def test_a_worker_that_writes_shards_between_crashes_keeps_being_restarted(tmp_path, monkeypatch):
    _publish_tiny_best(tmp_path)
    monkeypatch.setattr("alphazero.selfplay.pool.worker_main", _shard_then_crash)
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=2, games_per_shard=1, device="cpu", max_restarts=1)
    pool = WorkerPool(str(tmp_path), selfplay_cfg, MCTSConfig(simulations=2), seed=0)
    shards, errors, deadline = 0, 0, time.monotonic() + DEADLINE_S
    try:
        pool.assign(0, 0)  # play until stopped
        while pool.restarts < 4:  # twice its budget of deaths, each after a shard
            assert time.monotonic() < deadline, f"only {pool.restarts} restarts within {DEADLINE_S} s"
            reports = pool.poll(timeout=0.5)  # raises ProcessKeepsDying if the shards were not counted as work
            shards += sum(isinstance(r, ShardReport) for r in reports)
            errors += sum(isinstance(r, ErrorReport) for r in reports)
    finally:
        pool.close()
    assert shards >= 4 and errors >= 4


@pytest.mark.slow  # two processes start and restart (about 30 s on two busy cores); run by name in CI
def test_a_server_that_crashes_on_its_nth_batch_stops_the_pool(tmp_path, monkeypatch):
    _publish_tiny_best(tmp_path)
    # Spawned processes read ALPHAZERO_FAULT at import: the server raises on its 5th batch, every life.
    monkeypatch.setenv("ALPHAZERO_FAULT", "server_batch:5:raise")
    selfplay_cfg = SelfPlayConfig(workers=2, concurrent_games=2, games_per_shard=1, inference_server=True, device="cpu", max_restarts=2)
    pool = WorkerPool(str(tmp_path), selfplay_cfg, MCTSConfig(simulations=8), seed=0)
    try:
        for worker_id in range(2):
            pool.assign(worker_id, 0)
        reports, failure = _poll_until_stopped(pool)
        calls = pool.server.stats()["calls"]
    finally:
        pool.close()
    assert str(failure).startswith("the inference server died 3 times without delivering work in between")
    assert str(failure).endswith("Its last error: alphazero.fault_hooks.InjectedFault: "
                                 "ALPHAZERO_FAULT=server_batch:5:raise: injected error at server_batch entry 5")
    assert pool.server.restarts == 2
    assert calls >= 3 * 4  # each life answered its first four batches (the old budget took one for work)
    assert not any(isinstance(r, ShardReport) for r in reports)


# Through the inference server it takes 16 s (two processes die and restart): slow, run by name in CI;
# the direct path stays in the default run.
@pytest.mark.parametrize("inference_server", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_process_that_dies_on_every_start_stops_the_pool_with_its_last_error(tmp_path, inference_server):
    _publish_tiny_best(tmp_path)
    pointer = checkpoints.read_best_pointer(tmp_path)
    with open(pointer["path"], "wb") as handle:  # the best network's file is damaged: every load fails
        handle.write(b"not a checkpoint")
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=2, games_per_shard=1, inference_server=inference_server, device="cpu",
                                  max_restarts=1)
    pool = WorkerPool(str(tmp_path), selfplay_cfg, MCTSConfig(simulations=2), seed=0)
    who = "the inference server" if inference_server else "self-play worker 0"
    try:
        pool.assign(0, 4)
        failure = _poll_until_stopped(pool)[1]
    finally:
        pool.close()
    assert re.match(rf"{who} died 2 times .* Its last error: .*{re.escape(pointer['path'].split('/')[-1])}", str(failure)), failure
    assert not os.path.exists(pool.stop_event.path)


@pytest.mark.slow  # a smoke run's start-up and three worker lives (about 60 s on two busy cores); run by name in CI
def test_the_training_command_stops_a_crash_loop_injected_from_outside_with_status_3(tmp_path):
    import subprocess
    import sys

    env = dict(os.environ, ALPHAZERO_FAULT="selfplay:6:raise")
    proc = subprocess.run([sys.executable, "-m", "alphazero.train", "experiment=smoke", "selfplay.max_restarts=2", f"run.dir={tmp_path / 'run'}"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 3, proc.stderr[-3000:]
    last_lines = [stream.strip().splitlines()[-1] for stream in (proc.stdout, proc.stderr) if stream.strip()]
    assert any(re.search(r"ERROR self-play worker 0 died 3 times without delivering work in between \(selfplay.max_restarts=2\); "
                     r"stopping the run. Its last error: alphazero.fault_hooks.InjectedFault: ALPHAZERO_FAULT=selfplay:6:raise: "
                     r"injected error at selfplay entry 6 \(exit status 3\)$", last) for last in last_lines), last_lines
